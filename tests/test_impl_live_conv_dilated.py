"""Live parity of dilated convolutions (harness.impl.conv ``dilated_kernel``, ``dilated_backward_kernels``):
torch run now against the impl, bit for bit (uint32 patterns), at this host's level on 1 and 2 threads, and
through the trace replay (``harness.trace.impl_ops.replay``).

The shapes: DAC's residual units (kernel 7, dilation 3 and 9, padding 9 and 27: gemm:jit at AVX2,
jit:avx512_core's forward at AVX-512), UnivNet's (kernel 3, dilation 3, padding 3: jit:avx2 /
jit:avx512_core forward and backward data), 16 input channels (jit:avx512_core's weights at AVX-512),
one small image (ATen's slow_conv_dilated2d), a 2-D kernel dilated by rows and columns, and a strided
one (its backward data gemm:jit). Every pass bit for bit, an infinity and a -0 in the input.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness.core.errors import ParityError
from harness.impl import conv
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


def _as_pairs(case: tuple) -> tuple[tuple[int, int], ...]:
    """stride, padding and dilation of the 2-D convolution that runs ``case``."""
    xs, _ws, s, p, d = case
    if len(xs) == 3:  # a 1-D convolution runs as 2-D over rows of height 1
        return (1, s), (0, p), (1, d)
    return tuple(v if isinstance(v, tuple) else (v, v) for v in (s, p, d))


def _torch(case: tuple, rng: np.random.Generator) -> tuple[dict, dict]:
    xs, ws, s, p, d = case
    x, w, b = normal32(rng, xs), normal32(rng, ws, 0.3), normal32(rng, (ws[0],))
    x.reshape(-1)[[3, 50]] = (np.inf, -0.0)
    tx, tw, tb = (torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
    y = (F.conv1d if len(xs) == 3 else F.conv2d)(tx, tw, tb, stride=s, padding=p, dilation=d)
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


def _args(case: tuple, mask: list[bool] | None = None) -> list[dict]:
    _xs, ws, s, p, d = case
    values = {"stride": [s], "padding": [p], "dilation": [d], "transposed": False, "output_padding": [0], "groups": 1}
    if mask is not None:
        values |= {"bias_sizes": [ws[0]], "output_mask": mask}
    names = ("input", "weight", "bias") if mask is None else ("grad_output", "input", "weight")
    return [{"name": k, "tensor": k} for k in names] + [{"name": k, "value": v} for k, v in values.items()]


@needs_modelled_mkl
@needs_verified_profile
def test_dilated_convolution_is_replayed() -> None:
    """A traced dilated conv1d (UnivNet's) and its backward replay bit for bit; a dilated grouped one is
    refused with the reason."""
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
    grouped = [a if a.get("name") != "groups" else {"name": "groups", "value": 2} for a in _args(case)]
    w2 = ops["w"][:, :2]
    with pytest.raises(ParityError, match="dilated convolutions of one group"):
        replay("convolution", {"input": ops["x"], "weight": w2, "bias": ops["b"]}, grouped, profile)
