"""Live: harness/impl/nn.py (torch.nn layers no fixture op records) against torch in this process,
bit for bit, and the same layers traced by ``parity trace`` and replayed through
harness/trace/impl_ops.py (``--verify-cause``'s path).

Shapes are drawn around the vector widths (8 and 16 lanes: the element-wise body takes blocks of
16 or 32) and past the 32768-element grain where threads cut the work; thread counts 1 to 16.
Run under ATEN_CPU_CAPABILITY=default, avx2 and avx512 to cover each profile.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.formats.trace import read_trace
from harness.impl import nn as impl_nn
from harness.impl import pool as impl_pool
from harness.impl.strides import suggests_channels_last
from harness.trace.impl_ops import REPLAYS, packet, replay
from harness.trace.recorder import recording, save
from tests.impl_live import SEEDS, THREADS, assert_bits_equal, live_profile, needs_verified_profile, use_threads

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

SETTINGS = settings(max_examples=20, deadline=None)
SIZES = st.one_of(st.integers(1, 70), st.integers(70, 1100), st.integers(32768, 70000))


def _replays_match(program: Callable[[], object], ops: set[str], least: int, backend: str = "dispatcher-hook") -> int:
    """Trace ``program`` with every op captured; replay those of ``ops`` through the impl, bit for bit."""
    hook = "1" if backend == "dispatcher-hook" else "0"
    with mock.patch.dict(os.environ, {"PARITY_TRACE_HOOK": hook}), recording(capture=list(range(600))) as tracer:
        program()
    profile = live_profile()
    seen = 0
    for index, op in enumerate(tracer.ops):
        if packet(op.op) not in ops or index not in tracer.captured:
            continue
        cap = tracer.captured[index]
        got = replay(op.op, cap.inputs, cap.args, profile)
        assert sorted(got) == sorted(cap.outputs), op.op
        for name, value in got.items():
            expected = cap.outputs[name]
            assert_bits_equal(f"{op.op} {name} (op {index})", expected, value.reshape(expected.shape))
        seen += 1
    assert seen >= least, f"{seen} of {sorted(ops)} replayed, expected at least {least}"
    return seen


# -- sigmoid -------------------------------------------------------------------------------------

_SPECIALS = np.array([np.inf, -np.inf, np.nan, -np.nan, 88.8, -88.8, 104.0, -104.0, 0.0, -0.0], np.float32)


@SETTINGS
@given(n=SIZES, seed=SEEDS, threads=THREADS, specials=st.booleans())
def test_sigmoid_and_backward(n: int, seed: int, threads: int, specials: bool) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 6).astype(np.float32)
    if specials:
        spots = rng.integers(0, n, max(1, n // 8))
        x[spots] = _SPECIALS[rng.integers(0, _SPECIALS.size, spots.size)]
    g = rng.standard_normal(n).astype(np.float32)
    y = torch.sigmoid(torch.from_numpy(x.copy())).numpy()
    gx = torch.ops.aten.sigmoid_backward(torch.from_numpy(g.copy()), torch.from_numpy(y.copy())).numpy()
    profile = live_profile()
    assert_bits_equal("sigmoid out", y, impl_nn.sigmoid(x, profile))
    assert_bits_equal("sigmoid grad_x", gx, impl_nn.sigmoid_backward(g, y, profile))


@SETTINGS
@given(rows=st.integers(1, 600), h=st.integers(1, 70), seed=SEEDS, threads=THREADS)
def test_sigmoid_in_place_on_a_column_chunk(rows: int, h: int, seed: int, threads: int) -> None:
    """nn.GRU's gates: sigmoid_ on a (rows, h) column chunk of a (rows, 3h) matrix, one inner loop per row."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    gates = torch.from_numpy((rng.standard_normal((rows, 3 * h)) * 4).astype(np.float32))
    chunk = gates[:, h : 2 * h]
    x = chunk.numpy().copy()
    chunk.sigmoid_()
    assert_bits_equal("sigmoid_ of a chunk", chunk.numpy().copy(), impl_nn.sigmoid(x, live_profile(), run=h))


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]), hidden=st.sampled_from([64, 20, 37]))
def test_gru_gates_replay_from_a_trace(seed: int, threads: int, hidden: int) -> None:
    """The GRU language model's recurrent cell (zoo/gru.py), traced: every sigmoid_, sigmoid_backward and
    tanh_ (VML's, on a column chunk of the gate matrix: a row at a time)."""
    use_threads(threads)
    torch.manual_seed(seed % 1000)
    gru = torch.nn.GRU(32, hidden, num_layers=2, batch_first=True)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal((4, 3, 32)).astype(np.float32))

    def program() -> None:
        out, _ = gru(x.clone().requires_grad_(True))
        out.sum().backward()

    _replays_match(program, {"sigmoid_", "sigmoid_backward", "tanh_"}, 18)


# -- glu ------------------------------------------------------------------------------------------

GLU_SHAPES = st.one_of(
    st.tuples(st.integers(1, 70)).map(lambda s: (2 * s[0],)),
    st.tuples(st.integers(1, 6), st.integers(1, 40), st.integers(1, 70)).map(lambda s: (s[0], 2 * s[1], s[2])),
    st.tuples(st.integers(1, 4), st.integers(1, 70), st.integers(1, 300)).map(lambda s: (s[0], s[1], 2 * s[2])),
    st.tuples(st.integers(2, 8), st.integers(2048, 4500), st.integers(1, 3)).map(lambda s: (s[0], 2 * s[1], s[2])),
)


@SETTINGS
@given(shape=GLU_SHAPES, seed=SEEDS, threads=THREADS, specials=st.booleans())
def test_glu_and_backward(shape: tuple[int, ...], seed: int, threads: int, specials: bool) -> None:
    """glu on every dim of even size (the halves' inner loops: the whole tensor on dim 0, the trailing
    dims on a middle dim, one element per loop on a last dim of 2) and its backward, NaNs among the specials."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 6).astype(np.float32)
    if specials:
        flat = x.reshape(-1)
        spots = rng.integers(0, flat.size, max(1, flat.size // 8))
        flat[spots] = _SPECIALS[rng.integers(0, _SPECIALS.size, spots.size)]
    profile = live_profile()
    for dim in [d for d in range(len(shape)) if shape[d] % 2 == 0]:
        half = tuple(n // 2 if d == dim else n for d, n in enumerate(shape))
        g = rng.standard_normal(half).astype(np.float32)
        xt = torch.from_numpy(x.copy()).requires_grad_(True)
        y = torch.nn.functional.glu(xt, dim)
        (gx,) = torch.autograd.grad(y, xt, torch.from_numpy(g.copy()))
        a, b = np.split(x, 2, axis=dim)
        if profile.aten == "default" and np.any(np.isnan(a) & np.isnan(b)):
            with pytest.raises(ParityError, match="NaN in both halves"):
                REPLAYS["glu"]({"self": x}, {"dim": dim}, profile)
        else:
            out = REPLAYS["glu"]({"self": x}, {"dim": dim}, profile)["out"]
            assert_bits_equal(f"glu dim {dim}", y.detach().numpy(), out)
        if profile.aten == "default" and np.any(np.isnan(a).astype(int) + np.isnan(b) + np.isnan(g) > 1):
            with pytest.raises(ParityError, match="two NaNs meeting"):
                REPLAYS["glu_backward"]({"grad_output": g, "self": x}, {"dim": dim}, profile)
        else:
            back = REPLAYS["glu_backward"]({"grad_output": g, "self": x}, {"dim": dim}, profile)["out"]
            assert_bits_equal(f"glu_backward dim {dim}", gx.numpy(), back)


def _tensor_arg(name: str, t: torch.Tensor) -> dict:
    return {"name": name, "tensor": name, "stride": list(t.stride()), "shape": list(t.shape)}


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_div_rounding_modes_and_floor_divide_match_torch(threads: int) -> None:
    """div with rounding_mode "floor" and "trunc", by a tensor and by a number, and floor_divide, replayed:
    2 default grains and 37 elements (thread chunks, each run's tail c10::div_floor_floating), integers,
    values over 2^+-100 (quotients past float's range: div_floor_floating_vec's fix-up), +-0, +-inf, subnormal
    divisors; NaN and infinite operands in a scalar tail and in vector bodies (SLEEF's fmodf NaNs); a signalling
    NaN divisor in the vector lanes of the avx2 object whose payload less 2 leaves the NaNs is refused."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    n = 2 * 32768 + 37
    a = np.where(rng.random(n) < 0.5, rng.integers(-1000, 1000, n), np.exp(rng.uniform(-70, 70, n))).astype(np.float32)
    b = np.where(rng.random(n) < 0.5, rng.integers(-9, 9, n), -np.exp(rng.uniform(-70, 70, n))).astype(np.float32)
    a[:6], b[6:12] = [0.0, -0.0, 3e38, 7.0, -7.0, 1e-45], [0.0, -0.0, np.inf, -np.inf, 1e-45, -3e-39]
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    arrays, args = {"self": a, "other": b}, [_tensor_arg("self", ta), _tensor_arg("other", tb)]
    for mode in ("floor", "trunc"):
        mode_arg = [{"name": "rounding_mode", "value": mode}]
        expected = torch.div(ta, tb, rounding_mode=mode).numpy()
        assert_bits_equal(
            mode, expected, replay("aten.div.Tensor_mode", arrays, args + mode_arg, live_profile())["out"]
        )
        for number in (3, -0.3, 1e-30):
            expected = torch.div(ta, number, rounding_mode=mode).numpy()
            number_args = [_tensor_arg("self", ta), {"name": "other", "value": number}, *mode_arg]
            mine = replay("aten.div.Scalar_mode", {"self": a}, number_args, live_profile())["out"]
            assert_bits_equal(f"{mode} by {number}", expected, mine)
    expected = torch.floor_divide(ta, tb).numpy()
    assert_bits_equal(
        "floor_divide", expected, replay("aten.floor_divide.default", arrays, args, live_profile())["out"]
    )
    tail_a = np.array([np.inf, -np.inf, np.nan, 5.0, -0.0, np.inf, 1.0, -np.nan, 3e38], np.float32)  # 9: scalar lambda
    tail_b = np.array([3.0, np.nan, 2.0, 0.0, -2.0, np.inf, -np.nan, np.nan, 1e-45], np.float32)
    expected = torch.floor_divide(torch.from_numpy(tail_a), torch.from_numpy(tail_b)).numpy()
    assert_bits_equal("floor_divide tail", expected, impl_nn.div_rounding(tail_a, tail_b, "floor", live_profile()))
    a[100], b[200], a[300] = np.nan, -np.nan, -np.inf  # in vector bodies
    b.view(np.uint32)[301] = 0xFFC12345  # a NaN payload
    expected = torch.floor_divide(torch.from_numpy(a.copy()), torch.from_numpy(b.copy())).numpy()
    assert_bits_equal("floor_divide NaN lanes", expected, impl_nn.div_rounding(a, b, "floor", live_profile()))
    ints, floats = torch.arange(-40, 40, dtype=torch.int64), torch.full((80,), -2.5)  # SEW's int64 // int
    for mode in ("floor", "trunc"):
        mode_arg = {"name": "rounding_mode", "value": mode}
        int_args = [_tensor_arg("self", ints), {"name": "other", "value": 3}, mode_arg]
        mine = replay("aten.div.Scalar_mode", {"self": ints.numpy()}, int_args, live_profile())["out"]
        assert mine.dtype == np.int64 and np.array_equal(torch.div(ints, 3, rounding_mode=mode).numpy(), mine)
        mixed_args = [_tensor_arg("self", ints), _tensor_arg("other", floats), mode_arg]
        mixed = {"self": ints.numpy(), "other": floats.numpy()}  # the int64 operand cast to float32 first
        expected = torch.div(ints, floats, rounding_mode=mode).numpy()
        assert_bits_equal(
            f"int64 {mode} float32", expected, replay("aten.div.Tensor_mode", mixed, mixed_args, live_profile())["out"]
        )
    b.view(np.uint32)[400] = 0x7F800001  # a signalling NaN whose payload less 2 is not a NaN
    if live_profile().aten != "default":
        with pytest.raises(ParityError, match="1 signalling NaN divisors in ATen's vector lanes"):
            impl_nn.div_rounding(a, b, "floor", live_profile())


def test_div_of_two_python_ints_replays_from_a_trace() -> None:
    """``torch.div(seq_len, window, rounding_mode="trunc")`` of two Python ints (Longformer's and LED's chunk
    counts): both wrapped as 0-dim int64 tensors, traced and replayed as an exact int64 quotient, both signs
    and int64's extremes; a zero divisor (torch raises) refused."""
    pairs = [(16, 4), (16, 2), (-7, 2), (7, -2), (0, -3), (2**63 - 1, -3), (-(2**63), 7)]
    program = lambda: [torch.div(n, d, rounding_mode=mode) for n, d in pairs for mode in ("floor", "trunc")]
    assert _replays_match(program, {"div"}, 2 * len(pairs)) == 2 * len(pairs)
    args = [{"name": "self", "value": 5}, {"name": "other", "value": 0}, {"name": "rounding_mode", "value": "floor"}]
    out = replay("aten.div.Tensor_mode", {}, [args[0], {"name": "other", "value": -2}, args[2]], live_profile())["out"]
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.int64  # a 0-dim array, as traced
    assert int(out) == -3
    with pytest.raises(ParityError, match="an integer division by zero"):
        replay("aten.div.Tensor_mode", {}, args, live_profile())


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2, 4]), channels=st.sampled_from([32, 37, 1100]))
def test_conformer_convolution_glu_replays_from_a_trace(seed: int, threads: int, channels: int) -> None:
    """A conformer convolution module (Parakeet's, wav2vec2-conformer's): a pointwise Conv1d to 2C channels,
    glu on the channels, a depthwise Conv1d; every glu and glu_backward traced and replayed."""
    use_threads(threads)
    torch.manual_seed(seed % 1000)
    pointwise = torch.nn.Conv1d(8, 2 * channels, 1)
    depthwise = torch.nn.Conv1d(channels, channels, 3, padding=1, groups=channels)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal((4, 8, 30)).astype(np.float32))

    def program() -> None:
        depthwise(torch.nn.functional.glu(pointwise(x.clone().requires_grad_(True)), dim=1)).sum().backward()

    _replays_match(program, {"glu", "glu_backward"}, 2)


