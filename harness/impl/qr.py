"""QR factorisation (torch.linalg.qr, mode 'reduced') as MKL's LAPACK runs it on its generic code path:
sgeqrf then sorgqr, unblocked. Torch-free. ``torch.nn.init.orthogonal_`` draws its matrix with
``normal_`` and takes Q from this (RWKV initialises its linear layers so).

Shape legend: a (M, N) float32 with M >= N and N <= 32, q (M, N), r (N, N). The C kernels
(csrc/qr.c) say which MKL routine each reproduces and its order of operations; this module picks
MKL's path by shape and thread count, as measured, and refuses the rest.
"""

from __future__ import annotations

import ctypes

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import load
from harness.impl.profiles import IMPL_TORCH, MODELLED_BLAS, KernelProfile

SMALL, GEQR2, PFNR = 0, 1, 2  # csrc/qr.c qr_mkl_def's paths


def geqrf_path(m: int, n: int) -> int:
    """The unblocked sgeqrf MKL runs on an (m, n) matrix, m >= n (measured at 1 thread on torch 2.13.0's
    MKL); ParityError for the blocked and panel paths the impl does not reproduce."""
    if m <= 20:
        return SMALL
    if n > 32:
        raise ParityError(f"QR of {m}x{n}: MKL's blocked sgeqrf and sorgqr (more than 32 columns) are not modelled")
    if n <= 20:
        return PFNR
    if m * n > 25000:
        raise ParityError(f"QR of {m}x{n}: MKL's panel path (21 to 32 columns, M*N over 25,000) is not modelled")
    return GEQR2 if m == n or 51 <= m <= 64 else PFNR


def _split(m: int, n: int, path: int, threads: int) -> int:
    """Where sgeqrf_pfnr's OpenMP branch splits the rows (0: it runs on one thread)."""
    if threads == 1:
        return 0
    if threads != 2:
        raise ParityError(f"QR on {threads} threads: MKL's threaded sgeqrf is modelled on 1 and 2 threads only")
    if n >= 21 and m + n >= 200:
        raise ParityError(f"QR of {m}x{n} on 2 threads: MKL takes another path there (21+ columns, M+N >= 200)")
    # the branch needs a workspace of N per thread: torch's query gives 2N from 21 columns, N below
    return (m + 1) // 2 if path == PFNR and n >= 21 and m > 50 and m // 2 > n else 0


def qr(a: np.ndarray, profile: KernelProfile) -> tuple[np.ndarray, np.ndarray]:
    """torch.linalg.qr(a) (mode 'reduced'): (Q, R), both float32 C-contiguous."""
    if profile.aarch64 or profile.blas != MODELLED_BLAS or profile.mkl_cbwr:
        raise ParityError(f"QR under {profile.label}: the impl models MKL's generic code path (an AMD CPU) only")
    if profile.torch != IMPL_TORCH:
        raise ParityError(f"QR under torch {profile.torch}: measured with torch {IMPL_TORCH}'s MKL only")
    if a.dtype != np.float32 or a.ndim != 2:
        raise ParityError(f"QR of a {a.dtype} array of {a.ndim} dims: the impl takes one float32 matrix")
    m, n = a.shape
    if m < n or n == 0:
        raise ParityError(f"QR of {m}x{n}: the impl takes M >= N >= 1")
    if not np.isfinite(a).all():
        raise ParityError("QR of a matrix with NaN or infinity: MKL's special cases are not modelled")
    path = geqrf_path(m, n)
    split = _split(m, n, path, profile.threads)
    work = np.array(a, order="F")  # a copy, column-major, leading dimension M, as ATen hands LAPACK its copy
    r = np.zeros((n, n), np.float32, order="F")
    fn = load("qr").qr_mkl_def
    fn.restype = ctypes.c_int
    rc = fn(
        ctypes.c_int64(m), ctypes.c_int64(n), ctypes.c_void_p(work.ctypes.data), ctypes.c_void_p(r.ctypes.data),
        ctypes.c_int(path), ctypes.c_int64(split),
    )  # fmt: skip
    if rc != 0:
        raise ParityError(f"QR of {m}x{n}: a column's norm outside [2^-60, 2^60] takes MKL's rescaling, not modelled")
    return np.ascontiguousarray(work), np.ascontiguousarray(r)
