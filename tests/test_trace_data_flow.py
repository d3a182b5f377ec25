"""Divergences of a program's data flow: the two runs read other tensors, each the same in both.

The synthetic traces are made by hand (as in test_trace_reach.py); the live test traces a program
that iterates a set of strings under two hash seeds that order it differently. The trace's
provenance keeps the hash seed; older traces, without it, say "not recorded".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.formats.trace import SOURCES_SINCE, OpRecord, TensorRef, Trace
from harness.platform.provenance import describe_hash_seed
from harness.trace.cause import diagnose, hash_seed_knob, rerun_env
from harness.trace.diff import diff_traces
from harness.trace.report import render

# an input: (name, digest byte, writer); an output: (name, digest byte)
In = tuple[str, bytes, int]
Out = tuple[str, bytes]

UNSET = {"PYTHONHASHSEED": None, "hash_randomization": 1}


def _op(i: int, op: str, ins: list[In], outs: list[Out], phase: str = "forward", module: str = "m") -> OpRecord:
    refs_in = [TensorRef(n, d * 32, "float32", (4,), 0.0, True, src) for n, d, src in ins]
    refs_out = [TensorRef(n, d * 32, "float32", (4,), 0.0) for n, d in outs]
    return OpRecord(i, op, module, f"x.py:{i + 1}", phase, 1, "", refs_in, refs_out)


def _trace(ops: list[OpRecord], seed: dict | None = None) -> Trace:
    provenance = {} if seed is None else {"python_hash_seed": seed}
    return Trace(Path("t.h5"), {"provenance": provenance, "trace_version": SOURCES_SINCE}, ops)


def _tables(first: int, second: int, consumer: str = "aten.sum.default") -> list[OpRecord]:
    """Two tables made alike on both sides (ops 0 and 1: "L" and "G"), then per table in the order
    of a set (first, second) a product with x (ops 2 and 3); op 4 reads op 2's product, a sink."""
    made = [
        _op(0, "aten.mul.Tensor", [("self", b"x", -1)], [("out", b"L")], "other", ""),
        _op(1, "aten.mul.Tensor", [("self", b"x", -1)], [("out", b"G")], "other", ""),
    ]
    product = {0: b"p", 1: b"q"}
    return [
        *made,
        _op(2, "aten.mul.Tensor", [("self", b"x", -1), ("other", made[first].outputs[0].digest[:1], first)],
            [("out", product[first])], module="rotary"),
        _op(3, "aten.mul.Tensor", [("self", b"x", -1), ("other", made[second].outputs[0].digest[:1], second)],
            [("out", product[second])], module="rotary"),
        _op(4, consumer, [("self", product[first], 2)], [("out", product[first].upper())]),
    ]  # fmt: skip


def test_reading_the_other_producers_output_is_a_live_data_flow_root_named_with_both_producers() -> None:
    a, b = _trace(_tables(0, 1), UNSET), _trace(_tables(1, 0), UNSET)
    d = diagnose(a, b)
    assert d.reach is not None and [r.index for r in d.reach.roots] == [2, 3]
    (read,) = d.reach.roots[0].reads
    assert (read.input, read.src_a, read.src_b) == ("other", 0, 1)
    assert d.reach.unresolved == [] and d.reach.dead == []
    assert d.cause is not None and d.cause.data_flow and d.cause.knobs == ["hash_seed"]
    assert "PYTHONHASHSEED unset in both runs; set orders of str follow it" in d.cause.explanation
    assert "PYTHONHASHSEED=0 in both" in d.cause.explanation and not d.cause.verified
    data = json.loads(render(d, "json"))
    root = data["root_cause"]
    assert root["kind"] == "data-flow" and root["index_a"] == 2 and root["kernel"] == ""
    assert root["verification"].startswith("shown by the trace")
    first = data["reach"]["root_causes"][0]
    assert first["kind"] == "data-flow" and first["knob"] == "Python's string hash seed (PYTHONHASHSEED)"
    (r,) = first["reads"]
    assert (r["a"]["index"], r["a"]["aligned"], r["b"]["index"], r["b"]["aligned"]) == (0, 0, 1, 1)
    assert (r["a"]["site"], r["b"]["site"], r["a"]["phase"]) == ("x.py:1", "x.py:2", "other")
    text = render(d, "terminal")
    assert "a divergence of the program's data flow" in text
    assert "input other: A read what op 0 wrote (aten.mul.Tensor in (no module) (other, step 1) at x.py:1" in text