# -- batch norm (training) -----------------------------------------------------------------------

BN_SHAPES = st.one_of(
    st.tuples(st.integers(1, 6), st.integers(1, 20), st.integers(1, 13), st.integers(1, 13)),  # NCHW
    st.tuples(st.integers(1, 70), st.integers(1, 40)),  # BatchNorm1d: (N, C), image of one element
    st.tuples(st.integers(1, 5), st.integers(1, 40), st.just(1), st.just(1)),  # NC11 (ResNet's last stage)
    st.tuples(st.integers(1, 3), st.integers(1, 20), st.integers(1, 30)),  # (N, C, L)
)


@SETTINGS
@given(
    shape=BN_SHAPES,
    seed=SEEDS,
    threads=THREADS,
    cl=st.booleans(),
    affine=st.booleans(),
    momentum=st.sampled_from([0.1, 0.01, 0.3]),
)
def test_batch_norm_training_forward_backward_and_running_stats(
    shape: tuple[int, ...], seed: int, threads: int, cl: bool, affine: bool, momentum: float
) -> None:
    """native_batch_norm (training, running stats updated) and native_batch_norm_backward, NCHW and
    channels-last (``cl``, 4-D shapes), with and without weight and bias."""
    if int(np.prod(shape)) // shape[1] < 2:
        shape = (shape[0] + 1, *shape[1:])
    cl = cl and len(shape) == 4
    use_threads(threads)
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(c)).astype(np.float32) if affine else None
    b = (0.1 * rng.standard_normal(c)).astype(np.float32) if affine else None
    rm = (0.1 * rng.standard_normal(c)).astype(np.float32)
    rv = (1 + 0.1 * rng.random(c)).astype(np.float32)

    def tensor(a: np.ndarray | None, grad: bool = False) -> torch.Tensor | None:
        if a is None:
            return None
        t = torch.from_numpy(a.copy())
        if cl and t.dim() == 4:
            t = t.contiguous(memory_format=torch.channels_last)
        return t.requires_grad_(grad)

    tx, tw, tb, trm, trv = tensor(x), tensor(w), tensor(b), tensor(rm), tensor(rv)
    out, mean, invstd = torch.ops.aten.native_batch_norm(tx, tw, tb, trm, trv, True, momentum, 1e-5)
    gx, gw, gb = torch.ops.aten.native_batch_norm_backward(
        tensor(g), tx, tw, trm, trv, mean, invstd, True, 1e-5, [True, affine, affine]
    )
    profile = live_profile()
    y, m, s, nrm, nrv = impl_nn.batch_norm(x, w, b, rm, rv, momentum, 1e-5, profile, cl)
    igx, igw, igb = impl_nn.batch_norm_backward(g, x, w, m, s, profile, cl)
    assert_bits_equal("out", out.numpy(), y)
    assert_bits_equal("save_mean", mean.numpy(), m)
    assert_bits_equal("save_invstd", invstd.numpy(), s)
    assert_bits_equal("running_mean", trm.numpy(), nrm)
    assert_bits_equal("running_var", trv.numpy(), nrv)
    assert_bits_equal("grad_input", gx.numpy(), igx)
    if affine:
        assert_bits_equal("grad_weight", gw.numpy(), igw)
        assert_bits_equal("grad_bias", gb.numpy(), igb)


@pytest.mark.parametrize("cl", [False, True])
def test_batch_norm_backward_of_an_infinite_input_beside_a_nan_gradient(cl: bool) -> None:
    """An infinity in a channel of the input and a NaN in the same channel of grad_out: which NaN the kernels'
    sums keep is not modelled where they differ (the rows kernel at every level, NCHW past default): refused
    in one line; the NCHW kernel at default gives torch's bits."""
    use_threads(1)
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((2, 3, 4, 4)).astype(np.float32), rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    x[0, 1, 0, 0], g[1, 1, 2, 2] = np.inf, np.nan
    layout = torch.channels_last if cl else torch.contiguous_format
    tx, tg = (torch.from_numpy(a.copy()).contiguous(memory_format=layout) for a in (x, g))
    _, mean, invstd = torch.ops.aten.native_batch_norm(tx, None, None, None, None, True, 0.1, 1e-5)
    gx, _, _ = torch.ops.aten.native_batch_norm_backward(tg, tx, None, None, None, mean, invstd, True, 1e-5,
                                                          [True, False, False])  # fmt: skip
    profile = live_profile()
    compute = lambda: impl_nn.batch_norm_backward(g, x, None, mean.numpy(), invstd.numpy(), profile, cl)
    if cl or profile.aten != "default":
        with pytest.raises(ParityError, match="a NaN or infinity in the input and a NaN in grad_out"):
            compute()
    else:
        assert_bits_equal("grad_input", gx.numpy(), compute()[0])


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2, 3]), cl=st.booleans())
def test_batch_norm_replays_from_a_trace(seed: int, threads: int, cl: bool) -> None:
    """nn.BatchNorm2d and BatchNorm1d in training, as ResNet and an MLP run them, traced and replayed."""
    use_threads(threads)
    torch.manual_seed(seed % 1000)
    rng = np.random.default_rng(seed)
    bn2, bn1 = torch.nn.BatchNorm2d(6), torch.nn.BatchNorm1d(5)
    with torch.no_grad():
        bn2.weight.copy_(torch.from_numpy((1 + 0.1 * rng.standard_normal(6)).astype(np.float32)))
    x2 = torch.from_numpy(rng.standard_normal((3, 6, 7, 5)).astype(np.float32))
    if cl:
        x2 = x2.contiguous(memory_format=torch.channels_last)
    x1 = torch.from_numpy(rng.standard_normal((9, 5)).astype(np.float32))

    def program() -> None:
        (bn2(x2.clone().requires_grad_(True)) ** 2).sum().backward()
        (bn1(x1.clone().requires_grad_(True)) * 3).sum().backward()

    _replays_match(program, set(KERNEL_OPS_BN), 4)


@settings(max_examples=15, deadline=None)
@given(
    seed=SEEDS, shape=st.sampled_from([(2, 3, 4, 4), (5, 7, 1, 1), (4, 20), (3, 16, 9, 9), (2, 33, 3, 5)]),
    cl=st.booleans(), affine=st.booleans(), threads=st.sampled_from([1, 2, 3]),
)  # fmt: skip
def test_batch_norm_eval(seed: int, shape: tuple[int, ...], cl: bool, affine: bool, threads: int) -> None:
    """nn.BatchNorm in eval mode (native_batch_norm, training=False): the running statistics'
    1 / sqrt(var + eps) in float, then training's transform; direct and traced."""
    use_threads(threads)
    cl = cl and len(shape) == 4
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = (3 * rng.standard_normal(shape)).astype(np.float32)
    w = rng.standard_normal(c).astype(np.float32) if affine else None
    b = rng.standard_normal(c).astype(np.float32) if affine else None
    rm = rng.standard_normal(c).astype(np.float32)
    rv = (2 * rng.random(c)).astype(np.float32)
    tx = torch.from_numpy(x.copy())
    if cl:
        tx = tx.contiguous(memory_format=torch.channels_last)
    stats = [None if a is None else torch.from_numpy(a.copy()) for a in (w, b, rm, rv)]

    def program() -> torch.Tensor:
        return torch.nn.functional.batch_norm(tx, stats[2], stats[3], stats[0], stats[1], training=False, eps=1e-5)

    y = program().contiguous().numpy()
    assert_bits_equal("out", y, impl_nn.batch_norm_eval(x, w, b, rm, rv, 1e-5, live_profile(), cl))
    _replays_match(program, {"native_batch_norm"}, 1)


