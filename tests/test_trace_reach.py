"""The root causes that reach the result: the walk back over the ops that wrote each input. Torch-free.

Each trace here is made by hand: per op its inputs (digest byte, the op that wrote it) and outputs.
A and B run the same ops; B's digests differ where a kernel gave other bits.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import FixtureError, ParityError
from harness.formats.trace import SOURCES_SINCE, OpRecord, TensorRef, Trace, read_trace, write_trace
from harness.store import FixtureReader, FixtureWriter
from harness.trace.diff import diff_traces
from harness.trace.report import render

# an input: (name, digest byte, writer, fingerprinted); an output: (name, digest byte, shape)
In = tuple[str, bytes, int, bool]
Out = tuple[str, bytes, tuple[int, ...]]


def _op(i: int, op: str, ins: list[In], outs: list[Out], phase: str = "forward", module: str = "m") -> OpRecord:
    refs_in = [
        TensorRef(n, d * 32 if fp else b"\0" * 32, "float32", (4,), 0.0, fp, src) for n, d, src, fp in ins
    ]  # fmt: skip
    refs_out = [TensorRef(n, d * 32, "float32", shape, 0.0) for n, d, shape in outs]
    return OpRecord(i, op, module, "x.py:1", phase, 1, "", refs_in, refs_out)


def _trace(ops: list[OpRecord], version: int = SOURCES_SINCE) -> Trace:
    return Trace(Path("t.h5"), {"provenance": {}, "trace_version": version}, ops)


def _fine_tune(init: bytes, ln: bytes, rest: bytes) -> list[OpRecord]:
    """normal_ initialises w, copy_ loads a checkpoint over it; layer_norm, mm, the loss, a backward
    op, and an optimizer op that writes the weight (nothing reads it after)."""
    return [
        _op(0, "aten.normal_.default", [("self", b"0", -1, False)], [("out", init, (4,))], "other", ""),
        _op(1, "aten.copy_.default", [("self", b"0", 0, False), ("src", b"c", -1, True)],
            [("out", b"w", (4,))], "other", ""),
        _op(2, "aten.native_layer_norm.default", [("input", b"x", -1, True), ("weight", b"w", 1, True)],
            [("out0", ln, (4,)), ("out1", ln, (4,))], module="ln"),
        _op(3, "aten.mm.default", [("self", ln, 2, True), ("mat2", b"w", 1, True)], [("out", rest, (4,))],
            module="fc"),
        _op(4, "aten.sum.default", [("self", rest, 3, True)], [("out", rest, ())], module="fc"),
        _op(5, "aten.ones_like.default", [("self", rest, 4, True)], [("out", b"1", ())], "backward"),
        _op(6, "aten.add_.Tensor", [("self", b"w", 1, True), ("other", rest, 3, True)],
            [("out", rest.upper(), (4,))], "optimizer", "AdamW(fc.weight)"),
    ]  # fmt: skip


def test_an_overwritten_initialisation_is_dead_and_the_live_root_is_the_one_that_reaches_the_loss() -> None:
    a = _trace(_fine_tune(b"i", b"L", b"r"))
    b = _trace(_fine_tune(b"j", b"M", b"s"))
    d = diff_traces(a, b)
    assert d.first_candidate is not None and d.first_candidate.a.op == "aten.normal_.default"
    assert d.root_cause is not None and d.root_cause.a.index == 2  # layer_norm, not normal_
    assert d.reach is not None and d.reach.target_differs
    assert [r.index for r in d.reach.roots] == [2]
    assert d.reach.roots[0].path[:3] == [2, 3, 4]  # layer_norm -> mm -> the loss
    assert [(x.index, x.died) for x in d.reach.dead] == [
        (0, "overwritten by aten.copy_.default at op 1 before anything read it")
    ]
    data = json.loads(render(d, "json"))
    assert data["schema_version"] == 2 and data["root_cause"]["index_a"] == 2
    assert [o["index_a"] for o in data["reach"]["root_causes"][0]["path"]][:3] == [2, 3, 4]
    assert data["reach"]["dead"][0]["op"] == "aten.normal_.default" and data["reach"]["dead_total"] == 1
    text = render(d, "terminal")
    assert "Divergences that never reach the target" in text and "overwritten by aten.copy_.default" in text


def test_with_identical_results_every_divergence_is_dead() -> None:
    """The initialisation differs and is overwritten; nothing else differs: no root cause at all."""
    a = _trace(_fine_tune(b"i", b"L", b"r"))
    b = _trace(_fine_tune(b"j", b"L", b"r"))
    d = diff_traces(a, b)
    assert not d.bit_identical and d.root_cause is None
    assert d.reach is not None and not d.reach.target_differs and d.reach.roots == []
    assert d.reach.target.label == "the losses and the optimizer's state, equal to the bit in both runs"
    assert "no difference reaches it" in render(d, "terminal")


def test_two_independent_roots_are_both_listed_in_order() -> None:
    """layer_norm and mm each give other bits from identical inputs; both reach the loss."""
    a = _fine_tune(b"i", b"L", b"r")
    b = _fine_tune(b"i", b"M", b"s")
    a[3] = _op(3, "aten.mm.default", [("self", b"x", -1, True), ("mat2", b"w", 1, True)], [("out", b"r", (4,))])
    b[3] = _op(3, "aten.mm.default", [("self", b"x", -1, True), ("mat2", b"w", 1, True)], [("out", b"s", (4,))])
    a[4] = _op(4, "aten.add.Tensor", [("self", b"r", 3, True), ("other", b"L", 2, True)], [("out", b"r", ())])
    b[4] = _op(4, "aten.add.Tensor", [("self", b"s", 3, True), ("other", b"M", 2, True)], [("out", b"s", ())])
    d = diff_traces(_trace(a), _trace(b))
    assert d.reach is not None and [r.index for r in d.reach.roots] == [2, 3]
    assert d.root_cause is not None and d.root_cause.a.index == 2


def test_a_dead_divergence_reaches_only_the_ops_that_read_other_bits_from_it() -> None:
    """var_mean's variance differs (read by nothing), its mean does not; the mul that reads the mean
    differs for a cause of its own and reaches the loss: var_mean is dead, and its difference reaches
    no later op (not the mul, nor the loss after it)."""

    def run(var: bytes, prod: bytes) -> list[OpRecord]:
        return [
            _op(0, "aten.var_mean.correction", [("self", b"x", -1, True)], [("out0", var, (4,)), ("out1", b"m", (4,))]),
            _op(1, "aten.mul.Tensor", [("self", b"m", 0, True), ("other", b"y", -1, True)], [("out", prod, (4,))]),
            _op(2, "aten.sum.default", [("self", prod, 1, True)], [("out", prod, ())]),
            _op(3, "aten.ones_like.default", [("self", prod, 2, True)], [("out", b"1", ())], "backward"),
        ]  # fmt: skip

    d = diff_traces(_trace(run(b"v", b"p")), _trace(run(b"V", b"q")))
    assert d.reach is not None and [r.index for r in d.reach.roots] == [1]
    assert [(x.index, x.died) for x in d.reach.dead] == [
        (0, "read, but its readers take the same bits from it on both sides (they differ for other causes)")
    ]


def test_a_differing_input_no_traced_op_wrote_is_unresolved_not_a_root() -> None:
    """The mm's input differs and came from before the trace: the walk says so and blames nothing."""
    a = _fine_tune(b"i", b"L", b"r")
    b = _fine_tune(b"i", b"L", b"s")
    b[3] = _op(3, "aten.mm.default", [("self", b"L", 2, True), ("mat2", b"v", 1, True)], [("out", b"s", (4,))])
    b[3].inputs[1] = b[3].inputs[1]._replace(src=-1)
    a[3].inputs[1] = a[3].inputs[1]._replace(src=-1)
    d = diff_traces(_trace(a), _trace(b))
    assert d.reach is not None and d.reach.roots == [] and d.root_cause is None
    assert d.reach.unresolved == ["input mat2 of op 3 (aten.mm.default) differs and no traced op wrote it (made "
                                  "before the trace began, or without a traced op (torch.frombuffer, a write "
                                  "through a NumPy view))"]  # fmt: skip
    assert "differs from a source the trace cannot see" in render(d, "terminal")


