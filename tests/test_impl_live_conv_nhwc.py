"""Live parity of harness.impl.conv_nhwc: convolutions of channels-last tensors, torch run now against
the impl, bit for bit (uint32 patterns), in a fresh process per ISA level and at 1 and 2 threads.

The shapes: DPT's 1x1 projections of a channels-last (permuted) token map, a depthwise (1, 4) kernel
over rows of height 1 (Mamba-2's, were its input 4-D), 3x3 and 5x5 kernels with padding at strides 1 and 2
(oneDNN's brg_conv_fwd), 1x1 kernels from 8 images (brgconv_1x1 or ATen's slow_conv2d at 1 thread), one
input channel or one pixel (``contiguous(memory_format=torch.channels_last)`` of them keeps NCHW
strides), kernels whose taps span several brgemm calls (padding of half the kernel or more, a kernel
wider than its input: exec_base's calls per column, its column block the one oneDNN's search keeps), 3,000
channels in ic blocks (AVX2's of 320), and the refused ones: groups of several channels. The forward the
impl models must match torch; what it does not model must raise ParityError. ``SPECIALS``: two of them with
NaN and infinities, where the calls' sums meet NaNs of both signs.

``LAID_OUT``, forward and backward: inputs laid out as models produce them, one pixel and one channel
of channels-last strides (UperNet's pooled map, a channels-last convolution's one-channel output),
Swin2SR's 1x1 convolution (jit_1x1:avx2's weights on 2 threads), 16 images of a 1x1 kernel
(jit_1x1 at 1 thread) and ZoeDepth's projector 1x1s (16 -> 128 -> 16 channels): bit for bit at the
baseline and AVX2 levels (a 3x3 kernel over the pooled pixel: gemm:jit's weights at AVX2); ResNet's shortcut
(a 1x1 at stride 2: brgconv_strided's grad_input, jit_1x1's weights at AVX-512). Its
depthwise cases (jit_dw's nxc weights, 72 channels over rows of 46 columns in its column blocks,
ConvNeXt's 7x7 through jit:avx2 or jit:avx512_core over groups) backward at 4 and 16 threads too:
every one bit for bit at AVX2 and AVX-512.

``AVX2_WEIGHTS``, at AVX2 alone: grad_weight and grad_bias of ResNet-50's kinds of convolution made small,
past 64 channels at 4 and 16 threads (jit:avx2, jit_1x1:avx2 at strides 1 and 2, gemm:jit) bit for bit,
and jit_1x1's and gemm:jit's over NaN refused.

``AVX2_DATA``: grad_input alone at AVX2 on 4 threads past 64 channels (ResNet's kinds: brg_conv_bwd's
3x3, brgconv_1x1, brgconv_strided's 3x3 and 1x1), and a 5x5 kernel whose ic block hangs on oneDNN's
search, refused.

``WIDER``: grad_input alone where the input row is wider than the output's (W > OW at stride 1: brg_conv_bwd's
forward searched, exec_vpad or exec_base by its ow blocking) at AVX2 on 1, 4 and 16 threads and at AVX-512
on 8 and 16, bit for bit (at each level both exec types among them).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness.core.errors import ParityError
from harness.core.ulp import compare_tensors
from harness.impl import conv_grouped, conv_nhwc, conv_nhwc_backward
from harness.impl.profiles import profile_for_capability
from harness.impl.strides import suggests_channels_last
from harness.platform.config import collect_facts, supported_levels
from tests.impl_live import live_profile, needs_modelled_mkl, needs_verified_profile, normal32, use_threads

# (input shape, weight shape, stride, padding pair, groups, bias)
CASES = (
    ((4, 32, 4, 4), (8, 32, 1, 1), 1, (0, 0), 1, True),  # DPT's reassemble projection
    ((4, 32, 4, 4), (64, 32, 1, 1), 1, (0, 0), 1, True),
    ((2, 152, 1, 16), (152, 1, 1, 4), 1, (0, 3), 152, True),  # a depthwise (1, 4) kernel on rows of height 1
    ((2, 16, 8, 8), (16, 16, 3, 3), 1, (1, 1), 1, True),
    ((2, 40, 6, 6), (24, 40, 3, 3), 1, (1, 1), 1, False),
    ((2, 8, 9, 9), (8, 8, 3, 3), 2, (1, 1), 1, True),
    ((3, 100, 7, 7), (12, 100, 5, 5), 1, (2, 2), 1, True),
    ((16, 16, 8, 8), (16, 16, 1, 1), 1, (0, 0), 1, True),  # 16 images: oneDNN at 1 thread too
    ((2, 43, 5, 13), (2, 43, 1, 1), 1, (0, 0), 1, True),  # two output channels (MKL's sgemm at 1 thread)
    ((1, 24, 6, 6), (24, 1, 3, 3), 1, (1, 1), 24, True),
    ((3, 40, 9, 9), (40, 1, 5, 5), 1, (2, 2), 40, False),
    ((4, 1, 9, 10), (8, 1, 3, 3), 1, (1, 1), 1, True),  # one input channel: NCHW strides
    ((2, 29, 1, 1), (3, 29, 1, 1), 1, (0, 0), 1, True),  # one pixel: NCHW strides
    ((2, 3000, 2, 2), (4, 3000, 1, 1), 1, (0, 0), 1, True),  # AVX2: ic blocks of 320
    ((1, 15, 7, 4), (24, 15, 7, 7), 2, (0, 3), 1, True),  # wider than the input: the column block by the search
    ((2, 24, 1, 9), (16, 24, 1, 5), 1, (0, 5), 1, True),  # a row padded by its kernel: exec_base's calls
    ((2, 20, 6, 4), (12, 20, 7, 3), 2, (3, 2), 1, False),  # taller than wide: the partial taps' calls a row each
    ((2, 36, 1, 9), (7, 36, 1, 7), 3, (0, 6), 1, True),  # stride 3
    ((2, 22, 1, 29), (44, 22, 1, 4), 2, (0, 3), 1, True),  # stride 2 padded: the search's blocks (AVX-512)
    ((2, 16, 6, 6), (16, 4, 3, 3), 1, (1, 1), 4, True),  # groups of 4 channels (refused at AVX2 before, AVX-512 too)
)


# (case, seed) drawn with NaN, infinities and zeros in both operands (``run_case``'s specials): the sums
# of the ic blocks' calls (AVX-512's blocks of 1,280 over 3,000 channels) and of exec_base's calls meet
# NaNs of both signs, the call's accumulator the first operand
SPECIALS = (
    (((16, 3000, 2, 2), (4, 3000, 1, 1), 1, (0, 0), 1, True), 8),
    (((2, 36, 1, 9), (7, 36, 1, 7), 3, (0, 6), 1, True), 8),
)


# (layout, input shape, weight shape, stride, padding pair, groups, bias): "pooled" adaptive_avg_pool2d(1)
# of a channels-last map, strides (C, 1, C, C); "one_channel" a channels-last allocation, (H*W, 1, W, 1);
# "channels_last" contiguous(memory_format=torch.channels_last)
LAID_OUT = (
    ("pooled", (4, 48, 1, 1), (24, 48, 1, 1), 1, (0, 0), 1, True),  # UperNet's pyramid pooling
    ("pooled", (2, 16, 1, 1), (8, 16, 3, 3), 1, (1, 1), 1, True),  # one tap of a 3x3 kernel; gemm:jit's weights
    ("one_channel", (3, 1, 9, 7), (16, 1, 3, 3), 1, (1, 1), 1, True),
    ("one_channel", (16, 1, 6, 5), (8, 1, 1, 1), 1, (0, 0), 1, False),
    ("channels_last", (2, 60, 8, 8), (60, 60, 1, 1), 1, (0, 0), 1, True),  # Swin2SR's 1x1
    ("channels_last", (16, 16, 8, 8), (16, 16, 1, 1), 1, (0, 0), 1, True),  # jit_1x1's weights at 1 thread
    ("channels_last", (2, 16, 16, 16), (128, 16, 1, 1), 1, (0, 0), 1, True),  # ZoeDepth's projector, past 64
    ("channels_last", (2, 128, 16, 16), (16, 128, 1, 1), 1, (0, 0), 1, True),
    ("channels_last", (2, 40, 9, 12), (40, 1, 3, 3), 1, (1, 1), 40, True),  # depthwise: jit_dw's nxc weights
    ("channels_last", (3, 32, 11, 7), (24, 32, 3, 3), 1, (1, 1), 1, True),  # a ResNet-style 3x3 (AVX-512: expl_bcast)
    ("channels_last", (2, 17, 3, 33), (16, 17, 3, 3), 1, (1, 1), 1, True),  # rows past 28 columns: its calls
    ("channels_last", (2, 24, 9, 10), (16, 24, 3, 3), 2, (1, 1), 1, True),  # strided: brgconv_strided
    ("channels_last", (2, 24, 9, 9), (24, 1, 7, 7), 1, (3, 3), 24, True),  # ConvNeXt's 7x7 depthwise
    ("channels_last", (2, 12, 7, 15), (20, 12, 3, 3), 1, (0, 0), 1, True),  # unpadded: brg_conv_bwd's ker_base
    ("channels_last", (2, 40, 5, 19), (24, 40, 3, 2), 1, (1, 0), 1, True),  # W > OW past 16 channels: its search
    ("channels_last", (2, 72, 5, 46), (72, 1, 3, 3), 1, (1, 1), 72, True),  # jit_dw's column blocks 15, 15, 16
    ("channels_last", (2, 32, 8, 8), (64, 32, 1, 1), 2, (0, 0), 1, True),  # ResNet's shortcut: a 1x1 at stride 2
)

# ``LAID_OUT``'s depthwise cases run at these thread counts too (T threads on fewer cores give T cores' bits)
DEPTHWISE_THREADS = (4, 16)


# AVX2 grad_weight and grad_bias of one group past 64 channels and 2 threads, ResNet-50's kinds of
# convolution made small (input shape, weight shape, stride, padding pair): jit:avx2 (3x3 at strides 1 and 2,
# channels off 8), jit_1x1:avx2 at stride 1 and at stride 2 (over the gathered pixels), gemm:jit (padded 1x1s)
AVX2_WEIGHTS = (
    ((2, 128, 7, 7), (128, 128, 3, 3), 1, (1, 1)),
    ((3, 72, 9, 10), (136, 72, 3, 3), 2, (1, 1)),
    ((2, 67, 6, 9), (33, 67, 3, 3), 1, (1, 1)),
    ((5, 40, 6, 6), (200, 40, 1, 1), 1, (0, 0)),
    ((2, 96, 8, 12), (192, 96, 1, 1), 2, (0, 0)),
    ((2, 72, 5, 5), (80, 72, 1, 1), 1, (1, 1)),
    ((2, 80, 6, 8), (72, 80, 1, 1), 2, (1, 1)),  # a padded strided 1x1: gemm:jit
)


def _torch_backward(seed: int, x_shape, w_shape, stride: tuple[int, int], padding, mask: tuple[bool, ...]):
    """(x, w, dy, torch's three gradients) of one group on channels-last x and dy drawn from ``seed``
    (w, then dy; x too where grad_weight is asked, else zeros: grad_input does not read it), the bias
    counted where grad_bias is asked."""
    rng = np.random.default_rng(seed)
    x = normal32(rng, x_shape) if mask[1] else np.zeros(x_shape, np.float32)
    w = normal32(rng, w_shape, 0.3)
    oh, ow = ((x_shape[k + 2] + 2 * padding[k] - w_shape[k + 2]) // stride[k] + 1 for k in (0, 1))
    dy = normal32(rng, (x_shape[0], w_shape[0], oh, ow))
    grads = torch.ops.aten.convolution_backward(
        torch.from_numpy(dy).contiguous(memory_format=torch.channels_last),
        torch.from_numpy(x).contiguous(memory_format=torch.channels_last),
        torch.from_numpy(w),
        [w_shape[0]] if mask[2] else None,
        list(stride),
        list(padding),
        [1, 1],
        False,
        [0, 0],
        1,
        list(mask),
    )
    return x, w, dy, grads


def _avx2_weights_rows() -> list[dict]:
    """At AVX2 (``_child``'s process): ``AVX2_WEIGHTS``' grad_weight and grad_bias at 4 and 16 threads, exact
    or what differs ("refused" where the module declines); then over NaN, refused by jit_1x1 and gemm:jit."""
    rows = []
    for threads in (4, 16):
        use_threads(threads)
        profile = live_profile()
        for i, (x_shape, w_shape, stride, padding) in enumerate(AVX2_WEIGHTS):
            s2 = (stride, stride)
            x, w, dy, (_, gw, gb) = _torch_backward(41 + i, x_shape, w_shape, s2, padding, (False, True, True))
            try:
                got = conv_nhwc_backward.conv2d_backward(dy, x, w, s2, padding, 1, True, profile, (False, True, True))
                result = _compared([gw.contiguous().numpy(), gb.numpy()], list(got[1:]))
            except ParityError:
                result = "refused"
            rows.append({"case": f"{x_shape} {w_shape} weights at {threads} threads", "want": "exact", "got": result})
            if w_shape[2:] == (1, 1):  # jit_1x1 and gemm:jit: which NaN their sums keep is not modelled
                dy.reshape(-1)[::7] = np.nan
                try:
                    conv_nhwc_backward.conv2d_backward(dy, x, w, s2, padding, 1, True, profile, (False, True, True))
                    result = "modelled"
                except ParityError:
                    result = "refused"
                rows.append({"case": f"{x_shape} {w_shape} with NaN", "want": "refused", "got": result})
    return rows


# (input shape, weight shape, stride, padding pair) of grad_input alone at AVX2 on 4 threads, one group: ResNet's
# kinds past 64 channels (brg_conv_bwd's 3x3 with one ic block of 136, brgconv_1x1 past 256, brgconv_strided's
# 3x3 and 1x1) and refused: a 5x5 kernel whose forward's ic block (320 or 350) hangs on its search
AVX2_DATA = (
    ((2, 72, 7, 7), (136, 72, 3, 3), 1, (1, 1)),
    ((2, 520, 4, 4), (300, 520, 1, 1), 1, (0, 0)),
    ((2, 80, 9, 9), (96, 80, 3, 3), 2, (1, 1)),
    ((2, 132, 6, 6), (264, 132, 1, 1), 2, (0, 0)),
    ((1, 40, 6, 6), (350, 40, 5, 5), 1, (2, 2)),
)


# (input shape, weight shape, padding pair) at stride 1 with W > OW: grad_input alone at AVX2 on ``WIDER_THREADS``'
# first entry, at AVX-512 on its second (the search keeps exec_base's whole row or exec_vpad's blocks by the
# thread count; the first at AVX-512 on 8 threads had given other bits as exec_vpad's blocks of 11)
WIDER = (
    ((3, 34, 5, 21), (183, 34, 2, 2), (0, 0)),
    ((1, 12, 7, 23), (45, 12, 5, 5), (1, 1)),
    ((2, 9, 5, 26), (70, 9, 3, 3), (0, 0)),
)
WIDER_THREADS = {"avx2": (1, 4, 16), "avx512": (8, 16)}


def _compared(want: list, got: list) -> str:
    """ "exact" where every output has torch's bits, else how many differ."""
    counts = [compare_tensors("out", w, g) for w, g in zip(want, got, strict=True)]
    differ = sum(c.count - c.identical for c in counts)
    return "exact" if all(c.bit_identical for c in counts) else f"{differ} of {sum(c.count for c in counts)} differ"


def _laid_out(layout: str, a: np.ndarray) -> torch.Tensor:
    """``a`` as a model hands it to the convolution (``LAID_OUT``'s layouts)."""
    if layout == "pooled":  # the mean of a map whose values all equal a's: its own value
        return F.adaptive_avg_pool2d(
            torch.from_numpy(np.repeat(a, 2, axis=3)).contiguous(memory_format=torch.channels_last), 1
        )
    if layout == "one_channel":
        return torch.empty(a.shape, memory_format=torch.channels_last).copy_(torch.from_numpy(a))
    return torch.from_numpy(a).contiguous(memory_format=torch.channels_last)


def run_laid_out(case: tuple, seed: int) -> tuple[str, str]:
    """(forward, backward) of one ``LAID_OUT`` convolution under the running torch: "exact", "refused"
    or what differs."""
    layout, x_shape, w_shape, stride, padding, groups, bias = case
    rng = np.random.default_rng(seed)
    x, w = normal32(rng, x_shape), normal32(rng, w_shape, 0.3)
    b = normal32(rng, (w_shape[0],)) if bias else None
    tx, tw = _laid_out(layout, x), torch.from_numpy(w)
    x = tx.contiguous().numpy()
    assert suggests_channels_last(tuple(tx.shape), tx.stride())
    s2 = (stride, stride)
    y = torch.ops.aten.convolution(tx, tw, None if b is None else torch.from_numpy(b), list(s2), list(padding),
                                   [1, 1], False, [0, 0], groups)  # fmt: skip
    dy = normal32(rng, tuple(y.shape))
    mask = [True, True, bias]
    grads = torch.ops.aten.convolution_backward(
        _laid_out("one_channel", dy), tx, tw, [w_shape[0]] if bias else None, list(s2), list(padding), [1, 1],
        False, [0, 0], groups, mask)  # fmt: skip
    profile = live_profile()
    results = []
    for want, impl in (
        ([y], lambda: [conv_nhwc.conv2d(x, w, b, s2, padding, groups, profile)]),
        ([g for g in grads if g is not None],
         lambda: [g for g in conv_nhwc_backward.conv2d_backward(dy, x, w, s2, padding, groups, bias, profile, mask)
                  if g is not None]),
    ):  # fmt: skip
        try:
            results.append(_compared([t.contiguous().numpy() for t in want], impl()))
        except ParityError:
            results.append("refused")
    return results[0], results[1]


def run_case(case: tuple, seed: int, specials: bool = False) -> str:
    """The forward of one channels-last convolution under the running torch: "exact", "refused" or
    what differs; ``specials``: 6 values of each operand NaN, infinite or zero."""
    x_shape, w_shape, stride, padding, groups, bias = case
    rng = np.random.default_rng(seed)
    x, w = normal32(rng, x_shape), normal32(rng, w_shape, 0.3)
    for a in (x, w) if specials else ():
        a.reshape(-1)[rng.integers(0, a.size, 6)] = rng.choice(np.float32([np.nan, np.inf, -np.inf, 0, -0.0]), 6)
    b = normal32(rng, (w_shape[0],)) if bias else None
    tx = torch.from_numpy(x).contiguous(memory_format=torch.channels_last)
    tb = None if b is None else torch.from_numpy(b)
    want = F.conv2d(tx, torch.from_numpy(w), tb, stride=stride, padding=padding, groups=groups).contiguous().numpy()
    # as the replay: the channels-last model where the strides suggest it (one channel or pixel keeps NCHW's)
    cl = suggests_channels_last(tuple(tx.shape), tx.stride())
    impl = conv_nhwc.conv2d if cl else conv_grouped.conv2d
    try:
        got = impl(x, w, b, (stride, stride), padding, groups, live_profile())
    except ParityError:
        return "refused"
    c = compare_tensors("out", want, got)
    return "exact" if c.bit_identical else f"{c.count - c.identical} of {c.count} differ"


def _expected(case: tuple) -> str:
    x_shape, w_shape, stride, padding, groups, _bias = case
    if x_shape[1] == 1 or x_shape[2] * x_shape[3] == 1:  # NCHW strides: harness.impl.conv's model
        return "exact"
    refused = conv_nhwc.declines(x_shape, w_shape, (stride, stride), padding, groups, live_profile())
    return "refused" if refused else "exact"


def _laid_out_expected(case: tuple, direction: str) -> str:
    """ "exact" where the modules model ``LAID_OUT``'s ``case`` in ``direction`` at this level (their
    ``declines``), else "refused"."""
    _layout, x_shape, w_shape, stride, padding, groups, _bias = case
    module = conv_nhwc_backward if direction == "backward" else conv_nhwc
    refused = module.declines(x_shape, w_shape, (stride, stride), padding, groups, live_profile())
    return "refused" if refused else "exact"


def _grad_input_result(want: torch.Tensor, dy, x, w, stride: tuple[int, int], padding, profile) -> str:
    """torch's grad_input ``want`` against the impl's (one group): "exact", "refused" or what differs."""
    try:
        got = conv_nhwc_backward.conv2d_backward(dy, x, w, stride, padding, 1, False, profile, (True, False, False))[0]
        return _compared([want.contiguous().numpy()], [got])
    except ParityError:
        return "refused"


def _avx2_data_rows(threads: int) -> list[dict]:
    """``AVX2_DATA``'s grad_input on ``threads`` threads under the running torch: the rows ``_child`` reports."""
    use_threads(threads)
    profile, rows = live_profile(), []
    for i, (x_shape, w_shape, stride, padding) in enumerate(AVX2_DATA):
        s2, mask = (stride, stride), (True, False, False)
        x, w, dy, (want, _, _) = _torch_backward(41 + i, x_shape, w_shape, s2, padding, mask)
        refused = conv_nhwc_backward.declines(x_shape, w_shape, s2, padding, 1, profile, mask)
        result = _grad_input_result(want, dy, x, w, s2, padding, profile)
        case = f"{AVX2_DATA[i]} grad_input at {threads} threads"
        rows.append({"case": case, "want": "refused" if refused else "exact", "got": result})
    return rows


def _wider_rows(level: str) -> list[dict]:
    """``WIDER``'s grad_input at ``level``'s ``WIDER_THREADS`` under the running torch: the rows ``_child`` reports."""
    rows = []
    for threads in WIDER_THREADS[level]:
        use_threads(threads)
        profile = live_profile()
        for i, (x_shape, w_shape, padding) in enumerate(WIDER):
            x, w, dy, (want, _, _) = _torch_backward(51 + i, x_shape, w_shape, (1, 1), padding, (True, False, False))
            result = _grad_input_result(want, dy, x, w, (1, 1), padding, profile)
            rows.append({"case": f"{WIDER[i]} W > OW at {threads} threads", "want": "exact", "got": result})
    return rows


def _child() -> None:
    """Run in a fresh process: every case under this process's level, at 1 and 2 threads; ``LAID_OUT``
    exact at every level the module models."""
    rows = []
    for threads in (1, 2):
        use_threads(threads)
        rows += [{"case": f"{c} at {threads} threads", "want": _expected(c), "got": run_case(c, 11 + i)}
                 for i, c in enumerate(CASES)]  # fmt: skip
        rows += [{"case": f"{c} with NaN at {threads} threads", "want": _expected(c), "got": run_case(c, seed, True)}
                 for c, seed in SPECIALS]  # fmt: skip
        for i, c in enumerate(LAID_OUT):
            for name, got in zip(("forward", "backward"), run_laid_out(c, 31 + i), strict=True):
                want = _laid_out_expected(c, name)
                rows.append({"case": f"{c} {name} at {threads} threads", "want": want, "got": got})
    for threads in DEPTHWISE_THREADS:
        use_threads(threads)
        for i, c in enumerate(LAID_OUT):
            if c[5] > 1:  # backward only: the forward at these thread counts is not what the case tests
                got = run_laid_out(c, 31 + i)[1]
                want = _laid_out_expected(c, "backward")
                rows.append({"case": f"{c} backward at {threads} threads", "want": want, "got": got})
    level = conv_nhwc._level(live_profile())
    if level == "avx2":
        rows += _avx2_weights_rows()
        rows += _avx2_data_rows(4)
    if level in WIDER_THREADS:
        rows += _wider_rows(level)
    print(json.dumps(rows))


LEVELS = [lvl for lvl in supported_levels(collect_facts()) if lvl.arch == "x86_64"]


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("level", LEVELS, ids=[lvl.name for lvl in LEVELS])
def test_level(level) -> None:
    """Every case at this ISA level, 1 and 2 threads, in a fresh process: the modelled ones exact,
    the others refused; at AVX2 ``AVX2_DATA``'s grad_input on 4 threads too."""
    from tests.test_impl_live_conv import _run_pinned  # its fresh-process runner (not in the child)

    rows = _run_pinned(level, 2, "_child", [], module="tests.test_impl_live_conv_nhwc")
    failures = [f"{r['case']}: {r['got']}, expected {r['want']}" for r in rows if r["got"] != r["want"]]
    assert not failures, "\n".join(failures)
    if level.name == "avx2":
        assert sum(r["got"] == "exact" for r in rows) >= 24
        assert sum(r["case"].endswith(("weights at 4 threads", "weights at 16 threads")) for r in rows) == 2 * len(
            AVX2_WEIGHTS
        )
        data = [r["want"] for r in rows if "grad_input at 4 threads" in r["case"]]
        assert data == ["exact"] * 4 + ["refused"]  # AVX2_DATA: past 64 channels on 4 threads
    if level.name == "avx512":  # the forwards oneDNN's avx512_core brgemm kernels run, and every LAID_OUT backward
        assert sum(r["got"] == "exact" and "backward" not in r["case"] for r in rows) >= 30
        assert sum(r["got"] == "exact" and "backward" in r["case"] for r in rows) >= 2 * len(LAID_OUT)
    if level.name in WIDER_THREADS:  # brg_conv_bwd's grad_input where W > OW, every thread count
        wider = [r for r in rows if "W > OW at" in r["case"]]
        assert len(wider) == len(WIDER) * len(WIDER_THREADS[level.name])
    if level.name in ("avx2", "avx512"):  # the depthwise backwards (jit_dw; jit:avx2 or jit:avx512_core over
        # groups for ConvNeXt's 7x7) at every thread count
        dw = [str(c) for c in LAID_OUT if c[5] > 1]
        exact = [r for r in rows if r["got"] == "exact" and r["case"].split(" backward")[0] in dw]
        assert len(exact) == len(dw) * (2 + len(DEPTHWISE_THREADS))


def test_channels_last_as_aten_suggests() -> None:
    """The layout rule: suggest_memory_format of the operand as given; a 1-D convolution's (N, C, W)
    input transposed from (N, W, C) is not channels-last (ATen makes it contiguous)."""
    assert not suggests_channels_last((2, 152, 16), (2432, 1, 152))  # Mamba-2's conv input
    assert not suggests_channels_last((2, 152, 16), (2432, 16, 1))
    assert suggests_channels_last((4, 32, 4, 4), (512, 1, 128, 32))  # DPT's token map
    assert not suggests_channels_last((4, 32, 4, 4), (512, 16, 4, 1))


def test_refusals_name_the_kernel() -> None:
    """What is not modelled raises ParityError with its reason: ip_convolution, brg_conv_bwd's grad_input at
    AVX-512 whose swapped forward's ic blocks hang on the output-channel block; groups of over 16 input channels at
    AVX-512 (its brgemm kernels; up to 16 jit:avx512_core, modelled).
    Modelled now that brg_conv_fwd's blocks are those oneDNN's search keeps (``conv_nhwc.exec_search``; each bit
    for bit against torch on a Zen 5): a 3x3 backward's grad_input where the row outgrows the forward's output
    past 60 columns, ic blocks the output-channel block decides (AVX-512 and AVX2; AVX2's blocks of 320 over
    3,000 channels, brgconv_1x1's), a kernel outside its input whose column block the search picks (2 threads)."""
    x, w = np.zeros((2, 16, 8, 8), np.float32), np.zeros((16, 16, 3, 3), np.float32)
    avx512 = profile_for_capability("AVX512", 2, "x86_64")
    assert conv_nhwc.conv2d(x, w, None, (1, 1), (1, 1), 1, avx512).shape == (2, 16, 8, 8)
    dy, x17, w17 = (  # the row outgrows the forward's output past 60 columns: the search's blocking
        np.zeros((2, 16, 6, 63), np.float32),
        np.zeros((2, 17, 8, 65), np.float32),
        np.zeros((16, 17, 3, 3), np.float32),
    )
    gx, gw, _gb = conv_nhwc_backward.conv2d_backward(dy, x17, w17, (1, 1), (0, 0), 1, False, avx512, [True] * 3)
    assert (gx.shape, gw.shape) == (x17.shape, w17.shape)
    with pytest.raises(ParityError, match="ip_convolution"):
        conv_nhwc.conv2d(np.zeros((2, 8, 7, 7), np.float32), np.zeros((4, 8, 7, 7), np.float32), None, (1, 1), (0, 0),
                         1, avx512)  # fmt: skip
    x64, w64 = np.zeros((2, 64, 12, 12), np.float32), np.zeros((64, 64, 7, 7), np.float32)  # a 7x7 kernel
    assert conv_nhwc.conv2d(x64, w64, None, (1, 1), (3, 3), 1, avx512).shape == (2, 64, 12, 12)  # the search's block
    with pytest.raises(ParityError, match="grad_input over 64 output channels \\(ic blocks of 48 or 64"):
        conv_nhwc_backward.conv2d_backward(x64, x64, w64, (1, 1), (3, 3), 1, False, avx512, [True, False, False])
    avx2 = profile_for_capability("AVX2", 2, "x86_64")
    assert conv_nhwc.conv2d(x, w, None, (1, 1), (1, 1), 1, avx2).shape == (2, 16, 8, 8)
    y = conv_nhwc.conv2d(np.zeros((2, 3000, 2, 2), np.float32), np.zeros((4, 3000, 1, 1), np.float32), None,
                         (1, 1), (0, 0), 1, avx2)  # fmt: skip
    assert y.shape == (2, 4, 2, 2)  # ic blocks of 320, their sums added
    y = conv_nhwc.conv2d(np.zeros((2, 300, 7, 8), np.float32), np.zeros((32, 300, 7, 7), np.float32), None,
                         (1, 1), (3, 3), 1, avx2)  # fmt: skip
    assert y.shape == (2, 32, 7, 8)  # the ic block of the output-channel block the search keeps
    y = conv_nhwc.conv2d(np.zeros((1, 15, 7, 4), np.float32), np.zeros((24, 15, 7, 7), np.float32), None,
                         (2, 2), (0, 3), 1, avx2)  # fmt: skip
    assert y.shape == (1, 24, 1, 2)  # the column block the search keeps on 2 threads
    assert conv_nhwc.conv2d(
        np.zeros((1, 15, 7, 4), np.float32),
        np.zeros((24, 15, 7, 7), np.float32),
        None,
        (2, 2),
        (0, 3),
        1,
        profile_for_capability("AVX2", 1, "x86_64"),
    ).shape == (1, 24, 1, 2)
    w4 = np.zeros((16, 4, 3, 3), np.float32)  # 4 groups of 4 channels: brg_conv_fwd:avx2 group by group
    assert conv_nhwc.conv2d(x, w4, None, (1, 1), (1, 1), 4, avx2).shape == (2, 16, 8, 8)
    # jit:avx512_core on nxc: one chain over its blocks of 4 channels
    assert conv_nhwc.conv2d(x, w4, None, (1, 1), (1, 1), 4, avx512).shape == (2, 16, 8, 8)
    x40, w20 = np.zeros((2, 40, 8, 8), np.float32), np.zeros((16, 20, 3, 3), np.float32)
    with pytest.raises(ParityError, match="brg_conv_fwd:avx512_core or brgconv_1x1:avx512_core over 16 input"):
        conv_nhwc.conv2d(x40, w20, None, (1, 1), (1, 1), 2, avx512)
