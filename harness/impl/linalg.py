"""Matrix products and embedding: linear, matmul, embedding (C kernels in csrc/gemm.c).

The public functions take and return float32 NumPy arrays and reproduce torch 2.13.0's CPU
results bit for bit: ``mm``/``addmm`` (MKL sgemm as ``at::mm``/``at::addmm`` call it), ``bmm``
(``at::bmm``: ATen's small loop or MKL), ``baddbmm`` (its beta and alpha: BLOOM's ALiBi scores),
``addmv`` (``torch.mv``/``torch.addmv``: MKL's sgemv as at::addmm's one-row product), ``matmul``,
``linear`` and ``embedding`` with their backward functions. Transposed operands are passed as
NumPy views (``w.T``); no copy is made.
``profile.threads`` is MKL's thread count: MKL cuts C into a grid of blocks, one per thread, and a
block narrower than 12 columns or shorter than 4 rows takes MKL's small kernels (csrc/mkl_sgemm.h);
the main kernel's bits do not depend on it. ``threads`` (default ``profile.threads``) is how many
pthreads compute MKL's main kernel: speed only, no bit depends on it.
``RUNNERS`` maps the op ids to fixture runners.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import aligned, load, ptr
from harness.impl.nans import arith, nan_kinds, refuse_mixed_nans
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, MODELLED_BLAS, NVPL, KernelProfile

_I64 = ctypes.c_int64
_P = ctypes.c_void_p
_SMALL_BMM = 400  # at::bmm: contraction * rows * cols below this takes ATen's own loop, not MKL
_GRAIN = 32768  # at::internal::GRAIN_SIZE: that loop's parallel_for grain is it over K*M*N
# its roundings (csrc/gemm.c bmm_small): x86; aarch64's scalar loop (fused); aarch64's loop over k in
# vectors
_BMM_SMALL_UNFUSED, _BMM_SMALL_FUSED, _BMM_SMALL_K_VECTOR = 0, 1, 2


def _lib() -> ctypes.CDLL:
    lib = load("gemm")
    if not getattr(lib, "_typed", False):
        i32 = ctypes.c_int32
        f32 = ctypes.c_float
        lib.gemm.argtypes = [_I64, _I64, _I64, _P, _I64, _I64, _P, _I64, _I64, _P, _I64, *[i32] * 7, f32]
        lib.gemm_batch.argtypes = [_I64, *[_I64] * 3, _P, *[_I64] * 3, _P, *[_I64] * 3, _P, _I64, _I64, *[i32] * 7, f32]
        lib.cpublas_sgemm.argtypes = [i32, i32, _I64, _I64, _I64, _P, _I64, _P, _I64, i32, _P, _I64, i32, i32, i32]
        lib.bmm_small.argtypes = [_I64, _I64, _I64, _I64, _P, _P, _P, i32, f32, f32, i32, i32, i32]
        lib.embedding_forward.argtypes = [_I64, _I64, _P, _P, _P]
        lib.embedding_backward.argtypes = [_I64, _I64, _I64, _P, _P, _P]
        lib.strsm_left.argtypes = [i32, i32, _I64, _I64, _P, _I64, _I64, _P, _I64, _I64]
        lib.trsm_update.argtypes = [_I64, _I64, _I64, _P, _I64, _I64, _P, _I64, _I64, _P, _I64, i32, f32]
        lib.strsv_left.argtypes = [i32, i32, i32, _I64, _P, _I64, _P]
        lib.strsm_lower_t.argtypes = [i32, _I64, _I64, _P, _I64, _I64, _P, _I64, _I64]
        lib.strsm_lln.argtypes = [i32, _I64, _I64, _P, _I64, _P, _I64, _I64]
        lib.strsm_right.argtypes = [i32, i32, i32, _I64, _I64, _P, _I64, _I64, _P, _I64, _I64]
        lib._typed = True
    return lib


def _operand(a: np.ndarray) -> tuple[np.ndarray, int, int, bool]:
    """A 2-D float32 operand as torch's addmm hands it to BLAS: (array, element strides, transposed).
    Row-major (unit column stride, row stride >= cols) is kept as is; else column-major (unit row
    stride, column stride >= rows) is kept as transposed (a 1-row vector with unit strides is
    column-major by this test); anything else is copied C-contiguous."""
    if a.dtype != np.float32:
        raise TypeError(f"expected float32, got {a.dtype}")
    s0, s1 = (s // 4 if s % 4 == 0 else -1 for s in a.strides)
    rows, cols = a.shape
    if s1 == 1 and s0 >= max(1, cols):
        return a, s0, s1, False
    if s0 == 1 and s1 >= max(1, rows):
        return a, s0, s1, True
    return np.ascontiguousarray(a), max(1, cols), 1, False


def _check_2d(a: np.ndarray, b: np.ndarray) -> None:
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ParityError(f"mm: cannot multiply {list(a.shape)} by {list(b.shape)}")


def _sgemm(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    beta: bool,
    profile: KernelProfile,
    batched: int = 0,
    threads: int | None = None,
    addmm: bool = False,
    blas: int | None = None,
    alpha: float = 1.0,
) -> None:
    """MKL sgemm into ``c`` (unit column stride): ``c = (c if beta else 0) + a @ b`` (``batched``: the
    number of items, 2 or more, when this is one item of MKL's batched gemm, whose items MKL may cut
    into parts by that number and the thread count; ``profile.threads``: MKL's thread count, whose grid of blocks picks
    kernels; ``threads``: pthreads for the main kernel). The kernels of small products depend on the
    addresses mod 16 bytes: pass the arrays at the same offsets as torch's tensors (fresh arrays and
    their views are)."""
    if c.size == 0 and c.shape == (a.shape[0], b.shape[1]):
        return  # addmm_impl_cpu_ returns an output of no elements before any gemm (NumPy gives it strides 0)
    a, sa0, sa1, ta = _operand(a)
    b, sb0, sb1, tb = _operand(b)
    m, k = a.shape
    n = b.shape[1]
    if c.shape != (m, n) or c.dtype != np.float32 or (n > 1 and c.strides[1] != 4):
        raise ParityError(f"gemm: bad output {c.dtype}{list(c.shape)} for {m}x{n}")
    ldc = c.strides[0] // 4
    acl_kc = 0  # at::bmm's ACL items (blas given) keep the hybrid form: their kernel choice is unmeasured
    if blas is None:
        blas = _blas(profile, m, n, k, ta, tb, addmm)
        acl_kc = _acl_kc(profile, m, n, k) if blas == _GEMM_ACL else 0
    items = batched if batched >= 2 else 0
    if not items:
        check_plain_sgemm(profile, m, n, k, ta, tb, alpha)
    flags = (int(beta), items, profile.threads, int(ta) | int(tb) << 1, _workers(profile, threads), blas, acl_kc)
    before = nan_kinds(c) if beta else set()
    _lib().gemm(m, n, k, _ptr_any(a), sa0, sa1, _ptr_any(b), sb0, sb1, _ptr_any(c), ldc, *flags, alpha)
    if not (before and _finite_sums(a, b, alpha)):
        refuse_mixed_nans(f"sgemm {m}x{n}x{k}", c, profile, before, a, b)


def _finite_sums(a: np.ndarray, b: np.ndarray, alpha: float) -> bool:
    """Whether no product, partial sum or alpha times one of ``a @ b`` can be NaN or infinite: finite
    operands, |alpha| * K * max|a| * max|b| below float32's largest with room for rounding. Then a NaN
    of C (beta 1) meets no other NaN in MKL's kernels whatever their order, and is passed on alone."""
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return False
    top = float(np.abs(a).max(initial=0.0)) * float(np.abs(b).max(initial=0.0))
    return top * a.shape[-1] * max(1.0, abs(alpha)) < 1e38


_INTEL_PATHS = {MKL_SSE42: "SSE4.2", MKL_AVX2: "AVX2", MKL_AVX512: "AVX-512"}


def check_plain_sgemm(profile: KernelProfile, m: int, n: int, k: int, ta: bool, tb: bool, alpha: float = 1.0) -> None:
    """ParityError where csrc/mkl_sgemm.h does not model MKL's Intel path on a plain sgemm (not an
    item of a batched gemm of 2 or more) of M x N x K, A / B handed over transposed (``ta``, ``tb``)."""
    path, threads = _INTEL_PATHS.get(profile.blas), profile.threads
    if path is None:
        return
    refused = mkl_gemv_threads_unmodelled(profile.blas, threads, m, n, k, ta, tb)
    if profile.blas == MKL_AVX2:
        six = "x @ W with a 6 x 6 W (both row-major), is not modelled" if _avx2_six_by_six(m, n, k, ta, tb) else ""
        refused = six or mkl_avx2_threads_unmodelled(threads, m, n, k, ta, tb) or refused
    elif profile.blas == MKL_AVX512:
        refused = mkl_avx512_unmodelled(threads, m, n, k, ta, tb, alpha) or refused
    else:
        refused = refused or mkl_sse42_threads_unmodelled(threads, m, n, k)
        if not refused and mkl_gemv_n_k_cut(threads, m, n, k, ta, tb):
            refused = "MKL cuts this gemv's K; the first outputs' sums are not modelled"
    if refused:
        where = f"on {threads} thread{'s' if threads > 1 else ''}"
        raise ParityError(f"gemm {m}x{n}x{k}: MKL's Intel {path} path {where}, {refused}")


# the largest M*N*K MKL leaves whole, by threads: csrc/mkl_sgemm.h MKL_AVX2_MIN_SPLIT_2, (3), _4
_AVX2_MIN_SPLIT = {2: 96_000, 3: 72_000, 4: 64_000}
_AVX2_K_WIDE_2, _AVX2_C_CUT_SIDE, _AVX2_K_CUT_N = 756, 379, 1304  # csrc/mkl_sgemm.h MKL_AVX2_*
_AVX2_K_LONG_3 = 1134  # 3 threads: from this K no cut tried fits (bisected on the Xeon: 1,133 the rows cut)
AVX2_K_LONG_4 = 640  # 4 threads: from about this K MKL may cut K (68 of 200 random products of K 600 to 1,100 missed)
# 4 threads: from 768 columns mkl_avx2_grid22; from K = 640 a side of 379 or more measured to this M and K
AVX2_COLUMNS_4, _AVX2_C_CUT_4_M, _AVX2_C_CUT_4_K = 768, 2000, 4000
_AVX2_COLUMNS_4_K = 3072  # 4 threads, N >= 768: measured to this K
# 4 threads, N >= 768: measured to this M (1,001 to 1,535 columns: _AVX2_LONG_ROWS_4_M; from 1,536:
# _AVX2_EVEN_COLUMNS_4_M); above 750 rows against more than 1,000 columns to this K (csrc/mkl_sgemm.h
# mkl_avx2_grid22, mkl_avx2_even_columns)
_AVX2_COLUMNS_4_M, _AVX2_LONG_ROWS_4_M, _AVX2_EVEN_COLUMNS_4_M, _AVX2_MANY_ROWS_4_K = 4098, 2402, 3970, 800
_AVX2_SMALL_C_4_K = 3000  # 4 threads, both sides below 379: the wide kernel's forms measured to this K
_AVX2_NARROW_K2_4 = 770  # 4 threads: the narrow kernel's forms from this K (csrc/mkl_sgemm.h MKL_AVX2_NARROW_K2)