def test_unresolved_inputs_are_listed_by_the_op_that_read_them_earliest_first() -> None:
    """The sum reads op 2's product first and op 1's second; each product read an input from
    outside the trace that differs. The walk meets op 2's first; the list starts with op 1's."""

    def run(u: bytes, v: bytes, p: bytes, q: bytes, r: bytes) -> list[OpRecord]:
        return [
            _op(0, "aten.exp.default", [("self", b"x", -1, True)], [("out", b"e", (4,))]),
            _op(1, "aten.mul.Tensor", [("self", b"e", 0, True), ("other", u, -1, True)], [("out", p, (4,))]),
            _op(2, "aten.mul.Tensor", [("self", b"e", 0, True), ("other", v, -1, True)], [("out", q, (4,))]),
            _op(3, "aten.add.Tensor", [("self", q, 2, True), ("other", p, 1, True)], [("out", r, (4,))]),
        ]  # fmt: skip

    d = diff_traces(_trace(run(b"u", b"v", b"p", b"q", b"r")), _trace(run(b"U", b"V", b"P", b"Q", b"R")))
    assert d.reach is not None and d.reach.roots == []
    assert [u.split(" (")[0] for u in d.reach.unresolved] == ["input other of op 1", "input other of op 2"]


def test_a_named_target_and_its_errors() -> None:
    a = _trace(_fine_tune(b"i", b"L", b"r"))
    b = _trace(_fine_tune(b"j", b"M", b"s"))
    by_index = diff_traces(a, b, "2")
    assert by_index.reach is not None and by_index.reach.target.ops == [2]
    assert [r.index for r in by_index.reach.roots] == [2] and by_index.reach.roots[0].path == [2]
    by_module = diff_traces(a, b, "fc")
    assert by_module.reach is not None and by_module.reach.target.ops == [4]
    by_param = diff_traces(a, b, "fc.weight")
    assert by_param.reach is not None and by_param.reach.target.ops == [6]
    assert diff_traces(a, b, "loss").reach.target.ops == [4]  # type: ignore[union-attr]
    with pytest.raises(ParityError, match="A has 7 ops"):
        diff_traces(a, b, "99")
    with pytest.raises(ParityError, match="not an op index of A"):
        diff_traces(a, b, "nowhere")
    old = _trace(_fine_tune(b"i", b"L", b"r"), version=2)
    with pytest.raises(ParityError, match="trace version 3"):
        diff_traces(old, _trace(_fine_tune(b"j", b"M", b"s"), version=2), "loss")