def _bn_view(rng: np.random.Generator, kind: str, n: int, c: int, length: int, specials: bool) -> torch.Tensor:
    """A batch norm operand in a layout ATen's TensorIterator path takes: BatchNorm1d's (N, C, L) over a
    transposed (N, L, C) sequence, or a (N, C, H, W) image permuted from (W, N, H, C) memory and cut by a slice."""
    base = (rng.standard_normal((n, length, c)) * 2 + 0.5).astype(np.float32)
    if specials:
        base.reshape(-1)[rng.integers(0, base.size, 2)] = np.array([np.inf, 1e-40], np.float32)
    if kind == "transposed":
        return torch.from_numpy(base).transpose(1, 2)
    image = torch.from_numpy(base.reshape(n, length, 1, c)).expand(n, length, 3, c).contiguous()
    return image.permute(2, 0, 3, 1)[:, :, :, 1:].permute(1, 2, 0, 3)  # (N, C, 3, L - 1)


@settings(max_examples=12, deadline=None)
@given(
    seed=SEEDS, kind=st.sampled_from(["transposed", "permuted"]), n=st.integers(1, 4), c=st.integers(2, 40),
    length=st.integers(2, 300), threads=st.sampled_from([1, 2, 4]), affine=st.booleans(), specials=st.booleans(),
)  # fmt: skip
def test_batch_norm_of_a_layout_neither_contiguous_nor_channels_last(
    seed: int, kind: str, n: int, c: int, length: int, threads: int, affine: bool, specials: bool
) -> None:
    """ATen's TensorIterator path (Normalization.cpp): training forward (running statistics updated),
    backward against a contiguous grad_out, and eval, of PatchTST's BatchNorm1d over a transposed sequence
    and of a permuted, sliced image."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    tx = _bn_view(rng, kind, n, c, length, specials)
    assume(not (tx.is_contiguous() or tx.is_contiguous(memory_format=torch.channels_last)))
    g = rng.standard_normal(tuple(tx.shape)).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(c)).astype(np.float32) if affine else None
    b = (0.1 * rng.standard_normal(c)).astype(np.float32) if affine else None
    rm, rv = (0.1 * rng.standard_normal(c)).astype(np.float32), (1 + rng.random(c)).astype(np.float32)
    tw, tb, trm, trv = (None if a is None else torch.from_numpy(a.copy()) for a in (w, b, rm, rv))
    out, mean, invstd = torch.ops.aten.native_batch_norm(tx, tw, tb, trm, trv, True, 0.1, 1e-5)
    gx, gw, gb = torch.ops.aten.native_batch_norm_backward(
        torch.from_numpy(g.copy()), tx, tw, None, None, mean, invstd, True, 1e-5, [True, affine, affine]
    )
    profile = live_profile()
    y, m, s, nrm, nrv = impl_nn.batch_norm_generic(tx.numpy(), w, b, rm, rv, 0.1, 1e-5, profile)
    for name, expected, got in (("out", out, y), ("save_mean", mean, m), ("save_invstd", invstd, s),
                                ("running_mean", trm, nrm), ("running_var", trv, nrv)):  # fmt: skip
        assert_bits_equal(name, expected.contiguous().numpy(), got)
    igx, igw, igb = impl_nn.batch_norm_backward_generic(g, tx.numpy(), w, m, s, profile)
    assert_bits_equal("grad_input", gx.contiguous().numpy(), igx)
    if affine:
        assert_bits_equal("grad_weight", gw.numpy(), igw)
        assert_bits_equal("grad_bias", gb.numpy(), igb)
    evaluated = torch.ops.aten.native_batch_norm(tx, tw, tb, trm, trv, False, 0.1, 1e-5)[0]
    got = impl_nn.batch_norm_eval_generic(tx.numpy(), w, b, trm.numpy(), trv.numpy(), 1e-5, profile)
    assert_bits_equal("eval out", evaluated.contiguous().numpy(), got)


KERNEL_OPS_BN = ("native_batch_norm", "_native_batch_norm_legit", "_batch_norm_with_update",
                 "native_batch_norm_backward", "batch_norm_backward")  # fmt: skip


# -- pooling -------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 20), st.integers(1, 19), st.integers(1, 19)),
    k=st.integers(1, 4),
    s=st.integers(1, 3),
    d=st.integers(1, 2),
    ceil=st.booleans(),
    cl=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
    specials=st.booleans(),
)
def test_max_pool2d_with_indices_and_backward(
    shape: tuple[int, ...], k: int, s: int, d: int, ceil: bool, cl: bool, seed: int, threads: int, specials: bool
) -> None:
    """Values, int64 indices and grad_input, overlapping windows (stride < kernel) included; ties
    (rounded inputs) and NaN/inf where ``specials``."""
    p = min(k // 2, 1)
    span = (k - 1) * d + 1
    if span > shape[2] + 2 * p or span > shape[3] + 2 * p:
        return
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    if specials:
        x = np.round(x)
        x.reshape(-1)[rng.integers(0, x.size, 4)] = np.array([np.nan, -np.inf, np.inf, -np.nan], np.float32)
    tx = torch.from_numpy(x.copy())
    if cl:
        tx = tx.contiguous(memory_format=torch.channels_last)
    args = ([k, k], [s, s], [p, p], [d, d], ceil)
    out, ind = torch.ops.aten.max_pool2d_with_indices(tx, *args)
    o, i = impl_pool.max_pool2d_with_indices(x, *args)
    assert_bits_equal("out", out.contiguous().numpy(), o)
    assert np.array_equal(ind.contiguous().numpy(), i), "indices"
    if int(ind.max()) >= shape[2] * shape[3]:  # a window of padding only: ATen writes into the next plane
        return
    g = rng.standard_normal(out.shape).astype(np.float32)
    tg = torch.from_numpy(g.copy())
    if cl:
        tg = tg.contiguous(memory_format=torch.channels_last)
    gx = torch.ops.aten.max_pool2d_with_indices_backward(tg, tx, *args, ind)
    assert_bits_equal("grad_input", gx.contiguous().numpy(), impl_pool.max_pool2d_backward(g, i, x.shape))


@settings(max_examples=40, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 20), st.integers(1, 17), st.integers(1, 17)),
    out_hw=st.tuples(st.integers(1, 18), st.integers(1, 18)),
    cl=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_adaptive_avg_pool2d_and_backward(
    shape: tuple[int, ...], out_hw: tuple[int, int], cl: bool, seed: int, threads: int
) -> None:
    """_adaptive_avg_pool2d (windows that overlap, and output larger than input) and its backward,
    NCHW and channels-last (channels past the 8-lane vector body divide twice), on the strides torch
    gives (an (N, C, 1, 1) grad_output of channels-last strides takes the channels-last kernel)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    tx = torch.from_numpy(x.copy())
    if cl:
        tx = tx.contiguous(memory_format=torch.channels_last)
    out = torch.ops.aten._adaptive_avg_pool2d(tx, list(out_hw))
    g = rng.standard_normal(out.shape).astype(np.float32)
    tg = torch.from_numpy(g.copy())
    if cl:  # grad_output with the forward output's strides: channels-last even where H, W are 1
        tg = torch.empty_strided(out.shape, out.stride()).copy_(tg)
    gx = torch.ops.aten._adaptive_avg_pool2d_backward(tg, tx)
    # the kernels switch on suggest_memory_format: the input's forward, grad_output's backward
    x_cl = suggests_channels_last(tuple(tx.shape), tx.stride())
    g_cl = suggests_channels_last(tuple(tg.shape), tg.stride())
    assert_bits_equal("out", out.contiguous().numpy(), impl_pool.adaptive_avg_pool2d(x, out_hw, x_cl))
    assert_bits_equal("grad_input", gx.contiguous().numpy(), impl_pool.adaptive_avg_pool2d_backward(g, x.shape, g_cl))


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]), cl=st.booleans())
def test_pooling_replays_from_a_trace(seed: int, threads: int, cl: bool) -> None:
    """A ResNet stem's max pool (3, stride 2, padding 1) and an adaptive average pool to 3x2, traced."""
    use_threads(threads)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal((2, 11, 13, 9)).astype(np.float32))
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    stem = torch.nn.MaxPool2d(3, 2, 1)

    def program() -> None:
        y = torch.nn.functional.adaptive_avg_pool2d(stem(x.clone().requires_grad_(True)), (3, 2))
        (y * y).sum().backward()

    ops = {"max_pool2d_with_indices", "max_pool2d_with_indices_backward", "_adaptive_avg_pool2d"}
    _replays_match(program, ops | {"_adaptive_avg_pool2d_backward"}, 4)


