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

The window functions of float32: ``hann_window`` (TensorFactories.cpp's hamming_window with alpha = beta =
0.5: arange, ``mul_`` by 2 pi / (N - 1) rounded to float, ``cos_`` (MKL VML's on x86, SLEEF's cosf lanes on
aarch64), ``mul_(-0.5)``, ``add_(0.5)``) and ``kaiser_window`` (UnaryOpsKernel.cpp's kaiser_window_kernel over
arange: Math.h's calc_i0 in float with glibc's expf, csrc/factories.c), on x86 and Linux arm64.
"""

from __future__ import annotations

import ctypes
import math
from functools import cache

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, load, ptr
from harness.impl.nans import default_nans
from harness.impl.profiles import KernelProfile


@cache
def _lib() -> ctypes.CDLL:
    lib = load("factories")
    for name in ("arange_forward", "linspace_forward"):
        fn = getattr(lib, name)
        fn.argtypes = [Profile, ctypes.c_double, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64]
        fn.restype = None
    lib.kaiser_window_forward.argtypes = [Profile, ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_float]
    lib.kaiser_window_forward.restype = None
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


def _window_length(name: str, window_length: int, periodic: bool) -> int:
    """The length a window function computes (one more where periodic: the window is its first
    ``window_length`` elements); refuses a negative length (torch refuses it)."""
    if window_length < 0:
        raise ParityError(f"{name} of {window_length} elements: torch refuses a negative length")
    return window_length + 1 if periodic else window_length


def hann_window(window_length: int, periodic: bool, profile: KernelProfile) -> np.ndarray:
    """``torch.hann_window(window_length, periodic)`` of float32: hamming_window(alpha=0.5, beta=0.5), i.e.
    ``arange(N).mul_(2 pi / (N - 1)).cos_().mul_(-0.5).add_(0.5)`` with N one more where periodic; every step
    element-wise (the scalar products and sum rounded once in the vector body and the tail alike), ``cos_``
    MKL VML's vsCos on x86, SLEEF's cosf lanes on aarch64 (harness.impl.unary, which refuses what it does not
    reproduce). Lengths 0 and 1: empty and ones."""
    from harness.impl.unary import forward

    n = _window_length("hann_window", window_length, periodic)
    if window_length <= 1:
        return np.ones(window_length, np.float32)
    x = arange(0.0, float(n), 1.0, profile) * np.float32(2.0 * math.pi / (n - 1))
    window = forward("cos", x, profile) * np.float32(-0.5) + np.float32(0.5)
    return window[:window_length]


def kaiser_window(window_length: int, periodic: bool, beta: float, profile: KernelProfile) -> np.ndarray:
    """``torch.kaiser_window(window_length, periodic, beta)`` of float32: ``i0(beta * sqrt(|1 - t^2|)) /
    i0(beta)``, t = (i - alpha) / alpha, alpha = (N - 1) / 2, N one more where periodic (csrc/factories.c:
    the default object unfused, the AVX2 one, which avx512 runs, and every aarch64 build contracted). Lengths 0
    and 1: empty and ones. Refused: a beta not finite, and N past 2^24 (arange's floats no longer every integer)."""
    n = _window_length("kaiser_window", window_length, periodic)
    if window_length <= 1:
        return np.ones(window_length, np.float32)
    if not math.isfinite(beta) or n > 1 << 24:
        raise ParityError(f"kaiser_window of {window_length} elements and beta {beta}: not modelled")
    out = np.empty(n, np.float32)
    _lib().kaiser_window_forward(profile.as_c(), ptr(out), n, (n - 1) / 2.0, beta)
    # i0(beta) past float's range: inf / inf, the CPU's default NaN (no NaN comes in)
    return default_nans(out, np.ones(n, bool), profile.aarch64)[:window_length]
