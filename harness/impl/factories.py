"""ATen's range factories of float32, ``torch.arange`` and ``torch.linspace`` (csrc/factories.c), on x86 and
Linux arm64.

Their bits depend on where each element falls: arange computes a vector's base in double, rounds it to
float, and adds each lane's ``j * step`` in double, while its scalar tail computes every position from
``start`` (so the thread count, which cuts the chunks the loops restart in, reaches its bits: 13,992
of 70,001 elements at 4 threads against 1, measured); linspace is serial, its ``start + step * idx``
contracted in the AVX2 object and rounded twice in the default one (356 of 1,000 elements other
between default and avx2). On aarch64 (measured under emulation on Neoverse N1, V2 and V1, 1, 2 and 4
threads: 25 random aranges and 25 linspaces per core and thread count, 0 other) the vector lanes are the
NEON object's float FMA of the lane's index and the step rounded to float (N1, V2: 4 lanes) or SVE256's
contracted double ``base + j * step`` (V1: 8 lanes), a -0 base +0 in both; linspace is the AVX2 object's
contracted arithmetic.
"""

from __future__ import annotations

import ctypes
import math
from functools import cache

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, load, ptr
from harness.impl.profiles import KernelProfile


@cache
def _lib() -> ctypes.CDLL:
    lib = load("factories")
    for name in ("arange_forward", "linspace_forward"):
        fn = getattr(lib, name)
        fn.argtypes = [Profile, ctypes.c_double, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64]
        fn.restype = None
    return lib


def arange_length(start: float, end: float, step: float) -> int:
    """arange's length for floating bounds: ``ceil((end - start) / step)`` in double (RangeFactories.cpp)."""
    if step == 0 or not all(map(math.isfinite, (start, end, step))):
        raise ParityError(f"arange({start}, {end}, {step}): torch refuses a zero step or a bound not finite")
    return max(0, math.ceil((end - start) / step))


def arange(start: float, end: float, step: float, profile: KernelProfile) -> np.ndarray:
    """``torch.arange(start, end, step)`` of float32 (numbers as the Python floats torch was given)."""
    n = arange_length(start, end, step)
    out = np.empty(n, np.float32)
    if n:
        _lib().arange_forward(profile.as_c(), float(start), float(step), ptr(out), n)
    return out


def linspace(start: float, end: float, steps: int, profile: KernelProfile) -> np.ndarray:
    """``torch.linspace(start, end, steps)`` of float32."""
    if steps < 0:
        raise ParityError(f"linspace: {steps} steps; torch refuses a negative count")
    out = np.empty(steps, np.float32)
    if steps:
        _lib().linspace_forward(profile.as_c(), float(start), float(end), ptr(out), steps)
    return out
