"""Transposed 2-D convolution (``aten.convolution`` and ``convolution_backward`` with ``transposed``),
forward and backward, as torch 2.13.0 runs it on x86 CPUs; a 1-D one runs as 2-D over rows of height 1
(harness.trace.impl_ops views it so).

Shapes (NCHW, float32, contiguous; one group here, groups below; dilation: ``_dilated``)::

    x   input          (N, C, H, W)            C input channels
    w   weight         (C, OC, KH, KW)         OC output channels
    b   bias           (OC,) or None
    y   output         (N, OC, OH, OW)         OH = (H - 1) * SH - 2 * PH + KH + OPH, OW likewise
    dy  grad_output    (N, OC, OH, OW)
    stride (SH, SW), padding (PH, PW), output_padding (OPH, OPW) (each below its stride)

A transposed convolution is the adjoint of the ordinary convolution ``adjoint`` that takes an
(N, OC, OH, OW) input to an (N, C, H, W) output with the same weight, read as (C out, OC in, KH, KW):
the forward is that convolution's backward data of x, grad_input its forward of dy, grad_weight its
backward weights with dy as its input and x as its grad_output. Its geometry is ``harness.impl.conv``'s
``Geometry`` of that convolution: (OH + 2 * PH - KH) // SH + 1 = H, the output padding the rows and
columns past the last that the adjoint's outputs do not reach (oneDNN's padding_r = PH - OPH,
``conv._end_pad``).

Which code runs (ConvUtils.h ``use_mkldnn`` on the transposed convolution's input and weight, the
rule of the untransposed ones, ``conv.aten_keeps``; measured with ``torch._C._select_conv_backend``
and ONEDNN_VERBOSE at baseline and avx2, 1 and 2 threads):

- ATen's ``slow_conv_transpose2d`` (NaiveConvolutionTranspose2d.cpp) where ATen keeps it: per image
  (``parallel_for`` over the images; MKL on all threads only for one image) the MKL sgemm
  ``columns = w^T x_n`` (K = C) into an (OC*KH*KW, H*W) column buffer, then the output image set to
  zeros and ``col2im`` adding each tap (kh, kw) in order onto them (``conv._col2im``), the bias added
  to the finished sums (measured: starting the sums from the bias misses, 35 of 66 outputs of one
  probe); a 1x1 kernel with stride 1 and no padding skips the columns: the sgemm into the output,
  the bias added after. grad_input: per image ``im2col`` of dy (``conv._im2col``,
  the adjoint's forward columns; dy itself where the columns are skipped) and the sgemm
  ``w (K = OC*KH*KW)`` into grad_input; grad_weight: the images in order (a serial loop: MKL on all
  threads), each one's im2col and the sgemm added onto grad_weight (beta 1 from zeros); grad_bias:
  ATen's ``sum`` over (N, OH, OW) (``reduce.sum_dims``; measured: per-image sums added image by image
  miss one output channel's, 5 of 20 probes).
- oneDNN's deconvolution otherwise: ``ref_deconvolution`` (src/cpu/ref_deconvolution.cpp) wraps the
  adjoint convolution primitive, which oneDNN's convolution list picks as for any convolution of that
  direction (``conv.onednn_path`` on the adjoint's geometry), and at avx2 for strides over 1 the
  forward is ``brg_deconv:avx2`` wrapping ``brgconv_strided:avx2``, the kernel harness.impl.conv
  models as the adjoint's backward data:

  - forward: the adjoint's backward data of x (harness.impl.conv's models: ``jit:avx2`` chunks at
    stride 1, ``brgconv_strided`` above, ``jit_1x1``, SSE4.1's ``gemm:jit``), then the bias added to
    each finished sum (``compute_fwd_bias``: ``d + b``, one rounding).
  - grad_input: the adjoint's forward of dy without bias (``jit:avx2``, ``jit_1x1``, ``jit:sse41``,
    ``gemm:jit``).
  - grad_weight: the adjoint's backward weights (input dy, grad_output x; its threads' splits); at avx2
    gemm:jit where the adjoint's input is one pixel of 3 channels (``conv._avx2_flat_one_pixel``: 10 of
    10 such shapes on a Zen 5; the jit:avx2 model had given 1 or 2 of 6 grad_weight elements other in 5
    of 6 seeds of a 1x1 kernel of stride 4 over one column; 750 random draws at 1, 2 and 4 threads, 0
    other).
  - grad_bias: ``ref_deconvolution_bwd_weights_t::compute_bias`` over grad_output in the layout the
    adjoint's backward-weights kernel took for its input (``_plain_bias``): blocked (nChw8c: jit:avx2
    on blocks of channels, jit_1x1:avx2) per output channel one chain of additions from 0 over
    (image, oh, ow) in order; plain (nchw: gemm:jit, every one at baseline, and jit:avx2 on 3 flat
    channels) ``compute_bwd_bias_ncdhw``, per image a chain from 0 over its (oh, ow) in order, the
    images' sums added one by one onto 0 (its ``omp simd`` reduction is not vectorised in torch's
    build: one scalar chain, read from its machine code; on 226 random oneDNN cases at baseline and
    avx2, 1 and 2 threads, the layout ONEDNN_VERBOSE named was the one ``_plain_bias`` predicts and its
    order the one torch's bits took).

Groups (``groups`` > 1; w (C, OC / groups, KH, KW), the adjoint grouped convolution's weight as
harness.impl.conv_grouped reads it): where ATen keeps it (the thnn rule alone, ``runs_slow``),
slow_conv_transpose2d per group on ATen's ``subtensor`` of each operand (views where contiguous), the
outputs and gradients concatenated; else oneDNN's deconvolution as the adjoint grouped convolution's
kernels by harness.impl.conv_grouped's ``path`` (jit_dw, jit:sse41/jit:avx2 per group, gemm:jit over
all the groups): forward its backward data plus the bias, grad_input its forward, grad_weight its
backward weights, grad_bias ``_deconv_bias_grad`` in its backward-weights kernel's layout (nchw for
gemm:jit, nChw8c for jit_dw and jit:avx2). Measured on 250 random cases per level at 1 and 2 threads
and 150 at 4 and 8 (docs/impl/kernels.md): every pass not refused bit for bit.

Dilated (NCHW; ``_dilated``): ATen's slow_conv_transpose2d where its small-image rule keeps one group
(col2im and im2col with the dilation), else oneDNN's deconvolution as the dilated adjoint
convolution's kernels (harness.impl.conv ``dilated_onednn_kernels``; with groups harness.impl
.conv_grouped's dilated ``path``, ``_grouped_forward``, ``_grouped_backward``: its backward data plus the bias,
its forward, its backward weights; grad_bias over a plain grad_output for gemm:jit's weights and
jit:avx512_core's first-convolution layout below 16 channels); at avx512 too (ONEDNN_VERBOSE on a Zen 5
named the adjoint's kernels predicted for every pass). Measured on an AMD EPYC Zen 5 (random dilated
conv_transpose1d and conv_transpose2d, dilation 2 to 4, strides 1 and 2, every fifth draw with NaN,
infinities, -0 and denormals; 30 draws a level and thread count at baseline, avx2 and avx512 on 1, 2
and 4 threads): 989 of 1080 tensors bit for bit, 91 refused (82 NaN results of either kind, 9 SSE4.1
gemm:jit grad_weights over padding with an infinite or NaN grad_output), 0 other; with groups
(depthwise, groups of 4 to 16 channels, channel multipliers) 956 of 1080 bit for bit, 124 refused
(the grouped kernels' refusals, the NaN results of either kind), 0 other.

At avx512 (measured on an AMD EPYC Zen 5): the adjoint's AVX-512 kernels (brg_deconv's
brgconv_strided:avx512_core forward at a stride, jit:avx512_core, jit_1x1:avx512_core, jit:avx2's
weights below jit:avx512_core, gemm:jit), grad_bias in the layout of the adjoint's weights kernel
(``_plain_bias``: nChw16c for jit:avx512_core from 16 channels, its first-convolution nchw below; nChw8c
for jit:avx2; nchw for gemm:jit). Random conv_transpose1d and conv_transpose2d of one group, every
fifth draw with NaN, infinities, -0 and denormals, 82 draws on 1, 2, 4 and 8 threads: every pass bit for
bit or refused (a NaN result of either kind, by the replay's check), 0 other; with groups (2 to 16,
depthwise among them) 75 draws, 0 other. Before, every pass at avx512 was refused (DAC's and EnCodec's
upsamplers in the zoo, now bit for bit at 8 threads). The forward at a stride follows oneDNN's
deconvolution list, not the convolution list (``_avx2_brg_deconv``): brg_deconv:avx512_core, then
brg_deconv:avx2, each taking the shape where its brgconv_strided finds a blocking and the stride divides
the output (OH, OW), before ``conv:any+`` (jit:avx512_core among its kernels); so where the 16-float
search finds none and the 8-float one finds one, brgconv_strided:avx2 runs (ConvTranspose2d of one output
channel, kernels 8 to 16, strides 2 to 4; with groups, groups of 9 to 16 input channels). Measured on a
Zen 5 at avx512: of 960 ConvTranspose2d shapes (1 or 2 input channels, 1 to 3 output, kernels 5 to 16,
strides 1 to 8) 51 gave other bits at 1 thread before, 0 now; random draws (1-D and 2-D, 1 to 4 and 16
channels, kernels 1 to 16, strides 1 to 8, inputs 1 to 8, 1 to 3 images) on 1, 2, 4 and 8 threads,
ONEDNN_VERBOSE naming the implementation: 1200 of one group, every pass bit for bit and every route
predicted but two (a deconvolution input one column wide on 4 and 8 threads, where
brgconv_strided:avx512_core takes the shape the impl's search declines: the bits agree); 640 grouped, every pass bit for
bit or refused, 0 other: two forwards on 4 and 8 threads (the stride not dividing the output, an adjoint
output one to five columns wide) had run conv_grouped's gemm:jit where brgconv_strided:avx2 ran, its
search declining on the profile's threads but not on 1; such forwards are refused
(``_avx2_search_unsettled``: 6 of 480 grouped forwards on 2, 4 and 8 threads, those two among them).

Refused (ParityError): aarch64, dilated channels-last transposed convolutions; with groups, the adjoint's passes
harness.impl.conv_grouped refuses (``_grouped_refusals``; at avx2 the forward at a stride over 1 with
more than 8 input channels a group is the adjoint's brgconv_strided:avx2 grad_input per group, modelled
there: 82, 82 and 92 of 100 random draws bit for bit at 1, 2 and 4 threads, 0 other, measured on a Zen 5;
with 8 input channels a group jit:avx2's strided grad_input group by group: 5 of 5 forwards bit for bit at 1
and 2 threads, ONEDNN_VERBOSE naming it);
channels-last operands of one group: see ``conv_transpose2d_nhwc`` below; NCHW oneDNN forwards and
grad_inputs of one group at a stride over 2 with an infinite or NaN operand (``_wide_stride_nonfinite``).

Strides 3 and 4 (DPT's reassemble upsampler, ``ConvTranspose2d(8, 8, 4, stride=4)`` over a channels-last
map): ONEDNN_VERBOSE on a Zen 5 names the kernels of stride 2 (channels-last at avx2
brg_deconv:avx2+brgconv_strided:avx2 forward, brg_conv_fwd:avx2 grad_input, jit:avx2 weights; at baseline
gemm:jit, jit:sse41 and gemm:jit; at avx512 brg_deconv:avx512_core+brgconv_strided:avx512_core,
brg_conv_fwd:avx512_core, jit:avx512_core) and their models hold there. Random draws (strides 3 and 4, one
side 1 to 4 in a fifth, kernels equal to the stride in half and 1 to 7 otherwise, 1 to 32 channels a side, 1
to 9 pixels a side, padding to 2 in some, 1 to 4 images, channels-last and NCHW by the layout ATen suggests,
a fifth with infinities, -0 and subnormals and a fifth with NaNs of both signs, quiet and signalling, too) at
baseline, avx2 and avx512 on 1, 2 and 4 threads: 5,220 passes, 3,524 bit for bit, 1,696 refused (NaN results
of several kinds, ATen's channels-last slow_conv_transpose2d of one image, the channels-last
brgconv_strided grad_input and avx512_core weights over non-finite operands, the NCHW rule above), 0 other
(two runs of 80 draws a level and thread count). Before that rule 3 NCHW passes over infinities had
given NaN where the model has numbers (an avx2 forward whose adjoint ran brgconv_strided:avx2 where the
impl runs jit:avx2's model, its padded taps inf * 0; two baseline grad_inputs, the one read through
gemm:jit, over im2col's padding zeros).
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv, conv_grouped
from harness.impl._lib import aligned, f32
from harness.impl.profiles import KernelProfile

Pair = tuple[int, int]


def adjoint_geometry(
    x_shape, w_shape, stride: Pair, padding: Pair, output_padding: Pair, groups: int = 1, dil: Pair = (1, 1)
) -> conv.Geometry:
    """The adjoint convolution's geometry, of one group where ``groups`` is over 1: input
    (N, OC / groups, OH, OW), weight (C / groups, OC / groups, KH, KW), output x's (C / groups channels);
    the taps ``dil`` apart (OH = (H - 1) * SH - 2 * PH + (KH - 1) * DH + 1 + OPH)."""
    n, c, h, wd = x_shape
    c2, ocg, kh, kw = w_shape
    if c2 != c or groups < 1 or c % groups:
        raise ParityError(
            f"conv_transpose2d: weight {list(w_shape)} does not fit input {list(x_shape)} with {groups} groups"
        )
    if any(op >= s for op, s in zip(output_padding, stride, strict=True)) or min(output_padding) < 0:
        raise ParityError(f"conv_transpose2d: output_padding {list(output_padding)} not below stride {list(stride)}")
    oh = (h - 1) * stride[0] - 2 * padding[0] + (kh - 1) * dil[0] + 1 + output_padding[0]
    ow = (wd - 1) * stride[1] - 2 * padding[1] + (kw - 1) * dil[1] + 1 + output_padding[1]
    if oh < 1 or ow < 1:
        raise ParityError("conv_transpose2d: empty output")
    g = conv._geometry((n, ocg, oh, ow), (c // groups, ocg, kh, kw), stride, padding, dil)
    assert (g.oh, g.ow) == (h, wd)
    return g


def runs_slow(x_shape, w_shape, stride: Pair, profile: KernelProfile, groups: int = 1) -> bool:
    """Whether ATen's slow_conv_transpose2d runs (per group where ``groups`` is over 1), else oneDNN's
    deconvolution: ConvUtils.h ``use_mkldnn``, whose small-input rule groups skip (``conv.thnn_faster``
    alone, as for untransposed groups)."""
    if groups > 1:
        return conv.thnn_faster(x_shape[0], w_shape[2], w_shape[3], stride, profile)
    return conv.aten_keeps(x_shape, w_shape[2], w_shape[3], stride, profile)


def _skips_columns(g: conv.Geometry, output_padding: Pair) -> bool:
    """NaiveConvolutionTranspose2d.cpp ``skip_transforming``: a 1x1 kernel, stride 1, no padding."""
    return (g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, *output_padding) == (1, 1, 1, 1, 0, 0, 0, 0)


def _plain_bias(g: conv.Geometry, profile: KernelProfile) -> bool:
    """Whether oneDNN's deconvolution sums grad_bias over a plain-layout (nchw) grad_output: its
    backward weights run gemm:jit (every one at baseline, at avx2 and avx512 where the direct kernels
    decline), jit:avx2 on 3 flat input channels of the adjoint, or (avx512) jit:avx512_core below 16 (its
    first-convolution layout); jit:avx2 on blocks and jit_1x1 take nChw8c or nChw16c, jit:avx512_core
    from 16 channels nChw16c (ONEDNN_VERBOSE on a Zen 5)."""
    if profile.aten not in ("avx2", "avx512"):
        return True
    if conv._one_by_one(g):
        return False
    weights = conv.direct_kernels(g, conv.AVX512 if profile.aten == "avx512" else conv.AVX2, profile)[2]
    if weights == conv.AVX512:  # its first-convolution layout below 16 channels: nchw
        return g.c < 16
    return weights == conv.GEMM_JIT or g.c == 3


def _deconv_bias_grad(dy: np.ndarray, g: conv.Geometry, plain: bool) -> np.ndarray:
    """ref_deconvolution's grad_bias (see the module's docstring): per image from 0 where grad_output
    is ``plain``, else one chain over every (image, oh, ow); each channel on its own (groups alike)."""
    pixels = g.h * g.w  # the adjoint's input: grad_output's (OH, OW)
    parts = list(range(0, g.n * pixels + 1, pixels)) if plain else [0, g.n * pixels]
    return conv._bias_grad(dy, parts)


def refusals(
    x_shape, w_shape, stride: Pair, padding: Pair, output_padding: Pair, profile: KernelProfile, groups: int = 1
):
    """Per pass (forward, grad_input, grad_weight, grad_bias), the ParityError text the impl raises for
    this transposed convolution under ``profile``, or None where it reproduces the pass."""
    g = adjoint_geometry(x_shape, w_shape, stride, padding, output_padding, groups)
    if profile.aarch64:
        return (_AARCH64,) * 4
    if runs_slow(x_shape, w_shape, stride, profile, groups):
        return (None,) * 4
    if groups > 1:
        return _grouped_refusals(g, groups, profile)
    return (None,) * 4


# ATen's slow path there runs NVPL's sgemm on its columns, oneDNN's deconvolution its aarch64 kernels
_AARCH64 = "conv_transpose2d on aarch64 is not measured"


def _plus_bias(y: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """oneDNN's deconvolution forward: the bias added to each finished sum (``compute_fwd_bias``: one
    rounding)."""
    return y if b is None else y + b[:, None, None]


def _raise(why: str | None) -> None:
    if why is not None:
        raise ParityError(why)


def _dilated(x_shape, w_shape, stride: Pair, padding: Pair, output_padding: Pair, groups: int, dil: Pair,
             profile: KernelProfile) -> tuple[conv.Geometry, tuple[str, str, str]]:  # fmt: skip
    """A dilated transposed convolution's adjoint geometry and kernels (forward, grad_input,
    grad_weight: the adjoint's backward data, forward and backward weights by harness.impl.conv's
    ``dilated_onednn_kernels``, with groups by harness.impl.conv_grouped's ``path``, its taps ``dil``
    apart; ``SLOW_DILATED`` where ATen's slow_conv_transpose2d runs one group). ParityError on aarch64
    and for a dilated kernel side of one tap; the grouped kernels' refusals are ``_grouped_refusals``'."""
    g = adjoint_geometry(x_shape, w_shape, stride, padding, output_padding, groups, dil)
    _raise(_AARCH64 if profile.aarch64 else None)
    conv.dilation_refused(x_shape, w_shape, dil, profile)
    if groups > 1:  # the adjoint grouped convolution's kernels (harness.impl.conv_grouped, dilated)
        return g, _adjoint_kinds(g, w_shape, groups, profile, dil)
    if runs_slow(x_shape, w_shape, stride, profile):
        return g, (SLOW_DILATED,) * 3
    forward, data, weights = conv.dilated_onednn_kernels(g, dil, profile)
    return g, (data, forward, weights)


SLOW_DILATED = "slow_conv_transpose2d (dilated)"
_WEIGHTS = (False, True, False)  # the adjoint's backward weights alone


def conv_transpose2d(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: Pair,
    padding: Pair,
    output_padding: Pair,
    profile: KernelProfile,
    groups: int = 1,
    dilation: Pair = (1, 1),
) -> np.ndarray:
    """``aten.convolution`` with ``transposed``: y (N, OC, OH, OW); the taps ``dilation`` apart
    (``_dilated``)."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    dil = (int(dilation[0]), int(dilation[1]))
    if dil != (1, 1):  # the adjoint's backward data of x with its dilated kernel, the bias added after
        g, kinds = _dilated(x.shape, w.shape, stride, padding, output_padding, groups, dil, profile)
        if groups > 1:
            return _grouped_forward(x, w, b, g, output_padding, groups, profile, dil)
        if kinds[0] == SLOW_DILATED:
            return _slow_forward(x, w, b, g, output_padding, profile, dil)
        zeros = np.zeros((g.n, g.c, g.h, g.w), np.float32)
        y = conv.conv2d_backward(x, zeros, w, stride, padding, False, profile, (True, False, False), kinds[0], dil)[0]
        assert y is not None
        return _plus_bias(y, b)
    g = adjoint_geometry(x.shape, w.shape, stride, padding, output_padding, groups)
    _raise(_AARCH64 if profile.aarch64 else None)
    if groups > 1:
        return _grouped_forward(x, w, b, g, output_padding, groups, profile)
    if runs_slow(x.shape, w.shape, stride, profile):
        return _slow_forward(x, w, b, g, output_padding, profile)
    _raise(_wide_stride_nonfinite(g, "forward", x, w))
    if _avx2_brg_deconv(g, profile):
        return _plus_bias(conv.brgconv_strided_data(x, w, g, 8, profile), b)
    zeros = np.zeros((g.n, g.c, g.h, g.w), np.float32)  # the adjoint's input: its values are not read
    y = conv.conv2d_backward(x, zeros, w, stride, padding, False, profile, (True, False, False), _kind(g, profile))[0]
    assert y is not None
    return _plus_bias(y, b)


