"""Live parity of harness.impl.rows: torch, run now in this process, against the impl, bit for bit.

Random row counts and row lengths around the vector widths (8 and 16 lanes) and layer_norm's
Welford chunking (16 vectors per chunk, cascades of depth > 1 past 256 elements), under one
thread and under the running torch's thread count (the softmax backward's FMA pattern and
layer_norm's per-thread dgamma/dbeta buffers depend on it).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.impl import rows
from tests.impl_live import (
    SEEDS,
    THREADS,
    as_tensor,
    assert_bits_equal,
    live_profile,
    needs_verified_profile,
    normal32,
    use_threads,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

SETTINGS = settings(max_examples=25, deadline=None)
ROWS = st.integers(1, 40)
LENGTHS = st.one_of(st.integers(1, 70), st.integers(70, 1100))


@SETTINGS
@given(m=ROWS, n=LENGTHS, seed=SEEDS, threads=THREADS)
def test_layer_norm(m: int, n: int, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, g = normal32(rng, (m, n), 2.0), normal32(rng, (m, n))
    w, b = (1.0 + normal32(rng, (n,), 0.1)).astype(np.float32), normal32(rng, (n,), 0.1)
    tx, tw, tb = as_tensor(x, True), as_tensor(w, True), as_tensor(b, True)
    out = F.layer_norm(tx, (n,), tw, tb, eps=1e-5)
    out.backward(as_tensor(g))
    profile = live_profile()
    y, mean, rstd = rows.layer_norm(x, w, b, 1e-5, profile)
    gx, gw, gb = rows.layer_norm_backward(g, x, mean, rstd, w, profile)
    assert_bits_equal("out", out.detach().numpy(), y)
    assert_bits_equal("grad_x", tx.grad.numpy(), gx)
    assert_bits_equal("grad_weight", tw.grad.numpy(), gw)
    assert_bits_equal("grad_bias", tb.grad.numpy(), gb)


@SETTINGS
@given(m=ROWS, n=LENGTHS, seed=SEEDS, threads=THREADS, log=st.booleans(), masked=st.sampled_from([0.0, 0.0, 0.3]))
def test_softmax_and_log_softmax(m: int, n: int, seed: int, threads: int, log: bool, masked: float) -> None:
    """``masked``: the fraction of -inf entries (attention masks); row 0 is then all -inf."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, g = normal32(rng, (m, n), 3.0), normal32(rng, (m, n))
    if masked:
        x[rng.random((m, n)) < masked] = -np.inf
        x[0] = -np.inf
    tx = as_tensor(x, True)
    out = (F.log_softmax if log else F.softmax)(tx, dim=-1)
    out.backward(as_tensor(g))
    profile = live_profile()
    forward, backward = (rows.log_softmax, rows.log_softmax_backward) if log else (rows.softmax, rows.softmax_backward)
    y = forward(x, profile)
    assert_bits_equal("out", out.detach().numpy(), y)
    assert_bits_equal("grad_x", tx.grad.numpy(), backward(g, y, profile))


