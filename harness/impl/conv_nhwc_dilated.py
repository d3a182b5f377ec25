"""Dilated 2-D convolutions on channels-last tensors (``aten.convolution`` and its backward where the
dilation is not 1 and ATen runs the convolution channels-last: the input's or the weight's suggested
memory format; a 1-D one's 2-D view, so WavLM's x-vector TDNN, whose weight is transposed from
(O, K, I), runs here), forward and backward, as torch 2.13.0 runs them on x86 CPUs at the baseline
(SSE4.1), AVX2 and AVX-512 levels. One group only. The undilated kernels are harness.impl.conv_nhwc
and harness.impl.conv_nhwc_backward; the models below are theirs with the taps DH, DW apart (as
harness.impl.conv's dilated models are its undilated ones').

Shapes (logical NCHW float32; channels-last in torch's memory): x (N, C, H, W), w (OC, C, KH, KW),
dy (N, OC, OH, OW), OH = (H + 2*PH - (KH - 1)*DH - 1) // SH + 1, OW likewise.

What runs (ONEDNN_VERBOSE and ``torch._C._select_conv_backend``, torch 2.13.0 on a Zen 5; ``kinds``):

- ATen's ``slow_conv_dilated2d`` (NaiveDilatedConvolution.cpp, channels-last since
  ``thnn_conv_use_channels_last``) for one small image (a dilation counts as a stride in
  ``use_mkldnn``: conv.py ``_small_single``), at every level: per image the output rows filled with
  the bias (zeros without), the image's im2col rows (OH*OW, KH*KW*C) with the dilation, ``cpublas::gemm``
  ('T', 'N', OC, OH*OW, KH*KW*C, beta 1); grad_input ``gemm`` ('N', 'N', KH*KW*C, OH*OW, OC) into the
  columns and im2col.h's channels-last col2im (zeros, then per (oh, ow, kh, kw) the tap's channels
  added); grad_weight per image ``gemm`` ('N', 'T', KH*KW*C, OC, OH*OW, beta 1); grad_bias zeros, each
  image's sum over (OH, OW) of its channels-last slice added.
- SSE4.1: the forward oneDNN's ``gemm:jit`` nspc (conv_nhwc ``_gemm_forward``, im2col with the
  dilation) or ``jit:sse41`` where conv.py's list picks it for the kernel's extent (the NCHW chain,
  conv.py ``_dilated_forward``); grad_input and grad_weight ``gemm:jit`` nspc (conv_nhwc_backward
  ``_gemm_data``, ``_gemm_weights``: col2im and im2col with the dilation), grad_bias its lanes.
- AVX2 and AVX-512: the forward ``brg_conv_fwd:avx2`` / ``brg_conv_fwd:avx512_core`` (conv_nhwc
  ``_brg_blocked_chain``: per output and ic block one fused chain from 0 over the taps row by row, at a
  tap the block's channels, the blocks added, the bias last; where nothing is padded or exec_vpad runs
  one brgemm call holds every tap, else exec_base's calls by its column block, get_ow_range's taps
  ``kw * DW`` apart). The exec type, the column block and the ic block are those init_conf's search
  keeps (conv_nhwc ``exec_search``, the search brg_conv_bwd's W > OW model runs, here with the
  column stride and the taps' dilation in get_inp_size: exec_vpad tried where each side's padding is
  under KW strides and kept where its column block's input fits the row, else exec_base; est_eff over
  output-channel blocks, kernel-row blocks KH and 1 and column blocks by the thread count;
  select_ic_block's input row over the kernel's extent with the unroll its object last set). Before,
  the model took the ic block only where every output-channel block gave the same one (conv_nhwc
  ``avx512_ic_blocks``: two candidates elsewhere); the search's pick may be neither: 288 input
  channels, a kernel of 5 dilated 4, 60 columns, 16 output channels: 272 on 4 threads, where 240 and
  288 give other bits in 1,345 and 1,337 of 1,408 outputs (``can_fail.py``); grad_input at stride 1
  ``brg_conv_bwd``
  (+``brg_conv_fwd``: that forward over grad_output, OC channels in and C out, the taps inverted, padded
  by the kernel's extent less 1 less the padding, the same calls), at a stride ``gemm:jit`` nspc with
  oneDNN's sgemm at the level; grad_weight and grad_bias at AVX2 ``gemm:jit`` nspc (jit:avx2's weights
  take no dilation), at AVX-512 ``jit:avx512_core`` on nxc where its init_conf accepts the kernel's
  extent (conv_nhwc_backward ``_avx512_nxc_weights``: one chain per thread part, no expl_bcast row
  calls with a dilation), else ``gemm:jit`` nspc. gemm:jit's nspc forward takes no pixel blocking
  with a dilation (init_conf's is_blocking_applicable): its blocking gave other bits in 3 of 60
  SSE4.1 forwards on 4 threads before.

Measured on a Zen 5 (``dilated_cl_measure.py``: random draws of dilation 2 to 4, kernels 2 to 5,
channels 1 to 40 (a third off multiples of 8 and 16 by 1 to 3), strides 1 and 2, padding 0 to 3,
1 to 3 images; conv1d over a weight transposed from (O, K, I) and conv2d over a channels-last input;
a fifth with NaN, infinities, ±0 and subnormals in x, w and grad_output; traced and replayed): 60
draws at each of baseline, avx2 and avx512 on 1, 2 and 4 threads, 540 forwards and 540 backwards:
480 forwards and 389 backwards (every gradient) bit for bit, 0 other, the rest refused (67 NaN
results of either kind, 71 grad_weights over NaN or infinite operands, 59 column blocks hanging on
oneDNN's search, 46 of them brg_conv_bwd's on 2 and 4 threads, 12 of one input channel or padding
past the extent, 2 SSE4.1 grad_weights of NCHW ones, whose one input channel makes channels-last
memory NCHW). Real shapes (``real_shapes.py``): DeepLabV3's ASPP branches (256 channels at 33x33,
dilation and padding 6 and 12; 64 channels at 18) and WavLM's TDNN (512 channels, kernels 3 dilated
2 and 3): every pass bit for bit at baseline on 1, 2 and 4 threads; at avx2 and avx512 the column
block's search (ASPP at avx2 on 4 threads, dilation 18 on 2 and 4) and WavLM's ic block at avx512
(select_ic_block's 336 or 512 channels by the output-channel block) were refused before the search
was modelled. With it (``real_measure.py real``: WavLM's six dilated TDNN shapes, 45 to 200 columns, 1
and 2 images, and four ASPP branches, 64 and 256 channels, dilation 6, 12 and 18): 10 of 10 forwards
and 10 of 10 backwards (every gradient) bit for bit at each of avx2 and avx512 on 1, 2, 4 and 8
threads (80 of 80 a level), none other (WavLM's forward takes ic blocks of 512 by the search, as
fitted before). The small-channel draws again (``dilated_cl_measure.py``, 30 draws a thread count,
seeds 300 + 10 * level + threads): at avx2 on 1, 2, 4 and 8 threads 28, 24, 27 and 25 forwards and
20, 21, 25 and 19 backwards of 30 bit for bit, at avx512 28, 25, 27 and 27 and 27, 23, 24 and 22
(before 28, 22, 26 and 23 and 20, 15, 22 and 13 at avx2, 28, 23, 26 and 24 and 27, 21, 18 and 20 at
avx512; 25 and 18 passes refused by a block), none other, none refused by a block (the rest NaN
results of either kind, grad_weights over NaN or infinite operands, one input channel, padding past
the extent). Near the real shapes
(``real_measure.py``: 64 to 512 channels a side, kernels 1 to 5, dilation 1 to 4, 1-D TDNN and 2-D
channels-last, a fifth with specials, 12 draws a level and thread count; the dilated ones here): at
avx512 on 1, 2, 4 and 8 threads 12, 7, 6 and 8 forwards and as many backwards bit for bit of 12, 10,
9 and 10 (before: 5, 5, 3 and 4 forwards, 7, 3, 3 and 3 backwards, 12, 8, 6 and 9 passes refused by
a block), at avx2 on 1, 2, 4 and 8 threads 8, 7, 7 and 5 of 9, 9, 9 and 8 each way (before 5, 7, 5
and 1 forwards, 8, 4, 4 and 3 backwards, 3, 3, 5 and 8 passes refused by a block); none other, none
refused by a block after (the rest a kernel side of one tap dilated, NaN results).

Refused (ParityError, one line naming the kernel): aarch64, several groups (depthwise too), a dilated
kernel side of one tap (conv.py ``dilation_refused``); brg_conv_fwd's and brg_conv_bwd's search where
it finds no blocking, keeps kernel-row blocks under KH (calls a row each, not modelled; none in the
draws above) or exec_base's kw blocks split (the weights over L2), over one input channel (1 of 1
such draw gave other bits, forward and grad_input), and brg_conv_bwd with padding past the kernel's
extent less 1; gemm:jit's and jit:avx512_core's grad_weight and grad_bias over NaN or infinite
operands (which NaN their sums keep: as undilated).
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv, conv_nhwc, conv_nhwc_backward
from harness.impl import onednn_sgemm as og
from harness.impl._lib import aligned, f32
from harness.impl.profiles import KernelProfile

SLOW = "slow_conv_dilated2d"
GEMM = "gemm:jit"
BRG_FWD, BRG_BWD, AVX512_WEIGHTS = "brg_conv_fwd", "brg_conv_bwd", "jit:avx512_core"
_REFUSE = "refuse: "
Grads = tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]


def _geometry(x_shape, w_shape, stride, padding, dil: tuple[int, int]) -> conv.Geometry:
    return conv._geometry(tuple(x_shape), tuple(w_shape), tuple(stride), tuple(padding), dil)


def kinds(x_shape, w_shape, stride, padding, dil: tuple[int, int], groups: int,
          profile: KernelProfile) -> tuple[str, str, str]:  # fmt: skip
    """(forward, grad_input, grad_weight and grad_bias): the kernels torch runs for this dilated
    channels-last convolution, each a name or ``"refuse: why"``."""
    why = conv_nhwc._unmodelled_level(profile, ("default", "avx2", "avx512"))
    if why:
        return (f"{_REFUSE}{why}",) * 3
    if groups != 1:
        return (f"{_REFUSE}{groups} groups (depthwise or grouped dilated convolutions on channels-last memory)",) * 3
    conv.dilation_refused(tuple(x_shape), tuple(w_shape), dil, profile)
    n, c, h, wd = x_shape
    if conv._small_single(n, c, h, wd, w_shape[2], w_shape[3]):
        return SLOW, SLOW, SLOW
    level = conv_nhwc._level(profile)
    g = _geometry(x_shape, w_shape, stride, padding, dil)
    if level == "sse41":
        return ("jit:sse41" if conv.onednn_path(g, profile, dil) == conv.SSE41 else GEMM), GEMM, GEMM
    data = BRG_BWD if (g.sh, g.sw) == (1, 1) else GEMM
    weights = AVX512_WEIGHTS if level == "avx512" and not conv._avx512_weights_declines(g, dil, nxc=True) else GEMM
    return BRG_FWD, data, weights


def _brg(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry, dil: tuple[int, int],
         profile: KernelProfile, what: str) -> np.ndarray:  # fmt: skip
    """brg_conv_fwd's output for ``g`` with the taps ``dil`` apart: conv_nhwc's model of its brgemm calls by
    the blocking init_conf's search keeps (conv_nhwc ``exec_search``: exec_vpad or exec_base, the
    output-channel block, the column block, the kernel-row block and select_ic_block's ic block, the input
    row over the kernel's extent): one call over every tap where nothing is padded or exec_vpad runs, else
    exec_base's calls by its column block, the taps' columns ``dil`` apart, per ic block. ParityError where
    the search finds nothing, a call takes fewer kernel rows than KH or exec_base's kw blocks split, and
    over one input channel (other bits: 1 of 1 such draw)."""
    if g.c == 1:
        raise ParityError(f"conv2d (channels-last, dilated): {what} over one input channel is not modelled")
    blocks = conv_nhwc.brg_search_blocks(g, profile, dil)
    if isinstance(blocks, str):
        raise ParityError(f"conv2d (channels-last, dilated): {what} {blocks} is not modelled")
    return conv_nhwc._brg_blocked_chain(x, w, b, g, *blocks, dil)


def _brg_data(dy: np.ndarray, w: np.ndarray, g: conv.Geometry, dil: tuple[int, int],
              profile: KernelProfile) -> np.ndarray:  # fmt: skip
    """brg_conv_bwd's grad_input (stride 1): brg_conv_fwd over grad_output (OC channels in, C out) with the
    weights' channels swapped and the taps inverted, padded by the kernel's extent less 1 less the
    padding (``_brg``). ParityError where the padding passes the extent less 1."""
    e = conv._extended(g, dil)
    pad = (e.kh - 1 - g.ph, e.kw - 1 - g.pw)
    if min(pad) < 0:
        raise ParityError(
            f"conv2d backward (channels-last, dilated): {BRG_BWD}'s grad_input with padding ({g.ph}, {g.pw}) past "
            f"the kernel's extent ({e.kh}, {e.kw}) less 1 is not modelled"
        )
    swapped = np.ascontiguousarray(w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1])
    gs = conv._geometry(dy.shape, swapped.shape, (1, 1), pad, dil)
    return _brg(dy, swapped, None, gs, dil, profile, f"{BRG_BWD}'s grad_input")


# ----------------------------------------------------------------------- ATen's slow_conv_dilated2d
def _slow_forward(x, w, b, g: conv.Geometry, dil: tuple[int, int], profile: KernelProfile) -> np.ndarray:
    """slow_conv_dilated2d's channels-last forward (the module's docstring)."""
    from harness.impl.linalg import cpublas_gemm

    n, c, _h, _wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    k, m = c * kh * kw, oh * ow
    wcl = conv_nhwc._nhwc_buffer(w)  # (OC, KH*KW*C) rows
    cols = aligned(m * k)
    y = aligned(n * m * oc)
    y[:] = 0.0
    for t in range(n):
        out = y[t * m * oc : (t + 1) * m * oc]
        if b is not None:
            out.reshape(m, oc)[:] = b
        cols[:] = conv_nhwc._im2col_rows(x[t], kh, kw, sh, sw, ph, pw, oh, ow, *dil).reshape(-1)
        cpublas_gemm("t", "n", oc, m, k, wcl, k, cols, k, 1.0, out, oc, profile)
    return f32(y.reshape(n, oh, ow, oc).transpose(0, 3, 1, 2))


def _slow_backward(dy, x, w, g: conv.Geometry, dil: tuple[int, int], has_bias: bool, profile: KernelProfile,
                   mask) -> Grads:  # fmt: skip
    """slow_conv_dilated2d's channels-last backward (the module's docstring), per image in order."""
    from harness.impl.linalg import cpublas_gemm
    from harness.impl.reduce import sum_dims

    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    k, m = c * kh * kw, oh * ow
    wcl = conv_nhwc._nhwc_buffer(w)
    d = conv_nhwc._nhwc_buffer(dy)
    cols = aligned(m * k)
    gx = gw = gb = None
    if mask[0]:
        gx = np.empty((n, c, h, wd), np.float32)
        for t in range(n):
            cpublas_gemm("n", "n", k, m, oc, wcl, k, d[t * m * oc :], oc, 0.0, cols, k, profile)
            rows = cols.reshape(m, k)
            im = conv_nhwc_backward._col2im_rows(rows, c, h, wd, kh, kw, sh, sw, ph, pw, oh, ow, *dil)
            gx[t] = im.transpose(2, 0, 1)
    if mask[1]:
        acc = aligned(k * oc)
        acc[:] = 0.0
        for t in range(n):
            cols[:] = conv_nhwc._im2col_rows(x[t], kh, kw, sh, sw, ph, pw, oh, ow, *dil).reshape(-1)
            cpublas_gemm("n", "t", k, oc, m, cols, k, d[t * m * oc :], oc, 1.0, acc, k, profile)
        gw = f32(acc.reshape(oc, kh, kw, c).transpose(0, 3, 1, 2))
    if mask[2] and has_bias:
        gb = np.zeros(oc, np.float32)
        for t in range(n):
            gb = gb + sum_dims(f32(dy[t].transpose(1, 2, 0)), (0, 1), profile)
    return gx, gw, gb


# ------------------------------------------------------------------------------- interface
def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, dil: tuple[int, int],
           groups: int, profile: KernelProfile) -> np.ndarray:  # fmt: skip
    """The dilated channels-last forward: y (N, OC, OH, OW) (logical NCHW); ParityError where not modelled."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    dil = (int(dil[0]), int(dil[1]))
    kind = kinds(x.shape, w.shape, stride, padding, dil, groups, profile)[0]
    if kind.startswith(_REFUSE):
        raise ParityError(f"conv2d (channels-last, dilated): {kind[len(_REFUSE) :]} is not modelled")
    g = _geometry(x.shape, w.shape, stride, padding, dil)
    if kind == SLOW:
        return _slow_forward(x, w, b, g, dil, profile)
    if kind == "jit:sse41":
        return conv._dilated_forward(x, w, b, g, dil, profile, conv.SSE41)
    if kind == GEMM:
        return conv_nhwc._gemm_forward(x, w, b, g, profile, dil)
    return _brg(x, w, b, g, dil, profile, kind)


