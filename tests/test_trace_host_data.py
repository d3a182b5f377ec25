"""Data made outside torch's ops: ``torch.tensor`` or ``torch.from_numpy`` of NumPy or Python data
(ATen's ``lift_fresh``).

Its output is fingerprinted and it is the writer of what it made, so a mask drawn from NumPy's
unseeded state is a root at the line that handed it to torch ("host-data"), shown by the trace,
not an input "no traced op wrote". The synthetic traces are made by hand (as in
test_trace_data_flow.py); the live test traces a program twice under both recorders.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.cli import main
from harness.formats.trace import SOURCES_SINCE, OpRecord, TensorRef, Trace
from harness.trace.cause import diagnose
from harness.trace.report import render

LIFT = "aten.lift_fresh.default"


def _op(i: int, op: str, ins: list[tuple[str, bytes, int]], outs: list[tuple[str, bytes]]) -> OpRecord:
    refs_in = [TensorRef(n, d * 32, "float32", (4,), 0.0, bool(d.strip(b"\0")), src) for n, d, src in ins]
    refs_out = [TensorRef(n, d * 32, "float32", (4,), 0.0) for n, d in outs]
    return OpRecord(i, op, "m", f"x.py:{i + 1}", "forward", 1, "", refs_in, refs_out)


def _trace(ops: list[OpRecord]) -> Trace:
    return Trace(Path("t.h5"), {"provenance": {}, "trace_version": SOURCES_SINCE}, ops)


def _program(mask: bytes, overwritten: bool = False) -> list[OpRecord]:
    """Op 0 makes a tensor of host data (``mask``), op 1 multiplies x by it (or, ``overwritten``, op 1
    fills it before anything reads it), op 2 sums: the result."""
    made = _op(0, LIFT, [("self", b"\0", -1)], [("out", mask)])
    if overwritten:
        return [made, _op(1, "aten.fill_.Scalar", [("self", b"\0", 0)], [("out", b"f")]),
                _op(2, "aten.sum.default", [("self", b"f", 1)], [("out", b"s")])]  # fmt: skip
    return [made, _op(1, "aten.mul.Tensor", [("self", b"x", -1), ("other", mask, 0)], [("out", mask.upper())]),
            _op(2, "aten.sum.default", [("self", mask.upper(), 1)], [("out", mask + b"s")])]  # fmt: skip


def _diagnosed_without_replay(monkeypatch: pytest.MonkeyPatch, a: list[OpRecord], b: list[OpRecord]) -> Any:
    """``diagnose(a, b, verify_cause=True)``, checked to have replayed no root (nothing for the impl to
    prove: every root the trace shows) and to have left no input unresolved."""
    import harness.trace.cause as cause

    replayed: list[int] = []
    monkeypatch.setattr(cause, "verify", lambda diff, c, lead=None: replayed.append(lead.a.index))
    d = diagnose(_trace(a), _trace(b), verify_cause=True)
    assert d.reach is not None and d.reach.unresolved == []
    assert replayed == []
    return d


def test_host_data_that_differs_is_a_live_root_shown_by_the_trace_never_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = _diagnosed_without_replay(monkeypatch, _program(b"p"), _program(b"q"))
    assert [r.index for r in d.reach.roots] == [0]
    c = d.cause
    assert c is not None and c.data_flow and c.knobs == ["host_data"] and not c.verified
    assert c.knob == "data made outside torch's ops"
    assert "made from NumPy or Python data (torch.tensor, torch.from_numpy) at x.py:1" in c.explanation
    assert c.verification.startswith("shown by the trace (the impl replays nothing): op 0 reads no tensor")
    data = json.loads(render(d, "json"))
    assert data["root_cause"]["kind"] == "host-data" and data["reach"]["root_causes"][0]["kind"] == "host-data"
    assert data["reach"]["root_causes"][0]["verification"].startswith("shown by the trace")
    text = render(d, "terminal")
    kind = "kind: data made outside torch's ops (a tensor made from NumPy or Python data, or in another process)"
    assert kind in text
    assert "knob: data made outside torch's ops (shown by the trace)" in text


def test_host_data_overwritten_before_it_is_read_is_a_dead_divergence_with_its_cause() -> None:
    d = diagnose(_trace(_program(b"p", overwritten=True)), _trace(_program(b"q", overwritten=True)))
    assert d.reach is not None and d.reach.roots == [] and [x.index for x in d.reach.dead] == [0]
    (dead,) = json.loads(render(d, "json"))["reach"]["dead"]
    assert dead["kind"] == "host-data" and dead["knob"] == "data made outside torch's ops"
    assert dead["died"].startswith("overwritten by aten.fill_.Scalar at op 1")
    assert "knob: data made outside torch's ops; why: a tensor made from NumPy" in render(d, "terminal")


def test_the_same_host_data_on_both_sides_is_no_divergence() -> None:
    d = diagnose(_trace(_program(b"p")), _trace(_program(b"p")))
    assert d.bit_identical and d.root_cause is None


def _traced(program: Path, source: str, seeds: tuple[str, ...]) -> list[Path]:
    """``source`` written to ``program`` and traced once per NumPy seed (``MASK_SEED``)."""
    program.write_text(source)
    traces = []
    for seed in seeds:
        out = program.parent / f"run{len(traces)}.h5"
        proc = subprocess.run([sys.executable, "-m", "harness.trace.run", "--out", str(out), "--", str(program)],
                              env={**os.environ, "MASK_SEED": seed}, capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        traces.append(out)
    return traces


_MASKED = """\
import os