def test_a_data_flow_root_whose_difference_dies_is_listed_dead_with_the_hash_seed() -> None:
    """The products are read only by an op whose output is the same on both sides (as Gemma 3's
    rotary tables, each taken by name): no difference reaches the result."""
    a, b = _tables(0, 1)[:4], _tables(1, 0)[:4]
    for ops, (p, q) in ((a, (2, 3)), (b, (3, 2))):  # each product taken by its table: p from L, q from G
        ops += [_op(4, "aten.sum.default", [("self", b"p", p)], [("out", b"S")]),
                _op(5, "aten.sum.default", [("self", b"q", q)], [("out", b"T")])]  # fmt: skip
    d = diagnose(_trace(a, UNSET), _trace(b, UNSET))
    assert d.reach is not None and d.reach.roots == [] and d.root_cause is None
    assert [(x.index, [r.src_a for r in x.reads]) for x in d.reach.dead] == [(2, [0]), (3, [1])]
    assert d.reach.dead[0].died == "read, but the ops that read it give the same bits on both sides"
    data = json.loads(render(d, "json"))
    dead = data["reach"]["dead"][0]
    assert dead["kind"] == "data-flow" and dead["knob"] == "Python's string hash seed (PYTHONHASHSEED)"
    assert "PYTHONHASHSEED unset in both runs" in dead["explanation"]
    assert "2 of them where the program read other tensors" in render(d, "terminal")


def test_a_kernel_root_and_its_dead_divergence_say_kernel() -> None:
    """Tables made differently by a kernel (op 0's bits), read alike: no data flow."""
    a, b = _tables(0, 1), _tables(0, 1)
    b[0] = _op(0, "aten.mul.Tensor", [("self", b"x", -1)], [("out", b"K")], "other", "")
    d = diff_traces(_trace(a, UNSET), _trace(b, UNSET))
    assert d.reach is not None and all(not x.reads for x in (*d.reach.roots, *d.reach.dead))
    data = json.loads(render(d, "json"))
    assert {x["kind"] for x in (*data["reach"]["root_causes"], *data["reach"]["dead"])} == {"kernel"}


def test_an_input_made_before_the_trace_on_one_side_only_and_two_outputs_of_one_op() -> None:
    # A reads a tensor made before the trace, B op 0's output (the same in both runs); B holds w too (op 2)
    w = _op(2, "aten.exp.default", [("self", b"w", -1)], [("out", b"e")])
    a = [_op(0, "aten.mul.Tensor", [("self", b"x", -1)], [("out", b"L")]),
         _op(1, "aten.add.Tensor", [("self", b"w", -1)], [("out", b"a")]), w]  # fmt: skip
    b = [a[0], _op(1, "aten.add.Tensor", [("self", b"L", 0)], [("out", b"b")]), w]
    d = diff_traces(_trace(a, UNSET), _trace(b, UNSET))
    assert d.reach is not None and [(r.index, r.reads[0].src_a, r.reads[0].src_b) for r in d.reach.roots] == [
        (1, -1, 0)
    ]
    assert (d.reach.roots[0].reads[0].held_a, d.reach.roots[0].reads[0].held_b) == (2, -1)
    text = render(d, "terminal")
    assert "A read a tensor made before the trace (its bits are in B too: op 2, aten.exp.default at x.py:3)" in text
    assert ", B what op 0 wrote" in text
    (r,) = json.loads(render(d, "json"))["reach"]["root_causes"][0]["reads"]
    assert (r["a"], r["a_held_by_b"], r["b"]["index"], r["b_held_by_a"]) == (None, 2, 0, None)
    # B never held w's bits: nothing says A read a tensor B also had
    d = diff_traces(_trace(a[:2], UNSET), _trace(b[:2], UNSET))
    assert d.reach is not None and d.reach.roots == [] and "no traced op wrote it" in d.reach.unresolved[0]
    # one op on both sides, the other of its two outputs read
    two = _op(0, "aten.native_layer_norm.default", [("input", b"x", -1)], [("out0", b"y"), ("out1", b"m")])
    a = [two, _op(1, "aten.exp.default", [("self", b"y", 0)], [("out", b"e")])]
    b = [two, _op(1, "aten.exp.default", [("self", b"m", 0)], [("out", b"f")])]
    d = diff_traces(_trace(a, UNSET), _trace(b, UNSET))
    (read,) = d.reach.roots[0].reads  # type: ignore[union-attr]
    assert (read.src_a, read.src_b, read.output_a, read.output_b) == (0, 0, "out0", "out1")
    assert "A read output out0 of op 0" in render(d, "terminal")


