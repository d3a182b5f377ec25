"""Live: ops of real models, recorded by ``parity trace`` and replayed through the impl, bit for bit.

A small program runs under the recorder with every op captured; each captured op that
harness/trace/impl_ops.py ``REPLAYS`` and the program is about is run again through the impl under
the running torch's profile (``--verify-cause``'s path), and its outputs must be the traced ones.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.trace.impl_ops import packet, replay
from harness.trace.recorder import recording
from tests.impl_live import (
    THREADS,
    assert_bits_equal,
    live_profile,
    needs_modelled_mkl,
    needs_verified_profile,
    use_threads,
)

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
        F.silu(x.clone(), inplace=True)  # nn.SiLU(inplace=True)

    _replays_match(backend, program, {"silu", "silu_", "silu_backward"}, 3)


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


@needs_modelled_mkl  # small convolutions run ATen's im2col and MKL's sgemm
@backends
@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1, 4),
    c=st.integers(1, 20),
    o=st.integers(1, 36),
    w=st.integers(4, 60),
    k=st.integers(1, 10),
    stride=st.integers(1, 5),
    padding=st.integers(0, 3),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_one_dimensional_convolution_replays(
    backend: str, n: int, c: int, o: int, w: int, k: int, stride: int, padding: int, bias: bool, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """``nn.Conv1d`` (Whisper's and Wav2Vec2's front ends): ATen runs it as the 2-D convolution of
    (N, C, 1, W) with stride (1, s) and padding (0, p), forward and every gradient."""
    from harness.impl import conv

    k = min(k, w + 2 * padding)
    x4, w4, s2, p2 = (n, c, 1, w), (o, c, 1, k), (1, stride), (0, padding)
    profile = live_profile()
    geometry = conv._geometry(x4, w4, s2, p2)
    if any(conv.unmodelled_passes(geometry, conv.path(x4, w4, s2, p2, profile), profile)):
        return  # ip_convolution, refused (docs/impl/kernels.md)
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, c, w)).astype(np.float32))
    layer = torch.nn.Conv1d(c, o, k, stride=stride, padding=padding, bias=bias)

    def program() -> None:
        y = layer(x.clone().requires_grad_(True))
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@backends
@settings(max_examples=6, deadline=None)
@given(
    n=st.integers(1, 3),
    c=st.sampled_from([8, 13, 32]),
    size=st.integers(5, 14),
    stride=st.integers(1, 2),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_depthwise_convolution_replays(
    backend: str, n: int, c: int, size: int, stride: int, bias: bool, seed: int, threads: int
) -> None:
    """MobileNetV2's 3x3 depthwise convolution (``groups`` = channels, padding 1): the traced
    ``convolution`` and ``convolution_backward`` replay with their ``groups``, every pass the impl
    models (harness.impl.conv_grouped)."""
    from harness.impl import conv_grouped

    use_threads(threads)
    kinds = conv_grouped.path((n, c, size, size), (c, 1, 3, 3), (stride, stride), (1, 1), c, live_profile())
    if any(kind.startswith("refuse:") for kind in kinds):
        return  # SSE4.1's gemm:jit grad_weight (channels not a multiple of 8): refused
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, c, size, size)).astype(np.float32))
    layer = torch.nn.Conv2d(c, c, 3, stride=stride, padding=1, groups=c, bias=bias)

    def program() -> None:
        y = layer(x.clone().requires_grad_(True))
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@backends
@settings(max_examples=5, deadline=None)
@given(
    layers=st.integers(1, 2),
    bidirectional=st.booleans(),
    batch_first=st.booleans(),
    bias=st.booleans(),
    sizes=st.tuples(st.integers(1, 6), st.integers(2, 9), st.integers(1, 20), st.integers(1, 40)),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_lstm_layers_replay(
    backend: str, layers: int, bidirectional: bool, batch_first: bool, bias: bool, sizes: tuple, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """nn.LSTM in training (its parameters need gradients), forward and backward: every
    ``mkldnn_rnn_layer`` and ``mkldnn_rnn_layer_backward`` it runs, one per layer and direction (the
    reverse one right to left), replays through harness.impl.rnn."""
    use_threads(threads)
    t_len, batch, n_in, hidden = sizes
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed % 1000)
    lstm = torch.nn.LSTM(n_in, hidden, layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional)
    shape = (batch, t_len, n_in) if batch_first else (t_len, batch, n_in)
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    grad = torch.from_numpy(rng.standard_normal((*shape[:2], hidden * (1 + bidirectional))).astype(np.float32))

    def program() -> None:
        out, (hy, _cy) = lstm(x)
        loss = (out * grad).sum() if seed % 2 else out.sum() + hy.sum()  # without, then with grad_hy
        loss.backward()

    ops = {"mkldnn_rnn_layer", "mkldnn_rnn_layer_backward"}
    _replays_match(backend, program, ops, 2 * layers * (1 + bidirectional))


# programs whose first difference between the avx2 and baseline builds is one op the impl replays
# (``data(shape, seed)``: fixed inputs that no torch generator draws)
PROGRAMS = {
    "aten.uniform_.default": "w = torch.empty(64, 48)\ntorch.nn.init.kaiming_uniform_(w, a=5 ** 0.5)\nw.sum()\n",
    "aten.randn.default": "torch.randn(7, 33).sum()\n",
    "aten.silu.default": "y = torch.nn.functional.silu(data((40, 70), 0))\n",  # its sum may come out equal
    "aten.convolution.default": "torch.nn.functional.conv1d(data((2, 8, 30), 2), data((16, 8, 3), 3), padding=1)\n",
    "aten.mkldnn_rnn_layer.default": "lstm = torch.nn.LSTM(8, 16, batch_first=True)\nwith torch.no_grad():\n"
    "    for i, w in enumerate(lstm.parameters()):\n        w.copy_(data(tuple(w.shape), 5 + i) * 0.3)\n"
    "lstm(data((3, 5, 8), 4))[0].sum()\n",
    "aten._safe_softmax.default": "q = data((2, 2, 9, 16), 1)\nm = torch.ones(9, 9, dtype=torch.bool).tril()\n"
    "m[3] = False\ntorch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m, dropout_p=0.1).sum()\n",
}
# the knob each reports: the capability, but oneDNN's ISA for what oneDNN computes
KNOB = {"aten.convolution.default": "onednn_isa", "aten.mkldnn_rnn_layer.default": "onednn_isa"}
PRELUDE = """import numpy as np
import torch