def _two_adam_steps(g2: bytes, m2: bytes, d2: bytes) -> list[OpRecord]:
    """w and its moment m over two optimizer steps, each: lerp_ m toward the gradient, sqrt of m (a
    temporary), add_ eps to it in place, addcdiv_ w. Step 2's update reads the m it has just written;
    its w comes out alike on both sides (the update rounds the same), m does not."""
    ops = [
        _op(0, "aten.normal_.default", [("self", b"0", -1, False)], [("out", b"w", (4,))], "other", ""),
        _op(1, "aten.zeros_like.default", [("self", b"w", 0, True)], [("out", b"z", (4,))], "optimizer"),
        _op(2, "aten.mm.default", [("self", b"x", -1, True)], [("out", b"g", (4,))], "backward"),
        _op(3, "aten.lerp_.Scalar", [("self", b"z", 1, True), ("end", b"g", 2, True)], [("out", b"m", (4,))],
            "optimizer"),
        _op(4, "aten.sqrt.default", [("self", b"m", 3, True)], [("out", b"d", (4,))], "optimizer"),
        _op(5, "aten.addcdiv_.default", [("self", b"w", 0, True), ("tensor1", b"m", 3, True),
            ("tensor2", b"d", 4, True)], [("out", b"v", (4,))], "optimizer", "AdamW(w)"),
        _op(6, "aten.mm.default", [("self", b"x", -1, True)], [("out", g2, (4,))], "backward"),
        _op(7, "aten.lerp_.Scalar", [("self", b"m", 3, True), ("end", g2, 6, True)], [("out", m2, (4,))],
            "optimizer"),
        _op(8, "aten.sqrt.default", [("self", m2, 7, True)], [("out", d2, (4,))], "optimizer"),
        _op(9, "aten.add_.Tensor", [("self", d2, 8, True)], [("out", d2.upper(), (4,))], "optimizer"),
        _op(10, "aten.addcdiv_.default", [("self", b"v", 5, True), ("tensor1", m2, 7, True),
            ("tensor2", d2.upper(), 9, True)], [("out", b"u", (4,))], "optimizer", "AdamW(w)"),
    ]  # fmt: skip
    for op in ops[6:]:
        op.step = 2
    return ops


