"""Grouped 2-D convolution (``groups > 1``), forward and backward, as torch 2.13.0 runs it on x86 CPUs;
``conv2d`` and ``conv2d_backward`` here take any ``groups`` and hand one group to harness.impl.conv.

Shapes (NCHW, float32, contiguous): x (N, C, H, W), w (OC, C / groups, KH, KW), b (OC,) or None,
y (N, OC, OH, OW); not transposed; dilated: the last section below.

What runs (measured with ``torch._C._select_conv_backend`` and ONEDNN_VERBOSE at the three x86 levels,
1 and 2 threads; docs/impl/kernels.md has it in full):

- ATen's ``thnn`` per group (``_convolution`` slices the input, weight and bias per group and runs
  ``slow_conv2d`` on each, the outputs concatenated) where a 1x1 kernel has stride 1, fewer than 16
  images and 1 thread (ConvUtils.h ``use_mkldnn``; its small-image rule does not apply to groups):
  harness.impl.conv's thnn model per group, every pass, any channels a group. ATen's ``subtensor``
  narrows each operand and copies it only where the part is not contiguous (the input's and
  grad_output's of more than one image, a grad_output that was not contiguous); the weight's and one
  image's parts stay views at their offsets in torch's buffer, which MKL's sgemm peels by
  (``_subtensors``). grad_bias is each group's sum as its grad_output lies (harness.trace.impl_ops).
- depthwise (groups = C = OC) otherwise goes to oneDNN's ``jit_dw:sse41`` / ``jit_dw:avx2`` /
  ``jit_dw:avx512_core`` (jit_uni_dw_conv_kernel_f32.cpp, jit_uni_dw_convolution.cpp; channels in
  blocks of 8, 8, 16; AVX2 and AVX-512 pad the channels up to a whole block, SSE4.1 declines C not a
  multiple of 8 and oneDNN runs gemm:jit):

  - forward: per output one chain from the bias over the taps (kh, kw) row by row, the padding's taps
    skipped; fused (vfmadd231ps) at AVX2/AVX-512, at SSE4.1 each product rounded and added (mulps,
    addps). Declined (``dw_forward_declines``: the kernel outside the input, or a left or right
    padding over the width unroll of 3, 4 or 6 columns): gemm:jit.
  - backward data: per input element one chain from 0 over the taps (kh, kw) that reach it, row by
    row; fused at AVX2/AVX-512, unfused at SSE4.1.
  - backward weights and bias: per weight element one chain from 0 over (image, oh, ow), fused at
    AVX2/AVX-512 (unfused at SSE4.1), each image's pixels in the kernel's order (``_dw_pixel_order``:
    calls of 15 rows; within a call, where OW is over 30, blocks of columns, each over the call's
    rows); the bias a chain of additions over (image, oh, ow) in order.
    oneDNN's harness_mb_reduction splits the channel blocks between the threads first; where there
    is one block and more threads, the images (balance211), each thread's sum added in order.
    Declined (``dw_weights_declines``: a kernel wider than 3, a stride wider than the kernel, padding
    over half the kernel, an odd padding over 1 not a multiple of the stride, a short input): gemm:jit.
- ``gemm:jit`` at SSE4.1 for a depthwise convolution (C not a multiple of 8, or jit_dw declines): per
  group oneDNN's im2col and SSE4.1 sgemm with one output channel and K = KH * KW terms (at most 256):
  the forward one unfused chain over (kh, kw) with the bias added last, grad_input per tap one term
  added onto zeros in (kh, kw) order (the jit_dw order, unfused); grad_weight and grad_bias (also where
  jit_dw's weights kernel declines) harness.impl.conv's gemm:jit per group with init_conf's outer
  threading and pixel block over all the groups (``_sse41_groups_weights_conf``, as for groups of
  several channels below: oneDNN's bwd_weights_balance gives min(groups, threads) threads whole groups,
  then splits each group's images between threads // groups of them: measured at 4 and 8 threads on two
  channels, where one thread a group gave other bits; a group's own configuration on threads // groups
  threads, the rule before, kept a group's images on one thread where its pixels reached 256 a thread
  and gave other grad_weight bits in 2 of 50 random depthwise draws on 8 threads, 3 channels over 28 x 21
  and 32 x 39 grids), where a group's output is one pixel block.

- groups of several channels with whole blocks of 8 input and output channels per group: oneDNN's
  one-group kernels run group by group (the group an outer loop of their blocks), each group's chain
  as harness.impl.conv's for that group's shape: ``jit:sse41`` and ``jit:avx2``'s forward (from the
  bias over blocks of 8 channels, (kh, kw), channel), ``jit:avx2``'s grad_input at stride 1 (its
  chunks of output-channel blocks). Where those kernels decline oneDNN runs gemm:jit. At AVX2 a
  strided grad_input of more than 8 output channels a group runs ``brgconv_strided:avx2`` where its
  search over all the groups finds a blocking (any input channels a group; before, 4 input channels
  a group with 16 outputs had been taken for gemm:jit and gave other bits), modelled per group as at
  AVX512_CORE below, else (8 output channels a group: ResNeXt-50's first strided 3x3) jit:avx2 group
  by group where its init_conf takes the group (equal strides, ``conv._avx2_data_declines``), its
  chunks' chains over the taps that reach each input pixel, else gemm:jit (measured on this Zen 5:
  ResNeXt-50's shape and 200 random strided draws of whole blocks of 8, 2 to 64 groups, strides 2
  and 3, a quarter with NaN, infinities, zeros of both signs and subnormals, 1, 2, 4, 8 and 16
  threads: every route ONEDNN_VERBOSE named as predicted, 88 jit:avx2, 183 of 210 exact, 27
  refused (brgconv_strided's NaN), 0 other; ResNeXt-50 32x4d's and RegNetY's grouped
  convolutions at batch 2, every pass at the three levels on 1 to 16 threads, 900 of 900 tensors
  bit for bit), and a strided grad_weight of whole blocks of 8 jit:avx2's group model
  (``AVX2_GROUPS``) or gemm:jit where it declines (measured on a Zen 5: 40 strided draws at 1, 2 and
  4 threads, 84 brgconv_strided:avx2 routes and 63 jit:avx2 weights so named, every pass bit for bit
  but NaN signs and the refusals named below).
- ``jit:avx512_core`` for groups of several channels (1x1 too; measured on an AMD EPYC Zen 5, L1d
  48 KiB): per group and per block of 16, 8 or 4 input channels (the largest dividing both the
  group's input and output channels: init_conf's smaller vectors for groups, channels not padded) a
  fused chain from 0 over (kh, kw, channel), the first block's sum plus the bias, the others added;
  taken by its own checks (``_avx512_group_forward_takes``: a kernel wider than 3 its
  embedded-broadcast unroll's padding and code-size checks, exact; narrower ones always within its
  narrowest unroll), where it declines jit:avx2 group by group or gemm:jit (measured); grad_input
  alike per block of output channels, each block's chain from 0, added, where its data checks take
  the group (``_avx512_group_data_takes``: init_conf's checks with the group's block in their L1,
  code-size and block-count terms; the one-group checks, over channels padded to 16, declined 14- and
  15-column kernels it takes), at stride 1 else jit:avx2 per group or gemm:jit.
- at AVX512_CORE a kernel in the padding runs ``gemm:jit`` over all the groups in every pass (both
  direct kernels decline). A strided grad_input (``_avx512_data``) runs, in oneDNN's order,
  ``brgconv_strided:avx512_core`` above 16 output channels a group where its blocking search finds a
  blocking, jit:avx512_core (above), ``brgconv_strided:avx2`` above 8, else gemm:jit (the brgemm
  kernels decline a group of no more output channels than a vector holds): brgconv_strided per group
  as harness.impl.conv's one-group model (``conv.brgconv_strided_data``, the one channels-last also
  runs), its search counting every group's work (jit_brgemm_conv_bwd_utils.cpp: ngroups in the work
  amount, the per-thread loops and the row block's share: the one group's search had given other
  bits, 9,502 of 11,520 on one shape); refused over NaN or infinite grad_output
  or weights (as on nxc: which NaN it gives is not modelled). grad_weight and grad_bias of whole
  blocks of 8 channels not both of 16 ``jit:avx2``'s group model (``AVX2_GROUPS``: jit:avx512_core's
  weights take only blocks of 16; strides 1 and 2), of blocks of 16 (1x1 too: jit_1x1 declines
  groups) jit:avx512_core group by group (``AVX512_WEIGHTS_GROUPS``: its balance gives each group
  threads // groups threads, one where there are fewer threads than groups, its last step against
  all the threads never applying; its bias reducer over the whole team and every group's blocks,
  ``_avx512_weights_parts``; jit:avx2's model where its checks decline, gemm:jit where both do);
  of channels not whole blocks of 8, gemm:jit over all the groups. Measured on this Zen 5 at 1, 2,
  4, 8 and 16 threads (RegNetY-4GF-like shapes, group width 64, and 40 random draws a thread
  count, a quarter with NaN, infinities, zeros of both signs and subnormals): 239 of 240
  grad_weights and grad_biases bit for bit, 1 refused (slow_conv2d per group, NaNs of 2 kinds), 0
  other; above 2 threads a group it had been refused.
  Measured on this Zen 5 (random draws: 2 to 8 groups of 4 to 64 channels each side, off 16 too,
  strides 1 and 2, kernels 1x1 to 5x5 and 1..3 by 5..15, padding, 1 to 4 images, a fifth with NaN,
  infinities, zeros of both signs and subnormals; 1, 2 and 4 threads): every route ONEDNN_VERBOSE
  named as predicted, every pass bit for bit but the NaN signs below and the refusals named here
  (docs/impl/kernels.md has the counts).
- ``gemm:jit`` at SSE4.1 for groups of several channels and channel multipliers: the forward (where
  jit:sse41 does not run) as at AVX2 below, over all the groups (its threads split the (image,
  group) pairs' pixels, so a piece can be one pixel: an sgemm of one row, oneDNN's gemv 'T');
  every backward: oneDNN gives each thread whole groups, each group's sgemms harness.impl.conv's
  gemm:jit model on one thread; refused where its forward would run ref:any or a group's backward
  splits its output into pixel blocks.

- ``gemm:jit`` at AVX2 and AVX-512 (``GEMM_JIT_GROUPS``): where jit_dw declines a depthwise pass
  (ConvNeXt's 7x7 grad_weight, forwards with the kernel in the padding), where no direct kernel takes
  a group's channels (``_no_channel_blocks``: at AVX2 output channels not a multiple of 8 or input
  channels from 8 not a multiple of 8; at AVX-512 output channels not a multiple of 8 and no block of
  16, 8 or 4 dividing both; channel multipliers), the backward of groups of 2 to 7 input channels at
  AVX2 (its forward jit:avx2's flat kernel, refused), and where the direct kernels decline groups of whole
  blocks of 8 (``_direct_kernels_decline``: at AVX2 every pass, at AVX-512 the weights): harness.impl
  .conv's gemm:jit model over all the groups at once (its blocking over the (image, group) pairs,
  bwd_weights_balance's split of the groups and images), the forward refused where it runs ref:any.

Dilated (``path``'s ``dilation``; ATen hands every dilated grouped convolution to oneDNN: its
``use_mkldnn`` counts a dilation as a stride and groups skip the small-image rule; ONEDNN_VERBOSE on
this host, a Zen 5, named the kernel ``path`` predicts for every pass of every draw measured):

- depthwise: jit_dw's forward with the taps apart (its init_conf checks the paddings against the
  kernel's extent, ``dw_forward_declines``), the per-channel chain above; jit_dw's backward kernels
  take no dilation, so grad_input, grad_weight and grad_bias run gemm:jit (at SSE4.1 the depthwise
  gemm:jit models above, at AVX2/AVX-512 ``GEMM_JIT_GROUPS``), im2col and col2im with the dilation.
- groups of several channels and channel multipliers (``_dilated_several``): the undilated routes with
  the one-group kernels' dilated checks: jit:sse41 / jit:avx2 group by group, jit:avx512_core in its
  blocks of 16, 8 or 4 (``_avx512_group_forward_takes`` over the kernel's extent), jit:avx2's flat
  forward where the whole input has fewer than 8 channels (``_dilated_flat``), else gemm:jit;
  grad_input at stride 1 jit:avx2 or
  jit:avx512_core where their checks take it (strided: gemm:jit); grad_weight at SSE4.1 gemm:jit
  group by group with init_conf's threading over all the groups (``_sse41_groups_weights_conf``), at
  AVX2 gemm:jit (jit:avx2's weights take no dilation), at AVX-512 jit:avx512_core for blocks of 16 on
  one thread, else gemm:jit.

Measured on an AMD EPYC Zen 5 (random dilated conv1d and conv2d, dilation 2 to 4, kernels 2 to 7,
strides 1 and 2, paddings up to the kernel's extent and past it, 1 to 4 images, channels off the 8
and 16 lanes, every fifth draw with NaN, infinities, -0 and denormals in the input and grad_output;
each draw's forward and every gradient through the trace replay, 30 draws a level and thread count
at baseline, avx2 and avx512 on 1, 2 and 4 threads, 1080 tensors each): depthwise 991 bit for bit,
89 refused, 0 other; groups of several channels 950 bit for bit, 130 refused, 0 other; channel
multipliers 1015 bit for bit, 65 refused, 0 other (every pass's kernel the one ONEDNN_VERBOSE named;
docs/impl/kernels.md has the table). Refused: the NaN results whose NaN may be of either kind (the
replay's rule), SSE4.1's gemm:jit grad_weight with an infinite or NaN grad_output over the padding
(harness.impl.conv), forwards beyond jit:avx512_core's settled bounds (``_AVX512_BELOW``), grad_weight
of groups of blocks of 16 on several threads.

Not modelled, refused (ParityError naming the kernel): at AVX-512 jit:avx2's flat forward (fewer
than 8 input channels a group) where jit:avx512_core declines, brgconv_strided's grad_input over NaN
or infinite grad_output or weights; gemm:jit at SSE4.1
where a group's backward splits its output into pixel blocks (scratchpad limit) or its forward runs
ref:any; jit:avx2's flat forward (groups of 2 to 7 input channels); slow_conv2d per group on aarch64 but one product
per element (depthwise forward and grad_input); other torch releases and aarch64's oneDNN. NaN signs:
where NaN inputs meet in a chain, oneDNN's vfmadd231ps keeps its own operand's NaN, the C models the
compiler's: on AVX-512 (and AVX2's gemm:jit) the sign of some NaN outputs differs (measured: 1 of 60
forwards, 9 of 60 grad_weights, every other bit equal; in the AVX-512 sweeps above, of 44 draws a
thread count with NaN, infinities, zeros of both signs and subnormals (of 235), 17 forwards, 14 or 15
grad_inputs (jit:avx512_core), 11 grad_weights (gemm:jit) and 9 grad_biases (jit:avx2's,
jit:avx512_core's and gemm:jit's reducers)); not modelled.
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv
from harness.impl._lib import aligned, f32, ptr
from harness.impl.profiles import KernelProfile

THNN_GROUPS = "thnn per group"
GEMM_JIT_DW = "gemm:jit (depthwise, SSE4.1)"
GEMM_JIT_GROUPS = "gemm:jit (all groups, its AVX2/AVX-512 sgemm)"
PER_GROUP = " per group"  # a one-group kernel of harness.impl.conv run on each group
AVX512_GROUPS = "jit:avx512_core (channel blocks of 4, 8 or 16 per group)"
AVX2_GROUPS = "jit:avx2 (group by group, its reducers over all the groups)"
AVX512_WEIGHTS_GROUPS = "jit:avx512_core weights (group by group, threads // groups threads a group)"
DIRECT_1X1_GROUPS = "jit:sse41 or jit:avx2 on 1x1 groups (one chain a group)"
# brgconv_strided's grad_input of groups, by its vector's floats (harness.impl.conv's one-group model per group)
BRG_STRIDED_GROUPS = {16: "brgconv_strided:avx512_core per group", 8: "brgconv_strided:avx2 per group"}
# oneDNN's jit_dw kernels by ATen level: (name, channel block, width unroll ur_w, fused)
_DW = {
    "default": ("jit_dw:sse41", 8, 3, False),
    "avx2": ("jit_dw:avx2", 8, 4, True),
    "avx512": ("jit_dw:avx512_core", 16, 6, True),
}


def _split(x_shape, w_shape, groups: int) -> tuple[int, int, int]:
    """(channels per group, output channels per group, channel multiplier) or ParityError."""
    c, oc, cg = x_shape[1], w_shape[0], w_shape[1]
    if groups < 1 or c % groups or oc % groups or cg * groups != c:
        raise ParityError(f"conv2d: weight {list(w_shape)} does not fit input {list(x_shape)} with {groups} groups")
    return cg, oc // groups, oc // c


def _depthwise(x_shape, w_shape, groups: int) -> bool:
    cg, ocg, _ = _split(x_shape, w_shape, groups)
    return cg == 1 and ocg == 1


def _group_geometry(x_shape, w_shape, stride, padding, groups: int, dil: tuple[int, int] = (1, 1)) -> conv.Geometry:
    """The geometry of one group (C / groups input, OC / groups output channels; taps ``dil`` apart)."""
    cg, ocg, _ = _split(x_shape, w_shape, groups)
    n, _, h, wd = x_shape
    return conv._geometry((n, cg, h, wd), (ocg, cg, *w_shape[2:]), stride, padding, dil)


def _thnn_per_group(x_shape, w_shape, stride, profile: KernelProfile) -> bool:
    """ATen keeps a 1x1 kernel at stride 1 with fewer than 16 images on 1 thread (slow_conv2d, per group)."""
    return conv.thnn_faster(x_shape[0], w_shape[2], w_shape[3], stride, profile)


def _level(profile: KernelProfile) -> tuple[str, int, int, bool]:
    if profile.aten not in _DW:
        raise ParityError(f"conv2d with groups: the impl models x86's oneDNN jit_dw kernels only, not {profile.aten}")
    return _DW[profile.aten]


def dw_forward_declines(g: conv.Geometry, ur_w: int, dil: tuple[int, int] = (1, 1)) -> bool:
    """Whether jit_uni_dw_conv_fwd_kernel's init_conf declines (blocked layout): the kernel outside the
    input, or a left padding or a right padding (up to the last whole unroll) over the width unroll
    (ur_w, or OW below it); with the taps ``dil`` apart, both over the kernel's extent."""
    if conv._kernel_outside_src(g, dil):
        return True
    ur = min(ur_w, g.ow)
    right = max(0, conv._end_pad(g.pw, g.ow - g.ow % ur, g.w, g.sw, conv._extended(g, dil).kw))
    return g.pw > ur or right > ur


