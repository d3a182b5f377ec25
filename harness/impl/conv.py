"""2-D convolution, forward and backward (``aten.convolution``, ``aten.convolution_backward``), as torch
2.13.0 runs it on x86 CPUs (C kernels in csrc/conv.c; MKL sgemm through harness.impl.linalg), and, on
Linux arm64, where ATen keeps it (``thnn`` below; its gemms are NVPL's there, harness.impl.linalg).

Shapes (NCHW, float32, contiguous)::

    x   input          (N, C, H, W)        C = IC input channels
    w   weight         (OC, C, KH, KW)
    b   bias           (OC,) or None
    y   output         (N, OC, OH, OW)     OH = (H + 2*PH - KH) // SH + 1, OW likewise
    dy  grad_output    (N, OC, OH, OW)
    stride (SH, SW), padding (PH, PW); dilation 1, one group, not transposed (else ParityError).

Which code runs (ATen's ``_convolution``, ``use_mkldnn`` in ConvUtils.h, then oneDNN's own dispatch
under ``ONEDNN_MAX_CPU_ISA``; measured with ONEDNN_VERBOSE; docs/impl/kernels.md has it in full):

- ``thnn``: ATen's ``_slow_conv2d_forward``/``_backward`` (ConvolutionMM2d.cpp), taken instead of
  oneDNN when the kernel is 1x1 with stride 1 (padding does not count), fewer than 16 images and
  1 thread, or for one small image (N*C*H*W <= 20480) unless both kernel sides exceed 3. Per image:
  im2col (``unfolded2d_copy``, a copy), then MKL ``sgemm`` through ``cpublas::gemm`` (the output
  filled with the bias first and beta = 1: MKL adds its K-block chains to the bias); grad_input:
  ``gemm`` into columns, then ``unfolded2d_acc`` adds each tap (kh, kw) in order onto zeros;
  grad_weight: per image in order, ``gemm`` with beta = 1; grad_bias: ``sum`` over (N, OH, OW).
- ``jit:sse41`` / ``jit:avx2`` / ``jit_1x1`` forward: per output element one chain from the bias
  over input-channel blocks of 8, in a block over the taps (kh, kw) row by row, at a tap over the
  block's channels (``acc = fma(x, w, acc)``; SSE4.1 multiplies, rounds and adds). ``jit:avx512_core``
  (not 1x1): per block of 16 input channels a chain from 0 over (kh, kw, channel), the first
  block's sum plus the bias, each further block's sum added.
- backward data: ``jit:avx2`` (stride 1) per chunk of 32 output channels a chain from 0 over its
  blocks of 8, (kh, kw), channel, the chunks' sums added; ``jit:avx512_core`` per block of 16 a
  chain from 0, the blocks' sums added; ``jit_1x1`` and ``brgconv_strided`` (stride > 1) one chain
  over (kh, kw, channel), except ``brgconv_strided`` where the stride divides W and KW != 2 * PW: per
  kw a chain over (kh, channel) from 0, added in kw order.
- backward weights: per thread of oneDNN's split a chain over its (image, oh, ow), the threads'
  sums added (``jit:avx2``: cpu_reducer's balance; ``jit:avx512_core``: its own balance;
  ``jit_1x1:avx2``: the (image, pixel) pairs split evenly, per image a chain from 0 added);
  grad_bias alike, with its own split.
- ``gemm:jit`` (every backward at SSE4.1, and the forward where ``jit:sse41`` declines): oneDNN's
  im2col + SSE4.1 sgemm, unfused, K in one chain up to 256, two halves below 512, else blocks of
  256; the forward's bias added last; grad_input per tap a chain over the output channels, added
  onto zeros; grad_weight per image a chain, the images split between min(threads, N) threads;
  grad_bias per output row a chain added to the channel's sum.

On aarch64 ATen takes ``thnn`` by the same rule (measured with ``torch._C._select_conv_backend`` on
emulated N1, V1, V2); every other convolution goes to oneDNN, whose aarch64 build runs, by core, ACL's
``indirect_gemm:acl`` or ``gemm:acl``, its reference ``gemm:ref`` backward (N1) or its SVE JIT and
brgconv kernels (V1): not modelled, refused.

``profile.aten`` stands for oneDNN's ISA too (the platform levels set both: baseline = SSE41,
avx2 = AVX2, avx512 = AVX512_CORE); ``profile.threads`` is ATen's and oneDNN's thread count.
"""