def data(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape, np.float32))


torch.manual_seed(0)
"""


# the programs whose products are MKL's: on MKL's Intel paths (another at each level) a product parts first
MKL_PROGRAMS = {"aten._safe_softmax.default"}


@pytest.mark.parametrize(
    "op", [pytest.param(op, marks=[needs_modelled_mkl] if op in MKL_PROGRAMS else []) for op in sorted(PROGRAMS)]
)
def test_avx2_vs_baseline_root_cause_is_verified_by_the_impl(
    op: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``parity trace`` the program under the avx2 and baseline builds, ``parity diff --verify-cause``:
    the root cause is the op, its knob the capability (oneDNN's ISA), and the impl's replay under each side's profile
    gives each side's bits."""
    from harness.cli import main
    from harness.platform.config import collect_facts, supported_levels

    if not {"avx2", "baseline"} <= {level.name for level in supported_levels(collect_facts())}:
        pytest.skip("needs a CPU with AVX2")
    script = tmp_path / "program.py"
    script.write_text(PRELUDE + PROGRAMS[op], encoding="utf-8")
    traces = []
    for level in ("avx2", "baseline"):
        traces.append(tmp_path / f"{level}.h5")
        argv = ["trace", "--platform", f"linux-x86_64-{level}-t1", "--out", str(traces[-1])]
        assert main([*argv, "--", sys.executable, str(script)]) == 0
    report = tmp_path / "diff.json"
    assert main(["diff", *map(str, traces), "--verify-cause", "--output", str(report)]) == 1
    capsys.readouterr()
    root = json.loads(report.read_text(encoding="utf-8"))["root_cause"]
    assert (root["op"], root["knobs"]) == (op, [KNOB.get(op, "capability")])
    assert root["verified"] is True, root["verification"]