def dw_weights_declines(g: conv.Geometry) -> bool:
    """Whether jit_uni_dw_conv_bwd_weights_kernel's init_conf declines: a kernel wider than 3, a stride
    wider than the kernel, a padding over half the kernel's side, an input shorter than the kernel
    (and the top padding's stride remainder), a top or bottom padding over 1 not a multiple of the
    stride."""
    r = max(0, conv._end_pad(g.pw, g.ow, g.w, g.sw, g.kw))
    b = max(0, conv._end_pad(g.ph, g.oh, g.h, g.sh, g.kh))
    hpad, wpad = g.kh // 2, g.kw // 2
    return not (
        g.kw <= 3
        and g.sw <= g.kw
        and g.oh == (g.h + g.ph + b - g.kh) // g.sh + 1
        and g.ow == (g.w + g.pw + r - g.kw) // g.sw + 1
        and max(g.ph, b) <= hpad
        and max(g.pw, r) <= wpad
        and g.h >= g.kh + (-g.ph) % g.sh
        and (g.ph <= 1 or g.ph % g.sh == 0)
        and (b <= 1 or b % g.sh == 0)
    )


def path(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile,
         dilation: tuple[int, int] = (1, 1)) -> tuple[str, str, str]:  # fmt: skip
    """(forward, backward data, backward weights): the kernel torch runs for each pass, or a name
    starting with ``refuse:`` for a kernel the impl does not model. ``dilation``: the taps' (ATen hands
    every dilated grouped convolution to oneDNN; the module's docstring, dilated)."""
    dil = tuple(dilation)
    if dil != (1, 1):
        conv.dilation_refused(x_shape, w_shape, dil, profile)
    if dil == (1, 1) and _thnn_per_group(x_shape, w_shape, stride, profile):
        if not profile.aarch64:
            _split(x_shape, w_shape, groups)
            return (THNN_GROUPS,) * 3
        # NVPL's sgemm on each group's slices (at their offsets) is measured for one product per element only
        unmeasured = "refuse:ATen's slow_conv2d per group on aarch64 (NVPL's sgemm on offset slices), not measured"
        return (THNN_GROUPS, THNN_GROUPS, unmeasured) if _depthwise(x_shape, w_shape, groups) else (unmeasured,) * 3
    name, block, ur_w, _fused = _level(profile)
    g = _group_geometry(x_shape, w_shape, stride, padding, groups, dil)
    if not _depthwise(x_shape, w_shape, groups):
        if dil != (1, 1):
            return _dilated_several(g, groups, dil, profile)
        if profile.aten == "avx512":
            fwd, data, weights = _several_channels(g, groups, stride, profile)
            if conv._kernel_outside_src(g):  # every direct kernel's weights decline it: gemm:jit (measured)
                weights = _vector_gemm_jit(g, groups, profile, 2)
            elif _avx2_weights_at_avx512(g):
                weights = _vector_gemm_jit(g, groups, profile, 2) if conv._avx2_weights_declines(g) else AVX2_GROUPS
            elif g.c % 16 == 0 and g.oc % 16 == 0:
                weights = _avx512_weights(g, groups, profile)
            elif g.c % 8 or g.oc % 8:  # no direct weights kernel takes the group's channels: gemm:jit (measured)
                weights = _vector_gemm_jit(g, groups, profile, 2)
            return fwd, _avx512_data(g, data, groups, profile), weights
        fwd, data, weights = _several_channels(g, groups, stride, profile)
        if profile.aten == "avx2" and (g.sh, g.sw) != (1, 1):
            data, weights = _avx2_strided(g, groups, profile, data, weights)
        return fwd, data, weights
    if profile.aten == "default":
        fallback = (GEMM_JIT_DW,) * 3
    else:
        fallback = tuple(_vector_gemm_jit(g, groups, profile, which) for which in range(3))
    whole = profile.aten != "default" or x_shape[1] % block == 0
    fwd = name if whole and not dw_forward_declines(g, ur_w, dil) else fallback[0]
    undilated = dil == (1, 1)  # jit_dw's backward kernels take no dilation: gemm:jit
    data = name if whole and undilated else fallback[1]
    weights = name if whole and undilated and not dw_weights_declines(g) else fallback[2]
    if weights == GEMM_JIT_DW:
        # per group, init_conf's threading over all the groups (bwd_weights_balance: threads // groups
        # threads a group's images where it threads outward; ``_sse41_groups_weights_conf``); pixel blocks
        # below the output's size (the scratchpad limit) measured to differ: refused
        whole_image = _sse41_groups_weights_conf(g, profile.threads, groups)[1] >= g.oh * g.ow
        refusal = "refuse:gemm:jit's blocks of output pixels in a group's grad_weight"
        weights = GEMM_JIT_SSE41_GROUPS if whole_image else refusal
    return fwd, data, weights


