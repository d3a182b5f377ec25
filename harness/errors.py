"""Errors the command line reports as one line and exit status 2."""

from __future__ import annotations

from pathlib import Path


class ParityError(Exception):
    """A usage or input problem: reported as one line, exit status 2."""


class FixtureError(ParityError):
    """A fixture file that cannot be read, is not ours, or fails verification."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