from __future__ import annotations

import ctypes
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import f32, load, ptr
from harness.impl.profiles import KernelProfile

_I = ctypes.c_int64
_P = ctypes.c_void_p
_I32 = ctypes.c_int32

THNN, SSE41, GEMM_JIT, AVX2, AVX512 = "thnn", "jit:sse41", "gemm:jit", "jit:avx2", "jit:avx512_core"


def _lib() -> ctypes.CDLL:
    lib = load("conv")
    if not getattr(lib, "_typed", False):
        lib.conv_fwd_direct.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _I32, _I32]
        lib.conv_fwd_terms.argtypes = [*[_I] * 13, _P, _P, _P, _P, _P, _I, _I32, _I32]
        lib.conv_bwd_data_direct.argtypes = [*[_I] * 13, _P, _P, _P, _I, _I32, _I32, _I32]
        lib.conv_bwd_weights_runs.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _P, _I, _I32]
        lib.conv_bwd_data_terms.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _I32]
        lib._typed = True
    return lib


class Geometry(NamedTuple):
    """A convolution's sizes, in the order csrc/conv.c takes them."""

    n: int
    c: int
    h: int
    w: int
    oc: int
    kh: int
    kw: int
    oh: int
    ow: int
    sh: int
    sw: int
    ph: int
    pw: int


def _geometry(x_shape, w_shape, stride, padding) -> Geometry:
    n, c, h, wd = x_shape
    oc, c2, kh, kw = w_shape
    if c2 != c:
        raise ParityError(
            f"conv2d: weight {list(w_shape)} does not fit input {list(x_shape)} (groups are not modelled)"
        )
    sh, sw = stride
    ph, pw = padding
    oh, ow = (h + 2 * ph - kh) // sh + 1, (wd + 2 * pw - kw) // sw + 1
    if oh < 1 or ow < 1:
        raise ParityError("conv2d: empty output")
    return Geometry(n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw)


# what the aarch64 wheel runs where ATen hands a convolution to oneDNN (measured with ONEDNN_VERBOSE on
# emulated N1, V1, V2; docs/impl/kernels.md, convolution, Linux arm64): not modelled
_ARM64_ONEDNN = (
    "conv2d: on aarch64 the impl reproduces ATen's slow_conv2d only; the convolutions ATen hands to oneDNN "
    "there (ACL's indirect_gemm/gemm, oneDNN's gemm:ref or its SVE JIT kernels, by core) are not modelled"
)


def path(x_shape, w_shape, stride, padding, profile: KernelProfile) -> str:
    """Which kernel torch runs for this convolution under ``profile`` (see the module's docstring)."""
    n, c, h, wd, oc, kh, kw, *_ = _geometry(x_shape, w_shape, stride, padding)
    strided = tuple(stride) != (1, 1)
    one_by_one = (kh, kw) == (1, 1)
    thnn_faster = not strided and n < 16 and one_by_one and profile.threads == 1
    small_single = not (kh > 3 and kw > 3) and n == 1 and n * c * h * wd <= 20480
    if thnn_faster or small_single:
        return THNN
    if profile.aten in ("neon", "sve"):
        raise ParityError(_ARM64_ONEDNN)
    if profile.aten == "avx512":
        return AVX512
    if profile.aten == "avx2":
        return AVX2
    return SSE41 if oc % 8 == 0 and (c % 8 == 0 or c <= 3) else GEMM_JIT


def _thnn_gemm(kind: str, m: int, n: int, k: int, a: np.ndarray, lda: int, b: np.ndarray, ldb: int, beta: float,
               c: np.ndarray, ldc: int, profile: KernelProfile) -> None:  # fmt: skip
    from harness.impl.linalg import cpublas_gemm

    ta, tb = {"nn": ("n", "n"), "nt": ("n", "t"), "tn": ("t", "n")}[kind]
    cpublas_gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, profile)


