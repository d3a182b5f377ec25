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


def _shaped(op: OpRecord, shape: tuple[int, ...]) -> OpRecord:
    """``op`` with every input of shape ``shape`` (another shape: an op the other run does not align)."""
    op.inputs = [r._replace(shape=shape) for r in op.inputs]
    return op


def _masked(mask: bytes, rows: tuple[int, ...], kept: bytes, decide: bytes = b"") -> list[OpRecord]:
    """Op 0 hands torch a mask (lift_fresh), op 1 selects the rows it keeps (index: the same input
    shapes, another output), op 2 sums them (``rows``: the shape it read, another on the other side:
    not aligned), op 3 squares the sum (aligned, reading it), op 4 the loss. ``decide``: op 1 reads
    no mask but the rows themselves, and op 0 is a value read back to Python (``.item()``) of a tensor
    holding ``mask``, after which the program takes ``decide``'s rows."""
    if decide:
        first = _op(0, "aten._local_scalar_dense.default", [("self", mask, -1, True)], [])
        select = _op(1, "aten.mul.Tensor", [("self", b"h", -1, True), ("other", b"w", -1, True)], [("out", b"p", (4,))])
    else:
        first = _op(0, "aten.lift_fresh.default", [("self", b"\0", -1, False)], [("out", mask, (4,))])
        select = _op(1, "aten.index.Tensor", [("self", b"h", -1, True), ("indices", mask, 0, True)],
                     [("out", mask.upper(), rows)])  # fmt: skip
    return [
        first, select,
        _shaped(_op(2, "aten.sum.dim_IntList", [("self", b"p", 1, True)], [("out", kept, (4,))]), rows),
        _op(3, "aten.mul.Tensor", [("self", kept, 2, True), ("other", kept, 2, True)], [("out", kept.upper(), (4,))]),
        _op(4, "aten.mean.default", [("self", kept.upper(), 3, True)], [("out", kept + b"m", ())]),
    ]  # fmt: skip


def test_an_input_written_on_a_code_path_that_differs_is_walked_through_to_the_root_behind_it() -> None:
    """Another mask keeps other rows: the sums are not aligned, and behind them the walk finds the
    index (aligned, differing), then the mask's lift_fresh: the root, reached through the code path."""
    d = diff_traces(_trace(_masked(b"p", (3, 4), b"k")), _trace(_masked(b"q", (2, 4), b"j")))
    assert d.reach is not None and d.reach.unresolved == []
    (root,) = d.reach.roots
    assert (root.index, root.path) == (0, [0, 1, 3, 4])
    assert {i: (c.a_ops, c.b_ops, c.decided) for i, c in root.through.items()} == {1: ((2, 2), (2, 2), -1)}
    (data,) = json.loads(render(d, "json"))["reach"]["root_causes"]
    assert data["kind"] == "host-data" and [o.get("kind", o.get("op")) for o in data["path"]] == [
        "aten.lift_fresh.default", "aten.index.Tensor", "code-path", "aten.mul.Tensor", "aten.mean.default"
    ]  # fmt: skip
    step = data["path"][2]
    assert (step["a_ops"], step["b_ops"], step["decided"]) == ([2, 2], [2, 2], None)
    assert step["text"] == "a code path that differs (A's ops 2..2 and B's ops 2..2 not aligned)"
    text = render(d, "terminal")
    assert "0 lift_fresh -> 1 index -> [a code path that differs (A's ops 2..2 and B's ops 2..2 not aligned)] -> " \
           "3 mul -> 4 mean" in text and "through 3 ops" in text  # fmt: skip


def test_a_code_path_behind_which_no_aligned_op_differs_stays_unresolved_and_says_why() -> None:
    """The mask is the same; the program kept other rows for a reason of its own (data no traced op
    saw): the stretch reads only ops that give the same bits on both sides."""
    d = diff_traces(_trace(_masked(b"p", (3, 4), b"k")), _trace(_masked(b"p", (2, 4), b"j")))
    assert d.reach is not None and d.reach.roots == []
    assert [u.split(" was")[0] for u in d.reach.unresolved] == [
        "input self of op 3 (aten.mul.Tensor)",
        "input other of op 3 (aten.mul.Tensor)",
    ]
    assert d.reach.unresolved[0] == (
        "input self of op 3 (aten.mul.Tensor) was written by op 2 in A and op 2 in B, which are not aligned (a code "
        "path), and behind a code path that differs (A's ops 2..2 and B's ops 2..2 not aligned) no op both runs ran "
        "differs: the paths part on data the trace does not hold (a decision in Python on data no traced op saw)"
    )