def test_two_tensors_made_before_the_trace_read_in_another_order_are_told_apart_by_their_bits() -> None:
    """Weights loaded before the trace (u, v), taken in the order of a set: A adds u then v, B v then
    u. Each side holds both tensors, so each read is of another tensor the same in both runs."""

    def run(first: bytes, second: bytes, acc: bytes, out: bytes) -> list[OpRecord]:
        return [_op(0, "aten.mul.Tensor", [("self", b"z", -1), ("other", first, -1)], [("out", acc)]),
                _op(1, "aten.add.Tensor", [("self", acc, 0), ("other", second, -1)], [("out", out)]),
                _op(2, "aten.sum.default", [("self", out, 1)], [("out", out.upper())])]  # fmt: skip

    d = diff_traces(_trace(run(b"u", b"v", b"p", b"s"), UNSET), _trace(run(b"v", b"u", b"q", b"t"), UNSET))
    assert d.reach is not None and d.reach.unresolved == []
    assert [(r.index, [(x.input, x.src_a, x.src_b, x.held_a, x.held_b) for x in r.reads]) for r in d.reach.roots] == [
        (0, [("other", -1, -1, 1, 1)]),
        (1, [("other", -1, -1, 0, 0)]),
    ]
    text = render(d, "terminal")
    assert "A read a tensor made before the trace (its bits are in B too: op 1, aten.add.Tensor at x.py:2)" in text


def test_what_is_not_a_data_flow_divergence_stays_as_it_was() -> None:
    """A producer that differs itself (the walk goes on), two tensors made before the trace that
    the other side never held (nothing says they are other tensors of both runs), and a producer
    only one side ran (a code path)."""
    a, b = _tables(0, 1), _tables(1, 0)
    b[1] = _op(1, "aten.mul.Tensor", [("self", b"x", -1)], [("out", b"K")], "other", "")  # its bits differ
    b[2] = _op(2, "aten.mul.Tensor", [("self", b"x", -1), ("other", b"K", 1)], [("out", b"q")], module="rotary")
    d = diff_traces(_trace(a, UNSET), _trace(b, UNSET))
    assert d.reach is not None and 2 not in [r.index for r in d.reach.roots]
    assert any("not aligned" in u for u in d.reach.unresolved)
    before = [_op(0, "aten.exp.default", [("self", b"u", -1)], [("out", b"e")])]
    after = [_op(0, "aten.exp.default", [("self", b"v", -1)], [("out", b"f")])]
    d = diff_traces(_trace(before), _trace(after))
    assert d.reach is not None and d.reach.roots == [] and "no traced op wrote it" in d.reach.unresolved[0]


def test_the_hash_seed_knob_by_what_each_run_recorded() -> None:
    fixed = {"PYTHONHASHSEED": "0", "hash_randomization": 0}
    seven = {"PYTHONHASHSEED": "7", "hash_randomization": 1}
    ops = _tables(0, 1)
    assert hash_seed_knob(_trace(ops, UNSET), _trace(ops, UNSET))[0] == ["hash_seed"]
    knobs, why = hash_seed_knob(_trace(ops, fixed), _trace(ops, seven))
    assert knobs == ["hash_seed"] and "PYTHONHASHSEED=0 in A, PYTHONHASHSEED=7 in B" in why
    knobs, why = hash_seed_knob(_trace(ops, fixed), _trace(ops, fixed))
    assert knobs == [] and "both runs had PYTHONHASHSEED=0" in why
    knobs, why = hash_seed_knob(_trace(ops), _trace(ops))  # older traces
    assert knobs == [] and "A: not recorded, B: not recorded" in why
    assert describe_hash_seed({}) == "not recorded"
    assert describe_hash_seed({"python_hash_seed": {"PYTHONHASHSEED": "random", "hash_randomization": 1}}) == (
        "PYTHONHASHSEED=random (random per process)"
    )
    assert describe_hash_seed({"python_hash_seed": {"PYTHONHASHSEED": "0", "hash_randomization": 1}}).endswith(
        "(random per process)"  # "0" in the environment, not in force (python -E)
    )
    # a fixed seed is the re-run's too; a random one is left to the caller's environment
    assert rerun_env(_trace(ops, seven), {"PYTHONHASHSEED": "3"})["PYTHONHASHSEED"] == "7"
    assert rerun_env(_trace(ops, UNSET), {"PYTHONHASHSEED": "3"})["PYTHONHASHSEED"] == "3"
    diff = json.loads(render(diff_traces(_trace(ops, fixed), _trace(ops, seven)), "json"))
    assert diff["platforms"] == {"hash_seed": ["PYTHONHASHSEED=0", "PYTHONHASHSEED=7"]}


_SET_PROGRAM = """\
import torch

base = torch.arange(1, 5, dtype=torch.float32)
tables = {"alpha": base * 2.0, "beta": base * 3.0}
acc = torch.zeros(4)
for name in set(tables):  # in the order of the string hash seed
    acc = acc * 0.5 + tables[name]
result = acc.sum()
"""