def test_the_moments_the_last_update_reads_are_the_optimizers_state() -> None:
    """Step 2's gradient differs, and with it the moment and the denominator, not the weight: the
    moment's last write is the state the optimizer leaves (read again by the same step's update, as
    AdamW's is), so the gradient is a live root; the denominator, a temporary of the step, is not a
    target, and step 1's moment, written again at step 2, neither."""
    d = diff_traces(_trace(_two_adam_steps(b"g", b"m", b"d")), _trace(_two_adam_steps(b"h", b"n", b"e")))
    assert d.reach is not None and d.reach.target.ops == [7]
    assert "the optimizer's state after step 2 (1 ops' outputs)" in d.reach.target.label
    assert d.reach.target_differs and [(r.index, r.path) for r in d.reach.roots] == [(6, [6, 7])]
    assert d.root_cause is not None and d.root_cause.a.index == 6


def test_older_traces_keep_the_first_candidate_and_say_why() -> None:
    a = _trace(_fine_tune(b"i", b"L", b"r"), version=2)
    b = _trace(_fine_tune(b"j", b"M", b"s"), version=2)
    d = diff_traces(a, b)
    assert d.reach is None and d.root_cause is not None and d.root_cause.a.op == "aten.normal_.default"
    assert any("do not say which op wrote each input" in n for n in d.notes)


def test_a_write_in_place_that_returns_nothing_is_walked_through() -> None:
    """_foreach_mul_ writes the gradient and returns nothing: the difference the next reader sees
    is its doing, and with identical inputs it is the root."""
    a = _fine_tune(b"i", b"L", b"r")[:2]
    a += [
        _op(2, "aten._foreach_mul_.Scalar", [("self[0]", b"w", 1, True)], [], "optimizer", "SGD"),
        _op(3, "aten.sum.default", [("self", b"q", 2, True)], [("out", b"q", ())]),
    ]
    b = _fine_tune(b"i", b"L", b"r")[:2]
    b += [
        _op(2, "aten._foreach_mul_.Scalar", [("self[0]", b"w", 1, True)], [], "optimizer", "SGD"),
        _op(3, "aten.sum.default", [("self", b"z", 2, True)], [("out", b"z", ())]),
    ]
    d = diff_traces(_trace(a), _trace(b), "3")
    assert d.reach is not None and [r.index for r in d.reach.roots] == [2] and d.reach.roots[0].path == [2, 3]


def _padding_row_zeroed(init: bytes, out: bytes, zero: str = "aten.zero_.default") -> list[OpRecord]:
    """normal_ initialises an embedding, ``zero`` writes its padding row (the same bits on both sides),
    then the embedding is read: its reader's input names the row's writer as the storage's last."""
    return [
        _op(0, "aten.normal_.default", [("self", b"0", -1, False)], [("out", init, (4,))], "other", ""),
        _op(1, zero, [("self", init, 0, True)], [("out", b"z", (1,))], "other", ""),
        _op(2, "aten.embedding.default", [("weight", init, 1, True), ("indices", b"x", -1, True)],
            [("out", out, (4,))], module="embed"),
        _op(3, "aten.sum.default", [("self", out, 2, True)], [("out", out, ())], module="embed"),
    ]  # fmt: skip


def test_a_partial_write_in_place_with_the_same_bits_is_walked_through_to_the_storages_earlier_writer() -> None:
    """The padding row zeroed after the initialisation gave the same bits; the rest of the embedding is
    as normal_ left it, and normal_ is the live root. A writer that is not in place gives no such
    way back: the walk says so and blames nothing."""
    d = diff_traces(_trace(_padding_row_zeroed(b"i", b"e")), _trace(_padding_row_zeroed(b"j", b"f")))
    assert d.reach is not None and d.reach.unresolved == []
    assert [r.index for r in d.reach.roots] == [0] and d.reach.roots[0].path == [0, 2, 3]
    a, b = _padding_row_zeroed(b"i", b"e", "aten.zeros.default"), _padding_row_zeroed(b"j", b"f", "aten.zeros.default")
    d = diff_traces(_trace(a), _trace(b))
    assert d.reach is not None and d.reach.roots == []
    assert d.reach.unresolved == ["input weight of op 2 (aten.embedding.default) differs, but op 1 "
                                  "(aten.zeros.default) that wrote it gave the same bits: written since"]  # fmt: skip


