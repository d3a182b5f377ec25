"""2-D convolution, forward and backward (``aten.convolution``, ``aten.convolution_backward``), as torch
2.13.0 runs it on x86 CPUs (C kernels in csrc/conv.c; MKL sgemm through harness.impl.linalg), and, on
Linux arm64, where ATen keeps it (``thnn`` below; its gemms are NVPL's there, harness.impl.linalg).

Shapes (NCHW, float32, contiguous)::

    x   input          (N, C, H, W)        C = IC input channels
    w   weight         (OC, C, KH, KW)
    b   bias           (OC,) or None
    y   output         (N, OC, OH, OW)     OH = (H + 2*PH - KH) // SH + 1, OW likewise
    dy  grad_output    (N, OC, OH, OW)
    stride (SH, SW), padding (PH, PW); one group, not transposed (else ParityError; groups over 1:
    harness.impl.conv_grouped, which hands one group here; transposed: harness.impl.conv_transpose,
    which runs the adjoint convolution's passes here); dilation (DH, DW) on x86 (below), OH and OW
    then by the kernel's extent (KH - 1) * DH + 1.

Which code runs (ATen's ``_convolution``, ``use_mkldnn`` in ConvUtils.h, then oneDNN's own dispatch
under ``ONEDNN_MAX_CPU_ISA``; measured with ONEDNN_VERBOSE; docs/impl/kernels.md has it in full).
oneDNN tries its implementations in cpu_convolution_list.cpp's order and runs the first whose
init_conf accepts, per pass: ``path`` gives the level's kernel (at SSE4.1 jit:sse41 where its
forward init_conf accepts, the checks of ``_avx2_forward_declines``, else gemm:jit), and
``direct_kernels`` the kernel of each pass at AVX2 and AVX512_CORE (jit:avx512_core where its
init_conf accepts: ``_avx512_forward_declines``, ``_avx512_data_declines``,
``_avx512_weights_declines``; then jit:avx2 where its own accepts; else gemm:jit):

- ``thnn``: ATen's ``_slow_conv2d_forward``/``_backward`` (ConvolutionMM2d.cpp), taken instead of
  oneDNN when the kernel is 1x1 with stride 1 (padding does not count), fewer than 16 images and
  1 thread, or for one small image (N*C*H*W <= 20480) unless both kernel sides exceed 3. Per image:
  im2col (``unfolded2d_copy``, a copy), then MKL ``sgemm`` through ``cpublas::gemm`` (the output
  filled with the bias first and beta = 1: MKL adds its K-block chains to the bias); grad_input:
  ``gemm`` into columns, then ``unfolded2d_acc`` adds each tap (kh, kw) in order onto zeros;
  grad_weight: per image in order, ``gemm`` with beta = 1; grad_bias: ``sum`` over (N, OH, OW).
- ``jit:sse41`` / ``jit:avx2`` / ``jit_1x1`` forward: per output element one chain from the bias
  over input-channel blocks of 8, in a block over the taps (kh, kw) row by row, at a tap over the
  block's channels (``acc = fma(x, w, acc)``; SSE4.1 multiplies, rounds and adds); ``jit_1x1`` at
  AVX2 and SSE4.1 (stride 1 there) in kernel calls of 128 channels, each call's chain added (the
  first from the bias), ``jit_1x1:avx512_core`` in calls of its reduce blocking
  (``avx512_1x1_reduce_block``: 80, 256 or 512 channels, or the L2 aliasing cut). ``jit:avx512_core``
  (not 1x1): per block of 16 input channels a chain from 0 over (kh, kw, channel), the first
  block's sum plus the bias, each further block's sum added.
- backward data: ``jit:avx2`` (stride 1) per chunk of 32, 16 or 8 output channels (by the output's
  width) a chain from 0 over its blocks of 8, (kh, kw), channel, the chunks' sums added;
  ``jit:avx512_core`` per block of 16 a chain from 0, the blocks' sums added; ``jit_1x1`` one chain
  over (kh, kw, channel) (``jit_1x1:avx2``: a chain per 64 channels, ``jit_1x1:avx512_core`` per
  call of its reduce blocking, the chains' sums added; a strided 1x1 runs brgconv_strided, one chain);
  ``brgconv_strided`` (stride > 1; its blocking search, ``_strided_blocking``, also says where it
  declines; with ``groups`` it counts every group's work, each group then run as one group:
  ``brgconv_strided_data``) per brgemm call a chain from 0, the calls' sums added in order: where
  the stride does not divide W (exec_trans) one call per block of kernel rows (all KH rows, or SH
  rows where the search picks them) over (kh, kw, channel); else (exec_base) the calls of
  ``_strided_kw_calls`` (the taps of a column's stride residue that overflow the output one call
  each, those that do not in one call) per block of kernel rows, over (kh, the call's taps, channel).
  Over NaN or infinite grad_output or weights refused: its calls multiply the weights by grad_output's
  zeros past its edge (inf * 0, NaN where the model skips the tap; measured on a 3x3 at stride 2 over
  9 input columns at avx2 and avx512_core).
- backward weights: per thread of oneDNN's split a chain over its (image, oh, ow), the threads'
  sums added (``jit:avx2``: cpu_reducer's balance; ``jit:avx512_core``: its own balance;
  ``jit_1x1:avx2``: the (image, pixel) pairs split evenly between the threads that cpu_reducer's
  balance puts on one weight job (``_avx2_1x1_group_threads``), per image kernel calls of 128
  pixels, each a chain from 0 added (``avx2_1x1_weight_split``; on nhwc memory its nxc blocking,
  harness.impl.conv_nhwc_backward); ``jit_1x1:avx512_core``: (image, pixel block) units split by its
  balance, calls of whole blocks); grad_bias alike, with its own split.
- ``gemm:jit`` (every backward at SSE4.1, and the forward where ``jit:sse41`` declines): oneDNN's
  im2col + SSE4.1 sgemm, unfused, K in one chain up to 256, two halves below 512, else blocks of
  256 (one output channel: one chain); the forward's bias added last; grad_input per tap a chain
  over the output channels, added onto zeros; grad_weight per image a chain, the images split
  between min(threads, N) threads (one output channel or C*KH*KW = 1: oneDNN's SSE4.1 gemv_t,
  csrc/conv.c); grad_input's sgemms of one row or column (one pixel, or C*KH*KW = 1) oneDNN's gemv
  kernels as at AVX2 (``_sse41_data_gemv``); both backward passes over blocks of output pixels where
  the im2col buffer exceeds the scratchpad limit (``_gemm_jit_conf``); grad_bias per output row one
  chain in order, added to the channel's sum. The forward's blocking (``_gemm_jit_forward_conf``: threads, oc, pixel and
  input-channel blocks sized by the host's per-core L2, ``KernelProfile.l2_per_core``) cuts it into
  sgemms per piece and input-channel block (``_gemm_jit_forward``); where its im2col buffers overflow
  the scratchpad limit oneDNN runs ``ref:any`` instead: per output one unfused chain over (kh, kw,
  channel) (over (channel, kh, kw) where C <= KW), the bias last.
- ``gemm:jit`` at AVX2 and AVX512_CORE (where the direct kernels decline): the same im2col, col2im and
  blocking (vector width 8 or 16 floats in its configuration), the sgemms oneDNN's own at that ISA
  (harness.impl.onednn_sgemm: copy-based or no-copy drivers, the small-n TN and gemv kernels, their
  threads' splits; ``_vector_gemm_jit_forward``, ``_vector_gemm_jit_backward``), each sgemm on one
  thread inside the pass's parallel region, else on all.

Dilated (x86; ``dilated_kernel``, ``dilated_backward_kernels``; measured on a Zen 5 at baseline,
avx2 and avx512, 1, 2 and 4 threads, against ONEDNN_VERBOSE): ATen's ``slow_conv_dilated2d``
(NaiveDilatedConvolution.cpp) for one small image (``_small_single``: a dilation counts as a stride in
``use_mkldnn``): per image the output filled with the bias, im2col with the dilation, MKL ``sgemm``
with beta 1; grad_input ``gemm`` into columns and col2im; grad_weight per image ``gemm`` with beta 1;
grad_bias each image's sum added onto zeros. Else oneDNN's kernels as undilated, their init_confs
reading the paddings and overflows of the kernel's extent (``_extended``) and the unrolls and code
sizes of its taps, the taps DH, DW apart (csrc/conv.c ``*_dilated``): jit:sse41/avx2/avx512_core
forward, jit:avx2/avx512_core backward data at stride 1 (a stride with a dilation: gemm:jit),
jit:avx512_core's weights with its undilated split (jit:avx2's weights take no dilation: gemm:jit),
gemm:jit's im2col and col2im with the dilation (``dilated_onednn_kernels``; a group's kernel where
harness.impl.conv_grouped names it, a transposed convolution's adjoint's for harness.impl
.conv_transpose). Grouped and depthwise dilated convolutions: harness.impl.conv_grouped; transposed
ones: harness.impl.conv_transpose; channels-last ones: harness.impl.conv_nhwc_dilated. Refused:
aarch64, a dilated side of one tap, gemm:jit's ``ref:any`` fallback. SSE4.1's gemm:jit grad_weight with an infinite or
NaN grad_output where im2col has padding zeros, and its forward with an infinite or NaN weight, run
on x with those zeros written out (``im2col_zeros``: its sgemm multiplies them, NaN where a tap the
terms' chains skip meets inf or NaN; measured on a Zen 5: 128 of 128 such weights of one undilated
probe differ where the zeros were skipped).

On aarch64 ATen takes ``thnn`` by the same rule (measured with ``torch._C._select_conv_backend`` on
emulated N1, V1, V2); every other convolution goes to oneDNN v3.12, whose aarch64 build runs, by core:

- ``acl``, the forward on N1 and V2 (``indirect_gemm:acl``; ``gemm:acl`` for 1x1 kernels): ACL's
  fixed-format arm_gemm kernels on NHWC data, K in (kh, kw, channel) order, each term one FMA.
  ``a64_ffhybrid_fp32_mla_6x16`` (V2: ``sve_ffhybrid_fp32_mla_6x4VL``, the same bits): per output
  element one chain from the bias over all of K (its K blocks continue the chain in the output).
  ``a64_ffinterleaved_fp32_mla_8x12`` (V2: ``sve_ffinterleaved_fp32_mla_8x3VL``): K in blocks of
  k_block = ceil(K / ceil(K / 341)) (half of a 32 KiB L1 over 12 columns of floats, then evened out),
  each block's chain from 0, the first block's sum plus the bias, each further block's sum added.
  Which of the two: arm_gemm's cycle estimates (``acl_gemm_kernel``), the lower, the interleaved on a tie.
- ``gemm:ref`` backward on N1 and V2: oneDNN's im2col/col2im with its reference sgemm (csrc/conv.c
  onednn_ref_sgemm per thread: 16x6 register blocks from 0 over K blocks, the rest one chain from C,
  every term fused except the tail terms GCC's 4-lane vectorisation of a K loop contiguous in both
  operands takes; on more threads its M/N/K split, ``_ref_sgemm``). grad_input: per image the sgemm
  col = dy^T-by-w (K = output channels), col2im adding the taps in (kh, kw) order onto zeros;
  grad_weight: per image the sgemm onto the images before (beta 1 after the first), K = output
  pixels; grad_bias: per output row two lanes (even and odd columns, each a chain from 0), added to
  the channel's sum lane 0 first (GCC's ``omp simd`` reduction). Threads: init_conf's outer
  threading over the images (each sgemm on one thread; grad_weight's parts added in order) or the
  sgemm's own split.
- ``jit:sve_256`` on V1 (``_sve256_forward``, ``_sve256_backward``): oneDNN's SVE JIT kernels, its
  jit_1x1 and brgconv_1x1 for 1x1 kernels; the forward ACL's where jit:sve_256 declines
  (``_sve256_jit_declines``, refused), the backward gemm:ref's where a kernel side lies within the
  padding, grad_input's where jit:sve_256's backward-data init_conf declines (its width unroll,
  ``_avx512_data_declines`` over blocks of 8) and the weights' where jit:sve_256's boundaries
  decline (``_sve256_weights_decline``); a padded 1x1 at stride 1 brgconv:sve_256 (brgconv_1x1's
  order), a padded strided one gemm:acl (refused). On
  more threads the forward and grad_input as on one (the threads split images, rows and channel
  blocks, never the reduction); the weights split as its balance says (jit:sve_256: images or
  (image, row) units, each thread one chain, the threads' sums added in order; jit_1x1: (image,
  pixel block) units, ``_sve256_1x1_weight_split``), the bias by the kernel's units or its reducer.
- ``brg_conv_bwd`` backward data at stride 1 on V1 (``sve_256``) and on V2 (``sve_128``, from 13
  input channels; gemm:ref below): oneDNN's forward brgemm convolution of grad_output with the weights' channels
  swapped and taps inverted; its brgemm kernels load C where beta is 1, so each element is one fused
  chain over the calls in order (``_brg_bwd_terms``): per block of output channels (its ic blocks),
  the taps from the last (ker_vpad: row by row; ker_base where the forward's row outgrows its input:
  the partly valid taps of a row per column or per row, as its kh_block_pad says, around the fully
  valid ones), the block's channels innermost.
  On more threads the same: the threads split the forward's images, rows and channel blocks.
- not modelled, refused: on x86 AVX512_CORE's ``ip:any`` (ip_convolution: no padding, stride 1, one
  output pixel, more than one image and 27 taps, run as an inner product; ``unmodelled_passes``);
  on aarch64 V1's 1x1 kernels outside the measured shapes (jit_1x1's reduce blocking where the cache
  sizes would decide it); ``brg_conv_bwd`` with more output channels
  than measured for the kernel's size (its ic blocks' L1/L2 caps) or ker_base's rows wider than
  measured (its row blocks) and V2's ``brgconv_1x1:sve_128`` forward (1x1, from 16 output channels:
  measured at 33); other torch releases. Grouped and depthwise convolutions (harness.impl.conv_grouped:
  oneDNN's jit_dw kernels, gemm:jit over all groups, slow_conv2d per group, this module's
  jit:sse41/jit:avx2/jit:avx512_core/brgconv_strided kernels group by group) refuse there the
  kernels its docstring names (at AVX-512 brgconv_strided's grad_input over NaN or infinite
  operands, jit:avx512_core beyond its measured group bounds and its grad_weight on more than 2
  threads a group, SSE4.1 gemm:jit's pixel blocks,
  jit:avx2's flat forward, groups outside whole blocks on the kernels not run group by group).
  On aarch64 every oneDNN and ACL convolution on a thread count other than 1, 2, 3, 4 and 8
  (``ARM64_THREADS``, those measured under emulation on N1, V1 and V2): their thread splits unmeasured.

``profile.aten`` stands for oneDNN's ISA too (the platform levels set both: baseline = SSE41,
avx2 = AVX2, avx512 = AVX512_CORE); ``profile.threads`` is ATen's and oneDNN's thread count.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import aligned, f32, load, ptr
from harness.impl.onednn_sgemm import SSE41 as SGEMM_SSE41
from harness.impl.onednn_sgemm import copy_k_blocks, isa_of, ref_sgemm
from harness.impl.profiles import KernelProfile

_I = ctypes.c_int64
_P = ctypes.c_void_p
_I32 = ctypes.c_int32

THNN, SSE41, GEMM_JIT, AVX2, AVX512 = "thnn", "jit:sse41", "gemm:jit", "jit:avx2", "jit:avx512_core"
SLOW_DILATED = "slow_conv_dilated2d"  # ATen's own dilated convolution (NaiveDilatedConvolution.cpp)
BRG_STRIDED = "brgconv_strided"  # oneDNN's brgemm backward data for strides above 1
IP_CONV = "ip:any"  # oneDNN's ip_convolution at AVX512_CORE: the convolution as an inner product (matmul)
BRG_STRIDED_AVX2 = "brgconv_strided:avx2"  # at AVX512_CORE, below brgconv_strided and jit:avx512_core
ACL_REF = "acl+gemm:ref"  # aarch64 N1 and V2: ACL forward, oneDNN gemm:ref backward
SVE256 = "jit:sve_256"  # aarch64 V1: oneDNN's SVE JIT and brgemm kernels


def _lib() -> ctypes.CDLL:
    lib = load("conv")
    if not getattr(lib, "_typed", False):
        lib.conv_fwd_direct.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _I32, _I32]
        lib.conv_fwd_terms.argtypes = [*[_I] * 13, _P, _P, _P, _P, _P, _I, _I32, _I32]
        lib.conv_fwd_terms_dilated.argtypes = [*[_I] * 15, _P, _P, _P, _P, _P, _I, _I32, _I32]
        lib.conv_bwd_data_direct.argtypes = [*[_I] * 13, _P, _P, _P, _I, _I32, _I32, _I32]
        lib.conv_bwd_weights_runs.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _P, _I, _I32, _P]
        lib.conv_bwd_data_terms.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _I32]
        lib.conv_bwd_data_terms_dilated.argtypes = [*[_I] * 15, _P, _P, _P, _P, _I, _I32]
        lib.conv_bwd_data_terms_x86.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I]
        lib.conv_bwd_weights_runs_dilated.argtypes = [*[_I] * 15, _P, _P, _P, _P, _I, _P, _I, _I32, _P]
        lib.conv_bwd_weights_gemv.argtypes = [*[_I] * 13, _P, _P, _P, _P, _I, _I, _P]
        lib.conv_bwd_weights_gemv_dilated.argtypes = [*[_I] * 15, _P, _P, _P, _P, _I, _I, _P]
        lib.conv_fwd_gemv_t.argtypes = [*[_I] * 13, _P, _P, _P, _P, _P, _I, _I, _I, _P]
        lib.conv_fwd_gemv_t_dilated.argtypes = [*[_I] * 15, _P, _P, _P, _P, _P, _I, _I, _I, _P]
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


def _geometry(x_shape, w_shape, stride, padding, dilation: tuple[int, int] = (1, 1)) -> Geometry:
    """The convolution's Geometry; its output sizes by the kernel's extent over ``dilation`` (the
    Geometry itself keeps the kernel's taps, KH and KW)."""
    n, c, h, wd = x_shape
    oc, c2, kh, kw = w_shape
    if c2 != c:
        raise ParityError(
            f"conv2d: weight {list(w_shape)} does not fit input {list(x_shape)} (groups: harness.impl.conv_grouped)"
        )
    sh, sw = stride
    ph, pw = padding
    ekh, ekw = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh, ow = (h + 2 * ph - ekh) // sh + 1, (wd + 2 * pw - ekw) // sw + 1
    if oh < 1 or ow < 1:
        raise ParityError("conv2d: empty output")
    return Geometry(n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw)


# what the aarch64 wheel runs where ATen hands a convolution to oneDNN (measured with ONEDNN_VERBOSE on
# emulated N1, V1, V2; docs/impl/kernels.md, convolution, Linux arm64): not modelled
_ARM64_ONEDNN = (
    "conv2d: on aarch64 the impl reproduces the convolutions ATen hands to oneDNN on Neoverse N1 and V2 (torch "
    "2.13.0: ACL's ffhybrid/ffinterleaved forward, oneDNN's gemm:ref backward) and on V1 (its jit:sve_256 "
    "kernels); other releases are not modelled"
)

# the thread counts at which every aarch64 convolution the impl models was measured under emulation (N1,
# V1, V2; tests/test_impl_arm64_nn.py's cases): the thread splits (weights per thread, the bias reducers,
# balance211's parts, ACL's estimate) are refused on others
ARM64_THREADS = (1, 2, 3, 4, 8)


def _small_single(n: int, c: int, h: int, wd: int, kh: int, kw: int) -> bool:
    """ATen keeps one small image (slow_conv2d) unless both kernel sides exceed 3."""
    return not (kh > 3 and kw > 3) and n == 1 and n * c * h * wd <= 20480


def aten_keeps(x_shape, kh: int, kw: int, stride, profile: KernelProfile) -> bool:
    """ConvUtils.h ``use_mkldnn`` declining: ATen runs its own kernel (slow_conv2d, or
    slow_conv_transpose2d for a transposed convolution, whose rule is the same on the transposed
    convolution's input and weight) rather than oneDNN's."""
    n, c, h, wd = x_shape
    return thnn_faster(n, kh, kw, stride, profile) or _small_single(n, c, h, wd, kh, kw)


def thnn_faster(n: int, kh: int, kw: int, stride, profile: KernelProfile) -> bool:
    """ConvUtils.h's rule that keeps a 1x1 kernel at stride 1 with fewer than 16 images on 1 thread in
    ATen (its small-image rule aside; groups take this one alone)."""
    return tuple(stride) == (1, 1) and n < 16 and (kh, kw) == (1, 1) and profile.threads == 1


def path(x_shape, w_shape, stride, padding, profile: KernelProfile) -> str:
    """Which kernel torch runs for this convolution under ``profile`` (see the module's docstring)."""
    g = _geometry(x_shape, w_shape, stride, padding)
    if aten_keeps(x_shape, g.kh, g.kw, stride, profile):
        return THNN
    return onednn_path(g, profile)


def onednn_path(g: Geometry, profile: KernelProfile, dil: tuple[int, int] = (1, 1)) -> str:
    """The kernel oneDNN's convolution list gives ``g`` (taps ``dil`` apart) at ``profile``'s level
    (``path`` where ATen hands the convolution to oneDNN)."""
    c, oc = g.c, g.oc
    if profile.aarch64:
        if profile.torch != "2.13.0" or profile.name not in (*_ACL_PARAMS, "arm64-sve256"):
            raise ParityError(_ARM64_ONEDNN)
        if profile.threads not in ARM64_THREADS:
            measured = ", ".join(map(str, ARM64_THREADS))
            raise ParityError(
                f"conv2d on aarch64: oneDNN's and ACL's convolutions on {profile.threads} threads are not measured "
                f"(their thread splits measured on {measured} threads)"
            )
        return SVE256 if profile.name == "arm64-sve256" else ACL_REF
    if profile.aten == "avx512":
        return AVX512
    if profile.aten == "avx2":
        return AVX2
    # jit:sse41 takes 3 or a multiple of 8 input channels, a multiple of 8 output
    # channels and what its init_conf accepts, the same checks as jit:avx2's (``_avx2_forward_declines``)
    sse41 = oc % 8 == 0 and (c % 8 == 0 or c == 3) and not _avx2_forward_declines(g, dil)
    return SSE41 if sse41 else GEMM_JIT


def _end_pad(pad: int, out: int, size: int, stride: int, k: int) -> int:
    """oneDNN's calculate_end_padding: the padding past the input's end that the last output reaches."""
    return (out - 1) * stride + k - size - pad


def _extended(g: Geometry, dil: tuple[int, int]) -> Geometry:
    """``g`` with the kernel's sides as their extent over the dilation ``dil`` (oneDNN's
    calculate_extended_filter_size, (k - 1) * dilation + 1): what its init_confs compute the end
    paddings and the kernel-outside-the-input check from."""
    return g._replace(kh=(g.kh - 1) * dil[0] + 1, kw=(g.kw - 1) * dil[1] + 1)


def _kernel_outside_src(g: Geometry, dil: tuple[int, int] = (1, 1)) -> bool:
    """A kernel side's extent (over the dilation ``dil``) no longer than the padding before or after
    the input (oneDNN's direct kernels decline it)."""
    e = _extended(g, dil)
    r, b = _end_pad(g.pw, g.ow, g.w, g.sw, e.kw), _end_pad(g.ph, g.oh, g.h, g.sh, e.kh)
    return e.kw <= g.pw or e.kw <= r or e.kh <= g.ph or e.kh <= b


def _avx2_forward_declines(g: Geometry, dil: tuple[int, int] = (1, 1)) -> bool:
    """Whether jit_avx2_conv_fwd_kernel_f32::init_conf declines (jit_sse41_conv_fwd_kernel_f32's has the
    same checks, its registers for the recomputed unroll alike): the kernel outside the input, a left
    padding over the width unroll (3, or OW below it), a kernel wider than 7 with padding and a
    stride, or a right padding the unroll cannot cover once recomputed (at most 7 columns). The
    paddings are the kernel's extent's over the dilation ``dil`` (``_extended``), the width checks
    the kernel's taps'."""
    if _kernel_outside_src(g, dil):
        return True
    ekw = _extended(g, dil).kw
    ur = min(3, g.ow)
    tail = g.ow % ur
    if g.pw > ur or (g.kw > 7 and (g.ph, g.pw) != (0, 0) and (g.sh, g.sw) != (1, 1)):
        return True
    right = max(0, _end_pad(g.pw, g.ow - tail, g.w, g.sw, ekw))
    if right > ur * g.sw and g.ow // ur > 1:
        ur = min(right // g.sw + tail, g.ow, 7)
        right = max(0, _end_pad(g.pw, g.ow - g.ow % ur, g.w, g.sw, ekw))
        return ur < max(g.pw, right)
    return False


def _avx2_data_declines(g: Geometry) -> bool:
    """Whether jit_avx2_conv_bwd_data_kernel_f32::init_conf declines (stride 1; larger strides run
    brgconv_strided): the kernel outside the input, no width unroll that holds the left overflow, or
    a right overflow over the unroll."""
    if _kernel_outside_src(g):
        return True
    left = max(0, (g.kw - 1 - g.pw) // g.sw)
    best, unroll, nb_ic = 0, 1, -(-g.c // 8)
    for blocks in (b for b in range(1, 5) if nb_ic % b == 0):
        for u in range(g.sw, min(g.w + g.sw, 16), g.sw):
            ur = min(u, g.w)
            if u * blocks + u // g.sw > 15 or (left * g.sw > ur and ur != g.w):
                continue
            fmas = -(-ur // g.sw) * blocks
            if fmas > best or (fmas == best and unroll < ur):
                unroll, best = ur, fmas
    if best == 0:
        return True
    tail, r = g.w % unroll, _end_pad(g.pw, g.ow, g.w, g.sw, g.kw)
    over = max(0, (g.kw - 1 - r - tail) // g.sw)
    return over * g.sw > unroll or (g.w > unroll and (unroll % g.sw != 0 or r + tail < 0))


def _avx2_weights_declines(g: Geometry) -> bool:
    """Whether jit_avx2_conv_bwd_weights_kernel_f32::init_conf declines: a padding not below the
    kernel side, a kernel of 14 or more columns, or one taller than the input."""
    r, b = max(0, _end_pad(g.pw, g.ow, g.w, g.sw, g.kw)), max(0, _end_pad(g.ph, g.oh, g.h, g.sh, g.kh))
    return not (g.ph < g.kh and b < g.kh and g.pw < g.kw and r < g.kw and g.kw < 14 and g.kh <= g.h)


def _avx2_flat_one_pixel(g: Geometry) -> bool:
    """Whether jit_avx2_conv_bwd_weights_kernel_f32::init_conf declines a plain (nchw) input of 3
    channels, its flat case, that is one pixel: that memory matches nhwc too, which its tag check
    tries first, and the flat case takes nhwc only with one channel (tag_is_flat): "unsupported format
    tag", and gemm:jit runs (ONEDNN_VERBOSE on a Zen 5 at avx2: every transposed convolution of a 1x1
    input and kernel with 3 output channels and a stride, 10 of 10, and every convolution of 3 input
    channels over one pixel with a 1x1 kernel and a stride, 8 of 8; 2 pixels or other channel counts,
    jit:avx2 or jit_1x1:avx2)."""
    return g.c == 3 and g.h * g.w == 1


def direct_kernels(
    g: Geometry, kind: str, profile: KernelProfile, dil: tuple[int, int] = (1, 1)
) -> tuple[str, str, str]:
    """(forward, backward data, backward weights and bias): which oneDNN kernel runs each pass at
    ``kind`` (AVX2 or AVX512_CORE; not the 1x1 kernels), in cpu_convolution_list.cpp's order: at
    AVX512_CORE jit:avx512_core where its init_conf accepts, then jit:avx2 where its init_conf
    accepts, else gemm:jit; at AVX512_CORE before them all ip_convolution where it applies
    (``_ip_convolution``; not modelled). Strided backward data: brgconv_strided where its blocking
    search finds a blocking (``_strided_declines``), else at AVX512_CORE jit:avx512_core where it
    accepts, then brgconv_strided:avx2 where its search (8 floats a vector) finds one; else gemm:jit
    (measured against ONEDNN_VERBOSE on the ~365 shapes per level and thread count, among 1500
    random strided draws of one to five input channels, that an earlier rule left unsettled: every
    prediction right). ``dil``: the taps' dilation (the forward's checks over the kernel's extent;
    ip_convolution takes no dilation)."""
    avx512 = kind == AVX512
    if avx512 and dil == (1, 1) and _ip_convolution(g):
        return IP_CONV, IP_CONV, IP_CONV

    def first(avx512_declines: bool, avx2_declines: bool) -> str:
        if avx512 and not avx512_declines:
            return AVX512
        return GEMM_JIT if avx2_declines else AVX2

    if (g.sh, g.sw) == (1, 1):
        data = first(avx512 and _avx512_data_declines(g, profile.l1_per_core), _avx2_data_declines(g))
    elif not _strided_declines(g, profile, 16 if avx512 else 8):
        data = BRG_STRIDED
    elif avx512 and not _avx512_data_declines(g, profile.l1_per_core):
        data = AVX512
    elif avx512 and not _strided_declines(g, profile, 8):
        data = BRG_STRIDED_AVX2
    else:
        data = GEMM_JIT
    forward = first(avx512 and _avx512_forward_declines(g, profile, dil), _avx2_forward_declines(g, dil))
    return forward, data, first(_avx512_weights_declines(g), _avx2_weights_declines(g) or _avx2_flat_one_pixel(g))


def _ip_convolution(g: Geometry) -> bool:
    """Whether oneDNN's ip_convolution (first in cpu_convolution_list.cpp; ip_convolution.cpp
    check_conv_ip) takes the convolution at AVX512_CORE as an inner product: no padding, stride 1,
    one output pixel, more than one image and more than 27 taps."""
    one_pixel = (g.oh, g.ow, g.sh, g.sw, g.ph, g.pw) == (1, 1, 1, 1, 0, 0)
    return one_pixel and g.n > 1 and g.kh * g.kw > 27


def _strided_declines(g: Geometry, profile: KernelProfile, simd: int, groups: int = 1) -> bool:
    """Whether brgconv_strided's blocking search (``_strided_blocking``, ``simd`` floats a vector;
    ``g`` one group's geometry of ``groups``) finds no blocking: the primitive declines."""
    try:
        _strided_blocking(g, profile.threads, simd, profile.l1_per_core, profile.l2_per_core, groups)
    except ParityError:
        return True
    return False


def unmodelled_passes(g: Geometry, kind: str, profile: KernelProfile) -> tuple[bool, bool, bool]:
    """(forward, backward data, backward weights and bias): the passes the impl refuses at AVX2 or
    AVX512_CORE: AVX512_CORE's ip_convolution (``IP_CONV``: its inner product, brgemm matmul, not
    modelled)."""
    if kind not in (AVX2, AVX512) or _one_by_one(g):
        return (False, False, False)
    return tuple(k == IP_CONV for k in direct_kernels(g, kind, profile))


def _avx512_forward_declines(g: Geometry, profile: KernelProfile, dil: tuple[int, int] = (1, 1)) -> bool:
    """Whether jit_avx512_common_conv_fwd_kernel_t::init_conf declines (NCHW, channels padded to
    blocks of 16; fewer than 16 input channels its first-convolution kernel, one block of them): the
    kernel outside the input, a left padding or a right one (without the tail) over its width unroll
    (``_avx512_forward_unroll``), or more than 256 KiB of code (15 bytes per FMA of the unroll); the
    paddings those of the kernel's extent over the dilation ``dil``."""
    if _kernel_outside_src(g, dil):
        return True
    ur_w, nb_oc_blocking, r_pad = _avx512_forward_unroll(g, profile, dil)
    tail = g.ow % ur_w
    r_pad_no_tail = max(0, _end_pad(g.pw, g.ow - tail, g.w, g.sw, _extended(g, dil).kw))
    if g.pw > ur_w or r_pad_no_tail > ur_w:
        return True
    ic_block = g.c if g.c < 16 else 16
    mult = 1 + (g.pw > 0) + (r_pad > 0)
    return mult * g.kw * ic_block * nb_oc_blocking * ur_w * 15 > 256 * 1024


def _avx512_forward_unroll(g: Geometry, profile: KernelProfile, dil: tuple[int, int] = (1, 1)) -> tuple[int, int, int]:
    """(ur_w, nb_oc_blocking, r_pad) of jit_avx512_common_conv_fwd_kernel_t::init_conf: r_pad the
    right padding of its first unroll's whole blocks (the code-size check's), ur_w and
    nb_oc_blocking those of its embedded-broadcast kernel (kw > 3, or 3 with a small problem) or
    its explicit one (the blocking of best thread efficiency, ``_avx512_thr_eff``); the end paddings
    those of the kernel's extent over the dilation ``dil``, the explicit one's one-pixel case
    undilated only."""
    n, c, wd, oc, kh, kw, oh, ow, sh, sw, pw = g.n, g.c, g.w, g.oc, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.pw
    ekw = _extended(g, dil).kw
    first = c < 16  # is_1stconv
    ic_block, icp, ocp = (c if first else 16), (c if first else _rnd_up(c, 16)), _rnd_up(oc, 16)
    nb_oc, regs = ocp // 16, 28
    ur_w = min(ow, regs)
    n_oi = ow // ur_w
    r_pad = _end_pad(pw, ur_w * n_oi, wd, sw, ekw)
    if pw > 0 and r_pad > 0:
        n_oi -= 1
    if ur_w != ow and pw > 0 and r_pad > 0 and n_oi > 1:  # large_code_size
        for u in range(ur_w, regs // 2, -1):
            if u * 3 * (6 + ic_block * kw) * 9.0 < 24 * 1024:
                ur_w = u
                break
    l1 = profile.l1_per_core
    total = 4 * (-(-wd // sw) * ic_block * kh + ow * 16 * 2 + kh * kw * ic_block * 16 * 2)
    base = kw == 3 and ow <= 28 and total < l1 and not (ow == 13 and icp >= 192) and not (ow == 28 and icp >= 512)
    full_r_pad = _end_pad(pw, ow, wd, sw, ekw)
    expl = (n, sh, sw, ow) == (1, 1, 1, 1) and wd == kw and nb_oc > 1 and (pw, full_r_pad, dil[1]) == (0, 0, 1)
    expl = expl and oh >= 60 and kh >= 3
    strided = (sh, sw) != (1, 1)
    embd = not expl and (
        kw > 3
        or (not strided and base)
        or (strided and n <= 16 and (ocp <= 192 or oh <= 10) and base)
        or (n == 1 and (ur_w >= ow or first or (ow <= 147 and ocp <= 96)))
    )
    nb_oc_blocking = 1
    if embd:
        ur_w = min(ow, regs)
        fits = total < l1 and ow <= 8 and kh <= 3 and kw <= 3 and nb_oc % 2 == 0
        if fits and (not first or n == 1) and (n != 1 or ur_w < ow):
            nb_oc_blocking, ur_w = 2, min(ow, 31 // 3)
    elif not first or n > 1 or expl:
        best = 0.0
        for i in range(min(nb_oc, 5), 0, -1):
            if nb_oc % i:
                continue
            if expl:
                nb_oc_blocking = i
                break
            u = min(ow, 31 // (i + 1))
            eff = _avx512_thr_eff(g, nb_oc, i, _avx512_ow_block(g, nb_oc, i, u, profile), profile.threads)
            if eff > 1.05 * best:
                nb_oc_blocking, best = i, eff
        ur_w = min(ow, 31 // (nb_oc_blocking + 1))
    return ur_w, nb_oc_blocking, r_pad


def _avx512_thr_eff(g: Geometry, nb_oc: int, nb_oc_blocking: int, ow_block: int, threads: int) -> float:
    """get_thr_eff of jit_avx512_common_conv_fwd_kernel_t::init_conf (single precision)."""
    work = g.n * g.oh * -(-nb_oc // nb_oc_blocking) * -(-g.ow // ow_block)
    disbalance = np.float32(g.ow) / np.float32(_rnd_up(g.ow, ow_block))
    return float(disbalance * np.float32(np.float32(work) / np.float32(_rnd_up(work, threads))))


def _avx512_ow_block(g: Geometry, nb_oc: int, nb_oc_blocking: int, ur_w: int, profile: KernelProfile) -> int:
    """get_ow_block of jit_avx512_common_conv_fwd_kernel_t::init_conf: the block of output columns
    (a multiple of ur_w, at least two) of best thread efficiency within the per-core L2."""
    ow, threads = g.ow, profile.threads
    if g.c < 16:  # the first-convolution kernel: no threading over the columns
        return ow
    l2_part = (profile.l2_per_core * 7 // 8) // 4
    src_chunk, dst_chunk = 16 * ur_w * g.kh, 16 * nb_oc_blocking * ur_w
    wei_chunk = 16 * nb_oc_blocking * 16 * g.kw * g.kh
    block_thr = ur_w * max(2, _c_div(l2_part - 2 * wei_chunk, 2 * dst_chunk + 2 * src_chunk))
    eff = _avx512_thr_eff(g, nb_oc, nb_oc_blocking, block_thr, threads)
    for nb_ow in range(-(-ow // block_thr), -(-ow // (2 * ur_w)) + 1):
        block = min(_rnd_up(-(-ow // nb_ow), ur_w), ow)
        if block < nb_oc_blocking * 16 and eff > np.float32(0.9):
            break
        if -(-ow // block) != nb_ow:
            continue
        thr_eff = _avx512_thr_eff(g, nb_oc, nb_oc_blocking, block, threads)
        if block >= 2 * ur_w and thr_eff > eff:
            block_thr, eff = block, thr_eff
        if eff > np.float32(0.98):
            break
    return min(ow, max(2 * ur_w, block_thr))


def _avx512_data_declines(
    g: Geometry, l1_bytes: int, simd: int = 16, dil: tuple[int, int] = (1, 1), block: int | None = None
) -> bool:
    """Whether jit_avx512_common_conv_bwd_data_kernel_f32_t::init_conf declines (channels padded to
    blocks of 16): the kernel outside the input, a left or right overflow of the taps over its
    width unroll (over the input's columns: all of them up to 28, else 28 or 10 or 31 / (blocks +
    1) by its broadcast kernel), an unroll not a multiple of the stride below the width, or more
    than 256 KiB of code. ``simd`` 8: aarch64's jit_sve_conv_bwd_data_kernel_f32_t at sve_256, the
    same checks over blocks of 8 with its own unrolls (24 registers for the first, the explicit
    broadcast kernel's 16 or 30 / (blocks + 1), the other's 30 / (blocks + 1) where strided, and no
    L1 term in its choice of kernel). Dilated (``dil``): the padding and the taps' overflows those of
    the kernel's extent (``_extended``), the code size and kernel choice the kernel's taps'. ``block``:
    the channel block of a group at AVX512_CORE (16, 8 or 4: its smaller vectors for groups, channels
    not padded), in the L1 and code-size terms and the block count."""
    if _kernel_outside_src(g, dil):
        return True
    c, wd, kh, kw, ow, sw, sh, pw = g.c, g.w, g.kh, g.kw, g.ow, g.sw, g.sh, g.pw
    ekw = _extended(g, dil).kw
    sve = simd == 8
    regs = 24 if sve else 28
    cb = block or simd
    nb_ic = -(-c // cb)
    r_pad = _end_pad(pw, ow, wd, sw, ekw)
    ur_w = wd if wd <= regs else next((u for u in range(regs, 0, -1) if u % sw == 0), sw)
    l_over = max(0, (ekw - 1 - pw) // sw)
    r_over = max(0, _c_div(ekw - 1 - max(0, r_pad + wd % ur_w), sw))
    n_oi = wd // ur_w - (r_over > 0)
    if ur_w != ow and ((l_over <= 0 and n_oi > 0) or (l_over > 0 and n_oi > 1)) and r_over > 0 and l_over > 0:
        mult = 1 + (l_over > 0) + (r_over > 0)
        for u in range(ur_w, regs // 2, -1):  # large_code_size
            if (u // sw) * mult * (6 + cb * kw) * 9.2 < 24 * 1024 and u % sw == 0:
                ur_w = u
                break
    large_w = 14 <= kw < 20 and ow == 1 and nb_ic > 1 and kw == wd and sw == 1
    tb = block or 16  # the L1 term's channel block (x86's; aarch64's kernel has none)
    total = 4 * (wd * tb * 2 * kh + ow * tb + kh * kw * tb * tb * 2)
    small = kw < 5 and (wd <= 5 or 8 < wd <= 13 or (not sve and total > l1_bytes))
    embd = not (kw == 1 or (kw == 5 and wd < 8) or small) or sh > 1
    if embd and not large_w:
        ur_w, nb_ic_blocking = min(wd, 16 if sve else 28), 1
        l1_ok = sve or total < l1_bytes
        if not (kw > 3 or (kw == 3 and l1_ok and ow > 8)) and sh == 1 and nb_ic % 2 == 0:
            nb_ic_blocking, ur_w = 2, min(wd, (30 if sve else 31) // 3)
    else:
        nb_ic_blocking = min(2 if large_w else 4, nb_ic)
        nb_ic_blocking = next(i for i in range(nb_ic_blocking, 0, -1) if nb_ic % i == 0)
        ur_w = min(wd, (30 if sve and sw > 1 else 31) // (nb_ic_blocking + 1))
    tail = wd % ur_w
    if l_over * sw > ur_w and not large_w:
        return True
    r_over = max(0, _c_div(ekw - 1 - max(0, r_pad + tail), sw))
    if r_over * sw > ur_w or (wd > ur_w and (ur_w % sw != 0 or r_pad + tail < 0)):
        return True
    mult = 1 + (l_over > 0) + (r_over > 0)
    return mult * kw * cb * nb_ic_blocking * ur_w * 15 > 256 * 1024 and not large_w


def _avx512_weights_declines(g: Geometry, dil: tuple[int, int] = (1, 1), nxc: bool = False) -> bool:
    """Whether jit_avx512_common_conv_bwd_weights_kernel_f32_t::init_conf declines: a left or right
    padding not below KW (or over 28), a top or bottom one over KH / 2, a kernel wider than 14 (but
    its transposed case: 14 to 19 columns, one output column, KW = W, stride 1, no padding, no
    dilation), or 4 to 15 input channels (its first-convolution kernel takes 1 to 3). Dilated
    (``dil``): the paddings against the kernel's extent (``_extended``), and a dilation of the rows
    only at row stride 1 with the extent no taller than the input. ``nxc`` (channels-last memory):
    neither the transposed case nor the bound on channels (its first-convolution kernel takes every
    count below 16 there)."""
    e = _extended(g, dil)
    r = max(0, _end_pad(g.pw, g.ow, g.w, g.sw, e.kw))
    b = max(0, _end_pad(g.ph, g.oh, g.h, g.sh, e.kh))
    transposed = (
        not nxc
        and 14 <= g.kw < 20
        and g.ow == 1
        and g.kw == g.w
        and (g.sh, g.sw) == (1, 1)
        and (g.ph, g.pw, r, b) == (0,) * 4
        and dil == (1, 1)
    )
    bounds = g.pw < e.kw and r < e.kw and g.ph <= e.kh // 2 and b <= e.kh // 2 and g.pw <= 28 and r <= 28
    rows_ok = dil[0] == 1 or (g.sh == 1 and e.kh <= g.h)
    return not bounds or not rows_ok or (g.kw > 14 and not transposed) or (4 <= g.c < 16 and not nxc)


def _thnn_gemm(kind: str, m: int, n: int, k: int, a: np.ndarray, lda: int, b: np.ndarray, ldb: int, beta: float,
               c: np.ndarray, ldc: int, profile: KernelProfile) -> None:  # fmt: skip
    from harness.impl.linalg import cpublas_gemm

    ta, tb = {"nn": ("n", "n"), "nt": ("n", "t"), "tn": ("t", "n")}[kind]
    cpublas_gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, profile)


def _im2col(x1: np.ndarray, kh: int, kw: int, sh: int, sw: int, ph: int, pw: int, oh: int, ow: int,
            dh: int = 1, dw: int = 1) -> np.ndarray:  # fmt: skip
    """``unfolded2d_copy`` of one image (C, H, W): (C*KH*KW, OH*OW), zeros in the padding (a copy);
    taps ``dh``, ``dw`` apart (im2col.h's dilation, nn.Unfold)."""
    c, h, w = x1.shape
    padded = np.zeros((c, h + 2 * ph, w + 2 * pw), np.float32)
    padded[:, ph : ph + h, pw : pw + w] = x1
    cols = np.empty((c, kh, kw, oh, ow), np.float32)
    for i in range(kh):
        for j in range(kw):
            y, x = i * dh, j * dw
            cols[:, i, j] = padded[:, y : y + sh * (oh - 1) + 1 : sh, x : x + sw * (ow - 1) + 1 : sw]
    return cols.reshape(c * kh * kw, oh * ow)


def _col2im(cols: np.ndarray, c: int, h: int, w: int, kh: int, kw: int, sh: int, sw: int, ph: int, pw: int,
            oh: int, ow: int, dh: int = 1, dw: int = 1) -> np.ndarray:  # fmt: skip
    """``unfolded2d_acc`` (and im2col.h's ``col2im``) of one image: zeros, then each tap's column (kh, kw
    in order, taps ``dh``, ``dw`` apart) added in place, ``image + column``: where two NaNs meet the
    image's kept, as x86's scalar addition keeps its first operand's (NumPy's strided in-place loops
    may keep the other: so the NaN image elements are kept explicitly)."""
    padded = np.zeros((c, max(h + 2 * ph, dh * (kh - 1) + sh * (oh - 1) + 1),
                       max(w + 2 * pw, dw * (kw - 1) + sw * (ow - 1) + 1)), np.float32)  # fmt: skip
    taps = cols.reshape(c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            y, x = i * dh, j * dw
            view = (slice(None), slice(y, y + sh * (oh - 1) + 1, sh), slice(x, x + sw * (ow - 1) + 1, sw))
            with np.errstate(invalid="ignore", over="ignore"):  # inf - inf and overflow: IEEE's, as ATen's
                padded[view] = np.where(np.isnan(padded[view]), padded[view], padded[view] + taps[:, i, j])
    return padded[:, ph : ph + h, pw : pw + w]


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, profile: KernelProfile,
           kind: str | None = None, dilation: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """``aten.convolution`` (2-D, one group): y (N, OC, OH, OW). ``kind``: the kernel to run
    (``path``'s choice where None; harness.impl.conv_grouped names oneDNN's for each group);
    ``dilation`` other than (1, 1): ``_dilated_forward``."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    g = _geometry(x.shape, w.shape, stride, padding, dilation)
    dil = (int(dilation[0]), int(dilation[1]))
    if dil != (1, 1) and kind != THNN:  # THNN dilated: slow_conv_transpose2d's grad_input (conv_transpose)
        return _dilated_forward(x, w, b, g, dil, profile, kind)
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    kind = kind or path(x.shape, w.shape, stride, padding, profile)
    if kind == ACL_REF:
        return _acl_forward(x, w, b, g, profile)
    if kind == SVE256:
        return _sve256_forward(x, w, b, g, profile)
    if kind in (AVX2, AVX512) and not _one_by_one(g):
        kind = direct_kernels(g, kind, profile)[0]  # jit:avx2 where jit:avx512_core declines
        if kind == IP_CONV:
            raise ParityError("conv2d forward: oneDNN's ip_convolution (an inner product, matmul) is not modelled")
    if kind == GEMM_JIT and profile.aten in ("avx2", "avx512") and not gemm_jit_forward_declines(g, profile):
        return _vector_gemm_jit_forward(x, w, b, g, profile)
    y = np.empty((n, oc, oh, ow), np.float32)
    if kind == THNN:
        k, m = c * kh * kw, oh * ow
        w2 = w.reshape(-1)
        # parallel_for over the images: MKL runs on all threads only when one image runs outside it
        prof = profile if n == 1 else profile.with_threads(1)
        for t in range(n):
            cols = x[t].reshape(c, h * wd) if (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0) else None
            cols = _im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow, *dil) if cols is None else cols
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
    elif kind == GEMM_JIT and gemm_jit_forward_declines(g, profile):
        # oneDNN's ref:any (NHWC src, OIHW weights): per output one unfused chain from 0 over (kh, kw,
        # channel) where C > KW (ref_convolution.cpp ker_plain), else over (channel, kh, kw); the bias last
        lib.conv_fwd_direct(*g, ptr(x), ptr(w), bias, ptr(y), c if c > kw else 1, 0, 0)
    elif kind == GEMM_JIT:
        _gemm_jit_forward(x, w, b, g, profile, y)
    elif kind == AVX512 and _one_by_one(g):
        # jit_1x1:avx512_core: a kernel call per block of input channels (``avx512_1x1_reduce_block``),
        # each call's chain from 0 (the first from the bias), added to the output
        terms = _terms_chunked(c, 1, 1, avx512_1x1_reduce_block(g, profile.threads, False))
        lib.conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(terms), len(terms), 1, 1)
    elif _one_by_one(g) and c > _1X1_FWD_REDUCE and (kind == AVX2 or (kind == SSE41 and (sh, sw) == (1, 1))):
        # jit_1x1:avx2 and jit_1x1:sse41 (at SSE4.1 stride 1 only: a strided 1x1 runs jit:sse41, one
        # chain): a kernel call per 128 input channels (init_conf's reduce_blocking for the forward),
        # each call's chain from 0 (the first from the bias), added to the output
        terms = _terms_chunked(c, 1, 1, _1X1_FWD_REDUCE)
        lib.conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(terms), len(terms), int(kind == AVX2), 1)
    else:  # jit:avx2, jit_1x1 fused, jit:sse41 unfused: one chain from the bias over blocks of 8 channels
        lib.conv_fwd_direct(*g, ptr(x), ptr(w), bias, ptr(y), 8, int(kind != SSE41), 1)
    return y


_1X1_FWD_REDUCE = 128  # jit_1x1's forward reduce_blocking at SSE4.1 and AVX2: input channels per kernel call


def avx512_1x1_reduce_block(g: Geometry, threads: int, data: bool) -> int:
    """The channels of one kernel call of jit_1x1:avx512_core's forward (input channels) or backward
    data (``data``: output channels), its reduce_blocking (jit_avx512_common_1x1_conv_kernel.cpp
    init_conf; the drivers call the kernel per block of that many channels in order, the last block
    the rest). Channels padded to 16; a strided 1x1 runs on the reduce-to-unit-stride copy, so the
    spatial sizes are the output's. With explicit broadcast (8 * N / threads >= 1): 80 where the
    other side has at most 256 channels and 10 < OH < 28, else 512 where OH > 10, else 256; without
    it the best divider of the blocks up to 16 (OH <= 10) or 8 (else) from 1024 channels, else all.
    Then its L2 aliasing check over the register unroll ur (``_avx512_1x1_ur``) may cut the block.
    The caches do not enter the reduce blocking (its L1 and L2 sizes only block the pixels)."""
    reduce_dim, load_dim = _rnd_up(g.oc if data else g.c, 16), _rnd_up(g.c if data else g.oc, 16)
    spatial, os_ = g.oh, g.oh * g.ow
    expl = (8 * g.n) // threads >= 1
    ur = _avx512_1x1_ur(spatial, os_, load_dim, expl)
    if expl:
        if load_dim <= 256 and 10 < spatial < 28:
            block = min(reduce_dim, 80)
        else:
            block = min(reduce_dim, 512 if spatial > 10 else 256)
    else:
        nb = reduce_dim // 16
        cap = nb if reduce_dim < 1024 else (16 if spatial <= 10 else 8)
        block = _best_divider(nb, 1, cap, True) * 16
    way, hits_max = 65536 // 4, 7  # a way of a 1 MiB 16-way L2 in floats; hits left to the input
    if os_ * block > way * hits_max:
        nrb, wl = block // 16, way // 16
        for start in range(ur):
            hits = 0
            for off in range(start, os_ * nrb, wl):
                if off % os_ >= ur:
                    continue
                hits += 1
                if hits < hits_max:
                    continue
                block = min(block, 16 * max(1, (off + wl) // os_))
                break
    return block


def _avx512_1x1_ur(spatial: int, os_: int, load_dim: int, expl: bool) -> int:
    """jcp.ur of jit_avx512_common_1x1_conv_kernel's init_conf (forward and backward data): the
    largest register count in its range that divides the rows (from 14 rows) or the pixels, else
    the one of the largest pixel tail."""
    if expl:
        top, low = (6, 5) if 128 < load_dim < 256 and 10 < spatial < 28 else (9, 6)
    else:
        top, low = 30, 9
    for u in range(top, low - 1, -1):
        if (spatial >= 14 and spatial % u == 0) or (spatial < 14 and os_ % u == 0):
            return u
    ur, tail = min(top, os_), os_ % top
    for u in range(top, low - 1, -1):
        if os_ % u > tail or os_ % u == 0:
            ur, tail = u, os_ % u
            if tail == 0:
                break
    return ur


def dilated_kernel(g: Geometry, dil: tuple[int, int], profile: KernelProfile) -> str:
    """The kernel torch runs for a dilated convolution's forward (x86): ATen's slow_conv_dilated2d
    where ``use_mkldnn`` declines (ConvUtils.h: a dilated convolution counts as strided, so only the
    small-image rule, ``_small_single``, keeps it), else oneDNN's list as undilated with the
    kernel's extent in the padding checks (``onednn_path``, ``direct_kernels``). ParityError on
    aarch64, for a dilated side of one tap (oneDNN's 1x1 kernels), and for gemm:jit's ``ref:any``
    fallback (not measured dilated)."""
    dilation_refused((g.n, g.c, g.h, g.w), (g.oc, g.c, g.kh, g.kw), dil, profile)
    if _small_single(g.n, g.c, g.h, g.w, g.kh, g.kw):
        return SLOW_DILATED
    return dilated_onednn_kernels(g, dil, profile)[0]


def dilated_onednn_kernels(g: Geometry, dil: tuple[int, int], profile: KernelProfile) -> tuple[str, str, str]:
    """(forward, backward data, backward weights and bias): oneDNN's kernels for a dilated convolution
    it runs (``dilated_kernel``'s and ``dilated_backward_kernels``' oneDNN part; a transposed one's
    adjoint, harness.impl.conv_transpose). ParityError where its forward would be ``ref:any``."""
    kind = onednn_path(g, profile, dil)
    if kind in (AVX2, AVX512):
        kind = direct_kernels(g, kind, profile, dil)[0]
    if kind == GEMM_JIT and gemm_jit_forward_declines(g, profile):
        raise ParityError("conv2d forward: oneDNN's ref:any for a dilated convolution is not modelled")
    if profile.aten not in ("avx2", "avx512"):
        return kind, GEMM_JIT, GEMM_JIT
    e, avx512 = _extended(g, dil), profile.aten == "avx512"
    if (g.sh, g.sw) != (1, 1):  # the direct kernels take no stride with a dilation, nor brgconv_strided (measured)
        data = GEMM_JIT
    elif avx512 and not _avx512_data_declines(g, profile.l1_per_core, dil=dil):
        data = AVX512
    else:
        data = GEMM_JIT if _avx2_data_declines(e) else AVX2
    return kind, data, AVX512 if avx512 and not _avx512_weights_declines(g, dil) else GEMM_JIT


def dilation_refused(x_shape, w_shape, dil: tuple[int, int], profile: KernelProfile) -> None:
    """ParityError for a dilated convolution the impl has no kernel for at all (any groups): on
    aarch64, or a dilated kernel side of one tap (oneDNN's 1x1 kernels)."""
    if profile.aarch64:
        raise ParityError("conv2d: the impl reproduces dilated convolutions on x86 only")
    if (w_shape[2] == 1 and dil[0] > 1) or (w_shape[3] == 1 and dil[1] > 1):
        raise ParityError("conv2d: the impl reproduces dilation over kernel sides of more than one tap only")


def dilated_backward_kernels(g: Geometry, dil: tuple[int, int], profile: KernelProfile) -> tuple[str, str]:
    """(backward data, backward weights and bias): the kernels torch runs for a dilated convolution's
    backward (x86; ``dilated_kernel``'s rules): slow_conv_dilated2d where ATen keeps it; at SSE4.1
    gemm:jit; at AVX2 and AVX512_CORE backward data at stride 1 jit:avx512_core where its init_conf
    accepts the kernel's extent (``_avx512_data_declines``), then jit:avx2 where its own accepts
    (``_avx2_data_declines``), else gemm:jit, strided gemm:jit; weights jit:avx512_core where its
    init_conf accepts (``_avx512_weights_declines``), else gemm:jit (jit:avx2's weights take no
    dilation)."""
    if dilated_kernel(g, dil, profile) == SLOW_DILATED:
        return SLOW_DILATED, SLOW_DILATED
    return dilated_onednn_kernels(g, dil, profile)[1:]


def _dilated_backward(dy, x, w, g: Geometry, dil: tuple[int, int], has_bias: bool, profile: KernelProfile, mask,
                      kind: str | None = None):  # fmt: skip
    """A dilated convolution's backward by ``dilated_backward_kernels``' choice (``kind`` where given:
    a group's kernel, harness.impl.conv_grouped's choice, for both passes): slow_conv_dilated2d
    (``_thnn_backward``); gemm:jit (``_gemm_jit_backward`` at SSE4.1, ``_vector_gemm_jit_backward``);
    jit:avx2's and jit:avx512_core's backward data the undilated orders with the taps ``dil`` apart
    (csrc/conv.c conv_bwd_data_terms_dilated: jit:avx2 chunks of 8, 16 or 32 output channels,
    jit:avx512_core blocks of 16, each a chain from 0 over (kh, kw, channel), added); jit:avx512_core's
    weights and bias the undilated split (``_weight_split``, ``_bias_parts``: a chain per thread over
    its (image, oh, ow) pairs, the threads' sums added) with the taps ``dil`` apart."""
    if kind not in (None, GEMM_JIT, AVX2, AVX512, THNN):
        raise ParityError(f"conv2d: {kind} is not modelled for a dilated convolution's backward")
    data, weights = (kind, kind) if kind else dilated_backward_kernels(g, dil, profile)
    if data in (SLOW_DILATED, THNN):  # THNN: slow_conv_transpose2d's grad_weight (harness.impl.conv_transpose)
        return _thnn_backward(dy, x, w, g, has_bias, profile, mask, dil)
    if profile.aten not in ("avx2", "avx512"):
        return _gemm_jit_backward(dy, x, w, g, has_bias, profile, mask, dil)
    gx = gw = gb = None
    if mask[0] and data == GEMM_JIT:
        gx = _vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, (True, False, False), dil=dil)[0]
    elif mask[0]:
        gx = np.empty_like(x)
        chunked = _terms_chunked(g.oc, g.kh, g.kw, _avx2_data_chunk(g.ow))
        terms = _terms_blocked(g.oc, g.kh, g.kw, 16) if data == AVX512 else chunked
        _lib().conv_bwd_data_terms_dilated(*g, *dil, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
    if weights == AVX512:  # its split of the (image, pixel) pairs as undilated, the taps dil apart
        if mask[1]:
            gw = np.empty_like(w)
            _run_weights(dy, x, gw, g, *_weight_split(AVX512, g, profile.threads, profile.l1_per_core), True, dil)
        if mask[2] and has_bias:
            gb = _bias_grad(dy, _bias_parts(AVX512, g, profile.threads))
    elif mask[1] or mask[2]:
        _, gw, gb = _vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, (False, mask[1], mask[2]), dil=dil)
    return gx, gw, gb


def _dilated_forward(x, w, b, g: Geometry, dil: tuple[int, int], profile: KernelProfile,
                     kind: str | None = None) -> np.ndarray:  # fmt: skip
    """A dilated convolution's forward by ``dilated_kernel``'s choice (``kind`` where given: a group's
    kernel, harness.impl.conv_grouped's choice). slow_conv_dilated2d
    (slow_conv_dilated_all_cpu_template), per image in order: the output filled with the bias (zeros
    without), im2col with the dilation (rows (channel, kh, kw)), then ``cpublas::gemm`` 'n', 'n' (M
    the pixels, N the output channels, K = C*KH*KW) with beta 1 onto it (MKL on all threads). oneDNN:
    the undilated kernels' orders with the taps ``dil`` apart (csrc/conv.c conv_fwd_terms_dilated):
    jit:sse41 (unfused) and jit:avx2 one chain from the bias over blocks of 8 channels, (kh, kw), the
    block's channels; jit:avx512_core a chain per block of 16, the first plus the bias, the others
    added; gemm:jit its im2col and sgemms (``_gemm_jit_forward``, ``_vector_gemm_jit_forward``)."""
    if kind not in (None, SSE41, AVX2, AVX512, GEMM_JIT):
        raise ParityError(f"conv2d: {kind} is not modelled for a dilated convolution's forward")
    kind = kind or dilated_kernel(g, dil, profile)
    n, c, _h, _wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    if kind == SLOW_DILATED:
        y = np.zeros((n, oc, oh * ow), np.float32)
        for t in range(n):
            if b is not None:
                y[t] = b[:, None]
            cols = _im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow, *dil)
            _thnn_gemm("nn", oh * ow, oc, c * kh * kw, cols.reshape(-1), oh * ow, w.reshape(-1), c * kh * kw, 1.0,
                       y[t].reshape(-1), oh * ow, profile)  # fmt: skip
        return y.reshape(n, oc, oh, ow)
    if kind == GEMM_JIT and profile.aten in ("avx2", "avx512"):
        return _vector_gemm_jit_forward(x, w, b, g, profile, dil=dil)
    y = np.empty((n, oc, oh, ow), np.float32)
    if kind == GEMM_JIT:
        _gemm_jit_forward(x, w, b, g, profile, y, dil)
        return y
    terms = _terms_blocked(c, kh, kw, 16 if kind == AVX512 else 8)
    terms = terms if kind == AVX512 else np.ascontiguousarray(terms[terms[:, 0] >= 0])  # one chain
    bias = None if b is None else ptr(b)
    _lib().conv_fwd_terms_dilated(*g, *dil, ptr(x), ptr(w), bias, ptr(y), ptr(terms), len(terms),
                                  int(kind != SSE41), 2 if kind == AVX512 else 1)  # fmt: skip
    return y


def _gemm_jit_forward(x, w, b, g: Geometry, profile: KernelProfile, y: np.ndarray,
                      dil: tuple[int, int] = (1, 1)) -> None:  # fmt: skip
    """oneDNN's gemm:jit forward (gemm_convolution.cpp ``execute_forward_ncsp``) into y: each thread
    of its blocking (``_gemm_jit_forward_conf``) takes its pixels and output channels (balance2D) in
    pieces of at most a pixel block (not crossing an image) by an oc block; per piece and input-channel
    block in order one sgemm (im2col order (channel, kh, kw); beta = 0 for the first block, 1 after),
    the bias added after the last. The sgemm's arithmetic by the piece's shape: more than one pixel
    and output channel, the K blocks (``copy_k_blocks`` at SSE4.1) of each input-channel block, each chain from
    0 added to C; one output channel (n = 1: gemv 'N'), one chain over all of K from 0; one pixel
    (m = 1: gemv 'T', csrc/conv.c conv_fwd_gemv_t), per block its SSE4.1 gemv_t lanes onto C, in
    calls of 512 terms where x is strided (no im2col and more than one pixel), else one call. ``dil``:
    the taps' dilation (im2col's)."""
    n, c, _h, _w, oc, kh, kw, oh, ow = g[:9]
    conf = _gemm_jit_forward_conf(g, profile.threads, profile.l2_per_core)
    lib = _lib()
    bias = None if b is None else ptr(b)
    blocks = [(c0, min(c0 + conf.ic_block, c)) for c0 in range(0, c, conf.ic_block)]
    terms: list[tuple[int, int, int]] = []
    for c0, c1 in blocks:
        order = [(k, i, j) for k in range(c0, c1) for i in range(kh) for j in range(kw)]
        for size in _sse41_k_blocks(len(order)):
            if terms:
                terms.append((-1, 0, 0))
            terms.extend(order[:size])
            order = order[size:]
    t = np.array(terms, np.int64).reshape(-1, 3)
    xz, gz = im2col_zeros(x, w, g, dil)
    lib.conv_fwd_terms_dilated(*gz, *dil, ptr(xz), ptr(w), bias, ptr(y), ptr(t), len(t), 0, 0)
    pieces = _gemm_jit_forward_pieces(g, conf)
    flat = y.reshape(n, oc, oh * ow)
    one_oc = [p for p in pieces if p[4] - p[3] == 1]
    if one_oc:  # gemv 'N': one chain over all of K
        chain = np.array([t for t in terms if t[0] >= 0], np.int64)
        whole = np.empty_like(y)
        lib.conv_fwd_terms_dilated(*gz, *dil, ptr(xz), ptr(w), bias, ptr(whole), ptr(chain), len(chain), 0, 0)
        for im, s0, s1, o0, o1 in one_oc:
            flat[im, o0:o1, s0:s1] = whole.reshape(n, oc, oh * ow)[im, o0:o1, s0:s1]
    one_pixel = np.array([p for p in pieces if p[2] - p[1] == 1 and p[4] - p[3] > 1], np.int64).reshape(-1, 5)
    if len(one_pixel):  # gemv 'T' over the pixel's im2col row x
        # gemv_kernel_driver copies x in blocks of 512 (M_BLK), one kernel call each, only where its
        # stride incx = LDA is not 1: without im2col LDA is the image's pixels (one pixel: x is
        # contiguous, all of K in one call), with im2col the piece's pixels (here 1)
        strided = conf.col == 0 and oh * ow > 1
        col = np.empty(conf.ic_block * kh * kw, np.float32)
        lib.conv_fwd_gemv_t_dilated(
            *g, *dil, ptr(x), ptr(w), bias, ptr(y), ptr(one_pixel), len(one_pixel), conf.ic_block,
            512 if strided else 0, ptr(col),
        )  # fmt: skip


def im2col_zeros(
    x: np.ndarray, other: np.ndarray, g: Geometry, dil: tuple[int, int] = (1, 1)
) -> tuple[np.ndarray, Geometry]:
    """x with the zeros of gemm:jit's im2col around it and ``g`` without padding, where ``other``, the
    operand its sgemm multiplies the columns by (the weight forward, grad_output for grad_weight), holds
    an infinity or NaN (x and ``g`` as they are else). SSE4.1's sgemm multiplies the padding's zeros
    too: 0 * inf and 0 * NaN give NaN where the terms' chains (csrc/conv.c) skip a padded tap; a
    finite operand's 0 * v adds a zero to a chain from +0 of unfused sums, which keeps its bits."""
    if np.isfinite(other).all():
        return x, g
    e = _extended(g, dil)
    bottom = max(0, _end_pad(g.ph, g.oh, g.h, g.sh, e.kh))
    right = max(0, _end_pad(g.pw, g.ow, g.w, g.sw, e.kw))
    xz = np.pad(x, ((0, 0), (0, 0), (g.ph, bottom), (g.pw, right)))
    return xz, g._replace(h=xz.shape[2], w=xz.shape[3], ph=0, pw=0)


def _gemm_jit_forward_pieces(g: Geometry, conf: GemmJitForward) -> list[tuple[int, int, int, int, int]]:
    """(image, first pixel, end pixel, first oc, end oc) of every sgemm piece of gemm:jit's forward:
    per thread its balance2D share of (image, pixel) pairs and output channels (nthr_oc groups of
    threads over the channels, each group's threads over the pairs), in pixel blocks cut at images
    and oc blocks."""
    n, oc, os_ = g.n, g.oc, g.oh * g.ow
    groups = min(conf.nthr_oc, conf.nthr)
    big, small = conf.nthr // groups + 1, conf.nthr // groups
    in_big = (conf.nthr % groups) * big
    pieces = []
    for ithr in range(conf.nthr):
        if ithr < in_big:
            grp, grp_ithr, grp_nthr = ithr // big, ithr % big, big
        else:
            grp = conf.nthr % groups + (ithr - in_big) // small
            grp_ithr, grp_nthr = (ithr - in_big) % small, small
        oc_starts, sp_starts = _balance211(oc, groups), _balance211(n * os_, grp_nthr)
        o_start, o_end = oc_starts[grp], oc_starts[grp + 1]
        sp, sp_end = sp_starts[grp_ithr], sp_starts[grp_ithr + 1]
        step = conf.os_block
        while sp < sp_end:
            im, s = divmod(sp, os_)
            for o in range(o_start, o_end, conf.oc_block):
                step = min(conf.os_block, os_ - s, sp_end - sp)
                pieces.append((im, s, s + step, o, min(o + conf.oc_block, o_end)))
            sp += step
    return pieces


def gemm_jit_forward_declines(g: Geometry, profile: KernelProfile, groups: int = 1) -> bool:
    """Whether oneDNN's gemm:jit forward declines for ``ref:any``: its scratchpad, the threads' im2col
    buffers of its blocking (``_gemm_jit_forward_conf``) plus 128 bytes of alignment, is over the
    limit of 15 * threads * the bytes of src, weights and dst (at most 1 GiB; ``g`` one group's
    geometry of ``groups``)."""
    conf = _gemm_jit_forward_conf(g, profile.threads, profile.l2_per_core, _simd_w(profile), groups)
    n, c, h, wd, oc, kh, kw, oh, ow = g[:9]
    limit = min(1 << 30, 15 * profile.threads * 4 * groups * (n * c * h * wd + oc * c * kh * kw + n * oc * oh * ow))
    return conf.col > 0 and 4 * conf.nthr * conf.col + 128 > limit


class GemmJitForward(NamedTuple):
    """oneDNN's gemm:jit forward blocking (NCHW): its threads, the threads sharing out the output
    channels, the blocks of output channels, pixels and input channels, one thread's im2col floats."""

    nthr: int
    nthr_oc: int
    oc_block: int
    os_block: int
    ic_block: int
    col: int


def _c_div(a: int, b: int) -> int:
    """C's integer division (towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _div_up(a: int, b: int) -> int:
    return 0 if a <= 0 else (a - 1) // b + 1


def _rnd_up(a: int, b: int) -> int:
    return _div_up(a, b) * b


def _rnd_dn(a: int, b: int) -> int:
    return _c_div(a, b) * b


def _saturate(low: int, high: int, value: int) -> int:
    return max(low, min(high, value))


def _gemm_jit_forward_conf(
    g: Geometry, threads: int, l2_bytes: int, simd_w: int = 4, groups: int = 1
) -> GemmJitForward:
    """oneDNN v3.12's gemm:jit forward configuration (gemm_convolution_utils.cpp ``init_conf``, f32
    NCHW forward; simd_w the floats of a vector register); L2 = the per-core L2 cache in floats, as
    oneDNN reads it from CPUID (a profile fact, ``KernelProfile.l2_per_core``). With ``groups`` (``g``
    one group's geometry) its images are the (image, group) pairs, the outer threading's "more than
    one image" more than one image or more than two groups.

    Blocking applies (with an im2col buffer) unless there are fewer (image, pixel) pairs than
    threads * simd_w, no fewer pixels than images and not (stride 1 and K = C*KH*KW at most 5% of
    the output channels), or (without one, a 1x1 kernel at stride 1 unpadded) where C / OC < 42 and
    C*OC*H*W < 1024; then every thread takes part (outer threading) and a search over nthr_oc =
    1..threads and candidate (oc block, pixel block) pairs scores each by its float efficiency
    estimate (thread balance, block remainders, memory traffic against the L2 size, gemm shape), the
    first best kept; its input-channel block is the most channels whose rows fit the L2, spread
    evenly. Without blocking one sgemm per image over everything, on all threads only where outer
    threading pays (more than one image, fewer than 512 pixels per thread)."""
    several = g.n != 1 or groups > 2
    g = g._replace(n=g.n * groups)
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw = g[:11]
    os_, ks = oh * ow, kh * kw
    l2 = l2_bytes // 4
    im2col = 0 if (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1) else c * ks * os_
    spatial, k_all = n * os_, c * ks
    applicable = (not im2col or spatial >= threads * simd_w or os_ < n or (sw == 1 and k_all <= 0.05 * oc)) and (
        bool(im2col) or (c // oc < 42 and c * oc * h * wd < 1024)
    )
    if not applicable:
        f32 = np.float32
        outer_eff = f32(n) / f32(_rnd_up(n, threads))
        inner = _div_up(os_, simd_w) * _div_up(oc, simd_w)
        inner_eff = f32(inner) / f32(_rnd_up(inner, threads))
        outer = (
            os_ // threads < 512 and several and (outer_eff / inner_eff >= 1 or (os_ * c * oc) // threads < 64 * 1024)
        )
        return GemmJitForward(threads if outer else 1, 1, oc, os_, c, im2col)
    best = _gemm_jit_forward_search(g, threads, l2, simd_w, im2col)
    return GemmJitForward(threads, best[0], best[1], best[2], best[3], best[3] * ks * best[2] if im2col else 0)


def _gemm_jit_forward_search(g: Geometry, threads: int, l2: int, simd_w: int, im2col: int) -> tuple[int, ...]:
    """(nthr_oc, oc block, pixel block, input-channel block) of gemm:jit's forward blocking search
    (``_gemm_jit_forward_conf``), its float arithmetic as oneDNN's (``pow`` in double)."""
    n, c, _h, _w, oc, kh, kw, oh, ow, sh, sw = g[:11]
    f32 = np.float32
    os_, ks = oh * ow, kh * kw
    spatial, k_all = n * os_, c * ks
    min_oc_block, min_os_block = 8, simd_w
    inv_k_sum = float(f32(1.0) / f32(14.5))  # 8 (thread balance) + 6 * 1 + 0.5 (gemm efficiency)
    best = {"eff": f32(0.0), "cfg": (1, 1, 1, c)}

    def max_icb(ocb: int, osb: int, oc_per_thr: int, os_per_thr: int) -> int:
        out, inp, col = ocb * osb, sh * sw * osb, ks * osb
        if im2col:
            if osb >= os_per_thr:
                most = _c_div(l2, inp + col)
                if ocb < oc_per_thr:
                    most = min(most, _c_div(l2 - out, col + ks * ocb))
            else:
                most = _c_div(l2 - out, inp + col + ks * oc_per_thr)
            if most < c:
                most = _c_div(l2 - out, inp + col + ks * oc_per_thr)
            return most
        return _c_div(l2, inp) if osb >= os_per_thr else _c_div(l2, inp + ks * oc_per_thr)

    def try_cfg(nthr_oc: int, ocb: int, osb: int) -> None:
        max_oc, min_oc = _div_up(oc, nthr_oc), max(1, oc // nthr_oc)
        max_os = _div_up(spatial, threads // nthr_oc)
        ocb = _saturate(min_oc_block, max_oc, ocb)
        osb = _saturate(min_os_block, max_os, osb)
        min_os = _div_up(spatial, _div_up(threads, nthr_oc))
        # the largest and smallest share of a thread (balance2D)
        max_thr = max_oc * max_os if oc % nthr_oc > threads % nthr_oc else max(max_oc * min_os, min_oc * max_os)
        min_os = max(1, spatial // _div_up(threads, nthr_oc))
        if threads % nthr_oc > oc % nthr_oc:
            min_thr = min_oc * min_os
        else:
            min_thr = min(max_oc * min_os, min_oc * (spatial // (threads // nthr_oc)))
        thr_disb = f32(min_thr) / f32(max_thr)
        oc_per_thr, os_per_thr = max_oc, max_os
        ocb, os_max = min(oc_per_thr, ocb), min(os_, os_per_thr)
        osb = min(os_max, osb)
        most = max_icb(ocb, osb, oc_per_thr, os_per_thr)
        cost = 20 if most < 1 else 1  # out of the cache
        icb = max(1, c // _div_up(c, max(1, most)))
        nb_ic, kb = _div_up(c, icb), icb * ks
        out_ops = cost * oc_per_thr * _rnd_up(os_per_thr, simd_w) * (1 if icb == c else 2 * nb_ic - 1)
        osb_al = _rnd_up(osb, simd_w)
        inp_size = c * _rnd_up(os_per_thr * sh * sw, simd_w)
        inp_ops = cost * ks * inp_size
        col_ops = 0
        if im2col:
            tail = f32(osb_al) / f32(osb)
            part = f32(ks * inp_size) * tail
            col_ops = int(f32(cost) * (part + part))  # size_t, then scaled in float where strided
            col_ops = int(f32(col_ops) * f32(8.0)) if sw != 1 else col_ops
        wei_ops = cost * oc_per_thr * _rnd_up(k_all, simd_w)
        mem_eff = f32(f32(f32(os_per_thr) / f32(simd_w)) * f32(oc_per_thr)) * f32(k_all)
        mem_eff = mem_eff / f32(inp_ops + col_ops + wei_ops + out_ops)
        oc_disb = f32(oc_per_thr) / f32(_rnd_up(oc_per_thr, ocb))
        os_disb = f32(os_max) / f32(_rnd_up(os_max, osb))
        ic_disb = f32(c) / f32(_rnd_up(c, icb))
        reg_disb = f32(osb) / f32(_rnd_up(osb, 3 * simd_w))
        gemm_eff = f32(f32(osb) * f32(ocb)) * f32(kb) / f32(f32(f32(oc_per_thr) * f32(os_per_thr)) * f32(k_all))
        calc_eff = f32(f32(f32(osb) / f32(simd_w)) * f32(ocb)) * f32(kb)
        calc_eff = calc_eff / f32(osb_al * kb + ocb * _rnd_up(kb, simd_w) + ocb * osb_al)
        prod = float(thr_disb) ** 8.0
        for term in (oc_disb, os_disb, ic_disb, reg_disb, mem_eff):
            prod *= float(term)
        prod = prod * float(gemm_eff) ** 0.5 * float(calc_eff)
        eff = f32(prod**inv_k_sum)
        if eff > best["eff"]:
            best["eff"], best["cfg"] = eff, (nthr_oc, ocb, osb, icb)

    def explore(nthr_oc: int, ocb: int, osb: int) -> None:
        try_cfg(nthr_oc, ocb, osb)
        try_cfg(nthr_oc, _rnd_dn(ocb, 8), _rnd_dn(osb, 48))
        try_cfg(nthr_oc, _rnd_up(ocb, 8), _rnd_dn(osb, 48))
        try_cfg(nthr_oc, _rnd_up(ocb, 8), _rnd_up(osb, min_os_block))
        try_cfg(nthr_oc, _rnd_up(ocb, 8), _rnd_up(osb, 48))

    for nthr_oc in range(1, threads + 1):
        oc_thr, os_thr = _div_up(oc, nthr_oc), _div_up(spatial, threads // nthr_oc)
        if not im2col:
            explore(nthr_oc, oc_thr, _c_div(l2 - ks * c, sh * sw * c))
            continue
        try_cfg(nthr_oc, oc_thr, os_thr)
        if best["cfg"][1:] == (oc_thr, os_thr, c):
            continue
        a_k, b_k = sh * sw + ks, ks * oc_thr
        # every input channel: the largest oc block and pixel block the L2 holds
        ocb = _saturate(min_oc_block, oc_thr, _c_div(l2 - a_k * c * min_os_block - b_k * c, min_os_block))
        explore(nthr_oc, ocb, _saturate(min_os_block, os_thr, _c_div(l2 - b_k * c, a_k * c + ocb)))
        # input-channel blocks that leave room for a block of min_oc_block channels
        icb_max = max(1, _c_div(l2, 2 * min_oc_block * a_k + 2 * b_k))
        if icb_max < c:
            icb = _c_div(c, max(1, _c_div(c, icb_max)))
            osb = max(1, _c_div(l2 - 2 * b_k * icb, 2 * icb * a_k))
            ocb = _c_div(l2 // 2, osb)
            if ocb > oc_thr:
                ocb = oc_thr
                osb = _saturate(min_os_block, os_thr, _c_div(l2 - b_k * icb, a_k * icb + ocb))
            elif osb > os_thr:
                osb = os_thr
                ocb = _saturate(min_oc_block, oc_thr, _c_div(l2 - a_k * icb * osb - b_k * icb, osb))
            explore(nthr_oc, ocb, osb)
        # all of a thread's output channels and input channels
        osb = max(min_os_block, _rnd_dn(_c_div(l2 - b_k * c, a_k * c + oc_thr), min_os_block))
        explore(nthr_oc, oc_thr, osb)
    return best["cfg"]


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


def _reducer_threads(threads: int, job_size: int, njobs: int, reduction: int, max_buffer: int = 1 << 21) -> int:
    """Threads per group of oneDNN's reduce_balancer_t::balance() (cpu_reducer.cpp), buffers of
    ``max_buffer`` floats: how many threads share one weight job, each over its own images."""
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
    kernel where oneDNN's AVX-512 kernel declines (``_avx512_weights_declines``: 4 to 15 input
    channels, its paddings)."""
    if _one_by_one(g):
        return "jit_1x1:avx2" if kind == AVX2 else "jit_1x1:avx512_core"
    if kind == AVX512 and _avx512_weights_declines(g):
        return AVX2
    return kind


def _weight_split(
    kind: str, g: Geometry, threads: int, l1_bytes: int = 32 << 10, groups: int = 1
) -> tuple[list[int], list[int]]:
    """(parts, runs) over the (image, output pixel) pairs (csrc/conv.c conv_bwd_weights_runs) for
    oneDNN's backward-weights kernel ``kind``; ParityError where its thread split is not modelled.
    ``groups``: jit:avx2's over groups (``g`` one group's geometry): its reducer's jobs all groups'."""
    n, oh, ow = g.n, g.oh, g.ow
    ohw = oh * ow
    if groups > 1 and kind != AVX2:
        raise ParityError(f"conv2d backward weights: oneDNN's {kind} over {groups} groups is not modelled")
    if kind == "jit_1x1:avx512_core":
        return _avx512_1x1_weight_split(g, threads, l1_bytes)
    if kind == "jit_1x1:avx2":
        return avx2_1x1_weight_split(g, threads, False)
    if kind == AVX512 and _avx512_rows_harness(g):  # (image, row) units: one chain per thread
        parts = [u * ow for u in _balance211(n * oh, _avx512_image_threads(threads, g))]
        return parts, parts[:-1]
    if kind in (AVX2, AVX512):
        parts = [b * ohw for b in _balance211(n, _image_threads(kind, g, threads, groups))]
        return parts, parts[:-1]  # one chain per thread over its images
    raise ParityError(f"conv2d backward weights: oneDNN's {kind} on {threads} threads is not modelled")


def _avx2_1x1_jobs(g: Geometry, nxc: bool = False) -> tuple[int, int]:
    """(njobs, job_size) of jit_1x1:avx2's backward-weights reducer (jit_avx2_1x1_convolution.hpp
    init_balancers): jobs of nb_load_blocking output-channel blocks of 8 (all of them, halved or
    thirded while above 32) by nb_bcast_blocking input-channel blocks of 8 (halved or thirded while
    above 9; jit_avx2_1x1_conv_kernel_f32.cpp init_conf, blocked layout), job_size their floats.
    ``nxc`` (nhwc memory): the output-channel blocks kept whole where OC is not a multiple of 8, the
    input-channel blocks halved or thirded while above 17 and only where C is a multiple of 8 and
    the input has at most 1,024 pixels (init_conf's modify_load_blocking, modify_bcast_blocking)."""

    def blocking(nb: int, limit: int, modify: bool) -> int:
        while modify and nb > limit and (nb % 2 == 0 or nb % 3 == 0):
            nb //= 2 if nb % 2 == 0 else 3
        return nb

    nb_oc, nb_ic = -(-g.oc // 8), -(-g.c // 8)
    load_blocking = blocking(nb_oc, 32, not nxc or g.oc % 8 == 0)
    bcast_blocking = blocking(nb_ic, 17 if nxc else 9, not nxc or (g.c % 8 == 0 and g.h * g.w <= 1024))
    njobs = -(-nb_oc // load_blocking) * -(-nb_ic // bcast_blocking)
    return njobs, load_blocking * bcast_blocking * 64


def _avx2_1x1_group_threads(g: Geometry, threads: int, nxc: bool = False) -> int:
    """nthr_per_group of jit_1x1:avx2's backward-weights reducer (cpu_reducer.cpp
    reduce_balancer_t::balance over ``_avx2_1x1_jobs``, the reduction N * OH * OW pixels, buffers of
    threads * job_size * 8 floats): how many threads split the (image, pixel) pairs of one weight
    job; 1 (each job on one thread over all the pairs) where there are jobs enough for the threads."""
    njobs, job_size = _avx2_1x1_jobs(g, nxc)
    return _reducer_threads(threads, job_size, njobs, g.n * g.oh * g.ow, threads * job_size * 8)


def avx2_1x1_weight_split(g: Geometry, threads: int, nxc: bool) -> tuple[list[int], list[int]]:
    """(parts, runs) of jit_1x1:avx2's backward weights (jit_avx2_1x1_convolution.cpp
    execute_backward_weights): the (image, pixel) pairs split by balance211 between the threads of a
    reducer group (``_avx2_1x1_group_threads``); per thread and image the kernel calls of oc_ic_sp_loop,
    nb_reduce_blocking pixels each, all that are left where fewer than nb_reduce_blocking_max remain,
    each call's chain from 0 added to the thread's sum. The blocking (init_conf): 128 and 192 pixels
    on blocked memory; on nhwc (``nxc``) min(OW, 128) and half as many again, rounded down."""
    ohw = g.oh * g.ow
    block = min(g.ow, 128) if nxc else 128
    most = block * 3 // 2
    parts = _balance211(g.n * ohw, _avx2_1x1_group_threads(g, threads, nxc))
    runs = []
    for lo, hi in pairwise(parts):
        q = lo
        while q < hi:
            left = min(hi, (q // ohw + 1) * ohw) - q
            runs.append(q)
            q += left if left < most else block
    return parts, runs


def avx2_1x1_reduced(gw: np.ndarray, parts: list[int]) -> None:
    """jit_1x1:avx2's weights reducer (cpu_reducer_2d_t, its driver made with nullify_dst) sums a group's
    buffers into a zeroed register, ``+0 + s0 + s1 ...``: where two or more threads split a weight's
    pixels (``parts``, ``avx2_1x1_weight_split``), a sum of -0 partial sums is +0 (EfficientNet's
    squeeze-excite 1x1s over underflowing products at 4 and 8 threads). Nothing else changes: adding +0
    first leaves every other sum's bits. In place."""
    if len(parts) > 2:
        np.add(gw, np.float32(0), out=gw)


def avx2_1x1_bias_parts(g: Geometry, threads: int, nxc: bool) -> list[int]:
    """``_bias_parts`` of jit_1x1:avx2: its bias reducer (blocks of 8 channels, the images split)
    with buffers of threads * the weights' job size (``_avx2_1x1_jobs``, ``nxc`` for nhwc) * 8 floats."""
    buffer = threads * _avx2_1x1_jobs(g, nxc)[1] * 8
    return [b * g.oh * g.ow for b in _balance211(g.n, _reducer_threads(threads, 8, -(-g.oc // 8), g.n, buffer))]


def _best_divider(value: int, low: int, high: int, find_max: bool) -> int:
    """oneDNN's best_divider: the divider in [low, high] (from high down) whose rounding up of value
    wastes the least (the first such from the top with find_max, the last otherwise)."""
    high = max(1, min(high, value))
    low = max(1, min(low, high))
    best, loss_best = high, float("inf")
    for d in range(high, low - 1, -1):
        up = -(-value // d) * d
        loss = np.float32(up - value) / np.float32(up)
        if (find_max and loss < loss_best) or (not find_max and loss <= loss_best):
            best, loss_best = d, loss
    return best


def _avx512_1x1_balance(g: Geometry, threads: int, cb: int = 16) -> tuple[int, int, int]:
    """(reduce_block, nthr_mb, nthr) of jit_1x1:avx512_core's backward weights
    (jit_avx512_common_1x1_conv_kernel.cpp; a stride above 1 first copies the strided pixels, so
    the kernel sees OH x OW): pixel blocks of best_divider(OH*OW, 7, 16), else of OW; the threads
    over (image, block) units, output- and input-channel blocks of 16 with the lowest memory cost
    of its balance() (the last of equal ones); nthr their product. ``cb`` 8: V1's
    jit_sve_1x1_conv_kernel::balance, the same over blocks of 8 channels."""
    n, c, oc, oh, ow = g.n, g.c, g.oc, g.oh, g.ow
    ohw = oh * ow
    block = _best_divider(ohw, 7, 16, True)
    if ohw % block:
        block = _best_divider(ow, 4, ow, False)
    if block > 256:
        block = 1
    nb_reduce, nb_ic, nb_oc = ohw // block, -(-c // cb), -(-oc // cb)

    def mem(mb: int, ocb: int, icb: int) -> int:
        units = -(-n * nb_reduce // mb)
        return (
            units * -(-nb_ic // icb) * cb * block
            + units * -(-nb_oc // ocb) * cb * block
            + 12 * -(-nb_oc // ocb) * -(-nb_ic // icb) * cb * cb
        )

    best_split, best = (1, 1, 1), mem(1, 1, 1)
    for mb in range(1, min(threads, n * nb_reduce) + 1):
        for ocb in range(1, min(threads // mb, nb_oc) + 1):
            split = (mb, ocb, min(threads // mb // ocb, nb_ic))
            if mem(*split) <= best:
                best_split, best = split, mem(*split)
    nthr_mb, nthr_oc, nthr_ic = best_split
    if threads // 2 < nthr_mb < threads:
        nthr_mb = min(n, threads)
    return block, nthr_mb, nthr_mb * nthr_oc * nthr_ic


def _avx512_1x1_weight_split(
    g: Geometry, threads: int, l1_bytes: int, nxc: bool = False
) -> tuple[list[int], list[int]]:
    """jit_1x1:avx512_core's backward weights (jit_avx512_common_1x1_convolution.cpp): the (image,
    pixel block) units split by balance211 between nthr_mb threads; each thread's kernel calls
    cover up to nb_reduce_blocking blocks of one image (the reduce blocking: the best divider of the
    pixels between max(OH, OW) and all of them, both bounded by the L1 in floats over the kernel's
    unroll (8 or 16 rows; ``KernelProfile.l1_per_core``), in whole blocks), each call a chain from 0
    added to the thread's sum (the first call's chain is the sum); the threads' sums added in order.
    ``nxc`` (nhwc memory, init_conf and the driver): an unroll of 16 rows for at most 16 output
    channels; from 784 pixels and 128 output channels calls of min(OW, 256) pixels rounded up to
    blocks; where C * 4 bytes is a multiple of 1,024 (cache_aliasing) at most 4 blocks a call."""
    n, oh, ow = g.n, g.oh, g.ow
    ohw = oh * ow
    block, nthr_mb, _ = _avx512_1x1_balance(g, threads)
    nb_reduce = ohw // block
    ur = 8 if block <= 19 and not (nxc and g.oc <= 16) else 16
    l1 = l1_bytes // 4 // ur  # the L1 in floats per row of the kernel's unroll
    if nxc and ohw >= 28 * 28 and g.oc >= 128:
        reduce_blocking = -(-min(ow, 256) // block) * block
    else:
        reduce_blocking = _best_divider(ohw, min(l1, max(oh, ow)), min(l1, ohw), True)
        reduce_blocking = max(reduce_blocking // block * block, block)
    step, step_max = reduce_blocking // block, (reduce_blocking * 3 // 2) // block
    if nxc and (g.c * 4) % 1024 == 0:
        step = step_max = min(4, step)
    units = _balance211(n * nb_reduce, nthr_mb)
    return [u * block for u in units], _1x1_calls(units, nb_reduce, ohw, block, step, step_max)


def _1x1_calls(units: list[int], nb_reduce: int, ohw: int, block: int, step: int, step_max: int) -> list[int]:
    """The first (image, pixel) pair of each kernel call of oneDNN's jit_1x1 backward weights: per
    thread's (image, pixel block) units (``units``: balance211's starts), calls of ``step`` blocks
    within an image, the rest of the image (or of the thread's units) in one where below step_max."""
    runs = []
    for lo, hi in pairwise(units):
        u = lo
        while u < hi:
            img, sp = divmod(u, nb_reduce)
            left = min(nb_reduce - sp, hi - u)
            runs.append(img * ohw + sp * block)
            u += left if left < step_max else step
    return runs


def _image_threads(kind: str, g: Geometry, threads: int, groups: int = 1) -> int:
    """How many threads split the images of oneDNN's direct backward-weights kernel ``kind`` (jit:avx2
    over ``groups``: the jobs of every group)."""
    n, c, oc, kh, kw = g.n, g.c, g.oc, g.kh, g.kw
    if kind == AVX2:  # jit_avx2_convolution_bwd_weights_t: cpu_reducer's balance over blocks of 8
        blocks = (1 if c == 3 else -(-c // 8)) * -(-oc // 8)
        return _reducer_threads(threads, kh * kw * (c if c == 3 else 8) * 8, groups * blocks, n)
    return _avx512_image_threads(threads, g)


def _avx512_rows_harness(g: Geometry) -> bool:
    """Whether jit:avx512_core's backward weights runs its 2-D harness (more than 9 output rows:
    the (image, output row) units, not the images, split between threads)."""
    return g.oh > 9


def _avx512_balance(
    threads: int, g: Geometry, block: int = 16, nxc: bool = False, nthreads: int = 0
) -> tuple[int, int, int]:
    """(nthr_mb, nthr_oc_b, nthr_ic_b) of jit_avx512_common_conv_bwd_weights_kernel_f32::balance
    (blocks of 16 channels, fewer than 16 input channels as one block): the split of (images, or
    (image, row) units in the 2-D harness; output-channel blocks; input-channel blocks) between
    threads with the lowest memory cost (src + dst + 8 * weights per thread, the last of equal
    ones), then one with a lower compute cost within 110% of it (or 4/3 cheaper); nthr_mb then
    min(units, threads) where it is above half the threads and below all. ``block`` 8: V1's
    jit_sve_conv_bwd_weights_kernel_f32<sve_256>::balance, the same memory cost over blocks of 8
    channels (1 or 3 input channels its first-convolution block), without the compute step.
    ``nxc``: channels-last memory, where init_conf never takes the 2-D harness. ``nthreads``: the
    team the last step compares against where ``threads`` is one group's share of it (groups)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw = g.n, g.c, g.h, g.w, g.oc, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw
    first = c < 16 if block == 16 else c in (1, 3)
    icb = c if first else block  # its first-convolution kernel: one block of the channels
    nb_ic, nb_oc = -(-c // icb), -(-oc // block)
    rows = _avx512_rows_harness(g) and not nxc
    ih_red, oh_red = (h, oh) if rows else (1, 1)
    ih_keep, oh_keep = (1, 1) if rows else (h, oh)
    units_max = n * max(1, oh_red // 9)

    def up(a: int, b: int) -> int:
        return -(-a // b)

    def mem(nmb: int, noc: int, nic: int) -> int:
        return (
            up(n * ih_red, nmb) * up(nb_ic, nic) * icb * ih_keep * wd // sh // sw
            + up(n * oh_red, nmb) * up(nb_oc, noc) * block * oh_keep * ow
            + 8 * up(nb_oc, noc) * up(nb_ic, nic) * kh * kw * icb * block
        )

    def comp(nmb: int, noc: int, nic: int) -> int:
        return up(n * oh_red, nmb) * up(nb_oc, noc) * up(nb_ic, nic)

    return balance_search(threads, units_max, nb_oc, nb_ic, mem, comp, block == 16, nthreads)


Split = tuple[int, int, int]  # threads over (images or units, output-channel blocks, input-channel blocks)


def balance_search(threads: int, units_max: int, nb_oc: int, nb_ic: int, mem: Callable[..., int],
                   comp: Callable[..., int], refine: bool, nthreads: int = 0) -> Split:  # fmt: skip
    """jit:avx512_core's backward-weights balance (2-D and 3-D): of the splits (nmb units, noc
    output-channel blocks, the rest's input-channel blocks) the one of the lowest ``mem`` (the last of
    equal ones), then with ``refine`` one of a lower ``comp`` within 110% of its memory (or 4/3
    cheaper); nmb then min(units_max, nthreads) where it is above half of ``nthreads`` (all the
    threads; ``threads`` where not given) and below all of them. With groups ``threads`` is
    nthreads // groups, so that last step never applies."""
    splits = [
        (nmb, noc, min(threads // nmb // noc, nb_ic))
        for nmb in range(1, min(threads, units_max) + 1)
        for noc in range(1, min(threads // nmb, nb_oc) + 1)
    ]
    best, best_mem = (1, 1, 1), mem(1, 1, 1)
    for split in splits:
        if mem(*split) <= best_mem:
            best, best_mem = split, mem(*split)
    best_comp = comp(*best)
    for split in splits if refine else []:
        cost = comp(*split)
        if (cost <= best_comp and mem(*split) < 1.1 * best_mem) or 4 * cost <= 3 * best_comp:
            best, best_comp = split, cost
    team = nthreads or threads
    nmb = min(units_max, team) if team // 2 < best[0] < team else best[0]
    return nmb, best[1], best[2]


def _avx512_image_threads(threads: int, g: Geometry) -> int:
    """nthr_mb of jit:avx512_core's backward weights (``_avx512_balance``)."""
    return _avx512_balance(threads, g)[0]


def _sse41_k_blocks(k: int) -> list[int]:
    """oneDNN's SSE4.1 sgemm's K blocks (gemm:jit): one chain for K <= 256, two halves (the first rounded
    up) below 512, else blocks of 256; each block's chain from 0, added to C."""
    return copy_k_blocks(SGEMM_SSE41, k)


def _run_weights(dy, x, gw, g, parts, runs, fused: bool, dil: tuple[int, int] = (1, 1)) -> None:
    part = np.array(parts, np.int64)
    run = np.array(runs, np.int64)
    _lib().conv_bwd_weights_runs_dilated(
        *g, *dil, ptr(dy), ptr(x), ptr(gw), ptr(part), len(part) - 1, ptr(run), len(run), int(fused), None
    )


def _bias_parts(kind: str, g: Geometry, threads: int, groups: int = 1, nxc: bool = False) -> list[int]:
    """Parts of oneDNN's diff_bias, as the first (image, output pixel) pair of each and the number
    of pairs: the AVX2 kernels' own reduce_balancer_t over blocks of 8 channels splitting the
    images (jit:avx2 over ``groups``: every group's blocks); jit:avx512_core's bias reducer (blocks
    of 16 channels, the threads of its weights' balance, buffers of threads * 6400 floats) or, in
    its 2-D harness, the kernel's (image, row) units of each thread; jit_1x1:avx512_core's reducer
    like jit:avx512_core's. ``nxc``: channels-last memory (jit:avx512_core's images' harness always)."""
    n, oc = g.n, g.oc
    if kind == AVX512 and _avx512_rows_harness(g) and not nxc:  # in the kernel, per thread over its (image, row) units
        return [u * g.ow for u in _balance211(n * g.oh, _avx512_image_threads(threads, g))]
    if kind == AVX512:  # the images' harness: its bias reducer over blocks of 16 channels
        nmb, noc, nic = _avx512_balance(threads, g, nxc=nxc)
        nthr = nmb * noc * nic
        return [b * g.oh * g.ow for b in _balance211(n, _reducer_threads(nthr, 16, -(-oc // 16), n, nthr * 6400))]
    if kind == "jit_1x1:avx512_core":  # its reducer over the threads of its weights' balance
        nthr = _avx512_1x1_balance(g, threads)[2]
        return [b * g.oh * g.ow for b in _balance211(n, _reducer_threads(nthr, 16, -(-oc // 16), n, nthr * 6400))]
    if kind == "jit_1x1:avx2":  # its bias reducer: buffers of threads * the weights' job size * 8 floats
        return avx2_1x1_bias_parts(g, threads, False)
    if (threads > 1 or groups > 1) and kind != AVX2:
        raise ParityError(f"conv2d backward bias: oneDNN's {kind} on {threads} threads is not modelled")
    return [b * g.oh * g.ow for b in _balance211(n, _reducer_threads(threads, 8, groups * -(-oc // 8), n))]


def _avx2_data_chunk(ow: int) -> int:
    """Output channels per chunk of jit:avx2's backward data (jit_avx2_conv_bwd_data_kernel_f32
    init_conf): nb_oc_blocking blocks of 8, 4 below 15 output columns, 2 below 40, else 1."""
    return 8 * (4 if ow < 15 else 2 if ow < 40 else 1)


def _terms_chunked(oc: int, kh: int, kw: int, chunk: int) -> np.ndarray:
    """jit:avx2's backward-data terms (stride 1): per chunk of ``chunk`` output channels
    (``_avx2_data_chunk``) a part, in it per block of 8 channels (kh, kw, channel) (csrc/conv.c
    conv_bwd_data_terms)."""
    terms: list[tuple[int, int, int]] = []
    for c0 in range(0, oc, chunk):
        if c0:
            terms.append((-1, 0, 0))
        for b0 in range(c0, min(oc, c0 + chunk), 8):
            terms.extend((o, i, j) for i in range(kh) for j in range(kw) for o in range(b0, min(oc, b0 + 8)))
    return np.array(terms, np.int64).reshape(-1, 3)


def _strided_columns(g: Geometry, iw: int, iw_block: int, kw: int) -> int:
    """How many of the M = ceil(iw_block / SW) output columns a brgemm call of brgconv_strided's
    exec_base covers for input column ``iw`` and tap ``kw`` (``get_iw_range``: the columns left of
    the output and right of it taken off, the output column by C's truncating division)."""
    m = -(-iw_block // g.sw)
    ow = _c_div(iw - kw + g.pw, g.sw)
    left, right = max(0, -ow), max(0, ow + m - g.ow)
    first = min(iw + left, iw + m)
    return min(max(first + m - left - right, first), iw + m) - first


def _strided_kw_calls(g: Geometry, iw: int, iw_block: int) -> tuple[list[list[int]], ...]:
    """The brgemm calls' taps of brgconv_strided's exec_base for the input columns of one (iw block,
    stride residue) group starting at ``iw`` (``get_kw_range`` and the kernel's kw loops), in its three
    phases: the taps kw of the group's residue whose output columns overflow the block on the left,
    one call each, from the first; the taps whose M columns all lie in the output, one call; the rest,
    one call each."""
    m = -(-iw_block // g.sw)
    reach = [kw for kw in range(g.kw) if _strided_columns(g, iw, iw_block, kw) > 0]
    if not reach:
        return [], [], []
    full = [kw for kw in reach if _strided_columns(g, iw, iw_block, kw) == m]
    kw_s, kw_f = reach[0], reach[-1] + 1
    full_s, full_f = (full[0], full[-1] + 1) if full else (kw_f, kw_f)
    residue = (iw + g.pw) % g.sw
    kw_s += (residue - kw_s) % g.sw
    full_s += (residue - full_s) % g.sw
    if kw_s >= g.kw:
        return [], [], []
    if (full_f - full_s) % g.sw and full_f < kw_f:
        raise ParityError("conv2d backward data: brgconv_strided's kw ranges off the stride's residue not modelled")
    left = [[kw] for kw in range(kw_s, full_s, g.sw)]
    middle = [list(range(full_s, full_f, g.sw))] if full_s < full_f else []
    return left, middle, [[kw] for kw in range(full_f, kw_f, g.sw)]


class StridedBlocking(NamedTuple):
    """brgconv_strided's blocking of its backward data (exec_base, f32): the block of input columns,
    of kernel rows, of input rows and of input channels, the brgemm unroll, the efficiency estimate."""

    iw_block: int
    kh_block: int
    ih_block: int
    ic_block: int
    unroll: int
    eff: float


def _brgemm_unroll(simd: int, m: int, n: int, k: int, l1_bytes: int) -> int:
    """The brgemm kernel's row block (``brgemm_blocking``, f32, not AMX: ``bd_block``) of an M x N x K
    call: 4 vectors of N a row (fewer where N has fewer), the most rows the registers hold (16 on
    AVX2, which then loads B one vector at a time; 32 on AVX-512), then the block with the best
    M-rounding times microkernel efficiency whose rows of A fit the L1."""
    regs = 32 if simd == 16 else 16
    per_row = max(1, 4 if n // simd >= 4 else (n // simd) % 4)
    one_load = simd == 8 and per_row == 4
    most = min((regs - (1 if one_load else per_row) - (0 if one_load else 1)) // (per_row + one_load), regs // per_row)
    best, block = np.float32(0), most
    for rows in range(most, 0, -1):
        disb = np.float32(m) / np.float32(_rnd_up(m, rows))
        micro = np.float32(np.float32(per_row) * np.float32(rows)) / np.float32((per_row + rows) * most)
        if 4 * rows * k <= l1_bytes and disb * micro > best:
            block, best = rows, np.float32(disb * micro)
    return block


def _strided_jobs(
    g: Geometry, threads: int, work: int, ic_block: int, iw_block: int, by_pixel: bool, groups: int = 1
) -> list[int]:
    """Per thread the work of brgconv_strided's estimate (``est_eff``'s job balance): balance211 of its
    ``work`` units, each the columns times channels of the unit its iterator stands on, the iterator
    over (image, row, column block, group, channel block) with every row, not row block, stepped as the
    estimate steps it (by_pixel: loop_ndhwgc, two steps a unit; else one in each loop order)."""
    sp = _rnd_up(g.w, g.sw)  # the columns rounded up to the stride (the same where it divides W)
    nb_sp, nb_ic = _div_up(sp, iw_block), _div_up(g.c, ic_block)
    pixel_dims = [g.n, 1, g.h, nb_sp, groups, nb_ic]  # n, d, row, column block, group, channel block
    channel_dims = [g.n, groups, nb_ic, 1, g.h, nb_sp]  # n, group, channel block, d, row, column block

    def step(state: list[int], dims: list[int]) -> None:
        for i in range(len(dims) - 1, -1, -1):
            state[i] += 1
            if state[i] < dims[i]:
                return
            state[i] = 0

    jobs = []
    starts = _balance211(work, threads)
    for t in range(threads):
        start, end = starts[t], starts[t + 1]
        dims = pixel_dims if by_pixel else channel_dims
        state, rest = [], start
        for d in reversed(dims):
            state.append(rest % d)
            rest //= d
        state.reverse()
        job = 0
        for _ in range(start, end):
            block, icb = (state[3], state[5]) if by_pixel else (state[5], state[2])
            job += min(sp - block * iw_block, iw_block) * min(g.c - icb * ic_block, ic_block)
            if by_pixel:
                step(state, pixel_dims)
                step(state, pixel_dims)
            else:  # one step in the other loop order's terms, then one in its own
                nn, grp, icb, d, row, block = state
                moved = [nn, d, row, block, grp, icb]
                step(moved, pixel_dims)
                nn, d, row, block, grp, icb = moved
                state = [nn, grp, icb, d, row, block]
                step(state, channel_dims)
        jobs.append(job)
    return jobs


Loop = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]  # src, dst, weights: (size, n, m)


def loop_costs(loops: list[Loop], ops: tuple[int, int, int], l1: int, l2: int,
               ks: tuple[np.float32, np.float32, np.float32]) -> list[np.float32]:  # fmt: skip
    """The memory costs of the brgemm blocking estimators' loop nest (brg_blocking_t's io_k, float32):
    from the innermost loop out, each operand's per-access cost ``pk`` becomes (pk + k*(times - 1)) /
    times over the loop's times = n * m, k the L1 factor for the broadcast source whose block fits L1,
    the L2 one where the loop's three blocks fit L2, else the memory one (``ks``: L1, L2, memory, the
    last also the starting cost); then each operand's cost times its ``ops`` and its loops' repeats."""
    f = np.float32

    def io_k(loop: Loop, arr: tuple[int, int, int], pk: np.float32, broadcast: bool) -> np.float32:
        times = f(f(arr[1]) * f(arr[2]))
        if times < 1:
            return f(0)
        if times == 1:
            return pk
        amount = 4 * (loop[0][0] + loop[1][0] + loop[2][0])
        k = ks[0] if broadcast and 4 * loop[0][0] < l1 else ks[1] if amount < l2 else ks[2]
        return f(f(pk + f(k * f(times - 1))) / times)

    mem = [ks[2]] * 3
    repeats = [f(1)] * 3
    for loop in reversed(loops):
        for i in range(3):
            mem[i] = io_k(loop, loop[i], mem[i], i == 0)
            repeats[i] = f(repeats[i] * f(loop[i][1]))
    return [f(mem[i] * f(f(op) * repeats[i])) for i, op in enumerate(ops)]


def _strided_eff(g: Geometry, threads: int, simd: int, l1: int, l2: int, b: StridedBlocking, groups: int = 1) -> float:
    """brgconv_strided's efficiency estimate of a blocking (``brg_blocking_t::est_eff``, f32 on AVX2 or
    AVX-512): input-channel rounding, microkernel, column rounding, thread balance, unroll rounding,
    cache traffic (its loops' reuse costs against the L1 and L2) and brgemm efficiency, in float32 as
    oneDNN's; the columns rounded up to the stride (``sp``: exec_trans, where the stride does not
    divide W). ``groups``: ``g`` is one group's geometry; the threads' work counts every group's."""
    f = np.float32
    n, c, h, _wd, oc, kh, kw, _oh, ow, _sh, sw = g[:11]
    sp = _rnd_up(g.w, sw)
    regs = 32 if simd == 16 else 16
    ur, sp_block, ic_block = b.unroll, b.iw_block, b.ic_block
    icblock, nb_ic = ic_block // simd, _div_up(c, ic_block)
    nb_ih, nb_sp, nb_kh = _div_up(h, b.ih_block), _div_up(sp, sp_block), _div_up(kh, b.kh_block)
    by_pixel = not (g.oh * ow < c * kh * kw)  # loop_ndhwgc unless the output is smaller than a filter
    micro = f(f(icblock) * f(ur)) / f((ur + icblock) * regs)
    ur_eff = f(sp_block) / f(_rnd_up(sp_block, ur))
    kk = f(ur * f(f(2) - min(f(1.9), f(f(ur) / f(sp_block))))) / f(64)
    brgemm_eff = f(f(f(2) - 1 + kk) / f(2))  # squeezed by 0.5
    sp_amount = nb_ih * nb_sp
    work = n * groups * nb_ic * sp_amount
    job = _div_up(work, threads)
    if job < threads:
        jobs = _strided_jobs(g, threads, work, ic_block, sp_block, by_pixel, groups)
        job_eff = f(1) if max(jobs) == 0 else f(f(sum(jobs)) / f(max(jobs) * threads))
    else:
        job_eff = f(work) / f(_rnd_up(work, threads))

    def inp_w(out_w: int, ker_w: int) -> int:
        return min(ow, (out_w - 1) * min(ker_w, sw) + ker_w)

    def rnd_inp(out_w: int, ker_w: int, voc: int) -> int:
        vsp = inp_w(out_w, ker_w)
        return _rnd_up(vsp * voc, simd) if sw == 1 and voc >= oc else vsp * _rnd_up(voc, simd)

    # (src, dst, weights) per loop, innermost first: (size, repeats, overlap)
    loops = []
    src_is = rnd_inp(ur, kw, oc)
    loops.append(((inp_w(ur, kw) * simd, 1, simd), (0, 1, 1), (ic_block, 1, 1)))
    loops.append(((src_is, 1, kw), (0, 1, 1), (ic_block * oc, 1, 1)))
    loops.append(((src_is, 1, 1), (0, 1, 1), (kw * ic_block * oc, 1, 1)))
    wei_is = b.kh_block * kw * ic_block * oc
    loops.append(((b.kh_block * src_is, 1, 1), (ur * ic_block, 1, 1), (wei_is, _div_up(sp_block, ur), 1)))
    loops.append(((b.kh_block * rnd_inp(sp_block, kw, oc), 1, 1), (sp_block * ic_block, nb_kh, 1), (wei_is, 1, 1)))
    loops.append(((kh * rnd_inp(sp_block, kw, oc), 1, 1), (sp_block * ic_block, 1, 1), (kh * kw * ic_block * oc, 1, 1)))
    nb_ic_thr = min(nb_ic, _div_up(job, 1 if by_pixel else sp_amount))
    nsimd_ic_thr = _div_up(min(c, nb_ic_thr * ic_block), simd)
    dim_sp = groups * nb_ic if by_pixel else 1
    sp_thr = min(sp, min(nb_sp, _div_up(job, dim_sp)) * sp_block)
    nb_ih_thr = min(nb_ih, _div_up(job, nb_sp * dim_sp))
    ih_thr = min(h, nb_ih_thr * b.ih_block)
    nb_id_thr = min(1, _div_up(job, nb_ih * nb_sp * dim_sp))
    src_is = kh * rnd_inp(sp_block, kw, oc)
    wei_op = kh * kw * icblock * oc
    if by_pixel:
        wei_op = kh * kw * nsimd_ic_thr * oc
        loops.append(((src_is, nb_ic_thr, 1), (sp_block * ic_block, 1, 1), (kh * kw * ic_block * oc, 1, 1)))
    rnd_ic_sp = simd * (nsimd_ic_thr if by_pixel else icblock)
    loops.append(((src_is, 1, 1), (sp_block * rnd_ic_sp, 1, 1), (wei_op * simd, min(nb_sp, _div_up(job, dim_sp)), 1)))
    src_is = kh * rnd_inp(sp_thr, kw, oc)
    loops.append(((b.ih_block * src_is, 1, 1), (sp_thr * rnd_ic_sp, 1, 1), (wei_op * simd, nb_ih_thr, 1)))
    loops.append(((ih_thr * src_is, 1, 1), (ih_thr * sp_thr * rnd_ic_sp, 1, 1), (wei_op * simd, nb_id_thr, 1)))
    if not by_pixel:
        loops.append(
            ((ih_thr * src_is, nb_ic_thr, 1), (ic_block * ih_thr * sp_thr, 1, 1), (kh * kw * ic_block * oc, 1, 1))
        )
    mb_thr = min(n, _div_up(job, sp_amount * groups * nb_ic))
    loops.append(((ih_thr * src_is, 1, 1), (ih_thr * sp_thr * nsimd_ic_thr * simd, 1, 1),
                  (kh * kw * nsimd_ic_thr * simd * oc, mb_thr, 1)))  # fmt: skip
    src_op = mb_thr * ih_thr * sp_thr * kh * kw * oc
    dst_op = mb_thr * ih_thr * sp_thr * nsimd_ic_thr
    wei_op = kh * kw * nsimd_ic_thr * oc
    loops.append(((src_op, 1, 1), (dst_op * simd, 1, 1), (wei_op * simd, 1, 1)))

    costs = loop_costs(loops, (src_op, dst_op, wei_op), l1, l2, (f(1), f(3), f(15)))
    calls = job * nb_kh
    cache_eff = f(n * h * sp * oc * c) / f(threads * f(f(f(costs[0] + costs[1]) + costs[2]) + f(calls)))
    eff = f(f(c) / f(_rnd_up(c, ic_block)))
    sp_eff = f(f(sp) / f(_rnd_up(sp, sp_block)))
    for term in (micro, sp_eff, job_eff, ur_eff, cache_eff, brgemm_eff):
        eff = f(eff * term)
    return float(eff)


def _strided_blocking(g: Geometry, threads: int, simd: int, l1: int, l2: int, groups: int = 1) -> StridedBlocking:
    """brgconv_strided's blocking (``calc_blocks`` within ``init_conf``'s search over input-channel
    blocks of 4, 3, 2, 1 vectors): per channel block and kernel-row block (KH, then SH), the row block
    the L2 and the threads allow, then each column block dividing W, a multiple of SW and at most what
    the threads allow (W / ns for ns = 1, 2, ...), scored by ``_strided_eff``; the first best kept.
    ``groups``: ``g`` is one group's geometry; the threads' shares count every group's work (and the
    row block's, over 32 channels a group)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    f = np.float32
    l_ovf, t_ovf = max(0, kw - 1 - pw) // sw, max(0, kh - 1 - ph) // sh
    r_ovf = max(0, kw - 1 - _end_pad(pw, ow, wd, sw, kw)) // sw
    b_ovf = max(0, kh - 1 - _end_pad(ph, oh, h, sh, kh)) // sh
    owp, ohp = ow + l_ovf + r_ovf, oh + t_ovf + b_ovf
    sp = _rnd_up(wd, sw)  # exec_trans (the stride not dividing W): the columns rounded up to it
    best: StridedBlocking | None = None
    for vectors in range(min(_div_up(c, simd), 4), 0, -1):
        ic_block = vectors * simd
        rnd_ic = _rnd_up(c, simd)
        if ic_block == 64 and not (rnd_ic % 64 == 0 and rnd_ic * 4 < 768):
            continue
        if ic_block == 48 and not (rnd_ic % 48 == 0 and rnd_ic <= 384 and oh * ow > 81 * sh * sw):
            continue
        nb_ic = _div_up(c, ic_block)
        most = int(f(f(n * groups * nb_ic * h * wd) + f(f(0.9) * threads) - 1) / f(f(0.9) * threads))
        most = min(max(1, most), wd)
        most = _rnd_up(most, sw) if sp != wd else most
        found: StridedBlocking | None = None
        for kh_block in [kh, sh] if kh != 1 else [kh]:
            row_bytes = 2 * 4 * oc * owp + 4 * wd * ic_block
            other = 4 * kh * kw * oc * ic_block + 4 * 2 * 16 * ic_block
            room = min(_div_up(l2, 2), 0 if other > l2 else l2 - other)
            ih_block = max(1, min(h, room // row_bytes)) if ohp * row_bytes > room else h
            share = _div_up(threads, n * _div_up((groups if c > 32 else 1) * c, ic_block))
            ih_block = min(ih_block, _div_up(h, share))
            while (ih_block % sh != 0 or (h % sh == 0 and h % ih_block != 0)) and ih_block < h:
                ih_block += 1
            previous = 0
            for ns in range(1, sp + 1):
                iw_block = _div_up(sp, ns)
                if iw_block == previous or iw_block > most or iw_block % sw or (sp == wd and wd % iw_block):
                    continue
                previous = iw_block
                unroll = _brgemm_unroll(
                    simd, _div_up(iw_block, sw), ic_block if c >= ic_block else c % ic_block, oc, l1
                )
                cand = StridedBlocking(iw_block, kh_block, ih_block, ic_block, unroll, 0.0)
                eff = _strided_eff(g, threads, simd, l1, l2, cand, groups)
                if (found is None or eff > found.eff) and eff >= float(f(0.00001)):
                    found = cand._replace(eff=eff)
        if found is not None and (best is None or found.eff > best.eff):
            best = found
    if best is None:
        raise ParityError("conv2d backward data: brgconv_strided finds no blocking (not modelled)")
    return best


def brgconv_strided_data(
    dy: np.ndarray, w: np.ndarray, g: Geometry, simd: int, profile: KernelProfile, groups: int = 1
) -> np.ndarray:
    """brgconv_strided's grad_input (a kernel over 1x1 at a stride; ``simd`` floats a vector: 16 at
    avx512_core, 8 at avx2) of one group's grad_output and weights, ``g`` that group's geometry of
    ``groups`` (the blocking search counts every group's work; each group's sums are the one-group
    kernel's): exec_base where the stride divides W (``_brgconv_strided_data``), else exec_trans."""
    blocking = _strided_blocking(g, profile.threads, simd, profile.l1_per_core, profile.l2_per_core, groups)
    if g.w % g.sw == 0:  # exec_base: its brgemm calls per block of input columns
        return _brgconv_strided_data(dy, w, g, blocking.iw_block, blocking.kh_block)
    gx = np.empty((g.n, g.c, g.h, g.w), np.float32)
    _brgconv_trans_data(dy, w, g, blocking.kh_block, gx)
    return gx


def _brgconv_trans_data(dy: np.ndarray, w: np.ndarray, g: Geometry, kh_block: int, gx: np.ndarray) -> None:
    """brgconv_strided's backward data where the stride does not divide W (exec_trans,
    jit_brgemm_conv_bwd_strided.cpp, output channels in one block) into gx: per input element one
    brgemm call per block of ``kh_block`` kernel rows of its blocking (``_strided_blocking``: all KH
    rows, or SH rows, which hold one tap row of an input row each), each a chain from 0 over (kh, kw,
    channel), the calls' sums added in order (csrc/conv.c conv_bwd_data_terms)."""
    lib = _lib()
    if kh_block == g.kh:
        lib.conv_bwd_data_direct(*g, ptr(dy), ptr(w), ptr(gx), 0, 1, 0, 0)
        return
    terms: list[tuple[int, int, int]] = []
    for rows in _row_blocks(g, kh_block):
        terms.extend([(-1, 0, 0)] * bool(terms) + [(o, i, j) for i in rows for j in range(g.kw) for o in range(g.oc)])
    t = np.array(terms, np.int64).reshape(-1, 3)
    lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(t), len(t), 1)


def _strided_row_calls(
    g: Geometry, phases: tuple[list[list[int]], ...], kh_block: int
) -> list[tuple[range, list[int]]]:
    """exec_base's brgemm calls as (kernel rows, taps kw), in ker_base's order: its three kw phases
    (``_strided_kw_calls``), each over the blocks of kernel rows (all KH rows, or SH rows: one tap row
    of an input row each: ``_row_blocks``) outside its calls."""
    return [(rows, call) for phase in phases for rows in _row_blocks(g, kh_block) for call in phase]


def _row_blocks(g: Geometry, kh_block: int) -> list[range]:
    """brgconv_strided's blocks of kernel rows: all KH rows, or SH rows (``kh_block`` below KH), each
    of which holds one tap row of an input row, so a row at a time gives the same sums."""
    return [range(g.kh)] if kh_block == g.kh else [range(i, i + 1) for i in range(g.kh)]


def _brgconv_strided_data(dy: np.ndarray, w: np.ndarray, g: Geometry, iw_block: int, kh_block: int) -> np.ndarray:
    """brgconv_strided's backward data where the stride divides the input width (exec_base,
    jit_brgemm_conv_bwd_strided.cpp): per input row, block of ``iw_block`` input columns and stride
    residue, the brgemm calls of ``_strided_kw_calls`` by blocks of ``kh_block`` kernel rows
    (``_strided_row_calls``), each over (its kernel rows, its taps kw) and then every output channel
    (K = OC), its chain from 0 added to the calls before (csrc/conv.c conv_bwd_data_terms, one part a
    call)."""
    lib = _lib()
    gx = np.empty((g.n, g.c, g.h, g.w), np.float32)
    done: dict[tuple, np.ndarray] = {}
    for start in range(0, g.w, iw_block):
        for iw in range(start, min(g.w, start + g.sw)):
            calls = _strided_kw_calls(g, iw, iw_block)
            key = tuple(tuple(map(tuple, phase)) for phase in calls)
            if key not in done:
                terms: list[tuple[int, int, int]] = []
                for rows, call in _strided_row_calls(g, calls, kh_block):
                    if terms:
                        terms.append((-1, 0, 0))
                    terms.extend((o, i, j) for i in rows for j in call for o in range(g.oc))
                t = np.array(terms, np.int64).reshape(-1, 3)
                done[key] = np.zeros_like(gx)
                lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(done[key]), ptr(t), len(t), 1)
            cols = slice(iw, min(g.w, start + iw_block), g.sw)
            gx[..., cols] = done[key][..., cols]
    return gx


# brg_conv_bwd, as measured: ker_base's rows taken whole up to this input width; per vector width
# (V1 8, V2 4) and kernel size (taps), the most output channels measured where select_ic_block's L1
# and L2 caps (not ported) bind nowhere (V1's 7x7 kernels with 320 and 600 channels: blocks of 312)
_BRG_BWD_ROW = 200
_BRG_BWD_CHANNELS = {8: ((9, 700), (25, 700), (49, 128)), 4: ((9, 700), (25, 700), (49, 600))}


def _brg_bwd_ic_block(oc: int, simd_w: int) -> int:
    """brg_conv_bwd's reduction block: the forward it runs takes grad_output's channels as its input
    channels and blocks them as its select_ic_block does (L1/L2 caps not binding where measured): up to
    5 * simd_w vectors, the most whose count leaves the blocks at least half full, the whole at most."""
    vectors = _div_up(oc, simd_w)
    blocks = 1
    for nb in range(min(5 * simd_w, vectors), 0, -1):
        if 2 * vectors >= _rnd_up(vectors, nb):
            blocks = nb
            break
    return min(oc, blocks * simd_w)


def _brg_bwd_terms(g: Geometry, ic_block: int) -> np.ndarray:
    """brg_conv_bwd's backward-data terms (stride 1): oneDNN runs the forward brgemm convolution of
    grad_output with the weights' channels swapped and their taps inverted, padding KW - 1 - PW, so
    each forward tap (a, b) is the backward tap (KH - 1 - a, KW - 1 - b). Its brgemm kernels load C
    where beta is 1: one fused chain over every call, in order: per block of ``ic_block`` output
    channels (its ic chunks), the call of ker_vpad where the forward's row fits its input (IW <= OW:
    ker_vpad, tried first, is kept where its row block fits), all taps (a, b) row by row; otherwise
    ker_base over the row as one block: the forward taps b valid for only part of the row left of
    those valid for all of it (a group), those (b, over all a), the rest right of them (a group); a
    left or right group's calls per b over all a where KW >= KH (kh_block_pad = KH), else per a over
    the group's b; in a call the block's channels innermost. A part's end never occurs."""
    calls = brg_bwd_calls(g)
    terms = [
        (o, g.kh - 1 - a, g.kw - 1 - b)
        for c0 in range(0, g.oc, ic_block)
        for rows, cols in calls
        for a in rows
        for b in cols
        for o in range(c0, min(g.oc, c0 + ic_block))
    ]
    return np.array(terms, np.int64).reshape(-1, 3)


def brg_bwd_calls(g: Geometry) -> list[tuple[list[int], list[int]]]:
    """brg_conv_bwd's brgemm calls (stride 1) as (forward kernel rows, forward taps kw), in order:
    ker_vpad's one call over every tap where the forward's row fits its input, else ker_base's over
    the row as one block (``_brg_bwd_terms``)."""
    kh, kw = g.kh, g.kw
    fwd_ow, fwd_iw, lpad = g.w, g.ow, kw - 1 - g.pw
    valid, full = [], []
    for b in range(kw):
        count = sum(1 for o in range(fwd_ow) if 0 <= o - lpad + b < fwd_iw)
        if count:
            valid.append(b)
        if count == fwd_ow:
            full.append(b)
    if fwd_ow <= fwd_iw:
        calls = [(list(range(kh)), list(range(kw)))]
    else:
        left = [b for b in valid if not full or b < full[0]]
        right = [b for b in valid if full and b > full[-1]]
        calls = []
        for group in (left, full, right):
            if group is full:
                calls.append((list(range(kh)), full))
            elif kw >= kh:
                calls.extend((list(range(kh)), [b]) for b in group)
            else:
                calls.extend(([a], group) for a in range(kh))
    return calls


def _brg_bwd_data(dy: np.ndarray, w: np.ndarray, g: Geometry, simd_w: int, threads: int) -> np.ndarray:
    """grad_input as oneDNN's brg_conv_bwd runs it at stride 1 (``simd_w`` floats a vector: 8 on V1,
    4 on V2): one fused chain per element in ``_brg_bwd_terms``' order. ParityError outside the
    measured shapes (named in the message)."""
    taps = g.kh * g.kw
    most = next((oc for size, oc in _BRG_BWD_CHANNELS[simd_w] if taps <= size), 0)
    if taps > 1 and g.oc > most:  # one tap: the chain runs over the blocks in order, whatever they are
        raise ParityError(
            f"conv2d backward data: brg_conv_bwd with {g.oc} output channels and a {g.kh}x{g.kw} kernel (its ic "
            f"blocks, {_brg_bwd_ic_block(g.oc, simd_w)} by its rule, measured up to {most} channels there) is "
            "not modelled"
        )
    ic_block = _brg_bwd_ic_block(g.oc, simd_w)
    if g.w > g.ow and g.w > _BRG_BWD_ROW:
        raise ParityError(
            f"conv2d backward data: brg_conv_bwd's ker_base on rows of {g.w} (its row blocks measured up to "
            f"{_BRG_BWD_ROW}) is not modelled"
        )
    if g.w > g.ow and g.n * g.h < threads:  # calc_blocks caps the row block below the row: not measured
        raise ParityError(
            f"conv2d backward data: brg_conv_bwd's ker_base with {g.n * g.h} rows on {threads} threads is not modelled"
        )
    gx = np.empty((g.n, g.c, g.h, g.w), np.float32)
    terms = _brg_bwd_terms(g, ic_block)
    _lib().conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
    return gx


def conv2d_backward(
    dy: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride,
    padding,
    has_bias: bool,
    profile: KernelProfile,
    mask: tuple[bool, bool, bool] = (True, True, True),
    kind: str | None = None,
    dilation: tuple[int, int] = (1, 1),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """``aten.convolution_backward``: (grad_input, grad_weight, grad_bias), each None where ``mask``
    (output_mask) leaves it out or, for the bias, there is none. ParityError where the impl has no
    model of the kernel torch runs (see the module's docstring). ``kind``: the kernel to run
    (``path``'s choice where None); ``dilation`` other than (1, 1): ``_dilated_backward``."""
    dy, x, w = f32(dy), f32(x), f32(w)
    g = _geometry(x.shape, w.shape, stride, padding, dilation)
    if tuple(dilation) != (1, 1):
        return _dilated_backward(dy, x, w, g, tuple(dilation), has_bias, profile, mask, kind)
    oc, kh, kw, sh, sw = g.oc, g.kh, g.kw, g.sh, g.sw
    kind = kind or path(x.shape, w.shape, stride, padding, profile)
    gx = gw = gb = None
    if kind == THNN:
        return _thnn_backward(dy, x, w, g, has_bias, profile, mask)
    if kind == GEMM_JIT and profile.aten in ("avx2", "avx512"):
        return _vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, mask)
    if kind in (SSE41, GEMM_JIT):
        return _gemm_jit_backward(dy, x, w, g, has_bias, profile, mask)
    if kind == SVE256:
        return _sve256_backward(dy, x, w, g, has_bias, mask, profile.threads)
    if kind == ACL_REF:
        # V2 at stride 1: brg_conv_bwd:sve_128 from 13 input channels, gemm:ref below (measured on 36
        # shapes of 10 to 15 channels and every shape of the probes above and below) and where a kernel
        # side is no longer than the padding (measured at four threads: a 1x4 kernel with padding 2)
        if (
            mask[0]
            and profile.name == "arm64-sve128"
            and (sh, sw) == (1, 1)
            and g.c >= 13
            and not _kernel_outside_src(g)
        ):
            gx = _brg_bwd_data(dy, w, g, 4, profile.threads)
            _, gw, gb = _ref_backward(dy, x, w, g, has_bias, (False, mask[1], mask[2]), profile.threads)
            return gx, gw, gb
        return _ref_backward(dy, x, w, g, has_bias, mask, profile.threads)
    data_kind = "jit_1x1" if _one_by_one(g) else direct_kernels(g, kind, profile)[1]
    if data_kind == IP_CONV:
        raise ParityError("conv2d backward: oneDNN's ip_convolution (an inner product, brgemm matmul) is not modelled")
    weights_kind = "jit_1x1" if _one_by_one(g) else direct_kernels(g, kind, profile)[2]
    if data_kind == GEMM_JIT and mask[0]:
        gx = _vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, (True, False, False))[0]
    if weights_kind == GEMM_JIT and (mask[1] or mask[2]):
        _, gw, gb = _vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, (False, mask[1], mask[2]))
        mask = (mask[0], False, False)
    lib = _lib()
    brg_simd = 16 if kind == AVX512 and data_kind == BRG_STRIDED else 8  # brgconv_strided:avx2 below it
    if mask[0] and data_kind != GEMM_JIT:
        gx = np.empty_like(x)
        if data_kind == AVX512:
            lib.conv_bwd_data_direct(*g, ptr(dy), ptr(w), ptr(gx), 16, 1, 0, 1)
        elif (sh, sw) != (1, 1) and not _one_by_one(g):
            if not (np.isfinite(dy).all() and np.isfinite(w).all()):
                # its exec_trans multiplies the weights by grad_output's zeros past OW (inf * 0: NaN where the
                # model skips the tap; measured at avx2 and avx512_core, a 3x3 at stride 2 over 9 columns)
                raise ParityError(
                    "conv2d backward data: brgconv_strided's grad_input over NaN or infinite operands (NaNs where "
                    "the model has numbers: taps past grad_output's edge, inf * 0) not modelled"
                )
            gx = brgconv_strided_data(dy, w, g, brg_simd, profile)
        elif _one_by_one(g) and kind == AVX2 and (sh, sw) == (1, 1):
            # jit_1x1:avx2 (stride 1; a strided 1x1 runs brgconv_strided:avx2 here, one chain): a
            # kernel call per 64 output channels (init_conf's reduce_blocking for backward data),
            # each call's chain from 0 over its channels, added to the output
            terms = _terms_chunked(oc, 1, 1, 64)
            lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
        elif _one_by_one(g) and kind == AVX512 and (sh, sw) == (1, 1):
            # jit_1x1:avx512_core: a kernel call per block of output channels
            # (``avx512_1x1_reduce_block``), each call's chain from 0, added to the output
            terms = _terms_chunked(oc, 1, 1, avx512_1x1_reduce_block(g, profile.threads, True))
            lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
        elif _one_by_one(g):  # jit_1x1: one chain over (kh, kw, channel)
            lib.conv_bwd_data_direct(*g, ptr(dy), ptr(w), ptr(gx), 0, 1, 0, 0)
        else:  # jit:avx2: chunks of 1, 2 or 4 blocks of 8 channels, each chunk's chain from 0, added
            terms = _terms_chunked(oc, kh, kw, _avx2_data_chunk(g.ow))
            lib.conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(terms), len(terms), 1)
    if mask[1]:
        gw = np.empty_like(w)
        parts, runs = _weight_split(_weights_kernel(kind, g), g, profile.threads, profile.l1_per_core)
        _run_weights(dy, x, gw, g, parts, runs, True)
        if _weights_kernel(kind, g) == "jit_1x1:avx2":
            avx2_1x1_reduced(gw, parts)
    if mask[2] and has_bias:
        gb = _bias_grad(dy, _bias_parts(_weights_kernel(kind, g), g, profile.threads))
    return gx, gw, gb


def _gemm_jit_conf(g: Geometry, threads: int, weights: bool, simd_w: int = 4, groups: int = 1) -> tuple[int, int]:
    """(threads, os_block) of oneDNN's gemm:jit backward (gemm_convolution_utils.cpp init_conf,
    NCHW; simd_w the floats of a vector register: 4 at SSE4.1, 8 at AVX2, 16 at AVX512_CORE): outer
    threading (the images split between all threads, each sgemm on one)
    or one thread over the images; the output pixels in blocks of os_block where the im2col buffer
    does not fit the room left under the scratchpad's limit (15 * threads * the bytes of src,
    weights and dst, at most 1 GiB): a block of max(4, (int)(room / (4 * threads * C*KH*KW) * coef))
    pixels, coef 0.05f (weights), 0.1f (data). The weights pass books first its reduction buffer,
    ``book<float>(threads * weights_d.size())``: the weights' size in bytes counted as floats, 16
    bytes a weight per thread, plus 128 bytes of alignment (its outer-threading estimate counts the
    weights so too). With ``groups`` (``g`` one group's geometry) the sizes are all groups', the
    outer threading's work the (image, group) pairs and its "more than one image" more than one
    image or more than two groups."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw = g[:11]
    os_, ks, is_ = oh * ow, kh * kw, h * wd
    wei, several, pairs = groups * oc * c * ks, n != 1 or groups > 2, n * groups
    limit = min(1 << 30, 15 * threads * 4 * (groups * n * c * h * wd + wei + groups * n * oc * os_))
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    col = 0 if plain else c * ks * os_
    if weights:
        mem_ok = 4 * threads * 4 * wei + 4 * threads * c * ks * simd_w < limit
        outer = mem_ok and os_ // threads < 256 and several
        nthr = threads if outer else 1
        booked = 4 * nthr * 4 * wei + 128
    else:
        outer_eff = pairs / (-(-pairs // threads) * threads)
        inner = -(-is_ // simd_w) * -(-c // simd_w)
        inner_eff = inner / (-(-inner // threads) * threads)
        outer = (
            (os_ / threads < 512 or ks < 64)
            and several
            and (outer_eff / inner_eff >= 1 or (is_ * c * oc) // threads < 64 * 1024)
        )
        nthr, booked = (threads if outer else 1), 0
    room = limit - booked
    if not col or 4 * nthr * col <= room:
        return nthr, os_
    most = room // (4 * nthr * (col // os_))
    coef = np.float32(0.05 if weights else 0.1)
    return nthr, max(simd_w, int(np.float32(most) * coef))


def _gemm_jit_backward(dy, x, w, g, has_bias, profile, mask, dil: tuple[int, int] = (1, 1),
                       conf: tuple[int, int] | None = None):  # fmt: skip
    """oneDNN's gemm:jit backward (gemm_convolution.cpp, every backward at SSE4.1): per image its
    sgemm (unfused at SSE4.1) and col2im, over blocks of output pixels where the im2col buffer is
    too large (``_gemm_jit_conf``). grad_input: per block, per tap (kh, kw) in order a chain over the
    output channels from 0 (the sgemm's K blocks), added onto zeros (col2im, block by block);
    grad_weight: per image and pixel block a chain over (oh, ow) (the sgemm's K blocks; with one
    output channel or C*KH*KW = 1 the sgemm is oneDNN's gemv_t: csrc/conv.c conv_bwd_weights_gemv),
    the images split evenly between the outer threads, each thread's sum added in order; grad_bias:
    per output row one chain over (ow) in order from the row's first column, added to the channel's
    sum (its ``omp simd`` reduction comes out as one chain: measured on rows of 28 to 600 columns).
    ``dil``: the taps' dilation (im2col's and col2im's); ``conf``: the weights' (threads, os_block)
    where a caller has them (a group's of several, harness.impl.conv_grouped), else ``_gemm_jit_conf``'s."""
    n, c, oc, kh, kw, oh, ow = g.n, g.c, g.oc, g.kh, g.kw, g.oh, g.ow
    lib = _lib()
    gx = gw = gb = None
    if mask[0]:
        os_block = _gemm_jit_conf(g, profile.threads, False)[1]
        if _sse41_data_gemv(g, os_block):
            gx = _vector_gemm_jit_backward(dy, x, w, g, False, profile, (True, False, False), dil=dil)[0]
        else:
            gx = _gemm_jit_data(dy, w, g, os_block, dil)
    if mask[1]:
        nthr, os_block = conf or _gemm_jit_conf(g, profile.threads, True)
        gw = np.empty_like(w)
        ohw = oh * ow
        images = _balance211(n, min(nthr, n))
        if oc == 1 or c * kh * kw == 1:
            part = np.array(images, np.int64)
            col = np.empty(os_block, np.float32)
            lib.conv_bwd_weights_gemv_dilated(
                *g, *dil, ptr(dy), ptr(x), ptr(gw), ptr(part), len(part) - 1, os_block, ptr(col)
            )
        else:
            xz, gz = im2col_zeros(x, dy, g, dil)  # its sgemm multiplies im2col's padding zeros by grad_output
            parts = [b * ohw for b in images]
            runs = [
                b * ohw + s0 + off
                for b in range(n)
                for s0 in range(0, ohw, os_block)
                for off in np.cumsum([0, *_sse41_k_blocks(min(os_block, ohw - s0))[:-1]])
            ]
            _run_weights(dy, xz, gw, gz, parts, [int(r) for r in runs], False, dil)
    if mask[2] and has_bias:
        gb = _gemm_jit_bias(dy, g)
    return gx, gw, gb


def _sse41_data_gemv(g: Geometry, os_block: int) -> bool:
    """Whether one of gemm:jit's grad_input sgemms at SSE4.1 ('N', 'T': M a block's pixels, N =
    C*KH*KW) has one row or one column, which oneDNN's sgemm hands to its gemv kernels (its gemv 'N'
    and jit_sse41_gemv_t_f32_kern, harness.impl.onednn_sgemm) in place of the copy-based chains of
    ``_gemm_jit_data``: an output of one pixel (EfficientNet's 1x1 convolutions after its pooling), a
    last block of one pixel, or one input channel of a 1x1 kernel."""
    os_ = g.oh * g.ow
    return g.c * g.kh * g.kw == 1 or min(os_block, os_) == 1 or os_ % os_block == 1


def _gemm_jit_bias(dy: np.ndarray, g: Geometry) -> np.ndarray:
    """gemm:jit's grad_bias (compiled C++, the same at every ISA level): per output row one chain over
    its columns in order from the first, added to the channel's sum."""
    gb = np.zeros(g.oc, np.float32)
    for b in range(g.n):
        for r in range(g.oh):
            row = dy[b, :, r, :]
            acc = row[:, 0].copy()
            for col in range(1, g.ow):
                acc = acc + row[:, col]
            gb = gb + acc
    return gb


def _gemm_jit_data(
    dy: np.ndarray, w: np.ndarray, g: Geometry, os_block: int, dil: tuple[int, int] = (1, 1)
) -> np.ndarray:
    """gemm:jit's grad_input: per tap its column (a chain over the output channels in the sgemm's
    K blocks, csrc/conv.c conv_bwd_data_terms_dilated with one tap), added onto zeros by col2im: per
    block of os_block output pixels, per tap in order, the pixels of the block that reach the input
    (taps ``dil`` apart)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    lib = _lib()
    gx = np.zeros((n, c, h, wd), np.float32)
    taps = []
    for i in range(kh):
        for j in range(kw):
            terms: list[tuple[int, int, int]] = []
            o0 = 0
            for size in _sse41_k_blocks(oc):
                if terms:
                    terms.append((-1, 0, 0))
                terms.extend((o, i, j) for o in range(o0, o0 + size))
                o0 += size
            t = np.array(terms, np.int64).reshape(-1, 3)
            col = np.empty((n, c, h, wd), np.float32)
            lib.conv_bwd_data_terms_dilated(*g, *dil, ptr(dy), ptr(w), ptr(col), ptr(t), len(t), 0)
            rr = np.arange(h)[:, None] + ph - i * dil[0]
            cc = np.arange(wd)[None, :] + pw - j * dil[1]
            reach = (rr >= 0) & (rr % sh == 0) & (rr // sh < oh) & (cc >= 0) & (cc % sw == 0) & (cc // sw < ow)
            pixel = (rr // sh) * ow + cc // sw
            taps.append((col, reach, pixel // os_block))
    for block in range(-(-(oh * ow) // os_block)):
        for col, reach, blocks in taps:
            at = reach & (blocks == block)
            gx[:, :, at] += col[:, :, at]
    return gx


def _simd_w(profile: KernelProfile) -> int:
    """Floats in oneDNN's vector register at the profile's level (platform::get_vector_register_size)."""
    return {"avx512": 16, "avx2": 8}.get(profile.aten, 4)


def _plain(g: Geometry) -> bool:
    """gemm:jit needs no im2col buffer: a 1x1 kernel at stride 1 without padding."""
    return (g.kh, g.kw, g.sh, g.sw, g.ph, g.pw) == (1, 1, 1, 1, 0, 0)


def _vector_gemm_jit_calls(
    g: Geometry, profile: KernelProfile, which: int, groups: int = 1
) -> list[tuple[object, int]]:
    """(sgemm call, threads it sees) of each sgemm of gemm:jit's pass ``which`` (0 forward, 1 backward
    data, 2 backward weights) at AVX2 or AVX512_CORE, ``g`` one group's geometry of ``groups``: the
    forward per piece of its blocking (over the (image, group) pairs) and input-channel block;
    backward data per pixel block and (image, group) pair ('N', 'T': M the pixels, K the output
    channels); backward weights per pixel block and (image, group) pair ('T', 'N': M = C*KH*KW, N
    the output channels, K the pixels). An sgemm inside the pass's parallel region (more than one
    thread) sees one thread, else all of them."""
    from harness.impl.onednn_sgemm import Call

    n, c, oc, os_, ks = g.n, g.c, g.oc, g.oh * g.ow, g.kh * g.kw
    simd, col = _simd_w(profile), not _plain(g)
    calls: list[tuple[object, int]] = []
    if which == 0:
        conf = _gemm_jit_forward_conf(g, profile.threads, profile.l2_per_core, simd, groups)
        inner = 1 if conf.nthr > 1 else profile.threads
        for _im, s0, s1, o0, o1 in _gemm_jit_forward_pieces(g._replace(n=n * groups), conf):
            for c0 in range(0, c, conf.ic_block):
                k = (min(c0 + conf.ic_block, c) - c0) * ks
                calls.append((Call(False, False, s1 - s0, o1 - o0, k, s1 - s0 if col else os_, c * ks, os_), inner))
        return calls
    nthr, os_block = _gemm_jit_conf(g, profile.threads, which == 2, simd, groups)
    inner = 1 if nthr > 1 else profile.threads
    for s0 in range(0, os_, os_block):
        m = min(os_block, os_ - s0)
        if which == 1:
            call = Call(False, True, m, c * ks, oc, os_, c * ks, m if col else os_)
        else:
            call = Call(True, False, c * ks, oc, m, m if col else os_, os_, c * ks)
        calls.extend([(call, inner)] * (n * groups))
    return calls


def _vector_gemm_jit_forward(x, w, b, g: Geometry, profile: KernelProfile, groups: int = 1,
                             dil: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """oneDNN's gemm:jit forward at AVX2 or AVX512_CORE (execute_forward_ncsp; ``g`` one group's
    geometry of ``groups``, x, w, b all of them): per piece of its blocking (``_gemm_jit_forward_pieces``
    over the (image, group) pairs) and input-channel block in order one sgemm (im2col rows (channel,
    kh, kw); beta 0 for the first block, 1 after; harness.impl.onednn_sgemm), the bias added after
    the last block; ``dil`` the taps' dilation (im2col's)."""
    from harness.impl.onednn_sgemm import sgemm

    n, c, h, wd, oc, kh, kw, oh, ow = g[:9]
    os_, ks, isa = oh * ow, kh * kw, isa_of(profile)
    conf = _gemm_jit_forward_conf(g, profile.threads, profile.l2_per_core, _simd_w(profile), groups)
    calls = iter(_vector_gemm_jit_calls(g, profile, 0, groups))
    pairs = np.ascontiguousarray(x).reshape(n * groups, c, h, wd)  # (image, group) pairs
    y = np.zeros((n * groups, oc, oh, ow), np.float32)
    yf, wf, xf = y.reshape(-1), w.reshape(-1), pairs.reshape(-1)
    cols = {}
    for im, s0, s1, o0, o1 in _gemm_jit_forward_pieces(g._replace(n=n * groups), conf):
        grp = im % groups
        if not _plain(g) and im not in cols:
            cols = {im: _im2col(pairs[im], kh, kw, g.sh, g.sw, g.ph, g.pw, oh, ow, *dil)}
        for c0 in range(0, c, conf.ic_block):
            call, threads = next(calls)
            if _plain(g):
                a, ao = xf, (im * c + c0) * os_ + s0
            else:
                a, ao = np.ascontiguousarray(cols[im][c0 * ks : c0 * ks + call.k, s0:s1]).reshape(-1), 0
            bo = (grp * oc + o0) * c * ks + c0 * ks
            sgemm(isa, threads, call, a, ao, wf, bo, int(c0 > 0), yf, (im * oc + o0) * os_ + s0)
        if b is not None:
            part = y[im, o0:o1].reshape(o1 - o0, os_)
            part[:, s0:s1] = part[:, s0:s1] + b[grp * oc + o0 : grp * oc + o1, None]
    return y.reshape(n, groups * oc, oh, ow)


def _vector_gemm_jit_backward(
    dy, x, w, g: Geometry, has_bias: bool, profile: KernelProfile, mask, groups: int = 1, dil: tuple[int, int] = (1, 1)
):
    """oneDNN's gemm:jit backward at AVX2 or AVX512_CORE (execute_backward_data_ncsp,
    execute_backward_weights_ncsp; harness.impl.onednn_sgemm's sgemm; ``g`` one group's geometry of
    ``groups``). grad_input: per (image, group) pair and block of output pixels its sgemm into
    columns, added by col2im onto zeros tap by tap (or, without an im2col buffer, written in place);
    grad_weight: bwd_weights_balance gives min(groups, threads) threads the groups and splits the
    images of a group between the threads left for it where its threads reduce (more than one image
    and thread); each thread per image and pixel block one sgemm onto its own sum (beta 0 first), a
    group's threads' sums then added in order onto 0; grad_bias as at SSE4.1 (``_gemm_jit_bias``).
    ``dil``: the taps' dilation (im2col's and col2im's)."""
    from harness.impl.onednn_sgemm import sgemm

    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    os_, ks, isa, simd = oh * ow, kh * kw, isa_of(profile), _simd_w(profile)
    gx = gw = gb = None
    dyf, wf = np.ascontiguousarray(dy).reshape(-1), w.reshape(-1)
    xs = np.ascontiguousarray(x).reshape(n * groups, c, h, wd)
    if mask[0]:
        os_block = _gemm_jit_conf(g, profile.threads, False, simd, groups)[1]
        calls = iter(_vector_gemm_jit_calls(g, profile, 1, groups))
        gx = np.zeros((n * groups, c, h, wd), np.float32)
        for s0 in range(0, os_, os_block):
            for im in range(n * groups):
                call, threads = next(calls)
                wo = (im % groups) * oc * c * ks
                if _plain(g):
                    sgemm(isa, threads, call, dyf, im * oc * os_ + s0, wf, wo, 0, gx.reshape(-1), im * c * os_ + s0)
                    continue
                col = np.empty(call.m * call.n, np.float32)
                sgemm(isa, threads, call, dyf, im * oc * os_ + s0, wf, wo, 0, col, 0)
                _col2im_block(col.reshape(call.n, call.m), gx[im], g, s0, dil)
        gx = gx.reshape(n, groups * c, h, wd)
    if mask[1]:
        nthr, os_block = _gemm_jit_conf(g, profile.threads, True, simd, groups)
        calls = _vector_gemm_jit_calls(g, profile, 2, groups)
        reduce = n != 1 and nthr != 1  # need_wei_reduction
        nthr_mb = min(n if reduce else 1, nthr // min(groups, nthr))
        images = _balance211(n, nthr_mb)
        gw = np.empty((groups, oc * c * ks), np.float32)
        for grp in range(groups):
            total = np.zeros(oc * c * ks, np.float32)
            for t0, t1 in pairwise(images):
                part = np.zeros(oc * c * ks, np.float32)
                for b in range(t0, t1):
                    im = b * groups + grp
                    cols = None if _plain(g) else _im2col(xs[im], kh, kw, sh, sw, ph, pw, oh, ow, *dil)
                    for s0 in range(0, os_, os_block):
                        call, threads = calls[(s0 // os_block) * n * groups + im]
                        if cols is None:
                            a, ao = xs.reshape(-1), im * c * os_ + s0
                        else:
                            a, ao = np.ascontiguousarray(cols[:, s0 : s0 + call.k]).reshape(-1), 0
                        sgemm(isa, threads, call, a, ao, dyf, im * oc * os_ + s0, int(b > t0 or s0 > 0), part, 0)
                total = part if nthr_mb == 1 else total + part  # one thread a group: its sgemms write grad_weight
            gw[grp] = total
        gw = gw.reshape(w.shape)
    if mask[2] and has_bias:
        gb = _gemm_jit_bias(dy, g._replace(oc=groups * oc))
    return gx, gw, gb


def _thnn_backward(dy, x, w, g, has_bias, profile, mask, dil: tuple[int, int] = (1, 1)):
    """ATen's slow_conv2d_backward: per image MKL gemms; grad_input's columns added back by col2im.
    ``dil`` other than (1, 1): slow_conv_dilated2d's backward (slow_conv_dilated_all_cpu_template:
    the same gemms over im2col and col2im with the dilation; grad_bias zeros, each image's sum over
    (OH, OW) added)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    k, m = c * kh * kw, oh * ow
    plain = (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0)
    gx = gw = gb = None
    if mask[0]:
        gx = np.empty_like(x)
        prof = profile if n == 1 else profile.with_threads(1)
        # every image's gemm into one column buffer, 1x1 kernels too (measured: MKL's alignment peel
        # follows an aligned buffer, not grad_input's image offset), then added back by col2im
        cols = aligned(k * m).reshape(k, m)
        for t in range(n):
            _thnn_gemm("nt", m, k, oc, dy[t].reshape(-1), m, w.reshape(-1), k, 0.0, cols.reshape(-1), m, prof)
            gx[t] = _col2im(cols, c, h, wd, kh, kw, sh, sw, ph, pw, oh, ow, *dil)
    if mask[1]:
        gw = np.zeros_like(w)
        # the images' columns in one aligned buffer (compute_columns2d's finput, image t k * m floats in)
        finput = None if plain else aligned(n * k * m).reshape(n, k * m)
        for t in range(n):  # a serial loop: MKL on all threads
            if finput is None:
                cols = x[t].reshape(-1)
            else:
                finput[t] = _im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow, *dil).reshape(-1)
                cols = finput[t]
            _thnn_gemm("tn", k, oc, m, cols, m, dy[t].reshape(-1), m, 1.0, gw.reshape(-1), k, profile)
    if mask[2] and has_bias:
        from harness.impl.reduce import sum_dims

        gb = sum_dims(dy, (0, 2, 3), profile)
        if dil != (1, 1):
            gb = np.zeros(oc, np.float32)
            for t in range(n):
                gb = gb + sum_dims(dy[t], (1, 2), profile)
    return gx, gw, gb


def _bias_grad(dy: np.ndarray, parts: list[int]) -> np.ndarray:
    """oneDNN's diff_bias: per part of the (image, oh, ow) pairs (``_bias_parts``), per channel a
    chain of additions from 0 over its pairs, the parts' sums added in order."""
    oc = dy.shape[1]
    pairs = dy.transpose(1, 0, 2, 3).reshape(oc, -1)
    total = np.zeros(oc, np.float32)
    for p, (lo, hi) in enumerate(pairwise(parts)):
        flat = pairs[:, lo:hi]
        acc = np.zeros(oc, np.float32)
        for i in range(flat.shape[1]):
            acc = acc + flat[:, i]
        total = total + acc if p else acc
    return total


# ACL's fixed-format fp32 kernels by profile (N1: NEON; V2: SVE at 128 bits, 4VL = 16 and 3VL = 12
# columns; V1: SVE at 256 bits, 32 and 24 columns): their names and arm_gemm's performance parameters
# for its cycle estimates, the hybrid's MACs per cycle (V2: the bracket within which every measured
# choice comes out, its header's 15.27 would miss one; V1: V2's bracket and the header's value) and
# the interleaved one's MACs, prepared bytes and merged bytes per cycle; the hybrid's and the
# interleaved kernel's columns, the L1 sizes its K block may come from and the column counts its
# 1.15 penalty may be taken over (V1: neither measured, so each candidate is computed and the impl
# refuses where they disagree)
class _AclKernels(NamedTuple):
    hybrid: str
    interleaved: str
    hybrid_macs: tuple[float, ...]
    interleaved_rates: tuple[float, float, float]
    columns: tuple[int, int] = (16, 12)
    l1_sizes: tuple[int, ...] = (32 << 10,)
    penalty_columns: tuple[int, ...] = (16,)


_ACL_PARAMS = {
    "arm64-neon": _AclKernels(
        "a64_ffhybrid_fp32_mla_6x16", "a64_ffinterleaved_fp32_mla_8x12", (13.16, 13.16), (12.56, 9.83, 3.02)
    ),
    "arm64-sve128": _AclKernels(
        "sve_ffhybrid_fp32_mla_6x4VL", "sve_ffinterleaved_fp32_mla_8x3VL", (14.46, 15.12), (13.51, 9.27, 3.98)
    ),
    "arm64-sve256": _AclKernels(
        "sve_ffhybrid_fp32_mla_6x4VL",
        "sve_ffinterleaved_fp32_mla_8x3VL",
        (14.46, 15.12, 15.27),
        (13.51, 9.27, 3.98),
        (32, 24),
        (32 << 10, 64 << 10),
        (16, 32),
    ),
}


def _roundup(v: int, m: int) -> int:
    return -(-v // m) * m


def _acl_k_block(k: int, columns: int = 12, l1_bytes: int = 32 << 10) -> int:
    """GemmInterleaved's K block: half of the L1 (32 KiB) over its columns of floats (12: 341), then K
    cut into that many equal blocks (rounded up)."""
    most = (l1_bytes // 2) // (4 * columns)
    return -(-k // -(-k // most))


def acl_gemm_kernel(batches: int, m: int, n: int, k: int, threads: int, profile: str = "arm64-neon") -> str:
    """arm_gemm's choice between its two fixed-format fp32 kernels: the lower cycle estimate (float32
    arithmetic, truncated to integers), the interleaved kernel (listed first) on a tie. Hybrid:
    batches*M*roundup(N, 16)*K / MACs per cycle, times 1.15 where N < 16 or 16 < N < 32.
    Interleaved: MACs over roundup(M, 8) x roundup(N, 12) + prepared bytes roundup(M, 8)*K*4 +
    merged bytes (K blocks)*M*roundup(N, 12)*4, each over its rate, scaled by threads / (0.9 *
    batches * ceil(M / 8)) where that is above 1 (V1: 32 and 24 columns). ParityError where the
    candidate parameters (the hybrid's bracket of MACs per cycle on V2; on V1 also the L1 size and
    the penalty's columns) leave the choice open."""
    kernels = _ACL_PARAMS[profile]
    f = np.float32
    macs_rate, prep_rate, merge_rate = (f(r) for r in kernels.interleaved_rates)
    hybrid_cols, cols = kernels.columns
    picks = set()
    for l1 in kernels.l1_sizes:
        blocks = -(-k // _acl_k_block(k, cols, l1))
        total = f(batches * _roundup(m, 8) * _roundup(n, cols) * k) / macs_rate
        total = f(total + f(batches * _roundup(m, 8) * k * 4) / prep_rate)
        total = f(total + f(batches * blocks * m * _roundup(n, cols) * 4) / merge_rate)
        parallel = f(f(batches * -(-m // 8)) * f(0.9))
        if parallel < threads:
            total = f(total * f(f(threads) / parallel))
        for rate in kernels.hybrid_macs:
            for pc in kernels.penalty_columns:
                macs = f(batches * m * _roundup(n, hybrid_cols) * k) / f(rate)
                if n < pc or pc < n < 2 * pc:
                    macs = f(macs * f(1.15))
                picks.add(kernels.interleaved if int(total) <= int(macs) else kernels.hybrid)
    if len(picks) > 1:
        raise ParityError(
            f"conv2d forward ({profile}): ACL's choice between {kernels.hybrid} and {kernels.interleaved} "
            "depends on a cycle-estimate parameter not pinned down (measured bracket)"
        )
    return picks.pop()


def acl_kernel(g: Geometry, profile: str = "arm64-neon", threads: int = 1) -> str:
    """The ACL kernel of the forward: indirect_gemm's batches of M = OH*OW; gemm:acl (1x1 kernels)
    the same where one batch of N*OH*OW rows gives the same choice (always on one thread), else
    ParityError (which of the two it passes is not measured)."""
    k = g.c * g.kh * g.kw
    kernel = acl_gemm_kernel(g.n, g.oh * g.ow, g.oc, k, threads, profile)
    if (g.kh, g.kw) == (1, 1) and acl_gemm_kernel(1, g.n * g.oh * g.ow, g.oc, k, threads, profile) != kernel:
        raise ParityError(f"conv2d forward ({profile}, {threads} threads): gemm:acl's shape for arm_gemm not measured")
    return kernel


def _acl_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: Geometry, profile: KernelProfile) -> np.ndarray:
    """ACL's forward (module docstring): one chain from the bias over (kh, kw, channel) with the
    hybrid kernel; the interleaved one's K blocks from 0, the bias added to the first (csrc/conv.c
    conv_fwd_terms, fused). V2 runs oneDNN's brgconv_1x1:sve_128 (``_brgconv_1x1_forward``) for strided
    1x1 kernels from 13 output channels (measured at 1, 2 and 4 threads: 8 to 12 ACL's gemm:acl, 13 to
    256 brgconv_1x1); at stride 1 gemm:acl (measured up to 96 output channels at two threads and 256
    at four, refused above; one thread below 16 images runs ATen's); a padded 1x1 kernel at stride 1
    brgconv:sve_128 in the same order (measured from 14 output channels; gemm:ref at 5 and 8,
    ``_ref_forward``, refused from 9 to 13), a padded strided one gemm:acl (ACL's rule). N1 runs
    gemm:ref's forward for a padded 1x1 at stride 1 (measured at four threads, 13 of 13). V1's
    forwards handed to ACL come here too: its hybrid kernel; the interleaved one refused. Refused
    too: V2's interleaved pick where a kernel side lies within the padding (measured once at 3 and 8
    threads: the hybrid kernel's order ran there, while N1 ran the interleaved one it picks)."""
    padded, stride_1 = (g.ph, g.pw) != (0, 0), (g.sh, g.sw) == (1, 1)
    v2_ref = profile.name == "arm64-sve128" and g.oc <= 8
    if (g.kh, g.kw) == (1, 1) and padded and stride_1 and (profile.name == "arm64-neon" or v2_ref):
        return _ref_forward(x, w, b, g)  # N1, and V2 at 5 and 8 output channels (measured)
    if profile.name == "arm64-sve128" and (g.kh, g.kw) == (1, 1):
        if stride_1 and (g.oc > 256 if not padded else 8 < g.oc < 14):
            which = "gemm:ref or brgconv:sve_128" if padded else "gemm:acl or brgconv_1x1:sve_128"
            raise ParityError(f"conv2d forward on V2: this 1x1 convolution's kernel ({which}) is not measured")
        # brgconv_1x1:sve_128 (strided) and brgconv:sve_128 (padded, stride 1): the same order; a padded
        # strided 1x1 gemm:acl
        if (not stride_1 and not padded and g.oc >= 13) or (stride_1 and padded):
            return _brgconv_1x1_forward(x, w, b, g, profile.name)
    k = g.c * g.kh * g.kw
    order = [(c, i, j) for i in range(g.kh) for j in range(g.kw) for c in range(g.c)]
    interleaved = acl_kernel(g, profile.name, profile.threads) == _ACL_PARAMS[profile.name].interleaved
    # V2, a 1x4 kernel with padding 2 (measured once): the hybrid order ran, N1's interleaved as picked
    if interleaved and profile.name == "arm64-sve128" and _kernel_outside_src(g):
        raise ParityError(
            f"conv2d forward ({profile.name}): ACL's kernel where a kernel side lies within the padding and its "
            "estimate picks the interleaved one is not measured"
        )
    if interleaved and profile.name == "arm64-sve256":  # measured once: no K blocking of fused chains gave its bits
        raise ParityError("conv2d forward on V1: ACL's sve_ffinterleaved_fp32_mla_8x3VL (256 bits) is not modelled")
    block = _acl_k_block(k) if interleaved else k
    terms: list[tuple[int, int, int]] = []
    for k0 in range(0, k, block):
        if k0:
            terms.append((-1, 0, 0))
        terms.extend(order[k0 : k0 + block])
    t = np.array(terms, np.int64).reshape(-1, 3)
    y = np.empty((g.n, g.oc, g.oh, g.ow), np.float32)
    bias = None if b is None else ptr(b)
    _lib().conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(t), len(t), 1, 2 if interleaved else 1)
    return y


def _col2im_block(cols: np.ndarray, im: np.ndarray, g: Geometry, s0: int, dil: tuple[int, int] = (1, 1)) -> None:
    """oneDNN's col2im of one block of output pixels (from s0; cols (C*KH*KW, pixels)): per tap
    (kh, kw) in order (taps ``dil`` apart), each pixel's column added to the input element it
    reaches (one per tap)."""
    c, kh, kw, ow, sh, sw, ph, pw = g.c, g.kh, g.kw, g.ow, g.sh, g.sw, g.ph, g.pw
    pixels = np.arange(s0, s0 + cols.shape[1])
    taps = cols.reshape(c, kh, kw, -1)
    for i in range(kh):
        for j in range(kw):
            iy, ix = (pixels // ow) * sh - ph + i * dil[0], (pixels % ow) * sw - pw + j * dil[1]
            at = (iy >= 0) & (iy < g.h) & (ix >= 0) & (ix < g.w)
            im[:, iy[at], ix[at]] += taps[:, i, j, at]


def _ref_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: Geometry) -> np.ndarray:
    """oneDNN's gemm:ref forward (gemm_convolution_fwd_t, NCHW; N1 and V2 run it for a padded 1x1 at
    stride 1): per image im2col, then ``ref_sgemm("N", "N")`` with M = OH*OW, N = OC, K = C*KH*KW
    and beta 0 into the output, the bias added after. Measured with K up to 36 (one K block: each
    element one fused chain from 0, then the bias); ParityError above 256 (the sgemm's K blocks,
    and their thread split, not measured on this call)."""
    n, c, _, _, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    os_, ks = oh * ow, c * kh * kw
    if ks > 256:
        raise ParityError(f"conv2d forward: oneDNN's gemm:ref over K = {ks} (its K blocks) is not measured")
    y = np.empty((n, oc, oh, ow), np.float32)
    for t in range(n):
        col = np.ascontiguousarray(_im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow)).reshape(-1)
        ref_sgemm(False, False, os_, oc, ks, col, os_, w.reshape(-1), ks, 0.0, y[t].reshape(-1), os_, 1)
    if b is not None:
        y += b.reshape(1, oc, 1, 1)
    return y


def _ref_backward(dy, x, w, g, has_bias, mask, threads: int = 1):
    """oneDNN's gemm:ref backward on aarch64 (module docstring), over blocks of output pixels where
    the im2col buffer exceeds the scratchpad limit; threads as init_conf gives them (``_gemm_jit_conf``,
    the same code as x86's gemm:jit): outer threading splits the images, each sgemm on one thread
    (grad_weight: balance211's parts of the images, each from 0, added in order), else every sgemm
    on all threads (``_ref_sgemm``)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    os_, ks = oh * ow, c * kh * kw
    plain = (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0)
    gx = gw = gb = None
    if mask[0]:
        gx = np.empty_like(x)
        nthr, block = _gemm_jit_conf(g, threads, False)
        inner = 1 if nthr > 1 else threads
        for t in range(n):
            dyt = np.ascontiguousarray(dy[t]).reshape(-1)
            if plain:  # no im2col: the sgemm writes grad_input
                ref_sgemm(False, True, os_, ks, oc, dyt, os_, w.reshape(-1), ks, 0.0, gx[t].reshape(-1), os_, inner)
                continue
            im = np.zeros((c, h, wd), np.float32)
            for s0 in range(0, os_, block):
                size = min(block, os_ - s0)
                col = np.empty(ks * size, np.float32)
                ref_sgemm(False, True, size, ks, oc, dyt[s0:], os_, w.reshape(-1), ks, 0.0, col, size, inner)
                _col2im_block(col.reshape(ks, size), im, g, s0)
            gx[t] = im
    if mask[1]:
        nthr, block = _gemm_jit_conf(g, threads, True)
        inner = 1 if nthr > 1 else threads
        total = np.empty(oc * ks, np.float32)
        images = _balance211(n, min(nthr, n))
        for part, (b0, b1) in enumerate(pairwise(images)):
            acc = np.empty(oc * ks, np.float32)
            for t in range(b0, b1):
                cols = x[t].reshape(c, h * wd) if plain else _im2col(x[t], kh, kw, sh, sw, ph, pw, oh, ow)
                dyt = np.ascontiguousarray(dy[t]).reshape(-1)
                for s0 in range(0, os_, block):
                    size = min(block, os_ - s0)
                    cols_part = np.ascontiguousarray(cols[:, s0 : s0 + size]).reshape(-1)
                    beta = 0.0 if t == b0 and s0 == 0 else 1.0
                    ref_sgemm(True, False, ks, oc, size, cols_part, size, dyt[s0:], os_, beta, acc, ks, inner)
            total = acc if part == 0 else total + acc
        gw = total.reshape(w.shape)
    if mask[2] and has_bias:
        gb = np.zeros(oc, np.float32)
        for t in range(n):
            for r in range(oh):
                row = dy[t, :, r, :]
                lanes = [np.zeros(oc, np.float32), np.zeros(oc, np.float32)]
                for col_ in range(ow):
                    lanes[col_ % 2] = lanes[col_ % 2] + row[:, col_]
                gb = (gb + lanes[0]) + lanes[1]
    return gx, gw, gb


def _sve256_jit_declines(g: Geometry) -> bool:
    """Where V1's jit:sve_256 forward may hand a convolution to ACL's indirect_gemm (its init_conf
    not read). Measured on 16 variations of 2x16x5x6 with 40 5x5 kernels, stride 3, padding 2: ACL
    wherever the width padding is 2 and OW is 2 or 3 (kernel widths 3 to 5, strides 2 and 3, any
    height), jit:sve_256 at padding 1 down to OW = 2, at padding 2 from OW = 4; padding 3 measured on
    a 7x7 kernel at OW 16 (ResNet's first convolution: jit:sve_256), other padding above 2 not
    measured: also declining here (refused by the caller). And where a kernel side is no longer than
    the padding (``_kernel_outside_src``: measured at two threads on 1x3 and 3x1 kernels with
    padding 1, ACL's forward and gemm:ref backward). Where it declines, ACL's forward
    (``_acl_forward``: its hybrid kernel, measured at four threads)."""
    above = g.pw > 3 or (g.pw == 3 and (g.kw != 7 or g.ow <= 3))
    return above or (g.pw == 2 and g.ow <= 3) or _kernel_outside_src(g)


# brgconv_1x1's forward: the input channels measured per core (V1 sve_256 and V2 sve_128 at 1, 2 and
# 4 threads; from 65 to 256 at four)
_BRGCONV_1X1_CHANNELS = {"arm64-sve256": 256, "arm64-sve128": 256}


def _brgconv_1x1_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: Geometry, core: str) -> np.ndarray:
    """oneDNN's brgconv_1x1 forward (V1's sve_256, V2's sve_128; a strided 1x1 kernel): its brgemm
    kernels load C where beta is 1, so each output is one fused chain from 0 over the input channels
    (every ic block's call continuing it), the bias added after. ParityError above the channels
    measured (``_BRGCONV_1X1_CHANNELS``)."""
    most = _BRGCONV_1X1_CHANNELS[core]
    if g.c > most:
        raise ParityError(
            f"conv2d forward: brgconv_1x1 with {g.c} input channels (measured up to {most} on {core}) is not modelled"
        )
    y = np.empty((g.n, g.oc, g.oh, g.ow), np.float32)
    t = _terms_blocked(g.c, 1, 1, g.c)
    _lib().conv_fwd_terms(*g, ptr(x), ptr(w), None if b is None else ptr(b), ptr(y), ptr(t), len(t), 1, 0)
    return y


def _sve256_forward(
    x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: Geometry, profile: KernelProfile
) -> np.ndarray:
    """V1's forward, one thread: jit:sve_256 (not 1x1) per block of 8 input channels a fused chain from
    0 over (kh, kw, channel), the bias added to the first block's sum, the further blocks' sums added
    (its store_output); jit_1x1:sve_256 (1x1, stride 1) one chain from the bias over the channels;
    brgconv_1x1:sve_256 (1x1 strided) and brgconv:sve_256 (a padded 1x1 at stride 1)
    ``_brgconv_1x1_forward``; ACL's (``_acl_forward``) where jit:sve_256 declines
    (``_sve256_jit_declines``) and for a padded strided 1x1 (gemm:acl). The same on more threads
    (they split images, rows and channel blocks; measured at 2 and 4)."""
    y = np.empty((g.n, g.oc, g.oh, g.ow), np.float32)
    bias = None if b is None else ptr(b)
    lib = _lib()
    if (g.kh, g.kw) == (1, 1):
        if (g.ph, g.pw) != (0, 0) and (g.sh, g.sw) != (1, 1):  # gemm:acl
            return _acl_forward(x, w, b, g, profile)
        if (g.ph, g.pw) != (0, 0):  # brgconv:sve_256: brgconv_1x1's order, the padding's outputs the bias
            return _brgconv_1x1_forward(x, w, b, g, "arm64-sve256")
        if (g.sh, g.sw) == (1, 1):
            lib.conv_fwd_direct(*g, ptr(x), ptr(w), bias, ptr(y), g.c, 1, 1)
            return y
        return _brgconv_1x1_forward(x, w, b, g, "arm64-sve256")
    if g.pw > 2 and _sve256_jit_declines(g):  # which of jit:sve_256 and ACL: not measured
        raise ParityError("conv2d forward on V1: padding above 2 (jit:sve_256 or ACL's indirect_gemm) is not measured")
    if _sve256_jit_declines(g):  # indirect_gemm:acl
        return _acl_forward(x, w, b, g, profile)
    t = _terms_blocked(g.c, g.kh, g.kw, 8)
    lib.conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(t), len(t), 1, 2)
    return y


def _sve256_weights_decline(g: Geometry) -> bool:
    """Where V1's jit:sve_256 backward weights declines for gemm:ref (its init_conf's boundaries:
    top or bottom padding above KH // 2, left or right padding of KW or more)."""
    t, b = g.ph, _end_pad(g.ph, g.oh, g.h, g.sh, g.kh)
    left, r = g.pw, _end_pad(g.pw, g.ow, g.w, g.sw, g.kw)
    return max(t, b) > g.kh // 2 or max(left, r) >= g.kw


def _sve256_1x1_weight_split(g: Geometry, threads: int) -> tuple[list[int], list[int]]:
    """jit_1x1:sve_256's backward weights (jit_sve_1x1_convolution.cpp, the structure of AVX-512's
    ``_avx512_1x1_weight_split`` over blocks of 8 channels): the (image, pixel block) units split
    by balance211 between nthr_mb threads (``_avx512_1x1_balance``); each thread's kernel calls
    cover up to nb_reduce_blocking blocks of one image, each call a chain from 0 added to the
    thread's sum; the threads' sums added in order. Its reduce blocking (init_conf): the best
    divider of the image's OH*OW pixels between max(OH, OW) and all of them, both capped at the L1
    in floats over the kernel's unroll (4 rows where the pixel block is at most 19, else 8), in
    whole blocks; at most 3/2 of it in one call. The L1 size oneDNN reads is not known under
    emulation: computed for 32 and 64 KiB, ParityError where those give other calls (measured at 1,
    2 and 4 threads; an earlier rule, the blocks over the threads per weight job, gave other bits at
    4 threads)."""
    n, oh, ow = g.n, g.oh, g.ow
    ohw = oh * ow
    block, nthr_mb, _ = _avx512_1x1_balance(g, threads, 8)
    nb_reduce = ohw // block
    units = _balance211(n * nb_reduce, nthr_mb)
    splits = set()
    for l1 in (32 << 10, 64 << 10):
        cap = l1 // 4 // (4 if block <= 19 else 8)
        blocking = _best_divider(ohw, min(cap, max(oh, ow)), min(cap, ohw), True)
        blocking = max(blocking // block * block, block)
        splits.add(tuple(_1x1_calls(units, nb_reduce, ohw, block, blocking // block, blocking * 3 // 2 // block)))
    if len(splits) > 1:
        raise ParityError(
            "conv2d backward weights on V1: jit_1x1:sve_256's reduce blocking depends on cache sizes not known here"
        )
    return [u * block for u in units], list(splits.pop())


def _sve256_backward(dy, x, w, g, has_bias, mask, threads: int = 1):
    """V1's backward. grad_input: jit:sve_256 (strided) per block of 8 output channels a fused chain
    from 0 over (kh, kw, channel), the blocks' sums added; jit_1x1:sve_256 (a strided 1x1 whose stride
    divides the input, ``_one_by_one``) one chain;
    brg_conv_bwd:sve_256 (stride 1) ``_brg_bwd_data``; gemm:ref (``_ref_backward``) where a kernel side
    is no longer than the padding (``_kernel_outside_src``) or, strided, jit:sve_256's init_conf
    declines (``_avx512_data_declines`` with blocks of 8). grad_weight: jit:sve_256 per thread of
    its balance (the images, or (image, row) units above 9 output rows: ``_avx512_balance`` over
    blocks of 8) one fused chain from 0 over its (image, oh, ow), the threads' sums added in order;
    jit_1x1:sve_256 (1x1 at stride 1 or a stride dividing the input) ``_sve256_1x1_weight_split``;
    gemm:ref where jit:sve_256 declines (``_sve256_weights_decline``).
    grad_bias: jit:sve_256 per thread of its weights' (image, row) units or of its bias reducer
    (blocks of 8, buffers of threads * 6400 floats), the threads' chains added in order; jit_1x1 its
    reducer over the threads of its balance; gemm:ref's with its weights."""
    strided = (g.sh, g.sw) != (1, 1)
    jit_1x1 = _one_by_one(g)  # measured at 1 and 2 threads: where the stride divides the input
    lib = _lib()
    gx = gw = gb = None
    # gemm:ref where jit:sve_256's backward data declines (a strided kernel here: at stride 1 brg_conv_bwd)
    data_ref = _kernel_outside_src(g) or (strided and not jit_1x1 and _avx512_data_declines(g, 0, 8))
    if mask[0]:
        if data_ref:
            gx = _ref_backward(dy, x, w, g, False, (True, False, False), threads)[0]
        elif not strided:
            gx = _brg_bwd_data(dy, w, g, 8, threads)
        else:
            gx = np.empty_like(x)
            lib.conv_bwd_data_direct(*g, ptr(dy), ptr(w), ptr(gx), 0 if jit_1x1 else 8, 1, 0, 0 if jit_1x1 else 1)
    if not (mask[1] or (mask[2] and has_bias)):
        return gx, gw, gb
    if not jit_1x1 and _sve256_weights_decline(g):
        _, gw, gb = _ref_backward(dy, x, w, g, has_bias, (False, mask[1], mask[2]), threads)
        return gx, gw, gb
    ohw = g.oh * g.ow
    if jit_1x1:
        parts, runs = _sve256_1x1_weight_split(g, threads)
        nthr = _avx512_1x1_balance(g, threads, 8)[2]
        nmb = noc = nic = 1
    else:
        nmb, noc, nic = _avx512_balance(threads, g, 8)
        nthr = nmb * noc * nic
        unit = g.ow if _avx512_rows_harness(g) else ohw
        parts = [u * unit for u in _balance211(g.n * (g.oh if unit == g.ow else 1), nmb)]
        runs = parts[:-1]
    if mask[1]:
        gw = np.empty_like(w)
        _run_weights(dy, x, gw, g, parts, runs, True)
    if mask[2] and has_bias:
        if not jit_1x1 and _avx512_rows_harness(g):  # in the kernel, per thread over its (image, row) units
            bias_parts = parts
        else:
            reducer = _reducer_threads(nthr, 8, -(-g.oc // 8), g.n, nthr * 6400)
            bias_parts = [b * ohw for b in _balance211(g.n, reducer)]
        gb = _bias_grad(dy, bias_parts)
    return gx, gw, gb