# -- avg_pool1d/2d/3d, nearest and nearest-exact upsampling ---------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    dims=st.sampled_from([1, 2, 3]),
    shape=st.tuples(st.integers(1, 3), st.integers(1, 19)),
    window=st.lists(st.tuples(st.integers(1, 7), st.integers(1, 3), st.integers(0, 3), st.integers(0, 12)), min_size=3,
                    max_size=3),
    ceil=st.booleans(),
    count_pad=st.booleans(),
    divisor=st.sampled_from([None, None, 1, 3, 9, -5]),
    cl=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
    specials=st.booleans(),
)  # fmt: skip
def test_avg_pool_and_backward(
    dims: int, shape: tuple[int, int], window: list[tuple[int, int, int, int]], ceil: bool, count_pad: bool,
    divisor: int | None, cl: bool, seed: int, threads: int, specials: bool,
) -> None:  # fmt: skip
    """avg_pool1d (through avg_pool2d), avg_pool2d and avg_pool3d and their input gradients: kernels 1-7,
    strides 1-3, padding up to half the kernel, ceil_mode, count_include_pad both ways, divisor_override
    (a negative one too: the channels-first kernel's `0 + quotient` turns -0 into +0), channels around the
    8-lane vector body, NCHW and channels-last, NaN (of both signs: two meeting in a sum keep the NaN the
    kernel keeps, or are refused) and infinities where ``specials``."""
    window = window[:dims]
    k = [w[0] for w in window]
    s = [w[1] for w in window]
    p = [min(w[2], w[0] // 2) for w in window]
    size = [w[0] + w[3] for w in window]  # avg_pool3d wants the input at least the kernel
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((*shape, *size)) * 3).astype(np.float32)
    if specials:
        x.reshape(-1)[rng.integers(0, x.size, 4)] = np.array([np.nan, -np.nan, np.inf, -np.inf], np.float32)
    tx = torch.from_numpy(x.copy()).requires_grad_()
    xin = tx
    if cl and dims > 1:
        xin = tx.contiguous(memory_format=torch.channels_last if dims == 2 else torch.channels_last_3d)
    if dims == 1:
        divisor = None  # avg_pool1d takes none
        y = torch.nn.functional.avg_pool1d(xin, k, s, p, ceil, count_pad)
    else:
        pool_fn = torch.nn.functional.avg_pool2d if dims == 2 else torch.nn.functional.avg_pool3d
        y = pool_fn(xin, k, s, p, ceil, count_pad, divisor)
    g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    if specials:
        g.reshape(-1)[rng.integers(0, g.size, 2)] = np.array([np.nan, -np.nan], np.float32)
    y.backward(torch.empty_strided(y.shape, y.stride()).copy_(torch.from_numpy(g)))
    as_2d = dims == 1  # avg_pool1d is avg_pool2d of (N, C, 1, L)
    xx, gg = (x[:, :, None], g[:, :, None]) if as_2d else (x, g)
    args = ([1, *k], [1, *s], [0, *p]) if as_2d else (k, s, p)
    d = max(dims, 2)
    x_cl = dims > 1 and suggests_channels_last(tuple(xin.shape), xin.stride())
    g_cl = dims > 1 and suggests_channels_last(tuple(y.shape), y.stride())
    profile = live_profile()
    for name, want, run in (
        ("out", y.detach().contiguous().numpy(), lambda: impl_pool.avg_pool(xx, *args, ceil, count_pad, divisor, d,
                                                                            x_cl, profile)),
        ("grad_input", tx.grad.numpy(), lambda: impl_pool.avg_pool_backward(gg, xx.shape, *args, ceil, count_pad,
                                                                            divisor, d, g_cl, profile)),
    ):  # fmt: skip
        try:
            got = run()
        except ParityError as exc:
            assert specials and "of two NaNs with other payloads" in str(exc), exc
            continue
        assert_bits_equal(name, want, got.reshape(want.shape))


# 2 -> 41 (and the like): where the AVX2 object's fused source index of nearest-exact's generic kernel
# picks another element than the default build's
NEAREST_SIZES = st.one_of(st.integers(1, 140), st.sampled_from([41, 47, 55, 83, 97, 107]))


@settings(max_examples=40, deadline=None)
@given(
    dims=st.sampled_from([1, 2, 3]),
    exact=st.booleans(),
    channels=st.sampled_from([1, 2, 3, 4, 5, 8, 9, 17]),
    size=st.lists(st.integers(1, 30), min_size=3, max_size=3),
    to=st.one_of(
        st.lists(NEAREST_SIZES, min_size=3, max_size=3),
        st.lists(st.sampled_from([0.25, 1 / 3, 0.5, 0.7, 1.0, 1.3, 1.5, 2.0, 2.1, 2.5, 3.0, 4.0]), min_size=3,
                 max_size=3),
    ),
    recompute=st.booleans(),
    cl=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)  # fmt: skip
def test_upsample_nearest_and_backward(
    dims: int, exact: bool, channels: int, size: list[int], to: list, recompute: bool, cl: bool, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """F.interpolate(mode="nearest" / "nearest-exact") 1-D, 2-D and 3-D and their input gradients, to sizes
    or by scale factors (passed to the op, or recomputed into sizes), up and down, NCHW and channels-last
    (either forward kernel: the channels-last one for more than 3 channels or a small 2-D output)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    size = [n if dims < 3 else min(n, 9) for n in size[:dims]]
    to = [v if dims < 3 or not isinstance(v, int) else min(v, 20) for v in to[:dims]]
    x = (rng.standard_normal((2, channels, *size)) * 3).astype(np.float32)
    tx = torch.from_numpy(x.copy()).requires_grad_()
    xin = tx
    if cl and dims > 1:
        xin = tx.contiguous(memory_format=torch.channels_last if dims == 2 else torch.channels_last_3d)
    by_size = isinstance(to[0], int)
    if not by_size and any(int(n * f) < 1 for n, f in zip(size, to, strict=True)):
        return  # an empty output: torch refuses it
    kw = {"size": to} if by_size else {"scale_factor": to, "recompute_scale_factor": recompute}
    y = torch.nn.functional.interpolate(xin, mode="nearest-exact" if exact else "nearest", **kw)
    if y.numel() == 0:
        return
    g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.empty_strided(y.shape, y.stride()).copy_(torch.from_numpy(g)))
    scales = (None,) * dims if by_size or recompute else tuple(to)
    out_size = tuple(y.shape[2:])
    layout = torch.channels_last if dims == 2 else torch.channels_last_3d
    cl_kernel = dims > 1 and xin.is_contiguous(memory_format=layout) and channels > 3
    cl_kernel = cl_kernel or (dims == 2 and out_size[0] + out_size[1] <= 128)
    profile = live_profile()
    out = impl_pool.upsample_nearest(x, out_size, scales, exact, cl_kernel, profile)
    assert_bits_equal("out", y.detach().contiguous().numpy(), out)
    gx = impl_pool.upsample_nearest_backward(g, x.shape, scales, exact, profile)
    assert_bits_equal("grad_input", tx.grad.numpy(), gx)


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]), cl=st.booleans())
def test_pyramid_pooling_and_nearest_resizing_replay_from_a_trace(seed: int, threads: int, cl: bool) -> None:
    """An FPN-like top-down path (nearest x2 and to a size, nearest-exact to an odd size), HGNet's and
    PP-LCNet's average pools (ceil_mode, count_include_pad off), an audio model's 1-D pool and resize, a
    3-D pool, traced: every op and its backward replayed."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((2, 6, 13, 10)).astype(np.float32))
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    v = torch.from_numpy(rng.standard_normal((1, 3, 4, 6, 5)).astype(np.float32))
    f = torch.nn.functional

    def program() -> None:
        a, b = x.clone().requires_grad_(), v.clone().requires_grad_()
        low = f.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        top = low + f.avg_pool2d(f.interpolate(low, scale_factor=2.0, mode="nearest"), 2, 2, ceil_mode=True)
        up = f.interpolate(top, size=a.shape[-2:], mode="nearest") + a
        wide = f.interpolate(up, size=(9, 130), mode="nearest-exact")
        sound = f.interpolate(f.avg_pool1d(a.reshape(2, 6, 130), 4), size=41, mode="nearest-exact")
        vol = f.interpolate(f.avg_pool3d(b, 2, 1, 1, divisor_override=3), scale_factor=1.5, mode="nearest")
        ((wide * wide).sum() + (sound * sound).sum() + (vol * vol).sum()).backward()

    ops = {"avg_pool2d", "avg_pool2d_backward", "avg_pool3d", "avg_pool3d_backward"}
    ops |= {f"{op}{d}d{b}" for op in ("upsample_nearest", "_upsample_nearest_exact") for d in (1, 2, 3)
            for b in ("", "_backward")}  # fmt: skip
    _replays_match(program, ops, 16)


# -- grid_sample (bilinear, zero padding) ----------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(1, 20), st.integers(1, 30), st.integers(1, 30)),
    grid_hw=st.tuples(st.integers(1, 20), st.integers(1, 20)),
    reach=st.sampled_from([1.0, 1.3, 3.0]),
    align=st.booleans(),
    input_grad=st.booleans(),
    transposed=st.booleans(),
    mode=st.sampled_from(["bilinear", "nearest"]),
    padding=st.sampled_from(["zeros", "border"]),
    seed=SEEDS,
    threads=THREADS,
)
def test_grid_sample_and_backward(
    shape: tuple[int, ...], grid_hw: tuple[int, int], reach: float, align: bool, input_grad: bool,
    transposed: bool, mode: str, padding: str, seed: int, threads: int,
) -> None:  # fmt: skip
    """grid_sampler_2d and its backward, bilinear and nearest, zero and border padding: points inside and
    past the image (``reach``), on pixel centres and halfway (grid values rounded to quarters) half of the
    time, a grid of transposed strides (Deformable DETR's per-level grid), the input's gradient asked for
    or not; output points off the 8-lane chunks."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    g = rng.uniform(-reach, reach, (shape[0], *grid_hw, 2)).astype(np.float32)
    if seed % 2:
        g = (np.round(g * 4) / 4).astype(np.float32)
    tg = torch.from_numpy(g.copy())
    if transposed:
        tg = tg.transpose(1, 2).contiguous().transpose(1, 2)
    tx = torch.from_numpy(x.copy()).requires_grad_(input_grad)
    y = torch.nn.functional.grid_sample(tx, tg.requires_grad_(), mode=mode, padding_mode=padding, align_corners=align)
    go = rng.standard_normal(y.shape).astype(np.float32)
    grads = torch.autograd.grad(y, (tx, tg) if input_grad else (tg,), torch.from_numpy(go.copy()))
    profile = live_profile()
    m, pad = ("bilinear", "nearest").index(mode), ("zeros", "border").index(padding)
    assert_bits_equal("out", y.detach().numpy(), impl_nn.grid_sample(x, g, align, profile, m, pad))
    gx, ggrid = impl_nn.grid_sample_backward(go, x, g, align, input_grad, profile, tg.stride(), m, pad)
    assert_bits_equal("grad_grid", grads[-1].numpy(), ggrid)
    if input_grad:
        assert_bits_equal("grad_input", grads[0].numpy(), gx)


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_deformable_attention_sampling_replays_from_a_trace(seed: int, threads: int) -> None:
    """Deformable DETR's multi-scale deformable attention in PyTorch: per level, the values of
    (batch*heads, dim, H, W) sampled at learned points by grid_sample (grid from 2*locations - 1, of
    transposed strides), traced: every grid_sampler_2d and its backward."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    levels = [(8, 6), (4, 3)]
    value = torch.from_numpy(rng.standard_normal((2, 8 * 6 + 4 * 3, 2, 4)).astype(np.float32))
    locations = torch.from_numpy(rng.uniform(-0.1, 1.1, (2, 5, 2, 2, 3, 2)).astype(np.float32))

    def program() -> None:
        v, loc = value.clone().requires_grad_(), locations.clone().requires_grad_()
        grids = 2 * loc - 1
        out = 0
        for level, part in enumerate(v.split([h * w for h, w in levels], dim=1)):
            h, w = levels[level]
            plane = part.flatten(2).transpose(1, 2).reshape(4, 4, h, w)
            grid = grids[:, :, :, level].transpose(1, 2).flatten(0, 1)
            out = out + torch.nn.functional.grid_sample(plane, grid, padding_mode="zeros", align_corners=False)
        (out * out).sum().backward()

    _replays_match(program, {"grid_sampler_2d", "grid_sampler_2d_backward"}, 4)


@settings(max_examples=3, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_warping_by_nearest_and_border_sampling_replays_from_a_trace(seed: int, threads: int) -> None:
    """A flow field warping an image as optical-flow and spatial-transformer models do: grid_sample with
    border padding (bilinear) and nearest sampling, traced: every grid_sampler_2d and its backward."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    image = torch.from_numpy(rng.standard_normal((2, 3, 9, 12)).astype(np.float32))
    flow = torch.from_numpy(rng.uniform(-1.4, 1.4, (2, 9, 12, 2)).astype(np.float32))

    def program() -> None:
        x, g = image.clone().requires_grad_(), flow.clone().requires_grad_()
        warped = torch.nn.functional.grid_sample(x, g, padding_mode="border", align_corners=True)
        picked = torch.nn.functional.grid_sample(x, g, mode="nearest", align_corners=False)
        (warped * picked).sum().backward()

    _replays_match(program, {"grid_sampler_2d", "grid_sampler_2d_backward"}, 4)


def test_grid_sample_modes_the_impl_does_not_take_are_refused() -> None:
    """Bicubic interpolation and reflection padding: one line each, never other bits."""
    from harness.core.errors import ParityError

    x = torch.from_numpy(np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32))
    grid = torch.zeros(1, 3, 3, 2)
    for kw in ({"mode": "bicubic"}, {"padding_mode": "reflection"}, {"mode": "nearest", "padding_mode": "reflection"}):

        def program(kw: dict = kw) -> None:
            torch.nn.functional.grid_sample(x, grid, align_corners=False, **kw)

        with pytest.raises(ParityError, match="bilinear/nearest with zeros/border padding only"):
            _replays_match(program, {"grid_sampler_2d"}, 1)


# -- upsample_bicubic2d ---------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 40), st.integers(2, 30), st.integers(2, 30)),
    size=st.one_of(st.tuples(st.integers(1, 40), st.integers(1, 40)), st.sampled_from([(1.5, 2.0), (0.5, 3.0)])),
    align=st.booleans(),
    cl=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_bicubic2d(
    shape: tuple[int, ...], size: tuple, align: bool, cl: bool, seed: int, threads: int
) -> None:
    """F.interpolate(mode="bicubic") to a size or by scale factors (then passed to the op), up and down,
    corners aligned or not, NCHW and channels-last input."""
    use_threads(threads)
    x = (np.random.default_rng(seed).standard_normal(shape) * 5).astype(np.float32)
    tx = torch.from_numpy(x.copy())
    if cl:
        tx = tx.contiguous(memory_format=torch.channels_last)
    by_size = isinstance(size[0], int)
    kw = {"size": size} if by_size else {"scale_factor": size}
    y = torch.nn.functional.interpolate(tx, mode="bicubic", align_corners=align, **kw)
    scales = (None, None) if by_size else size
    got = impl_nn.upsample_bicubic2d(x, tuple(y.shape[2:]), align, live_profile(), scales)
    assert_bits_equal("out", y.contiguous().numpy(), got)


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 12), st.integers(2, 20), st.integers(2, 20)),
    size=st.one_of(st.tuples(st.integers(1, 40), st.integers(1, 40)), st.sampled_from([(1.5, 2.0), (0.5, 3.0)])),
    align=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_bicubic2d_backward(shape: tuple[int, ...], size: tuple, align: bool, seed: int, threads: int) -> None:
    """F.interpolate(mode="bicubic")'s input gradient, to a size or by scale factors, up and down (equal sizes
    copy), corners aligned or not: one build on every x86 capability, each output plane on one thread."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy((rng.standard_normal(shape) * 5).astype(np.float32)).requires_grad_()
    by_size = isinstance(size[0], int)
    kw = {"size": size} if by_size else {"scale_factor": size}
    y = torch.nn.functional.interpolate(x, mode="bicubic", align_corners=align, **kw)
    go = (rng.standard_normal(tuple(y.shape)) * 3).astype(np.float32)
    y.backward(torch.from_numpy(go.copy()))
    scales = (None, None) if by_size else size
    got = impl_nn.upsample_bicubic2d_backward(go, shape, align, live_profile(), scales)
    assert_bits_equal("grad_input", x.grad.numpy(), got)


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_position_embedding_resize_replays_from_a_trace(seed: int, threads: int) -> None:
    """YOLOS's and VitDet's position embeddings, a (1, positions, dim) table viewed as (1, dim, h, w) and
    resized bicubically to the image's patch grid, traced: every upsample_bicubic2d and its backward."""
    use_threads(threads)
    table = torch.from_numpy(np.random.default_rng(seed).standard_normal((1, 16, 24)).astype(np.float32))

    def program() -> None:
        grid = table.clone().requires_grad_().transpose(1, 2).reshape(1, 24, 4, 4)
        for size in ((5, 6), (3, 3), (8, 8)):
            torch.nn.functional.interpolate(grid, size=size, mode="bicubic", align_corners=False).sum().backward(
                retain_graph=True
            )

    _replays_match(program, {"upsample_bicubic2d"}, 3)
    _replays_match(program, {"upsample_bicubic2d_backward"}, 3)


# -- _upsample_bicubic2d_aa -----------------------------------------------------------------------


def _interpolate_aa_program(
    x: torch.Tensor, cases: tuple[tuple[tuple[int, int] | None, bool, tuple[float, float] | None], ...], mode: str
) -> Callable[[], None]:
    """A program interpolating ``x`` antialiased by ``mode`` for each (size, align_corners, scale_factor) of
    ``cases``, back-propagating each result's sum of squares."""

    def program() -> None:
        for size, align, factor in cases:
            tx = x.clone().requires_grad_()
            y = torch.nn.functional.interpolate(
                tx, size=size, scale_factor=factor, mode=mode, align_corners=align, antialias=True
            )
            (y * y).sum().backward()

    return program


def test_upsample_bicubic2d_antialiased_and_its_backward() -> None:
    """F.interpolate(mode="bicubic", antialias=True) and its input gradient, traced and replayed: up (4 to 5,
    DINOv2's position embeddings) and down (37 to 9 and 24: sums past one 4-term block, whose scalar
    epilogue the AVX2 object fuses), corners aligned or not, by scale factors, and a width of 1 (the height
    pass then gives every row of a plane row 0's value)."""
    rng = np.random.default_rng(6)
    x = torch.from_numpy(rng.standard_normal((2, 3, 37, 4)).astype(np.float32))
    cases = (((5, 5), False, None), ((9, 24), True, None), (None, False, (0.3, 0.5)), ((6, 1), False, None))
    program = _interpolate_aa_program(x, cases, "bicubic")
    _replays_match(program, {"_upsample_bicubic2d_aa"}, 4)
    _replays_match(program, {"_upsample_bicubic2d_aa_backward"}, 4)


def test_upsample_bilinear2d_antialiased_and_its_backward() -> None:
    """F.interpolate(mode="bilinear", antialias=True) and its input gradient, traced and replayed: SigLIP 2's
    position grid (4 x 4 to 2 x 7 and 5 x 3: down one way, up the other), down past one 4-term block (37 to
    6), corners aligned, and by scale factors."""
    rng = np.random.default_rng(7)
    x = torch.from_numpy(rng.standard_normal((1, 5, 37, 4)).astype(np.float32))
    cases = (((2, 7), False, None), ((5, 3), False, None), ((6, 9), True, None), (None, False, (0.3, 1.7)))
    program = _interpolate_aa_program(x, cases, "bilinear")
    _replays_match(program, {"_upsample_bilinear2d_aa"}, 4)
    _replays_match(program, {"_upsample_bilinear2d_aa_backward"}, 4)


def test_logit_of_views_traced() -> None:
    """torch.special.logit traced and replayed over the layouts of ATen's vectorized loop (the slice of the first
    two coordinates of a detector's reference points, a transposed slice, a broadcast row, past the thread grain)
    and a contiguous and a permuted dense tensor (the MKL path), eps None, 1e-5 and 0."""
    rng = np.random.default_rng(11)
    ref = torch.from_numpy(rng.uniform(-0.1, 1.1, (2, 900, 4)).astype(np.float32))
    wide = torch.from_numpy(rng.uniform(0, 1, (2, 17000)).astype(np.float32))

    def program() -> None:
        for eps in (None, 1e-5, 0.0):
            torch.special.logit(ref[..., :2], eps=eps)
            torch.special.logit(ref[0, :, :3].t(), eps=eps)
            torch.special.logit(ref[1, :37, 1].expand(5, 37), eps=eps)
            torch.special.logit(wide[:, :16999], eps=eps)
            torch.special.logit(ref, eps=eps)
            torch.special.logit(ref[0].t(), eps=eps)

    _replays_match(program, {"logit"}, 18)


# -- upsample_bilinear2d forward -------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 20), st.integers(2, 30), st.integers(2, 30)),
    size=st.one_of(st.tuples(st.integers(1, 63), st.integers(1, 63)), st.sampled_from([(0.5, 2.0), (1.5, 1.25)])),
    align=st.booleans(),
    channels_last=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_bilinear2d_forward(
    shape: tuple[int, ...], size: tuple, align: bool, channels_last: bool, seed: int, threads: int
) -> None:
    """F.interpolate(mode="bilinear") to a size or by scale factors (passed to the op), up and down, corners
    aligned or not, channels in whole vectors of 8 and a scalar rest, channels-first or channels-last:
    ATen's channels-last kernel, which it takes for OH + OW <= 128 (and a channels-last input of more
    than 3 channels at any size, tried at twice the size)."""
    use_threads(threads)
    x = (np.random.default_rng(seed).standard_normal(shape) * 5).astype(np.float32)
    by_size = isinstance(size[0], int)
    big = channels_last and shape[1] > 3  # ATen's channels-last kernel at any output size
    if big and by_size:
        size = (2 * size[0] + 3, 2 * size[1] + 3)
    xt = torch.from_numpy(x.copy())
    if channels_last:
        xt = xt.contiguous(memory_format=torch.channels_last)
    y = torch.nn.functional.interpolate(
        xt, mode="bilinear", align_corners=align, **({"size": size} if by_size else {"scale_factor": size})
    )
    scales = (None, None) if by_size else size
    got = impl_nn.upsample_bilinear2d(x, tuple(y.shape[2:]), align, live_profile(), scales)
    assert_bits_equal("upsample_bilinear2d", y.contiguous().numpy(), got)


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_bilinear_resize_replays_from_a_trace(seed: int, threads: int) -> None:
    """ZoeDepth's attractors, (batch, 16, h, w) bin centres resized bilinearly with aligned corners,
    traced: every upsample_bilinear2d; a channels-first resize past OH + OW = 128 (ATen's generic
    kernel) too."""
    use_threads(threads)
    bins = torch.from_numpy(np.random.default_rng(seed).standard_normal((2, 16, 8, 8)).astype(np.float32))

    def program() -> None:
        for size, align in (((16, 16), True), ((32, 24), False), ((5, 7), True)):
            torch.nn.functional.interpolate(bins, size=size, mode="bilinear", align_corners=align)

    _replays_match(program, {"upsample_bilinear2d"}, 3)

    def large() -> None:
        torch.nn.functional.interpolate(bins[:, :4], size=(80, 80), mode="bilinear", align_corners=False)

    _replays_match(large, {"upsample_bilinear2d"}, 1)


@settings(max_examples=12, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 2), st.integers(1, 4), st.integers(1, 40), st.integers(1, 40)),
    size=st.tuples(st.integers(1, 100), st.integers(30, 130)),
    align=st.booleans(),
    specials=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_bilinear2d_generic_forward(
    shape: tuple[int, ...], size: tuple[int, int], align: bool, specials: bool, seed: int, threads: int
) -> None:
    """F.interpolate(mode="bilinear") of a channels-first input past OH + OW = 128 (3 channels at one thread
    aside): ATen's generic kernel, each row's two-tap sum then the rows', the NaNs and infinities of the
    input carried as the kernel carries them."""
    use_threads(threads)
    if sum(size) <= 128 or (threads == 1 and shape[1] == 3):
        return  # ATen's channels-last kernel (test_upsample_bilinear2d_forward)
    x = _with_specials(np.random.default_rng(seed), shape, specials)
    y = torch.nn.functional.interpolate(torch.from_numpy(x.copy()), size=size, mode="bilinear", align_corners=align)
    got = impl_nn.upsample_linear(x, size, align, live_profile())
    assert_bits_equal("upsample_bilinear2d", y.numpy(), got)