def _nonfinite_weights(dy, x, mask, has_bias: bool, kind: str) -> None:
    """ParityError where ``kind``'s grad_weight or grad_bias would sum NaN or infinite operands."""
    asked = mask[1] or (mask[2] and has_bias)
    if asked and ((mask[1] and not np.isfinite(x).all()) or not np.isfinite(dy).all()):
        raise ParityError(
            f"conv2d backward (channels-last, dilated): {kind}'s grad_weight and grad_bias over NaN or infinite "
            "operands (which NaN its sums keep) is not modelled"
        )


def conv2d_backward(dy, x, w, stride, padding, dil: tuple[int, int], groups: int, has_bias: bool,
                    profile: KernelProfile, mask) -> Grads:  # fmt: skip
    """(grad_input, grad_weight, grad_bias) of the dilated channels-last convolution, None where
    ``mask`` leaves one out (or no bias); ParityError where not modelled."""
    dy, x, w = f32(np.asarray(dy)), f32(np.asarray(x)), f32(np.asarray(w))
    dil = (int(dil[0]), int(dil[1]))
    mask = tuple(bool(m) for m in mask)
    _fwd, data, weights = kinds(x.shape, w.shape, stride, padding, dil, groups, profile)
    for kind, asked in ((data, mask[0]), (weights, mask[1] or (mask[2] and has_bias))):
        if asked and kind.startswith(_REFUSE):
            raise ParityError(f"conv2d backward (channels-last, dilated): {kind[len(_REFUSE) :]} is not modelled")
    g = _geometry(x.shape, w.shape, stride, padding, dil)
    if data == SLOW:
        return _slow_backward(dy, x, w, g, dil, has_bias, profile, mask)
    level, threads = conv_nhwc._level(profile), profile.threads
    isa = {"sse41": og.SSE41, "avx2": og.AVX2, "avx512": og.AVX512}[level]
    gx = gw = gb = None
    if mask[0] and data == BRG_BWD:
        gx = _brg_data(dy, w, g, dil, profile)
    elif mask[0]:
        gx = conv_nhwc_backward._gemm_data(dy, w, g, threads, isa, dil)
    _nonfinite_weights(dy, x, mask, has_bias, weights)
    if weights == AVX512_WEIGHTS:
        gw, gb = conv_nhwc_backward._avx512_nxc_weights(dy, x, g, threads, (mask[1], mask[2] and has_bias), dil)
    else:
        gw = conv_nhwc_backward._gemm_weights(dy, x, g, threads, isa, dil) if mask[1] else None
        gb = conv_nhwc_backward._gemm_bias(dy) if mask[2] and has_bias else None
    return gx, (gw if mask[1] else None), (gb if (mask[2] and has_bias) else None)
