"""3-D convolution, forward and backward (``aten.convolution``, ``aten.convolution_backward`` on NCDHW
tensors), as torch 2.13.0 runs it on x86 CPUs at the baseline (SSE4.1), avx2 and avx512 levels;
everything else refuses (ParityError).

Shapes (NCDHW, float32, contiguous): x (N, C, D, H, W), w (OC, C, KD, KH, KW), b (OC,) or None,
y (N, OC, OD, OH, OW); stride (SD, SH, SW), padding (PD, PH, PW); dilation 1, one group, not
transposed.

Which code runs (measured with ``torch._C._select_conv_backend`` and ONEDNN_VERBOSE=1 on 60 random
shapes, kernel 1-3, stride 1-2, padding 0-1, 1-64 channels, 1-4 images, at 1, 2 and 4 threads, and
the VideoMAE tubelet embedding (2, 3, 4, 16, 16) * (32, 3, 2, 4, 4) stride (2, 4, 4)):

- ATen's ``slow_conv3d`` (ConvolutionMM3d.cpp; ``_ConvBackend.Slow3d``) where ConvUtils.h's
  ``use_mkldnn`` declines, the 2-D rule with the 5-D sizes: kernel (KH, KW) = (1, 1) (KD not
  checked), no stride over 1, fewer than 16 images and one thread; or one image with N*C*D*H <= 20480
  (size(0..3), the width not counted) unless KH and KW both exceed 3.
- oneDNN otherwise. At SSE4.1 every pass runs ``gemm:jit`` (jit:sse41 has no 3-D kernel). At AVX2 a
  1x1x1 kernel at stride 1 without padding runs ``jit_1x1:avx2`` (every pass); otherwise
  the forward runs ``jit:avx2`` unless its init_conf declines (the 2-D checks on (H, W), and the
  kernel outside the input in depth: KD <= PD or KD <= the back padding), then ``gemm:jit``;
  backward weights and bias ``jit:avx2`` unless its init_conf declines (the 2-D checks, and any
  depth padding, front or back, or KD > D), then ``gemm:jit``; backward data ``jit:avx2`` at stride
  1 where its init_conf accepts, ``brgconv_strided:avx2`` at any stride over 1.

- At AVX512_CORE (measured on an AMD EPYC Zen 5 with ONEDNN_VERBOSE=1 on 40 random shapes at 1 and
  2 threads, every route as predicted; ``_avx512_kernels``): a 1x1x1 kernel at stride 1 without
  padding ``jit_1x1:avx512_core`` (every pass); else the forward ``jit:avx512_core`` where the 2-D
  plane's checks take it (``conv.direct_kernels``) and the kernel reaches into the input in depth,
  else ``gemm:jit``; backward data at any stride over 1, the depth's too,
  ``brgconv_strided:avx512_core``, at stride 1 as the forward; backward weights
  ``jit:avx512_core`` as the plane's checks say and its depth bounds (front and back padding below
  KD, KD < D + PD where there is front padding), ``jit:avx2`` where they give jit:avx2 and there is
  no depth padding, else ``gemm:jit``. Before them all ``ip_convolution`` (ip_convolution.hpp
  check_conv_ip): one output pixel of a kernel the input's size, no padding, more than one image and
  more than 27 taps: an inner product (ONEDNN_VERBOSE ``ip:any+_matmul:avx512_core`` forward,
  ``ip:any+brg_matmul:avx512_core`` backward; refused).

The models (oneDNN source: src/cpu/x64/jit_avx2_conv_kernel_f32.cpp, jit_avx2_convolution.cpp,
src/cpu/gemm_convolution.cpp, gemm_convolution_utils.cpp), each the 2-D model of harness.impl.conv
with depth as one more kernel dimension, run on a "virtual" 2-D problem:

- ``jit:avx2`` forward: per output one fused chain from the bias over input-channel blocks of 8 (one
  block of C below 8), within a block over the valid taps (kd, kh, kw) (the kernel's kd loop
  outside its kh loop), within a tap the block's channels. Run per output depth as a 2-D
  convolution over channels (kd, c) with that term order (csrc/conv.c conv_fwd_terms).
- ``jit:avx512_core`` forward: per output, per block of 16 input channels (one block of C below 16,
  its first-convolution kernel) a fused chain from 0 over the valid taps (kd, kh, kw) and the
  block's channels; the first block's sum plus the bias, each further block's sum added (its 2-D
  model). ``jit_1x1:avx512_core``: the 2-D model's on the (D*H, W) plane (its init_conf's sizes are
  the 3-D ones: OD*OH rows, OD*OH*OW pixels): a kernel call per block of its reduce blocking, each
  call's fused chain from 0 (the first from the bias) added.
- ``jit:avx512_core`` backward data (stride 1): per block of 16 output channels a chain from 0 over
  (kd, kh, kw, channel), the blocks' sums added; ``jit_1x1:avx512_core``: the 2-D model's on the
  (D*H, W) plane, its calls over the output channels.
- ``jit:avx2`` backward weights: oneDNN balances the (image, output depth) pairs (mb * od, its
  reduce_balancer_t over jobs of KD*KH*KW*ic_block*8 floats) between the threads of a group; per
  thread one fused chain over its (image, od, oh, ow) in order, the threads' sums added in order.
  As a 2-D problem: images (n, od), channels (c, kd). Bias: its reducer over the images only, per
  thread a chain of additions over its images' (od, oh, ow).
- ``jit:avx2`` backward data (stride 1; nb_oc_blocking 1 in 3-D): per block of 8 output channels a
  fused chain from 0 over the taps (kd, kh, kw) that reach the input element, within a tap the
  block's channels; the blocks' sums added in order. Run per input depth as a 2-D problem over
  output channels (kd, oc).
- ``gemm:jit`` forward (3-D: no blocking, os_block = OH*OW, all channels): per (image, od) one
  sgemm, M = OH*OW, N = OC, K = C*KD*KH*KW in im2col order (c, kd, kh, kw), the bias added after;
  threads: outer threading over the (image, od) planes where init_conf's 3-D rule says so (each
  sgemm on one thread), else one sgemm on all threads. The sgemm harness.impl.conv's (SSE4.1: the
  K blocks; AVX2: harness.impl.onednn_sgemm with the 3-D leading dimensions).
- ``gemm:jit`` backward weights: per image, per od, per pixel block one sgemm onto the thread's sum
  (beta 0 first), the images split between min(threads, N) threads where init_conf's outer threading
  applies; grad_bias per output row (image, od, oh) one chain, added to the channel's sum.
- ``gemm:jit`` backward data (execute_backward_data_ncsp): per image, per od in order, the sgemm's
  column added by col2im_3d onto the input gradient (zeros first), per input element over the
  output pixels (oh, ow) in order, i.e. the taps (kh, kw) from the last. At SSE4.1 per tap a chain
  over the output channels in its K blocks; at AVX2 and AVX512_CORE harness.impl.onednn_sgemm's
  sgemm('N', 'T', M = OH*OW, N = C*KD*KH*KW, K = OC) with LDA = OD*OH*OW (grad_output's plane in
  place), on one thread inside the outer threading over the images, else on all.
- ``jit:avx512_core`` backward weights (compute_diff_weights_3d, harness_3d_reduction): its
  balance() splits the (image, od) pairs between nthr_mb threads (``_avx512_weight_threads``); per
  thread one fused chain per weight over its (image, od, oh, ow) (its kernel calls per image add
  in place), the bias a chain of additions over the same; the threads' sums added in order
  (reduce_diff_weights_3d, reduce_diff_bias). Depth padding as without.
- ``jit_1x1:avx2`` and ``jit_1x1:avx512_core`` every pass: the 2-D model's on the (D*H, W) plane,
  the weights' thread split and kernel calls too.
- ``brgconv_strided:avx2`` and ``:avx512_core`` backward data (any stride over 1): the 2-D model's
  blocking and brgemm calls of the (H, W) plane, its search over N*D images, each call's batch over
  the depth taps that reach the input depth first, then its rows, taps kw and output channels
  (``_strided_data``; exec_trans where the stride does not divide W).
- ATen's ``slow_conv3d`` (ConvolutionMM3d.cpp, Unfold3d.cpp), per image in order (at most 20
  images reach it: outside a parallel region, MKL on every thread): forward vol2col (rows (c, kd,
  kh, kw); the input itself for a 1x1x1 kernel at stride 1 without padding), then cpublas gemm('n',
  'n') onto the bias copied into the output (beta 1; ``mm`` without one); grad_input gemm('n', 't')
  into fgrad_input, added back by Unfold3dAccCPU (zeros, the taps (kd, kh, kw) in order);
  grad_weight gemm('t', 'n', beta 1) from zeros image by image; grad_bias sum_dims over (0, 2, 3,
  4). MKL's kernels peel by alignment: every operand sits at its image's offset in one aligned
  buffer, as torch's finput, fgrad_input and output.

Measured on an AMD EPYC Zen 5 (L1d 48 KiB, L2 1 MiB) against torch at 1, 2 and 4 threads, random
shapes off the 8- and 16-lane widths with NaN, infinities, signed zeros and denormals in a fifth:
every modelled pass bit for bit, none other bits (docs/impl/kernels.md has the counts).

Refused: aarch64; ip_convolution at AVX512_CORE (its inner product: a fused chain over (kd, kh, kw, c)
from 0 with the bias after matched up to K = 160 taps, not past it); gemm:jit's ref:any fallback and pixel blocks
(scratchpad limit); groups, dilation, transposed.
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv
from harness.impl._lib import aligned, f32, ptr
from harness.impl.profiles import KernelProfile

SLOW3D = "slow_conv3d"
BRG_STRIDED_AVX2, BRG_STRIDED = conv.BRG_STRIDED_AVX2, conv.BRG_STRIDED
GEMM_JIT, AVX2, AVX512, IP_CONV = conv.GEMM_JIT, conv.AVX2, conv.AVX512, conv.IP_CONV
JIT_1X1_512, JIT_1X1_AVX2 = "jit_1x1:avx512_core", "jit_1x1:avx2"
_1X1_PLANE = {JIT_1X1_512: AVX512, JIT_1X1_AVX2: AVX2}  # the 2-D kernel each runs as on the (D*H, W) plane


class Geometry3(NamedTuple):
    n: int
    c: int
    d: int
    h: int
    w: int
    oc: int
    kd: int
    kh: int
    kw: int
    od: int
    oh: int
    ow: int
    sd: int
    sh: int
    sw: int
    pd: int
    ph: int
    pw: int


def geometry(x_shape, w_shape, stride, padding) -> Geometry3:
    n, c, d, h, wd = x_shape
    oc, c2, kd, kh, kw = w_shape
    if c2 != c:
        raise ParityError(f"conv3d: weight {list(w_shape)} does not fit input {list(x_shape)} (groups not modelled)")
    sd, sh, sw = stride
    pd, ph, pw = padding
    od, oh, ow = ((size + 2 * p - k) // s + 1 for size, p, k, s in ((d, pd, kd, sd), (h, ph, kh, sh), (wd, pw, kw, sw)))
    if min(od, oh, ow) < 1:
        raise ParityError("conv3d: empty output")
    return Geometry3(n, c, d, h, wd, oc, kd, kh, kw, od, oh, ow, sd, sh, sw, pd, ph, pw)


def _plane(g: Geometry3, n: int | None = None, c: int | None = None, oc: int | None = None) -> conv.Geometry:
    """The 2-D geometry of one depth plane (images, channels, output channels as given)."""
    return conv.Geometry(
        g.n if n is None else n, g.c if c is None else c, g.h, g.w, g.oc if oc is None else oc, g.kh, g.kw, g.oh,
        g.ow, g.sh, g.sw, g.ph, g.pw,
    )  # fmt: skip


def _back_pad(g: Geometry3) -> int:
    return conv._end_pad(g.pd, g.od, g.d, g.sd, g.kd)


def _aten_slow(g: Geometry3, threads: int) -> bool:
    """ConvUtils.h ``use_mkldnn`` declines: ATen runs slow_conv3d."""
    strided = (g.sd, g.sh, g.sw) != (1, 1, 1)
    thnn_faster = not strided and g.n < 16 and (g.kh, g.kw) == (1, 1) and threads == 1
    small = not (g.kh > 3 and g.kw > 3) and g.n == 1 and g.n * g.c * g.d * g.h <= 20480
    return thnn_faster or small


def kernels(g: Geometry3, profile: KernelProfile) -> tuple[str, str, str]:
    """(forward, backward data, backward weights and bias): which kernel torch runs (the module's
    docstring); ParityError where the level is not modelled."""
    if profile.aarch64 or profile.torch != "2.13.0":
        raise ParityError("conv3d: the impl reproduces 3-D convolutions of torch 2.13.0 on x86 only")
    if _aten_slow(g, profile.threads):
        return SLOW3D, SLOW3D, SLOW3D
    if profile.aten not in ("avx2", "avx512"):
        return GEMM_JIT, GEMM_JIT, GEMM_JIT
    p = _plane(g)
    back = _back_pad(g)
    depth_outside = g.kd <= g.pd or g.kd <= back
    if profile.aten == "avx512":
        return _avx512_kernels(g, p, depth_outside, profile)
    if _one_by_one(g):
        return JIT_1X1_AVX2, JIT_1X1_AVX2, JIT_1X1_AVX2
    forward = GEMM_JIT if conv._avx2_forward_declines(p) or depth_outside else AVX2
    if (g.sd, g.sh, g.sw) != (1, 1, 1):
        data = BRG_STRIDED_AVX2
    else:
        data = GEMM_JIT if conv._avx2_data_declines(p) or depth_outside else AVX2
    weights_declines = conv._avx2_weights_declines(p) or _depth_padded(g)
    return forward, data, GEMM_JIT if weights_declines else AVX2


def _one_by_one(g: Geometry3) -> bool:
    """A 1x1x1 kernel at stride 1 without padding: oneDNN's jit_1x1 kernels at AVX2 and AVX512_CORE."""
    return (g.kd, g.kh, g.kw, g.pd, g.ph, g.pw, g.sd, g.sh, g.sw) == (1, 1, 1, 0, 0, 0, 1, 1, 1)


