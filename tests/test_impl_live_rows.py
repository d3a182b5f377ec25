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
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.impl import rows
from harness.impl.strides import suggests_channels_last
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
    outer=st.integers(1, 4),
    dim_size=st.integers(1, 40),
    inner=st.one_of(st.integers(2, 70), st.integers(70, 600)),
    seed=SEEDS,
    threads=THREADS,
)
def test_softmax_over_another_dim(outer: int, dim_size: int, inner: int, seed: int, threads: int) -> None:
    """softmax over the middle dim of (outer, dim, inner), as ZoeDepth's bins over the channels of an image,
    and its backward: ATen's column kernels, the forward's vector and scalar columns (SLEEF's exp and the
    C library's on AVX2) decided by the thread split (any two columns may part), the backward's sums by
    chunks of columns; inner sizes off the 8 lanes."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, g = normal32(rng, (outer, dim_size, inner), 4.0), normal32(rng, (outer, dim_size, inner))
    tx = as_tensor(x, True)
    out = torch.softmax(tx, 1)
    out.backward(as_tensor(g))
    profile = live_profile()
    y = rows.softmax_dim(x, 1, profile)
    assert_bits_equal("out", out.detach().numpy(), y)
    assert_bits_equal("grad_x", tx.grad.numpy(), rows.softmax_dim_backward(g, y, 1, profile))


@settings(max_examples=8, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(1, 300), st.one_of(st.integers(1, 40), st.integers(40, 3000))),
    seed=SEEDS,
    threads=THREADS,
)
def test_log_softmax_over_another_dim(shape: tuple[int, int, int], seed: int, threads: int) -> None:
    """log_softmax over the middle dim of (outer, dim, inner) and its backward, replayed as traced
    (`_log_softmax`, `_log_softmax_backward_data`): ATen's column kernels in chunks of 128 KiB / dim / 4
    columns rounded down to the vector width (8, 16 in the AVX-512 object), a chunk's last size % width
    columns scalar (the C library's exp), the log of the sums by vec::map, the backward's `g - exp(y) * sum`
    contracted in the FMA objects; -inf among the scores in a third of the cases."""
    from harness.trace.impl_ops import REPLAYS

    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, g = normal32(rng, shape, 4.0), normal32(rng, shape)
    if seed % 3 == 0:  # masked scores, each column keeping a finite one (an all -inf column is NaN: refused)
        masked = rng.random(shape) < 0.1
        masked[:, 0] = False
        x[masked] = np.float32(-np.inf)
    tx = as_tensor(x, True)
    out = torch.log_softmax(tx, 1)
    out.backward(as_tensor(g))
    profile = live_profile()
    y = REPLAYS["_log_softmax"]({"self": x}, {"dim": 1}, profile)["out"]
    assert_bits_equal("out", out.detach().numpy(), y)
    grad_x = REPLAYS["_log_softmax_backward_data"]({"grad_output": g, "output": y}, {"dim": 1}, profile)["out"]
    assert_bits_equal("grad_x", tx.grad.numpy(), grad_x)


def test_softmax_over_another_dim_takes_16_columns_a_vector_at_avx512() -> None:
    """_vec_softmax is also registered for AVX-512: a vector there is 16 columns, so 8 columns are scalar
    ones (the C library's expf, as in the default build) where avx2 takes a vector of them (SLEEF's)."""
    from harness.impl.profiles import get_profile

    x = normal32(np.random.default_rng(3), (1, 40, 8), 4.0)
    levels = ("x86-avx2", "x86-avx512", "x86-baseline")
    avx2, avx512, default = (rows.softmax_dim(x, 1, get_profile(p, 1)) for p in levels)
    assert not np.array_equal(avx2.view(np.uint32), default.view(np.uint32))  # SLEEF's expf against the C library's
    assert_bits_equal("avx512 against default", default, avx512)
    wide = normal32(np.random.default_rng(4), (1, 40, 16), 4.0)
    assert_bits_equal("16 columns", rows.softmax_dim(wide, 1, get_profile("x86-avx2", 1)),
                      rows.softmax_dim(wide, 1, get_profile("x86-avx512", 1)))  # fmt: skip


def test_softmax_over_another_dim_refuses_what_is_not_measured() -> None:
    from harness.core.errors import ParityError
    from harness.impl.profiles import get_profile

    x = np.ones((2, 3, 4), np.float32)
    nan = x.copy()
    nan[1, 2, 3] = np.nan
    for name in ("x86-avx2", "arm64-neon"):
        with pytest.raises(ParityError, match="of NaN inputs is not measured"):
            rows.softmax_dim(nan, 1, get_profile(name, 2))
        with pytest.raises(ParityError, match="of NaN inputs is not measured"):
            rows.softmax_dim_backward(nan, x, 1, get_profile(name, 2))
    assert rows.softmax_dim(nan, 2, get_profile("x86-avx2", 2)).shape == x.shape  # the last dim: the row kernel's
    with pytest.raises(ParityError, match="of NaN inputs is not measured"):
        rows.log_softmax_dim(nan, 1, get_profile("x86-avx512", 1))
    with pytest.raises(ParityError, match="of NaN inputs is not measured"):  # modelled on arm64, not on x86
        rows.log_softmax_dim_backward(nan, x, 1, get_profile("x86-avx2", 1))
    assert np.isnan(rows.log_softmax_dim_backward(nan, x, 1, get_profile("arm64-sve256", 1))[1, :, 3]).all()


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
    _assert_group_norm_bits((y, mean, rstd, gx, gw, gb), (iy, imean, irstd, igx, igw, igb), w is not None)


def _assert_group_norm_bits(torch_out: tuple, impl_out: tuple, affine: bool) -> None:
    """torch's (y, mean, rstd, grad_x, grad_weight, grad_bias) against the impl's, bit for bit (the
    weight's and bias's gradients where there is a weight)."""
    names = ("out", "mean", "rstd", "grad_x", "grad_weight", "grad_bias")[: 6 if affine else 4]
    for name, want, got in zip(names, torch_out, impl_out, strict=False):
        assert_bits_equal(name, want.numpy(), got)


CL_SPATIAL = st.one_of(
    st.tuples(st.integers(1, 20), st.integers(1, 20)),
    st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)),  # 5-D: ChannelsLast3d
    # the forward's second path (1024 pixels on), and the backward's (2048 on)
    st.sampled_from([(32, 32), (40, 30), (1, 2047), (48, 48), (2, 32, 34)]),
)


@SETTINGS
@given(
    n=st.integers(1, 4),
    groups=st.integers(1, 8),
    d=st.integers(1, 24),
    spatial=CL_SPATIAL,
    affine=st.sampled_from(["both", "weight", "bias", "none"]),
    seed=SEEDS,
    threads=st.integers(1, 2),
)
@example(n=2, groups=3, d=5, spatial=(7, 9), affine="both", seed=0, threads=2)
@example(n=1, groups=2, d=11, spatial=(48, 48), affine="weight", seed=1, threads=2)
def test_group_norm_channels_last(
    n: int, groups: int, d: int, spatial: tuple[int, ...], affine: str, seed: int, threads: int
) -> None:
    """aten.native_group_norm and its backward on channels-last inputs (diffusion UNets' activations):
    GroupNormKernelImplChannelsLastInternal and its backward, a group at a time below 1024 (forward) and
    2048 (backward) pixels, per-thread sums of every pixel from there (thread-dependent)."""
    use_threads(threads)
    if len(spatial) == 2 and spatial[0] * spatial[1] >= 1024:
        n, d = min(n, 2), min(d, 8)
    c = groups * d
    rng = np.random.default_rng(seed)
    shape = (n, c, *spatial)
    x, g = normal32(rng, shape, 2.0) + np.float32(0.5), normal32(rng, shape)
    w = normal32(rng, (c,)) if affine in ("both", "weight") else None
    b = normal32(rng, (c,)) if affine in ("both", "bias") else None
    fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    tx, tg = (torch.from_numpy(v).contiguous(memory_format=fmt) for v in (x, g))
    tw, tb = (None if v is None else torch.from_numpy(v) for v in (w, b))
    hxw = int(np.prod(spatial))
    y, mean, rstd = torch.ops.aten.native_group_norm(tx, tw, tb, n, c, hxw, groups, 1e-5)
    mask = [True, w is not None, w is not None]
    gx, gw, gb = torch.ops.aten.native_group_norm_backward(tg, tx, mean, rstd, tw, n, c, hxw, groups, mask)
    cl = suggests_channels_last(shape, tx.stride())  # (N, C, 1, 1) stays NCHW in memory, and so in ATen
    profile = live_profile()
    iy, imean, irstd = rows.group_norm(x, w, b, groups, 1e-5, profile, channels_last=cl)
    igx, igw, igb = rows.group_norm_backward(g, x, imean, irstd, w, groups, profile, channels_last=cl)
    _assert_group_norm_bits((y, mean, rstd, gx, gw, gb), (iy, imean, irstd, igx, igw, igb), w is not None)


@pytest.mark.parametrize("channels_last", [False, True])
def test_group_norm_of_a_group_holding_nan(channels_last: bool) -> None:
    """A NaN in a group: ATen's std::max(var, 0) keeps the NaN variance, so that group's rstd is NaN."""
    rng = np.random.default_rng(7)
    x = normal32(rng, (2, 4, 3, 3))
    x[0, 0, 0, 0] = np.nan
    tx = torch.from_numpy(x)
    if channels_last:
        tx = tx.contiguous(memory_format=torch.channels_last)
    y, mean, rstd = torch.ops.aten.native_group_norm(tx, None, None, 2, 4, 9, 2, 1e-5)
    iy, imean, irstd = rows.group_norm(x, None, None, 2, 1e-5, live_profile(), channels_last=channels_last)
    assert_bits_equal("out", y.numpy(), iy)
    assert_bits_equal("mean", mean.numpy(), imean)
    assert_bits_equal("rstd", rstd.numpy(), irstd)


def test_group_norm_replay_takes_the_layout_torch_reads() -> None:
    """The replay runs the kernel of the input's suggest_memory_format (channels-last here), and refuses a
    grad_out in another layout, which torch 2.13.0's backward reads as it lies in memory."""
    from harness.core.errors import ParityError
    from harness.trace.impl_ops import replay

    rng = np.random.default_rng(5)
    x, dy = normal32(rng, (2, 4, 3, 3)), normal32(rng, (2, 4, 3, 3))
    tx = torch.from_numpy(x).contiguous(memory_format=torch.channels_last)
    y, mean, rstd = torch.ops.aten.native_group_norm(tx, None, None, 2, 4, 9, 2, 1e-5)
    dims = [{"name": k, "value": v} for k, v in (("N", 2), ("C", 4), ("HxW", 9), ("group", 2))]
    cl = {"name": "input", "tensor": "x", "shape": [2, 4, 3, 3], "stride": [36, 1, 12, 4]}
    forward = [cl, *dims, {"name": "eps", "value": 1e-5}]
    out = replay("aten.native_group_norm.default", {"x": x}, forward, live_profile())
    assert_bits_equal("out", y.numpy(), out["out0"])
    assert_bits_equal("rstd", rstd.numpy(), out["out2"])
    backward = [
        {"name": "grad_out", "tensor": "g", "shape": [2, 4, 3, 3], "stride": [36, 9, 3, 1]},
        cl,
        {"name": "mean", "tensor": "m", "shape": [2, 2], "stride": [2, 1]},
        {"name": "rstd", "tensor": "r", "shape": [2, 2], "stride": [2, 1]},
        *dims,
        {"name": "output_mask", "value": [True, False, False]},
    ]
    tensors = {"g": dy, "x": x, "m": mean.numpy(), "r": rstd.numpy()}
    with pytest.raises(ParityError, match="reads grad_out as it lies in memory"):
        replay("aten.native_group_norm_backward.default", tensors, backward, live_profile())
    backward[0] = {**backward[0], "stride": [36, 1, 12, 4]}
    gx = torch.ops.aten.native_group_norm_backward(
        torch.from_numpy(dy).contiguous(memory_format=torch.channels_last), tx, mean, rstd, None, 2, 4, 9, 2,
        [True, False, False],
    )[0]  # fmt: skip
    out = replay("aten.native_group_norm_backward.default", tensors, backward, live_profile())
    assert_bits_equal("grad_x", gx.numpy(), out["out0"])