import numpy as np
import torch

np.random.seed(int(os.environ["MASK_SEED"]))
w = torch.ones(64, requires_grad=True)
mask = torch.tensor(np.random.rand(64) > 0.5)  # the data handed to torch
x = torch.arange(64, dtype=torch.float32)
loss = (x * w).masked_fill(mask, 0.0).sum()
loss.backward()
"""


def test_a_numpy_mask_drawn_from_other_seeds_is_a_root_at_the_line_that_made_it(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from harness.formats.trace import read_trace

    program = tmp_path / "masked.py"
    traces = _traced(program, _MASKED, ("0", "1", "0"))
    t = read_trace(traces[0])
    assert t.recorder == backend
    (made,) = [op for op in t.ops if op.op == LIFT]
    assert made.outputs[0].fingerprinted and made.site == f"{program}:8"
    readers = [op for op in t.ops if any(r.src == made.index for r in op.inputs)]
    assert readers and readers[0].index > made.index  # it is the writer of what it made
    assert main(["diff", str(traces[0]), str(traces[2])]) == 0  # one seed: the same bits
    report = tmp_path / "d.json"
    assert main(["diff", str(traces[0]), str(traces[1]), "--format", "json", "--output", str(report)]) == 1
    capsys.readouterr()
    data = json.loads(report.read_text())
    (root,) = data["reach"]["root_causes"]
    assert (root["op"], root["kind"], root["site"]) == (LIFT, "host-data", f"{program}:8")
    assert root["knob"] == "data made outside torch's ops" and data["reach"]["unresolved"] == []


_BESIDE_A_KERNEL = """\
import os

import numpy as np
import torch