def _depth_padded(g: Geometry3) -> bool:
    """Depth padding, front or back, or a kernel deeper than the input (jit:avx2's weights kernel
    declines it)."""
    return g.pd != 0 or max(0, _back_pad(g)) != 0 or g.kd > g.d


def _avx512_kernels(
    g: Geometry3, p: conv.Geometry, depth_outside: bool, profile: KernelProfile
) -> tuple[str, str, str]:
    """The kernels at AVX512_CORE (ONEDNN_VERBOSE on random shapes at 1, 2 and 4 threads on a Zen 5,
    every route so predicted): ip_convolution first (``_ip_convolution``; a plane of one output pixel
    over more than 27 taps that is not one in 3-D: not measured, refused); jit_1x1:avx512_core for a
    1x1x1 kernel at stride 1 without padding; the forward jit:avx512_core where the 2-D plane's
    checks take it (``conv.direct_kernels``) and the kernel reaches into the input in depth, else
    gemm:jit; backward data at any stride over 1 (depth too) brgconv_strided:avx512_core,
    at stride 1 as the forward; backward weights jit:avx512_core as the plane's checks say within its
    init_conf's depth bounds (front and back padding below KD; with front padding KD < D + PD),
    jit:avx2 where they give jit:avx2 and there is no depth padding (jit:avx2's 3-D model), else
    gemm:jit."""
    if _ip_convolution(g):
        return IP_CONV, IP_CONV, IP_CONV
    if conv._ip_convolution(p):  # the plane alone would be an inner product, the 3-D convolution is not
        raise ParityError("conv3d: oneDNN's kernels for a plane of one output pixel over more than 27 taps "
                          "are not measured")  # fmt: skip
    if _one_by_one(g):  # jit_1x1:avx512_core (measured): every pass the 2-D model's on the (D*H, W) plane
        return JIT_1X1_512, JIT_1X1_512, JIT_1X1_512
    fwd, data, weights = conv.direct_kernels(p, conv.AVX512, profile)
    forward = AVX512 if fwd == AVX512 and not depth_outside else GEMM_JIT
    if (g.sd, g.sh, g.sw) != (1, 1, 1):
        data = BRG_STRIDED
    else:
        data = AVX512 if data == AVX512 and not depth_outside else GEMM_JIT
    depth_pad = _depth_padded(g)
    if weights == AVX512 and not depth_outside and not (g.pd and g.kd >= g.d + g.pd):
        weights = AVX512
    elif weights == AVX2 and not depth_pad:
        weights = AVX2
    else:
        weights = GEMM_JIT
    return forward, data, weights


