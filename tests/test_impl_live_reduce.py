"""Live parity of harness.impl.reduce: torch, run now in this process, against the impl, bit for bit.

Random shapes of 1 to 4 dims, small and past the 32768-element GRAIN_SIZE (so 2 threads split the
work: two-pass full sums, column splits), every subset of dims for sum/mean/var/vector_norm (of 2 and 1),
forward and backward of the single-dim ops as recorded, broadcasting add/mul/div,
clip_grad_norm_, and logsumexp (with rows of -inf, and +inf among the values). On AVX-512 torch
runs the AVX2 builds of these kernels (sum_stub, norm_stub, std_var_stub have no AVX-512
registration in 2.13.0), which the x86-avx512 profile reproduces.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.impl import reduce
from tests.impl_live import (
    SEEDS,
    THREADS,
    as_tensor,
    assert_bits_equal,
    live_profile,
    needs_modelled_vml,
    needs_verified_profile,
    use_threads,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

SETTINGS = settings(max_examples=25, deadline=None)
SHAPES = st.one_of(
    st.lists(st.integers(1, 40), min_size=1, max_size=4).map(tuple),
    st.sampled_from([(1001,), (65, 509), (33085,), (70001,), (3, 70000), (40000, 3), (9, 4100), (2, 3, 6000)]),
)


def _normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    scale, shift = np.exp(rng.uniform(-3, 3)), rng.uniform(-2, 2)
    return (rng.standard_normal(shape) * scale + shift).astype(np.float32)


def _count(shape: tuple[int, ...], dims: tuple[int, ...] | None) -> int:
    """Elements per output of a reduction over dims (None: all)."""
    return int(np.prod(shape if dims is None else [shape[d] for d in dims]))


def _dims(rng: np.random.Generator, ndim: int) -> tuple[int, ...] | None:
    mask = rng.integers(0, 2, ndim)
    return None if not mask.any() else tuple(int(d) for d in np.flatnonzero(mask))


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, threads=THREADS)
def test_reductions_over_dim_subsets(shape: tuple[int, ...], seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, dims = _normal(rng, shape), _dims(rng, len(shape))
    t, profile = as_tensor(x), live_profile()
    args = () if dims is None else (dims,)
    assert_bits_equal("sum", t.sum(*args).numpy(), reduce.sum_dims(x, dims, profile))
    assert_bits_equal("mean", t.mean(*args).numpy(), reduce.mean_dims(x, dims, profile))
    assert_bits_equal("vector_norm", torch.linalg.vector_norm(t, 2, dims).numpy(), reduce.vector_norm(x, dims, profile))
    one_norm = reduce.vector_norm(x, dims, profile, 1)
    assert_bits_equal("vector_norm ord 1", torch.linalg.vector_norm(t, 1, dims).numpy(), one_norm)
    if _count(shape, dims) >= 2:  # var of fewer than 2 elements: a degenerate 0/0
        assert_bits_equal("var", t.var(*args).numpy(), reduce.var_dims(x, dims, profile))


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_vector_norm_over_dims_of_extent_one_is_abs(threads: int) -> None:
    """Every reduced dim of extent 1: ATen's linalg_vector_norm_out takes abs, no square (D-FINE's
    one-element gradients of about 1e-24 had a norm of 0 in the impl, 1e-24 in torch's
    _foreach_norm). Tiny, denormal, huge, signed zeros, infinities and NaN, through vector_norm,
    _foreach_norm and clip_grad_norm_."""
    use_threads(threads)
    values = np.array([1.6e-24, -3.0e-21, 1e-40, 1e20, -0.0, 0.0, -np.inf, np.nan, 2.5, -1e-30], np.float32)
    profile = live_profile()
    for shape, dims in [((), None), ((1,), None), ((1, 1), None), ((10, 1), (1,)), ((1, 10), (0,)), ((2, 1, 5), (1,))]:
        x = np.resize(values, shape).astype(np.float32)
        want = torch.linalg.vector_norm(as_tensor(x), 2, dims).numpy()
        assert_bits_equal(f"vector_norm {shape} {dims}", want, reduce.vector_norm(x, dims, profile))
    grads = [values[i : i + 1].copy() for i in (0, 1, 2, 8, 9)]
    for i, (n, g) in enumerate(zip(torch._foreach_norm([as_tensor(g) for g in grads]), grads, strict=True)):
        assert_bits_equal(f"_foreach_norm {i}", n.numpy(), reduce.vector_norm(g, None, profile))
    params = [torch.zeros(1) for _ in grads]
    for q, g in zip(params, grads, strict=True):
        q.grad = as_tensor(g)
    total = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    got_total, clipped = reduce.clip_grad_norm(grads, 1.0, profile)
    assert_bits_equal("total_norm", total.numpy(), got_total)
    for i, q in enumerate(params):
        assert_bits_equal(f"clipped_{i}", q.grad.numpy(), clipped[i])


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, threads=THREADS, op=st.sampled_from(["sum", "mean", "var", "vector_norm"]))
def test_recorded_reductions_with_grads(shape: tuple[int, ...], seed: int, threads: int, op: str) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = _normal(rng, shape)
    dim = None if rng.integers(0, 3) == 0 else int(rng.integers(-len(shape), len(shape)))
    assume(op != "var" or _count(shape, None if dim is None else (dim,)) >= 2)
    out_shape = () if dim is None else tuple(s for i, s in enumerate(shape) if i != dim % len(shape))
    g = rng.standard_normal(out_shape).astype(np.float32)
    tx = as_tensor(x, grad=True)
    call = {
        "sum": lambda a: a.sum() if dim is None else a.sum(dim),
        "mean": lambda a: a.mean() if dim is None else a.mean(dim),
        "var": lambda a: a.var() if dim is None else a.var(dim),
        "vector_norm": lambda a: torch.linalg.vector_norm(a, 2) if dim is None else torch.linalg.vector_norm(a, 2, dim),
    }[op]
    out = call(tx)
    out.backward(torch.from_numpy(g))
    got = reduce.RUNNERS[op]({"dim": dim}, {"x": x, "grad_out": g}, live_profile())
    assert_bits_equal(f"{op} out", out.detach().numpy(), got["out"])
    assert_bits_equal(f"{op} grad_x", tx.grad.numpy(), got["grad_x"])


BROADCASTS = st.sampled_from(
    [((7,), (7,)), ((1001,), (1001,)), ((65, 509), (509,)), ((4, 32, 65), (65,)), ((4, 32, 65), (32, 1)),
     ((300, 300), (1, 300)), ((40000, 3), (3,)), ((3, 40000), (3, 1)), ((2, 3, 5), (2, 1, 5))]
)  # fmt: skip


@SETTINGS
@given(shapes=BROADCASTS, seed=SEEDS, threads=THREADS, op=st.sampled_from(["add", "mul", "div"]))
def test_binary_ops_with_grads(
    shapes: tuple[tuple[int, ...], tuple[int, ...]], seed: int, threads: int, op: str
) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    a = _normal(rng, shapes[0])
    b = (np.sign(rng.standard_normal(shapes[1])) * rng.uniform(0.5, 2.0, shapes[1])).astype(np.float32)
    g = rng.standard_normal(np.broadcast_shapes(*shapes)).astype(np.float32)
    ta, tb = as_tensor(a, grad=True), as_tensor(b, grad=True)
    out = {"add": torch.add, "mul": torch.mul, "div": torch.div}[op](ta, tb)
    out.backward(torch.from_numpy(g))
    got = reduce.RUNNERS[op]({}, {"a": a, "b": b, "grad_out": g}, live_profile())
    assert_bits_equal(f"{op} out", out.detach().numpy(), got["out"])
    assert_bits_equal(f"{op} grad_a", ta.grad.numpy(), got["grad_a"])
    assert_bits_equal(f"{op} grad_b", tb.grad.numpy(), got["grad_b"])


@SETTINGS
@given(
    shapes=st.lists(st.sampled_from([(65, 64), (384,), (65, 509), (7,), (3, 3), (40000,)]), min_size=1, max_size=5),
    scale=st.sampled_from([1.0, 0.001, 0.05, 10.0]),
    max_norm=st.sampled_from([1.0, 0.5, 3.0]),
    seed=SEEDS,
    threads=THREADS,
)
def test_clip_grad_norm(shapes: list[tuple[int, ...]], scale: float, max_norm: float, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    grads = [(rng.standard_normal(s) * scale).astype(np.float32) for s in shapes]
    params = []
    for g in grads:
        p = torch.zeros(g.shape)
        p.grad = as_tensor(g)
        params.append(p)
    total = torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm)
    got_total, clipped = reduce.clip_grad_norm(grads, max_norm, live_profile())
    assert_bits_equal("total_norm", total.numpy(), got_total)
    for i, p in enumerate(params):
        assert_bits_equal(f"clipped_{i}", p.grad.numpy(), clipped[i])


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, threads=THREADS, data=st.data())
def test_where_and_masked_fill(shape: tuple[int, ...], seed: int, threads: int, data: st.DataObject) -> None:
    """Selections with a condition or mask broadcast from a shape with some dims 1 or left out, an
    operand broadcast too or 0-dim, NaNs of any payload and infinities among the values."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, y = _normal(rng, shape), _normal(rng, shape)
    odd = rng.integers(0, 2**32, x.size, dtype=np.uint64).astype(np.uint32).view(np.float32).reshape(shape)
    x = np.where(rng.random(shape) < 0.2, odd, x)
    kept = data.draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    lead = data.draw(st.integers(0, len(shape)))
    mask_shape = tuple(s if keep else 1 for s, keep in zip(shape, kept, strict=True))[lead:]
    mask = np.asarray(rng.random(mask_shape) < 0.4)
    other = data.draw(st.sampled_from(["full", "0-dim", "broadcast"]))
    y = {"full": y, "0-dim": np.array(np.float32(-np.inf)), "broadcast": y.reshape(-1)[: shape[-1]].copy()}[other]
    expected = torch.where(torch.from_numpy(mask), as_tensor(x), as_tensor(y)).numpy()
    assert_bits_equal("where", expected, reduce.where(mask, x, y))
    value = data.draw(st.sampled_from([float("-inf"), 0.0, -1e9, 0.1, float("nan")]))
    expected = as_tensor(x).masked_fill(torch.from_numpy(mask), value).numpy()
    assert_bits_equal(f"masked_fill {value}", expected, reduce.masked_fill(x, mask, value))


@needs_modelled_vml  # logsumexp's exp and log are VML's on x86
@SETTINGS
@given(shape=SHAPES, seed=SEEDS, threads=THREADS, special=st.sampled_from(["finite", "-inf", "inf", "all -inf"]))
def test_logsumexp_over_dim_subsets(shape: tuple[int, ...], seed: int, threads: int, special: str) -> None:
    """logsumexp over any subset of dims (kept or not): amax, the shift, exp, the sum's order and
    threads, log; masked scores (-inf, a whole tensor of them) and +inf, whose max is taken as 0."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, dims = _normal(rng, shape), _dims(rng, len(shape)) or tuple(range(len(shape)))
    if special != "finite":
        x[rng.random(shape) < {"-inf": 0.2, "inf": 0.05, "all -inf": 1.0}[special]] = np.float32(
            np.inf if special == "inf" else -np.inf
        )
    keepdim = bool(rng.integers(0, 2))
    expected = torch.logsumexp(as_tensor(x), dims, keepdim).numpy()
    got = reduce.logsumexp(x, dims, live_profile())
    assert_bits_equal("logsumexp", expected, got.reshape(expected.shape))
