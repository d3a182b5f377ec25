"""Errors the command line reports as one line and exit status 2, and the one place that reports them."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn


class ParityError(Exception):
    """A usage or input problem: reported as one line, exit status 2."""


SHOWN_PATH_CHARS = 200  # a longer path is shown by its start and end


def printable(path: str | Path) -> str:
    """A path as one printable line: bytes that are not UTF-8 as ``\\xNN``, controls escaped, a very
    long path shortened in the middle."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    if len(text) > SHOWN_PATH_CHARS:
        half = SHOWN_PATH_CHARS // 2
        text = f"{text[:half]}...({len(text)} characters)...{text[-half:]}"
    return text


class FixtureError(ParityError):
    """A fixture file that cannot be read, is not ours, or fails verification."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{printable(self.path)}: {problem}")


def run_reporting_errors(body: Callable[[], int]) -> int:
    """Run ``body``; a ParityError becomes one line on stderr and exit status 2."""
    try:
        return body()
    except ParityError as err:
        print(f"parity: error: {one_line(str(err))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("parity: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (| head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as err:  # the system refused a path: too long, no permission, no space, ...
        where = f"{printable(err.filename)}: " if err.filename is not None else ""
        print(f"parity: error: {where}{one_line(str(err.strerror or err))}", file=sys.stderr)
        return 2


def one_line(text: str) -> str:
    return " ".join(text.splitlines())


def escape_unprintable_output() -> None:
    """Have stdout and stderr escape what their encoding cannot show (a file name that is not
    UTF-8, a lone surrogate) rather than fail on it: one line of output is never lost to it."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


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