def test_a_code_path_decided_by_a_value_read_back_to_python_is_walked_on_from_that_op() -> None:
    """``.item()`` of a tensor that differs (op 0) decides how many rows the program keeps: the
    stretch reads nothing that differs, and the walk goes on from the value read back."""
    a = _trace(_masked(b"p", (3, 4), b"k", decide=b"y"))
    b = _trace(_masked(b"q", (2, 4), b"j", decide=b"y"))
    a.ops[0].inputs[0] = a.ops[0].inputs[0]._replace(src=-1)
    d = diff_traces(a, b)
    assert d.reach is not None and d.reach.roots == []  # the tensor read back came from before the trace
    (why,) = d.reach.unresolved
    assert why.startswith("input self of op 0 (aten._local_scalar_dense.default) differs and no traced op wrote it")
    # the same with a traced writer of what op 0 read back: the root is that writer
    ops_a, ops_b = _masked(b"p", (3, 4), b"k", decide=b"y"), _masked(b"q", (2, 4), b"j", decide=b"y")
    for ops, value in ((ops_a, b"p"), (ops_b, b"q")):
        ops.insert(0, _op(0, "aten.lift_fresh.default", [("self", b"\0", -1, False)], [("out", value, ())]))
        for k, op in enumerate(ops[1:], 1):
            op.index = k
            op.inputs = [r._replace(src=r.src + 1 if r.src >= 0 else r.src) for r in op.inputs]
        ops[1].inputs[0] = ops[1].inputs[0]._replace(src=0)
    d = diff_traces(_trace(ops_a), _trace(ops_b))
    assert d.reach is not None and d.reach.unresolved == []
    (root,) = d.reach.roots
    assert (root.index, root.path) == (0, [0, 1, 4, 5])
    (cp,) = root.through.values()
    assert (cp.a_ops, cp.b_ops, cp.decided) == ((3, 3), (3, 3), 1)
    assert cp.text() == (
        "a code path that differs (A's ops 3..3 and B's ops 3..3 not aligned, after op 1 handed a value that "
        "differs back to Python)"
    )
    step = json.loads(render(d, "json"))["reach"]["root_causes"][0]["path"][2]
    assert step["kind"] == "code-path" and step["decided"]["op"] == "aten._local_scalar_dense.default"


def test_the_walk_through_code_paths_is_linear_in_the_traces_length() -> None:
    """10,000 ops only A ran (a chain, each reading the one before) and as many only B ran, each read
    by an aligned op after them, all of which the target stacks: every op of the stretch is walked
    once, not once per reader."""
    from harness.trace.reach import reach

    n = 10_000

    def run(mask: bytes, shape: tuple[int, ...]) -> list[OpRecord]:
        ops = [_op(0, "aten.lift_fresh.default", [("self", b"\0", -1, False)], [("out", mask, (4,))])]
        ops += [_shaped(_op(k, "aten.cumsum.default", [("self", mask, k - 1, True)], [("out", mask, (4,))]), shape)
                for k in range(1, n + 1)]  # fmt: skip
        ops += [_op(n + k, "aten.neg.default", [("self", mask, k, True)], [("out", mask, (4,))])
                for k in range(1, n + 1)]  # fmt: skip
        readers = [(f"tensors[{k}]", mask, n + k, True) for k in range(1, n + 1)]
        return [*ops, _op(2 * n + 1, "aten.stack.default", readers, [("out", mask, (4,))])]

    a, b = _trace(run(b"p", (5,))), _trace(run(b"q", (6,)))
    pairs: list[tuple[int | None, int | None]] = [(0, 0), *((k, None) for k in range(1, n + 1))]
    pairs += [(None, k) for k in range(1, n + 1)] + [(n + k, n + k) for k in range(1, n + 2)]
    differing: dict[int, object] = {0: None, **{n + k: None for k in range(1, n + 2)}}
    r = reach(a, b, pairs, differing, {}, str(2 * n + 1))  # the stack of every reader
    assert r.unresolved == [] and [x.index for x in r.roots] == [0]
    assert r.roots[0].path == [0, n + 1, 2 * n + 1]  # the first reader, of the stretch's first op
    assert r.roots[0].through[0].a_ops == (1, 1) and r.roots[0].through[0].b_ops == (1, 1)


