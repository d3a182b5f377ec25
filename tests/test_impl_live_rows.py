"""Live parity of harness.impl.rows: torch, run now in this process, against the impl, bit for bit.

Random row counts and row lengths around the vector widths (8 and 16 lanes) and layer_norm's
Welford chunking (16 vectors per chunk, cascades of depth > 1 past 256 elements), under one
thread and under the running torch's thread count (the softmax backward's FMA pattern and
layer_norm's per-thread dgamma/dbeta buffers depend on it).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.impl import rows
from tests.impl_live import assert_bits_equal, live_profile, needs_verified_profile

pytestmark = needs_verified_profile

SETTINGS = settings(max_examples=25, deadline=None)
ROWS = st.integers(1, 40)
LENGTHS = st.one_of(st.integers(1, 70), st.integers(70, 1100))
SEEDS = st.integers(0, 2**32 - 1)
THREADS = st.sampled_from([1, 0])  # 0: leave torch's thread count as it is


@pytest.fixture(autouse=True)
def _restore_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def _threads(n: int) -> None:
    if n:
        torch.set_num_threads(n)


def _normal(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _t(a: np.ndarray, grad: bool = False) -> torch.Tensor:
    return torch.from_numpy(a.copy()).requires_grad_(grad)


@SETTINGS
@given(m=ROWS, n=LENGTHS, seed=SEEDS, threads=THREADS)
def test_layer_norm(m: int, n: int, seed: int, threads: int) -> None:
    _threads(threads)
    rng = np.random.default_rng(seed)
    x, g = _normal(rng, (m, n), 2.0), _normal(rng, (m, n))
    w, b = (1.0 + _normal(rng, (n,), 0.1)).astype(np.float32), _normal(rng, (n,), 0.1)
    tx, tw, tb = _t(x, True), _t(w, True), _t(b, True)
    out = F.layer_norm(tx, (n,), tw, tb, eps=1e-5)
    out.backward(_t(g))
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
    _threads(threads)
    rng = np.random.default_rng(seed)
    x, g = _normal(rng, (m, n), 3.0), _normal(rng, (m, n))
    if masked:
        x[rng.random((m, n)) < masked] = -np.inf
        x[0] = -np.inf
    tx = _t(x, True)
    out = (F.log_softmax if log else F.softmax)(tx, dim=-1)
    out.backward(_t(g))
    profile = live_profile()
    forward, backward = (rows.log_softmax, rows.log_softmax_backward) if log else (rows.softmax, rows.softmax_backward)
    y = forward(x, profile)
    assert_bits_equal("out", out.detach().numpy(), y)
    assert_bits_equal("grad_x", tx.grad.numpy(), backward(g, y, profile))


@SETTINGS
@given(b=st.integers(1, 600), c=st.integers(2, 130), seed=SEEDS, threads=THREADS, ignore=st.sampled_from([0, 3, 9]))
def test_cross_entropy(b: int, c: int, seed: int, threads: int, ignore: int) -> None:
    _threads(threads)
    rng = np.random.default_rng(seed)
    logits = _normal(rng, (b, c), 2.0)
    targets = rng.integers(0, c, b).astype(np.int64)
    if ignore:
        targets[rng.random(b) < 1.0 / ignore] = -1
    grad = np.float32(rng.standard_normal())
    tl = _t(logits, True)
    loss = F.cross_entropy(tl, torch.from_numpy(targets), ignore_index=-1)
    loss.backward(torch.tensor(grad))
    profile = live_profile()
    out, lsm, total = rows.cross_entropy(logits, targets, profile, ignore_index=-1)
    assert_bits_equal("out", loss.detach().numpy(), out)
    got = rows.cross_entropy_backward(grad, lsm, targets, total, profile, ignore_index=-1)
    assert_bits_equal("grad_logits", tl.grad.numpy(), got)