def test_a_partial_write_in_place_over_a_storage_no_traced_op_wrote_names_no_root() -> None:
    """The embedding came from before the trace began (its values differ, no traced op wrote them): past
    the row zeroed in place the walk finds no writer and says so."""
    a, b = _padding_row_zeroed(b"i", b"e"), _padding_row_zeroed(b"j", b"f")
    for ops, init in ((a, b"i"), (b, b"j")):
        ops[0] = _op(0, "aten.ones.default", [], [("out", b"1", (4,))], "other", "")
        ops[1] = _op(1, "aten.zero_.default", [("self", init, -1, True)], [("out", b"z", (1,))], "other", "")
    d = diff_traces(_trace(a), _trace(b))
    assert d.reach is not None and d.reach.roots == []
    assert d.reach.unresolved == [
        "input weight of op 2 (aten.embedding.default) differs and no traced op wrote it (made before the trace began, "
        "or without a traced op (torch.frombuffer, a write through a NumPy view))"
    ]


def test_the_trace_file_keeps_each_inputs_writer_and_refuses_one_that_does_not_precede(tmp_path: Path) -> None:
    ops = _fine_tune(b"i", b"L", b"r")
    write_trace(tmp_path / "t.h5", {"provenance": {}}, ops, {})
    back = read_trace(tmp_path / "t.h5")
    sources = [[r.src for r in o.inputs] for o in ops]
    assert back.has_sources and [[r.src for r in o.inputs] for o in back.ops] == sources
    ops[3].inputs[0] = ops[3].inputs[0]._replace(src=3)  # itself: no op reads what it has not yet written
    write_trace(tmp_path / "bad.h5", {"provenance": {}}, ops, {})
    with pytest.raises(FixtureError, match="op 3 names as an input's source an op that does not precede it"):
        read_trace(tmp_path / "bad.h5")


def test_a_version_3_trace_without_its_sources_is_damaged(tmp_path: Path) -> None:
    write_trace(tmp_path / "t.h5", {"provenance": {}}, _fine_tune(b"i", b"L", b"r"), {})
    back = read_trace(tmp_path / "t.h5")
    with FixtureWriter(tmp_path / "short.h5", "trace", packed=True) as w:
        w.set_attrs("/", {**back.attrs})
        for col in ("op", "module", "site", "phase", "args", "step", "in_start", "in_count", "out_count",
                    "t_name", "t_dtype", "t_shape", "t_fingerprinted", "t_sum", "t_digest", "strings"):  # fmt: skip
            with FixtureReader(tmp_path / "t.h5") as r:
                w.put("trace", col, r.tensor(f"trace/{col}"))
        w.put("trace", "t_src", np.zeros(3, np.int32))
    with pytest.raises(FixtureError, match="t_src holds 3 rows for"):
        read_trace(tmp_path / "short.h5")