def _dilated_several(
    g: conv.Geometry, groups: int, dil: tuple[int, int], profile: KernelProfile
) -> tuple[str, str, str]:
    """``path`` for dilated groups of several channels or a channel multiplier (``g`` one group's
    geometry, its taps ``dil`` apart): the undilated routes with the one-group kernels' dilated checks
    (harness.impl.conv ``direct_kernels``, ``dilated_backward_kernels``: the paddings against the
    kernel's extent). Forward: whole blocks of 8 input and output channels a group jit:sse41 or
    jit:avx2 group by group, at AVX-512 jit:avx512_core in its blocks of 16, 8 or 4; else gemm:jit over
    all the groups. grad_input at stride 1: jit:avx2 (whole blocks of 8) or jit:avx512_core (its
    blocks) where their checks take it, else gemm:jit (strided: gemm:jit, as for one group).
    grad_weight: at SSE4.1 gemm:jit per group, at AVX2 gemm:jit (jit:avx2's weights take no
    dilation), at AVX-512 jit:avx512_core for groups of blocks of 16 on one thread, else gemm:jit."""
    whole = g.c % 8 == 0 and g.oc % 8 == 0
    gemm = tuple(_vector_gemm_jit(g, groups, profile, which) for which in range(3))
    stride1 = (g.sh, g.sw) == (1, 1)
    if profile.aten == "default":
        fwd = conv.SSE41 + PER_GROUP if whole and not conv._avx2_forward_declines(g, dil) else gemm[0]
        data = _gemm_jit_per_group(g, _weights_threads(profile, groups))
        return fwd, data, _gemm_jit_per_group(g, _weights_threads(profile, groups), profile.threads, groups)
    if g.c < 8 and g.oc % 8 == 0 and (profile.aten == "avx2" or _avx512_block(g) is None):
        return _dilated_flat(g, groups, dil, gemm)
    if profile.aten == "avx2":
        kinds = conv.direct_kernels(g, conv.AVX2, profile, dil)
        fwd = conv.AVX2 + PER_GROUP if whole and kinds[0] == conv.AVX2 else gemm[0]
        takes = whole and stride1 and not conv._avx2_data_declines(conv._extended(g, dil))
        return fwd, conv.AVX2 + PER_GROUP if takes else gemm[1], gemm[2]
    block = _avx512_block(g)
    if block is None or conv._kernel_outside_src(g, dil):  # no direct kernel takes it: gemm:jit
        return gemm
    takes = _avx512_group_forward_takes(g, block, dil)
    fwd = AVX512_GROUPS if takes else (_AVX512_BELOW if takes is None else gemm[0])
    data = gemm[1]
    if stride1 and not conv._avx512_data_declines(g, profile.l1_per_core, dil=dil):
        data = AVX512_GROUPS
    elif stride1 and whole and not conv._avx2_data_declines(conv._extended(g, dil)):
        data = conv.AVX2 + PER_GROUP
    weights = gemm[2]
    if block == 16 and not conv._avx512_weights_declines(g, dil):
        weights = conv.AVX512 + PER_GROUP if profile.threads == 1 else _DILATED_BALANCE
    return fwd, data, weights


