"""Errors the command line reports as one line and exit status 2, and the one place that reports them."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn


class ParityError(Exception):
    """A usage or input problem: reported as one line, exit status 2."""


class FixtureError(ParityError):
    """A fixture file that cannot be read, is not ours, or fails verification."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def run_reporting_errors(body: Callable[[], int]) -> int:
    """Run ``body``; a ParityError becomes one line on stderr and exit status 2."""
    try:
        return body()
    except ParityError as err:
        print(f"parity: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("parity: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (| head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (else argparse's one-line usage error)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a positive whole number, not '{text}'")
    return int(text)


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (``parity: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        hint = f" (see '{self.prog} --help')"
        self.exit(2, f"parity: error: {' '.join(message.split())}{hint}\n")