# -- upsample_linear1d ------------------------------------------------------------------------------


def _with_specials(rng: np.random.Generator, shape: tuple[int, ...], specials: bool) -> np.ndarray:
    """Normal values times 5; with ``specials`` a quarter of them NaNs of several payloads and signs,
    infinities, zeros of both signs and a subnormal."""
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    if specials:
        odd = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF812345, 0x7F800000, 0xFF800000, 0, 0x80000000, 1],
                       np.uint32).view(np.float32)  # fmt: skip
        mask = rng.random(shape) < 0.25
        x[mask] = rng.choice(odd, int(mask.sum()))
    return x


@settings(max_examples=20, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 2), st.integers(1, 5), st.integers(1, 70)),
    size=st.one_of(st.integers(1, 260), st.sampled_from([0.5, 1.5, 2.0, 3.0])),
    align=st.booleans(),
    specials=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_linear1d_forward_and_backward(
    shape: tuple[int, int, int], size: int | float, align: bool, specials: bool, seed: int, threads: int
) -> None:
    """F.interpolate(mode="linear") to a size or by a scale factor (passed to the op), up and down, corners
    aligned or not, and its input gradient: ATen's generic kernel, `t0*w0 + t1*w1` fused at avx2 and avx512
    into fma(t0, w0, t1*w1); the backward's two updates per output; NaNs, infinities and signed zeros in the
    input and the gradient."""
    use_threads(threads)
    by_size = isinstance(size, int)
    assume(by_size or int(shape[2] * size) >= 1)  # torch refuses an empty output
    if not by_size and align:
        align = False  # a scale factor with aligned corners is ignored by ATen's scale
    rng = np.random.default_rng(seed)
    x = _with_specials(rng, shape, specials)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    y = torch.nn.functional.interpolate(
        xt, mode="linear", align_corners=align, **({"size": size} if by_size else {"scale_factor": size})
    )
    scale = None if by_size else size
    got = impl_nn.upsample_linear(x, (y.shape[2],), align, live_profile(), (scale,))
    assert_bits_equal("upsample_linear1d", y.detach().numpy(), got)
    go = _with_specials(rng, tuple(y.shape), specials)
    y.backward(torch.from_numpy(go.copy()))
    got = impl_nn.upsample_linear1d_backward(go, shape, align, live_profile(), scale)
    assert_bits_equal("grad_input", xt.grad.numpy(), got)


