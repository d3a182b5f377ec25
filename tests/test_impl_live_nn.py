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
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.impl import nn as impl_nn
from harness.trace.impl_ops import packet, replay
from harness.trace.recorder import recording
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
    """The GRU language model's recurrent cell (zoo/gru.py), traced: every sigmoid_ and sigmoid_backward."""
    use_threads(threads)
    torch.manual_seed(seed % 1000)
    gru = torch.nn.GRU(32, hidden, num_layers=2, batch_first=True)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal((4, 3, 32)).astype(np.float32))

    def program() -> None:
        out, _ = gru(x.clone().requires_grad_(True))
        out.sum().backward()

    _replays_match(program, {"sigmoid_", "sigmoid_backward"}, 12)


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


KERNEL_OPS_BN = ("native_batch_norm", "_native_batch_norm_legit", "_batch_norm_with_update",
                 "native_batch_norm_backward", "batch_norm_backward")  # fmt: skip
