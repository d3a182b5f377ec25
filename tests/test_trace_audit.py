"""parity audit: every op of a trace that the impl replays, replayed under the trace's own profile."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.formats.trace import Captured, OpRecord, TensorRef, Trace, read_trace
from harness.trace import audit as audit_module
from harness.trace import cause

torch = pytest.importorskip("torch")

from harness.platform.config import collect_facts, supported_levels  # noqa: E402
from tests.impl_live import needs_modelled_mkl  # noqa: E402

ARM64_PAIR = Path(__file__).parent / "traces"


@pytest.fixture(scope="module")
def mlp_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two AdamW steps of the demo's Linear-LayerNorm-GELU net, traced at 2 threads on this host's
    highest level the project names."""
    level = [lvl.name for lvl in supported_levels(collect_facts())][-1]
    out = tmp_path_factory.mktemp("audit") / "mlp.h5"
    program = [sys.executable, "-m", "harness.trace.demo", "--model", "mlp"]
    assert main(["trace", "--platform", f"linux-x86_64-{level}-t2", "--out", str(out), "--", *program]) == 0
    return out


def _audit_json(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], rc: int) -> dict:
    """The JSON report; its terminal form, printed beside it, in "terminal"."""
    report = tmp_path / "audit.json"
    assert main(["audit", *args, "--output", str(report)]) == rc
    return {**json.loads(report.read_text()), "terminal": capsys.readouterr().out}


