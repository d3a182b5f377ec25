"""Loading the impl's C kernels (ctypes) and passing NumPy arrays to them."""

from __future__ import annotations

import ctypes
import importlib
import importlib.machinery
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from harness.errors import ParityError

HERE = Path(__file__).resolve().parent


class Profile(ctypes.Structure):
    """``profile_t`` of csrc/common.h."""

    _fields_ = [
        (name, ctypes.c_int32) for name in ("aten", "lanes", "lanes_wide", "vec_fma", "contract", "threads", "blas")
    ]


def _not_built(name: str) -> ParityError:
    return ParityError(
        f"harness.impl: the C kernels '{name}' are not built; install the package "
        "(pip install -e .) or run python tools/build_impl.py"
    )


@cache
def load(name: str) -> ctypes.CDLL:
    """The shared library built from ``csrc/<name>.c``."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = HERE / f"_{name}{suffix}"
        if path.exists():
            return ctypes.CDLL(str(path))
    raise _not_built(name)


@cache
def module(name: str) -> ModuleType:
    """The library built from ``csrc/<name>.c`` as the Python module it also is (digest, tracer)."""
    try:
        return importlib.import_module(f"harness.impl._{name}")
    except ModuleNotFoundError:
        raise _not_built(name) from None


def f32(a: np.ndarray) -> np.ndarray:
    """A C-contiguous float32 copy or view (never a silent dtype change of float64 data)."""
    if a.dtype != np.float32:
        raise TypeError(f"expected float32, got {a.dtype}")
    return a if a.flags.c_contiguous else a.copy(order="C")  # keeps 0-d arrays 0-d


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    """Pointer to a C-contiguous array's data (keep the array alive during the call)."""
    if not a.flags.c_contiguous:
        raise ValueError("array must be C-contiguous")
    return ctypes.c_void_p(a.ctypes.data)