def _dilated_flat(g: conv.Geometry, groups: int, dil: tuple[int, int], gemm: tuple[str, ...]) -> tuple[str, str, str]:
    """Dilated groups of fewer than 8 input and a multiple of 8 output channels at AVX2 (AVX-512 where
    no block of 16, 8 or 4 fits): ONEDNN_VERBOSE on this host gave jit:avx2's flat forward where the
    whole input has fewer than 8 channels (1 to 3 a group in 2 to 4 groups; the one-group chain from
    the bias over (kh, kw, channel), group by group) and its checks take it, else gemm:jit (8 and more
    input channels in all); every backward gemm:jit."""
    if g.c * groups < 8 and not conv._avx2_forward_declines(g, dil):
        return conv.AVX2 + PER_GROUP, gemm[1], gemm[2]
    return gemm[0], gemm[1], gemm[2]


_DILATED_BALANCE = "refuse:jit:avx512_core's weights of dilated groups of blocks of 16 on several threads"


def _several_channels(g: conv.Geometry, groups: int, stride, profile: KernelProfile) -> tuple[str, str, str]:
    """``path`` for groups of several channels or a channel multiplier (not depthwise)."""
    if profile.aten != "default" and _no_channel_blocks(g, profile):
        return tuple(_vector_gemm_jit(g, groups, profile, which) for which in range(3))
    what = "groups of several channels" if g.c > 1 else "a channel multiplier over 1"
    rest = weights = f"refuse:oneDNN's backward kernels for {what} (jit per group or gemm:jit)"
    if profile.aten == "default":  # every backward at SSE4.1 is gemm:jit, its weights threaded over all the groups
        rest = _gemm_jit_per_group(g, _weights_threads(profile, groups))
        weights = _gemm_jit_per_group(g, _weights_threads(profile, groups), profile.threads, groups)
    whole = g.c % 8 == 0 and g.oc % 8 == 0
    if whole and profile.aten == "avx2" and tuple(stride) == (1, 1):
        rest = weights = AVX2_GROUPS  # its weights (gemm:jit where they decline), a 1x1's data
    if profile.aten == "avx2" and 1 < g.c < 8:
        # jit:avx2's flat forward takes them (refused below); its backward kernels decline: gemm:jit
        data, flat_weights = (_vector_gemm_jit(g, groups, profile, which) for which in (1, 2))
        return _per_group_forward(g, groups, profile, what), data, flat_weights
    fwd, data = _per_group_forward(g, groups, profile, what), _per_group_data(g, tuple(stride), profile, rest)
    if whole and (g.kh, g.kw) == (1, 1) and profile.aten in ("default", "avx2"):
        fwd = DIRECT_1X1_GROUPS  # jit_1x1 declines groups (measured): one chain, no calls of 128 channels
    declined = _direct_kernels_decline(g, profile)
    fwd, data, weights = (
        _vector_gemm_jit(g, groups, profile, which) if declined[which] else kind
        for which, kind in enumerate((fwd, data, weights))
    )
    return fwd, data, weights


def _avx2_weights_at_avx512(g: conv.Geometry) -> bool:
    """Whether oneDNN's jit:avx2 backward weights runs a group's grad_weight and grad_bias at
    AVX512_CORE: jit:avx512_core's weights kernel takes no smaller channel block than 16 for groups,
    so groups of whole blocks of 8 input and output channels, not both of 16, fall to jit:avx2
    (ONEDNN_VERBOSE on this host); its model (``AVX2_GROUPS``) is measured at strides 1 and 2."""
    whole = g.c % 8 == 0 and g.oc % 8 == 0
    return whole and not (g.c % 16 == 0 and g.oc % 16 == 0)


def _avx512_weights(g: conv.Geometry, groups: int, profile: KernelProfile) -> str:
    """The grad_weight and grad_bias kernel of groups of whole blocks of 16 input and output channels
    at AVX512_CORE (1x1 too: jit_1x1 declines groups), by the one-group checks
    (``conv.direct_kernels``): jit:avx512_core group by group (``AVX512_WEIGHTS_GROUPS``: its balance
    gives each group threads // groups threads, or one where there are fewer threads than groups;
    ``_avx512_weights_parts``), jit:avx2 over the groups where it declines, else gemm:jit."""
    kernel = conv.direct_kernels(g, conv.AVX512, profile)[2]
    if kernel == conv.AVX2:
        return AVX2_GROUPS
    if kernel != conv.AVX512:
        return _vector_gemm_jit(g, groups, profile, 2)
    return AVX512_WEIGHTS_GROUPS


def _avx512_data(g: conv.Geometry, data: str, groups: int, profile: KernelProfile) -> str:
    """grad_input of groups of several channels (or a channel multiplier) at AVX512_CORE: at a stride
    over 1 oneDNN tries brgconv_strided:avx512_core, jit:avx512_core, brgconv_strided:avx2, gemm:jit
    in turn, its brgemm kernels declining a group of no more output channels than a vector holds (16,
    8) or where their blocking search over all the groups finds none, jit:avx512_core where a channel
    block divides the group's channels and its checks with that block take it
    (``_avx512_group_data_takes``); else gemm:jit over all the groups (ONEDNN_VERBOSE on every
    measured draw, each route so predicted). At stride 1 ``data`` as ``path`` found it."""
    if (g.sh, g.sw) == (1, 1):
        return data
    if g.oc > 16 and not conv._strided_declines(g, profile, 16, groups):
        return BRG_STRIDED_GROUPS[16]
    if _avx512_block(g) and _avx512_group_data_takes(g, profile):
        return AVX512_GROUPS
    if g.oc > 8 and not conv._strided_declines(g, profile, 8, groups):
        return BRG_STRIDED_GROUPS[8]
    return _vector_gemm_jit(g, groups, profile, 1)


def brgconv_strided_groups(
    dy: np.ndarray, w: np.ndarray, g: conv.Geometry, groups: int, simd: int, profile: KernelProfile
) -> np.ndarray:
    """brgconv_strided's grad_input of ``groups`` (``simd`` floats a vector: 16 at avx512_core, 8 at
    avx2): harness.impl.conv's one-group model per group, ``g`` one group's geometry; ParityError over
    NaN or infinite operands."""
    if not (np.isfinite(dy).all() and np.isfinite(w).all()):
        raise ParityError(
            "conv2d backward data with groups: brgconv_strided over NaN or infinite grad_output or weights "
            "(which NaN it gives, or a NaN where the model has a number), not modelled"
        )
    parts = zip(_subtensors(dy, groups, 1), _subtensors(w, groups, 0), strict=True)
    return np.concatenate([conv.brgconv_strided_data(d, ws, g, simd, profile, groups) for d, ws in parts], axis=1)


def _avx2_strided(g: conv.Geometry, groups: int, profile: KernelProfile, data: str, weights: str) -> tuple[str, str]:
    """(backward data, backward weights) of a strided convolution of groups of several channels at AVX2:
    brgconv_strided:avx2 first in oneDNN's list for the data, taking a group of more than 8 output
    channels (a vector's) where its blocking search over all the groups finds a blocking
    (ONEDNN_VERBOSE; 4 input channels a group with 16 outputs had run it where the impl said gemm:jit);
    then, for whole blocks of 8, jit:avx2 group by group where its init_conf takes the group
    (``conv._avx2_data_declines``, equal strides; its chunks of output-channel blocks, each chunk's
    chain from 0 over the taps that reach the input pixel, ``_direct_groups_data``), else gemm:jit
    (ResNeXt-50's first strided 3x3, 8 channels a group, runs jit:avx2);
    the weights of whole blocks of 8 jit:avx2's over the groups (``AVX2_GROUPS``) or gemm:jit where it
    declines, as at AVX512_CORE; else ``data`` and ``weights`` as ``_several_channels`` found them."""
    if g.oc > 8 and not conv._strided_declines(g, profile, 8, groups):
        data = BRG_STRIDED_GROUPS[8]
    elif data.startswith("refuse:") and g.c % 8 == 0 and g.oc % 8 == 0:
        # jit:avx2 next (its init_conf takes equal strides, its width unroll a multiple of the stride)
        takes = g.sh == g.sw and not conv._avx2_data_declines(g)
        data = AVX2_GROUPS if takes else _vector_gemm_jit(g, groups, profile, 1)
    if weights.startswith("refuse:") and g.c % 8 == 0 and g.oc % 8 == 0:
        weights = _vector_gemm_jit(g, groups, profile, 2) if conv._avx2_weights_declines(g) else AVX2_GROUPS
    return data, weights