def _diagnose_two_roots(
    monkeypatch: pytest.MonkeyPatch, joint_capture_fails: bool, second: str = "aten.mm.default"
) -> tuple[dict, str, list]:
    """Two independent roots (layer_norm, and mm or ``second``) at avx2 vs baseline, diagnosed with
    --verify-cause: the impl (a stand-in) gives layer_norm's bits on both sides and mm's A bits on both.
    Returns the JSON report, the terminal report and the op indices of each re-run."""
    from harness.core.digest import digest
    from harness.formats.trace import Captured
    from harness.trace import cause as cause_module
    from harness.trace import impl_ops

    a, b = _fine_tune(b"i", b"L", b"r"), _fine_tune(b"i", b"M", b"s")
    for ops, ln, out in ((a, b"L", b"r"), (b, b"M", b"s")):
        ops[3] = _op(3, second, [("self", b"x", -1, True), ("mat2", b"w", 1, True)], [("out", out, (4,))])
        ops[4] = _op(4, "aten.add.Tensor", [("self", out, 3, True), ("other", ln, 2, True)], [("out", out, ())])
    value = {c: np.float32([ord(c), 0, 0, 0]) for c in "LMrs"}  # the array the impl "gives" for each digest byte
    monkeypatch.setattr(cause_module, "digest", lambda arr, algorithm: bytes([int(arr[0])]) * 32)
    assert digest(value["L"], "mix256-v1") != b"L" * 32  # the stand-in is for this test's hand-made digests only

    def replay(op: str, inputs: dict, args: list, profile: object) -> dict[str, np.ndarray]:
        side_a = "avx2" in profile.label  # type: ignore[attr-defined]
        if op == "aten.native_layer_norm.default":
            return {"out0": value["L" if side_a else "M"], "out1": value["L" if side_a else "M"]}
        return {"out": value["r"]}  # mm: A's bits on both sides

    captured: list[list[int]] = []

    def capture_ops(trace: Trace, indices: list[int], workdir: Path) -> dict[int, Captured]:
        captured.append(list(indices))
        if joint_capture_fails and len(indices) > 1:
            raise ParityError("re-running t.h5's program gave other bits at op 3 (aten.mm.default): not repeatable")
        return {i: Captured({"in0": np.float32([1])}, {}, []) for i in indices}

    monkeypatch.setattr(impl_ops, "replay", replay)
    monkeypatch.setattr(cause_module, "capture_ops", capture_ops)
    prov = lambda cap: {"capability": cap, "threads": 1, "arch": "x86_64"}
    trace = lambda ops, cap: Trace(
        Path("t.h5"), {"provenance": prov(cap), "trace_version": SOURCES_SINCE, "digest": "mix256-v1"}, ops
    )
    d = cause_module.diagnose(trace(a, "AVX2"), trace(b, "DEFAULT"), verify_cause=True)
    return json.loads(render(d, "json")), render(d, "terminal"), captured


def test_verify_cause_proves_every_live_root_from_one_rerun(monkeypatch: pytest.MonkeyPatch) -> None:
    """One re-run of A's program captures both roots; each is replayed: layer_norm is verified, mm (the
    impl does not give B's bits) is reported unexplained, each with its own verdict."""
    data, text, captured = _diagnose_two_roots(monkeypatch, joint_capture_fails=False)
    assert captured == [[2, 3]]  # one re-run keeps both roots' tensors
    roots = data["reach"]["root_causes"]
    assert [(r["op"], r["verified"]) for r in roots] == [
        ("aten.native_layer_norm.default", True), ("aten.mm.default", False)
    ]  # fmt: skip
    assert data["root_cause"]["verified"] and roots[0]["verification"] == data["root_cause"]["verification"]
    assert (
        roots[1]["verification"].startswith("unexplained: the impl under ")
        and "side B's out" in roots[1]["verification"]
    )
    assert roots[1]["knob"] == "unexplained"  # MKL's sgemm does not read ATen's capability
    assert "(and 1 more root causes that reach it, 0 of them verified)" in text
    assert "knob: ATen CPU capability (ATEN_CPU_CAPABILITY) (verified)" in text
    assert "knob: unexplained (unexplained: the impl under x86-baseline t1 does not give side B's out" in text


def test_a_root_the_impl_refuses_is_not_rerun_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second root the impl has no replay for is not captured: its verdict is replay's one-line refusal,
    and the first root is captured and verified alone."""
    data, _, captured = _diagnose_two_roots(monkeypatch, joint_capture_fails=True, second="aten.linalg_eigh.default")
    assert captured == [[2]]
    roots = data["reach"]["root_causes"]
    assert data["root_cause"]["verified"] and roots[0]["verified"]
    assert roots[1]["op"] == "aten.linalg_eigh.default" and not roots[1]["verified"]
    assert (
        roots[1]["verification"]
        == "unexplained: the reference implementation does not reproduce aten.linalg_eigh.default"
    )


def test_a_later_root_that_cannot_be_captured_leaves_the_first_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-run that keeps both roots fails on the second (not repeatable): the first root is captured
    alone and verified; the second says why it could not be."""
    data, _, captured = _diagnose_two_roots(monkeypatch, joint_capture_fails=True)
    assert captured == [[2, 3], [2]]
    roots = data["reach"]["root_causes"]
    assert data["root_cause"]["verified"] and roots[0]["verified"]
    assert not roots[1]["verified"] and "could not capture the op's tensors (re-running" in roots[1]["verification"]
