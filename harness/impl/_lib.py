"""Loading the impl's C kernels (ctypes) and passing NumPy arrays to them."""

from __future__ import annotations

import ctypes

import numpy as np

from harness.core import clib


class Profile(ctypes.Structure):
    """``profile_t`` of csrc/common.h."""

    _fields_ = [
        (name, ctypes.c_int32)
        for name in ("aten", "lanes", "lanes_wide", "vec_fma", "contract", "threads", "blas", "torch", "rsqrt")
    ]


def load(name: str) -> ctypes.CDLL:
    """The shared library built from ``harness/impl/csrc/<name>.c``."""
    return clib.load("impl", name)


def f32(a: np.ndarray) -> np.ndarray:
    """A C-contiguous float32 copy or view (never a silent dtype change of float64 data)."""
    if a.dtype != np.float32:
        raise TypeError(f"expected float32, got {a.dtype}")
    return a if a.flags.c_contiguous else a.copy(order="C")  # keeps 0-d arrays 0-d


def aligned(size: int) -> np.ndarray:
    """A zeroed float32 buffer of ``size`` on a 64-byte boundary, as torch's CPU allocator gives
    (MKL's kernels peel by alignment, so the impl's operands sit where torch's do)."""
    buf = np.zeros(size + 16, np.float32)
    start = (-(buf.ctypes.data // 4)) % 16
    return buf[start : start + size]


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    """Pointer to a C-contiguous array's data (keep the array alive during the call)."""
    if not a.flags.c_contiguous:
        raise ValueError("array must be C-contiguous")
    return ctypes.c_void_p(a.ctypes.data)
