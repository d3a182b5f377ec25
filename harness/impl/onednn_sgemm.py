"""oneDNN v3.12's x86 sgemm at AVX2 and AVX512_CORE (``extended_sgemm``, gemm_driver.cpp), as its
gemm:jit convolutions and its RNNs (harness/impl/rnn.py) call it, bit for bit (the kernels'
arithmetic in csrc/conv.c ``dnnl_sgemm_block``); at SSE4.1 its copy-based path and its gemv kernels.

BLAS conventions, column-major: C (m, n) = (beta ? C : 0) + op(A) (m, k) @ op(B) (k, n), beta 0 or 1,
alpha 1; op(A)[i, p] is ``a[i + p*lda]`` ('N') or ``a[p + i*lda]`` ('T'); C[i, j] is ``c[i + j*ldc]``.
Arrays are flat float32 with an element offset where the matrix starts.

Which code runs (``route``; gemm_threading_driver for f32):

- ``smalln_tn`` (AVX512_CORE, op(A) transposed, op(B) not, 1 < n < 16): its small-n kernel
  (csrc/conv.c ``dnnl_smalln_tn``): columns in groups of 2 or 3, per element 16 lanes (lane l a fused
  chain over p = l mod 16), reduced across the lanes by its shuffle tree; its threads split rows only.
- ``gemv`` (n = 1, else m = 1; gemv_driver.cpp): ``dnnl_gemv_n`` (per element a fused chain over the
  terms in order, from y) and ``dnnl_gemv_t`` (8 lanes over blocks of 16 terms, the remainder in
  pieces of 8, 4, 2, 1, each summed and added to y); where x is strided (incx not 1) the 'T' kernel
  runs on copies of 512 terms, one call each; threads split the outputs, except a short and fat
  gemv 'N', whose terms they split into buffers added to y in order (``_gemv``).
- the thread count: ``adjust_thread_count`` from the threads the caller sees (one inside a parallel
  region, else all of them).
- ``nocopy`` where the caller forces it (``force_nocopy``: oneDNN's RNNs, at AVX2 and up) or
  ``nocopy_checker`` says so: jit_avx_gemm_f32 (AVX2) or jit_avx512_common_gemm_f32
  (AVX512_CORE). Its threads (``_nocopy_partition``) split m, n and, for AVX2, k; each k part is one
  sgemm_nocopy_driver call (K blocks of BK: as long as twice BK remains, BK; then half of what is
  left where that is over BK, rounded up; then the rest) into C (the first part, with beta) or a
  buffer (beta 0), the buffers then added to C in the order the summing thread takes them. The
  AVX2 kernel forms each element by register tile (``DNNL_KERN_AVX2_NOCOPY``: one fused chain in a
  16-row tile 4 to 6 columns wide, else even and odd terms in two chains, added, fused from 3 columns
  wide), the AVX-512 one as one fused chain per K block.
- ``copy`` otherwise (gemm_kernel_driver; also where it runs on several threads: they split m and n,
  never k): K blocks of ``get_k_padd`` (the whole of K up to bk_traditional, 256 at AVX2 and 384 at
  AVX512_CORE; two halves, the first rounded up, below twice bk, 192 or 384; else blocks of bk),
  each block one fused chain from 0 per element, added to C. At SSE4.1 always (no no-copy kernel):
  blocks of 256 (the whole of K up to 256, two halves below 512), each one chain of multiplies and
  adds from 0 per element, added to C; its gemv 'N' kernel as AVX2's, unfused, and its thread
  checker's own first rule; its gemv 'T' kernel jit_sse41_gemv_t_f32_kern (``dnnl_gemv_t_sse41``):
  4 lanes over blocks of 8 terms (lane l the terms l mod 4, products rounded, then added), summed
  (l0 + l1) + (l2 + l3) and added to y, the remainder in pieces of 4, 2, 1 summed alike and added.
"""

from __future__ import annotations

import ctypes
import math
from typing import NamedTuple

import numpy as np

from harness.impl._lib import load, ptr
from harness.impl.nans import arith
from harness.impl.profiles import KernelProfile