_LOADED_PROGRAM = """\
import numpy as np
import torch

arrays = {"alpha": np.arange(1, 5, dtype=np.float32) * 2, "beta": np.ones(4, np.float32)}
# frombuffer runs no op (torch.from_numpy's lift_fresh would write them): as if made before the trace
tables = {name: torch.frombuffer(bytearray(x.tobytes()), dtype=torch.float32) for name, x in arrays.items()}
acc = torch.zeros(4)
for name in set(tables):  # in the order of the string hash seed; the tables made before the trace
    acc = acc * 0.5 + tables[name]
result = acc.sum()
"""


def _diff_two_seeds(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict]:
    """The program traced under the hash seeds 0 and 1 (which order {'alpha', 'beta'} differently),
    and the JSON report of the diff."""
    pytest.importorskip("torch")
    program = tmp_path / "tables.py"
    program.write_text(text)
    order = "print(list({'alpha', 'beta'}))"
    orders = [
        subprocess.run([sys.executable, "-c", order], env={**os.environ, "PYTHONHASHSEED": s},
                       capture_output=True, text=True, check=True).stdout
        for s in ("0", "1")
    ]  # fmt: skip
    assert orders[0] != orders[1]  # the two seeds order the set differently
    traces = []
    for seed in ("0", "1"):
        out = tmp_path / f"seed{seed}.h5"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-m", "harness.trace.run", "--out", str(out), "--", str(program)],
                              env=env, capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        traces.append(out)
    report = tmp_path / "d.json"
    assert main(["diff", str(traces[0]), str(traces[1]), "--format", "json", "--output", str(report)]) == 1
    capsys.readouterr()
    data = json.loads(report.read_text())
    assert data["platforms"] == {"hash_seed": ["PYTHONHASHSEED=0", "PYTHONHASHSEED=1"]}
    assert data["reach"]["unresolved"] == []
    assert "PYTHONHASHSEED=0 in A, PYTHONHASHSEED=1 in B" in data["root_cause"]["explanation"]
    return program, data


def test_two_hash_seeds_that_order_a_set_differently_name_the_data_flow_root_and_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program, data = _diff_two_seeds(tmp_path, _SET_PROGRAM, capsys)
    roots = data["reach"]["root_causes"]
    assert roots and {r["kind"] for r in roots} == {"data-flow"} and data["root_cause"]["kind"] == "data-flow"
    first = roots[0]
    assert first["op"] == "aten.add.Tensor" and first["site"].endswith("tables.py:7")
    (read,) = first["reads"]
    assert {read["a"]["site"], read["b"]["site"]} == {f"{program}:4"}  # the two products of line 4
    assert read["a"]["index"] != read["b"]["index"] and read["a"]["op"] == read["b"]["op"] == "aten.mul.Tensor"
    assert first["knob"] == "Python's string hash seed (PYTHONHASHSEED)"


def test_tables_made_before_the_trace_and_taken_in_set_order_name_the_data_flow_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As above, the tables made without a traced op (as before the trace): told apart by their bits."""
    _, data = _diff_two_seeds(tmp_path, _LOADED_PROGRAM, capsys)
    roots = data["reach"]["root_causes"]
    assert roots and {r["kind"] for r in roots} == {"data-flow"}
    first = roots[0]
    assert first["op"] == "aten.add.Tensor" and first["site"].endswith("tables.py:9")
    (read,) = first["reads"]
    assert read["a"] is None and read["b"] is None
    assert read["a_held_by_b"] is not None and read["b_held_by_a"] is not None
    assert read["text"].startswith("input other: A read a tensor made before the trace (its bits are in B too")


def test_verify_cause_leads_with_the_first_root_the_impl_can_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two live data-flow roots (ops 2, 3) before a kernel root (op 5): the re-run proves op 5 and
    leaves the data-flow roots as the trace shows them."""
    import harness.trace.cause as cause

    a = [*_tables(0, 1), _op(5, "aten.exp.default", [("self", b"x", -1)], [("out", b"e")])]
    b = [*_tables(1, 0), _op(5, "aten.exp.default", [("self", b"x", -1)], [("out", b"f")])]
    led: list[int] = []
    monkeypatch.setattr(cause, "verify", lambda diff, c, lead=None: led.append(lead.a.index))
    d = diagnose(_trace(a, UNSET), _trace(b, UNSET), verify_cause=True)
    assert [r.a.index for r in d.roots] == [2, 3, 5] and led == [5]
    assert [c.data_flow for c in d.causes] == [True, True, False]
    assert d.causes[0].verification.startswith("shown by the trace")