@settings(max_examples=12, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 2), st.integers(1, 12), st.integers(1, 8), st.integers(1, 8), st.integers(1, 8)),
    size=st.tuples(st.integers(1, 20), st.integers(1, 20), st.integers(1, 20)),
    align=st.booleans(),
    channels_last=st.booleans(),
    specials=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_trilinear3d_forward_and_backward(
    shape: tuple[int, ...], size: tuple[int, int, int], align: bool, channels_last: bool, specials: bool, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """F.interpolate(mode="trilinear") through the replay's switch: ATen's channels-last kernel for a
    channels-last input of more than 3 channels (eight rounded weights, the vector lanes' and the scalar
    channels' sums), else its generic kernel (the rows' sums, the planes', then the depth's); and the input
    gradient (eight updates per output; ATen's channels-last kernel for a channels-last gradient, the same
    updates per element). NaNs and infinities at avx2 and avx512 (refused at the default level)."""
    use_threads(threads)
    profile = live_profile()
    specials = specials and profile.contract
    rng = np.random.default_rng(seed)
    x = _with_specials(rng, shape, specials)
    xt = torch.from_numpy(x.copy())
    if channels_last:
        xt = xt.contiguous(memory_format=torch.channels_last_3d)
    xt.requires_grad_()
    y = torch.nn.functional.interpolate(xt, size=size, mode="trilinear", align_corners=align)
    args = {"output_size": list(size), "align_corners": align, "self.stride": list(xt.stride())}
    got = REPLAYS["upsample_trilinear3d"]({"self": x}, args, profile)["out"]
    assert_bits_equal("upsample_trilinear3d", y.detach().contiguous().numpy(), got)
    go = _with_specials(rng, tuple(y.shape), specials)
    # a channels-last gradient (so too a one-channel or one-voxel one) takes ATen's vectorised kernel
    y.backward(
        torch.from_numpy(go.copy()).contiguous(
            memory_format=torch.channels_last_3d if channels_last else torch.contiguous_format
        )
    )
    got = impl_nn.upsample_trilinear3d_backward(go, shape, align, profile)
    assert_bits_equal("grad_input", xt.grad.contiguous().numpy(), got)


def test_trilinear_refusals_name_the_kernel() -> None:
    """The default level's NaNs in 3-D (either kernel) are refused; a channels-last gradient (one channel)
    replays."""
    from harness.impl.profiles import get_profile
    from harness.trace.impl_nn import REPLAYS as NN

    base = get_profile("x86-baseline", 1)
    x = np.full((1, 4, 3, 3, 3), np.nan, np.float32)
    with pytest.raises(ParityError, match="default level"):
        impl_nn.upsample_linear(x, (5, 5, 5), False, base)
    with pytest.raises(ParityError, match="default level"):  # ATen's channels-last kernel
        NN["upsample_trilinear3d"]({"self": x}, {"output_size": [5, 5, 5], "align_corners": False,
                                                 "self.stride": [108, 1, 36, 12, 4]}, base)  # fmt: skip
    with pytest.raises(ParityError, match="default level"):
        impl_nn.upsample_trilinear3d_backward(np.full((1, 4, 5, 5, 5), np.inf, np.float32), x.shape, False, base)
    one = {"output_size": [5, 5, 5], "input_size": [1, 1, 3, 3, 3], "align_corners": False}
    grad = {"grad_output": np.ones((1, 1, 5, 5, 5), np.float32)}
    got = NN["upsample_trilinear3d_backward"](grad, one, base)["out"]
    assert_bits_equal(
        "grad_input", impl_nn.upsample_trilinear3d_backward(grad["grad_output"], (1, 1, 3, 3, 3), False, base), got
    )


@pytest.mark.parametrize("factor", [1.07, 0.8])
def test_linear_scales_that_do_not_fit_the_sizes(factor: float) -> None:
    """A scale factor passed to the aten ops beside an output size it does not give: 1/scale takes the last
    sources past the input (factor 0.8: ATen's guard_index_and_lambda clamps the index to in - 1 and the
    weight to [0, 1]) or short of it (1.07). The generic 1-D, 2-D and 3-D forwards, the channels-last 2-D
    forward and the 1-D, 2-D and 3-D backwards, bit for bit."""
    aten, rng = torch.ops.aten, np.random.default_rng(7)
    cases = (  # (forward, impl forward, backward, impl backward, input shape, output size)
        (aten.upsample_linear1d, impl_nn.upsample_linear, aten.upsample_linear1d_backward,
         impl_nn.upsample_linear1d_backward, (2, 3, 13), [29]),
        (aten.upsample_bilinear2d, impl_nn.upsample_linear, aten.upsample_bilinear2d_backward,
         impl_nn.upsample_bilinear2d_backward, (1, 2, 9, 11), [40, 131]),
        (aten.upsample_bilinear2d, impl_nn.upsample_bilinear2d, None, None, (1, 2, 9, 11), [20, 30]),
        (aten.upsample_trilinear3d, impl_nn.upsample_linear, aten.upsample_trilinear3d_backward,
         impl_nn.upsample_trilinear3d_backward, (1, 2, 4, 5, 6), [5, 9, 40]),
    )  # fmt: skip
    profile = live_profile()
    for forward, impl_forward, backward, impl_backward, shape, size in cases:
        scales = [o / i * factor for i, o in zip(shape[2:], size, strict=True)]
        x = (rng.standard_normal(shape) * 5).astype(np.float32)
        y = forward(torch.from_numpy(x.copy()), size, False, *scales).numpy()
        assert_bits_equal(str(forward), y, impl_forward(x, tuple(size), False, profile, tuple(scales)))
        if backward is None:
            continue
        g = rng.standard_normal(y.shape).astype(np.float32)
        want = backward(torch.from_numpy(g.copy()), size, list(shape), False, *scales).numpy()
        given_scales = scales[0] if len(size) == 1 else tuple(scales)
        assert_bits_equal(str(backward), want, impl_backward(g, shape, False, profile, given_scales))


@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_trilinear_resize_replays_from_a_trace(seed: int, threads: int) -> None:
    """A 3-D decoder's feature map, (1, 2, 4, 5, 6) resized trilinearly to (12, 15, 24) (ATen's generic
    kernel), and a channels-last (1, 8, 3, 4, 5) one to (6, 8, 10) (its channels-last kernel), traced: every
    upsample_trilinear3d and the channels-first backwards."""
    use_threads(threads)
    volume = torch.from_numpy(np.random.default_rng(seed).standard_normal((1, 2, 4, 5, 6)).astype(np.float32))

    wide = torch.from_numpy(np.random.default_rng(seed + 1).standard_normal((1, 8, 3, 4, 5)).astype(np.float32))

    def program() -> None:
        for align in (False, True):
            leaf = volume.clone().requires_grad_()
            out = torch.nn.functional.interpolate(leaf, size=(12, 15, 24), mode="trilinear", align_corners=align)
            out.sum().backward()
        last = wide.contiguous(memory_format=torch.channels_last_3d)
        torch.nn.functional.interpolate(last, size=(6, 8, 10), mode="trilinear", align_corners=False)

    _replays_match(program, {"upsample_trilinear3d"}, 3)
    _replays_match(program, {"upsample_trilinear3d_backward"}, 2)


@settings(max_examples=3, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_linear_resize_replays_from_a_trace(seed: int, threads: int) -> None:
    """A relative-position table, (1, 8, 15) resized linearly to 29 and 7 positions (SAM-style), traced:
    every upsample_linear1d and its backward."""
    use_threads(threads)
    table = torch.from_numpy(np.random.default_rng(seed).standard_normal((1, 8, 15)).astype(np.float32))

    def program() -> None:
        for size, align in ((29, False), (7, True)):
            leaf = table.clone().requires_grad_()
            torch.nn.functional.interpolate(leaf, size=size, mode="linear", align_corners=align).sum().backward()

    _replays_match(program, {"upsample_linear1d"}, 2)
    _replays_match(program, {"upsample_linear1d_backward"}, 2)


# -- upsample_bilinear2d backward ------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(2, 20), st.integers(1, 30), st.integers(1, 30)),
    size=st.one_of(st.tuples(st.integers(1, 70), st.integers(1, 70)), st.sampled_from([(1.5, 2.0), (2.0, 3.0)])),
    align=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_upsample_bilinear2d_backward(
    shape: tuple[int, ...], size: tuple, align: bool, seed: int, threads: int
) -> None:
    """F.interpolate(mode="bilinear")'s input gradient, to a size or by scale factors (passed to the op), up
    and down, corners aligned or not, a channels-first gradient of at least two channels (ATen's scalar
    kernel; one channel or one pixel is channels-last contiguous too, and takes the vectorised one)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy((rng.standard_normal(shape) * 5).astype(np.float32)).requires_grad_()
    by_size = isinstance(size[0], int)
    y = torch.nn.functional.interpolate(
        x, mode="bilinear", align_corners=align, **({"size": size} if by_size else {"scale_factor": size})
    )
    go = (rng.standard_normal(tuple(y.shape)) * 3).astype(np.float32)
    if y.shape[2] * y.shape[3] == 1:
        return  # a one-pixel gradient is channels-last contiguous: ATen's vectorised kernel
    y.backward(torch.from_numpy(go.copy()))
    scales = (None, None) if by_size else size
    got = impl_nn.upsample_bilinear2d_backward(go, shape, align, live_profile(), scales)
    assert_bits_equal("grad_input", x.grad.numpy(), got)


@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_mask_resize_replays_from_a_trace(seed: int, threads: int) -> None:
    """SAM's masks, (batch, 3, 16, 16) logits resized bilinearly to the image, traced: every
    upsample_bilinear2d_backward, and those of channels-last gradients (a one-channel mask's, a
    channels-last map's: ATen's vectorised kernel, the same updates per element)."""
    use_threads(threads)
    masks = torch.from_numpy(np.random.default_rng(seed).standard_normal((2, 3, 16, 16)).astype(np.float32))

    def program() -> None:
        low = masks.clone().requires_grad_()
        for size, align in (((64, 64), False), ((40, 24), True), ((9, 9), False)):
            torch.nn.functional.interpolate(low, size=size, mode="bilinear", align_corners=align).pow(
                2
            ).sum().backward()

    _replays_match(program, {"upsample_bilinear2d_backward"}, 3)

    def one_channel() -> None:
        low = masks[:, :1].clone().requires_grad_()
        torch.nn.functional.interpolate(low, size=(32, 32), mode="bilinear", align_corners=False).pow(
            2
        ).sum().backward()

    _replays_match(one_channel, {"upsample_bilinear2d_backward"}, 1)

    def channels_last() -> None:
        low = masks.contiguous(memory_format=torch.channels_last).requires_grad_()
        torch.nn.functional.interpolate(low, size=(37, 21), mode="bilinear", align_corners=True).pow(2).sum().backward()

    _replays_match(channels_last, {"upsample_bilinear2d_backward"}, 1)


# -- cumsum, nn.RMSNorm's element-wise chain, embedding backward, dropout ------------------------

ND_SHAPES = st.lists(st.integers(1, 40), min_size=1, max_size=3).map(tuple)


@SETTINGS
@given(shape=st.one_of(ND_SHAPES, st.just((3, 40000))), seed=SEEDS, threads=THREADS)
def test_cumsum_every_dim(shape: tuple[int, ...], seed: int, threads: int) -> None:
    use_threads(threads)
    x = (np.random.default_rng(seed).standard_normal(shape) * 3).astype(np.float32)
    x.reshape(-1)[0] = -0.0
    for d in range(x.ndim):
        assert_bits_equal(f"cumsum dim {d}", torch.cumsum(torch.from_numpy(x.copy()), d).numpy(), impl_nn.cumsum(x, d))


@SETTINGS
@given(shape=st.one_of(ND_SHAPES, st.just((2, 40000))), seed=SEEDS, threads=THREADS)
def test_pow_and_binary_ops_of_rms_norm(shape: tuple[int, ...], seed: int, threads: int) -> None:
    """pow by 2, 3, -0.5, -1, -2, 1, 0; add, sub, mul, div of broadcast tensors and of numbers."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    y = rng.standard_normal(shape[-1:]).astype(np.float32)
    tx, ty = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
    for e in (2.0, 3.0, -0.5, -1.0, -2.0, 1.0, 0.0):
        assert_bits_equal(f"pow {e}", torch.pow(tx, e).numpy(), impl_nn.pow_scalar(x, e))
    for op in ("add", "sub", "mul", "div"):
        assert_bits_equal(op, getattr(torch, op)(tx, ty).numpy(), impl_nn.binary(op, x, y))
        for s in (-0.5, 8, 1.1920928955078125e-07, 0.3):
            assert_bits_equal(f"{op} {s}", getattr(torch, op)(tx, s).numpy(), impl_nn.binary(op, x, s))


@settings(max_examples=6, deadline=None)
@given(rows=st.integers(1, 9), d=st.sampled_from([8, 13, 64, 100]), seed=SEEDS, threads=st.sampled_from([1, 2, 3]))
def test_rms_norm_and_embedding_replay_from_a_trace(rows: int, d: int, seed: int, threads: int) -> None:
    """nn.RMSNorm (torch 2.13 runs it as pow, mean, add_, rsqrt, mul, mul; its backward as mul, sum, pow,
    div, add) over an nn.Embedding with a padding row, and a cumsum, traced and replayed op by op."""
    use_threads(threads)
    torch.manual_seed(seed % 1000)
    rng = np.random.default_rng(seed)
    emb = torch.nn.Embedding(11, d, padding_idx=3)
    norm = torch.nn.RMSNorm(d)
    with torch.no_grad():
        norm.weight.copy_(torch.from_numpy((1 + 0.1 * rng.standard_normal(d)).astype(np.float32)))
    ids = torch.from_numpy(rng.integers(0, 11, (rows, 5)))

    def program() -> None:
        y = norm(emb(ids))
        (torch.cumsum(y, 1) * y).sum().backward()

    ops = {"pow", "mean", "add", "add_", "rsqrt", "mul", "div", "sum", "cumsum", "embedding_dense_backward"}
    _replays_match(program, ops, 12)


@settings(max_examples=12, deadline=None)
@given(shape=ND_SHAPES, p=st.sampled_from([0.1, 0.5, 0.0, 1.0, 0.9]), seed=SEEDS)
def test_dropout_replays_from_a_trace(shape: tuple[int, ...], p: float, seed: int) -> None:
    """F.dropout in training (bernoulli_, div_, mul) and torch.native_dropout, from the captured generator state."""
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))

    def program() -> None:
        torch.manual_seed(seed % 10000)
        torch.nn.functional.dropout(x, p, training=True)
        torch.native_dropout(x, p, True)

    _replays_match(program, {"bernoulli_", "native_dropout", "div_", "mul"}, 1 if p in (0.0, 1.0) else 4)