def _ip_convolution(g: Geometry3) -> bool:
    """Whether oneDNN's ip_convolution takes the convolution at AVX512_CORE (ip_convolution.hpp
    check_conv_ip over the 3-D sizes): no padding, stride 1, one output pixel (a kernel the input's
    size), more than one image and more than 27 taps (KD*KH*KW)."""
    one_pixel = (g.od, g.oh, g.ow, g.sd, g.sh, g.sw, g.pd, g.ph, g.pw) == (1, 1, 1, 1, 1, 1, 0, 0, 0)
    return one_pixel and g.n > 1 and g.kd * g.kh * g.kw > 27


def _refuse(kind: str, what: str) -> None:
    if kind == IP_CONV:
        raise ParityError(f"conv3d {what}: oneDNN's ip_convolution (an inner product, matmul) is not modelled")


def _depth_valid(g: Geometry3, o_d: int) -> list[int]:
    return [k for k in range(g.kd) if 0 <= o_d * g.sd - g.pd + k < g.d]


def _virtual_input(x: np.ndarray, g: Geometry3) -> np.ndarray:
    """(N * OD, C * KD, H, W): image (n, od), channel (c, kd) the input's depth od*SD - PD + kd (0 in
    the padding): the im2col of the depth."""
    v = np.zeros((g.n, g.od, g.c, g.kd, g.h, g.w), np.float32)
    for o_d in range(g.od):
        for k in _depth_valid(g, o_d):
            v[:, o_d, :, k] = x[:, :, o_d * g.sd - g.pd + k]
    return v.reshape(g.n * g.od, g.c * g.kd, g.h, g.w)


def _virtual_output(dy: np.ndarray, g: Geometry3) -> np.ndarray:
    """(N * OD, OC, OH, OW): grad_output's planes as images."""
    return np.ascontiguousarray(dy.transpose(0, 2, 1, 3, 4)).reshape(g.n * g.od, g.oc, g.oh, g.ow)


# --- forward -------------------------------------------------------------------------------------


def conv3d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, profile: KernelProfile) -> np.ndarray:
    """``aten.convolution`` (3-D, dilation 1, one group): y (N, OC, OD, OH, OW)."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    g = geometry(x.shape, w.shape, stride, padding)
    kind = kernels(g, profile)[0]
    if kind == SLOW3D:
        return _slow_forward(x, w, b, g, profile)
    _refuse(kind, "forward")
    if kind in _1X1_PLANE:
        return _jit_1x1_forward(x, w, b, g, profile, _1X1_PLANE[kind])
    if kind in (AVX2, AVX512):
        return _direct_forward(x, w, b, g, kind)
    return _gemm_jit_forward(x, w, b, g, profile)


def _jit_1x1_forward(x, w, b, g: Geometry3, profile: KernelProfile, kind: str) -> np.ndarray:
    """jit_1x1:avx512_core's and jit_1x1:avx2's forward (1x1x1, stride 1, no padding; ``kind`` AVX512
    or AVX2): the 2-D model's on the (D*H, W) plane, whose init_conf sizes (OD*OH rows, OD*OH*OW
    pixels) are the 3-D ones: a kernel call per block of input channels (AVX-512:
    ``conv.avx512_1x1_reduce_block``; AVX2: 128), each call's chain added."""
    y = conv.conv2d(x.reshape(g.n, g.c, g.d * g.h, g.w), w.reshape(g.oc, g.c, 1, 1), b, (1, 1), (0, 0), profile,
                    kind=kind)  # fmt: skip
    return y.reshape(g.n, g.oc, g.od, g.oh, g.ow)


def _vol2col(x1: np.ndarray, g: Geometry3) -> np.ndarray:
    """ATen's Unfold3dCopyCPU of one image (C, D, H, W): (C*KD*KH*KW, OD*OH*OW), rows (c, kd, kh, kw),
    zeros in the padding (a copy)."""
    planes = _virtual_input(x1[None], g)
    cols = [conv._im2col(planes[o], g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.oh, g.ow) for o in range(g.od)]
    return np.ascontiguousarray(np.concatenate(cols, axis=1))


def _col2vol(cols: np.ndarray, g: Geometry3) -> np.ndarray:
    """ATen's Unfold3dAccCPU of one image: zeros, then per tap (kd, kh, kw) in order its column added
    in place at the elements it reaches, ``image + column`` (a NaN already there kept, as x86's
    scalar addition keeps its first operand's)."""
    gx = np.zeros((g.c, g.d, g.h, g.w), np.float32)
    taps = cols.reshape(g.c, g.kd, g.kh, g.kw, g.od, g.oh, g.ow)
    od, oh, ow = np.meshgrid(np.arange(g.od), np.arange(g.oh), np.arange(g.ow), indexing="ij")
    for kd in range(g.kd):
        for kh in range(g.kh):
            for kw in range(g.kw):
                iz, iy, ix = od * g.sd - g.pd + kd, oh * g.sh - g.ph + kh, ow * g.sw - g.pw + kw
                at = (iz >= 0) & (iz < g.d) & (iy >= 0) & (iy < g.h) & (ix >= 0) & (ix < g.w)
                cur = gx[:, iz[at], iy[at], ix[at]]
                with np.errstate(invalid="ignore", over="ignore"):
                    gx[:, iz[at], iy[at], ix[at]] = np.where(np.isnan(cur), cur, cur + taps[:, kd, kh, kw][:, at])
    return gx