np.random.seed(int(os.environ.get("MASK_SEED", "0")))
mask = torch.tensor(np.random.rand(64) > 0.5)  # the data handed to torch
x = torch.from_numpy(np.random.default_rng(5).standard_normal(300_001).astype(np.float32))
w = torch.arange(64, dtype=torch.float32)
loss = x.sum() + w.masked_fill(mask, 0.0).sum()
"""


def test_verify_cause_proves_the_kernel_root_beside_a_first_root_of_host_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A's mask from seed 0 at 1 thread, B's from seed 1 at 2 threads: the first live root is the
    mask's lift_fresh (shown by the trace), the second the long sum (thread count), which the impl
    proves from A's re-run (before, that re-run replayed the first root's op with the sum's tensors)."""
    pytest.importorskip("torch")
    program = tmp_path / "two.py"
    program.write_text(_BESIDE_A_KERNEL)
    traces = []
    for seed, threads in ((None, "1"), ("1", "2")):
        out = tmp_path / f"t{threads}.h5"
        env = {k: v for k, v in os.environ.items() if k != "MASK_SEED"} | {"OMP_NUM_THREADS": threads}
        env |= {"MASK_SEED": seed} if seed else {}
        proc = subprocess.run([sys.executable, "-m", "harness.trace.run", "--out", str(out), "--", str(program)],
                              env=env, capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        traces.append(out)
    report = tmp_path / "d.json"
    argv = ["diff", *map(str, traces), "--verify-cause", "--format", "json", "--output", str(report)]
    assert main(argv) == 1
    capsys.readouterr()
    first, second = json.loads(report.read_text())["reach"]["root_causes"]
    assert (first["op"], first["kind"], first["verified"]) == (LIFT, "host-data", False)
    assert (second["op"], second["kind"], second["knob"]) == ("aten.sum.default", "kernel", "intra-op thread count")
    assert second["verified"], second["verification"]


def test_the_side_that_holds_the_kernel_roots_gives_them_beside_a_root_of_host_data(tmp_path: Path) -> None:
    """B's trace holds the kernel root (op 1) in full; the host-data root (op 0) is never captured: B
    gives the tensors without running anything (before, op 0 counted as missing and A's program ran)."""
    from harness.formats.trace import Captured
    from harness.trace.cause import capture_side
    from harness.trace.diff import diff_traces

    def program(mask: bytes, out: bytes) -> list[OpRecord]:
        return [_op(0, LIFT, [("self", b"\0", -1)], [("out", mask)]),
                _op(1, "aten.mm.default", [("self", b"x", -1)], [("out", out)])]  # fmt: skip

    held = {1: Captured({"self": np.float32([1, 1])}, {"out": np.float32([2, 2])}, [])}
    a = _trace(program(b"p", b"1"))
    b = Trace(Path("t.h5"), {"provenance": {}, "trace_version": SOURCES_SINCE}, program(b"q", b"2"), held)
    d = diff_traces(a, b)
    assert [r.a.index for r in d.roots] == [0, 1]
    assert capture_side(d) == "B"
    assert capture_side(diff_traces(b, a)) == "A"


def _read_outside(data: bytes, program: str) -> Trace:
    """Op 0 reads ``data``, which no traced op wrote, op 1 sums: traced from the program's start
    (``program``, as parity trace records it) or from within it (no ``program``)."""
    ops = [_op(0, "aten.mul.Tensor", [("self", data, -1), ("other", b"x", -1)], [("out", data.upper())]),
           _op(1, "aten.sum.default", [("self", data.upper(), 0)], [("out", data + b"s")])]  # fmt: skip
    attrs = {"provenance": {}, "trace_version": SOURCES_SINCE, **({"program": program} if program else {})}
    return Trace(Path("t.h5"), attrs, ops)


def test_data_no_op_wrote_is_a_root_of_host_data_only_where_the_trace_began_with_its_program() -> None:
    """Traced from the program's start, no op of the process made what op 0 reads: data made outside
    torch's ops, a root at its first reader. A trace begun inside the program cannot tell it from a
    tensor torch's own ops made before the trace: unresolved, as before."""
    d = diagnose(_read_outside(b"p", "p.py"), _read_outside(b"q", "p.py"))
    assert d.reach is not None and d.reach.unresolved == [] and [r.index for r in d.reach.roots] == [0]
    c = d.cause
    assert c is not None and c.knobs == ["host_data"] and c.data_flow and not c.verified
    assert "data made outside torch's ops, first read by op 0 (aten.mul.Tensor) at x.py:1" in c.explanation
    assert c.verification == (
        "shown by the trace (the impl replays nothing): input self of op 0, which no traced op wrote in either run, "
        "differs, and neither run held the other's bits"
    )
    (root,) = json.loads(render(d, "json"))["reach"]["root_causes"]
    assert (root["kind"], root["knob"]) == ("host-data", "data made outside torch's ops")
    d = diagnose(_read_outside(b"p", ""), _read_outside(b"q", "p.py"))
    assert d.reach is not None and d.reach.roots == [] and d.root_cause is None
    assert [u.split(" (")[0] for u in d.reach.unresolved] == ["input self of op 0"]


_FROMBUFFER = """\
import os

import numpy as np
import torch

seed = int(os.environ["MASK_SEED"])
w = torch.linspace(-1.0, 1.0, 64)
drawn = np.random.default_rng(seed).random(64, dtype=np.float32)
noise = torch.frombuffer(bytearray(drawn.tobytes()), dtype=torch.float32)
loss = (w * noise).sum()  # noise: NumPy's bytes, no op made it
"""


def test_numpy_bytes_read_through_frombuffer_are_a_root_at_their_first_reader(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    program = tmp_path / "fb.py"
    traces = _traced(program, _FROMBUFFER, ("0", "1"))
    report = tmp_path / "d.json"
    assert main(["diff", *map(str, traces), "--format", "json", "--output", str(report)]) == 1
    capsys.readouterr()
    reach = json.loads(report.read_text())["reach"]
    (root,) = reach["root_causes"]
    assert (root["op"], root["kind"], root["site"]) == ("aten.mul.Tensor", "host-data", f"{program}:10")
    assert root["knob"] == "data made outside torch's ops" and reach["unresolved"] == []


INSTALL = "aten.set_.source_Storage_storage_offset"


def _received(batch: bytes, swap: bool = False) -> list[OpRecord]:
    """Op 0 allocates an empty tensor, op 1 installs a storage into it: a DataLoader worker's batch
    (``batch``) received through shared memory; op 2 sums. ``swap``: op 1 is a storage swap inside the
    program instead, ``set_`` of a tensor op 0 computed (``batch``) from the same x."""
    if swap:
        return [_op(0, "aten.mul.Tensor", [("self", b"x", -1)], [("out", batch)]),
                _op(1, "aten.set_.source_Tensor", [("self", b"\0", -1), ("source", batch, 0)], [("out", batch)]),
                _op(2, "aten.sum.default", [("self", batch, 1)], [("out", batch + b"s")])]  # fmt: skip
    return [_op(0, "aten.empty.memory_format", [], [("out", b"\0")]),
            _op(1, INSTALL, [("self", b"\0", 0)], [("out", batch)]),
            _op(2, "aten.sum.default", [("self", batch, 1)], [("out", batch + b"s")])]  # fmt: skip


def test_a_batch_installed_from_another_process_is_a_root_of_host_data_never_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = _diagnosed_without_replay(monkeypatch, _received(b"p"), _received(b"q"))
    assert [r.index for r in d.reach.roots] == [1]
    c = d.cause
    assert c is not None and c.knobs == ["host_data"] and c.data_flow and not c.verified
    assert c.explanation.startswith("data made in another process (a DataLoader worker's batch, received through")
    assert c.verification == (
        "shown by the trace (the impl replays nothing): op 1 installs a storage that no tensor of the trace "
        "carried, and its output's bits differ"
    )
    (root,) = json.loads(render(d, "json"))["reach"]["root_causes"]
    assert (root["op"], root["kind"], root["knob"]) == (INSTALL, "host-data", "data made outside torch's ops")
    assert diagnose(_trace(_received(b"p")), _trace(_received(b"p"))).bit_identical  # the same batch: nothing


def test_set_of_a_tensor_of_the_program_stays_a_storage_swap_the_walk_goes_through() -> None:
    """``set_`` of another tensor (a storage swap inside the program) reads that tensor: the root is
    the op that wrote it (a kernel's bits here), as before."""
    d = diagnose(_trace(_received(b"p", swap=True)), _trace(_received(b"q", swap=True)))
    assert d.reach is not None and [r.index for r in d.reach.roots] == [0] and d.reach.unresolved == []
    (root,) = json.loads(render(d, "json"))["reach"]["root_causes"]
    assert (root["op"], root["kind"]) == ("aten.mul.Tensor", "kernel")


_LOADER = """\
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

SEED = int(os.environ["MASK_SEED"])


class Noisy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        x = np.random.default_rng(SEED * 10 + i).standard_normal(3).astype(np.float32)  # drawn in the worker
        return torch.from_numpy(x), i % 2


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for x, y in DataLoader(Noisy(), batch_size=4, num_workers=1):
    torch.nn.functional.cross_entropy(model(x), y).backward()
"""


def test_a_dataloader_workers_batch_is_a_root_of_host_data_where_it_is_received(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The batch a worker process drew from other seeds arrives through ``set_`` of a shared-memory
    storage: that op (at the loop over the DataLoader) is the writer of the batch and the root, in
    both recorders alike; the labels' ``set_``, the same in both runs, is nothing."""
    pytest.importorskip("torch")
    from harness.formats.trace import read_trace

    program = tmp_path / "loader.py"
    traces = _traced(program, _LOADER, ("0", "1"))
    t = read_trace(traces[0])
    assert t.recorder == backend
    installs = [op for op in t.ops if op.op == INSTALL]
    assert [op.site for op in installs] == [f"{program}:21"] * 2  # the batch and its labels
    for op in installs:
        (self_,) = op.inputs
        assert t.ops[self_.src].op == "aten.empty.memory_format" and not self_.fingerprinted
        assert any(r.src == op.index for later in t.ops[op.index + 1 :] for r in later.inputs)  # the writer
    report = tmp_path / "d.json"
    assert main(["diff", *map(str, traces), "--format", "json", "--output", str(report)]) == 1
    capsys.readouterr()
    reach = json.loads(report.read_text())["reach"]
    (root,) = reach["root_causes"]
    assert (root["op"], root["kind"], root["site"]) == (INSTALL, "host-data", f"{program}:21")
    assert root["index_a"] == installs[0].index
    assert root["knob"] == "data made outside torch's ops" and reach["unresolved"] == [] and reach["dead"] == []
