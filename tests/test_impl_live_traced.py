"""Live: ops of real models, recorded by ``parity trace`` and replayed through the impl, bit for bit.

A small program runs under the recorder with every op captured; each captured op that
harness/trace/impl_ops.py ``REPLAYS`` and the program is about is run again through the impl under
the running torch's profile (``--verify-cause``'s path), and its outputs must be the traced ones.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from unittest import mock

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.trace.impl_ops import packet, replay
from harness.trace.recorder import recording
from tests.impl_live import THREADS, assert_bits_equal, live_profile, needs_verified_profile, use_threads

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

# through the dispatcher hook (csrc/hook.cpp) or through Python's dispatch mode
backends = pytest.mark.parametrize("backend", ["dispatcher-hook", "dispatch-mode"])


def _replays_match(backend: str, program: Callable[[], object], ops: set[str], least: int) -> None:
    """Trace ``program`` with every op captured; replay those of ``ops``; at least ``least`` of them."""
    hook = "1" if backend == "dispatcher-hook" else "0"
    with mock.patch.dict(os.environ, {"PARITY_TRACE_HOOK": hook}), recording(capture=list(range(400))) as tracer:
        program()
    assert tracer.backend == backend, tracer.backend_note
    profile = live_profile()
    seen = 0
    for index, op in enumerate(tracer.ops):
        if packet(op.op) not in ops:
            continue
        cap = tracer.captured[index]
        got = replay(op.op, cap.inputs, cap.args, profile)
        assert sorted(got) == sorted(cap.outputs), op.op
        for name, value in got.items():
            assert_bits_equal(f"{op.op} {name} (op {index})", cap.outputs[name], value.reshape(cap.outputs[name].shape))
        seen += 1
    assert seen >= least, f"{seen} of {sorted(ops)} replayed, expected at least {least}"


SHAPES = st.lists(st.integers(1, 70), min_size=1, max_size=3).map(tuple)


@backends
@settings(max_examples=6, deadline=None)
@given(
    shape=st.one_of(SHAPES, st.sampled_from([(40, 1000), (3, 33000)])), seed=st.integers(0, 2**32 - 1), threads=THREADS
)
def test_silu_forward_and_backward_replay(backend: str, shape: tuple[int, ...], seed: int, threads: int) -> None:
    use_threads(threads)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 4)

    def program() -> None:
        xt = x.clone().requires_grad_(True)
        y = F.silu(xt)
        y.backward(torch.ones_like(y) * 0.5)

    _replays_match(backend, program, {"silu", "silu_backward"}, 2)


@backends
@settings(max_examples=6, deadline=None)
@given(shape=st.one_of(SHAPES, st.sampled_from([(768, 64), (3, 11, 1000)])), seed=st.integers(0, 2**32 - 1))
def test_initialisers_replay_from_the_captured_generator_state(backend: str, shape: tuple[int, ...], seed: int) -> None:
    """uniform_, normal_ and randn of any size, as nn.init and model code call them; trunc_normal_'s
    redraws included."""

    def program() -> None:
        torch.manual_seed(seed)
        w = torch.empty(shape)
        if len(shape) >= 2:
            torch.nn.init.kaiming_uniform_(w, a=5**0.5)
            torch.nn.init.xavier_normal_(w)
        torch.nn.init.uniform_(w, -0.1, 0.3)
        torch.nn.init.trunc_normal_(w, std=1.0, a=-0.5)
        torch.nn.init.normal_(w, std=0.02)
        torch.randn(shape)

    _replays_match(backend, program, {"uniform_", "normal_", "randn"}, 4)


def test_a_random_op_on_a_strided_tensor_is_refused() -> None:
    """ATen fills a non-contiguous tensor element by element (normal_: with its scalar sampler): not
    what the impl draws, so the replay says so instead of giving other bits."""
    from harness.core.errors import ParityError

    torch.manual_seed(3)
    w = torch.empty(40, 30).t()
    with recording(capture=[0]) as tracer:
        w.normal_()
    cap = tracer.captured[0]
    assert tracer.ops[0].op == "aten.normal_.default"
    with pytest.raises(ParityError, match="contiguous"):
        replay(tracer.ops[0].op, cap.inputs, cap.args, live_profile())


@backends
@settings(max_examples=6, deadline=None)
@given(
    b=st.integers(1, 2),
    heads=st.integers(1, 3),
    t=st.integers(1, 40),
    d=st.sampled_from([8, 16, 24]),
    seed=st.integers(0, 2**32 - 1),
    threads=THREADS,
)
def test_masked_attention_replays(backend: str, b: int, heads: int, t: int, d: int, seed: int, threads: int) -> None:
    """SDPA's math path with a boolean mask that masks whole queries (``_safe_softmax``, its backward
    ``_softmax_backward_data``), and a mask applied by hand as models write it (``masked_fill`` with
    ``-inf``, ``torch.where``)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    q = torch.from_numpy(rng.standard_normal((b, heads, t, d)).astype(np.float32))
    mask = torch.from_numpy(rng.random((t, t)) < 0.7) & torch.ones(t, t, dtype=torch.bool).tril()
    mask[rng.integers(0, t)] = False

    def program() -> None:
        qt = q.clone().requires_grad_(True)
        torch.manual_seed(seed)
        out = F.scaled_dot_product_attention(qt, qt, qt, attn_mask=mask, dropout_p=0.2)
        scores = (qt @ qt.transpose(-2, -1)).masked_fill(~mask, float("-inf"))
        kept = torch.where(mask, scores, torch.zeros(()))
        (out.sum() + torch.softmax(scores, -1).sum() + kept.sum()).backward()

    _replays_match(backend, program, {"_safe_softmax", "_softmax_backward_data", "masked_fill", "where"}, 4)