def _aligned_copy(a: np.ndarray) -> np.ndarray:
    """``a`` flat in a buffer on a 64-byte boundary (torch's allocator; MKL's kernels peel by alignment)."""
    buf = aligned(a.size)
    buf[:] = a.reshape(-1)
    return buf


def _slow_columns(x: np.ndarray, g: Geometry3) -> np.ndarray:
    """slow_conv3d's finput, (N, C*KD*KH*KW, OD*OH*OW) flat in one aligned buffer: the input itself for a
    1x1x1 kernel at stride 1 without padding, else each image's vol2col."""
    if _one_by_one(g):
        return _aligned_copy(x)
    m, k = g.od * g.oh * g.ow, g.c * g.kd * g.kh * g.kw
    cols = aligned(g.n * k * m)
    for t in range(g.n):
        cols[t * k * m : (t + 1) * k * m] = _vol2col(x[t], g).reshape(-1)
    return cols


def _slow_forward(x, w, b, g: Geometry3, profile: KernelProfile) -> np.ndarray:
    """ATen's slow_conv3d (ConvolutionMM3d.cpp slow_conv3d_update_output_frame), per image in order
    (at most 20 images: outside a parallel region, MKL on every thread): its finput
    (``_slow_columns``), then ``addmm_`` onto the bias (copied into the output first; ``mm`` without
    one): cpublas gemm('n', 'n', M = OD*OH*OW, N = OC, K = C*KD*KH*KW), each operand at its image's
    offset in torch's aligned buffers."""
    m, k = g.od * g.oh * g.ow, g.c * g.kd * g.kh * g.kw
    cols, w2, y = _slow_columns(x, g), _aligned_copy(w), aligned(g.n * g.oc * m)
    for t in range(g.n):
        out = y[t * g.oc * m : (t + 1) * g.oc * m]
        if b is not None:
            out.reshape(g.oc, m)[:] = b[:, None]
        conv._thnn_gemm("nn", m, g.oc, k, cols[t * k * m : (t + 1) * k * m], m, w2, k, 1.0 if b is not None else 0.0,
                        out, m, profile)  # fmt: skip
    return y.reshape(g.n, g.oc, g.od, g.oh, g.ow)


def _slow_backward(dy, x, w, g: Geometry3, profile: KernelProfile, mask: tuple[bool, bool, bool]):
    """slow_conv3d's backward, per image in order, MKL on every thread, the operands at their images'
    offsets in aligned buffers: grad_input's columns (fgrad_input, (N, C*KD*KH*KW, OD*OH*OW))
    ``mm(weight^T, grad_output)``, cpublas gemm('n', 't', M = OD*OH*OW, N = C*KD*KH*KW, K = OC), added
    back by Unfold3dAccCPU (``_col2vol``); grad_weight from zeros ``addmm_(grad_output, finput^T)``,
    gemm('t', 'n', M = C*KD*KH*KW, N = OC, K = OD*OH*OW, beta 1) image by image; grad_bias
    convolution_backward's ``grad_output.sum((0, 2, 3, 4))`` (harness.impl.reduce.sum_dims)."""
    m, k = g.od * g.oh * g.ow, g.c * g.kd * g.kh * g.kw
    dy2, w2 = _aligned_copy(dy), _aligned_copy(w)
    gx = gw = gb = None
    if mask[0]:
        gx = np.empty_like(x)
        fgrad = aligned(g.n * k * m)
        for t in range(g.n):
            cols = fgrad[t * k * m : (t + 1) * k * m]
            conv._thnn_gemm("nt", m, k, g.oc, dy2[t * g.oc * m : (t + 1) * g.oc * m], m, w2, k, 0.0, cols, m, profile)
            gx[t] = _col2vol(cols.reshape(k, m), g)
    if mask[1]:
        finput, gw = _slow_columns(x, g), aligned(g.oc * k)
        for t in range(g.n):
            conv._thnn_gemm("tn", k, g.oc, m, finput[t * k * m : (t + 1) * k * m], m,
                            dy2[t * g.oc * m : (t + 1) * g.oc * m], m, 1.0, gw, k, profile)  # fmt: skip
        gw = gw.reshape(w.shape)
    if mask[2]:
        from harness.impl.reduce import sum_dims

        gb = sum_dims(dy, (0, 2, 3, 4), profile)
    return gx, gw, gb


def _direct_forward(x, w, b, g: Geometry3, kind: str) -> np.ndarray:
    """jit:avx2's forward (one chain from the bias over blocks of 8 channels) or jit:avx512_core's (per
    block of 16 channels, or one block of C below 16, its first-convolution kernel: a chain from 0,
    the first block's sum plus the bias, each further block's sum added, as its 2-D model), within a
    block over the valid taps (kd, kh, kw), within a tap the block's channels."""
    lib = conv._lib()
    c, kd = g.c, g.kd
    avx512 = kind == AVX512
    block = {AVX2: 8, AVX512: 16 if c >= 16 else c}[kind]
    y = np.empty((g.od, g.n, g.oc, g.oh, g.ow), np.float32)
    w2 = np.ascontiguousarray(w.transpose(0, 2, 1, 3, 4)).reshape(g.oc, kd * c, g.kh, g.kw)  # channel kd*C + c
    p = _plane(g, c=kd * c)
    bias = None if b is None else ptr(b)
    for o_d in range(g.od):
        valid = _depth_valid(g, o_d)
        x2 = np.zeros((g.n, kd, c, g.h, g.w), np.float32)
        for k in valid:
            x2[:, k] = x[:, :, o_d * g.sd - g.pd + k]
        x2 = x2.reshape(g.n, kd * c, g.h, g.w)
        terms = _block_terms(valid, g, c, block, ends=avx512)
        if not valid:  # no tap inside the input (the direct kernels decline these; kept for safety)
            raise ParityError("conv3d forward: an output plane with no tap in the input")
        t = np.array(terms, np.int64).reshape(-1, 3)
        lib.conv_fwd_terms(*p, ptr(x2), ptr(w2), bias, ptr(y[o_d]), ptr(t), len(t), 1, 2 if avx512 else 1)
    return np.ascontiguousarray(y.transpose(1, 2, 0, 3, 4))


def _plain(g: Geometry3) -> bool:
    """gemm:jit needs no im2col buffer (its 3-D rule: the output the input's size, stride 1, a 1x1x1
    kernel)."""
    return (g.od, g.oh, g.ow, g.sd, g.sh, g.sw, g.kd * g.kh * g.kw) == (g.d, g.h, g.w, 1, 1, 1, 1)


def _limit(g: Geometry3, threads: int) -> int:
    """gemm:jit's scratchpad limit: 15 * threads * the bytes of src, weights and dst, at most 1 GiB."""
    src, wei, dst = g.n * g.c * g.d * g.h * g.w, g.oc * g.c * g.kd * g.kh * g.kw, g.n * g.oc * g.od * g.oh * g.ow
    return min(1 << 30, 15 * threads * 4 * (src + wei + dst))