@needs_modelled_mkl  # the net's products are MKL's: the impl models its generic path
def test_every_op_the_impl_replays_gives_the_traced_bits(
    mlp_trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _audit_json([str(mlp_trace)], tmp_path, capsys, 0)
    assert data["schema"] == "parity-harness/trace-audit" and data["reproduced"] is True
    s = data["summary"]
    assert s["other"] == 0 and s["exact"] >= 100 and s["chosen"] == s["exact"] + s["refused"]
    ops = {o["op"]: o for o in data["ops"]}
    for name in ("native_layer_norm_backward", "gelu_backward", "mm", "addmm", "uniform_", "addcdiv_"):
        assert ops[name]["exact"] == ops[name]["in_trace"] > 0, name
    assert ops["add_"]["in_trace"] > 20 and sum(ops["add_"][v] for v in ("exact", "other", "refused")) == 20
    assert ops["nll_loss_forward"]["exact"] == ops["nll_loss_backward"]["exact"] == 2
    assert data["refused"] == [] and s["refused"] == 0
    assert data["unindexed"] == []  # every op of the net a knob may change is in the kernel index


def test_an_op_with_no_replay_is_refused_in_one_line_without_a_re_run(
    mlp_trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.trace import impl_ops

    monkeypatch.delitem(impl_ops.REPLAYS, "gelu")
    monkeypatch.setattr(audit_module, "capture_each", lambda *a: pytest.fail("nothing to capture"))
    data = _audit_json([str(mlp_trace), "--ops", "gelu"], tmp_path, capsys, 0)
    assert data["summary"] == {"chosen": 2, "exact": 0, "other": 0, "refused": 2}
    (gelu,) = data["refused"]
    assert gelu["op"] == "aten.gelu.default" and gelu["count"] == 2
    assert gelu["reason"] == "the reference implementation does not reproduce aten.gelu.default"
    assert "2x aten.gelu.default (op " in data["terminal"]


@needs_modelled_mkl
def test_an_op_the_impl_gets_wrong_is_shown_with_its_figures_and_exits_1(
    mlp_trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = audit_module.replay

    def one_ulp_off(op, inputs, args, profile):
        out = real(op, inputs, args, profile)
        bits = out["out"].reshape(-1).view(np.uint32)
        bits[3] += 1
        return out

    monkeypatch.setattr(audit_module, "replay", one_ulp_off)
    data = _audit_json([str(mlp_trace), "--ops", "gelu"], tmp_path, capsys, 1)
    assert data["reproduced"] is False and data["summary"] == {"chosen": 2, "exact": 0, "other": 2, "refused": 0}
    first = data["other"][0]
    assert first["op"] == "aten.gelu.default" and first["module"] == "MLP.act" and first["phase"] == "forward"
    assert "does not give out bit for bit" in first["detail"]
    assert first["figures"][0].startswith("out: 1 of ") and "max 1 ULP at [0, 3]" in first["figures"][0]
    text = data["terminal"]
    assert "gives other bits on 2 of 2 ops without refusing" in text
    assert f"op {first['index']} aten.gelu.default in MLP.act (forward, step 1)" in text.split("Other bits")[1]


@needs_modelled_mkl
def test_a_replay_that_breaks_is_a_defect_shown_in_one_line_not_a_traceback(
    mlp_trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(op, inputs, args, profile):
        raise KeyError("weight")

    monkeypatch.setattr(audit_module, "replay", broken)
    data = _audit_json([str(mlp_trace), "--ops", "mm"], tmp_path, capsys, 1)
    assert data["summary"]["other"] == data["summary"]["chosen"] > 0
    assert data["other"][0]["detail"] == "the impl's replay failed: KeyError: 'weight'"


@needs_modelled_mkl
def test_the_ops_captured_in_several_re_runs_get_the_verdicts_of_one(
    mlp_trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = [str(mlp_trace), "--ops", "mm,native_layer_norm_backward,gelu_backward", "--format", "json"]
    main(["audit", *args])
    once = json.loads(capsys.readouterr().out)
    runs: list[int] = []
    real = audit_module.capture_each
    monkeypatch.setattr(audit_module, "capture_each", lambda t, ix, d: runs.append(len(ix)) or real(t, ix, d))
    trace = read_trace(mlp_trace)
    chosen, _ = audit_module.chosen_ops(trace, 20, frozenset(args[2].split(",")))
    sizes = [audit_module._nbytes(op) for op in chosen]
    monkeypatch.setattr(audit_module, "CAPTURE_BYTES", max(sizes[0] + sizes[1], sum(sizes) // 2))  # two or three
    main(["audit", *args])
    captured = capsys.readouterr()
    again = json.loads(captured.out)
    assert len(runs) in (2, 3) and sum(runs) == once["summary"]["chosen"] == len(chosen) == 10
    assert "re-running the program for ops" in captured.err
    assert again == once


def _op(index: int, name: str, shape: tuple[int, ...], dtype: str = "float32") -> OpRecord:
    ref = TensorRef("out", b"\0" * 32, dtype, shape, 0.0)
    return OpRecord(index, name, "m", "s.py:1", "forward", 1, "", [ref._replace(name="self")], [ref])


def test_ops_a_knob_may_change_outside_the_kernel_index_are_listed_apart() -> None:
    """Moves, exact element-wise ops and ops without a floating output need no replay; an op a knob may
    change that the impl does not hold (erfc, tan and asin: MKL VML's, whose kernel is the CPU's) is counted
    apart, not passed over; one the impl replays (clamp by tensors, mse_loss, sin, a cast into bfloat16 or float16
    from float32 by _to_copy or copy_) is not."""
    cast = _op(7, "aten.copy_.default", (4,), "bfloat16")  # bfloat16 into bfloat16: its bits kept
    cast_down = replace(cast, index=8, inputs=_op(8, "aten.copy_.default", (4,)).inputs)  # float32 in
    half = _op(14, "aten.copy_.default", (4,), "float16")
    half_down = replace(half, index=15, inputs=cast_down.inputs)  # float32 into float16: F16C's or c10's NaN bits
    replayed_cast = replace(cast_down, index=16, op="aten._to_copy.default")
    ops = [
        _op(0, "aten.cat.default", (4,)), _op(1, "aten.erfc.default", (4,)), _op(2, "aten.tan.default", (4,)),
        _op(3, "aten.tan.default", (4,)), _op(4, "aten.clamp.default", (4,)), _op(5, "aten.asin.default", (4,)),
        _op(6, "aten.eq.Tensor", (4,), "bool"), cast, cast_down,
        _op(9, "aten.native_layer_norm.default", (4,)), _op(10, "aten.neg.default", (4,)),
        _op(11, "aten.clamp.Tensor", (4,)), _op(12, "aten.mse_loss.default", ()), _op(13, "aten.sin.default", (4,)),
        half, half_down, replayed_cast,
    ]  # fmt: skip
    trace = Trace(Path("t.h5"), {}, ops)
    assert audit_module.unindexed_ops(trace) == {"tan": 2, "asin": 1, "erfc": 1}
    audit = audit_module.Audit("t.h5", "p", "avx2 t1", 20, {}, [], audit_module.unindexed_ops(trace))
    data = audit_module.report_dict(audit)
    assert data["unindexed"][0] == {"op": "tan", "count": 2}
    (lines,) = [body for title, body in audit_module.sections(data) if title.startswith("Not audited")]
    assert lines == ["tan 2, asin 1, erfc 1"]


def test_batches_keep_trace_order_and_put_an_op_larger_than_the_limit_alone() -> None:
    ops = [_op(0, "aten.mm.default", (10, 10)), _op(1, "aten.mm.default", (100, 100)), _op(2, "aten.mm.default", (5,))]
    sizes = [[op.index for op in b] for b in audit_module.batches(ops, 1_000)]
    assert sizes == [[0], [1], [2]]  # 800 bytes, then 80,000 alone, then 40
    assert [[op.index for op in b] for b in audit_module.batches(ops, 100_000)] == [[0, 1, 2]]
    assert [[op.index for op in b] for b in audit_module.batches(ops, 80_820)] == [[0, 1], [2]]


def test_an_op_that_came_out_otherwise_is_its_own_line_not_the_whole_capture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A racing op in one re-run leaves the other ops of the same re-run captured."""

    def record(index: int, out: bytes) -> OpRecord:
        ref = TensorRef("self", b"x" * 32, "float32", (4,), 0.0)
        outputs = [ref._replace(name="out", digest=out)]
        return OpRecord(index, "aten.index_put_.default", "m", "s", "backward", 1, "", [ref], outputs)

    traced = Trace(Path("t.h5"), {"provenance": {"threads": 2}}, [record(0, b"y" * 32), record(1, b"y" * 32)])
    again = Trace(Path("again.h5"), {"provenance": {"threads": 2}}, [record(0, b"y" * 32), record(1, b"z" * 32)])
    again.captured = {0: Captured({}, {}, []), 1: Captured({}, {}, [])}
    monkeypatch.setattr(cause, "read_trace", lambda path: again)
    (tmp_path / "again.h5").write_bytes(b"")
    done = subprocess.CompletedProcess([], 0, "", "")
    found = cause._captured_each(traced, [0, 1], tmp_path / "again.h5", done)
    assert found[0] is again.captured[0]
    assert isinstance(found[1], str) and "its 2 threads race" in found[1]
    # other inputs in the re-run of a program whose string hash order was random: the line says so
    # (Gemma 3's rotary ops at 8 threads, 2 of 4 re-runs)
    again.ops = [record(0, b"y" * 32), record(1, b"y" * 32)]
    again.ops[1].inputs = [again.ops[1].inputs[0]._replace(digest=b"w" * 32)]
    traced.attrs["provenance"]["python_hash_seed"] = {"hash_randomization": True, "PYTHONHASHSEED": None}
    found = cause._captured_each(traced, [0, 1], tmp_path / "again.h5", done)
    assert isinstance(found[1], str) and "not repeatable (its program ran with a random PYTHONHASHSEED" in found[1]


def test_a_trace_holding_its_ops_in_full_is_audited_without_running_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed arm64 trace holds layer norm backward's first op in full: replayed under the
    emulated Neoverse N1's profile on this host, nothing re-run."""
    monkeypatch.setattr(cause.subprocess, "run", lambda *a, **k: pytest.fail("nothing should run"))
    args = [str(ARM64_PAIR / "arm64-mlp-n1-t1.h5"), "--ops", "native_layer_norm_backward", "--per-op", "1"]
    data = _audit_json(args, tmp_path, capsys, 0)
    assert data["profile"] == "arm64-neon t1" and data["platform_id"] == "linux-arm64-neoverse-n1-nvpl-t1"
    assert data["summary"] == {"chosen": 1, "exact": 1, "other": 0, "refused": 0}
    assert data["ops"] == [{"op": "native_layer_norm_backward", "in_trace": 2, "exact": 1, "other": 0, "refused": 0}]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--per-op", "x", "t.h5"], "argument --per-op: not a count of ops: 'x'"),
        (["missing.h5"], "missing.h5: no such file"),
        (["harness/fixtures/torch-2.13.0/linux-x86_64-baseline-mklgeneric-t1.h5"], "fixture, expected 'trace'"),
        ([str(ARM64_PAIR / "arm64-mlp-n1-t1.h5"), "--ops", "ln"], "--ops: ln is not an op the impl knows"),
        ([str(ARM64_PAIR / "arm64-mlp-n1-t1.h5"), "--output", "."], "is a directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        rc = main(["audit", *args])
    except SystemExit as done:  # argparse's own errors end the parser
        rc = done.code
    assert rc == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