def test_bernoulli_into_a_view_draws_in_its_iteration_order() -> None:
    """bernoulli_(p) into a transposed, a channels-last, a column-sliced and an every-other-row view: ATen's
    serial draws walk each in TensorIterator's order (memory order for a dense one), not the logical order."""

    def program() -> None:
        torch.manual_seed(7)
        torch.zeros(5, 7).t().bernoulli_(0.5)
        torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).bernoulli_(0.3)
        torch.zeros(6, 9)[:, 1:8].bernoulli_(0.7)
        torch.zeros(3, 12, 5).transpose(0, 2)[:, ::2].bernoulli_(0.5)

    _replays_match(program, {"bernoulli_"}, 4)


@settings(max_examples=6, deadline=None)
@given(shape=st.one_of(ND_SHAPES, st.just(())), seed=SEEDS)
def test_random_factories_replay_from_a_trace(shape: tuple[int, ...], seed: int) -> None:
    """The random factories models call (SEW's ``torch.rand([])``, DiffLlama's ``torch.normal(0, 0.1,
    size)``, VITS' ``randn_like``, SpeechT5's ``torch.bernoulli(x, p)``) and ``bernoulli_`` into a bool
    tensor (its 0 and 1 in self's dtype), from the captured generator state."""
    like = torch.zeros(shape)

    def program() -> None:
        torch.manual_seed(seed % 10000)
        torch.rand(shape)
        torch.rand_like(like)
        torch.normal(0.25, 0.1, size=shape)
        torch.randn_like(like)
        torch.bernoulli(like, p=0.4)
        torch.empty(shape, dtype=torch.bool).bernoulli_(0.6)

    _replays_match(program, {"rand", "rand_like", "normal", "randn_like", "bernoulli", "bernoulli_"}, 6)


@settings(max_examples=6, deadline=None)
@given(
    start=st.floats(-50, 50), step=st.floats(1e-3, 3), n=st.sampled_from([1, 7, 17, 40, 70_001]), threads=THREADS
)  # fmt: skip
@example(start=0.1, step=0.37, n=70_001, threads=4)  # each thread's chunk restarts the vectors
@example(start=-3.261400654430612e-149, step=1.0, n=17, threads=1)  # a -0 base: AVX2's lane 0 keeps it
def test_range_factories_replay_from_a_trace(start: float, step: float, n: int, threads: int) -> None:
    """arange of floats (Llama's rotary ``arange(0, dim, 2, dtype=float32)``; a long one split between
    threads) and of integers, and linspace (Deformable DETR's sampling offsets; past steps / 2 counted
    from the end)."""
    use_threads(threads)

    def program() -> None:
        torch.arange(start, start + step * n, step)
        torch.arange(0, 16, 2, dtype=torch.float32)
        torch.arange(n)
        torch.arange(1, n + 1, dtype=torch.int32)  # BLOOM's ALiBi positions
        torch.linspace(start, start + step * n, n)

    _replays_match(program, {"arange", "linspace"}, 5)


