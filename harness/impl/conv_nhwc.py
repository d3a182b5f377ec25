"""2-D convolution of channels-last tensors (``aten.convolution`` where the input or the weight is
NHWC in memory), as torch 2.13.0 runs it on x86 CPUs at the AVX2 level.

Shapes (logical NCHW float32 arrays holding the values; their memory in torch was channels-last)::

    x   input          (N, C, H, W)        C = IC input channels
    w   weight         (OC, C / G, KH, KW) G = groups
    b   bias           (OC,) or None
    y   output         (N, OC, OH, OW)     OH = (H + 2*PH - KH) // SH + 1, OW likewise
    stride (SH, SW), padding (PH, PW); dilation 1, not transposed.

Which layout: ATen's ``_convolution`` asks ``mkldnn_conv_use_channels_last`` (oneDNN) or
``thnn_conv_use_channels_last`` (slow_conv2d): channels-last where the input's or the weight's
``suggest_memory_format()`` is ChannelsLast (``suggests_channels_last``). A 1-D convolution's (N, C, W)
operands are 3-D when ATen asks, never channels-last: a (N, C, W) transposed from (N, W, C), as
Mamba-2's causal convolution has it, is made contiguous and runs the NCHW kernels. The backend
is chosen as for NCHW (harness.impl.conv ``path``): ATen's ``thnn`` for a 1x1 kernel at stride 1
below 16 images on 1 thread, or one small image; else oneDNN on nhwc memory. (``x.contiguous(
memory_format=torch.channels_last)`` of one input channel or one pixel keeps NCHW strides, the
same memory: those run as NCHW.)

What runs at AVX2 (measured with ONEDNN_VERBOSE, torch 2.13.0, oneDNN v3.12), and its bits:

- oneDNN ``brg_conv_fwd:avx2`` (kxk) and ``brgconv_1x1:avx2`` (1x1): per output element one fused
  chain from 0 over the taps (kh, kw) row by row, at a tap over the input channels (the brgemm
  batch), the bias added last. Modelled where one ic block holds every channel (``_one_ic_block``,
  brg_blocking_t::select_ic_block for every output-channel block it may pick) and one brgemm call
  holds every tap (kernel within the input, padding within half the kernel). Elsewhere each ic block's
  or call's chain is from 0 and added to C (the brgemm kernel adds its accumulators to C at the end:
  3,000 channels at a 1x1 kernel ran blocks of 320, measured), refused.
- oneDNN ``brdgmm_dw:avx2`` (depthwise, groups = C = OC): per output one fused chain from 0 over the
  taps (kh, kw) row by row, the bias added last.
- ATen's ``thnn`` (``slow_conv2d_update_output_frame``, is_channels_last): per image im2col into
  (OH*OW, KH*KW*C) rows ((kh, kw, channel) order; a 1x1 kernel at stride 1 reads the input as it
  lies), the output filled with the bias, then MKL ``sgemm`` ('T', 'N', m = OC, n = OH*OW, k =
  KH*KW*C, beta 1 with a bias) through ``cpublas::gemm``; one group only.

Refused (ParityError naming the kernel): other levels (SSE4.1's jit:sse41 / gemm:jit on nhwc, AVX-512's
brgemm kernels), aarch64, groups other than 1 and depthwise. The backward: harness.impl.conv_nhwc_backward.
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv, conv_grouped
from harness.impl._lib import f32, ptr
from harness.impl.profiles import KernelProfile

# oneDNN's brgemm convolution at AVX2 (jit_brgemm_conv_utils.cpp): its L2 taken as 2 MiB whatever the
# host's, three quarters of it; the unroll (estimate_ur) by the output-channel block
_BRG_L2 = (2 << 20) * 3 // 4
_BRG_UR = {8: 14, 16: 6, 24: 4, 32: 3}


def suggests_channels_last(shape: tuple[int, ...], stride: tuple[int, ...] | list[int]) -> bool:
    """Whether ATen runs a convolution operand of this shape and these strides channels-last: c10's
    ``suggest_memory_format() == ChannelsLast``, asked of the operand as given (a 3-D one, a 1-D
    convolution's, never is: ATen makes it contiguous)."""
    from harness.impl.pool import suggests_channels_last as cl_4d

    return cl_4d(tuple(shape), tuple(stride))


def _level(profile: KernelProfile) -> None:
    if profile.aarch64 or profile.aten != "avx2" or profile.torch != "2.13.0":
        level = "aarch64" if profile.aarch64 else profile.aten
        raise ParityError(f"conv2d (channels-last): the {level} level (torch {profile.torch}) is not modelled")


def _thnn(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry, profile: KernelProfile) -> np.ndarray:
    """ATen's slow_conv2d on channels-last memory: per image one MKL sgemm ('T', 'N') of the
    (kh, kw, channel)-ordered weights and im2col rows onto the bias."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    k = kh * kw * c
    w_rows = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(-1)  # (OC, KH*KW*C)
    y = np.empty((n, oh, ow, oc), np.float32)
    prof = profile if n == 1 else profile.with_threads(1)  # parallel_for over the images, as for NCHW
    pixels = np.ascontiguousarray(x.transpose(0, 2, 3, 1))  # the input as it lies: (N, H, W, C)
    padded = np.zeros((n, h + 2 * ph, wd + 2 * pw, c), np.float32)
    padded[:, ph : ph + h, pw : pw + wd] = pixels
    for t in range(n):
        if (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0):
            rows = pixels[t].reshape(-1)  # the image itself: its address (offset) as torch's
        else:
            taps = [
                padded[t, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw]
                for i in range(kh)
                for j in range(kw)
            ]
            rows = np.ascontiguousarray(np.stack(taps, axis=2)).reshape(-1)  # (OH*OW, KH*KW*C)
        out = y[t].reshape(-1)
        if b is not None:
            y[t] = b
        conv._thnn_gemm("tn", oc, oh * ow, k, w_rows, k, rows, k, 1.0 if b is not None else 0.0, out, oc, prof)
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2))


def _brg_chain(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry) -> np.ndarray:
    """oneDNN's brgemm convolution with C in one ic block: per output one fused chain from 0 over
    (kh, kw, channel), the bias last (csrc/conv.c conv_fwd_terms)."""
    n, c, _h, _w, oc, kh, kw, oh, ow = g[:9]
    terms = np.array([(k, i, j) for i in range(kh) for j in range(kw) for k in range(c)], np.int64).reshape(-1, 3)
    y = np.empty((n, oc, oh, ow), np.float32)
    bias = None if b is None else ptr(b)
    conv._lib().conv_fwd_terms(*g, ptr(x), ptr(w), bias, ptr(y), ptr(terms), len(terms), 1, 0)
    return y


def _depthwise(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding) -> np.ndarray:
    """oneDNN's brdgmm_dw: per channel the one-channel brgemm chain over the taps, the bias last."""
    outs = []
    for ch in range(x.shape[1]):
        xb = np.ascontiguousarray(x[:, ch : ch + 1])
        bb = None if b is None else np.ascontiguousarray(b[ch : ch + 1])
        g = conv._geometry(xb.shape, w[ch : ch + 1].shape, stride, padding)
        outs.append(_brg_chain(xb, np.ascontiguousarray(w[ch : ch + 1]), bb, g))
    return np.concatenate(outs, axis=1)


def _same_memory(x_shape) -> bool:
    """One input channel or one pixel: the same memory in both layouts."""
    return x_shape[1] == 1 or x_shape[2] * x_shape[3] == 1


def declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """Why this channels-last forward is not modelled under ``profile`` ("" where it is)."""
    try:
        _level(profile)
    except ParityError as e:
        return str(e)
    _n, c, *_ = x_shape
    depthwise = groups == c == w_shape[0] and w_shape[1] == 1
    if groups != 1 and not depthwise:
        return f"conv2d (channels-last): {groups} groups of {c // groups} channels (not depthwise) is not modelled"
    if groups != 1 and conv_grouped._thnn_per_group(x_shape, w_shape, stride, profile):
        return "conv2d (channels-last): ATen's slow_conv2d per group is not modelled"
    thnn = groups == 1 and conv.path(x_shape, w_shape, stride, padding, profile) == conv.THNN
    if not thnn and _same_memory(x_shape):
        return (
            "conv2d (channels-last): oneDNN on one input channel or one pixel of channels-last strides is not modelled"
        )
    if groups == 1 and not thnn:
        g = conv._geometry(x_shape, w_shape, stride, padding)
        if not _one_call(g):
            return (
                f"conv2d (channels-last): oneDNN's brgemm convolution with a {g.kh}x{g.kw} kernel, padding "
                f"({g.ph}, {g.pw}) on a {g.h}x{g.w} input (its taps in several brgemm calls) is not modelled"
            )
        if not _one_ic_block(g, profile):
            return (
                f"conv2d (channels-last): oneDNN's brgemm convolution over {c} input channels with a {g.kh}x{g.kw} "
                "kernel (several ic blocks: select_ic_block) is not modelled"
            )
    return ""


def _one_call(g: conv.Geometry) -> bool:
    """Where every tap of an output lies in one brgemm call (measured at AVX2): the kernel within the
    input and the padding within half the kernel on each side."""
    return g.kh <= g.h and g.kw <= g.w and 2 * g.ph < g.kh and 2 * g.pw < g.kw


def _one_ic_block(g: conv.Geometry, profile: KernelProfile) -> bool:
    """Whether select_ic_block keeps every input channel in one block at AVX2, for each output-channel
    block (8 to 32) oneDNN's search may take, with the whole kernel in its batch: the block is all the
    channels where they fill at most 256 vectors of 8 and the weights and input row per channel take
    under 1,400 bytes; else at most 40 vectors, fewer where the input row of the unroll outgrows L1
    (7/8 of it) or the batch's weights and inputs outgrow L2."""
    vectors = -(-g.c // 8)
    if vectors == 1:
        return True
    l1 = profile.l1_per_core * 7 // 8
    for oc_block in (8, 16, 24, 32):
        if oc_block > -(-g.oc // 8) * 8:
            break
        ur = min(_BRG_UR[oc_block], g.ow)
        inp_ur = min(g.w, (ur - 1) * g.sw + g.kw)  # get_inp_size
        wei_per_ic = g.kh * g.kw * oc_block * 4
        inp_per_ic = g.kh * inp_ur * 4
        if vectors <= 256 and wei_per_ic + inp_per_ic < 1400:
            continue
        most = min(40, vectors)
        if g.kw > 1:
            most = min(most, max(1, l1 // (inp_ur * 4 * 8)))
        most = min(most, max(1, (_BRG_L2 - ur * oc_block * 4) // ((wei_per_ic + inp_per_ic) * 8)))
        if most < vectors:
            return False
    return True


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, groups: int,
           profile: KernelProfile) -> np.ndarray:  # fmt: skip
    """``aten.convolution`` on channels-last memory: y (N, OC, OH, OW) (logical NCHW). ParityError
    where ``declines`` names a reason."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    why = declines(x.shape, w.shape, stride, padding, groups, profile)
    if why:
        raise ParityError(why)
    if groups == 1 and conv.path(x.shape, w.shape, stride, padding, profile) == conv.THNN:
        return _thnn(x, w, b, conv._geometry(x.shape, w.shape, stride, padding), profile)
    if groups != 1:
        return _depthwise(x, w, b, stride, padding)
    return _brg_chain(x, w, b, conv._geometry(x.shape, w.shape, stride, padding))