SSE41, AVX2, AVX512 = "sse41", "avx2", "avx512"
REF = "ref"  # aarch64: ref_gemm (``ref_sgemm``)
# the K parts summed into C: two NaNs of other payloads meeting there are refused (which one the summing
# loop keeps is not modelled; NumPy's own sum would keep its CPU dispatch's choice)
_K_SUM = "oneDNN sgemm's sum of its K parts"
KERN_CHAIN, KERN_AVX2_NOCOPY, KERN_SSE41 = 0, 1, 2
_I, _P = ctypes.c_int64, ctypes.c_void_p


def _lib() -> ctypes.CDLL:
    lib = load("conv")
    if not getattr(lib, "_sgemm_typed", False):
        lib.dnnl_sgemm_block.argtypes = [ctypes.c_int32, _I, _I, _I, _P, _I, _I, _P, _I, _I, _P, _I, _I, ctypes.c_int32]
        lib.dnnl_smalln_tn.argtypes = [_I, _I, _I, _P, _I, _P, _I, _P, _I, ctypes.c_int32]
        lib.dnnl_gemv_t.argtypes = [_I, _I, _P, _I, _P, _I, _P, _I]
        lib.dnnl_gemv_t_sse41.argtypes = [_I, _I, _P, _I, _P, _I, _P, _I]
        lib.dnnl_gemv_n.argtypes = [_I, _I, _P, _I, _P, _I, _P, _I, ctypes.c_int32]
        i32 = ctypes.c_int32
        lib.onednn_ref_sgemm.argtypes = [i32, i32, _I, _I, _I, _P, _I, _P, _I, ctypes.c_float, _P, _I, i32, _I]
        lib._sgemm_typed = True
    return lib


class Call(NamedTuple):
    """One sgemm as gemm:jit calls it (column-major, BLAS's arguments)."""

    ta: bool
    tb: bool
    m: int
    n: int
    k: int
    lda: int
    ldb: int
    ldc: int


def isa_of(profile: KernelProfile) -> str:
    """oneDNN's sgemm under ``profile``: x86's platform levels pin ATen's capability and oneDNN's ISA
    together (baseline SSE4.1); ``REF`` on aarch64."""
    if profile.aarch64:
        return REF
    return {"avx512": AVX512, "avx2": AVX2, "default": SSE41}[profile.aten]


def _veclen(isa: str) -> int:
    return {AVX512: 16, AVX2: 8}.get(isa, 4)