def _im2col(x1: np.ndarray, kh: int, kw: int, sh: int, sw: int, ph: int, pw: int, oh: int, ow: int) -> np.ndarray:
    """``unfolded2d_copy`` of one image (C, H, W): (C*KH*KW, OH*OW), zeros in the padding (a copy)."""
    c, h, w = x1.shape
    padded = np.zeros((c, h + 2 * ph, w + 2 * pw), np.float32)
    padded[:, ph : ph + h, pw : pw + w] = x1
    cols = np.empty((c, kh, kw, oh, ow), np.float32)
    for i in range(kh):
        for j in range(kw):
            cols[:, i, j] = padded[:, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw]
    return cols.reshape(c * kh * kw, oh * ow)


def _col2im(cols: np.ndarray, c: int, h: int, w: int, kh: int, kw: int, sh: int, sw: int, ph: int, pw: int,
            oh: int, ow: int) -> np.ndarray:  # fmt: skip
    """``unfolded2d_acc`` of one image: zeros, then each tap's column (kh, kw in order) added in place."""
    padded = np.zeros((c, h + 2 * ph, w + 2 * pw), np.float32)
    taps = cols.reshape(c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            padded[:, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw] += taps[:, i, j]
    return padded[:, ph : ph + h, pw : pw + w]


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, profile: KernelProfile) -> np.ndarray:
    """``aten.convolution`` (2-D, dilation 1, one group): y (N, OC, OH, OW)."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    g = _geometry(x.shape, w.shape, stride, padding)
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    kind = path(x.shape, w.shape, stride, padding, profile)
    y = np.empty((n, oc, oh, ow), np.float32)
    if kind == THNN:
        k, m = c * kh * kw, oh * ow
        w2 = w.reshape(-1)
        # parallel_for over the images: MKL runs on all threads only when one image runs outside it
        prof = profile if n == 1 else profile.with_threads(1)
        for t in range(n):
            cols = x[t].reshape(c, h * wd) if (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0) else None
            cols = _im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow) if cols is None else cols
            out = y[t].reshape(-1)
            if b is not None:
                y[t] = b[:, None, None]
            _thnn_gemm("nn", m, oc, k, cols.reshape(-1), m, w2, k, 1.0 if b is not None else 0.0, out, m, prof)
        return y
    lib = _lib()
    bias = None if b is None else ptr(b)
    if kind == AVX512 and not _one_by_one(g):
        terms = _terms_blocked(c, kh, kw, 16)
        lib.conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(terms), len(terms), 1, 2)
    elif kind == GEMM_JIT:  # im2col order (channel, kh, kw), the sgemm's K blocks, the bias last
        if oc == 1 and c * kh * kw > 256:
            raise ParityError(f"conv2d (oneDNN gemm:jit): one output channel with K = {c * kh * kw} > 256 {_GEMV}")
        order = [(k, i, j) for k in range(c) for i in range(kh) for j in range(kw)]
        terms: list[tuple[int, int, int]] = []
        for size in _gemm_k_blocks(len(order)):
            if terms:
                terms.append((-1, 0, 0))
            terms.extend(order[:size])
            order = order[size:]
        t = np.array(terms, np.int64).reshape(-1, 3)
        lib.conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(t), len(t), 0, 0)
    else:  # jit:avx2, jit_1x1 fused, jit:sse41 unfused: one chain from the bias over blocks of 8 channels
        lib.conv_fwd_direct(*g, ptr(x), ptr(w), bias, ptr(y), 8, int(kind != SSE41), 1)
    return y


# oneDNN's gemm:jit with a matrix dimension of 1 (measured on random cases: every one differs from the
# blocked sgemm model; the forward with K <= 256 does not)
_GEMV = "is not modelled (its sgemm has a dimension of 1: oneDNN's gemv kernels)"


def _terms_blocked(c: int, kh: int, kw: int, block: int) -> np.ndarray:
    """The AVX-512 forward's terms: per block of ``block`` channels (kh, kw, channel), a part's end
    (-1) between blocks (csrc/conv.c conv_fwd_terms)."""
    terms: list[tuple[int, int, int]] = []
    for c0 in range(0, c, block):
        if c0:
            terms.append((-1, 0, 0))
        terms.extend((k, i, j) for i in range(kh) for j in range(kw) for k in range(c0, min(c, c0 + block)))
    return np.array(terms, np.int64).reshape(-1, 3)


def _one_by_one(g: Geometry) -> bool:
    """oneDNN's 1x1 kernels take the convolution: a 1x1 kernel without padding whose stride divides
    the input (jit_1x1, with its reduce-to-unit-stride copy where the stride is above 1)."""
    h, wd, kh, kw, sh, sw, ph, pw = g.h, g.w, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw
    return (kh, kw, ph, pw) == (1, 1, 0, 0) and h % sh == 0 and wd % sw == 0


def _balance211(n: int, team: int) -> list[int]:
    """oneDNN's balance211 of n items over team threads, as the first item of each thread (and n)."""
    big = -(-n // team)
    many = n - (big - 1) * team  # threads that take big items, the rest one fewer
    starts = [0]
    for t in range(team):
        starts.append(starts[-1] + (big if t < many else big - 1))
    return starts


def _reducer_threads(threads: int, job_size: int, njobs: int, reduction: int) -> int:
    """Threads per group of oneDNN's reduce_balancer_t::balance() (cpu_reducer.cpp), buffers of
    1 << 21 floats: how many threads share one weight job, each over its own images."""
    max_buffer = 1 << 21
    min_jobs = max(1, njobs // threads)
    max_jobs = max(1, max_buffer // (threads * job_size))
    groups = min(njobs // min_jobs, threads)
    per_group = min(threads // groups, reduction)
    bound = njobs * job_size * reduction
    for jobs in range(min_jobs, njobs):
        c_groups = min(njobs // jobs, threads)
        c_per_group = min(threads // c_groups, reduction)
        c_jobs_ub = -(-njobs // c_groups)
        if c_per_group > 1 and c_jobs_ub > max_jobs:
            continue
        cost = job_size * c_jobs_ub * (-(-reduction // c_per_group) + (c_per_group != 1))
        if cost < bound:
            per_group, bound = c_per_group, cost
    return per_group


def _weights_kernel(kind: str, g: Geometry) -> str:
    """oneDNN's backward-weights kernel: jit_1x1 for 1x1 convolutions; at AVX512_CORE the AVX2
    kernel for 4 to 15 input channels (oneDNN's AVX-512 kernel declines them)."""
    c = g.c
    if _one_by_one(g):
        return "jit_1x1:avx2" if kind == AVX2 else "jit_1x1:avx512_core"
    if kind == AVX512 and c < 16 and c != 3:
        return AVX2
    return kind


def _weight_split(kind: str, g: Geometry, threads: int) -> tuple[list[int], list[int]]:
    """(parts, runs) over the (image, output pixel) pairs (csrc/conv.c conv_bwd_weights_runs) for
    oneDNN's backward-weights kernel ``kind``; ParityError where its thread split is not modelled."""
    n, oh, ow = g.n, g.oh, g.ow
    ohw = oh * ow
    images = [b * ohw for b in range(n)]
    if kind in ("jit_1x1:avx2", "jit_1x1:avx512_core"):
        # the (image, pixel) pairs split evenly between the threads; per image a chain from 0
        if kind == "jit_1x1:avx512_core" and threads > 1:
            raise ParityError(f"conv2d backward weights: oneDNN's {kind} on {threads} threads is not modelled")
        parts = _balance211(n * ohw, min(threads, n * ohw))
        return parts, sorted(set(images) | set(parts[:-1]))
    if kind in (AVX2, AVX512):
        parts = [b * ohw for b in _balance211(n, _image_threads(kind, g, threads))]
        return parts, parts[:-1]  # one chain per thread over its images
    raise ParityError(f"conv2d backward weights: oneDNN's {kind} on {threads} threads is not modelled")


def _image_threads(kind: str, g: Geometry, threads: int) -> int:
    """How many threads split the images of oneDNN's direct backward-weights kernel ``kind``."""
    n, c, oc, kh, kw = g.n, g.c, g.oc, g.kh, g.kw
    if kind == AVX2:  # jit_avx2_convolution_bwd_weights_t: cpu_reducer's balance over blocks of 8
        blocks = (1 if c == 3 else -(-c // 8)) * -(-oc // 8)
        return _reducer_threads(threads, kh * kw * (c if c == 3 else 8) * 8, blocks, n)
    return _avx512_image_threads(threads, g)


def _avx512_image_threads(threads: int, g: Geometry, bias: bool = False) -> int:
    """nthr_mb of jit_avx512_common_conv_bwd_weights_kernel_f32::balance (reduction over the images,
    blocks of 16 channels, 3 input channels as one block): the split of (images, output-channel
    blocks, input-channel blocks) between threads with the lowest memory cost (src + dst + 8 * weights
    per thread), then one with a lower compute cost within 110% of it (or 4/3 cheaper). ``bias``: the
    threads that split the bias gradient's images instead: those of one output-channel block (the
    image threads times the input-channel-block threads; measured)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw = g.n, g.c, g.h, g.w, g.oc, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw
    icb = c if c == 3 else 16
    nb_ic, nb_oc = -(-c // icb), -(-oc // 16)

    def up(a: int, b: int) -> int:
        return -(-a // b)

    def mem(nmb: int, noc: int, nic: int) -> int:
        return (
            up(n, nmb) * up(nb_ic, nic) * icb * h * wd // sh // sw
            + up(n, nmb) * up(nb_oc, noc) * 16 * oh * ow
            + 8 * up(nb_oc, noc) * up(nb_ic, nic) * kh * kw * icb * 16
        )

    def comp(nmb: int, noc: int, nic: int) -> int:
        return up(n, nmb) * up(nb_oc, noc) * up(nb_ic, nic)

    splits = [
        (nmb, noc, min(threads // nmb // noc, nb_ic))
        for nmb in range(1, min(threads, n) + 1)
        for noc in range(1, min(threads // nmb, nb_oc) + 1)
    ]
    best, best_mem = (1, 1, 1), mem(1, 1, 1)
    for split in splits:
        if mem(*split) <= best_mem:
            best, best_mem = split, mem(*split)
    best_comp = comp(*best)
    for split in splits:
        cost = comp(*split)
        if (cost <= best_comp and mem(*split) < 1.1 * best_mem) or 4 * cost <= 3 * best_comp:
            best, best_comp = split, cost
    nmb = min(n, threads) if threads / 2 < best[0] < threads else best[0]
    return nmb * best[2] if bias else nmb


def _gemm_k_blocks(k: int) -> list[int]:
    """oneDNN's SSE4.1 sgemm (gemm:jit): one chain for K <= 256, two halves (the first rounded up)
    below 512, else blocks of 256 (the last the remainder); each block's chain from 0, added to C."""
    if k <= 256:
        return [k]
    if k < 512:
        return [(k + 1) // 2, k // 2]
    return [256] * (k // 256) + ([k % 256] if k % 256 else [])


def _run_weights(dy, x, gw, g, parts, runs, fused: bool) -> None:
    part = np.array(parts, np.int64)
    run = np.array(runs, np.int64)
    _lib().conv_bwd_weights_runs(*g, ptr(dy), ptr(x), ptr(gw), ptr(part), len(part) - 1, ptr(run), len(run), int(fused))


def _bias_parts(kind: str, g: Geometry, threads: int) -> list[int]:
    """Image parts of oneDNN's diff_bias: the AVX2 kernels' own reduce_balancer_t over blocks of 8
    channels; the AVX-512 direct kernel's, with its weights."""
    n, oc = g.n, g.oc
    if kind == AVX512:
        return _balance211(n, min(n, _avx512_image_threads(threads, g, bias=True)))
    if threads > 1 and kind not in (AVX2, "jit_1x1:avx2"):
        raise ParityError(f"conv2d backward bias: oneDNN's {kind} on {threads} threads is not modelled")
    return _balance211(n, _reducer_threads(threads, 8, -(-oc // 8), n))


def _terms_chunked(oc: int, kh: int, kw: int) -> np.ndarray:
    """jit:avx2's backward-data terms (stride 1): per chunk of 32 output channels (nb_oc_blocking 4)
    a part, in it per block of 8 channels (kh, kw, channel) (csrc/conv.c conv_bwd_data_terms)."""
    terms: list[tuple[int, int, int]] = []
    for c0 in range(0, oc, 32):
        if c0:
            terms.append((-1, 0, 0))
        for b0 in range(c0, min(oc, c0 + 32), 8):
            terms.extend((o, i, j) for i in range(kh) for j in range(kw) for o in range(b0, min(oc, b0 + 8)))
    return np.array(terms, np.int64).reshape(-1, 3)


def _terms_kw_parts(oc: int, kh: int, kw: int) -> np.ndarray:
    """brgconv_strided's backward-data terms where the stride divides the input width: per kw a part,
    a chain over (kh, output channel) (csrc/conv.c conv_bwd_data_terms)."""
    terms: list[tuple[int, int, int]] = []
    for j in range(kw):
        if j:
            terms.append((-1, 0, 0))
        terms.extend((o, i, j) for i in range(kh) for o in range(oc))
    return np.array(terms, np.int64).reshape(-1, 3)


def conv2d_backward(
    dy: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride,
    padding,
    has_bias: bool,
    profile: KernelProfile,
    mask: tuple[bool, bool, bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """``aten.convolution_backward``: (grad_input, grad_weight, grad_bias), each None where ``mask``
    (output_mask) leaves it out or, for the bias, there is none. ParityError where the impl has no
    model of the kernel torch runs (see the module's docstring)."""
    dy, x, w = f32(dy), f32(x), f32(w)
    g = _geometry(x.shape, w.shape, stride, padding)
    wd, oc, kh, kw, sh, sw, pw = g.w, g.oc, g.kh, g.kw, g.sh, g.sw, g.pw
    kind = path(x.shape, w.shape, stride, padding, profile)
    gx = gw = gb = None
    if kind == THNN:
        return _thnn_backward(dy, x, w, g, has_bias, profile, mask)
    if kind in (SSE41, GEMM_JIT):
        return _gemm_jit_backward(dy, x, w, g, has_bias, profile, mask)
    lib = _lib()
    if mask[0]:
        gx = np.empty_like(x)
        if (sh, sw) != (1, 1) or _one_by_one(g):
            # brgconv_strided (and jit_1x1): one chain over (kh, kw, channel); where the stride divides
            # the input width (and kw is not twice the padding: measured), per kw a chain over (kh,
            # channel) from 0, added in kw order
            if (sh, sw) != (1, 1) and wd % sw == 0 and kw == 2 * pw and kw > 4:
                raise ParityError("conv2d backward data: brgconv_strided with kw = 2 * padding > 4 is not modelled")
            if (sh, sw) != (1, 1) and wd % sw == 0 and kw != 2 * pw:
                terms = _terms_kw_parts(oc, kh, kw)
                lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
            else:
                lib.conv_bwd_data_direct(*g, ptr(dy), ptr(w), ptr(gx), 0, 1, 0, 0)
        elif kind == AVX512:
            lib.conv_bwd_data_direct(*g, ptr(dy), ptr(w), ptr(gx), 16, 1, 0, 1)
        else:  # jit:avx2: chunks of 4 blocks of 8 channels, each chunk's chain from 0, added
            terms = _terms_chunked(oc, kh, kw)
            lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
    if mask[1]:
        gw = np.empty_like(w)
        parts, runs = _weight_split(_weights_kernel(kind, g), g, profile.threads)
        _run_weights(dy, x, gw, g, parts, runs, True)
    if mask[2] and has_bias:
        gb = _bias_grad(dy, _bias_parts(_weights_kernel(kind, g), g, profile.threads))
    return gx, gw, gb


def _gemm_jit_backward(dy, x, w, g, has_bias, profile, mask):
    """oneDNN's gemm:jit backward (gemm_convolution.cpp, every backward at SSE4.1): per image its
    sgemm (unfused at SSE4.1) and col2im. grad_input: per tap (kh, kw) in order a chain over the output
    channels from 0, the taps' sums added onto zeros (col2im); grad_weight: per image a chain over
    (oh, ow), the images split evenly between min(threads, N) threads, each thread's images' sums added
    in order, then the threads' sums; grad_bias: per output row a chain over (ow), added to the
    channel's sum (GCC's 16-lane simd reduction: rows of 16 to 31 columns sum their first 16 lanes in
    order, then the rest)."""
    n, oc, kh, kw, oh, ow = g.n, g.oc, g.kh, g.kw, g.oh, g.ow
    lib = _lib()
    gx = gw = gb = None
    if mask[0]:
        gx = np.empty_like(x)
        terms: list[tuple[int, int, int]] = []
        for i in range(kh):
            for j in range(kw):
                o0 = 0
                for size in _gemm_k_blocks(oc):
                    if terms:
                        terms.append((-1, 0, 0))
                    terms.extend((o, i, j) for o in range(o0, o0 + size))
                    o0 += size
        t = np.array(terms, np.int64).reshape(-1, 3)
        lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(t), len(t), 0)
    if mask[1]:
        if oc == 1 or g.c * kh * kw == 1:
            raise ParityError(f"conv2d backward weights (oneDNN gemm:jit): one output channel or one input tap {_GEMV}")
        gw = np.empty_like(w)
        ohw = oh * ow
        parts = [b * ohw for b in _balance211(n, min(profile.threads, n))]
        runs = [b * ohw + off for b in range(n) for off in np.cumsum([0, *_gemm_k_blocks(ohw)[:-1]])]
        _run_weights(dy, x, gw, g, parts, [int(r) for r in runs], False)
    if mask[2] and has_bias:
        if ow >= 32:
            raise ParityError("conv2d backward bias (oneDNN gemm:jit): rows of 32 or more columns not modelled")
        gb = np.zeros(oc, np.float32)
        for b in range(n):
            for r in range(oh):
                row = dy[b, :, r, :]
                acc = row[:, 0].copy()
                for col in range(1, ow):
                    acc = acc + row[:, col]
                gb = gb + acc
    return gx, gw, gb


def _thnn_backward(dy, x, w, g, has_bias, profile, mask):
    """ATen's slow_conv2d_backward: per image MKL gemms; grad_input's columns added back by col2im."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    k, m = c * kh * kw, oh * ow
    plain = (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0)
    gx = gw = gb = None
    if mask[0]:
        gx = np.empty_like(x)
        prof = profile if n == 1 else profile.with_threads(1)
        cols = np.empty((k, m), np.float32)
        for t in range(n):
            out = gx[t].reshape(-1) if plain else cols.reshape(-1)
            _thnn_gemm("nt", m, k, oc, dy[t].reshape(-1), m, w.reshape(-1), k, 0.0, out, m, prof)
            if not plain:
                gx[t] = _col2im(cols, c, h, wd, kh, kw, sh, sw, ph, pw, oh, ow)
    if mask[1]:
        gw = np.zeros_like(w)
        for t in range(n):  # a serial loop: MKL on all threads
            cols = x[t].reshape(c, h * wd) if plain else _im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow)
            _thnn_gemm("tn", k, oc, m, cols.reshape(-1), m, dy[t].reshape(-1), m, 1.0, gw.reshape(-1), k, profile)
    if mask[2] and has_bias:
        from harness.impl.reduce import sum_dims

        gb = sum_dims(dy, (0, 2, 3), profile)
    return gx, gw, gb


def _bias_grad(dy: np.ndarray, parts: list[int]) -> np.ndarray:
    """oneDNN's diff_bias: per part of the images, per channel a chain of additions from 0 over
    (image, oh, ow), the parts' sums added in order."""
    oc = dy.shape[1]
    total = np.zeros(oc, np.float32)
    for p, (lo, hi) in enumerate(pairwise(parts)):
        flat = dy[lo:hi].transpose(1, 0, 2, 3).reshape(oc, -1)
        acc = np.zeros(oc, np.float32)
        for i in range(flat.shape[1]):
            acc = acc + flat[:, i]
        total = total + acc if p else acc
    return total
