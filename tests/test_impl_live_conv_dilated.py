"""Live parity of dilated convolutions (harness.impl.conv ``dilated_kernel``, ``dilated_backward_kernels``):
torch run now against the impl, bit for bit (uint32 patterns), at this host's level on 1 and 2 threads, and
through the trace replay (``harness.trace.impl_ops.replay``).

The shapes: DAC's residual units (kernel 7, dilation 3 and 9, padding 9 and 27: gemm:jit at AVX2,
jit:avx512_core's forward at AVX-512), UnivNet's (kernel 3, dilation 3, padding 3: jit:avx2 /
jit:avx512_core forward and backward data), 16 input channels (jit:avx512_core's weights at AVX-512),
one small image (ATen's slow_conv_dilated2d), a 2-D kernel dilated by rows and columns, and a strided
one (its backward data gemm:jit). Every pass bit for bit, an infinity and a -0 in the input.

With groups (harness.impl.conv_grouped, ``GROUPED``): WaveNet-style and DeepLab-style dilated depthwise
convolutions (jit_dw's forward, gemm:jit's backward), one whose padding jit_dw declines (gemm:jit), and
groups of 16 and of 8 channels (jit:sse41 / jit:avx2 / jit:avx512_core group by group, gemm:jit);
each pass bit for bit, or refused where the impl's route names a refusal. Transposed
(harness.impl.conv_transpose): a dilated conv_transpose1d through the replay.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness.core.errors import ParityError
from harness.impl import conv, conv_grouped
from harness.trace.impl_ops import replay
from tests.impl_live import live_profile, needs_modelled_mkl, needs_verified_profile, normal32, use_threads

pytestmark = pytest.mark.usefixtures("restore_threads")

# (input shape, weight shape, stride, padding, dilation): 1-D as given to conv1d, 2-D as to conv2d
CASES = (
    ((2, 4, 128), (4, 4, 7), 1, 9, 3),  # DAC
    ((2, 8, 64), (8, 8, 7), 1, 27, 9),  # DAC, wider
    ((2, 4, 16), (4, 4, 3), 1, 3, 3),  # UnivNet
    ((3, 16, 100), (24, 16, 5), 1, 4, 2),  # jit:avx512_core's weights at AVX-512
    ((1, 17, 200), (33, 17, 7), 1, 9, 3),  # one small image: slow_conv_dilated2d
    ((2, 9, 11, 14), (16, 9, 3, 4), 1, (2, 3), (2, 3)),
    ((3, 8, 40), (8, 8, 5), 2, 4, 2),  # strided: backward data gemm:jit
)


# (input shape, weight shape, stride, padding, dilation, groups)
GROUPED = (
    ((2, 16, 64), (16, 1, 3), 1, 2, 2, 16),  # WaveNet-style dilated depthwise conv1d
    ((2, 24, 17, 19), (24, 1, 3, 3), 1, 2, 2, 24),  # DeepLab's atrous depthwise
    ((1, 9, 13, 30), (9, 1, 5, 5), 1, 6, 3, 9),  # padding over jit_dw's unroll: gemm:jit
    ((2, 32, 12, 12), (32, 16, 3, 3), 1, 2, 2, 2),  # groups of 16 channels
    ((2, 32, 10, 11), (16, 8, 3, 3), 1, (2, 3), (2, 3), 4),  # groups of 8 input, 4 output channels
)


def _as_pairs(case: tuple) -> tuple[tuple[int, int], ...]:
    """stride, padding and dilation of the 2-D convolution that runs ``case``."""
    xs, _ws, s, p, d = case
    if len(xs) == 3:  # a 1-D convolution runs as 2-D over rows of height 1
        return (1, s), (0, p), (1, d)
    return tuple(v if isinstance(v, tuple) else (v, v) for v in (s, p, d))


def _torch(case: tuple, rng: np.random.Generator, groups: int = 1) -> tuple[dict, dict]:
    xs, ws, s, p, d = case
    x, w, b = normal32(rng, xs), normal32(rng, ws, 0.3), normal32(rng, (ws[0],))
    x.reshape(-1)[[3, 50]] = (np.inf, -0.0)
    tx, tw, tb = (torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
    y = (F.conv1d if len(xs) == 3 else F.conv2d)(tx, tw, tb, stride=s, padding=p, dilation=d, groups=groups)
    dy = normal32(rng, tuple(y.shape))
    y.backward(torch.from_numpy(dy))
    want = {"out": y.detach().numpy(), "grad_input": tx.grad.numpy(), "grad_weight": tw.grad.numpy()}
    return {"x": x, "w": w, "b": b, "dy": dy}, want | {"grad_bias": tb.grad.numpy()}


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("threads", [1, 2])
def test_dilated_convolutions_live(threads: int) -> None:
    """Forward and every gradient of each case bit for bit."""
    use_threads(threads)
    profile = live_profile()
    rng = np.random.default_rng(5)
    for case in CASES:
        ops, want = _torch(case, rng)
        x4, w4, dy4 = (a if a.ndim == 4 else a[:, :, None, :] for a in (ops["x"], ops["w"], ops["dy"]))
        (sh, sw), (ph, pw), (dh, dw) = _as_pairs(case)
        stride, padding, dil = (sh, sw), (ph, pw), (dh, dw)
        y = conv.conv2d(x4, w4, ops["b"], stride, padding, profile, dilation=dil)
        assert _bits_equal(y.reshape(want["out"].shape), want["out"]), case
        grads = conv.conv2d_backward(dy4, x4, w4, stride, padding, True, profile, dilation=dil)
        for got, name in zip(grads, ("grad_input", "grad_weight", "grad_bias"), strict=True):
            assert got is not None and _bits_equal(got.reshape(want[name].shape), want[name]), (case, name)


_PASSES = ("out", "grad_input", "grad_weight", "grad_bias")


def _grouped_pass(which: int, ops: dict, case: tuple, groups: int, profile) -> np.ndarray:
    """Pass ``which`` (``_PASSES``' order) of a grouped case by harness.impl.conv_grouped."""
    x4, w4, dy4 = (a if a.ndim == 4 else a[:, :, None, :] for a in (ops["x"], ops["w"], ops["dy"]))
    stride, padding, dil = _as_pairs(case)
    if which == 0:
        return conv_grouped.conv2d(x4, w4, ops["b"], stride, padding, groups, profile, dil)
    mask = tuple(i == which - 1 for i in range(3))
    grads = conv_grouped.conv2d_backward(dy4, x4, w4, stride, padding, groups, True, profile, mask, dilation=dil)
    return grads[which - 1]


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("threads", [1, 2])
def test_dilated_grouped_convolutions_live(threads: int) -> None:
    """Forward and every gradient of each grouped case bit for bit, or refused where
    ``conv_grouped.path`` names a refusal for the pass."""
    use_threads(threads)
    profile = live_profile()
    rng = np.random.default_rng(6)
    for *spec, groups in GROUPED:
        case = tuple(spec)
        ops, want = _torch(case, rng, groups)
        shapes = [a.shape if a.ndim == 4 else (*a.shape[:2], 1, a.shape[2]) for a in (ops["x"], ops["w"])]
        stride, padding, dil = _as_pairs(case)
        kinds = conv_grouped.path(*shapes, stride, padding, groups, profile, dil)
        for which, name in enumerate(_PASSES):
            kind = kinds[min(which, 2)]
            if kind.startswith("refuse:"):
                with pytest.raises(ParityError, match="not modelled"):
                    _grouped_pass(which, ops, case, groups, profile)
                continue
            got = _grouped_pass(which, ops, case, groups, profile)
            assert _bits_equal(got.reshape(want[name].shape), want[name]), (case, groups, name, kind)


def _args(case: tuple, mask: list[bool] | None = None, groups: int = 1) -> list[dict]:
    _xs, ws, s, p, d = case
    values = {"stride": [s], "padding": [p], "dilation": [d], "transposed": False, "output_padding": [0]}
    values["groups"] = groups
    if mask is not None:
        values |= {"bias_sizes": [ws[0]], "output_mask": mask}
    names = ("input", "weight", "bias") if mask is None else ("grad_output", "input", "weight")
    return [{"name": k, "tensor": k} for k in names] + [{"name": k, "value": v} for k, v in values.items()]


@needs_modelled_mkl
@needs_verified_profile
def test_dilated_convolution_is_replayed() -> None:
    """A traced dilated conv1d (UnivNet's) and its backward, and a dilated depthwise one (WaveNet-style),
    replay bit for bit; a dilated channels-last depthwise one is refused with the reason (one group is
    harness.impl.conv_nhwc_dilated's)."""
    use_threads(1)
    profile = live_profile()
    case = CASES[2]
    ops, want = _torch(case, np.random.default_rng(9))
    out = replay("convolution", {"input": ops["x"], "weight": ops["w"], "bias": ops["b"]}, _args(case), profile)
    assert _bits_equal(out["out"], want["out"])
    inputs = {"grad_output": ops["dy"], "input": ops["x"], "weight": ops["w"]}
    grads = replay("convolution_backward", inputs, _args(case, [True, True, True]), profile)
    for i, name in enumerate(("grad_input", "grad_weight", "grad_bias")):
        assert _bits_equal(grads[f"out{i}"], want[name]), name
    *dw, groups = GROUPED[0]
    ops, want = _torch(tuple(dw), np.random.default_rng(10), groups)
    out = replay("convolution", {"input": ops["x"], "weight": ops["w"], "bias": ops["b"]}, _args(dw, None, groups),
                 profile)  # fmt: skip
    assert _bits_equal(out["out"], want["out"])
    inputs = {"grad_output": ops["dy"], "input": ops["x"], "weight": ops["w"]}
    grads = replay("convolution_backward", inputs, _args(dw, [True, True, True], groups), profile)
    for i, name in enumerate(("grad_input", "grad_weight", "grad_bias")):
        assert _bits_equal(grads[f"out{i}"], want[name]), name
    *dw2, groups2 = GROUPED[1]  # 2-D: a channels-last input (ATen's 1-D view is made contiguous)
    ops, _ = _torch(tuple(dw2), np.random.default_rng(12), groups2)
    _n, c, h, wd = ops["x"].shape
    nhwc = [h * wd * c, 1, wd * c, c]
    channels_last = [a | {"stride": nhwc} if a["name"] == "input" else a for a in _args(dw2, None, groups2)]
    with pytest.raises(ParityError, match="depthwise or grouped dilated convolutions on channels-last memory"):
        replay("convolution", {"input": ops["x"], "weight": ops["w"], "bias": ops["b"]}, channels_last, profile)


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("groups", [1, 12])
def test_dilated_transposed_convolution_is_replayed(groups: int) -> None:
    """A traced dilated conv_transpose1d (oneDNN's deconvolution: the dilated adjoint's kernels), of one
    group and depthwise (the adjoint grouped convolution's), and its backward replay bit for bit."""
    use_threads(2)
    profile = live_profile()
    rng = np.random.default_rng(11)
    oc = 8 if groups == 1 else 12
    x, w, b = normal32(rng, (2, 12, 21)), normal32(rng, (12, oc // groups, 3), 0.3), normal32(rng, (oc,))
    tx, tw, tb = (torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
    y = F.conv_transpose1d(tx, tw, tb, padding=2, dilation=3, groups=groups)
    dy = normal32(rng, tuple(y.shape))
    y.backward(torch.from_numpy(dy))
    values = {"stride": [1], "padding": [2], "dilation": [3], "transposed": True, "output_padding": [0]}
    values["groups"] = groups
    args = [{"name": k, "tensor": k} for k in ("input", "weight", "bias")]
    args += [{"name": k, "value": v} for k, v in values.items()]
    out = replay("convolution", {"input": x, "weight": w, "bias": b}, args, profile)
    assert _bits_equal(out["out"], y.detach().numpy())
    values |= {"bias_sizes": [oc], "output_mask": [True, True, True]}
    args = [{"name": k, "tensor": k} for k in ("grad_output", "input", "weight")]
    args += [{"name": k, "value": v} for k, v in values.items()]
    grads = replay("convolution_backward", {"grad_output": dy, "input": x, "weight": w}, args, profile)
    for i, t in enumerate((tx, tw, tb)):
        assert _bits_equal(grads[f"out{i}"], t.grad.numpy()), i
