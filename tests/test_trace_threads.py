"""parity trace of a program that changes its intra-op thread count as it runs: the count of each
stretch of ops, kept by the recorder, read back, and used where an op is explained and replayed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.core.digest import digest
from harness.core.errors import FixtureError
from harness.formats.trace import Captured, OpRecord, TensorRef, Trace, read_trace, write_trace
from harness.trace.diff import diff_traces

torch = pytest.importorskip("torch")

from harness.trace.recorder import tracing  # noqa: E402


@pytest.fixture
def one_thread(restore_threads: None) -> None:
    """This process at 1 thread for the test (and at its own count after)."""
    torch.set_num_threads(1)


def test_the_recorder_keeps_the_count_of_each_stretch_of_ops(tmp_path: Path, backend: str, one_thread: None) -> None:
    x = torch.ones(10)
    with tracing(tmp_path / "t.h5") as tracer:
        torch.set_num_threads(2)  # before any op: the count the first stretch runs at
        y = x * 2
        torch.set_num_threads(1)
        z = y + 1
        torch.set_num_threads(2)
        torch.set_num_threads(1)  # there and back with no op between: no stretch
        w = z.sum()
        torch.set_num_threads(2)
        v = w * 3
    assert tracer.backend == backend, tracer.backend_note
    assert torch.set_num_threads(1) is None and torch.get_num_threads() == 1  # torch's own function again
    trace = read_trace(tmp_path / "t.h5")
    assert [op.op for op in trace.ops] == ["aten.mul.Tensor", "aten.add.Tensor", "aten.sum.default", "aten.mul.Tensor"]
    assert trace.thread_counts == [(0, 2), (1, 1), (3, 2)]
    assert [trace.threads_at(i) for i in range(4)] == [2, 1, 1, 2]
    assert trace.provenance["threads"] == 2 and "thread_note" not in trace.attrs
    assert float(v) == 90.0


def test_a_program_that_keeps_its_count_has_one_stretch_and_older_traces_read_as_before(
    tmp_path: Path, one_thread: None
) -> None:
    with tracing(tmp_path / "t.h5"):
        torch.ones(3).exp()
    assert read_trace(tmp_path / "t.h5").thread_counts == [(0, 1)]
    older = tmp_path / "older.h5"  # written before traces held thread_counts: the provenance's count
    write_trace(older, {"provenance": {"threads": 3}}, [_op(0, b"1" * 32)], {})
    assert read_trace(older).thread_counts == [(0, 3)] and read_trace(older).threads_at(0) == 3


def test_a_count_changed_where_the_recorder_cannot_see_it_is_said(tmp_path: Path, one_thread: None) -> None:
    set_num_threads = torch.set_num_threads  # taken before the trace begins: never seen by it
    with tracing(tmp_path / "t.h5"):
        torch.ones(3).exp()
        set_num_threads(2)
        torch.ones(3).exp()
    trace = read_trace(tmp_path / "t.h5")
    note = trace.attrs["thread_note"]
    assert note.startswith("the intra-op thread count was 2 when the trace was written, 1 as the recorder last saw")
    assert trace.thread_counts == [(0, 1)]
    assert any(n == f"B: {note}" for n in diff_traces(trace, trace).notes)


@pytest.mark.parametrize(
    "counts", [[[1, 2]], [[0, 0]], [[0, 1], [0, 2]], [[0, 1], [5, 2], [3, 1]], "2", [[0, 1.5]], [[0]], []]
)
def test_damaged_thread_counts_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], counts: object
) -> None:
    bad = tmp_path / "bad.h5"
    write_trace(bad, {"provenance": {}, "thread_counts": counts}, [_op(0, b"1" * 32)], {})
    with pytest.raises(FixtureError, match="thread_counts is not a list of"):
        read_trace(bad)
    good = tmp_path / "good.h5"
    write_trace(good, {"provenance": {}}, [_op(0, b"1" * 32)], {})
    assert main(["diff", str(good), str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "thread_counts" in err[0]


_PROGRAM = """
import sys

import numpy as np
import torch

