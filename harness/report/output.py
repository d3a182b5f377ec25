"""Writing reports and other output files: checked up front, atomic, one-line errors.

An output is written to a temporary file of a unique name beside it (two writers of the same
file never share one), flushed to disk, then renamed over the target; a failure removes the
temporary file. A path that cannot be written (its place is a directory, a folder on the way
is a regular file, permission is denied) is a ParityError naming the path and the reason, so
the command line reports it as one line with exit status 2, before any long work where
``check_output_path`` is called first.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from harness.core.errors import ParityError


def _reason(err: OSError) -> str:
    return (err.strerror or str(err)).lower()


def _blocking_file(path: Path) -> Path | None:
    """The first existing ancestor of ``path`` that is not a directory, if any."""
    for parent in reversed(path.parents):
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def check_output_path(path: Path) -> None:
    """Refuse, before any work, an output file that could not be written."""
    if path.is_dir():
        raise ParityError(f"{path}: is a directory; name a file to write")
    blocker = _blocking_file(path)
    if blocker is not None:
        raise ParityError(f"cannot write {path}: {blocker} is a file, not a directory")
    existing = next((p for p in path.parents if p.exists()), Path("."))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ParityError(f"cannot write {path}: {existing} is not writable")


def check_output_dir(path: Path) -> None:
    """Refuse, before any work, an output folder that could not be made or written into."""
    if path.exists() and not path.is_dir():
        raise ParityError(f"{path}: is a file; name a folder to write into")
    blocker = _blocking_file(path)
    if blocker is not None:
        raise ParityError(f"cannot make folder {path}: {blocker} is a file, not a directory")
    existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ParityError(f"cannot write into {path}: {existing} is not writable")


def output_dir(path: Path) -> Path:
    """Make the output folder ``path`` (and its parents) where missing; refuse a file there."""
    check_output_dir(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ParityError(f"cannot make folder {path}: {_reason(err)}") from None
    return path


def write_output(path: Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; returns ``path``."""
    check_output_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise ParityError(f"cannot write {path}: {_reason(err)}") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is ordinary data
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ParityError(f"cannot write {path}: {_reason(err)}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path
