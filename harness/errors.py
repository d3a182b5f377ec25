"""Errors the command line reports as one line and exit status 2."""

from __future__ import annotations

from pathlib import Path


class ParityError(Exception):
    """A usage or input problem: reported as one line, exit status 2."""


def torch_missing(version: str, instead: str, platform_id: str = "") -> str:
    """The error where torch is needed and not installed: the pip command pinned to ``version``,
    else to the newest torch release with committed fixtures (of ``platform_id`` where given)."""
    from harness.provenance import public_version
    from harness.recording import DEFAULT_FIXTURES

    found = {p.parent.name.removeprefix("torch-") for p in DEFAULT_FIXTURES.glob(f"torch-*/{platform_id or '*'}.h5")}
    numeric = lambda v: [int(x) if x.isdigit() else 0 for x in v.split(".")]
    versions = [public_version(version)] if version else sorted(found, key=numeric)
    pin = f"python3 -m pip install torch=={versions[-1]}" if versions else "python3 -m pip install torch"
    others = f" (committed fixtures are of torch {', '.join(versions)})" if len(versions) > 1 else ""
    return f"torch is not installed: {pin}{others}; {instead}"


class FixtureError(ParityError):
    """A fixture file that cannot be read, is not ours, or fails verification."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