def _no_channel_blocks(g: conv.Geometry, profile: KernelProfile) -> bool:
    """Whether no oneDNN direct kernel at AVX2 or AVX-512 takes a group's channels, so that gemm:jit
    runs every pass: at AVX2, output channels not a multiple of 8 (jit:avx2's blocks) or input
    channels from 8 not a multiple of 8 (below 8 its flat forward takes them, measured: ONEDNN_VERBOSE
    on 4, 9, 18 and 8 input channels a group of 4, 12, 24 and 4 outputs gave gemm:jit in every pass);
    at AVX-512 output channels not a multiple of 8 (jit:avx2's; with a multiple of 8 it takes even one
    input channel a group, measured) and no block of 16, 8 or 4 dividing both (jit:avx512_core's,
    ``_avx512_block``)."""
    if profile.aten == "avx2":
        return g.oc % 8 != 0 or (g.c >= 8 and g.c % 8 != 0)
    return g.oc % 8 != 0 and _avx512_block(g) is None


def _direct_kernels_decline(g: conv.Geometry, profile: KernelProfile) -> tuple[bool, bool, bool]:
    """(forward, backward data, backward weights): where every direct kernel oneDNN tries on groups of
    whole blocks of 8 channels (not 1x1; the backward data at stride 1) declines at AVX2 or AVX-512
    and gemm:jit runs, by the one-group kernels' checks for the group's shape (``conv.direct_kernels``:
    at AVX2 jit:avx2's; at AVX512_CORE jit:avx512_core's, then jit:avx2's, for the weights only: its
    forward and data take groups by their own checks, ``_avx512_group_forward_takes``, ``_avx512_data``)."""
    whole = g.c % 8 == 0 and g.oc % 8 == 0 and (g.kh, g.kw) != (1, 1)
    if not whole or profile.aten not in ("avx2", "avx512"):
        return (False, False, False)
    kinds = conv.direct_kernels(g, conv.AVX512 if profile.aten == "avx512" else conv.AVX2, profile)
    if profile.aten == "avx512":
        return False, False, kinds[2] == conv.GEMM_JIT
    return kinds[0] == conv.GEMM_JIT, kinds[1] == conv.GEMM_JIT and (g.sh, g.sw) == (1, 1), kinds[2] == conv.GEMM_JIT


def _vector_gemm_jit(g: conv.Geometry, groups: int, profile: KernelProfile, which: int) -> str:
    """gemm:jit for pass ``which`` (0 forward, 1 backward data, 2 backward weights) of all the groups
    (harness.impl.conv's model with ``groups``: its blocking over the (image, group) pairs, its
    threads' split of the groups; at SSE4.1 the forward only); the forward refused where it runs
    ref:any."""
    if which == 0 and conv.gemm_jit_forward_declines(g, profile, groups):
        return "refuse:oneDNN's ref:any forward for groups"
    return GEMM_JIT_GROUPS


def _per_group_forward(g: conv.Geometry, groups: int, profile: KernelProfile, what: str) -> str:
    """The forward of groups of several channels: oneDNN's jit:sse41 or jit:avx2 where each group has
    whole blocks of 8 input and output channels (the one-group kernel's chain, group by group; its
    declines run gemm:jit), jit:avx512_core in blocks of 16, 8 or 4 channels (not 1x1), at SSE4.1
    gemm:jit over all the groups; the rest (gemm:jit's AVX2/AVX-512 sgemm, ref:any, jit_1x1) refused."""
    kind = {"default": conv.SSE41, "avx2": conv.AVX2}.get(profile.aten)
    jit = kind is not None and g.c % 8 == 0 and g.oc % 8 == 0 and not conv._avx2_forward_declines(g)
    if jit:  # jit:sse41's checks are jit:avx2's
        return kind + PER_GROUP
    if profile.aten == "avx512" and conv._kernel_outside_src(g):
        # jit:avx512_core's and jit:avx2's checks both decline a kernel in the padding: gemm:jit (measured)
        return _vector_gemm_jit(g, groups, profile, 0)
    if profile.aten == "avx512" and _avx512_block(g):
        takes = _avx512_group_forward_takes(g, _avx512_block(g))
        if takes:
            return AVX512_GROUPS
        if takes is False and (g.oc % 8 or conv._avx2_forward_declines(g)):  # jit:avx2 declines too
            return _vector_gemm_jit(g, groups, profile, 0)
        if takes is False and g.c % 8 == 0:  # jit:avx2 group by group (ONEDNN_VERBOSE, bit for bit)
            return conv.AVX2 + PER_GROUP
        return _AVX512_BELOW
    if profile.aten == "avx2" and g.c < 8:
        return f"refuse:jit:avx2's flat forward (fewer than 8 input channels) for {what}"
    if profile.aten != "default":
        return f"refuse:oneDNN's forward for {what} (jit_1x1 per group, or gemm:jit's AVX2/AVX-512 sgemm)"
    # gemm:jit over all the groups: its threads split the (image, group) pairs' pixels, not whole
    # groups (a group's sgemm on one thread per group gave other bits where a split falls inside an
    # image: 4 of 7 such shapes on 2 threads; the all-groups model, 141 random shapes bit for bit)
    return _vector_gemm_jit(g, groups, profile, 0)


_AVX512_BELOW = "refuse:jit:avx512_core beyond its measured unroll and code bounds for a group (or a kernel below it)"