@pytest.mark.parametrize(
    ("rerun_in", "rerun_out", "threads", "says"),
    [
        (b"x", b"z", 4, r"gave op 0 \(aten.index_put_.default\) the same inputs and other outputs: the op is not "
                        r"deterministic in this configuration: its 4 threads race, so no run repeats its bits"),
        (b"x", b"z", 1, r"not deterministic in this configuration, so no run repeats"),
        (b"q", b"z", 4, r"gave other bits at op 0 \(aten.index_put_.default\): not repeatable"),
        # an input read before anything wrote it (torch.empty's memory: RWKV's initialisation): not a race
        (None, b"z", 8, r"gave op 0 \(aten.index_put_.default\) other outputs: it reads self, which no traced op "
                        r"wrote before it"),
    ],
)  # fmt: skip
def test_a_rerun_that_gives_an_op_other_bits_says_whether_its_inputs_or_the_op_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rerun_in: bytes | None, rerun_out: bytes, threads: int, says: str
) -> None:
    """Verifying a cause re-runs the program to capture the op's tensors. Where the re-run gives the op
    the same inputs and other outputs, the op itself is not deterministic (index_put_'s atomic adds on
    several threads): the verdict says so; where its inputs moved, something earlier did."""
    import subprocess

    from harness.formats.trace import Captured
    from harness.trace import cause

    def record(inp: bytes | None, out: bytes) -> list[OpRecord]:  # None: an input not fingerprinted
        ins = [("self", inp or b"", -1, inp is not None)]
        return [_op(0, "aten.index_put_.default", ins, [("out", out, (4,))], "backward")]

    traced = Trace(Path("t.h5"), {"provenance": {"threads": threads}}, record(rerun_in and b"x", b"y"))
    again = Trace(Path("again.h5"), {"provenance": {"threads": threads}}, record(rerun_in, rerun_out))
    again.captured[0] = Captured({}, {}, [])
    monkeypatch.setattr(cause, "read_trace", lambda path: again)
    (tmp_path / "again.h5").write_bytes(b"")
    done = subprocess.CompletedProcess([], 0, "", "")
    with pytest.raises(ParityError, match=says):
        cause._checked_capture(traced, [0], tmp_path / "again.h5", done)
    again.ops = record(rerun_in and b"x", b"y")  # the same bits: captured
    assert cause._checked_capture(traced, [0], tmp_path / "again.h5", done) == {0: again.captured[0]}
    again.attrs["digest"] = "mix256-v2"  # a trace of the digest before this version's: not compared
    traced.attrs["digest"] = "mix256-v1"
    with pytest.raises(ParityError, match=r"t.h5 holds mix256-v1 digests and this version traces with mix256-v2"):
        cause._checked_capture(traced, [0], tmp_path / "again.h5", done)


def _nan_sums(ops: list[OpRecord], index: int) -> list[OpRecord]:
    """The ops with op ``index``'s inputs and outputs holding NaN (float64 sums NaN), as a trace records it."""
    op = ops[index]
    op.inputs = [r._replace(sum=float("nan")) for r in op.inputs]
    op.outputs = [r._replace(sum=float("nan")) for r in op.outputs]
    return ops


@pytest.mark.parametrize("nans", [True, False])
def test_a_root_that_may_be_qemus_nan_pick_alone_is_named_so(nans: bool) -> None:
    """One side traced under qemu-x86_64: a root that reads and writes NaNs on both sides may differ by QEMU's
    pick where two NaNs meet alone (a trace holds digests, not elements): the diff says so, for that root only;
    both sides on CPUs, or no NaNs, no note."""
    from harness.platform.emulation import emulation_note

    qemu = {"arch": "x86_64", "emulation": emulation_note("x86_64", "Haswell-v4", "Intel Core (Haswell)")}
    host = {"arch": "x86_64"}
    ops_a, ops_b = _fine_tune(b"i", b"L", b"r"), _fine_tune(b"j", b"M", b"s")
    if nans:
        ops_a, ops_b = _nan_sums(ops_a, 2), _nan_sums(ops_b, 2)
    a = Trace(Path("a.h5"), {"provenance": qemu, "trace_version": SOURCES_SINCE}, ops_a)
    b = Trace(Path("b.h5"), {"provenance": host, "trace_version": SOURCES_SINCE}, ops_b)
    d = diff_traces(a, b)
    assert d.root_cause is not None and d.root_cause.a.index == 2
    picks = [n for n in d.notes if "QEMU's pick" in n]
    if nans:
        assert picks == [
            "A ran under qemu-x86_64 (-cpu Haswell-v4) and the other on a CPU: root op 2 "
            "(aten.native_layer_norm.default) reads NaNs and writes them on both sides, so its difference may be "
            "QEMU's pick where two NaNs meet alone, not the CPU's (docs/emulation.md, \"NaNs recorded under "
            'qemu-x86_64")'
        ]
        assert "QEMU's pick" in render(d, "terminal") and picks == json.loads(render(d, "json"))["notes"][-1:]
    else:
        assert picks == []
    both = diff_traces(a, Trace(Path("b.h5"), {"provenance": qemu, "trace_version": SOURCES_SINCE}, ops_b))
    assert not [n for n in both.notes if "QEMU's pick" in n]  # two runs under QEMU pick alike