def mkl_avx2_threads_unmodelled(threads: int, m: int, n: int, k: int, ta: bool, tb: bool = False) -> str:
    """Why MKL's Intel AVX2 path cuts an M x N x K sgemm (A and B handed over transposed: ``ta``, ``tb``)
    between ``threads`` threads by a rule csrc/mkl_sgemm.h does not model ("" where it does): measured
    under Haswell-v4 and on an Intel Xeon (docs/impl/kernels.md, "MKL's Intel AVX2 path", Threads), where
    these shapes' bits differ from every cut tried.

    On 2 threads: K of 2, or of 3 or 4 with A row-major (K = 1 and 5 to 7, and 3 and 4 with A transposed,
    are the model's); from K = 756 fewer than 24 columns, a side of 56 or less against one of 379 or
    more, and A row-major with N <= 64 and M >= 379; fewer than 8 rows where MKL cuts K (K >= 756 and
    K >= N + 3M + 242, N >= 24); A transposed with M < 8, N > 128 and K > N; A transposed with N > 340
    where MKL cuts K (but for N >= 1,304 from K = 756).

    On 4 threads: from K = 640, the forms the model does not have (``_avx2_k_cut_4``: fewer than 8 rows or
    columns from K = 770 where it takes the narrow kernel; from 768 columns between the cuts measured;
    sides and K beyond those measured); A transposed with
    M <= 72, N > 128 and K > N (some cut along K: from K = 551 at 33 rows);
    M <= 4 with A transposed and N > 128; K <= 8 with M > 64 and N > 128; K <= 8 with M > 128, and N > 64
    or A transposed (116 of 400 random products of K 1 to 8, M 129 to 1,200 and N <= 128 differed, from 161
    rows, 26 columns with A transposed and 65 without; 300 with A row-major and N <= 64 did not); B stored
    transposed with A row-major below 16 rows and 64 < N <= 128 where MKL's parts of 32 columns leave one
    (N % 32 == 1), or M < 4 (the model's parts: csrc/mkl_sgemm.h mkl_avx2_split4).

    On 3 threads, above M*N*K = 72,000: N > 128, or 64 < N <= 128 with M < 48 (MKL cuts them, the model
    does not), K >= 1,134, A transposed with M > 128. On 5 or more threads: above M*N*K = 64,000 (no cut
    is modelled; 300 random products below it bit-exact at 8 threads on the Xeon)."""
    if min(m, n) < 2:
        return ""
    if threads >= 5:
        return "5 or more threads, is not modelled" if m * n * k > _AVX2_MIN_SPLIT[4] else ""
    least = _AVX2_MIN_SPLIT.get(threads)
    if least is None or m * n * k <= least:
        return ""
    if threads == 3:
        if n > 128 or (n > 64 and m < 48):
            return "N > 128, or 64 < N <= 128 with M < 48, is not modelled (MKL cuts them)"
        if k >= _AVX2_K_LONG_3:
            return "K of 1,134 or more, is not modelled"
        if ta and m > 128:
            return "A transposed with M > 128, is not modelled"
        return ""
    if threads == 2 and (k == 2 or (k in (3, 4) and not ta)):
        return "K of 2, or of 3 or 4 with A row-major, is not modelled"
    if threads == 2 and k >= _AVX2_K_WIDE_2:
        if n < 24:
            return "fewer than 24 columns with K >= 756, is not modelled"
        if min(m, n) <= 56 and max(m, n) >= _AVX2_C_CUT_SIDE:
            return "one side of 56 or less against one of 379 or more with K >= 756, is not modelled"
        if not ta and n <= 64 and m >= _AVX2_C_CUT_SIDE:
            return "A row-major with N <= 64 and M >= 379 with K >= 756, is not modelled"
    if threads == 2 and m < 8 and n >= 24 and k >= max(756, n + 3 * m + 242):
        return "M < 8 with K >= 756 and K >= N + 3M + 242, is not modelled (a cut along K)"
    if threads == 2 and ta and m < 8 and n > 128 and k > n:
        return "A transposed with M < 8, N > 128 and K > N, is not modelled"
    long_c = k >= _AVX2_K_WIDE_2 and n >= _AVX2_K_CUT_N  # the K cut of wide, long C: the model's
    if threads == 2 and ta and n > 340 and not long_c and _avx2_k_cut(m, n, k, ta):
        return "A transposed with N > 340 where MKL cuts K, is not modelled"
    if threads == 4 and _avx2_columns_4_unmeasured(m, n, k, ta):
        return "from 768 columns, a shape between the measured cuts of C (or where MKL cuts K), is not modelled"
    if threads == 4 and _avx2_k_cut_4(m, n, k, ta):
        return "K of 640 or more, where MKL cuts K (or runs it whole), is not modelled"
    if threads == 4 and k <= 8 and m > 128 and (ta or n > 64):
        return "K <= 8 with M > 128, and N > 64 or A transposed, is not modelled"
    if threads == 4 and tb and not ta and m < 16 and 64 < n <= 128 and (n % 32 == 1 or m < 4):
        return "B stored transposed, A row-major, M < 16, 64 < N <= 128, and N % 32 == 1 or M < 4, is not modelled"
    if n <= 128:
        return ""
    if threads == 4 and ta and m <= 72 and k > n:
        return "A transposed with M <= 72, N > 128 and K > N, is not modelled (a cut along K)"
    if threads == 4 and ta and m <= 4:
        return "A transposed with M <= 4 and N > 128, is not modelled"
    if threads != 2 and k <= 8 and m > 64:
        return "K <= 8 with M > 64 and N > 128, is not modelled"
    return ""


_SSE42_SPLIT_K, _SSE42_MIN_BLOCK = 256, 9728  # csrc/mkl_sgemm.h MKL_SSE42_SPLIT_K, MKL_SSE42_MIN_BLOCK


def mkl_sse42_threads_unmodelled(threads: int, m: int, n: int, k: int) -> str:
    """Why MKL's Intel SSE4.2 path may cut an M x N x K sgemm between ``threads`` threads by a rule
    csrc/mkl_sgemm.h does not model ("" where it does not cut): 3 or 5 and more threads (2 and 4 are
    mkl_sse42_grid's) with K > 256 or M*N*K >= 19,456 (on an Intel Xeon at 3 and 8 threads, 39 and 12
    of 300 random products differed from the one-thread model, 400 each below that bound none)."""
    if threads in (1, 2, 4) or min(m, n) < 2 or (k <= _SSE42_SPLIT_K and m * n * k < 2 * _SSE42_MIN_BLOCK):
        return ""
    return "a cut of C on 3 or 5 and more threads (K > 256 or M*N*K >= 19,456), is not modelled"


_AVX512_ONE_PART_K, _AVX512_ONE_PART_MNK = 768, 196_608  # csrc/mkl_sgemm.h mkl_avx512_two_threads
_AVX512_C_CUT_SIDE, _AVX512_NARROW = 379, 56  # csrc/mkl_sgemm.h MKL_AVX512_C_CUT_SIDE, MKL_AVX512_NARROW
_AVX512_FOUR_DOT_ROWS, _AVX512_FOUR_K, _AVX512_THREADS_WIDE = 16, 640, 192  # mkl_avx512_threads_whole


def _power_of_two(alpha: float) -> bool:
    """Whether alpha, rounded to float32 as MKL takes it, is a power of two (exact wherever it scales)."""
    return bool(np.frexp(abs(float(np.float32(alpha))))[0] == 0.5)


def _avx512_c_cut(m: int, n: int, k: int) -> bool:
    """Where MKL's AVX-512 path on 2 threads cuts C above K = 768 (csrc/mkl_sgemm.h mkl_avx512_c_cut)."""
    lo, hi = min(m, n), max(m, n)
    return 8 * lo > k and (hi >= _AVX512_C_CUT_SIDE or n + 3 * m + 242 > k)


_AVX512_SHARED = 192_000  # csrc/mkl_sgemm.h MKL_AVX512_SHARED: above it 2 threads share a call


def _avx512_copy_band(m: int, n: int, k: int, ta: bool, tb: bool, alpha: float) -> bool:
    """Whether alpha's place in a 2-thread AVX-512 product is not modelled (csrc/mkl_sgemm.h
    mkl_avx512_shared_copy): B stored transposed with A row-major, 4 to 15 rows on the chain (K < 24 M),
    shared by both threads, alpha not a power of two, N - K of 104 to 136. Where C's rows are 1 KiB apart
    MKL copies B (alpha on B's elements) from N - K = 128; where only A's or B's are, N - K of 104 to 136
    took neither form (bisected on the Xeon at K = 64, 128 and 256). The leading dimensions are not seen
    here, so the band is refused whatever they are."""
    chain = 4 <= m < 16 and k < 24 * m and tb and not ta
    return chain and not _power_of_two(alpha) and m * n * k > _AVX512_SHARED and 104 <= n - k <= 136


