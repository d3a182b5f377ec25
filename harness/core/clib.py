"""Loading the package's C libraries: as ctypes libraries or as the Python modules some also are.

``<layer>/csrc/<name>.c`` is built as ``harness.<layer>._<name>`` (``harness/core/buildinfo.py``).
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.machinery
from functools import cache
from pathlib import Path
from types import ModuleType

from harness.core.errors import ParityError

PACKAGE = Path(__file__).resolve().parent.parent  # harness/


def _not_built(layer: str, name: str) -> ParityError:
    return ParityError(
        f"harness.{layer}: the C library '{name}' is not built; install the package "
        "(pip install -e .) or run python tools/build_impl.py"
    )


@cache
def load(layer: str, name: str) -> ctypes.CDLL:
    """The shared library built from ``harness/<layer>/csrc/<name>.c``."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = PACKAGE / layer / f"_{name}{suffix}"
        if path.exists():
            return ctypes.CDLL(str(path))
    raise _not_built(layer, name)


@cache
def module(layer: str, name: str) -> ModuleType:
    """The library built from ``harness/<layer>/csrc/<name>.c`` as the Python module it also is."""
    try:
        return importlib.import_module(f"harness.{layer}._{name}")
    except ModuleNotFoundError:
        raise _not_built(layer, name) from None