torch.set_num_threads(1)
rng = np.random.default_rng(0)
ln = torch.nn.LayerNorm(300)
with torch.no_grad():
    ln.weight.copy_(torch.from_numpy(rng.standard_normal(300).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((64, 300)).astype(np.float32))
c = torch.from_numpy(rng.standard_normal((64, 300)).astype(np.float32))
opt = torch.optim.SGD(ln.parameters(), lr=0.1)
torch.set_num_threads(int(sys.argv[1]))  # the backward's weight gradient sums one buffer row per thread
loss = (ln(x) * c).sum()
loss.backward()
torch.set_num_threads(1)
opt.step()
"""


def test_a_cause_is_explained_and_proven_at_the_count_its_op_ran_at(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Both programs end at 1 thread, so their provenance is alike; B ran its backward at 2. The root
    cause (LayerNorm's weight gradient) is named with the thread count as its knob, and the impl
    proves it at the counts the op ran at."""
    program = tmp_path / "train.py"
    program.write_text(_PROGRAM)
    runs = {}
    for threads in (1, 2):
        runs[threads] = tmp_path / f"t{threads}.h5"
        assert main(["trace", "--out", str(runs[threads]), "--", sys.executable, str(program), str(threads)]) == 0
    assert read_trace(runs[1]).thread_counts == [(0, 1)]
    counts = read_trace(runs[2]).thread_counts
    assert [c for _, c in counts] == [1, 2, 1]
    stretches = f"1 from op 0, 2 from op {counts[1][0]}, 1 from op {counts[2][0]}"
    assert f"the program changed its intra-op thread count: {stretches}" in capfd.readouterr().err
    report = tmp_path / "diff.json"
    assert main(["diff", str(runs[1]), str(runs[2]), "--verify-cause", "--output", str(report)]) == 1
    data = json.loads(report.read_text())
    root = data["root_cause"]
    assert (root["op"], root["phase"]) == ("aten.native_layer_norm_backward.default", "backward")
    assert counts[1][0] <= root["index_b"] < counts[2][0]
    assert root["knobs"] == ["threads"] and root["verified"] is True, root["verification"]
    assert " t1 for A, " in root["verification"] and " t2 for B" in root["verification"]
    stretches = f"1 (ops 0-{counts[1][0] - 1}), 2 (ops {counts[1][0]}-{counts[2][0] - 1}), 1 (from op {counts[2][0]})"
    assert data["platforms"]["threads"] == ["1", stretches]
    assert any(n.startswith("B's program changed its intra-op thread count as it ran") for n in data["notes"])


def _op(index: int, out: bytes, op: str = "aten.mm.default") -> OpRecord:
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    return OpRecord(index, op, "m", "x.py:1", "forward", 1, "", [x], [TensorRef("out", out, "float32", (2,), 0.0)])


@pytest.mark.parametrize("blas", ["mklavx2", "mklgeneric"])
def test_a_cause_the_impl_does_not_give_after_a_change_says_why_on_mkls_intel_paths(
    monkeypatch: pytest.MonkeyPatch, blas: str
) -> None:
    """B changed its count from 1 to 2 before the root cause op: the impl is asked for the op at 2
    threads. Where it does not give B's bits and B's MKL took an Intel path, the verdict names the
    thread history (a pool thread keeps its first MKL count); on the generic path it does not."""
    from harness.impl import profiles
    from harness.trace import cause as cause_module
    from harness.trace import impl_ops

    asked: list[int] = []

    def replay(op: str, inputs: dict, args: list, profile: profiles.KernelProfile) -> dict:
        asked.append(profile.threads)
        return {"out": np.float32([1.0, 2.0])}

    monkeypatch.setattr(impl_ops, "replay", replay)
    got = digest(np.float32([1.0, 2.0]), "mix256-v1")
    prov = {"capability": "AVX2", "threads": 1, "arch": "x86_64", "platform_id": f"linux-x86_64-avx2-{blas}-t1"}
    a = Trace(Path("a.h5"), {"provenance": prov, "digest": "mix256-v1"}, [_op(0, b"0" * 32), _op(1, got)])
    b_attrs = {"provenance": prov, "digest": "mix256-v1", "thread_counts": [[0, 1], [1, 2]]}
    b = Trace(Path("b.h5"), b_attrs, [_op(0, b"0" * 32), _op(1, b"2" * 32)])
    diff = diff_traces(a, b)
    cause = cause_module.explain(diff)
    assert cause is not None and cause.knobs == ["threads"] and cause.differing["threads"] == ("1", "2")
    verified, text, _ = cause_module.replay_verdict(diff, cause, Captured({"in0": np.float32([1, 1])}, {}, []))
    assert not verified and asked == [1, 2]
    hint = "side B's program changed its thread count before this op (at op 1), and on MKL's Intel paths"
    assert (hint in text) is (blas == "mklavx2"), text