@SETTINGS
@given(b=st.integers(1, 600), c=st.integers(2, 130), seed=SEEDS, threads=THREADS, ignore=st.sampled_from([0, 3, 9]))
def test_cross_entropy(b: int, c: int, seed: int, threads: int, ignore: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    logits = normal32(rng, (b, c), 2.0)
    targets = rng.integers(0, c, b).astype(np.int64)
    if ignore:
        targets[rng.random(b) < 1.0 / ignore] = -1
    grad = np.float32(rng.standard_normal())
    tl = as_tensor(logits, True)
    loss = F.cross_entropy(tl, torch.from_numpy(targets), ignore_index=-1)
    loss.backward(torch.tensor(grad))
    profile = live_profile()
    out, lsm, total = rows.cross_entropy(logits, targets, profile, ignore_index=-1)
    assert_bits_equal("out", loss.detach().numpy(), out)
    got = rows.cross_entropy_backward(grad, lsm, targets, total, profile, ignore_index=-1)
    assert_bits_equal("grad_logits", tl.grad.numpy(), got)


@SETTINGS
@given(shape=st.tuples(st.integers(1, 3), st.integers(1, 4), ROWS, LENGTHS), seed=SEEDS, threads=THREADS)
def test_safe_softmax(shape: tuple[int, int, int, int], seed: int, threads: int) -> None:
    """SDPA's math-path softmax: rows partly ``-inf`` (a mask), some entirely (a fully masked query: 0
    there, not NaN); its backward is softmax's."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, g = normal32(rng, shape, 3.0), normal32(rng, shape)
    x[rng.random(shape) < 0.3] = -np.inf
    x[rng.random(shape[:-1]) < 0.2] = -np.inf
    tx = as_tensor(x, True)
    out = torch.ops.aten._safe_softmax(tx, -1)
    out.backward(as_tensor(g))
    profile = live_profile()
    y = rows.safe_softmax(x, profile)
    assert_bits_equal("out", out.detach().numpy(), y)
    assert_bits_equal("grad_x", tx.grad.numpy(), rows.softmax_backward(g, y, profile))


@SETTINGS
@given(
    n=st.integers(1, 5),
    c_g=st.sampled_from([(1, 1), (4, 2), (6, 1), (12, 1), (12, 3), (16, 2), (23, 1), (32, 4), (64, 8), (40, 2)]),
    hxw=st.one_of(st.integers(1, 20), st.integers(20, 300)),
    affine=st.sampled_from(["both", "none"]),
    seed=SEEDS,
    threads=THREADS,
)
def test_group_norm(n: int, c_g: tuple[int, int], hxw: int, affine: str, seed: int, threads: int) -> None:
    """aten.native_group_norm and its backward (nn.GroupNorm, contiguous NCHW): the weighted sums'
    scalar tail is rounded per copy of the kernel (1 thread or one group: the inlined copy)."""
    use_threads(threads)
    c, groups = c_g
    rng = np.random.default_rng(seed)
    x, g = normal32(rng, (n, c, hxw), 2.0), normal32(rng, (n, c, hxw))
    w = b = None
    if affine == "both":
        w, b = normal32(rng, (c,)), normal32(rng, (c,))
    tx = torch.from_numpy(x)
    tw, tb = (None if v is None else torch.from_numpy(v) for v in (w, b))
    y, mean, rstd = torch.ops.aten.native_group_norm(tx, tw, tb, n, c, hxw, groups, 1e-5)
    mask = [True, w is not None, w is not None]
    gx, gw, gb = torch.ops.aten.native_group_norm_backward(
        torch.from_numpy(g), tx, mean, rstd, tw, n, c, hxw, groups, mask
    )
    profile = live_profile()
    iy, imean, irstd = rows.group_norm(x, w, b, groups, 1e-5, profile)
    igx, igw, igb = rows.group_norm_backward(g, x, imean, irstd, w, groups, profile)
    assert_bits_equal("out", y.numpy(), iy)
    assert_bits_equal("mean", mean.numpy(), imean)
    assert_bits_equal("rstd", rstd.numpy(), irstd)
    assert_bits_equal("grad_x", gx.numpy(), igx)
    if w is not None:
        assert_bits_equal("grad_weight", gw.numpy(), igw)
        assert_bits_equal("grad_bias", gb.numpy(), igb)


def test_group_norm_replay_refuses_channels_last() -> None:
    from harness.core.errors import ParityError
    from harness.trace.impl_ops import replay

    x = np.ones((2, 4, 3, 3), np.float32)
    args = [
        {"name": "input", "tensor": "x", "shape": [2, 4, 3, 3], "stride": [36, 1, 12, 4]},
        *({"name": k, "value": v} for k, v in (("N", 2), ("C", 4), ("HxW", 9), ("group", 2), ("eps", 1e-5))),
    ]
    with pytest.raises(ParityError, match="contiguous"):
        replay("aten.native_group_norm.default", {"x": x}, args, live_profile())
    args[0] = {"name": "input", "tensor": "x", "shape": [2, 4, 3, 3], "stride": [36, 9, 3, 1]}
    out = replay("aten.native_group_norm.default", {"x": x}, args, live_profile())
    assert out["out1"].shape == (2, 2) and out["out0"].shape == x.shape