def conv_transpose2d_backward(
    dy: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: Pair,
    padding: Pair,
    output_padding: Pair,
    has_bias: bool,
    profile: KernelProfile,
    mask: tuple[bool, bool, bool] = (True, True, True),
    groups: int = 1,
    dilation: Pair = (1, 1),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """``aten.convolution_backward`` with ``transposed``: (grad_input, grad_weight, grad_bias), None
    where ``mask`` leaves one out or there is no bias; the taps ``dilation`` apart (``_dilated``:
    grad_bias over a plain grad_output, gemm:jit's layout, the dilated adjoint's weights kernel at
    baseline and avx2)."""
    dy, x, w = f32(dy), f32(x), f32(w)
    dil = (int(dilation[0]), int(dilation[1]))
    if dil != (1, 1):
        g, (_, forward, weights) = _dilated(x.shape, w.shape, stride, padding, output_padding, groups, dil, profile)
        if groups > 1:
            return _grouped_backward(dy, x, w, g, output_padding, groups, has_bias, profile, mask, dil)
        if forward == SLOW_DILATED:
            return _slow_backward(dy, x, w, g, has_bias, profile, mask, dil)
        return _deconv_backward(
            (None,) * 4,
            lambda: conv.conv2d(dy, w, None, stride, padding, profile, forward, dil),
            lambda: conv.conv2d_backward(x, dy, w, stride, padding, False, profile, _WEIGHTS, weights, dil)[1],
            # plain for gemm:jit and jit:avx512_core's first-convolution layout (below 16 channels: nchw)
            lambda: _deconv_bias_grad(dy, g, weights == conv.GEMM_JIT or g.c < 16),
            has_bias,
            mask,
        )
    g = adjoint_geometry(x.shape, w.shape, stride, padding, output_padding, groups)
    _raise(_AARCH64 if profile.aarch64 else None)
    if groups > 1:
        return _grouped_backward(dy, x, w, g, output_padding, groups, has_bias, profile, mask)
    if runs_slow(x.shape, w.shape, stride, profile):
        return _slow_backward(dy, x, w, g, has_bias, profile, mask)
    kind = _kind(g, profile)
    return _deconv_backward(
        (None, _wide_stride_nonfinite(g, "grad_input", dy, w) if mask[0] else None, None, None),
        lambda: conv.conv2d(dy, w, None, stride, padding, profile, kind),
        lambda: conv.conv2d_backward(x, dy, w, stride, padding, False, profile, (False, True, False), kind)[1],
        lambda: _deconv_bias_grad(dy, g, _plain_bias(g, profile)),
        has_bias,
        mask,
    )


def _wide_stride_nonfinite(g: conv.Geometry, name: str, *operands: np.ndarray) -> str | None:
    """Why oneDNN's deconvolution of one group (NCHW) is refused at a stride over 2 with an infinite or NaN
    operand of its forward (x, w) or grad_input (dy, w): there the adjoint's kernels multiply taps the model
    skips (brgconv_strided:avx2's padded taps where ONEDNN_VERBOSE named it in jit:avx2's place, gemm:jit's
    im2col padding zeros: inf * 0), NaN where the model has numbers (measured on a Zen 5: 3 passes of random
    draws at strides 3 and 4, at baseline and avx2, the module's docstring); None where it is not."""
    if max(g.sh, g.sw) <= 2 or all(np.isfinite(a).all() for a in operands):
        return None
    return (
        f"conv_transpose2d {name} at stride {(g.sh, g.sw)} over infinite or NaN operands (the adjoint's kernels "
        "multiply taps the model skips: inf * 0) not modelled"
    )


def _deconv_backward(why, data, weights, bias, has_bias: bool, mask):
    """oneDNN's deconvolution backward: each pass ``mask`` asks for (grad_input ``data``, grad_weight
    ``weights``, grad_bias ``bias``: the adjoint's forward, its backward weights, ``_deconv_bias_grad``),
    ParityError where ``why`` (``refusals``' order) names a refusal for it."""
    gx = gw = gb = None
    if mask[0]:
        _raise(why[1])
        gx = data()
    if mask[1]:
        _raise(why[2])
        gw = weights()
    if mask[2] and has_bias:
        _raise(why[3])
        gb = bias()
    return gx, gw, gb


def _kind(g: conv.Geometry, profile: KernelProfile) -> str:
    return conv.onednn_path(g, profile)


def _avx2_brg_deconv(g: conv.Geometry, profile: KernelProfile, groups: int = 1) -> bool:
    """Whether at avx512 oneDNN's deconvolution forward (a stride over 1; ``g`` one group's adjoint of
    ``groups``) is ``brg_deconv:avx2+brgconv_strided:avx2`` where the adjoint convolution's own list would
    give jit:avx512_core. cpu_deconvolution_list.cpp tries brg_deconv:avx512_core (its nested list's
    brgconv_strided:avx512_core alone), then brg_deconv:avx2 (brgconv_strided:avx2 alone), before
    ref_deconvolution's convolution list (``conv:any+``: ``conv.direct_kernels``, with groups
    harness.impl.conv_grouped's ``path``); both brg_deconv decline where the stride does not divide the
    adjoint's input (the deconvolution's output: jit_brgemm_conv_bwd_utils.cpp ``use_inversion &&
    has_uneven_spatial``), each where brgconv_strided's blocking search finds no blocking
    (``conv._strided_declines``: every blocking's estimated efficiency below 0.00001; of 16-float vectors,
    of 8), and with groups where a group has no more adjoint output channels (deconvolution input
    channels) than the vector holds. So where the 16-float kernel declines, the 8-float one takes the
    shape and the stride divides OH and OW, the AVX2 kernel runs ahead of jit:avx512_core (ONEDNN_VERBOSE
    on a Zen 5)."""
    if profile.aten != "avx512" or (g.sh, g.sw) == (1, 1) or conv._one_by_one(g) or g.h % g.sh or g.w % g.sw:
        return False
    if groups > 1:
        kernel = _adjoint_kinds(g, (g.oc * groups, g.c, g.kh, g.kw), groups, profile)[0]
        listed = kernel == conv_grouped.AVX512_GROUPS and g.oc > 8
    else:
        listed = conv.direct_kernels(g, conv.AVX512, profile)[1] == conv.AVX512
    return listed and not conv._strided_declines(g, profile, 8, groups)


def _slow_forward(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    g: conv.Geometry,
    output_padding: Pair,
    profile: KernelProfile,
    dil: Pair = (1, 1),
) -> np.ndarray:
    """slow_conv_transpose2d's forward (see the module's docstring); col2im's taps ``dil`` apart."""
    n, oc, oh, ow, c, kh, kw, h, wd, sh, sw, ph, pw = g
    k, m, hw = c, oc * kh * kw, h * wd
    prof = profile if n == 1 else profile.with_threads(1)
    skip = _skips_columns(g, output_padding)
    y = aligned(n * oc * oh * ow).reshape(n, oc, oh, ow)
    cols = aligned(n * m * hw).reshape(n, m, hw)  # ATen's column buffer of every image
    for t in range(n):
        out = y[t].reshape(-1) if skip else cols[t].reshape(-1)
        conv._thnn_gemm("nt", hw, m, k, x[t].reshape(-1), hw, w.reshape(-1), m, 0.0, out, hw, prof)
        if not skip:
            y[t] = conv._col2im(cols[t], oc, oh, ow, kh, kw, sh, sw, ph, pw, h, wd, *dil)
        if b is not None:
            y[t] += b[:, None, None]
    return y


def _slow_backward(dy, x, w, g: conv.Geometry, has_bias: bool, profile: KernelProfile, mask, dil: Pair = (1, 1)):
    """slow_conv_transpose2d's backward (see the module's docstring): grad_input and grad_weight are
    the adjoint convolution's forward and grad_weight through ATen's slow_conv2d (harness.impl.conv's
    thnn model: im2col of dy, or dy itself for a 1x1 kernel at stride 1, and MKL's sgemm per image;
    im2col's taps ``dil`` apart); grad_bias one sum over (N, OH, OW)."""
    from harness.impl.reduce import sum_dims

    stride, padding = (g.sh, g.sw), (g.ph, g.pw)
    gx = conv.conv2d(dy, w, None, stride, padding, profile, conv.THNN, dil) if mask[0] else None
    gw = (
        conv.conv2d_backward(x, dy, w, stride, padding, False, profile, _WEIGHTS, conv.THNN, dil)[1]
        if mask[1]
        else None
    )
    gb = sum_dims(dy, (0, 2, 3), profile) if mask[2] and has_bias else None
    return gx, gw, gb


# Groups (``groups`` > 1): the weight (C, OC / groups, KH, KW) is the adjoint's grouped weight as
# harness.impl.conv_grouped reads it (C output channels, OC / groups input channels a group).


def _adjoint_kinds(
    g: conv.Geometry, w_shape, groups: int, profile: KernelProfile, dil: Pair = (1, 1)
) -> tuple[str, str, str]:
    """(forward, grad_input, grad_weight): the kernels oneDNN runs for a grouped deconvolution, the
    adjoint grouped convolution's (backward data, forward, backward weights) by harness.impl
    .conv_grouped's ``path`` (names starting ``refuse:`` where it does not model them)."""
    adjoint_x = (g.n, g.c * groups, g.h, g.w)
    fwd, data, weights = conv_grouped.path(adjoint_x, w_shape, (g.sh, g.sw), (g.ph, g.pw), groups, profile, dil)
    return data, fwd, weights


def _grouped_refusals(
    g: conv.Geometry, groups: int, profile: KernelProfile, dil: Pair = (1, 1)
) -> tuple[str | None, ...]:
    """Per pass (forward, grad_input, grad_weight, grad_bias) of oneDNN's grouped deconvolution, why it
    is not reproduced, or None: the adjoint's refused kernels; grad_bias with grad_weight (its layout is
    that kernel's)."""
    kinds = _adjoint_kinds(g, (g.oc * groups, g.c, g.kh, g.kw), groups, profile, dil)
    names = ("forward", "grad_input", "grad_weight")
    why = [
        None if not kind.startswith("refuse:") else f"conv_transpose2d {name} with groups: {kind[7:]}, not modelled"
        for name, kind in zip(names, kinds, strict=True)
    ]
    if why[0] is None and dil == (1, 1) and _avx2_search_unsettled(g, kinds[0], groups, profile):
        why[0] = (
            "conv_transpose2d forward with groups at avx512: brgconv_strided:avx2's blocking search declines on "
            f"{profile.threads} threads and not on 1 (oneDNN ran it there where measured), not modelled"
        )
    return (*why, why[2])


def _avx2_search_unsettled(g: conv.Geometry, kernel: str, groups: int, profile: KernelProfile) -> bool:
    """Where the impl runs gemm:jit for a grouped forward at avx512 because brgconv_strided:avx2's
    blocking search (groups of more than 8 adjoint output channels) finds no blocking on the profile's
    threads, though it finds one on 1 thread: on a Zen 5 at 4 and 8 threads oneDNN ran brgconv_strided:
    avx2 on 2 of 2 such draws (adjoint outputs one to five columns wide; 2 of 640 grouped forwards)."""
    if profile.aten != "avx512" or (g.sh, g.sw) == (1, 1) or g.oc <= 8 or profile.threads == 1:
        return False
    if kernel != conv_grouped.GEMM_JIT_GROUPS or not conv._strided_declines(g, profile, 8, groups):
        return False
    return not conv._strided_declines(g, profile.with_threads(1), 8, groups)


def _grouped_forward(
    x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry, output_padding: Pair, groups: int,
    profile: KernelProfile, dil: Pair = (1, 1),
) -> np.ndarray:  # fmt: skip
    """A grouped transposed convolution's forward: ATen's slow_conv_transpose2d per group on ATen's
    ``subtensor`` of each operand (``conv_grouped._subtensors``' views), the outputs concatenated; or
    oneDNN's deconvolution: the adjoint grouped convolution's backward data of x, then the bias added
    to each finished sum (as for one group). ``dil``: the taps' dilation (oneDNN's only: a dilated
    kernel of more than one tap is never ATen's 1x1)."""
    stride, padding = (g.sh, g.sw), (g.ph, g.pw)
    if dil == (1, 1) and runs_slow(x.shape, w.shape, stride, profile, groups):
        xs, ws = conv_grouped._subtensors(x, groups, 1, True), conv_grouped._subtensors(w, groups, 0, True)
        bs = [None] * groups if b is None else conv_grouped._subtensors(b, groups, 0, True)
        outs = [_slow_forward(*part, g, output_padding, profile) for part in zip(xs, ws, bs, strict=True)]
        return np.concatenate(outs, axis=1)
    _raise(_grouped_refusals(g, groups, profile, dil)[0])
    if dil == (1, 1) and _avx2_brg_deconv(g, profile, groups):
        return _plus_bias(conv_grouped.brgconv_strided_groups(x, w, g, groups, 8, profile), b)
    zeros = np.zeros((g.n, g.c * groups, g.h, g.w), np.float32)  # the adjoint's input: not read
    data = (True, False, False)
    y = conv_grouped.conv2d_backward(x, zeros, w, stride, padding, groups, False, profile, data, dilation=dil)[0]
    assert y is not None
    return _plus_bias(y, b)


def _grouped_backward(dy, x, w, g: conv.Geometry, output_padding: Pair, groups: int, has_bias: bool,
                      profile: KernelProfile, mask, dil: Pair = (1, 1)):  # fmt: skip
    """A grouped transposed convolution's backward: ATen's slow_conv_transpose2d_backward per group
    (``subtensor`` views, each group's grad_bias its sum), the gradients concatenated; or oneDNN's
    deconvolution: grad_input the adjoint's forward of dy, grad_weight its backward weights (input dy,
    grad_output x), grad_bias ``_deconv_bias_grad`` in the layout the adjoint's backward-weights
    kernel took (nchw for gemm:jit, else blocked: jit_dw and jit:avx2 take nChw8c)."""
    stride, padding = (g.sh, g.sw), (g.ph, g.pw)
    if dil == (1, 1) and runs_slow(x.shape, w.shape, stride, profile, groups):
        slices = (conv_grouped._subtensors(a, groups, axis, True) for a, axis in ((dy, 1), (x, 1), (w, 0)))
        parts = [_slow_backward(*part, g, has_bias, profile, mask) for part in zip(*slices, strict=True)]
        return tuple(
            None if parts[0][i] is None else np.concatenate([p[i] for p in parts], axis=int(i == 0)) for i in range(3)
        )  # type: ignore[return-value]
    weights_only = (False, True, False)
    return _deconv_backward(
        _grouped_refusals(g, groups, profile, dil),
        lambda: conv_grouped.conv2d(dy, w, None, stride, padding, groups, profile, dil),
        lambda: conv_grouped.conv2d_backward(
            x, dy, w, stride, padding, groups, False, profile, weights_only, dilation=dil
        )[1],
        lambda: _deconv_bias_grad(dy, g, _adjoint_kinds(g, w.shape, groups, profile, dil)[2].startswith(conv.GEMM_JIT)),
        has_bias,
        mask,
    )


# -- channels-last operands ------------------------------------------------------------------------
#
# A transposed convolution whose input or weight ATen suggests channels-last (SAM's mask decoder: its
# LayerNorm2d permutes leave NHWC strides) runs oneDNN's deconvolution on nhwc (acdb) memory, again as
# its adjoint convolution (ONEDNN_VERBOSE at avx2: brg_deconv:avx2+brgconv_strided:avx2 forward,
# conv:any+brg_conv_fwd:avx2 backward data, conv:any+jit:avx2 backward weights): the forward is the
# channels-last adjoint's backward data of x, grad_input its channels-last forward of dy, grad_weight
# its channels-last backward weights with dy as its input and x as its grad_output (harness.impl.
# conv_nhwc and conv_nhwc_backward, which decline what they do not model); grad_bias ref_deconvolution's
# compute_bwd_bias_ndhwc: per output channel, per image a chain from 0 over its (oh, ow) in order (the
# omp simd reduction over a strided read, not vectorised: measured), the images' sums added in order.
# Where ATen keeps slow_conv_transpose2d (one image, ...) it is refused: that path is not measured on
# channels-last operands. At AVX-512 the same (the modules' own avx512_core models and bounds;
# transpose_nhwc_measure.py on a Zen 5, 80 random draws at each of 1, 2 and 4 threads, 2x2 to 4x4
# kernels, strides 1 and 2): the forward 63, 58 and 53 bit for bit, grad_input 44, 42 and 44,
# grad_weight 68, 61 and 58, grad_bias 48, 43 and 40, none other; the rest refused (slow_conv_transpose2d,
# brg_conv_bwd's ker_base past 16 channels, the forward's several brgemm calls).


def _nhwc_checks(x_shape, w_shape, stride: Pair, padding: Pair, output_padding: Pair, profile: KernelProfile):
    g = adjoint_geometry(x_shape, w_shape, stride, padding, output_padding)
    _raise(_AARCH64 if profile.aarch64 else None)
    if runs_slow(x_shape, w_shape, stride, profile):
        raise ParityError("conv_transpose2d (channels-last): ATen's slow_conv_transpose2d is not modelled here")
    if any(output_padding):
        raise ParityError("conv_transpose2d (channels-last): an output padding is not measured")
    return g


def conv_transpose2d_nhwc(x, w, b, stride: Pair, padding: Pair, output_padding: Pair, profile: KernelProfile):
    """``aten.convolution`` with ``transposed`` on channels-last operands: y (N, OC, OH, OW)."""
    from harness.impl import conv_nhwc_backward

    x, w = f32(x), f32(w)
    g = _nhwc_checks(x.shape, w.shape, stride, padding, output_padding, profile)
    if profile.aten == "avx2" and (g.sh, g.sw) == (1, 1) and g.w > g.ow and (g.kh, g.kw) != (1, 1):
        # brg_deconv:avx2+brg_conv_fwd:avx2 (its weights reordered, Acdb24a): brg_conv_bwd's W > OW search gave
        # other bits in 1 of 31 such forwards on a Zen 5 (one image of 60 channels, 3x3, at 1 thread; 30 bit for bit)
        raise ParityError(
            "conv_transpose2d (channels-last): brg_deconv:avx2's forward where the adjoint's row outgrows its "
            "output (W > OW) not modelled"
        )
    zeros = np.zeros((g.n, g.c, g.h, g.w), np.float32)  # the adjoint's input: its values are not read
    y = conv_nhwc_backward.conv2d_backward(x, zeros, w, stride, padding, 1, False, profile, (True, False, False))[0]
    return _plus_bias(y, None if b is None else f32(b))


def conv_transpose2d_nhwc_backward(
    dy, x, w, stride: Pair, padding: Pair, output_padding: Pair, has_bias: bool, profile: KernelProfile,
    mask: tuple[bool, bool, bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:  # fmt: skip
    """``aten.convolution_backward`` with ``transposed`` on channels-last operands."""
    from harness.impl import conv_nhwc, conv_nhwc_backward

    dy, x, w = f32(dy), f32(x), f32(w)
    g = _nhwc_checks(x.shape, w.shape, stride, padding, output_padding, profile)
    weights_only = (False, True, False)
    return _deconv_backward(
        (None,) * 4,
        lambda: conv_nhwc.conv2d(dy, w, None, stride, padding, 1, profile),
        lambda: conv_nhwc_backward.conv2d_backward(x, dy, w, stride, padding, 1, False, profile, weights_only)[1],
        lambda: _deconv_bias_grad(dy, g, True),  # compute_bwd_bias_ndhwc: per image from 0, as the plain sum
        has_bias,
        mask,
    )