def mkl_avx512_unmodelled(threads: int, m: int, n: int, k: int, ta: bool, tb: bool, alpha: float = 1.0) -> str:
    """Why csrc/mkl_sgemm.h does not model MKL's Intel AVX-512 path on an M x N x K sgemm of
    ``threads`` threads ("" where it does; M or N of 1 otherwise, MKL's gemv, is left to the C): A and
    B both stored transposed with M < 8; on 3 or more threads alpha not a power of two, K above 768 (on 3
    and 4 threads but where 2 threads cut C), or a side under 192, but on 4 threads K up to 640 at any
    sides, not B stored transposed with A row-major below 16 rows (csrc/mkl_sgemm.h
    mkl_avx512_threads_whole); on 2 threads K above 768 with M*N*K >= 196,608
    where MKL cuts K (csrc/mkl_sgemm.h mkl_avx512_two_threads) with one side of at most 56 and the
    other of 379 or more (B stored transposed with M <= 3 is MKL's dot kernel, whole: modelled); a
    product of one element (M = N = 1: its form through at::mm was not found; cpublas's, flash
    attention's, is modelled in the C)."""
    if m == 1 and n == 1:
        return "a product of one element (M = N = 1), is not modelled"
    if min(m, n) < 2:
        return ""
    if ta and tb and m < 8:
        return "A and B both stored transposed with M < 8, is not modelled (k summed in groups of 4)"
    if threads >= 3:
        whole_k = k <= _AVX512_ONE_PART_K or (threads <= 4 and _avx512_c_cut(m, n, k))
        wide = min(m, n) >= _AVX512_THREADS_WIDE and whole_k
        four = threads == 4 and k <= _AVX512_FOUR_K and not (tb and not ta and m < _AVX512_FOUR_DOT_ROWS)
        if _power_of_two(alpha) and (wide or four):
            return ""
        return (
            "alpha not a power of two, K above 768 (on 3 and 4 threads: where 2 threads cut K), or a side under "
            "192 (on 4 threads: K above 640, or B stored transposed with A row-major below 16 rows), is not modelled"
        )
    if threads == 2 and _avx512_copy_band(m, n, k, ta, tb, alpha):
        return (
            "alpha not a power of two, B stored transposed with A row-major below 16 rows and N - K of 104 to 136,"
            " on both threads, is not modelled (MKL copies B there or not by which leading dimension is 1 KiB)"
        )
    if threads < 2 or k <= _AVX512_ONE_PART_K or m * n * k < _AVX512_ONE_PART_MNK or (tb and not ta and m <= 3):
        return ""
    lo, hi = min(m, n), max(m, n)
    if _avx512_c_cut(m, n, k) or lo > _AVX512_NARROW or hi < _AVX512_C_CUT_SIDE:
        return ""
    return (
        "K above 768 with one side of at most 56 and the other of 379 or more (where MKL does not cut K"
        " in halves, by layout), is not modelled"
    )


_GEMV_N_K_PER_THREAD, _GEMV_T_MIN = 128, 4096


def mkl_gemv_threads_unmodelled(blas: str, threads: int, m: int, n: int, k: int, ta: bool, tb: bool) -> str:
    """Why a gemv of MKL's Intel paths on 3 or more threads is not modelled ("" where the one-thread form
    holds; bisected and drawn on an Intel Xeon): a gemv 'N' (one row times B row-major, one column of A
    stored transposed) is cut along K from K = 128 x threads (256, 384, 512 and 1,024 at 2, 3, 4 and 8
    threads, every path; 2 threads are mkl_gemv_n_k_cut's); a gemv 'T' (one row times B stored
    transposed, A row-major times one column) on the SSE4.2 and AVX-512 paths is cut between the threads
    from outputs x K of about 6,600 (refused from 4,096; 250 random products at 3, 4 and 8 threads had
    none below; the AVX2 path's keep the one-thread form). A product of one element with B row-major
    (MKL's axpy form) is cut along K as gemv 'N' is, from 2 threads (SSE4.2 and AVX2 paths; missed from
    K = 300 at 2 threads, 384 at 3, 512 at 4)."""
    if threads < 2 or blas not in (MKL_SSE42, MKL_AVX2, MKL_AVX512):
        return ""
    if m == 1 and n == 1 and not tb and k >= _GEMV_N_K_PER_THREAD * threads:
        return f"one element, B row-major, K of {_GEMV_N_K_PER_THREAD} x threads or more (MKL cuts K), is not modelled"
    if threads < 3:
        return ""
    gemv_n = (m == 1 and not tb and n >= 2) or (n == 1 and ta and m >= 2)
    gemv_t = (m == 1 and tb and n >= 2) or (n == 1 and not ta and m >= 2)
    if gemv_n and k >= _GEMV_N_K_PER_THREAD * threads:
        return f"a gemv 'N' with K of {_GEMV_N_K_PER_THREAD} x threads or more (MKL cuts its K), is not modelled"
    if gemv_t and blas != MKL_AVX2 and max(m, n) * k >= _GEMV_T_MIN:
        return f"a gemv 'T' with outputs x K of {_GEMV_T_MIN:,} or more (MKL cuts its outputs), is not modelled"
    return ""


def mkl_gemv_n_k_cut(threads: int, m: int, n: int, k: int, ta: bool, tb: bool) -> bool:
    """Whether MKL's Intel paths cut K between 2 threads in a gemv 'N' (one row times B row-major, or
    one column of A stored transposed; csrc/mkl_sgemm.h mkl_gemv_n_k_cut): from K = 256 for up to
    1,001 outputs, except 41 to 69 outputs below K = 1,000."""
    outputs = n if m == 1 and not tb and n >= 2 else m if n == 1 and ta and m >= 2 else 0
    if threads != 2 or outputs == 0 or k < 256 or outputs > 1001:
        return False
    return not (41 <= outputs <= 69 and k < 1000)


def _avx2_wide_4(m: int, n: int, ta: bool) -> bool:
    """Whether csrc/mkl_sgemm.h mkl_avx2_split4 takes the wide kernel on 4 threads (mkl_avx2_wide4)."""
    return (ta or m > 64) if n > 128 else (m > 128 and (ta or n > 64))


def _avx2_k_cut_4(m: int, n: int, k: int, ta: bool) -> bool:
    """On 4 threads from K = 640, whether MKL's AVX2 path leaves the model's forms (csrc/mkl_sgemm.h: C cut
    by mkl_avx2_split4, K in 4 parts by mkl_avx2_k_quarters where the model takes the wide kernel below a
    side of 379, mkl_avx2_narrow_long_4's forms where it takes the narrow one) for forms it does not model:
    below a side of 379, above K = 3,000 (not measured), and the narrow kernel from K = 770 with fewer than
    8 rows or columns (none of its forms: 10 of 64 products of 2 to 6 rows, or 2 columns, missed); a side of
    379 or more keeps the cut of C with N < 768, as measured (M to 2,000, K to 4,000); from 768 columns the
    cuts of mkl_avx2_grid22, measured to K = 3,072 (_avx2_columns_4_unmeasured: the shapes between)."""
    if k < AVX2_K_LONG_4:
        return False
    if n >= AVX2_COLUMNS_4:  # the 2 x 2 cut or the cut along the longer side (_avx2_columns_4_unmeasured)
        return k > _AVX2_COLUMNS_4_K
    if max(m, n) >= _AVX2_C_CUT_SIDE:
        return not (m <= _AVX2_C_CUT_4_M and k <= _AVX2_C_CUT_4_K)
    narrow_few = not _avx2_wide_4(m, n, ta) and min(m, n) < 8 and k >= _AVX2_NARROW_K2_4
    return k > _AVX2_SMALL_C_4_K or narrow_few


def _avx2_columns_4_unmeasured(m: int, n: int, k: int, ta: bool) -> bool:
    """On 4 threads from 768 columns (csrc/mkl_sgemm.h mkl_avx2_grid22: C cut 2 x 2 where the kernel is wide,
    but for 385 rows or fewer against N >= 1,536, for 772 to 1,539 rows, and from 1,540 rows against
    N >= 1,536: mkl_avx2_even_columns), the shapes beyond those measured under Haswell-v4: the wide kernel
    with more than 4,098 rows, more than 2,402 against 1,001 to 1,535 columns, more than 3,970 against
    1,536 or more (4,096 and 4,097 x 1,546 and 4,098 x 2,314 took 4 row parts), and more than 750 rows
    against more than 1,000 columns with K above 800 (1,202 x 2,306 took 4 column parts to K = 1,400, none
    that shows at 1,600; with fewer columns to K = 3,072: 2,050 x 778 x 3,000 in 2 x 2); the narrow kernel
    from 1,304 columns and K = 640 (9 x 2,175 x 1,752 took neither of the cuts of C; some a cut of K); and
    M < N with N >= 1,304 and K >= N (K in 4 parts for some, the cut of C for others)."""
    if n < AVX2_COLUMNS_4:
        return False
    if not _avx2_wide_4(m, n, ta):
        return n >= _AVX2_K_CUT_N and k >= AVX2_K_LONG_4
    if m < n and n >= _AVX2_K_CUT_N and k >= n:
        return True
    if m > _AVX2_COLUMNS_4_M or (n > 1000 and m > (_AVX2_EVEN_COLUMNS_4_M if n >= 1536 else _AVX2_LONG_ROWS_4_M)):
        return True
    return m > 750 and n > 1000 and k > _AVX2_MANY_ROWS_4_K


def _avx2_k_cut(m: int, n: int, k: int, ta: bool) -> bool:
    """csrc/mkl_sgemm.h mkl_avx2_k_cut on 2 threads: whether MKL's AVX2 path cuts K between them."""
    if m * n * k <= _AVX2_MIN_SPLIT[2] or n < 24 or m < 8:
        return False
    if ta and n > 128 and m * n < 4096 and k >= 336:
        return True
    if k >= _AVX2_K_WIDE_2 and max(m, n) >= _AVX2_C_CUT_SIDE:  # MKL cuts C, but for wide, long C
        return m < n and n >= _AVX2_K_CUT_N and k >= n and 8 * m <= k
    return k >= n + 3 * m + 242 and (k >= _AVX2_K_WIDE_2 or (n > 128 and (m > 32 or ta)))


# gemm.c's blas
_GEMM_MKL, _GEMM_NVPL, _GEMM_ACL, _GEMM_MKL_CBWR, _GEMM_MKL_AVX2, _GEMM_MKL_SSE42, _GEMM_MKL_AVX512 = range(7)
_GEMM_INTEL = {MKL_AVX2: _GEMM_MKL_AVX2, MKL_SSE42: _GEMM_MKL_SSE42, MKL_AVX512: _GEMM_MKL_AVX512}  # MKL's Intel paths
_ACL_MIN_DIM, _ACL_MIN_SIZE = 8, 8 * 1024  # get_mkldnn_matmul_min_dim/_size on Neoverse cores


def _blas(profile: KernelProfile, m: int, n: int, k: int, ta: bool, tb: bool, addmm: bool) -> int:
    """Which library computes a product: MKL (x86), else NVPL, except that torch's addmm_impl_cpu_
    on aarch64 (at::mm, at::addmm, F.linear; not at::bmm or cpublas::gemm's direct callers) hands
    A @ B with B stored column-major (a weight's W.T) and A row-major to oneDNN's matmul (ACL) when
    apply_mkldnn_matmul_heur(M, K, N) holds: every dimension above 8 and M*K*N above 8192."""
    if profile.blas in _GEMM_INTEL:
        return _GEMM_INTEL[profile.blas]
    if profile.blas != NVPL:
        return _GEMM_MKL_CBWR if profile.mkl_cbwr else _GEMM_MKL
    acl = addmm and tb and not ta and min(m, n, k) > _ACL_MIN_DIM and m * k * n > _ACL_MIN_SIZE
    return _GEMM_ACL if acl else _GEMM_NVPL