def _forward_threads(g: Geometry3, threads: int, simd_w: int) -> int:
    """gemm:jit's forward threads in 3-D (init_conf: no blocking; outer threading over the (image, od)
    planes where os / threads < 512, not (od = 1 and one image), and the outer work balances at
    least as well as the inner or os*ic*oc / threads < 64K)."""
    os_ = g.oh * g.ow
    outer_work = g.n * g.od
    outer_eff = np.float32(outer_work) / np.float32(conv._rnd_up(outer_work, threads))
    inner = conv._div_up(os_, simd_w) * conv._div_up(g.oc, simd_w)
    inner_eff = np.float32(inner) / np.float32(conv._rnd_up(inner, threads))
    outer = (
        os_ // threads < 512
        and (g.od != 1 or g.n != 1)
        and (outer_eff / inner_eff >= 1 or (os_ * g.c * g.oc) // threads < 64 * 1024)
    )
    return threads if outer else 1


def _gemm_jit_forward(x, w, b, g: Geometry3, profile: KernelProfile) -> np.ndarray:
    simd = conv._simd_w(profile)
    nthr = _forward_threads(g, profile.threads, simd)
    os_, k = g.oh * g.ow, g.c * g.kd * g.kh * g.kw
    col = 0 if _plain(g) else k * os_
    if col and 4 * nthr * col + 128 > _limit(g, profile.threads):
        raise ParityError("conv3d forward: gemm:jit over the scratchpad limit (oneDNN's ref:any) is not modelled")
    v = g.n * g.od
    x2 = _virtual_input(x, g)
    w2 = w.reshape(g.oc, g.c * g.kd, g.kh, g.kw)
    p = _plane(g, n=v, c=g.c * g.kd)
    if profile.aten in ("avx2", "avx512"):
        return _vector_forward(x, x2, w2, b, g, p, profile, nthr, bool(col))
    # SSE4.1: every piece a whole plane, all output channels (one sgemm per (image, od))
    lib = conv._lib()
    y = np.empty((v, g.oc, g.oh, g.ow), np.float32)
    bias = None if b is None else ptr(b)
    order = [(ch, i, j) for ch in range(p.c) for i in range(g.kh) for j in range(g.kw)]
    if g.oc == 1:  # gemv 'N': one chain over all of K
        t = np.array(order, np.int64).reshape(-1, 3)
    elif os_ == 1:  # gemv 'T' on one pixel
        pieces = np.array([(im, 0, 1, 0, g.oc) for im in range(v)], np.int64).reshape(-1, 5)
        colbuf = np.empty(k, np.float32)
        # x's stride (the sgemm's LDA) is OD * OH * OW without im2col: copies of 512 terms unless it is 1
        strided = not col and g.od > 1
        lib.conv_fwd_gemv_t(*p, ptr(x2), ptr(w2), bias, ptr(y), ptr(pieces), len(pieces), p.c, 512 if strided else 0,
                            ptr(colbuf))  # fmt: skip
        return _from_virtual(y, g)
    else:
        terms: list[tuple[int, int, int]] = []
        for size in conv._sse41_k_blocks(len(order)):
            if terms:
                terms.append((-1, 0, 0))
            terms.extend(order[:size])
            order = order[size:]
        t = np.array(terms, np.int64).reshape(-1, 3)
    lib.conv_fwd_terms(*p, ptr(x2), ptr(w2), bias, ptr(y), ptr(t), len(t), 0, 0)
    return _from_virtual(y, g)


def _from_virtual(y: np.ndarray, g: Geometry3) -> np.ndarray:
    return np.ascontiguousarray(y.reshape(g.n, g.od, g.oc, g.oh, g.ow).transpose(0, 2, 1, 3, 4))


def _vector_forward(x, x2, w2, b, g: Geometry3, p: conv.Geometry, profile, nthr: int, col: bool) -> np.ndarray:
    """gemm:jit forward at AVX2: per (image, od) sgemm('N', 'N', M = OH*OW, N = OC, K = C*KS) with
    LDA = M (im2col) or OD*OH*OW (the input in place), LDB = C*KS, LDC = OD*OH*OW; the bias after."""
    from harness.impl.onednn_sgemm import Call, isa_of, sgemm

    os_, k, m_all = g.oh * g.ow, g.c * g.kd * g.kh * g.kw, g.od * g.oh * g.ow
    isa, inner = isa_of(profile), (1 if nthr > 1 else profile.threads)
    y = np.zeros((g.n, g.oc, g.od, g.oh, g.ow), np.float32)
    yf, wf, xf = y.reshape(-1), np.ascontiguousarray(w2).reshape(-1), np.ascontiguousarray(x).reshape(-1)
    call = Call(False, False, os_, g.oc, k, os_ if col else m_all, k, m_all)
    for im in range(g.n):
        for o_d in range(g.od):
            if col:
                v = im * g.od + o_d
                a = np.ascontiguousarray(conv._im2col(x2[v], g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.oh, g.ow)).reshape(
                    -1
                )
                ao = 0
            else:
                a, ao = xf, im * g.c * m_all + o_d * os_
            oo = im * g.oc * m_all + o_d * os_
            sgemm(isa, inner, call, a, ao, wf, 0, 0, yf, oo)
            if b is not None:
                y[im, :, o_d] = y[im, :, o_d] + b[:, None, None]
    return y


# --- backward ------------------------------------------------------------------------------------


def conv3d_backward(
    dy: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride,
    padding,
    has_bias: bool,
    profile: KernelProfile,
    mask: tuple[bool, bool, bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """``aten.convolution_backward`` (3-D): (grad_input, grad_weight, grad_bias), None where ``mask``
    leaves one out or there is no bias; ParityError for a kernel not modelled."""
    dy, x, w = f32(dy), f32(x), f32(w)
    g = geometry(x.shape, w.shape, stride, padding)
    _fwd, data, weights = kernels(g, profile)
    if data == SLOW3D:
        return _slow_backward(dy, x, w, g, profile, (mask[0], mask[1], mask[2] and has_bias))
    gx = gw = gb = None
    if mask[0]:
        _refuse(data, "backward data")
        if data in _1X1_PLANE:  # the 2-D model's on the (D*H, W) plane: its calls over the output channels
            gx = _jit_1x1_backward(dy, x, w, g, profile, data, (True, False, False))[0].reshape(x.shape)
        elif data in (AVX2, AVX512):
            gx = _direct_data(dy, w, g, {AVX2: 8, AVX512: 16}[data])
        elif data in (BRG_STRIDED, BRG_STRIDED_AVX2):
            gx = _strided_data(dy, w, g, profile, 16 if data == BRG_STRIDED else 8)
        elif profile.aten in ("avx2", "avx512"):
            gx = _vector_data(dy, w, g, profile)
        else:
            gx = _gemm_jit_data(dy, w, g, profile)
    want_b = mask[2] and has_bias
    if mask[1] or want_b:
        _refuse(weights, "backward weights")
        if weights in _1X1_PLANE:  # the 2-D model's on the (D*H, W) plane
            _gx, gw, gb = _jit_1x1_backward(dy, x, w, g, profile, weights, (False, mask[1], want_b))
            gw = None if gw is None else gw.reshape(w.shape)
        elif weights == AVX512:
            gw, gb = _avx512_weights(dy, x, g, profile.threads, mask[1], want_b)
        elif weights == AVX2:
            gw, gb = _avx2_weights(dy, x, w, g, profile, mask[1], want_b)
        else:
            gw, gb = _gemm_jit_weights(dy, x, w, g, profile, mask[1], want_b)
    return gx, gw, gb


def _jit_1x1_backward(dy, x, w, g: Geometry3, profile: KernelProfile, kind: str, mask: tuple[bool, bool, bool]):
    """jit_1x1's backward passes (``kind`` JIT_1X1_512 or JIT_1X1_AVX2) as the 2-D model's on the
    (D*H, W) plane: (grad_input, grad_weight, grad_bias) of the plane's shapes."""
    return conv.conv2d_backward(
        dy.reshape(g.n, g.oc, g.od * g.oh, g.ow), x.reshape(g.n, g.c, g.d * g.h, g.w), w.reshape(g.oc, g.c, 1, 1),
        (1, 1), (0, 0), mask[2], profile, mask, kind=_1X1_PLANE[kind],
    )  # fmt: skip


def _avx2_weights(dy, x, w, g: Geometry3, profile: KernelProfile, want_w: bool, want_b: bool):
    threads = profile.threads
    gw = gb = None
    v = g.n * g.od
    ohw = g.oh * g.ow
    dy2 = _virtual_output(dy, g)
    if want_w:
        flat = g.c == 3  # the weights kernel's unblocked input: C = 3 only
        ic_block = g.c if flat else 8
        nb_ic = 1 if flat else -(-g.c // 8)
        job = g.kd * g.kh * g.kw * ic_block * 8
        per_group = conv._reducer_threads(threads, job, nb_ic * -(-g.oc // 8), v)
        parts = [u * ohw for u in conv._balance211(v, per_group)]
        x2 = _virtual_input(x, g)
        p = _plane(g, n=v, c=g.c * g.kd)
        gw = np.empty((g.oc, g.c * g.kd, g.kh, g.kw), np.float32)
        conv._run_weights(dy2, x2, gw, p, parts, parts[:-1], True)
        gw = gw.reshape(w.shape)
    if want_b:  # its reducer over the images; a thread's chain over its images' (od, oh, ow)
        per_group = conv._reducer_threads(threads, 8, -(-g.oc // 8), g.n)
        parts = [im * g.od * ohw for im in conv._balance211(g.n, per_group)]
        gb = conv._bias_grad(dy2, parts)
    return gw, gb


def _avx512_weight_threads(g: Geometry3, threads: int) -> int:
    """nthr_mb of jit:avx512_core's 3-D backward weights (jit_avx512_common_conv_bwd_weights_kernel_f32
    ::balance, harness_3d_reduction: blocks of 16 channels, fewer than 16 input channels one block):
    the split of (the images; output-channel blocks; input-channel blocks) between threads with the
    lowest memory cost (src + dst + 8 * weights per thread, the last of equal ones), then one with a
    lower compute cost within 110% of it (or 4/3 cheaper); then min(N*OD, threads) where it is above
    half the threads and below all."""
    up = conv._div_up
    icb = g.c if g.c < 16 else 16
    nb_ic, nb_oc = up(g.c, icb), up(g.oc, 16)

    def mem(nmb: int, noc: int, nic: int) -> int:
        src = up(g.n, nmb) * up(nb_ic, nic) * icb * g.h * g.w * g.d // g.sd // g.sh // g.sw
        dst = up(g.n, nmb) * up(nb_oc, noc) * 16 * g.oh * g.ow * g.od
        return src + dst + 8 * up(nb_oc, noc) * up(nb_ic, nic) * g.kh * g.kw * g.kd * icb * 16

    def comp(nmb: int, noc: int, nic: int) -> int:
        return up(g.n, nmb) * up(nb_oc, noc) * up(nb_ic, nic)

    return conv.balance_search(threads, g.n * g.od, nb_oc, nb_ic, mem, comp, True)[0]


def _avx512_weights(dy, x, g: Geometry3, threads: int, want_w: bool, want_b: bool):
    """jit:avx512_core's 3-D backward weights (compute_diff_weights_3d, no depth padding): the (image,
    od) pairs split by balance211 between ``_avx512_weight_threads`` threads; per thread one fused
    chain per weight over its (image, od, oh, ow) in order (its kernel calls per image accumulate in
    place), the bias a chain of additions over the same; the threads' sums added in order
    (reduce_diff_weights_3d, reduce_diff_bias)."""
    v = g.n * g.od
    parts = [u * g.oh * g.ow for u in conv._balance211(v, _avx512_weight_threads(g, threads))]
    dy2 = _virtual_output(dy, g)
    gw = gb = None
    if want_w:
        p = _plane(g, n=v, c=g.c * g.kd)
        gw = np.empty((g.oc, g.c * g.kd, g.kh, g.kw), np.float32)
        conv._run_weights(dy2, _virtual_input(x, g), gw, p, parts, parts[:-1], True)
        gw = gw.reshape(g.oc, g.c, g.kd, g.kh, g.kw)
    if want_b:
        gb = conv._bias_grad(dy2, parts)
    return gw, gb


def _weights_conf(g: Geometry3, threads: int, simd_w: int) -> tuple[int, int]:
    """(threads, os_block) of gemm:jit's backward weights (init_conf, NCDHW): outer threading where its
    memory estimate fits, os / threads < 256 and more than one image; pixel blocks past the
    scratchpad's room refused."""
    os_, ks = g.oh * g.ow, g.kd * g.kh * g.kw
    wei = g.oc * g.c * ks
    limit = _limit(g, threads)
    mem_ok = 4 * threads * 4 * wei + 4 * threads * g.c * ks * simd_w < limit
    outer = mem_ok and os_ // threads < 256 and g.n != 1
    nthr = threads if outer else 1
    room = limit - (4 * nthr * 4 * wei + 128)
    col = 0 if _plain(g) else g.c * ks * os_
    if col and 4 * nthr * col > room:
        raise ParityError("conv3d backward weights: gemm:jit's pixel blocks (scratchpad limit) are not modelled")
    return nthr, os_


def _gemm_jit_weights(dy, x, w, g: Geometry3, profile: KernelProfile, want_w: bool, want_b: bool):
    simd = conv._simd_w(profile)
    nthr, _os_block = _weights_conf(g, profile.threads, simd)
    v, ohw = g.n * g.od, g.oh * g.ow
    dy2 = _virtual_output(dy, g)
    gw = gb = None
    if want_w:
        images = conv._balance211(g.n, min(nthr, g.n))
        if profile.aten in ("avx2", "avx512"):
            gw = _vector_weights(dy, x, w, g, profile, nthr, images)
        else:
            x2 = _virtual_input(x, g)
            p = _plane(g, n=v, c=g.c * g.kd)
            gw2 = np.empty((g.oc, p.c, g.kh, g.kw), np.float32)
            if g.oc == 1 or p.c * g.kh * g.kw == 1:  # oneDNN's SSE4.1 gemv_t per (image, od) plane
                part = np.array([im * g.od for im in images], np.int64)
                colbuf = np.empty(ohw, np.float32)
                conv._lib().conv_bwd_weights_gemv(
                    *p, ptr(dy2), ptr(x2), ptr(gw2), ptr(part), len(part) - 1, ohw, ptr(colbuf)
                )
            else:
                parts = [im * g.od * ohw for im in images]
                offs = np.cumsum([0, *conv._sse41_k_blocks(ohw)[:-1]])
                runs = [int(q * ohw + off) for q in range(v) for off in offs]
                conv._run_weights(dy2, x2, gw2, p, parts, runs, False)
            gw = gw2.reshape(w.shape)
    if want_b:  # per output row (image, od, oh) one chain, added to the channel's sum
        gb = conv._gemm_jit_bias(dy2, _plane(g, n=v))
    return gw, gb


def _vector_weights(dy, x, w, g: Geometry3, profile, nthr: int, images: list[int]) -> np.ndarray:
    """gemm:jit backward weights at AVX2: per image, od: sgemm('T', 'N', M = C*KS, N = OC, K = OH*OW)
    with LDA = K (im2col) or OD*OH*OW, LDB = OD*OH*OW, LDC = M onto the thread's sum (beta 0 first);
    the threads' sums (more than one image and thread) added in order onto 0."""
    from harness.impl.onednn_sgemm import Call, isa_of, sgemm

    os_, ks, m_all = g.oh * g.ow, g.kd * g.kh * g.kw, g.od * g.oh * g.ow
    isa, inner = isa_of(profile), (1 if nthr > 1 else profile.threads)
    reduce = g.n != 1 and nthr != 1
    col = not _plain(g)
    m = g.c * ks
    call = Call(True, False, m, g.oc, os_, os_ if col else m_all, m_all, m)
    dyf, xf = np.ascontiguousarray(dy).reshape(-1), np.ascontiguousarray(x).reshape(-1)
    x2 = _virtual_input(x, g) if col else None
    total = np.zeros(g.oc * m, np.float32)
    if not reduce:
        images = [0, g.n]
    for t0, t1 in pairwise(images):
        part = np.zeros(g.oc * m, np.float32)
        for im in range(t0, t1):
            for o_d in range(g.od):
                if col:
                    cols = conv._im2col(x2[im * g.od + o_d], g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.oh, g.ow)
                    a, ao = np.ascontiguousarray(cols).reshape(-1), 0
                else:
                    a, ao = xf, im * g.c * m_all + o_d * os_
                first = im == t0 and o_d == 0
                sgemm(isa, inner, call, a, ao, dyf, im * g.oc * m_all + o_d * os_, int(not first), part, 0)
        total = part if not reduce else total + part
    return total.reshape(w.shape)


def _block_terms(valid: list[int], g: Geometry3, channels: int, block: int, ends: bool) -> list[tuple[int, int, int]]:
    """The taps of a direct kernel's chains over (kd, channel) planes: per block of ``block`` channels,
    (plane kd * channels + channel, kh, kw) over the ``valid`` depths, rows, columns and the block's
    channels in that order; with ``ends``, (-1, 0, 0) before each block but the first (a block's end:
    its sum added to the output)."""
    terms: list[tuple[int, int, int]] = []
    for c0 in range(0, channels, block):
        if c0 and ends:
            terms.append((-1, 0, 0))
        terms.extend(
            (k * channels + ch, i, j)
            for k in valid
            for i in range(g.kh)
            for j in range(g.kw)
            for ch in range(c0, min(channels, c0 + block))
        )
    return terms


def _strided_data(dy, w, g: Geometry3, profile: KernelProfile, simd: int) -> np.ndarray:
    """brgconv_strided's 3-D backward data (exec_base, jit_brgemm_conv_bwd_strided.cpp; ``simd`` 16
    at AVX512_CORE, 8 for brgconv_strided:avx2): the 2-D model's blocking and brgemm calls of the (H,
    W) plane (``conv._strided_blocking``, ``_strided_kw_calls``, ``_strided_row_calls``), each call's
    batch over the depth taps kd that reach the input depth (in order), then its kernel rows, its
    taps kw and every output channel: one chain from 0, added to the calls before (csrc/conv.c
    conv_bwd_data_terms, one part a call). Where the stride does not divide W (exec_trans, as the
    2-D ``conv._brgconv_trans_data``): per input element a call per block of kernel rows (all KH, or
    one), each over the depth taps, its rows, every kw and output channel. Its blocking search counts
    the input depths with the images (the plane's search over N*D images: measured, where N, N*D and
    N*OD give other blockings, over N alone 2 of 8 gave other bits). A strided 1x1x1 kernel too
    (one call: a chain over the output channels)."""
    plane = _plane(g)
    blocking = conv._strided_blocking(
        plane._replace(n=g.n * g.d), profile.threads, simd, profile.l1_per_core, profile.l2_per_core
    )
    lib, oc, kd = conv._lib(), g.oc, g.kd
    w2 = np.ascontiguousarray(w.transpose(2, 0, 1, 3, 4)).reshape(kd * oc, g.c, g.kh, g.kw)  # (kd, oc)
    p = _plane(g, oc=kd * oc)
    gx = np.zeros((g.d, g.n, g.c, g.h, g.w), np.float32)
    for i_d in range(g.d):
        valid = [k for k in range(kd) if (i_d + g.pd - k) % g.sd == 0 and 0 <= (i_d + g.pd - k) // g.sd < g.od]
        if not valid:
            continue
        dy2 = np.zeros((g.n, kd, oc, g.oh, g.ow), np.float32)
        for k in valid:
            dy2[:, k] = dy[:, :, (i_d + g.pd - k) // g.sd]
        dy2 = dy2.reshape(g.n, kd * oc, g.oh, g.ow)
        if g.w % g.sw:  # exec_trans: per input element a call per block of kernel rows
            terms = []
            for rows in conv._row_blocks(plane, blocking.kh_block):
                batch = [(k * oc + o, i, j) for k in valid for i in rows for j in range(g.kw) for o in range(oc)]
                terms.extend([(-1, 0, 0)] * bool(terms) + batch)
            t = np.array(terms, np.int64).reshape(-1, 3)
            lib.conv_bwd_data_terms(*p, ptr(dy2), ptr(w2), ptr(gx[i_d]), ptr(t), len(t), 1)
            continue
        done: dict[tuple, np.ndarray] = {}
        for start in range(0, g.w, blocking.iw_block):
            for iw in range(start, min(g.w, start + g.sw)):
                calls = conv._strided_kw_calls(plane, iw, blocking.iw_block)
                key = tuple(tuple(map(tuple, phase)) for phase in calls)
                if key not in done:
                    terms: list[tuple[int, int, int]] = []
                    for rows, call in conv._strided_row_calls(plane, calls, blocking.kh_block):
                        batch = [(k * oc + o, i, j) for k in valid for i in rows for j in call for o in range(oc)]
                        if batch:
                            terms.extend([(-1, 0, 0)] * bool(terms) + batch)
                    t = np.array(terms, np.int64).reshape(-1, 3)
                    done[key] = np.zeros((g.n, g.c, g.h, g.w), np.float32)
                    lib.conv_bwd_data_terms(*p, ptr(dy2), ptr(w2), ptr(done[key]), ptr(t), len(t), 1)
                cols = slice(iw, min(g.w, start + blocking.iw_block), g.sw)
                gx[i_d][..., cols] = done[key][..., cols]
    return np.ascontiguousarray(gx.transpose(1, 2, 0, 3, 4))


def _direct_data(dy, w, g: Geometry3, block: int) -> np.ndarray:
    """jit:avx2's (``block`` 8) and jit:avx512_core's (16) backward data (stride 1): per input depth,
    a 2-D problem over output channels (kd, oc) with grad_output's planes id + PD - kd; per block of
    output channels one chain over (kd, kh, kw, channel), the blocks' sums added (csrc/conv.c
    conv_bwd_data_terms)."""
    lib = conv._lib()
    oc, kd = g.oc, g.kd
    gx = np.empty((g.d, g.n, g.c, g.h, g.w), np.float32)
    w2 = np.ascontiguousarray(w.transpose(2, 0, 1, 3, 4)).reshape(kd * oc, g.c, g.kh, g.kw)  # (kd, oc)
    p = _plane(g, oc=kd * oc)
    for i_d in range(g.d):
        valid = [k for k in range(kd) if 0 <= i_d + g.pd - k < g.od]
        dy2 = np.zeros((g.n, kd, oc, g.oh, g.ow), np.float32)
        for k in valid:
            dy2[:, k] = dy[:, :, i_d + g.pd - k]
        dy2 = dy2.reshape(g.n, kd * oc, g.oh, g.ow)
        terms = _block_terms(valid, g, oc, block, ends=bool(valid))
        t = np.array(terms, np.int64).reshape(-1, 3)
        lib.conv_bwd_data_terms(*p, ptr(dy2), ptr(w2), ptr(gx[i_d]), ptr(t), len(t), 1)
    return np.ascontiguousarray(gx.transpose(1, 2, 0, 3, 4))


def _data_threads(g: Geometry3, threads: int, simd_w: int) -> int:
    """gemm:jit backward data's threads (init_conf, NCDHW): outer threading over the images."""
    os_, is_, ks = g.oh * g.ow, g.h * g.w, g.kd * g.kh * g.kw
    outer_eff = g.n / (-(-g.n // threads) * threads)
    inner = -(-is_ // simd_w) * -(-g.c // simd_w)
    inner_eff = inner / (-(-inner // threads) * threads)
    outer = (
        (os_ / threads < 512 or ks < 64)
        and g.n != 1
        and (outer_eff / inner_eff >= 1 or (is_ * g.c * g.oc) // threads < 64 * 1024)
    )
    return threads if outer else 1


def _data_nthr(g: Geometry3, profile: KernelProfile) -> int:
    """gemm:jit backward data's threads (``_data_threads``), refusing its pixel blocks (the im2col
    buffer past the scratchpad's limit)."""
    nthr = _data_threads(g, profile.threads, conv._simd_w(profile))
    col = 0 if _plain(g) else g.c * g.kd * g.kh * g.kw * g.oh * g.ow
    if col and 4 * nthr * col > _limit(g, profile.threads):
        raise ParityError("conv3d backward data: gemm:jit's pixel blocks (scratchpad limit) are not modelled")
    return nthr


def _vector_data(dy, w, g: Geometry3, profile: KernelProfile) -> np.ndarray:
    """gemm:jit backward data at AVX2 and AVX512_CORE (execute_backward_data_ncsp, 3-D): per image, per
    od in order, one sgemm('N', 'T', M = OH*OW, N = C*KD*KH*KW, K = OC) with LDA = OD*OH*OW (the
    plane of grad_output in place), LDB = N, into the column (LDC = M; without im2col into grad_input
    in place, LDC = OD*OH*OW); harness.impl.onednn_sgemm's sgemm, on one thread inside the outer
    threading over the images, else on all. The column added onto zeros by col2im_3d, which per
    input element takes the output pixels (oh, ow) in order: the taps (kh, kw) from the last."""
    from harness.impl.onednn_sgemm import Call, isa_of, sgemm

    nthr = _data_nthr(g, profile)
    os_, n_cols, m_all = g.oh * g.ow, g.c * g.kd * g.kh * g.kw, g.od * g.oh * g.ow
    isa, inner, col = isa_of(profile), (1 if nthr > 1 else profile.threads), not _plain(g)
    call = Call(False, True, os_, n_cols, g.oc, m_all, n_cols, os_ if col else m_all)
    dyf, wf = np.ascontiguousarray(dy).reshape(-1), np.ascontiguousarray(w).reshape(-1)
    gx = np.zeros((g.n, g.c, g.d, g.h, g.w), np.float32)
    pixels = np.arange(os_)
    for im in range(g.n):
        for o_d in range(g.od):
            if not col:
                sgemm(isa, inner, call, dyf, (im * g.oc * g.od + o_d) * os_, wf, 0, 0, gx.reshape(-1),
                      (im * g.c * g.od + o_d) * os_)  # fmt: skip
                continue
            cols = np.empty(n_cols * os_, np.float32)
            sgemm(isa, inner, call, dyf, (im * g.oc * g.od + o_d) * os_, wf, 0, 0, cols, 0)
            taps = cols.reshape(g.c, g.kd, g.kh, g.kw, os_)
            for k in _depth_valid(g, o_d):
                plane = gx[im, :, o_d * g.sd - g.pd + k]
                for i in reversed(range(g.kh)):
                    for j in reversed(range(g.kw)):
                        iy = (pixels // g.ow) * g.sh - g.ph + i
                        ix = (pixels % g.ow) * g.sw - g.pw + j
                        at = (iy >= 0) & (iy < g.h) & (ix >= 0) & (ix < g.w)
                        plane[:, iy[at], ix[at]] += taps[:, k, i, j, at]
    return gx


def _gemm_jit_data(dy, w, g: Geometry3, profile: KernelProfile) -> np.ndarray:
    """gemm:jit backward data at SSE4.1: per image, per od in order, the sgemm's column (per tap a
    chain over the output channels in the sgemm's K blocks) added onto the input gradient (zeros
    first) by torch 2.13.0's col2im_3d, which per input element takes the output pixels (oh, ow) in
    order: the taps (kh, kw) from the last (measured: the mirrored oneDNN source's order, taps from
    the first, misses elements that several taps of one output depth reach)."""
    _data_nthr(g, profile)
    lib = conv._lib()
    p = _plane(g)
    gx = np.zeros((g.n, g.c, g.d, g.h, g.w), np.float32)
    blocks = conv._sse41_k_blocks(g.oc)
    for o_d in range(g.od):
        dyd = np.ascontiguousarray(dy[:, :, o_d])
        for k in range(g.kd):
            i_d = o_d * g.sd - g.pd + k
            if not 0 <= i_d < g.d:
                continue
            wk = np.ascontiguousarray(w[:, :, k])
            for i in reversed(range(g.kh)):  # per element the output pixels (oh, ow) in order
                for j in reversed(range(g.kw)):
                    terms: list[tuple[int, int, int]] = []
                    o0 = 0
                    for size in blocks:
                        if terms:
                            terms.append((-1, 0, 0))
                        terms.extend((o, i, j) for o in range(o0, o0 + size))
                        o0 += size
                    t = np.array(terms, np.int64).reshape(-1, 3)
                    colv = np.empty((g.n, g.c, g.h, g.w), np.float32)
                    lib.conv_bwd_data_terms(*p, ptr(dyd), ptr(wk), ptr(colv), ptr(t), len(t), 0)
                    rr = np.arange(g.h)[:, None] + g.ph - i
                    cc = np.arange(g.w)[None, :] + g.pw - j
                    reach = (rr >= 0) & (rr % g.sh == 0) & (rr // g.sh < g.oh)
                    reach = reach & (cc >= 0) & (cc % g.sw == 0) & (cc // g.sw < g.ow)
                    plane = gx[:, :, i_d]
                    plane[:, :, reach] += colv[:, :, reach]
    return gx
