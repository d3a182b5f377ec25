"""Paths from outside, checked before anything opens them.

Every file the command line reads goes through ``regular_file`` first: its name is checked
against what the system allows (a NUL byte, a name over ``NAME_MAX`` bytes, a path over
``PATH_MAX``), symbolic links are followed by the system's own bounded resolution (a loop
ends in ELOOP, reported in one line), and only a regular file is opened: a FIFO would block
the reader for ever, a device or socket is no fixture. Inside a store, ``inside`` refuses a
symbolic link that leads out of the store. Every refusal is a ``ParityError`` (one line, exit
status 2), naming the path as ``printable`` shows it.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from harness.core.errors import ParityError, printable

NAME_MAX = 255  # bytes in one path component (Linux, macOS)
PATH_MAX = 4096  # bytes in a whole path, its terminating NUL included (Linux; macOS allows 1024)

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def name_problem(path: str | Path) -> str:
    """What keeps the system from taking ``path`` ("" if nothing): a NUL byte, a component over
    NAME_MAX bytes, a whole path over PATH_MAX."""
    raw = os.fsencode(path)
    if b"\0" in raw:
        return "a path cannot hold a NUL byte"
    if len(raw) >= PATH_MAX:
        return f"a path of {len(raw)} bytes is longer than the system allows"
    longest = max(raw.split(b"/"), key=len)
    if len(longest) > NAME_MAX:
        return f"a name of {len(longest)} bytes is longer than the system allows ({NAME_MAX})"
    return ""


def check_name(path: str | Path) -> None:
    """A path the system can take, else a one-line error."""
    problem = name_problem(path)
    if problem:
        raise ParityError(f"{printable(path)}: {problem}")


def path_arg(text: str) -> Path:
    """An argparse type for a path: one the system can take, else argparse's one-line usage error
    before any work is done."""
    problem = name_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{printable(text)}: {problem}")
    return Path(text)


def file_kind(mode: int) -> str:
    """What a stat mode is, in words ("a directory", "a FIFO (named pipe)", ...; "" for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def file_problem(path: str | Path, what: str = "fixture file") -> str:
    """Why ``path`` cannot be read as a regular file, following symbolic links ("" if it can)."""
    problem = name_problem(path)
    if problem:
        return problem
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return f"a symbolic link to nothing ({printable(os.readlink(path))})"
        return "no such file"
    except OSError as err:  # ELOOP (a symbolic link loop), EACCES, ENOTDIR, ...
        return str(err.strerror or err)
    kind = file_kind(info.st_mode)
    return f"is {kind}, not a {what}" if kind else ""


def regular_file(path: str | Path, what: str = "fixture file") -> None:
    """``path`` can be opened for reading as a regular file, else a one-line error."""
    problem = file_problem(path, what)
    if problem:
        raise ParityError(f"{printable(path)}: {problem}")


def inside(path: Path, root: Path) -> Path:
    """``path``, found in the store at ``root``, resolved; a one-line error where a symbolic link
    leads it out of the store (what it names belongs to something else)."""
    try:
        real, top = path.resolve(strict=True), root.resolve(strict=True)
    except (OSError, RuntimeError) as err:  # a loop, a link to nothing
        raise ParityError(f"{printable(path)}: cannot be resolved ({getattr(err, 'strerror', None) or err})") from None
    if not real.is_relative_to(top):
        raise ParityError(
            f"{printable(path)}: is a symbolic link out of the store {printable(root)} (to {printable(real)})"
        )
    return real