# ACL's fixed-format float32 kernels that oneDNN's matmul can get (arm_gemm's gemm_fp32.cpp, ACL
# v52.6.0 in the wheel), in the list's order: (interleaved?, out_height, out_width, width counted
# in SVE vectors?, performance parameters: MACs per cycle[, prepare bytes per cycle, merge bytes
# per cycle]), the parameters being the kernels' defaults (no per-core entries for these kernels).
_ACL_SVE_KERNELS = (
    (True, 8, 3, True, (13.51, 9.27, 3.98)),  # sve_ffinterleaved_fp32_mla_8x3VL
    (False, 6, 4, True, (15.27,)),  # sve_ffhybrid_fp32_mla_6x4VL
)
_ACL_NEON_KERNELS = (
    (True, 8, 12, False, (12.56, 9.83, 3.02)),  # a64_ffinterleaved_fp32_mla_8x12
    (False, 6, 16, False, (13.16,)),  # a64_ffhybrid_fp32_mla_6x16
)
_ACL_L1 = 32768  # arm_gemm's CPUInfo L1 data cache size (its default: the core is not asked)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _acl_kc(profile: KernelProfile, m: int, n: int, k: int) -> int:
    """Which ACL kernel family oneDNN's matmul runs for C[m,n] = A[m,k] @ B[k,n] (2-D, one item),
    as arm_gemm's find_implementation picks it: the lowest cycle estimate of the kernels above
    (the first in the list on a tie), with ACL's float32 arithmetic (GemmHybridIndirect's and
    GemmInterleaved's estimate_cycles, truncated to integers). Returns 0 for a hybrid kernel, else
    the interleaved kernel's K block limit (csrc/nvpl_sgemm.h acl_sgemm).

    hybrid: m * roundup(n, W) * k / macs, times 1.15 when n < W or W < n < 2W.
    interleaved: roundup(m, 8) * roundup(n, W) * k / macs + roundup(m, 8) * k * 4 / prepare
    + blocks * m * roundup(n, W) * 4 / merge, times threads / (0.9 * ceil(m / 8)) when that
    parallelism is below the thread count; blocks = ceil(k / kb), kb from the limit
    (L1 / 2) / (4 * max(W, 8)). Measured: docs/impl/kernels.md (ACL kernel choice)."""
    f32 = np.float32
    kernels = (_ACL_SVE_KERNELS if profile.aten == "sve" else ()) + _ACL_NEON_KERNELS
    best: tuple[int, int] | None = None
    for interleaved, height, width, in_vectors, params in kernels:
        w = width * profile.lanes if in_vectors else width  # the SVE profiles' lanes: floats per vector
        nr = _ceil_div(n, w) * w
        if not interleaved:
            cycles = f32(m * nr * k) / f32(params[0])
            if n < w or w < n < 2 * w:
                cycles = f32(cycles * f32(1.15))
            estimate, kc = int(cycles), 0
        else:
            kc = (_ACL_L1 // 2) // (4 * max(w, height))
            kb = _ceil_div(k, _ceil_div(k, kc))
            mr = _ceil_div(m, height) * height
            cycles = f32(f32(mr * nr * k) / f32(params[0])) + f32(f32(mr * k * 4) / f32(params[1]))
            cycles = f32(cycles + f32(f32(_ceil_div(k, kb) * m * nr * 4) / f32(params[2])))
            parallel = f32(f32(_ceil_div(m, height)) * f32(0.9))
            if parallel < profile.threads:
                cycles = f32(cycles * f32(f32(profile.threads) / parallel))
            estimate = int(cycles)
        if best is None or estimate < best[0]:
            best = (estimate, kc)
    assert best is not None
    return best[1]


def _bmm_blas(profile: KernelProfile, nb: int, m: int, n: int, k: int) -> int | None:
    """at::bmm's route on aarch64 (bmm_out_or_baddbmm_): oneDNN's matmul (ACL) for every item when
    apply_mkldnn_matmul_heur(M, K, N) holds and use_mkldnn_matmul does, which for float32 needs a
    core with BF16 instructions (mkldnn_bf16_device_check: Neoverse V1 and V2, not N1; the SVE
    profiles stand for them, measured: 2x33x8193 @ 2x8193x47 is one chain per element on V1 and V2,
    K blocks of 640 on N1, at 1 and 2 threads). None: the usual route (ATen's loop or BLAS)."""
    if profile.blas != NVPL or profile.aten != "sve":
        return None
    if min(m, n, k) > _ACL_MIN_DIM and m * k * n > _ACL_MIN_SIZE and nb * m * k * n > 16**3:
        return _GEMM_ACL
    return None


def _workers(profile: KernelProfile, threads: int | None) -> int:
    return max(1, profile.threads if threads is None else threads)


def _batch_operand(x: np.ndarray) -> tuple[int, int, int, bool] | None:
    """(batch stride, element strides, transposed) of a 3-D operand whose items ``_operand`` keeps
    as they are (the same for every item); None when it would copy them."""
    item = x[0]
    kept, s0, s1, trans = _operand(item)
    if kept is not item or x.strides[0] % 4:
        return None
    return x.strides[0] // 4, s0, s1, trans


def _ptr_any(a: np.ndarray) -> ctypes.c_void_p:
    """Pointer to the first element of a strided (not necessarily contiguous) array."""
    return ctypes.c_void_p(a.ctypes.data)


def mm(
    a: np.ndarray,
    b: np.ndarray,
    profile: KernelProfile,
    trans_a: bool = False,
    trans_b: bool = False,
    threads: int | None = None,
) -> np.ndarray:
    """``torch.mm(a, b)`` (MKL sgemm): (M,K) @ (K,N) -> (M,N).

    ``trans_a``/``trans_b`` multiply by ``a.T``/``b.T`` instead (as ``torch.mm(a.t(), b)`` would).
    Each element: K cut into blocks (see csrc/mkl_sgemm.h), one fused chain per block, blocks added.
    The bits of MKL's main kernel depend on K only, not on the layout or the profile; the thread
    count decides which elements it computes (MKL's thread grid). ``threads``: pthreads computing
    it (default ``profile.threads``; speed only).
    """
    a = a.T if trans_a else a
    b = b.T if trans_b else b
    _check_2d(a, b)
    c = np.empty((a.shape[0], b.shape[1]), np.float32)
    _sgemm(a, b, c, False, profile, threads=threads, addmm=True)
    return c


def addmm(
    c: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    profile: KernelProfile,
    threads: int | None = None,
    alpha: float = 1.0,
    beta: float = 1.0,
) -> np.ndarray:
    """``torch.addmm(c, a, b, beta=beta, alpha=alpha)``: ``c`` (broadcast to (M,N), e.g. a bias row) is
    copied into the result, then MKL adds each k block's chain to it in turn (``threads`` as ``mm``'s).
    beta 1 or 0 (0: ``c`` unread); alpha, rounded to float32, where a model of its kernels places it
    (csrc/mkl_sgemm.h): MKL_CBWR=COMPATIBLE any alpha, MKL's other paths a power of two, NVPL 1."""
    _check_2d(a, b)
    out = np.empty((a.shape[0], b.shape[1]), np.float32)
    if a.shape[1] == 0 or out.size == 0:
        # addmm_impl_cpu_ returns an output of no elements; for K = 0 zeros where beta is 0, else it copies c
        # and multiplies it by beta (mul_: a signalling NaN comes back quiet), alpha unread: any beta and alpha
        out[...] = c if beta else 0.0
        with np.errstate(invalid="ignore", over="ignore"):
            return out * np.float32(beta) if beta else out
    if beta not in (0.0, 1.0):
        raise ParityError(f"addmm: beta must be 0 or 1, got {beta}")
    _check_alpha(profile, alpha)
    out[...] = c if beta else 0.0  # c broadcast to (M,N), e.g. a bias row
    _sgemm(a, b, out, beta == 1.0, profile, threads=threads, addmm=True, alpha=float(np.float32(alpha)))
    return out


def _check_alpha(profile: KernelProfile, alpha: float) -> None:
    """alpha where the profile's sgemm model places it as measured: any finite alpha under MKL_CBWR=
    COMPATIBLE and on MKL's Intel AVX-512 path at one and two threads; a power of two (exact whatever operand or
    sum it scales, short of over- and underflow) on MKL's other paths; 1 on NVPL and ACL."""
    a = float(np.float32(alpha))
    if not np.isfinite(a) or a == 0.0:
        raise ParityError(f"alpha must be finite and non-zero, got {alpha}")
    if profile.blas == NVPL and a != 1.0:
        raise ParityError(f"alpha {alpha} on NVPL/ACL is not modelled (alpha 1 only)")
    any_alpha = profile.mkl_cbwr or (profile.blas == MKL_AVX512 and profile.threads <= 2)
    if profile.blas != NVPL and not any_alpha and not _power_of_two(a):
        raise ParityError(
            f"alpha {alpha} (not a power of two) is modelled under MKL_CBWR=COMPATIBLE and on MKL's AVX-512 path"
            " at one and two threads only"
        )


def cpublas_gemm(
    transa: str,
    transb: str,
    m: int,
    n: int,
    k: int,
    a: np.ndarray,
    lda: int,
    b: np.ndarray,
    ldb: int,
    beta: float,
    c: np.ndarray,
    ldc: int,
    profile: KernelProfile,
) -> None:
    """``at::native::cpublas::gemm`` for float (column-major BLAS, alpha = 1), in place on ``c``.

    ``a``, ``b``, ``c`` are 1-D float32 views starting at the matrices' first elements (slices of
    the buffers the kernel works in, so that their addresses keep torch's offsets mod 16 bytes).
    C (m x n, column-major, ldc) = op(A) (m x k) @ op(B) (k x n) + beta * C, beta 0 or 1: the
    row-major product C^T (n x m) = op(B)^T @ op(A)^T that ``mm`` reproduces.
    """
    if beta not in (0.0, 1.0):
        raise ParityError(f"cpublas_gemm: beta must be 0 or 1, got {beta}")
    if min(m, n) <= 0:
        return
    if profile.blas != NVPL:
        ta, tb = transa.upper() == "T", transb.upper() == "T"
        _cpublas_mkl(ta, tb, m, n, k, a, lda, b, ldb, beta == 1.0, c, ldc, profile)
        return
    # row-major left operand (n x k) from B, right operand (k x m) from A, output (n x m) from C
    left = _view(b, (n, k), (ldb, 1) if transb.upper() == "N" else (1, ldb))
    right = _view(a, (k, m), (1, lda) if transa.upper() == "T" else (lda, 1))
    out = _view(c, (n, m), (ldc, 1))
    _sgemm(left, right, out, beta == 1.0, profile)


def _cpublas_mkl(
    ta: bool,
    tb: bool,
    m: int,
    n: int,
    k: int,
    a: np.ndarray,
    lda: int,
    b: np.ndarray,
    ldb: int,
    beta: bool,
    c: np.ndarray,
    ldc: int,
    profile: KernelProfile,
) -> None:
    """cpublas::gemm's sgemm_ call on MKL (csrc/gemm.c cpublas_sgemm): the leading dimensions set as
    normalize_last_dims sets them, then MKL with them, as sgemm_ takes them (csrc/mkl_sgemm.h's cpublas
    forms: a 1 x 1 product is MKL's gemv on B, not the gemv on A that mm's model of the transposed
    problem would give; gemv with a strided vector or output). Leading dimensions below BLAS's minimum
    send torch to ATen's own gemm (gemm_stub), which is not modelled."""
    if n == 1:
        ldc = m
    if (m == 1) if ta else (k == 1):
        lda = k if ta else m
    if (k == 1) if tb else (n == 1):
        ldb = n if tb else k
    if lda < max(1, k if ta else m) or ldb < max(1, n if tb else k) or ldc < max(1, m):
        raise ParityError(
            f"cpublas_gemm {m}x{n}x{k} with lda {lda}, ldb {ldb}, ldc {ldc}: torch runs ATen's own gemm "
            "(gemm_stub) there, which is not modelled"
        )
    # bounds, as the operands are stored (column-major); the views also serve the NaN check
    a_view = _view(a, (m, k) if not ta else (k, m), (1, lda))
    b_view = _view(b, (k, n) if not tb else (n, k), (1, ldb))
    c_view = _view(c, (m, n), (1, ldc))
    if profile.blas in _INTEL_PATHS:
        check_plain_sgemm(profile, n, m, k, tb, ta)  # the row-major product C^T = opB^T @ opA^T
    blas = _blas(profile, n, m, k, tb, ta, False)
    before = nan_kinds(c_view) if beta else set()
    _lib().cpublas_sgemm(
        int(ta),
        int(tb),
        m,
        n,
        k,
        _ptr_any(a),
        lda,
        _ptr_any(b),
        ldb,
        int(beta),
        _ptr_any(c),
        ldc,
        profile.threads,
        _workers(profile, None),
        blas,
    )
    refuse_mixed_nans(f"cpublas_gemm {m}x{n}x{k}", c_view, profile, before, a_view, b_view)


def _view(flat: np.ndarray, shape: tuple[int, int], strides: tuple[int, int]) -> np.ndarray:
    """A strided 2-D view (element strides) of a 1-D float32 array, bounds-checked."""
    if flat.dtype != np.float32 or flat.ndim != 1:
        raise ParityError("cpublas_gemm: pass 1-D float32 views of the buffers")
    last = sum((d - 1) * s for d, s in zip(shape, strides, strict=True))
    if last >= flat.size:
        raise ParityError(f"cpublas_gemm: a {shape} matrix with strides {strides} overruns its buffer")
    return np.lib.stride_tricks.as_strided(flat, shape, tuple(4 * s for s in strides))


def bmm(
    a: np.ndarray, b: np.ndarray, profile: KernelProfile, threads: int | None = None, alpha: float = 1.0
) -> np.ndarray:
    """``torch.bmm(a, b)``: (B,M,K) @ (B,K,N) -> (B,M,N); a and b may be strided views (e.g.
    ``x.transpose(0, 2, 1)``), items row- or column-major. ``alpha``: ``torch.baddbmm(x, a, b,
    beta=0, alpha=alpha)`` instead (MKL's products: alpha as ``addmm``'s; ATen's small loop on x86:
    alpha times each sum, rounded).

    K*M*N < 400: ATen's loop (products rounded, then added in k order from 0; on aarch64 fused,
    except where a's and b's k strides are both 1: then fused only in the K % 4 steps after the
    whole groups of four: ``_bmm_small``, csrc/gemm.c ``bmm_small``); otherwise MKL's
    batched gemm, each item as ``mm`` except the row grouping of small products, and with fewer items
    than MKL's threads (3 or more) each item cut into parts by the item and thread counts
    (csrc/mkl_sgemm.h ``mkl_sgemm_batch_item``); a batch of one is a plain sgemm (a 1x1 one seen by
    MKL as b^T @ a^T). ``threads`` (default ``profile.threads``): pthreads, over the
    items when there are at least as many items (speed only).
    """
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ParityError(f"bmm: cannot multiply {list(a.shape)} by {list(b.shape)}")
    nb, m, k = a.shape
    n = b.shape[2]
    out = np.empty((nb, m, n), np.float32)
    acl = _bmm_blas(profile, nb, m, n, k)
    alpha = float(np.float32(alpha))
    if acl is None and k * m * n < _SMALL_BMM:
        return _bmm_small(a, b, out, profile, alpha)
    _bmm_products(a, b, out, False, profile, threads, alpha, acl)
    return out


def _bmm_small(
    a: np.ndarray,
    b: np.ndarray,
    out: np.ndarray,
    profile: KernelProfile,
    alpha: float,
    beta: float | None = None,
    baddbmm: bool = False,
) -> np.ndarray:
    """ATen's loop of small products (K*M*N < 400, csrc/gemm.c ``bmm_small``) into ``out`` (B,M,N),
    C-contiguous: ``alpha * a @ b``, or with ``beta`` (aarch64 only) ``beta * out + alpha * a @ b`` as
    its ``fmadd`` rounds it. On aarch64 GCC's loop version follows the k strides: a's and b's both 1
    (a's rows contiguous, b a transposed view or one column) the loop over k in vectors, else the
    scalar loop; NaNs as bmm's (or, ``baddbmm``, baddbmm's) inline copy gives them where parallel_for
    runs it inline, and as the OpenMP body's copies do where more items than its grain on 2 or more
    threads run those (other lane-add and fused-step operand orders). On x86 where NaNs of two kinds meet
    refused."""
    nb, m, k = a.shape
    n = b.shape[2]
    mode = _BMM_SMALL_UNFUSED
    if profile.aarch64:  # which of GCC's loop versions runs: by the operands' k strides
        k_unit = a.strides[2] == a.itemsize and b.strides[1] == b.itemsize
        mode = _BMM_SMALL_K_VECTOR if k_unit else _BMM_SMALL_FUSED
    elif beta is not None:
        raise ParityError("bmm: beta in ATen's small loop is modelled on aarch64 only")
    a, b = np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32)
    inline = nb <= max(_GRAIN // max(m * n * k, 1), 1) or profile.threads == 1
    flags = (mode, alpha, beta or 0.0, int(baddbmm), int(beta is not None), int(not inline))
    _lib().bmm_small(nb, m, n, k, ptr(a), ptr(b), ptr(out), *flags)
    if mode != _BMM_SMALL_UNFUSED:
        return out
    # which NaN a product or sum keeps where two meet is GCC's operand order in ATen's loop, not this one's
    refuse_mixed_nans(f"bmm {nb}x{m}x{n}x{k} (ATen's loop)", out, profile, set(), a, b)
    # baddbmm's loop with beta = 0 stores alpha * sum (measured on x86: 156 of 156 batches)
    return out if alpha == 1.0 else np.float32(alpha) * out


def _bmm_products(
    a: np.ndarray,
    b: np.ndarray,
    out: np.ndarray,
    beta: bool,
    profile: KernelProfile,
    threads: int | None,
    alpha: float,
    acl: int | None,
) -> None:
    """MKL's batched gemm (or oneDNN's matmul, ``acl``) of ``bmm``/``baddbmm`` into ``out`` (B,M,N),
    C-contiguous: ``out = (out if beta else 0) + alpha * a @ b``, alpha rounded to float32."""
    nb, m, k = a.shape
    n = b.shape[2]
    if alpha != 1.0:
        _check_alpha(profile, alpha)
        if acl is not None:
            raise ParityError(f"bmm: alpha {alpha} on oneDNN/ACL is not modelled")
    if nb == 1 and m == n == 1 and acl is None and profile.blas != NVPL:
        # a 1x1 plain sgemm: torch's bmm hands MKL the transposed problem (MKL's A = b), where
        # torch.mm hands a 1x1 output over as it is; so MKL's gemv sees b^T @ a^T as mm's model does
        _sgemm(b[0].T, a[0].T, out[0].T, beta, profile, threads=threads, alpha=alpha)
        return
    la, lb = (_batch_operand(x) if nb else None for x in (a, b))
    if la is None or lb is None:
        if nb:
            _check_intel_items(profile, nb, m, n, k, _operand(a[0])[3], _operand(b[0])[3])
        for i in range(nb):
            _sgemm(a[i], b[i], out[i], beta, profile, batched=nb, threads=threads, blas=acl, alpha=alpha)
        return
    (sab, sa0, sa1, ta), (sbb, sb0, sb1, tb) = la, lb
    _check_intel_items(profile, nb, m, n, k, ta, tb)
    if nb == 1 and acl is None:  # a batch of one: MKL's plain sgemm
        check_plain_sgemm(profile, m, n, k, ta, tb, alpha)
    blas = _blas(profile, m, n, k, ta, tb, False) if acl is None else acl
    flags = (int(beta), nb if nb > 1 else 0, profile.threads, int(ta) | int(tb) << 1, _workers(profile, threads))
    flags = (*flags, blas, 0)
    args = (_ptr_any(a), sab, sa0, sa1, _ptr_any(b), sbb, sb0, sb1, _ptr_any(out), m * n, n)
    before = nan_kinds(out) if beta else set()
    _lib().gemm_batch(nb, m, n, k, *args, *flags, alpha)
    if not (before and _finite_sums(a, b, alpha)):
        refuse_mixed_nans(f"batched sgemm {nb}x{m}x{n}x{k}", out, profile, before, a, b)


def baddbmm(
    c: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    profile: KernelProfile,
    beta: float = 1.0,
    alpha: float = 1.0,
    threads: int | None = None,
) -> np.ndarray:
    """``torch.baddbmm(c, a, b, beta=beta, alpha=alpha)`` (ATen's ``bmm_out_or_baddbmm_``): (B,M,N) from
    ``c`` broadcast to it (BLOOM's ALiBi bias (B,1,N)) and (B,M,K) @ (B,K,N), operands as ``bmm`` takes
    them; beta and alpha rounded to float32 as ATen hands them on. beta 0 is ``bmm`` with alpha (``c``
    unread, its NaNs too); K = 0: ``c * beta``. Otherwise, K*M*N < 400: ATen's loop (``baddbmm_cpu_kernel``)
    stores ``c * beta + alpha * sum``, each step rounded (LinearAlgebra.cpp has no FMA contraction on
    x86), the sum as ``bmm``'s; where both terms are NaN the sum's is kept (measured: ADDSS's second
    source). Above it MKL's batched gemm with beta 1 on ``c`` scaled by beta first, one float32 rounding
    (measured on the Zen 5 against MKL's beta 0.3, 0.5, 2 and -1: 289 of 289 random batches, 144 of them
    of single rows, columns or K = 1, the bits of beta 1 on ``c * beta``), alpha placed as ``bmm``'s.
    Traced and replayed on the Zen 5 (MKL's generic path), 900 random batches at each of default, avx2
    and avx512, 1, 2 and 4 threads: 808 exact, 0 other, 92 refused (alpha 1/sqrt(8) on MKL's products,
    mixed NaNs); BLOOM's 18 of 18 (docs/impl/kernels.md, "Ops").
    aarch64: ATen's loop as its object rounds it (``_bmm_small``); NVPL's beta not measured: refused."""
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ParityError(f"baddbmm: cannot multiply {list(a.shape)} by {list(b.shape)}")
    nb, m, k = a.shape
    n = b.shape[2]
    beta32, alpha32 = np.float32(beta), np.float32(alpha)
    small = profile.aarch64 and 0 < k * m * n < _SMALL_BMM  # baddbmm's own copy of ATen's loop there
    if beta32 == 0.0 and k and not small:
        return bmm(a, b, profile, threads, float(alpha32))
    try:
        out = np.array(np.broadcast_to(np.asarray(c, np.float32), (nb, m, n)), np.float32, order="C")
    except ValueError:
        raise ParityError(f"baddbmm: cannot broadcast {list(np.shape(c))} to {[nb, m, n]}") from None
    if out.size == 0:  # ATen returns an output of no elements before anything
        return out
    if k == 0:  # ATen: zero_() for beta 0, else mul_(beta)
        return np.zeros_like(out) if beta32 == 0.0 else arith("mul", out, beta32, 0)
    if small:
        beta_on = None if beta32 == 0.0 else float(beta32)
        return _bmm_small(a, b, out, profile, float(alpha32), beta_on, baddbmm=True)
    if profile.aarch64:
        raise ParityError(f"baddbmm: beta {beta} (not 0) on NVPL's batched gemm is not measured on aarch64")
    if k * m * n < _SMALL_BMM:
        scaled = arith("mul", out, beta32, 0)
        return arith("add", scaled, arith("mul", alpha32, bmm(a, b, profile, threads), 1), 1)
    if beta32 != 1.0:
        out = arith("mul", out, beta32, 0)
    _bmm_products(a, b, out, True, profile, threads, float(alpha32), None)
    return out


def addmv(
    c: np.ndarray | None,
    mat: np.ndarray,
    vec: np.ndarray,
    profile: KernelProfile,
    beta: float = 1.0,
    alpha: float = 1.0,
) -> np.ndarray:
    """``torch.addmv(c, mat, vec, beta=beta, alpha=alpha)``, and ``torch.mv(mat, vec)`` (``c`` None, beta 0):
    ATen's ``addmv_out_cpu`` hands MKL's ``sgemv_`` the (M,N) matrix as stored (row- or column-major,
    else a contiguous copy), whose bits are at::addmm's of the product as one row, ``vec^T @ mat^T``
    (measured on the Zen 5, MKL's generic path: 200 of 200 random torch.mv and 200 of 200 torch.addmv
    equal to torch.mm / addmm so, M and N 1 to 300, both layouts, 1, 2 and 4 threads); beta other than
    0 and 1 scales ``c`` first, one float32 rounding, then beta 1 (200 of 200 with beta 0.5, 0.3, -1, 2);
    ``c`` (one element or M) broadcast. A strided ``vec``, MKL's Intel paths, MKL_CBWR and NVPL's
    sgemv are not measured: refused."""
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise ParityError(f"addmv: cannot multiply {list(mat.shape)} by {list(vec.shape)}")
    if profile.blas != MODELLED_BLAS or profile.mkl_cbwr:
        raise ParityError(
            f"addmv/mv: MKL's sgemv on {profile.blas} (or under MKL_CBWR) is not modelled (measured: its generic path)"
        )
    if vec.shape[0] > 1 and vec.strides[0] != vec.itemsize:
        raise ParityError(f"addmv/mv: a vector of stride {vec.strides[0] // vec.itemsize} is not measured")
    m, n = mat.shape
    beta32 = np.float32(0.0 if c is None else beta)
    out = np.zeros((1, m), np.float32)
    if c is not None and beta32 != 0.0:
        out[0] = np.broadcast_to(np.asarray(c, np.float32), (m,))
        if beta32 != 1.0 or n == 0:  # MKL scales C first; an empty matrix: ATen's self * beta
            out = arith("mul", out, beta32, 0)
    if n == 0 or m == 0:  # beta 0: ATen's zero_()
        return out[0]
    matrix = mat if _operand(mat)[0] is mat else np.ascontiguousarray(mat)
    row = addmm(out, vec[None, :], matrix.T, profile, alpha=alpha, beta=1.0 if beta32 != 0.0 else 0.0)
    return row[0]


_ALIGNMENT = 64  # bytes: where torch's CPU allocator starts a tensor


def _check_gemv_c_line(profile: KernelProfile, m: int, b: np.ndarray, c_offset: int) -> None:
    """ParityError where MKL's AVX-512 gemv 'N' (one row, B row-major) runs on 2 or more threads into a
    C that does not start a 64-byte line (``c_offset`` bytes past one): there MKL cuts the outputs
    between its threads at C's lines, which the model does not have (measured on the Xeon, 1 x 76 x 116
    at C offsets of 4, 8 and 12 floats: 19, 12 and 5 outputs differ from the whole gemv; on a line, on
    1 thread, on the AVX2 and SSE4.2 paths and with B stored transposed, none). A fresh tensor starts a
    line; a slice of one (``grouped_mm``'s groups) may not."""
    gemv_n = m == 1 and b.strides[-1] == b.itemsize
    if gemv_n and profile.threads >= 2 and c_offset % _ALIGNMENT and profile.blas == MKL_AVX512:
        raise ParityError(
            f"gemm 1x{b.shape[-1]}: one row into C {c_offset % _ALIGNMENT} bytes past a 64-byte line, on MKL's "
            f"AVX-512 path on {profile.threads} threads, is not modelled"
        )


def grouped_mm(a: np.ndarray, b: np.ndarray, offs: list[int] | None, profile: KernelProfile) -> np.ndarray:
    """``torch._grouped_mm(a, b, offs)`` on the CPU: ATen's ``_grouped_mm_fallback`` (GroupedMMUtils.h),
    one ``mm_out`` per group into its slice of an output whose rows ATen pads to whole 16 bytes
    (``create_grouped_gemm_output_tensor``), each the plain sgemm of ``mm`` on the slices as they lie,
    computed here into an output laid out the same way. ``offs[g]`` ends group g. Shapes: a (R, K) and
    b (G, K, N): rows of a by b[g], out (R, N); a (M, R) and b (R, N), the weights' gradient: out[g]
    (G, M, N) the product over R's slice, zeros where it is empty; a (G, M, K), b (G, K, N) without
    offs: ``bmm``. Where each group's C starts: ``_check_gemv_c_line``. a (G, M, K) by columns of b
    (K, C) is refused: on the Xeon 10 of 80 random ones differed on MKL's AVX-512 path and 2 of 80 on
    its SSE4.2 path (their C columns off 16 bytes), and no model layer or gradient runs it."""
    if offs is None:
        if a.ndim != 3 or b.ndim != 3:
            raise ParityError("grouped_mm without offs multiplies 3-D operands only")
        return bmm(a, b, profile)
    starts = [0, *offs[:-1]]
    if any(e < s for s, e in zip(starts, offs, strict=True)):
        raise ParityError(f"grouped_mm: offs {offs} are not ascending")
    groups = [(g, s, e) for g, (s, e) in enumerate(zip(starts, offs, strict=True)) if e > s]
    n = b.shape[-1]
    padded = -(-n // 4) * 4  # floats in an output row
    if a.ndim == 2 and b.ndim == 3:  # rows past the last group are left as torch.empty gave them
        if offs[-1] != a.shape[0]:
            raise ParityError(f"grouped_mm: groups end at row {offs[-1]} of {a.shape[0]}: the rest is unwritten")
        out = np.empty((a.shape[0], padded), np.float32)[:, :n]
        for g, s, e in groups:
            _check_gemv_c_line(profile, e - s, b[g], 4 * s * padded)
            _sgemm(a[s:e], b[g], out[s:e], False, profile, addmm=True)
    elif a.ndim == 3 and b.ndim == 2:  # no autograd formula or MoE layer runs it
        raise ParityError("grouped_mm of 3-D by 2-D operands (groups of B's columns) is not modelled")
    elif a.ndim == 2 and b.ndim == 2:
        out = np.zeros((len(offs), a.shape[0], padded), np.float32)[:, :, :n]  # an empty K: mm_out zero-fills
        for g, s, e in groups:
            _check_gemv_c_line(profile, a.shape[0], b, 4 * g * a.shape[0] * padded)
            _sgemm(a[:, s:e], b[s:e], out[g], False, profile, addmm=True)
    else:
        raise ParityError(f"grouped_mm: cannot group {list(a.shape)} by {list(b.shape)} with offs")
    return np.ascontiguousarray(out)


def _check_intel_items(profile: KernelProfile, nb: int, m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    """MKL's Intel paths: batch items (2 or more) whose forms were not found, refused. AVX2: one column
    with A row-major and B stored transposed below 16 rows (csrc/mkl_sgemm.h mkl_avx2_modelled), items
    of _avx2_six_by_six, and one row unless A is row-major and B stored transposed. SSE4.2: one column
    with B stored transposed, one row with A stored transposed. AVX-512: A and B both stored transposed
    below 8 rows (k in groups of 4, refused in a plain sgemm too), and one element with A row-major
    (csrc/mkl_sgemm.h: not modelled; 54 of 55 random ones of K 400 to 3,000 differed). Fitted on an
    Intel Xeon against torch.bmm (700 to 1,100 random batches of 2 to 4 items per path, most with a
    side below 8), then held out: 360 more per path at 1 and at 2 threads, the refused items differing
    from the model in 20 of 20 (AVX2), 26 of 27 (SSE4.2) and 34 of 39 (AVX-512), the other 340, 333 and
    321 bit-exact."""
    if nb < 2:
        return
    where = f"bmm: items {m}x{n}x{k} ({'A' if not ta else 'A^T'} @ {'B' if not tb else 'B^T'})"
    if profile.blas == MKL_AVX2:
        if n == 1 and 2 <= m < 16 and not ta and tb:
            raise ParityError(f"{where}: MKL's Intel AVX2 path, one column with B stored transposed: not modelled")
        if _avx2_six_by_six(m, n, k, ta, tb):
            raise ParityError(f"{where}: MKL's Intel AVX2 path, x @ W for a 6 x 6 W: not modelled")
        if m == 1 and (ta or not tb):
            raise ParityError(f"{where}: MKL's Intel AVX2 path, one row but for A @ B^T: not modelled")
    elif profile.blas == MKL_SSE42 and ((n == 1 and tb) or (m == 1 and ta)):
        raise ParityError(f"{where}: MKL's Intel SSE4.2 path, one column with B^T or one row with A^T: not modelled")
    elif profile.blas == MKL_AVX512 and ta and tb and m < 8:
        raise ParityError(f"{where}: MKL's Intel AVX-512 path, both stored transposed below 8 rows: not modelled")
    elif profile.blas == MKL_AVX512 and m == n == 1 and not ta:
        raise ParityError(f"{where}: MKL's Intel AVX-512 path, one element with A row-major: not modelled")


def _avx2_six_by_six(m: int, n: int, k: int, ta: bool, tb: bool) -> bool:
    """N = K = 6 with A and B row-major (x @ W for a 6 x 6 W) on MKL's Intel AVX2 path, any thread count:
    MKL takes another kernel there (rows in whole groups of 4 one fused chain each, the rest forms not
    found; on an Intel Xeon and under Haswell-v4 alike), where every other N and K of 2 to 19 and 2 to 13
    and the other layouts keep the model's."""
    return n == 6 and k == 6 and m >= 2 and not ta and not tb


def matmul(a: np.ndarray, b: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """``torch.matmul(a, b)`` for operands of 2 or more dims.

    2-D @ 2-D is ``mm``; an n-D @ 2-D product folds a's leading dims into rows (one ``mm``);
    otherwise the batch dims broadcast and the product is a ``bmm`` of the flattened batch.
    """
    if a.ndim < 2 or b.ndim < 2:
        raise ParityError("matmul: 1-D operands are not supported by the impl")
    if b.ndim == 2:
        return mm(a.reshape(-1, a.shape[-1]), b, profile).reshape(*a.shape[:-1], b.shape[-1])
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a3 = np.broadcast_to(a, (*batch, *a.shape[-2:])).reshape(-1, *a.shape[-2:])
    b3 = np.broadcast_to(b, (*batch, *b.shape[-2:])).reshape(-1, *b.shape[-2:])
    return bmm(a3, b3, profile).reshape(*batch, a.shape[-2], b.shape[-1])


def mm_backward(
    grad: np.ndarray, a: np.ndarray, b: np.ndarray, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of ``mm(a, b)`` as autograd computes them (mm_mat1_backward, mm_mat2_backward):
    ``grad @ b^T`` and ``a^T @ grad``, except that an operand stored column-major (unit row stride,
    column stride = rows; e.g. a weight's ``w.T``) gets its gradient as the transposed product,
    ``(b @ grad^T)^T`` / ``(grad^T @ a)^T``: other operands reach MKL, so other kernels run."""
    grad_a = mm(b, grad, profile, trans_b=True).T if _column_major(a) else mm(grad, b, profile, trans_b=True)
    grad_b = mm(grad, a, profile, trans_a=True).T if _column_major(b) else mm(a, grad, profile, trans_a=True)
    return np.ascontiguousarray(grad_a), np.ascontiguousarray(grad_b)


def _column_major(x: np.ndarray) -> bool:
    return x.strides == (4, 4 * x.shape[0])


def matmul_backward(
    grad_out: np.ndarray, a: np.ndarray, b: np.ndarray, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of ``matmul(a, b)`` for ``grad_out``: ``(grad_a, grad_b)``, for a and b of equal
    rank (no broadcasting): ``grad_out @ b^T`` and ``a^T @ grad_out`` (mm or bmm as in the forward)."""
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        raise ParityError("matmul_backward: the impl supports operands with equal batch dims only")
    if a.ndim == 2:
        return mm_backward(grad_out, a, b, profile)
    g3 = grad_out.reshape(-1, *grad_out.shape[-2:])
    a3 = a.reshape(-1, *a.shape[-2:])
    b3 = b.reshape(-1, *b.shape[-2:])
    grad_a = bmm(g3, b3.transpose(0, 2, 1), profile).reshape(a.shape)
    grad_b = bmm(a3.transpose(0, 2, 1), g3, profile).reshape(b.shape)
    return grad_a, grad_b


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, profile: KernelProfile) -> np.ndarray:
    """``F.linear(x, weight, bias)``: x (..., K), weight (N, K), bias (N,) or None -> (..., N).

    The leading dims are flattened into rows; with a bias it is ``addmm(bias, x2d, weight.T)``,
    without one ``mm(x2d, weight.T)`` (torch.matmul folds the same way).
    """
    x2 = x.reshape(-1, x.shape[-1])
    out = mm(x2, weight, profile, trans_b=True) if bias is None else addmm(bias, x2, weight.T, profile)
    return out.reshape(*x.shape[:-1], weight.shape[0])


def linear_backward(
    grad_out: np.ndarray, x: np.ndarray, weight: np.ndarray, has_bias: bool, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Gradients of ``linear``: ``(grad_x, grad_weight, grad_bias)`` (grad_bias None without a bias).

    ``mm_backward`` of ``x2d @ weight.T``: grad_x = grad_out2d @ weight; grad_weight = grad_out2d^T
    @ x2d (weight.T is column-major); grad_bias = grad_out2d.sum(0) (ATen's sum kernel,
    harness.impl.reduce).
    """
    g2 = grad_out.reshape(-1, grad_out.shape[-1])
    x2 = x.reshape(-1, x.shape[-1])
    grad_x2, grad_wt = mm_backward(g2, x2, weight.T, profile)
    grad_x, grad_w = grad_x2.reshape(x.shape), np.ascontiguousarray(grad_wt.T)
    grad_b = None
    if has_bias:
        from harness.impl.reduce import sum_dims

        grad_b = sum_dims(g2, (0,), profile)
    return grad_x, grad_w, grad_b


def embedding(idx: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``F.embedding(idx, weight)``: rows of weight (V, D) gathered -> (*idx.shape, D)."""
    flat = _indices(idx, weight.shape[0])
    weight = np.ascontiguousarray(weight, np.float32)
    out = np.empty((flat.size, weight.shape[1]), np.float32)
    _lib().embedding_forward(flat.size, weight.shape[1], ptr(weight), ptr(flat), ptr(out))
    return out.reshape(*idx.shape, weight.shape[1])


def embedding_backward(grad_out: np.ndarray, idx: np.ndarray, num_weights: int) -> np.ndarray:
    """Gradient of ``embedding`` for weight: zeros (V, D), then each grad_out row added to the row
    of its index, in index-position order (ATen's embedding_dense_backward_cpu)."""
    flat = _indices(idx, num_weights)
    d = grad_out.shape[-1]
    g = np.ascontiguousarray(grad_out, np.float32).reshape(-1, d)
    grad_w = np.empty((num_weights, d), np.float32)
    _lib().embedding_backward(flat.size, num_weights, d, ptr(g), ptr(flat), ptr(grad_w))
    return grad_w


def _indices(idx: np.ndarray, num_weights: int) -> np.ndarray:
    flat = np.ascontiguousarray(idx, np.int64).reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= num_weights):
        raise ParityError(f"embedding: index out of range for {num_weights} rows")
    return flat


# ----------------------------------------------------------------------------- fixture runners


_TRSM_BLOCK = 64  # MKL's strsm solves 64 rows per strsmlt/strsmlun call, an sgemm update of the rest between them


def solve_triangular(
    a: np.ndarray,
    b: np.ndarray,
    upper: bool,
    unitriangular: bool,
    a_stride: list[int] | None,
    align: int,
    profile: KernelProfile,
    left: bool = True,
) -> np.ndarray:
    """``torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular)`` of float32
    ``a`` (..., n, n) and ``b`` (..., n, k), or for ``left`` False (..., k, n), of the same batch dims: MKL's
    strsm on each matrix, on a C-contiguous ``a`` or the transpose of a C-contiguous tensor (``a_stride``:
    torch's strides of ``a``, which call torch makes; autograd's backward solves on the transpose), either
    triangle, unit or not: left, ``_strsm`` (MKL's strsmlt for the op's lower triangle of a C-contiguous ``a``,
    strsmlun for its upper of a transposed one, strsmlt's lower branch for its upper of a C-contiguous one,
    strsmlln for its lower of a transposed one); right, ``_strsm_right`` (strsm_i). One right-hand column (left)
    or row (right) is MKL's strsv (csrc/gemm.c strsv_left). ``align``: the address of ``a`` past 64 bytes (each
    row's 16-byte boundary decides strsmlt's and strsv's orders). Refused: other layouts, a batch broadcast, NaN
    operands (which NaN a sum keeps is not modelled), MKL's Intel paths and CBWR, and aarch64."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != np.float32 or b.dtype != np.float32:
        raise ParityError(f"linalg_solve_triangular of {a.dtype} and {b.dtype}: the impl reproduces float32 only")
    if profile.aarch64 or profile.blas != MODELLED_BLAS or profile.mkl_cbwr:
        raise ParityError(f"linalg_solve_triangular on {profile.label()}: MKL strsm's generic path only is measured")
    n, k = (b.shape[-2], b.shape[-1]) if left else (b.shape[-1], b.shape[-2])
    if a.ndim < 2 or a.shape[-2:] != (n, n) or a.shape[:-2] != b.shape[:-2]:
        raise ParityError(f"linalg_solve_triangular of {list(a.shape)} and {list(b.shape)}: broadcast or not square")
    items = int(np.prod(a.shape[:-2], dtype=np.int64))
    c_order = [n * n * int(np.prod(a.shape[d + 1 : -2], dtype=np.int64)) for d in range(a.ndim - 2)] + [n, 1]
    f_order = [*c_order[:-2], 1, n]
    transposed = upper  # n = 1: either layout; MKL's L U T for the lower triangle, L U N for the upper
    if not _same_layout(a.shape, a_stride, f_order if transposed else c_order):
        transposed = not transposed
    if not _same_layout(a.shape, a_stride, f_order if transposed else c_order) or align % 4:
        raise ParityError(
            f"linalg_solve_triangular (upper = {upper}) of strides {a_stride}, {align} bytes past 64: MKL's order is "
            "measured on C-contiguous operands and their transposes only"
        )
    if np.isnan(a).any() or np.isnan(b).any():
        raise ParityError("linalg_solve_triangular of NaN operands: which NaN MKL's sums keep is not modelled")
    size = items * n * n
    stored = aligned(size + 4)[align % 16 // 4 :][:size].reshape(items, n, n)  # A at torch's address mod 16
    stored[...] = (np.swapaxes(a, -1, -2) if transposed else a).reshape(items, n, n)
    # torch's column-major copy of B, solved in place: left (k, n) (column c at c * n), right (n, k) (the right
    # side's (k, n) B, element (r, c) at c * k + r)
    held = aligned(items * k * n).reshape((items, k, n) if left else (items, n, k))
    held[...] = np.swapaxes(b.reshape(items, *held.shape[:0:-1]), -1, -2)
    lib = _lib()
    for item in range(items):
        if k == 1:  # MKL's strsv (xstrsm hands it one column, or on the right one row: op(A)'s transpose)
            mkl_upper = upper == transposed  # MKL sees A's memory as column-major: a C-contiguous a is transposed
            lib.strsv_left(
                mkl_upper, transposed != left, unitriangular, n, stored[item].ctypes.data, n, held[item].ctypes.data
            )
            continue
        at = (align + 4 * n * n * item) % 16  # each matrix's own address: the batch's items lie n * n floats apart
        solve = _strsm if left else _strsm_right
        solve(upper, transposed, unitriangular, stored[item], at, held[item], profile)
    return np.ascontiguousarray(np.swapaxes(held, -1, -2)).reshape(b.shape)


def _strsm_right(
    upper: bool, transposed: bool, unit: bool, a: np.ndarray, align: int, x: np.ndarray, profile: KernelProfile
) -> None:
    """MKL strsm's right side (generic path) on one matrix, in place: ``a`` (n, n) as stored (the op's A, or
    for ``transposed`` its transpose), ``x`` (n, k) B's column-major copy, as MKL runs it (its calls traced with
    gdb): MKL's threads take B's rows, k // t each and the last thread the rest (t = min(threads, k)); each runs
    mkl_blas_def_strsm_l1 / l2's recursion on the columns in solve order (from the first for the op's upper
    triangle, from the last for its lower): up to 64 columns one strsm_i call (csrc/gemm.c strsm_right), more
    the first n1 (the largest 64 * 2^p below their count) solved so, then one sgemm of those n1 columns
    updating the rest, B[:, rest] -= X[:, first] @ M[first, rest] (alpha -1, beta 1; MKL's NT for a
    C-contiguous A, NN for a transposed one: its own xsgemm, csrc/gemm.c trsm_update), then the rest solved
    so. No address reaches strsm_i's bits (``align`` unused). Refused: a NaN (from infinities) in an update's
    operand (MKL's NaN there is +NaN where the model's product by alpha -1 keeps -NaN: a sign flip, not read)."""
    n, k = a.shape[0], x.shape[1]
    lib, base, xb = _lib(), a.ctypes.data, x.ctypes.data
    rs, cs = (1, n) if transposed else (n, 1)  # the op's M (i, j) at a[i * rs + j * cs]
    t = min(profile.threads, k)
    parts = [(c * (k // t), k // t if c < t - 1 else k - (t - 1) * (k // t)) for c in range(t)]

    def solve(lo: int, hi: int, r0: int, kr: int) -> None:
        if hi - lo <= _TRSM_BLOCK:
            corner = base + 4 * lo * (n + 1)
            lib.strsm_right(int(upper), int(not upper and not transposed), int(unit), hi - lo, kr, corner, rs, cs,
                            xb + 4 * (lo * k + r0), 1, k)  # fmt: skip
            return
        n1 = _TRSM_BLOCK
        while 2 * n1 < hi - lo:
            n1 *= 2
        (f0, f1), (c0, c1) = ((lo, lo + n1), (lo + n1, hi)) if upper else ((hi - n1, hi), (lo, hi - n1))
        solve(f0, f1, r0, kr)
        if np.isnan(x[f0:f1, r0 : r0 + kr]).any():
            raise ParityError(
                "linalg_solve_triangular with left = False: a NaN (infinities met) reaches MKL's sgemm update, where "
                "alpha -1 flips its sign on some paths: not modelled"
            )
        m_rest = base + 4 * (f0 * rs + c0 * cs)  # (i, l) = M(f0 + l, c0 + i)
        lib.trsm_update(c1 - c0, kr, n1, m_rest, cs, rs, xb + 4 * (f0 * k + r0), k, 1, xb + 4 * (c0 * k + r0), k,
                        0 if transposed else 1, -1.0)  # fmt: skip
        solve(c0, c1, r0, kr)

    for r0, kr in parts:
        solve(0, n, r0, kr)


def _strsm(
    upper: bool, transposed: bool, unit: bool, a: np.ndarray, align: int, x: np.ndarray, profile: KernelProfile
) -> None:
    """MKL strsm (generic path) on one matrix, in place: ``a`` (n, n) as stored (C-contiguous, at torch's
    address mod 16 bytes; ``align`` that address mod 16: the op's A, or for ``transposed`` its transpose),
    ``x`` (k, n) B's column-major copy, as MKL's mkl_blas_def_strsm_l2 runs it (read from its calls under
    gdb): MKL's threads take B's columns, k // t each and the last thread the rest (t = min(threads, k)); each
    solves 64-row blocks by one kernel call (csrc/gemm.c: strsm_left for strsmlt's U T, the op's lower of a
    C-contiguous A, and strsmlun's L U N, its upper of a transposed one; strsm_lower_t for strsmlt's L T, the
    op's upper of a C-contiguous A; strsm_lln for strsmlln's L L N, its lower of a transposed one), from the top
    for the op's lower, from the bottom for its upper, and after each block updates all rows still to solve by
    one sgemm of its 64 columns on its own columns, C = C - A @ X (alpha -1, beta 1; MKL's TN for a
    C-contiguous A, NN for a transposed one: its own xsgemm, straight to its serial kernels even for one row or
    column, csrc/gemm.c trsm_update)."""
    n, k = a.shape[0], x.shape[0]
    lib, base, xb = _lib(), a.ctypes.data, x.ctypes.data
    t = min(profile.threads, k)
    parts = [(c * (k // t), k // t if c < t - 1 else k - (t - 1) * (k // t)) for c in range(t)]
    starts = range(0, n, _TRSM_BLOCK) if not upper else range(n - _TRSM_BLOCK, -_TRSM_BLOCK, -_TRSM_BLOCK)
    for lo in starts:
        lo, hi = max(lo, 0), min(lo + _TRSM_BLOCK, n)
        corner, at = base + 4 * (lo * n + lo), (align + 4 * (lo * n + lo)) % 16
        if upper == transposed:  # strsmlt's U T or strsmlun's L U N
            lib.strsm_left(int(upper), int(unit), hi - lo, k, corner, n, at, xb + 4 * lo, 1, n)
        elif upper:
            lib.strsm_lower_t(int(unit), hi - lo, k, corner, n, at, xb + 4 * lo, 1, n)
        else:
            lib.strsm_lln(int(unit), hi - lo, k, corner, n, xb + 4 * lo, 1, n)
        rest = lo if upper else n - hi
        if not rest:
            continue
        # the block's columns of the rows still to solve, (i, j) at b + i * s0 + j * s1 as gemm's B
        if upper:  # rows [0, lo) -= U[0:lo, lo:hi] @ X[lo:hi]
            b, s0, s1 = (base + 4 * lo * n, n, 1) if transposed else (base + 4 * lo, 1, n)
        else:  # rows [hi, n) -= L[hi:n, lo:hi] @ X[lo:hi]
            b, s0, s1 = (base + 4 * (lo * n + hi), n, 1) if transposed else (base + 4 * (hi * n + lo), 1, n)
        for c0, kc in parts:
            col = xb + 4 * c0 * n
            c = col if upper else col + 4 * hi
            lib.trsm_update(kc, rest, hi - lo, col + 4 * lo, n, 1, b, s0, s1, c, n, 0 if transposed else 2, -1.0)


def _same_layout(shape: tuple[int, ...], stride: list[int] | None, want: list[int]) -> bool:
    """Whether ``stride`` addresses ``shape`` as ``want`` does (dims of size 1 take any stride)."""
    return stride is not None and all(s == w or size == 1 for size, s, w in zip(shape, stride, want, strict=True))


def _run_linear(p: Mapping[str, Any], t: Mapping[str, np.ndarray], profile: KernelProfile) -> dict[str, np.ndarray]:
    bias = t.get("bias") if p["bias"] else None
    out = linear(t["x"], t["weight"], bias, profile)
    grad_x, grad_w, grad_b = linear_backward(t["grad_out"], t["x"], t["weight"], bias is not None, profile)
    result = {"out": out, "grad_x": grad_x, "grad_weight": grad_w}
    if grad_b is not None:
        result["grad_bias"] = grad_b
    return result


def _run_matmul(p: Mapping[str, Any], t: Mapping[str, np.ndarray], profile: KernelProfile) -> dict[str, np.ndarray]:
    grad_a, grad_b = matmul_backward(t["grad_out"], t["a"], t["b"], profile)
    return {"out": matmul(t["a"], t["b"], profile), "grad_a": grad_a, "grad_b": grad_b}


def _run_embedding(p: Mapping[str, Any], t: Mapping[str, np.ndarray], profile: KernelProfile) -> dict[str, np.ndarray]:
    return {
        "out": embedding(t["idx"], t["weight"]),
        "grad_weight": embedding_backward(t["grad_out"], t["idx"], t["weight"].shape[0]),
    }


RUNNERS = {
    "linear": _run_linear,
    "matmul": _run_matmul,
    "embedding": _run_embedding,
}