def _avx512_group_forward_takes(g: conv.Geometry, block: int, dil: tuple[int, int] = (1, 1)) -> bool | None:
    """Whether jit_avx512_common_conv_fwd_kernel_t::init_conf takes a group (``block`` its channel
    block; a group's channels are not padded, so not the one-group checks of
    ``conv._avx512_forward_declines``): True, False, or None where the impl does not settle it.
    Declined: the kernel outside the input. A kernel wider than 3 takes the embedded-broadcast kernel
    (nb_oc_blocking 1, ur_w = min(OW, 28)), so its checks are exact: the left padding and the right
    one without the tail within ur_w, its code (15 bytes an FMA: (1 + left + right padding) * KW *
    block * ur_w, the right padding that of the first unroll's whole blocks) within 256 KiB. Narrower
    kernels: taken where the left and whole right padding fit its narrowest width unroll (min(OW, 5):
    31 / (blocking + 1) at 5 blocks of output channels) and its code with at most 31 columns of
    blocks an unroll fits; else None. Measured on this host (AVX-512, 1x1 kernels too): 85 of 85
    forwards bit for bit, and the routes of wide kernels (``tests/test_impl_live_conv_grouped.py``).
    Dilated (``dil``): the paddings those of the kernel's extent."""
    if conv._kernel_outside_src(g, dil):
        return False
    ekw = conv._extended(g, dil).kw
    right = max(0, conv._end_pad(g.pw, g.ow, g.w, g.sw, ekw))
    if g.kw > 3:
        ur_w = min(g.ow, 28)
        first_r_pad = conv._end_pad(g.pw, ur_w * (g.ow // ur_w), g.w, g.sw, ekw)
        no_tail = max(0, conv._end_pad(g.pw, g.ow - g.ow % ur_w, g.w, g.sw, ekw))
        mult = 1 + (g.pw > 0) + (first_r_pad > 0)
        return g.pw <= ur_w and no_tail <= ur_w and mult * g.kw * block * ur_w * 15 <= 256 * 1024
    narrowest = min(g.ow, 5)
    mult = 1 + (g.pw > 0) + (right > 0)
    fits = g.pw <= narrowest and right <= narrowest and mult * g.kw * block * 31 * 15 <= 256 * 1024
    return True if fits else None


def _avx512_group_data_takes(g: conv.Geometry, profile: KernelProfile) -> bool:
    """Whether jit_avx512_common_conv_bwd_data_kernel_f32::init_conf takes a group's grad_input: its
    checks with the group's channel block (``_avx512_block``: 16, 8 or 4, channels not padded) in
    their L1, code-size and block-count terms (``conv._avx512_data_declines`` with ``block``; measured
    on groups with inputs narrower than the kernel too, every route so predicted)."""
    return not conv._avx512_data_declines(g, profile.l1_per_core, block=_avx512_block(g))


def _avx512_block(g: conv.Geometry) -> int | None:
    """The channel block jit:avx512_core takes for a group: 16, 8 or 4, the largest that divides both
    its input and its output channels (measured); None: none does."""
    return next((b for b in (16, 8, 4) if g.c % b == 0 and g.oc % b == 0), None)


def _terms_groups_forward(
    x,
    w,
    b,
    g: conv.Geometry,
    groups: int,
    terms: np.ndarray,
    bias_mode: int,
    fused: bool = True,
    dil: tuple[int, int] = (1, 1),
) -> np.ndarray:
    """Per group chains over ``terms`` (csrc/conv.c conv_fwd_terms; ``fused``, else each product
    rounded), the groups' outputs concatenated. jit:avx512_core's forward of groups of several
    channels: per block of its channel block (``_avx512_block``) a chain from 0 over (kh, kw,
    channel), the first block's sum plus the bias, each further block's sum added (``bias_mode`` 2,
    as harness.impl.conv's AVX-512 forward with its block of 16); jit:sse41's and jit:avx2's of 1x1
    groups: one chain from the bias over the channels (``bias_mode`` 1)."""
    lib = conv._lib()
    y = np.empty((g.n, g.oc * groups, g.oh, g.ow), np.float32)
    bs = [None] * groups if b is None else _subtensors(b, groups, 0)
    for i, (xs, ws) in enumerate(zip(_subtensors(x, groups, 1), _subtensors(w, groups, 0), strict=True)):
        out = np.empty((g.n, g.oc, g.oh, g.ow), np.float32)
        bias = None if bs[i] is None else ptr(bs[i])
        lib.conv_fwd_terms_dilated(*g, *dil, ptr(xs), ptr(ws), bias, ptr(out), ptr(terms), len(terms), int(fused),
                                   bias_mode)  # fmt: skip
        y[:, i * g.oc : (i + 1) * g.oc] = out
    return y


def _direct_groups_data(dy: np.ndarray, w: np.ndarray, g: conv.Geometry, groups: int, avx512: bool,
                        dil: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """A direct kernel's grad_input of groups of several channels (jit:avx2 at stride 1,
    jit:avx512_core at any stride), group by group, each
    group's as harness.impl.conv's: jit:avx512_core's (``avx512``) per block of its channel block of
    output channels a fused chain from 0 over (kh, kw, channel), the blocks' sums added; jit:avx2's per
    chunk of output-channel blocks (``_avx2_data_chunk``: 1x1 too) a fused chain from 0, the chunks'
    sums added (csrc/conv.c conv_bwd_data_terms_dilated, the taps ``dil`` apart)."""
    lib = conv._lib()
    terms = conv._terms_chunked(g.oc, g.kh, g.kw, conv._avx2_data_chunk(g.ow))
    if avx512:  # per block a chain over (kh, kw, channel), the blocks' sums added
        terms = conv._terms_blocked(g.oc, g.kh, g.kw, _avx512_block(g))
    gx = np.empty((g.n, g.c * groups, g.h, g.w), np.float32)
    for i, (d, ws) in enumerate(zip(_subtensors(dy, groups, 1), _subtensors(w, groups, 0), strict=True)):
        out = np.empty((g.n, g.c, g.h, g.w), np.float32)
        lib.conv_bwd_data_terms_dilated(*g, *dil, ptr(d), ptr(ws), ptr(out), ptr(terms), len(terms), 1)
        gx[:, i * g.c : (i + 1) * g.c] = out
    return gx


def _direct_groups_weights(
    dy, x, g: conv.Geometry, groups: int, has_bias: bool, profile: KernelProfile, mask, avx512: bool = False
):
    """A direct kernel's grad_weight and grad_bias of groups of whole channel blocks, group by group,
    harness.impl.conv's model of the group's kernel: jit:avx2's (blocks of 8) the images split between
    the threads that cpu_reducer's balance gives one job, its jobs (blocks of 8 by 8 channels, and its
    bias reducer's blocks of 8) counted over all the groups (measured: 1x1 and 3x3 kernels, 2 to 4
    groups of 8 to 24 channels, 1, 2, 4 and 8 threads); jit:avx512_core's (``avx512``, blocks of 16)
    its balance's split of one group's work on threads // groups threads (jit_avx512_common_conv_
    kernel.cpp balance: nthr_g = groups, the rest per group; one thread a group where there are fewer
    threads than groups), its weights and bias reducers so (1x1 kernels too)."""
    if avx512:
        parts, bias_parts = _avx512_weights_parts(g, groups, profile.threads)
        runs = parts[:-1]
    else:
        parts, runs = conv._weight_split(conv.AVX2, g, profile.threads, profile.l1_per_core, groups)
        bias_parts = conv._bias_parts(conv.AVX2, g, profile.threads, groups)
    gw = np.empty((g.oc * groups, g.c, g.kh, g.kw), np.float32) if mask[1] else None
    gb = np.empty(g.oc * groups, np.float32) if mask[2] and has_bias else None
    for i, (d, xs) in enumerate(zip(_subtensors(dy, groups, 1), _subtensors(x, groups, 1), strict=True)):
        if gw is not None:
            out = np.empty((g.oc, g.c, g.kh, g.kw), np.float32)
            conv._run_weights(d, xs, out, g, parts, runs, True)
            gw[i * g.oc : (i + 1) * g.oc] = out
        if gb is not None:
            gb[i * g.oc : (i + 1) * g.oc] = conv._bias_grad(d, bias_parts)
    return None, gw, gb


def _avx512_weights_parts(g: conv.Geometry, groups: int, threads: int) -> tuple[list[int], list[int]]:
    """(weights parts, bias parts) of jit:avx512_core's grad_weight of groups of blocks of 16 on
    ``threads``, each the first (image, output pixel) pair of a thread's share and the number of
    pairs (jit_avx512_common_conv_bwd_weights_kernel_f32::balance: fewer threads than groups, one
    thread a group's weights; else nthr_g = groups and one group's split of threads // groups
    threads, its last step against all the threads, so never taken). The weights: each share one
    chain over its images (its (image, row) units in the 2-D harness), the shares added in order. The
    bias: in the 2-D harness the weights' shares; else cpu_reducer's balance over all the team's
    threads (nthr_mb * groups * nthr_oc_b * nthr_ic_b) and every group's blocks of 16 (its jobs),
    splitting the images between the threads of one job."""
    if threads < groups:
        nmb, nthr = 1, threads
    else:
        nmb, noc, nic = conv._avx512_balance(threads // groups, g, nthreads=threads)
        nthr = nmb * groups * noc * nic
    if conv._avx512_rows_harness(g):
        parts = [u * g.ow for u in conv._balance211(g.n * g.oh, nmb)]
        return parts, parts
    ohw, jobs = g.oh * g.ow, groups * -(-g.oc // 16)
    parts = [b * ohw for b in conv._balance211(g.n, nmb)]
    return parts, [b * ohw for b in conv._balance211(g.n, conv._reducer_threads(nthr, 16, jobs, g.n, nthr * 6400))]


def _weights_threads(profile: KernelProfile, groups: int) -> int:
    """The threads of one group's gemm:jit backward weights: bwd_weights_balance's nthr_g =
    min(groups, threads) take whole groups, threads // nthr_g of them split a group's images."""
    return max(1, profile.threads // groups)


def _gemm_jit_per_group(g: conv.Geometry, weights_threads: int, threads: int = 0, groups: int = 1) -> str:
    """The backward at SSE4.1 (gemm:jit): harness.impl.conv's gemm:jit per group (its grad_input on one
    thread, its grad_weight on ``weights_threads``) where a group's output is one pixel block in both
    passes (measured); else refused. With ``threads`` (grad_weight): its os_block and outer threading
    over the images are init_conf's for all the ``groups`` on ``threads``, not a group's conf on
    ``weights_threads`` (measured: a group's images on one thread where oneDNN splits them, 233 of 576
    weights differed dilated; undilated, a 1x1 over 2 groups of 24 channels on 4 threads, 677 of 1,536)."""
    blocks = (conv._gemm_jit_conf(g, weights_threads, True)[1], conv._gemm_jit_conf(g, 1, False)[1])
    if threads:  # grad_weight by init_conf over all the groups (``_sse41_groups_weights_conf``)
        blocks = (_sse41_groups_weights_conf(g, threads, groups)[1], blocks[1])
    whole = min(blocks) >= g.oh * g.ow
    if not whole:
        return "refuse:gemm:jit's blocks of output pixels in a group's backward"
    return GEMM_JIT_SSE41_GROUPS if threads else conv.GEMM_JIT + PER_GROUP


GEMM_JIT_SSE41_GROUPS = "gemm:jit per group (its threading over all the groups, SSE4.1)"


def _sse41_groups_weights_conf(g: conv.Geometry, threads: int, groups: int) -> tuple[int, int]:
    """(threads of a group's images, os_block) of gemm:jit's grad_weight at SSE4.1 over ``groups``:
    init_conf on all the groups (``conv._gemm_jit_conf`` with ``groups``) decides the outer threading
    and the pixel block; with it bwd_weights_balance gives min(groups, threads) threads whole groups
    and splits a group's images between threads // that many of them, without it one thread runs
    everything (measured on dilated groups: a group's own conf on threads // groups threads gave
    other bits, 233 of 576 weights, where the two decide the outer threading apart)."""
    nthr, os_block = conv._gemm_jit_conf(g, threads, True, 4, groups)
    per_group = min(g.n, nthr // min(groups, nthr)) if nthr > 1 else 1
    return per_group, os_block


def _per_group_data(g: conv.Geometry, stride: tuple[int, int], profile: KernelProfile, refusal: str) -> str:
    """grad_input of groups of several channels: at stride 1 (not 1x1) oneDNN's jit:avx2 where each
    group has whole blocks of 8 input and output channels and the kernel takes the shape (the
    one-group kernel's chunks, group by group), jit:avx512_core in its channel blocks; else
    ``refusal``'s kernel (at SSE4.1 gemm:jit per group, at AVX2 a 1x1's jit:avx2 over all the groups)
    or its refusal (brgconv_strided)."""
    if profile.aten == "avx512" and stride == (1, 1) and conv._kernel_outside_src(g):
        return GEMM_JIT_GROUPS  # jit:avx512_core's and jit:avx2's checks decline it (measured)
    if profile.aten == "avx512" and _avx512_block(g) and stride == (1, 1):
        if _avx512_group_data_takes(g, profile):
            return AVX512_GROUPS
        # then jit:avx2's checks (whole blocks of 8), else gemm:jit
        whole = g.c % 8 == 0 and g.oc % 8 == 0
        return conv.AVX2 + PER_GROUP if whole and not conv._avx2_data_declines(g) else GEMM_JIT_GROUPS
    whole = g.c % 8 == 0 and g.oc % 8 == 0
    if _one_group_kind(refusal) or profile.aten != "avx2" or not whole or stride != (1, 1) or (g.kh, g.kw) == (1, 1):
        return refusal
    return conv.AVX2 + PER_GROUP  # where it declines ``path`` runs gemm:jit (``_direct_kernels_decline``)


def _group_profile(kind: str, profile: KernelProfile) -> KernelProfile:
    """The profile a group runs under: gemm:jit gives each thread whole groups (one thread a group)."""
    return profile.with_threads(1) if _one_group_kind(kind) == conv.GEMM_JIT else profile


def _one_group_kind(kind: str) -> str | None:
    """The one-group kernel (harness.impl.conv's name) that ``kind`` runs on each group, or None."""
    return kind.removesuffix(PER_GROUP) if kind.endswith(PER_GROUP) and not kind.startswith("refuse:") else None


def _refuse(kind: str, what: str) -> None:
    if kind.startswith("refuse:"):
        raise ParityError(f"conv2d {what} with groups: {kind[7:]}, not modelled")


def _per_channel(a: np.ndarray) -> np.ndarray:
    """(N, C, ...) as (C, N, 1, ...), C-contiguous: each channel a one-channel batch."""
    return np.ascontiguousarray(a.swapaxes(0, 1)[:, :, None])


def _subtensors(a: np.ndarray, groups: int, axis: int, views: bool = False) -> list[np.ndarray]:
    """Each group's part of ``a`` along ``axis`` (0 or 1), each a fresh buffer on a 64-byte boundary;
    with ``views``, as ATen's ``subtensor`` gives it to slow_conv2d: a view where the narrowed tensor
    is contiguous (axis 0, or one image), keeping its offset from the 64-byte boundary of torch's
    buffer, where MKL's sgemm finds it (its alignment peel follows it)."""
    size = a.shape[axis] // groups
    whole = aligned(a.size).reshape(a.shape)
    whole[...] = a
    views = views and (axis == 0 or a.shape[0] == 1)
    parts = []
    for i in range(groups):
        part = whole[i * size : (i + 1) * size] if axis == 0 else whole[:, i * size : (i + 1) * size]
        if not views:
            fresh = aligned(part.size).reshape(part.shape)
            fresh[...] = part
            part = fresh
        parts.append(part)
    return parts


def _groups_forward(x, w, b, stride, padding, groups: int, profile: KernelProfile, kind: str,
                    views: bool = False, dil: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """harness.impl.conv's forward with ``kind`` on each group's slices (``_subtensors``; taps ``dil``
    apart), the outputs concatenated."""
    bs = [None] * groups if b is None else _subtensors(b, groups, 0, views)
    xs, ws = _subtensors(x, groups, 1, views), _subtensors(w, groups, 0, views)
    outs = [conv.conv2d(xg, wg, bg, stride, padding, profile, kind, dil) for xg, wg, bg in zip(xs, ws, bs, strict=True)]
    return np.concatenate(outs, axis=1)


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, groups: int,
           profile: KernelProfile, dilation: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """``aten.convolution`` with ``groups``: y (N, OC, OH, OW) (see the module's docstring); the taps
    ``dilation`` apart."""
    if groups == 1:
        return conv.conv2d(x, w, b, stride, padding, profile, dilation=dilation)
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    dil = tuple(dilation)
    kind = path(x.shape, w.shape, stride, padding, groups, profile, dil)[0]
    _refuse(kind, "forward")
    if kind == THNN_GROUPS:
        # ATen's slow_conv2d per group (_convolution): each group's input, weight and bias narrowed
        # (``_subtensors``' views), the thnn forward on them (MKL's sgemm per image), concatenated
        return _groups_forward(x, w, b, stride, padding, groups, profile, conv.THNN, True)
    g = _group_geometry(x.shape, w.shape, stride, padding, groups, dil)
    if kind == AVX512_GROUPS:
        terms = conv._terms_blocked(g.c, g.kh, g.kw, _avx512_block(g))
        return _terms_groups_forward(x, w, b, g, groups, terms, 2, dil=dil)
    if kind == DIRECT_1X1_GROUPS:
        fused = profile.aten != "default"  # jit:sse41 rounds each product
        return _terms_groups_forward(x, w, b, g, groups, conv._terms_chunked(g.c, 1, 1, g.c), 1, fused)
    if kind == GEMM_JIT_GROUPS:
        return conv._vector_gemm_jit_forward(x, w, b, g, profile, groups, dil)
    if _one_group_kind(kind):
        one_group = _one_group_kind(kind)
        return _groups_forward(x, w, b, stride, padding, groups, _group_profile(kind, profile), one_group, dil=dil)
    fused, bias_first = (_level(profile)[3], 1) if kind != GEMM_JIT_DW else (False, 0)
    if kind == GEMM_JIT_DW and g.kh * g.kw > 256:
        raise ParityError("conv2d forward with groups: gemm:jit's K blocks over 256 taps are not modelled")
    lib = conv._lib()
    xs = _per_channel(x)
    y = np.empty((x.shape[1], g.n, 1, g.oh, g.ow), np.float32)
    taps = conv._terms_blocked(1, g.kh, g.kw, 1)  # (0, kh, kw) row by row, the taps dil apart
    for ch in range(x.shape[1]):
        wc, bc = w[ch : ch + 1], None if b is None else b[ch : ch + 1]
        # gemm:jit's sgemm multiplies im2col's padding zeros too (jit_dw's forward never loads them)
        xc, gc = conv.im2col_zeros(xs[ch], wc, g, dil) if kind == GEMM_JIT_DW else (xs[ch], g)
        lib.conv_fwd_terms_dilated(*gc, *dil, ptr(xc), ptr(wc), None if bc is None else ptr(bc), ptr(y[ch]),
                                   ptr(taps), len(taps), int(fused), bias_first)  # fmt: skip
    return np.ascontiguousarray(y[:, :, 0].swapaxes(0, 1))


def conv2d_backward(
    dy: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride,
    padding,
    groups: int,
    has_bias: bool,
    profile: KernelProfile,
    mask: tuple[bool, bool, bool] = (True, True, True),
    dy_copied: bool = False,
    dilation: tuple[int, int] = (1, 1),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """``aten.convolution_backward`` with ``groups``: (grad_input, grad_weight, grad_bias), None
    where ``mask`` leaves one out or there is no bias; ParityError for a kernel not modelled.
    ``dy_copied``: torch's grad_output was not contiguous (ATen's slow_conv2d per group then works
    on a fresh copy of each group's, not on a view into it); the taps ``dilation`` apart."""
    if groups == 1:
        return conv.conv2d_backward(dy, x, w, stride, padding, has_bias, profile, mask, dilation=dilation)
    dy, x, w = f32(dy), f32(x), f32(w)
    dil = tuple(dilation)
    fwd, data, weights = path(x.shape, w.shape, stride, padding, groups, profile, dil)
    if fwd == THNN_GROUPS:
        # ATen's slow_conv2d_backward per group (convolution_backward): each group's grad_output, input
        # and weight narrowed (``_subtensors``' views; a grad_output that was not contiguous is copied
        # per group), the thnn backward on them (grad_bias each group's sum as contiguous)
        if mask[1] or (mask[2] and has_bias):
            _refuse(weights, "backward weights")
        views = (not dy_copied, True, True)
        return _groups_backward(dy, x, w, stride, padding, groups, has_bias, profile, mask, conv.THNN, views)
    g = _group_geometry(x.shape, w.shape, stride, padding, groups, dil)
    fused = _level(profile)[3] and data != GEMM_JIT_DW
    lib = conv._lib()
    c = x.shape[1]
    gx = gw = gb = None
    if mask[0] and data == GEMM_JIT_GROUPS:
        gx = conv._vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, (True, False, False), groups, dil)[0]
    elif mask[0] and data in (AVX512_GROUPS, AVX2_GROUPS):
        gx = _direct_groups_data(dy, w, g, groups, data == AVX512_GROUPS, dil)
    elif mask[0] and data in BRG_STRIDED_GROUPS.values():
        gx = brgconv_strided_groups(dy, w, g, groups, 16 if data == BRG_STRIDED_GROUPS[16] else 8, profile)
    elif mask[0] and _one_group_kind(data):
        one_group, data_only = _one_group_kind(data), (True, False, False)
        grads = _groups_backward(
            dy, x, w, stride, padding, groups, False, _group_profile(data, profile), data_only, one_group, dilation=dil
        )
        gx = grads[0]
    elif mask[0]:
        _refuse(data, "backward data")
        dys = _per_channel(dy)
        out = np.empty((c, g.n, 1, g.h, g.w), np.float32)
        taps = conv._terms_blocked(1, g.kh, g.kw, 1)  # one chain from 0 over (kh, kw), the taps dil apart
        for ch in range(c):
            lib.conv_bwd_data_terms_dilated(*g, *dil, ptr(dys[ch]), ptr(w[ch : ch + 1]), ptr(out[ch]), ptr(taps),
                                            len(taps), int(fused))  # fmt: skip
        gx = np.ascontiguousarray(out[:, :, 0].swapaxes(0, 1))
    if (mask[1] or (mask[2] and has_bias)) and weights == GEMM_JIT_GROUPS:
        weights_only = (False, mask[1], mask[2])
        _, gw, gb = conv._vector_gemm_jit_backward(dy, x, w, g, has_bias, profile, weights_only, groups, dil)
    elif (mask[1] or (mask[2] and has_bias)) and weights == GEMM_JIT_SSE41_GROUPS:
        conf, weights_only = _sse41_groups_weights_conf(g, profile.threads, groups), (False, mask[1], mask[2])
        parts = [
            conv._gemm_jit_backward(dyg, xg, wg, g, has_bias, profile, weights_only, dil, conf)
            for dyg, xg, wg in zip(*(_subtensors(a, groups, ax) for a, ax in ((dy, 1), (x, 1), (w, 0))), strict=True)
        ]
        gw = np.concatenate([p[1] for p in parts]) if mask[1] else None
        gb = np.concatenate([p[2] for p in parts]) if mask[2] and has_bias else None
    elif (mask[1] or (mask[2] and has_bias)) and weights in (AVX2_GROUPS, AVX512_WEIGHTS_GROUPS):
        _, gw, gb = _direct_groups_weights(dy, x, g, groups, has_bias, profile, mask, weights == AVX512_WEIGHTS_GROUPS)
    elif (mask[1] or (mask[2] and has_bias)) and _one_group_kind(weights):
        # gemm:jit: each group on threads // groups threads (``_weights_threads``)
        one_group, weights_only = _one_group_kind(weights), (False, mask[1], mask[2])
        per_group = profile.with_threads(_weights_threads(profile, groups)) if one_group == conv.GEMM_JIT else profile
        _, gw, gb = _groups_backward(
            dy, x, w, stride, padding, groups, has_bias, per_group, weights_only, one_group, dilation=dil
        )
    elif mask[1] or (mask[2] and has_bias):
        _refuse(weights, "backward weights")
        parts = _dw_weight_parts(g, c, profile)
        if mask[1]:
            gw = _dw_weights(dy, x, g, parts, fused)
        if mask[2] and has_bias:
            gb = conv._bias_grad(dy, [p * g.oh * g.ow for p in parts])
    return gx, gw, gb


def _dw_weight_parts(g: conv.Geometry, c: int, profile: KernelProfile) -> list[int]:
    """The first image of each thread's part of jit_dw's weight gradient (and N): harness_mb_reduction
    gives the threads to the channel blocks first (nthr_g = min(blocks, threads)), the rest split the
    images (nthr_mb = min(threads / nthr_g, N), balance211)."""
    block = _level(profile)[1]
    blocks = -(-c // block)
    nthr_g = min(blocks, profile.threads)
    nthr_mb = min(max(1, profile.threads // nthr_g), g.n)
    return conv._balance211(g.n, nthr_mb)


def _dw_weights(dy: np.ndarray, x: np.ndarray, g: conv.Geometry, parts: list[int], fused: bool) -> np.ndarray:
    """jit_dw's grad_weight: per channel and tap, per thread's images one chain from 0 over each
    image's output pixels in the kernel's order (``_dw_pixel_order``), the threads' sums added in
    order (csrc/conv.c conv_bwd_weights_runs, one channel at a time)."""
    c, ohw = x.shape[1], g.oh * g.ow
    part = np.asarray([p * ohw for p in parts], np.int64)
    run = part[:-1].copy()
    order = _dw_pixel_order(g)
    dys, xs = _per_channel(dy), _per_channel(x)
    gw = np.empty((c, 1, g.kh, g.kw), np.float32)
    lib = conv._lib()
    for ch in range(c):
        lib.conv_bwd_weights_runs(*g, ptr(dys[ch]), ptr(xs[ch]), ptr(gw[ch]), ptr(part), len(part) - 1, ptr(run),
                                  len(run), int(fused), ptr(order))  # fmt: skip
    return gw


def _dw_pixel_order(g: conv.Geometry) -> np.ndarray:
    """The order jit_dw's weights kernel takes an image's output pixels (r * OW + c): the driver's
    calls of 15 rows each (oh_blk_size); in a call, where OW is over 30 (max_unroll_w_), the columns in
    blocks (``calculate_w_unrolling``: blocks of 15, the last taking the remainder, or 15 more columns
    where the right padding reaches into a short or empty remainder; one block of 7 and a tail where
    only one block of 15 fits), each block over the call's rows, row by row; else row by row."""
    blocks = [g.ow]
    if g.ow > 30:
        unroll, trips, tail = 15, g.ow // 15, g.ow % 15
        r_pad = conv._end_pad(g.pw, g.ow, g.w, g.sw, g.kw)
        if (tail == 0 and r_pad != 0) or (r_pad > 0 and r_pad >= tail):
            if trips > 1:
                tail, trips = tail + unroll, trips - 1
            else:
                tail, unroll = tail + unroll - unroll // 2, unroll // 2
        blocks = [unroll] * trips + ([tail] if tail else [])
    order = []
    for r0 in range(0, g.oh, 15):
        c0 = 0
        for width in blocks:
            order.extend(r * g.ow + c for r in range(r0, min(r0 + 15, g.oh)) for c in range(c0, c0 + width))
            c0 += width
    return np.asarray(order, np.int64)


def _groups_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask, kind: str,
                     views: tuple[bool, bool, bool] = (False, False, False),
                     dilation: tuple[int, int] = (1, 1)):  # fmt: skip
    """harness.impl.conv's backward with ``kind`` on each group's grad_output, input and weight
    (``_subtensors``, ``views`` for each), each gradient concatenated (None where ``mask`` leaves it
    out): a one-group kernel oneDNN runs group by group (gemm:jit's grad_weight: each group's sgemms
    on one thread), or ATen's slow_conv2d per group."""
    slices = (_subtensors(a, groups, axis, v) for a, axis, v in zip((dy, x, w), (1, 1, 0), views, strict=True))
    parts = [
        conv.conv2d_backward(dyg, xg, wg, stride, padding, has_bias, profile, mask, kind, dilation)
        for dyg, xg, wg in zip(*slices, strict=True)
    ]
    return tuple(
        None if parts[0][i] is None else np.concatenate([p[i] for p in parts], axis=int(i == 0)) for i in range(3)
    )