def adjust_thread_count(isa: str, m: int, n: int, k: int, nthrs: int) -> int:
    """gemm_driver.cpp ``adjust_thread_count`` (f32, OpenMP): fewer threads where the product is too
    small to pay for them."""
    veclen = _veclen(isa)
    if n > 50 and (m <= 3 or (isa == AVX512 and m <= 10)):
        return nthrs
    if isa == AVX2 and m > 10 * n and n < nthrs and m // nthrs < veclen * 3:
        nthrs = max(m // veclen // 3, 1)
    cycles = m * n * k / (2.0 * 2.0 * veclen) * 2.0
    i = nthrs
    if nthrs <= 4:
        if cycles < 3.0e3:
            return 1
        while i > 1 and not 3.0e3 * i < cycles * (i - 1):
            i -= 1
    else:
        if cycles < 4.0e3 + 2 * 5.0e2:
            return 1
        while i > 1 and not (4.0e3 + i * 5.0e2) * i < cycles * (i - 1):
            i -= 2 if i < 10 else 4 if i < 30 else 8
    return max(i, 1)


def nocopy_checker(isa: str, nthr: int, c: Call) -> bool:
    """gemm_driver.cpp ``nocopy_checker_avx2`` / ``nocopy_checker_avx512``: whether the no-copy
    sgemm runs."""
    m, n, k = c.m, c.n, c.k
    if isa == AVX2:
        if 1.0 / m + 1.0 / n >= 0.0038:
            return True
        if (m <= 378 and n <= 378 and k >= nthr * 378) or (m >= nthr * 378 and k >= nthr * 378):
            return False
        if not c.tb:
            return (m <= 128 and n <= 128) or n <= nthr * 16 or k <= nthr * 2 or (m <= 64 and n >= nthr * 16)
        return (m <= 128 and n <= 128) or n <= nthr or k <= nthr
    nn, nt, tn = not c.ta and not c.tb, not c.ta and c.tb, c.ta and not c.tb
    lda_bad, ldb_bad, ldc_bad = c.lda % 256 == 0, c.ldb % 256 == 0, c.ldc % 256 == 0
    lda_verybad = c.lda % 1024 == 0
    if nthr == 1 and tn and m > 100 and ((m < 1200 and n < 200 and k < 1200) or (lda_bad and ldb_bad)):
        return False
    if nthr <= 8 and nn and lda_verybad and k > 500 and n > 100:
        return False
    if 1.0 / m + 1.0 / n >= 0.00196 and not (lda_verybad and nt):
        return True
    copy_based = (m >= 32 and n > 16) or (m >= 32 and n == 16 and (k >= 6400 or c.ta or m == 4096))
    if (lda_bad or ldb_bad or ldc_bad) and copy_based:
        return False
    if (m <= 378 and n <= 378 and k >= nthr * 378) or (m >= nthr * 378 and k >= nthr * 378):
        return False
    if not c.tb:
        return m <= nthr * 28 or n <= nthr * 28 or k <= nthr
    return (m <= nthr * 28 and m >= n) or n <= nthr * 28 or k <= nthr


def route(isa: str, nthr: int, c: Call, force_nocopy: bool = False) -> tuple[str, int]:
    """(path, threads) of gemm_threading_driver for this call with ``nthr`` threads available:
    ``smalln_tn``, ``gemv``, ``nocopy`` or ``copy`` (the module's docstring), and the threads the
    no-copy sgemm is handed (``adjust_thread_count``); ``force_nocopy`` as the caller passes it."""
    if isa == AVX512 and c.ta and not c.tb and 1 < c.n < 16:
        return "smalln_tn", nthr
    if c.n == 1 or c.m == 1:
        return "gemv", nthr
    goal = adjust_thread_count(isa, c.m, c.n, c.k, nthr)
    if isa == SSE41:
        return "copy", goal
    return ("nocopy" if force_nocopy or nocopy_checker(isa, goal, c) else "copy"), goal


def copy_k_blocks(isa: str, k: int) -> list[int]:
    """The copy-based sgemm's K blocks (gemm_driver.cpp ``get_k_padd``, uk = 1)."""
    bk_traditional, bk = {AVX512: (384, 384), AVX2: (256, 192)}.get(isa, (256, 256))
    if k <= bk_traditional:
        return [k]
    if k < 2 * bk:
        return [(k + 1) // 2, k - (k + 1) // 2]
    return [bk] * (k // bk) + ([k % bk] if k % bk else [])


def _halving_blocks(total: int, block: int, over: int) -> list[int]:
    """sgemm_nocopy_driver's blocking of one dimension: ``block`` while twice it remains, then half
    of what is left (rounded up) where that is over ``over``, then the rest."""
    sizes, done = [], 0
    while done < total:
        size = total - done
        if size >= 2 * block:
            size = block
        elif size > over:
            size = (size + 1) // 2
        sizes.append(size)
        done += size
    return sizes


def _nocopy_blocks(isa: str, ta: bool, tb: bool) -> tuple[int, int, int]:
    """(BM, BN, BK) of sgemm_nocopy_driver."""
    if isa == AVX512:
        return 4032, 384 if ta else 64, 384
    return 4032, 96 if ta else 48, 96 if tb else 256


def _ptr(a: np.ndarray, off: int) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data + 4 * off)


def _operands(c: Call) -> tuple[int, int, int, int]:
    """(sai, sak, sbk, sbj): element strides of op(A) and op(B)."""
    sai, sak = (c.lda, 1) if c.ta else (1, c.lda)
    sbk, sbj = (1, c.ldb) if not c.tb else (c.ldb, 1)
    return sai, sak, sbk, sbj


def _block(kind: int, c: Call, m0: int, n0: int, k0: int, mb: int, nb: int, kb: int,
           a: np.ndarray, ao: int, b: np.ndarray, bo: int, out: np.ndarray, oo: int, ldo: int,
           beta: int) -> None:  # fmt: skip
    """One kernel call on rows m0.., columns n0.., terms k0.. of the product, into ``out`` at
    ``oo`` (leading dimension ``ldo``, the block's origin)."""
    sai, sak, sbk, sbj = _operands(c)
    _lib().dnnl_sgemm_block(
        kind, mb, nb, kb, _ptr(a, ao + m0 * sai + k0 * sak), sai, sak, _ptr(b, bo + k0 * sbk + n0 * sbj), sbk, sbj,
        _ptr(out, oo), 1, ldo, beta,
    )  # fmt: skip


def _nocopy_driver(isa: str, c: Call, m0: int, n0: int, k0: int, m: int, n: int, k: int,
                   a: np.ndarray, ao: int, b: np.ndarray, bo: int, out: np.ndarray, oo: int, ldo: int,
                   beta: int) -> None:  # fmt: skip
    """sgemm_nocopy_driver on the sub-problem (m0, n0, k0) of size (m, n, k), into ``out``."""
    bm, bn, bk = _nocopy_blocks(isa, c.ta, c.tb)
    kind = KERN_AVX2_NOCOPY if isa == AVX2 else KERN_CHAIN
    kk = 0
    for kb in _halving_blocks(k, bk, bk):
        mm = 0
        for mb in _halving_blocks(m, bm, bm + bm // 2):
            nn = 0
            for nb in _halving_blocks(n, bn, bn + bn // 2):
                _block(kind, c, m0 + mm, n0 + nn, k0 + kk, mb, nb, kb, a, ao, b, bo, out, oo + mm + nn * ldo, ldo,
                       beta if kk == 0 else 1)  # fmt: skip
                nn += nb
            mm += mb
        kk += kb


def _nocopy_partition(isa: str, m: int, n: int, k: int, nthrs: int) -> tuple[int, int, int, int, int, int]:
    """(nthr_m, nthr_n, nthr_k, MB, NB, KB): gemm_utils_f32.cpp ``calc_nthr_nocopy_avx`` (AVX2) and
    ``calc_nthr_nocopy_avx512_common``, OpenMP (k may be split)."""
    if nthrs == 1:
        return 1, 1, 1, m, n, k
    if isa == AVX2:
        return calc_nthr_nocopy_avx(m, n, k, nthrs)
    nthr, nthr_k = nthrs, 1
    if n <= 128 and m <= 64 * nthr and k > m and k > n:
        nthr_k = max(1, min(k // 192, nthr // 4))
        while nthr_k > 1 and nthr % nthr_k:
            nthr_k -= 1
        nthr //= nthr_k
    nthr_m, nthr_n = max(1, -(-m // 32)), max(1, -(-n // 64))
    gt = nthr_m > nthr_n
    ratio_f = np.float32(nthr_m) / np.float32(nthr_n)
    ratio = int(ratio_f) if gt else int(np.float32(1.0) / ratio_f)
    while nthr_m * nthr_n > 4 * nthr:
        nthr_m, nthr_n = nthr_m // 2, nthr_n // 2
    nthr_m, nthr_n = _avx512_reduce(max(1, nthr_m), max(1, nthr_n), nthr, ratio)
    return _fit_blocks(m, n, k, nthr, nthr_m, nthr_n, nthr_k)


def calc_nthr_nocopy_avx(m: int, n: int, k: int, threads: int) -> tuple[int, int, int, int, int, int]:
    """gemm_utils_f32.cpp ``calc_nthr_nocopy_avx`` (jit_avx_gemm_f32's threads; ref_gemm's on
    aarch64): (threads over M, N, K, and the blocks MB, NB, KB). M in blocks of 64 and N of 48 as the
    first guess; K split (the OpenMP build can synchronise) while M x N blocks leave threads idle and
    each part keeps over 384; the M x N grid then fitted to the threads (``_fit_blocks``)."""
    if threads == 1:
        return 1, 1, 1, m, n, k
    nthr_m, nthr_n, nthr_k = -(-m // 64), -(-n // 48), 1
    other = 1
    while nthr_m * nthr_n * other < threads and k // (other + 1) > 384:
        other += 1
        if (threads // other) * other > 0.9 * threads:
            nthr_k = other
    nthr = threads // nthr_k
    if nthr_m == 1:
        nthr_n = nthr
    if nthr_n == 1:
        nthr_m = nthr
    while nthr_m * nthr_n > nthr:
        if nthr_m > nthr_n:
            nthr_m -= 1
        else:
            nthr_n -= 1
    while nthr_m * nthr_n < nthr:
        if nthr_m < nthr_n:
            nthr_m += 1
        else:
            nthr_n += 1
    return _fit_blocks(m, n, k, nthr, nthr_m, nthr_n, nthr_k)


def _fit_blocks(m: int, n: int, k: int, nthr: int, nthr_m: int, nthr_n: int, nthr_k: int) -> tuple[int, ...]:
    """Both calc_nthr_nocopy functions' end: a grid still over the threads refitted around the square
    root of their count; blocks rounded up to 16 (M) and 4 (K), and the thread counts cut to the
    blocks that hold something."""
    if nthr_m * nthr_n > nthr and nthr_m > 1 and nthr_n > 1:
        if nthr_m <= nthr_n:
            nthr_m = min(int(math.sqrt(nthr)), -(-m // 16))
            nthr_n = nthr // nthr_m
            while nthr_m > 1 and nthr_m * nthr_n != nthr:
                nthr_m -= 1
                nthr_n = nthr // nthr_m
        else:
            nthr_n = min(int(math.sqrt(nthr)), n)
            nthr_m = nthr // nthr_n
            while nthr_n > 1 and nthr_m * nthr_n != nthr:
                nthr_n -= 1
                nthr_m = nthr // nthr_n
    mb = -(-m // nthr_m) + 15
    mb -= mb % 16
    nb = -(-n // nthr_n)
    kb = -(-k // nthr_k) + 3
    kb -= kb % 4
    nthr_m = -(-m // mb) if mb * nthr_m > m else nthr_m
    nthr_n = -(-n // nb) if nb * nthr_n > n else nthr_n
    nthr_k = -(-k // kb) if kb * nthr_k > k else nthr_k
    return nthr_m, nthr_n, nthr_k, mb, nb, kb


def _avx512_reduce(nthr_m: int, nthr_n: int, nthr: int, ratio: int) -> tuple[int, int]:
    """calc_nthr_nocopy_avx512_common's partition reduction and increment (``counter`` against
    ``ratio``)."""
    counter = 0
    while nthr_m * nthr_n > nthr:
        big_m = nthr_m > nthr_n
        if counter < ratio:
            nthr_m, nthr_n = (nthr_m - 1, nthr_n) if big_m else (nthr_m, nthr_n - 1)
        else:
            nthr_m, nthr_n = (nthr_m, nthr_n - 1) if big_m else (nthr_m - 1, nthr_n)
            counter = -1
        counter += 1
    counter = 0
    while nthr_m * nthr_n < 0.95 * nthr:
        big_m = nthr_m > nthr_n
        if counter < ratio:
            nthr_m, nthr_n = (nthr_m + 1, nthr_n) if big_m else (nthr_m, nthr_n + 1)
        else:
            nthr_m, nthr_n = (nthr_m, nthr_n + 1) if big_m else (nthr_m + 1, nthr_n)
            counter = -1
        counter += 1
    return nthr_m, nthr_n


def _unit_diff(ithr: int, nthr: int, n: int) -> tuple[int, int]:
    """gemm_utils ``partition_unit_diff``: (offset, size) of part ithr of n."""
    band = max(1, n // nthr)
    tail = max(0, n - band * nthr)
    off, size = (band + 1) * ithr, band + 1
    if ithr >= tail:
        off, size = band * ithr + tail, band
    return (0, 0) if off >= n else (off, size)


def _nocopy(isa: str, nthrs: int, c: Call, a, ao, b, bo, beta: int, out, oo) -> None:
    """jit_avx_gemm_f32 / jit_avx512_common_gemm_f32 on ``nthrs`` threads: each (m, n, k) part
    one sgemm_nocopy_driver call, the k parts past the first into buffers (beta 0), each summed into
    C over its share of the columns: the summing thread's own buffer first, then the others in order."""
    m, n, k = c.m, c.n, c.k
    nthr_m, nthr_n, nthr_k, mb_, nb_, kb_ = _nocopy_partition(isa, m, n, k, nthrs)
    for im in range(nthr_m):
        for jn in range(nthr_n):
            m0, n0 = mb_ * im, nb_ * jn
            my_m, my_n = min(m, m0 + mb_) - m0, min(n, n0 + nb_) - n0
            if my_m <= 0 or my_n <= 0:
                continue
            parts = []
            for ik in range(nthr_k):
                k0 = kb_ * ik
                my_k = min(k, k0 + kb_) - k0
                if ik == 0:
                    _nocopy_driver(isa, c, m0, n0, k0, my_m, my_n, my_k, a, ao, b, bo, out, oo + m0 + n0 * c.ldc,
                                   c.ldc, beta)  # fmt: skip
                    continue
                buf = np.zeros(mb_ * nb_, np.float32)
                _nocopy_driver(isa, c, m0, n0, k0, my_m, my_n, my_k, a, ao, b, bo, buf, 0, mb_, 0)
                parts.append(buf.reshape(nb_, mb_)[:my_n, :my_m])
            view = np.lib.stride_tricks.as_strided(
                out[oo + m0 + n0 * c.ldc :], shape=(my_n, my_m), strides=(4 * c.ldc, 4), writeable=True
            )
            for ithr_k in range(nthr_k if parts else 0):
                j0, nj = _unit_diff(ithr_k, nthr_k, my_n)
                order = ([ithr_k] if ithr_k > 0 else []) + [i for i in range(1, nthr_k) if i != ithr_k]
                for i in order:
                    view[j0 : j0 + nj] = arith("add", view[j0 : j0 + nj], parts[i - 1][j0 : j0 + nj], None, _K_SUM)


def _gemv_threads(isa: str, nthr: int, m: int, n: int) -> int:
    """gemv_driver.cpp ``thread_checker`` (f32) for a gemv of m x n."""
    if (m < 128 and n < 128) if isa == SSE41 else (m * n + 288 * n < 41700):
        return 1
    if m >= 20000 and n <= 200:
        return nthr
    band = n // nthr
    if nthr <= 12 and band < 32:
        return 1 if m * band < 2048 else nthr
    if nthr <= 12:
        return 1 if m * band < 4096 else nthr
    if band * m < 4096:
        return 1 if band == 0 else min(max(n * m // 3072, 1), nthr)
    return nthr


def _part_1d(n: int, ithr: int, nthr: int) -> tuple[int, int]:
    """gemv_driver.cpp ``part_1d`` (f32, no address): (offset, size) of part ithr of n."""
    extra, width = n % nthr, n // nthr
    if ithr < extra:
        off, size = ithr * (width + 1), width + 1
    else:
        off, size = n - (nthr - ithr) * width, width
    off = min(off, n)
    return off, min(size, n - off)


def _gemv(isa: str, nthr: int, c: Call, a, ao, b, bo, beta: int, out, oo) -> None:
    """jump_to_gemv (n = 1 first, then m = 1) and gemv_threading_driver: the kernels of csrc/conv.c
    (``dnnl_gemv_n``; ``dnnl_gemv_t``, at SSE4.1 ``dnnl_gemv_t_sse41``) on y = C after beta (zeros or
    C). Threads split the outputs (no bit depends on it) except for a short and fat gemv 'N' (at most
    500 rows a thread, at least 128 columns a thread): its columns split by ``_part_1d``, the first
    part into y, the others into zeroed buffers, added to y in order."""
    if c.n == 1:
        trans, gm, gn, mat, mo, ld, vec, vo = c.ta, *((c.k, c.m) if c.ta else (c.m, c.k)), a, ao, c.lda, b, bo
        incx, incy = (c.ldb if c.tb else 1), 1
    else:
        trans, gm, gn, mat, mo, ld, vec, vo = not c.tb, *((c.k, c.n) if not c.tb else (c.n, c.k)), b, bo, c.ldb, a, ao
        incx, incy = (1 if c.ta else c.lda), c.ldc
    ydim = gn if trans else gm
    if not beta:
        out[oo : oo + (ydim - 1) * incy + 1 : incy] = 0.0
    fused, lib = int(isa != SSE41), _lib()
    gemv_t = lib.dnnl_gemv_t_sse41 if isa == SSE41 else lib.dnnl_gemv_t
    kern = gemv_t if trans else (lambda *args: lib.dnnl_gemv_n(*args, fused))
    goal = _gemv_threads(isa, nthr, gm, gn)
    if trans or goal == 1 or not (gm <= goal * 500 and gn >= goal * 128):
        kern(gm, gn, _ptr(mat, mo), ld, _ptr(vec, vo), incx, _ptr(out, oo), incy)
        return
    bufs = []
    for ithr in range(goal):
        off, size = _part_1d(gn, ithr, goal)
        y, yo, yinc = (out, oo, incy) if ithr == 0 else (np.zeros(gm, np.float32), 0, 1)
        if size > 0:
            kern(gm, size, _ptr(mat, mo + off * ld), ld, _ptr(vec, vo + off * incx), incx, _ptr(y, yo), yinc)
        if ithr:
            bufs.append(y)
    view = out[oo : oo + (gm - 1) * incy + 1 : incy]
    for buf in bufs:
        view[:] = view + buf


def sgemm(isa: str, nthr: int, c: Call, a: np.ndarray, ao: int, b: np.ndarray, bo: int, beta: int,
          out: np.ndarray, oo: int, force_nocopy: bool = False) -> None:  # fmt: skip
    """``extended_sgemm`` at ``isa`` with ``nthr`` threads available to it: C = (beta ? C : 0) + op(A)
    @ op(B) into the flat float32 ``out`` at ``oo`` (a, b, out: flat float32 arrays, their matrices
    at element offsets ao, bo, oo)."""
    if c.m <= 0 or c.n <= 0:
        return
    path, threads = route(isa, nthr, c, force_nocopy)
    if path == "smalln_tn":
        _lib().dnnl_smalln_tn(c.m, c.n, c.k, _ptr(a, ao), c.lda, _ptr(b, bo), c.ldb, _ptr(out, oo), c.ldc, beta)
        return
    if path == "gemv":
        _gemv(isa, nthr, c, a, ao, b, bo, beta, out, oo)
        return
    if path == "nocopy":
        _nocopy(isa, threads, c, a, ao, b, bo, beta, out, oo)
        return
    k0, kind = 0, KERN_SSE41 if isa == SSE41 else KERN_CHAIN
    for kb in copy_k_blocks(isa, c.k):
        _block(kind, c, 0, 0, k0, c.m, c.n, kb, a, ao, b, bo, out, oo, c.ldc, beta if k0 == 0 else 1)
        k0 += kb


def brgemm(c: Call, a: np.ndarray, ao: int, b: np.ndarray, bo: int, beta: int, out: np.ndarray, oo: int) -> None:
    """One brgemm kernel call on float32 at AVX2 or AVX512_CORE (jit_brgemm_kernel, as oneDNN's brgemm
    RNN calls it with its whole K in one batch): per element one fused chain from 0 over K in order,
    added to C where beta is 1. Its blocking of M and N changes no bit."""
    _block(KERN_CHAIN, c, 0, 0, 0, c.m, c.n, c.k, a, ao, b, bo, out, oo, c.ldc, beta)


def ref_sgemm(transa: bool, transb: bool, m: int, n: int, k: int, a: np.ndarray, lda: int, b: np.ndarray, ldb: int,
               beta: float, c: np.ndarray, ldc: int, threads: int = 1) -> None:  # fmt: skip
    """oneDNN's ref_gemm<float>, its sgemm on aarch64 (gemm:ref convolutions, RNNs; csrc/conv.c
    onednn_ref_sgemm per thread; GCC vectorises a tail's K loop, 4 lanes, the products added in
    order unfused, where A is transposed and B is not). On more threads its split
    (``calc_nthr_nocopy_avx``): each thread's block of C on its own, the K partition's later parts
    computed from 0 apart and added to C in order."""
    tail_vf = 4 if transa and not transb else 0
    nthr_m, nthr_n, nthr_k, mb, nb, kb = calc_nthr_nocopy_avx(m, n, k, threads)
    lib = _lib()
    parts: list[tuple[np.ndarray, int, int, int, int]] = []
    for ik in range(nthr_k):
        for jn in range(nthr_n):
            for im in range(nthr_m):
                m0, n0, k0 = im * mb, jn * nb, ik * kb
                mm, nn, kk = min(mb, m - m0), min(nb, n - n0), min(kb, k - k0)
                if mm <= 0 or nn <= 0:
                    continue
                sub_a = a[(k0 + m0 * lda) if transa else (m0 + k0 * lda) :]
                sub_b = b[(n0 + k0 * ldb) if transb else (k0 + n0 * ldb) :]
                if ik == 0:
                    out, ld, bt = c[m0 + n0 * ldc :], ldc, beta
                else:
                    out, ld, bt = np.zeros(mb * nb, np.float32), mb, 0.0
                    parts.append((out, m0, n0, mm, nn))
                lib.onednn_ref_sgemm(int(transa), int(transb), mm, nn, kk, ptr(sub_a), lda, ptr(sub_b), ldb, bt,
                                     ptr(out), ld, 1, tail_vf)  # fmt: skip
    for out, m0, n0, mm, nn in parts:  # sum_two_matrices, the K parts in order
        for j in range(nn):
            dst = c[m0 + (n0 + j) * ldc : m0 + (n0 + j) * ldc + mm]
            dst[:] = arith("add", dst, out[j * mb : j * mb + mm], None, _K_SUM)