def test_bfloat16_operands_are_refused_not_taken_for_integers(tmp_path: Path) -> None:
    """A capture holds a bfloat16 tensor's bits as uint16, in a trace file too (Apertus's xIELU takes the log
    and expm1 of bfloat16 scalars as it is built: writing the capture had failed, and the audit with it);
    every replay refuses such an operand in one line (add, exp and masked_fill had given integer arithmetic
    on the bit patterns), a list of them too."""
    x = torch.randn(3, 5).to(torch.bfloat16)
    with recording(capture=list(range(9))) as tracer:
        x + x
        torch.exp(x)
        x.masked_fill(x > 0, 1.5)
        torch._foreach_mul([x, x], 2.0)
        torch.log(torch.tensor(0.3, dtype=torch.bfloat16))
    save(tracer, tmp_path / "bf16.h5")
    trace = read_trace(tmp_path / "bf16.h5")
    replayed = [(i, op) for i, op in enumerate(trace.ops) if packet(op.op) in REPLAYS]
    assert {packet(op.op) for _, op in replayed} >= {"add", "exp", "masked_fill", "_foreach_mul", "log"}
    for i, op in replayed:
        cap = trace.captured[i]
        assert all(a.dtype == np.uint16 for a in cap.inputs.values() if a.dtype != np.bool_)
        with pytest.raises(ParityError, match="does not reproduce bfloat16 arithmetic"):
            replay(op.op, cap.inputs, cap.args, live_profile())


def test_complex_operands_are_refused_where_the_replay_takes_real_ones() -> None:
    """A complex tensor is captured as float32 (re, im) pairs; exp, sum and embedding had taken them for
    real numbers. Refused in one line; complex mul (modelled) still replays."""
    z = torch.randn(3, 5, dtype=torch.complex64)
    with recording(capture=list(range(8))) as tracer:
        torch.exp(z)
        z.sum()
        torch.nn.functional.embedding(torch.tensor([0, 2]), z)
        z * z
    for i, op in enumerate(tracer.ops):
        cap = tracer.captured[i]
        if packet(op.op) == "mul":
            replay(op.op, cap.inputs, cap.args, live_profile())
        elif packet(op.op) in REPLAYS:
            with pytest.raises(ParityError, match=r"of real tensors only: its .* is complex64"):
                replay(op.op, cap.inputs, cap.args, live_profile())


@settings(max_examples=6, deadline=None)
@given(shape=ND_SHAPES, seed=SEEDS)
def test_rsub_replays_from_a_trace(shape: tuple[int, ...], seed: int) -> None:
    """``1 - mask`` (BLOOM), ``rsub`` of two tensors with NaN and infinities among them, and of an integer
    tensor: ATen's sub with the operands swapped."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:3] = np.array([np.nan, np.inf, -0.0], np.float32)[: x.size]
    tx, ty = torch.from_numpy(x), torch.from_numpy(rng.standard_normal(shape).astype(np.float32))

    def program() -> None:
        torch.rsub(tx, 1)
        torch.rsub(tx, ty)
        torch.rsub(torch.from_numpy(rng.integers(-9, 9, shape)), 3)

    _replays_match(program, {"rsub"}, 3)


@settings(max_examples=10, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(1, 300), st.integers(1, 12), st.integers(1, 12)),
    cl=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_global_average_pool_replays_as_mean_in_memory_order(
    shape: tuple[int, ...], cl: bool, seed: int, threads: int
) -> None:
    """nn.AdaptiveAvgPool2d((1, 1)) (ResNet's pooler) is mean over H and W; on a channels-last input
    TensorIterator reduces in memory order, which the replay follows (NHWC as a contiguous tensor)."""
    use_threads(threads)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)

    def program() -> None:
        torch.nn.functional.adaptive_avg_pool2d(x, (1, 1))
        x.sum(dim=(0, 2, 3))

    _replays_match(program, {"mean", "sum"}, 2)


def test_two_nans_with_other_payloads_are_refused_where_numpy_would_keep_the_other_one() -> None:
    """ATen's add and sub keep the second operand's NaN where both are NaN (its fused ``a + 1*b``),
    NumPy the first's in some lanes (which, its CPU dispatch decides): the impl refuses such elements in one
    line; NaNs of one payload (quieted) and a NaN beside a number keep that NaN, as ATen's do."""
    first = np.full(40, 0x7FC00001, np.uint32).view(np.float32)
    second = np.full(40, 0xFFC00002, np.uint32).view(np.float32)
    got = torch.add(torch.from_numpy(first), torch.from_numpy(second)).numpy()
    assert (got.view(np.uint32) == 0xFFC00002).all()  # torch's NaN: the second's
    assert ((first[:1] + second[:1]).view(np.uint32) == 0x7FC00001).all()  # NumPy's: the first's (one lane)
    for op in ("add", "sub", "mul", "div"):
        with pytest.raises(ParityError, match=f"^{op} of two NaNs with other payloads .*: refused$"):
            impl_nn.binary(op, np.float32([1, 2, 3]) * first[:3], second[:1])
    signalling = np.full(3, 0x7F800001, np.uint32).view(np.float32)  # quieted: 0x7fc00001, the first's
    same = np.concatenate([first[:3], signalling, np.float32([2.5])])
    other = np.concatenate([signalling, first[:3], np.float32([np.nan])])
    for op in ("add", "mul"):
        torch_op = getattr(torch, op)
        want = torch_op(torch.from_numpy(same), torch.from_numpy(other)).numpy()
        assert_bits_equal(op, want, impl_nn.binary(op, same, other))


# -- nll_loss2d, prelu, cdist --------------------------------------------------------------------


def _nan(bits: int, n: int) -> np.ndarray:
    return np.full(n, bits, np.uint32).view(np.float32)


def test_segmentation_losses_replay_nll_loss2d_from_a_trace() -> None:
    """A segmentation head's losses: cross_entropy of (N, C, H, W) logits (log_softmax, nll_loss2d) with class
    weights and ignored pixels, mean, sum and none, and nll_loss of a 3-D input (viewed (N, C, 1, L)) past the
    cascade's first level; every nll_loss2d_forward and backward traced and replayed."""
    rng = np.random.default_rng(7)
    logits = torch.from_numpy(rng.standard_normal((2, 5, 13, 11)).astype(np.float32) * 3)
    target = torch.from_numpy(rng.integers(0, 5, (2, 13, 11)))
    target[0, :3] = 255
    weight = torch.from_numpy(rng.random(5).astype(np.float32))
    flat = torch.from_numpy(rng.standard_normal((3, 4, 700)).astype(np.float32))

    def program() -> None:
        x = logits.clone().requires_grad_(True)
        for reduction in ("mean", "sum", "none"):
            loss = torch.nn.functional.cross_entropy(x, target, weight, ignore_index=255, reduction=reduction)
            loss.sum().backward()
        y = flat.clone().requires_grad_(True)
        torch.nn.functional.nll_loss(y, torch.from_numpy(rng.integers(0, 4, (3, 700)))).backward()

    _replays_match(program, {"nll_loss2d_forward", "nll_loss2d_backward"}, 8)


def test_unreduced_nll_loss_of_a_batch_replays_from_a_trace() -> None:
    """LXMERT's per-region losses: cross_entropy of (B, C) logits with reduction none (nll_loss_forward's
    per-row ``-x[i][t] * w[t]``, 0 where ignored) with and without class weights, NaNs of both signs and a
    signalling one among the log-probabilities, and its backward (``-w[t] * grad[i]``)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((37, 9)).astype(np.float32)
    x.flat[[4, 40, 77]] = np.array([0x7FC00001, 0xFFC00002, 0x7FA00003], np.uint32).view(np.float32)
    target = torch.from_numpy(rng.integers(0, 9, 37))
    target[[3, 20]] = -100
    weight = torch.from_numpy(rng.random(9).astype(np.float32))
    g = torch.from_numpy(rng.standard_normal(37).astype(np.float32))

    def program() -> None:
        for w in (None, weight):
            y = torch.from_numpy(x).requires_grad_(True)
            torch.nn.functional.nll_loss(y, target, w, reduction="none").backward(g)

    _replays_match(program, {"nll_loss_forward", "nll_loss_backward"}, 4)


def test_prelu_replays_from_a_trace_with_nans_in_input_and_weight() -> None:
    """PReLU of one and of many channels, its weight broadcast along H*W (the vectorized loop reads it as a
    scalar: where input and weight are both NaN the AVX2 object's vector body keeps the weight's NaN, the
    scalar tail the input's), and its backward (the weight's gradient is its own sum op)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    x[0, 1].flat[[0, 17, 33, 34]] = _nan(0x7FC00011, 4)  # in the body of 16 and in the tail of 35
    one, many = torch.nn.PReLU(), torch.nn.PReLU(3)
    with torch.no_grad():
        many.weight.copy_(torch.from_numpy(np.float32([0.25, np.nan, -0.5])))
        many.weight.view(torch.int32)[1] = -0x7FFFFE  # 0xff800002: a signalling NaN of the other sign
    g = torch.from_numpy(rng.standard_normal((2, 3, 5, 7)).astype(np.float32))

    def program() -> None:
        for layer in (one, many):
            layer(torch.from_numpy(x).requires_grad_(True)).backward(g)

    _replays_match(program, {"_prelu_kernel", "_prelu_kernel_backward"}, 4)


def test_cdist_replays_its_own_kernel_and_the_matrix_product_from_a_trace() -> None:
    """torch.cdist of feature sets (a matcher's descriptors): p = 2 with 13 columns (the AVX2 object contracts
    the last 13 % 4 squares of each sum) below 25 rows (its own kernel) and above (``_euclidean_dist``), p = 1
    and inf, batched, one NaN; every _cdist_forward, _cdist_backward and _euclidean_dist traced and replayed."""
    rng = np.random.default_rng(5)
    a, b = (torch.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in ((2, 9, 13), (2, 30, 13)))
    a[1, 4, 11] = float("nan")  # sign of a NaN difference: the all-ones NaN in the AVX2 object, the NaN at default

    def program() -> None:
        x1, x2 = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
        for p in (2.0, 1.0, float("inf")):
            torch.cdist(x1, x2[:, :7], p=p).sum().backward()
        torch.cdist(x1, x2).sum()

    _replays_match(program, {"_cdist_forward", "_cdist_backward", "_euclidean_dist"}, 10)


def test_cdist_of_other_p_replays_from_a_trace() -> None:
    """torch.cdist of p = 0.5, 1.5, 3 and 4.5 (glibc's powf per term, glibc's double pow finishing each sum; the
    backward's Vectorized pow for p < 2 and p > 2, with zero distances): every _cdist_forward and _cdist_backward
    traced and replayed."""
    rng = np.random.default_rng(11)
    a, b = (torch.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in ((2, 9, 13), (2, 7, 13)))
    b[:, 0] = a[:, 0]  # zero differences and a zero distance
    b[1, 2, 5] = float("inf")

    def program() -> None:
        x1, x2 = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
        for p in (0.5, 1.5, 3.0, 4.5):
            torch.cdist(x1, x2, p=p).sum().backward()

    _replays_match(program, {"_cdist_forward", "_cdist_backward"}, 12)
