"""parity trace: the recorder, the trace file, alignment and root cause, the knob and its proof."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.formats.trace import SOURCES_SINCE, Captured, OpRecord, TensorRef, Trace, read_trace, write_trace
from harness.trace.diff import align, diff_traces

torch = pytest.importorskip("torch")

from harness.core.digest import TRACE_ALGORITHM, digest, fingerprint_at  # noqa: E402
from harness.core.errors import ParityError  # noqa: E402
from harness.platform.config import collect_facts, supported_levels  # noqa: E402
from harness.trace.recorder import recording, tracing  # noqa: E402
from tests.conftest import BACKENDS  # noqa: E402
from tests.impl_live import needs_modelled_mkl  # noqa: E402


def _digest(a: np.ndarray) -> bytes:
    return digest(np.ascontiguousarray(a), TRACE_ALGORITHM)


def _recorded_by(tracer, backend: str) -> None:
    assert tracer.backend == backend, tracer.backend_note


def test_recorder_fingerprints_inputs_before_and_outputs_after(backend: str) -> None:
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    with recording() as tracer:
        y = torch.exp(x)
        before = y.clone()
        y.add_(1.0)
        buf = torch.empty(4)
        v = y.t()
        z = v @ torch.ones(2, 2)
    _recorded_by(tracer, backend)
    ops = {op.op: op for op in tracer.ops}
    exp = ops["aten.exp.default"]
    assert exp.inputs[0].digest == _digest(x.numpy()) and exp.outputs[0].digest == _digest(before.numpy())
    assert exp.outputs[0].sum == pytest.approx(float(before.double().sum()))
    add = ops["aten.add_.Tensor"]
    assert add.inputs[0].digest == _digest(before.numpy())  # read before it ran
    assert add.outputs[0].digest == _digest(y.numpy())
    assert add.args == "other=1.0"
    assert not ops["aten.empty.memory_format"].outputs[0].fingerprinted  # allocated, never written
    assert not ops["aten.t.default"].outputs[0].fingerprinted  # a view: its bits are y's
    mm = ops["aten.mm.default"]
    assert mm.inputs[0].digest == _digest(v.numpy())  # the view in C order, where an op computes with it
    assert mm.outputs[0].digest == _digest(z.numpy())
    assert {op.phase for op in tracer.ops} == {"other"}
    assert buf.shape == (4,)


def test_capturing_every_op_leaves_a_parameter_made_after_them_alone(backend: str) -> None:
    """nn.Linear makes its weight with nn.Parameter, whose _make_subclass detaches the tensor: the dispatcher
    hook handed that detach's output to Python when captured, so the subclass could not take it ("already
    associated to a python object"). A view holds no bits of its own and is not captured."""
    with recording(capture=list(range(40))) as tracer:
        layer = torch.nn.Linear(3, 4)
        layer(torch.ones(2, 3))
    _recorded_by(tracer, backend)
    assert isinstance(layer.weight, torch.nn.Parameter)
    addmm = next(i for i, op in enumerate(tracer.ops) if op.op == "aten.addmm.default")
    assert addmm in tracer.captured


def test_a_captured_tensors_address_past_64_bytes_is_kept_where_not_0(backend: str) -> None:
    """MKL peels its sums by its operands' addresses: a captured op's arguments keep how far each tensor's
    first element lies past a 64-byte boundary ("align", in bytes), left out where it is 0 (torch's own
    allocations are 64-byte aligned)."""
    buf = torch.ones(64, dtype=torch.float32)
    w = torch.ones(4, 3)
    with recording(capture=list(range(20))) as tracer:
        torch.mm(buf[3:15].view(4, 3), w.t())  # 12 bytes past the buffer's start
        torch.mm(buf[16:28].view(4, 3), w.t())  # 64 bytes past it: aligned
    _recorded_by(tracer, backend)
    first, second = (tracer.captured[i].args for i, op in enumerate(tracer.ops) if op.op == "aten.mm.default")
    assert [arg.get("align", 0) for arg in first] == [(buf.data_ptr() + 12) % 64, w.data_ptr() % 64]
    assert "align" not in second[0] and buf.data_ptr() % 64 == 0


def test_the_ctc_losss_log_alpha_is_scratch_memory_not_fingerprinted(backend: str) -> None:
    """``_ctc_loss`` writes its ``log_alpha`` only within each sequence's lengths (the rest is what the
    memory held, other on every call): the loss is fingerprinted, log_alpha nowhere."""
    logits = torch.from_numpy(np.random.default_rng(0).standard_normal((12, 3, 6)).astype(np.float32))
    logits.requires_grad_(True)
    targets = torch.tensor([[1, 2, 3], [2, 2, 0], [4, 0, 0]])
    with recording() as tracer:
        loss = torch.nn.functional.ctc_loss(logits.log_softmax(2), targets, [12, 9, 5], [3, 2, 1])
        loss.backward()
    _recorded_by(tracer, backend)
    ops = {op.op: op for op in tracer.ops}
    forward, backward = ops["aten._ctc_loss.default"], ops["aten._ctc_loss_backward.default"]
    assert [o.fingerprinted for o in forward.outputs] == [True, False]
    assert [(r.name, r.fingerprinted) for r in backward.inputs if r.name == "log_alpha"] == [("log_alpha", False)]
    assert all(o.fingerprinted for o in backward.outputs)


def test_a_captured_op_keeps_an_input_filled_by_code_that_dispatches_no_op(backend: str) -> None:
    """ctc_loss's mean divides by ``at::tensor(target_lengths).clamp_min(1)``: at::tensor fills memory from
    ``empty`` without an op, so clamp_min's self is not fingerprinted, but a capture keeps it (what the
    replay reads); an out= tensor from ``empty`` it writes is not kept."""
    from harness.impl.profiles import profile_for_capability
    from harness.trace.impl_ops import replay

    logits = torch.from_numpy(np.random.default_rng(0).standard_normal((12, 3, 6)).astype(np.float32))
    targets = torch.tensor([[1, 2, 3], [2, 2, 0], [4, 0, 0]])
    with recording(capture=list(range(40))) as tracer:
        torch.nn.functional.ctc_loss(logits.log_softmax(2), targets, [12, 9, 5], [3, 2, 0])
        buf = torch.empty(3)
        torch.exp(torch.ones(3), out=buf)
    _recorded_by(tracer, backend)
    i = next(i for i, op in enumerate(tracer.ops) if op.op == "aten.clamp_min.default")
    assert not tracer.ops[i].inputs[0].fingerprinted
    cap = tracer.captured[i]
    assert cap.inputs["self"].tolist() == [3.0, 2.0, 0.0]
    profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), 1, platform.machine())
    assert replay(tracer.ops[i].op, cap.inputs, cap.args, profile)["out"].tolist() == [3.0, 2.0, 1.0]
    j = next(i for i, op in enumerate(tracer.ops) if op.op == "aten.exp.out")
    assert "out" not in tracer.captured[j].inputs


def test_recorder_names_modules_phases_steps_and_call_sites(tmp_path: Path, backend: str) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(2, 4)
    with tracing(tmp_path / "t.h5", capture=[2]) as tracer:
        for _ in range(2):
            model(x).sum().backward()  # the call site of the forward ops
            opt.step()
            opt.zero_grad()
    trace = read_trace(tmp_path / "t.h5")
    assert trace.attrs["tracer"] == backend
    assert [_no_sums(op) for op in trace.ops] == [_no_sums(op) for op in tracer.ops]
    ln = [op for op in trace.ops if op.op == "aten.native_layer_norm.default"]
    assert [op.module for op in ln] == ["Sequential.1", "Sequential.1"] and [op.step for op in ln] == [1, 2]
    assert ln[0].site.endswith(f"test_trace.py:{_line_of(Path(__file__), '# the call site of the forward ops')}")
    back = [op for op in trace.ops if op.op == "aten.native_layer_norm_backward.default"]
    assert back[0].phase == "backward" and back[0].module == "Sequential.1" and back[0].site == ln[0].site
    assert any(op.phase == "optimizer" and op.module == "SGD(Sequential.0.weight)" for op in trace.ops)
    assert trace.provenance["threads"] == torch.get_num_threads()
    cap = trace.captured[2]
    assert set(cap.inputs) == {r.name for r in trace.ops[2].inputs if r.fingerprinted}
    for r in trace.ops[2].outputs:
        assert _digest(cap.outputs[r.name]) == r.digest


def _no_sums(op: OpRecord) -> tuple:
    """An op's record without its float64 sums (NaN where not fingerprinted, never equal to itself)."""
    return (op.op, op.module, op.site, op.phase, op.step, [r._replace(sum=0) for r in (*op.inputs, *op.outputs)])


def _line_of(path: Path, marker: str) -> int:
    return next(
        i for i, line in enumerate(path.read_text().splitlines(), 1) if marker in line and "_line_of" not in line
    )


def _op(i: int, op: str, ins: list[bytes], outs: list[bytes], step: int = 1, module: str = "m") -> OpRecord:
    t = lambda name, d: TensorRef(name, d * 32, "float32", (2,), 0.0)
    return OpRecord(i, op, module, "x.py:1", "forward", step, "", [t(f"in{k}", d) for k, d in enumerate(ins)],
                    [t("out", d) for d in outs])  # fmt: skip


def _trace(ops: list[OpRecord], prov: dict | None = None) -> Trace:
    return Trace(Path("t.h5"), {"provenance": prov or {}}, ops)


def test_streams_of_different_length_align_and_the_root_cause_is_the_first_op_with_equal_inputs() -> None:
    a = [_op(0, "aten.a", [b"1"], [b"2"]), _op(1, "aten.b", [b"2"], [b"3"]), _op(2, "aten.c", [b"3"], [b"4"])]
    b = [_op(0, "aten.a", [b"1"], [b"2"]), _op(1, "aten.x", [b"2"], [b"2"]), _op(2, "aten.x", [b"2"], [b"2"]),
         _op(3, "aten.b", [b"2"], [b"5"]), _op(4, "aten.c", [b"5"], [b"6"])]  # fmt: skip
    assert align(a, b) == [(0, 0), (None, 1), (None, 2), (1, 3), (2, 4)]
    d = diff_traces(_trace(a), _trace(b))
    assert d.root_cause is not None and (d.root_cause.a.index, d.root_cause.b.index) == (1, 3)
    assert (d.only_a, d.only_b, d.differing_ops) == (0, 2, 2) and not d.bit_identical
    assert d.code_path is not None and [o.op for o in d.code_path.b_ops] == ["aten.x", "aten.x"]
    same = diff_traces(_trace(a), _trace(a))
    assert same.bit_identical and same.root_cause is None


def test_a_difference_that_follows_a_code_path_has_no_root_cause_among_matched_ops() -> None:
    a = [_op(0, "aten.a", [b"1"], [b"2"]), _op(1, "aten.c", [b"2"], [b"4"])]
    b = [_op(0, "aten.a", [b"1"], [b"2"]), _op(1, "aten.x", [b"2"], [b"9"]), _op(2, "aten.c", [b"9"], [b"7"])]
    d = diff_traces(_trace(a), _trace(b))
    assert d.root_cause is None and d.first_difference is not None
    assert d.code_path is not None and [o.op for o in d.code_path.b_ops] == ["aten.x"]


def test_the_knob_is_the_one_that_differs_and_reaches_the_op() -> None:
    from harness.trace.cause import explain

    base = {"threads": 1, "capability": "AVX2", "cpu_model": "X", "env": {"ONEDNN_MAX_CPU_ISA": "AVX2"}}
    other = {**base, "threads": 2, "cpu_model": "Y"}

    def cause(op: str, args: str = ""):
        a, b = _op(0, op, [b"1"], [b"2"]), _op(0, op, [b"1"], [b"3"])
        a.args = b.args = args
        return explain(diff_traces(_trace([a], base), _trace([b], other)))

    ln = cause("aten.native_layer_norm_backward.default")
    assert ln is not None and ln.knobs == ["threads"] and ln.kernel == "layer_norm"
    assert (
        set(ln.differing) == {"threads", "cpu_model"} and "thread count (weight and bias gradients)" in ln.explanation
    )
    emb = cause("aten.embedding_dense_backward.default")  # nothing reaches embedding's bits
    assert emb is not None and emb.knobs == [] and emb.explanation.startswith("unexplained")
    assert cause("aten.gelu.default", "approximate='tanh'").kernel == "gelu_tanh"
    from harness.trace.impl_ops import kernel_op

    assert kernel_op("aten.index_add.default", "dim=0, alpha=0.5") == ("index_add", ("capability",))  # fused at avx2
    plain = ("index_add", ())
    assert kernel_op("aten.index_add.default", "dim=0, alpha=1") == kernel_op("aten.index_add_.default") == plain
    unknown = cause("aten.erfc.default")  # MKL VML on x86: not reproduced, so not in the index
    assert unknown is not None and unknown.knobs == [] and "not in the kernel index" in unknown.explanation


def test_trace_file_roundtrip_keeps_every_field(tmp_path: Path) -> None:
    ops = [_op(0, "aten.a", [b"1"], [b"2"]), _op(1, "aten.b", [b"2"], [b"3"], step=2, module="")]
    cap = {
        1: Captured({"in0": np.arange(3, dtype=np.float32)}, {"out": np.ones(2)}, [{"name": "self", "tensor": "in0"}])
    }
    write_trace(tmp_path / "t.h5", {"provenance": {"threads": 3}, "command": ["python", "x.py"]}, ops, cap)
    back = read_trace(tmp_path / "t.h5")
    assert back.ops == ops and back.provenance == {"threads": 3} and back.attrs["command"] == ["python", "x.py"]
    assert back.captured[1].args == cap[1].args
    np.testing.assert_array_equal(back.captured[1].inputs["in0"], cap[1].inputs["in0"])


def test_a_captured_argument_of_inf_or_nan_reads_back(tmp_path: Path) -> None:
    # a masked_fill with -inf (an attention mask): JSON has no number for it, the strict reader refused it
    args = [{"name": "value", "value": -np.inf}, {"name": "bounds", "value": [np.inf, 1.5]}]
    args.append({"name": "v", "value": np.nan})
    write_trace(tmp_path / "t.h5", {"provenance": {}}, [_op(0, "aten.a", [b"1"], [b"2"])], {0: Captured({}, {}, args)})
    back = read_trace(tmp_path / "t.h5").captured[0].args
    assert back[:2] == args[:2] and np.isnan(back[2]["value"])


def _levels() -> list[str]:
    return [lvl.name for lvl in supported_levels(collect_facts())]


def _trace_run(tmp_path: Path, name: str, platform: str, *extra: str) -> Path:
    out = tmp_path / f"{name}.h5"
    program = [sys.executable, "-m", "harness.trace.demo", "--model", "mlp", *extra]
    rc = main(["trace", "--platform", platform, "--out", str(out), "--", *program])
    assert rc == 0 and out.exists()
    return out


def _diff_json(a: Path, b: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    report = tmp_path / "diff.json"
    assert main(["diff", str(a), str(b), "--verify-cause", "--output", str(report)]) == 1
    capsys.readouterr()
    return json.loads(report.read_text())


@needs_modelled_mkl  # the expected root presumes MKL's generic path (its products and sqrt alike at both)
def test_one_vs_two_threads_on_a_model_no_fixture_knows_with_a_longer_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two AdamW steps of a Linear-LayerNorm-GELU net at 1 then 2 threads; the 2-thread run also
    copies its inputs (ops the other lacks). The root cause, its call site, knob and proof."""
    if "avx2" not in _levels():
        pytest.skip("needs a CPU with AVX2")
    a = _trace_run(tmp_path, "t1", "linux-x86_64-avx2-t1")
    b = _trace_run(tmp_path, "t2", "linux-x86_64-avx2-t2", "--extra-op")
    data = _diff_json(a, b, tmp_path, capsys)
    assert data["summary"]["only_b"] == 2 and data["summary"]["only_a"] == 0  # one clone per step
    root = data["root_cause"]
    assert root["op"] == "aten.mm.default" and root["module"] == "MLP.fc2" and root["phase"] == "backward"
    assert root["site"].endswith("harness/trace/demo.py:30")  # the forward line that made the backward node
    assert root["knobs"] == ["threads"] and root["kernel"] == "matmul"
    assert root["verified"] is True and "changing only the intra-op thread count" in root["verification"]
    assert root["ulp"][0]["max_ulp"] > 0 and root["index_b"] == root["index_a"] + 1
    assert data["platforms"] == {"threads": ["1", "2"]}


@needs_modelled_mkl  # the expected root presumes MKL's generic path (its products and sqrt alike at both)
def test_avx2_vs_baseline_names_layer_norm_and_the_capability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not {"avx2", "baseline"} <= set(_levels()):
        pytest.skip("needs a CPU with AVX2")
    a = _trace_run(tmp_path, "avx2", "linux-x86_64-avx2-t1")
    b = _trace_run(tmp_path, "base", "linux-x86_64-baseline-t1")
    data = _diff_json(a, b, tmp_path, capsys)
    root = data["root_cause"]
    assert (root["op"], root["module"], root["phase"]) == ("aten.native_layer_norm.default", "MLP.ln", "forward")
    assert root["knobs"] == ["capability"] and root["verified"] is True
    assert [u["name"] for u in root["ulp"]] == ["out0", "out1", "out2"]
    for fmt in ("terminal", "markdown", "html"):
        assert main(["diff", str(a), str(b), "--format", fmt]) == 1
        assert "native_layer_norm" in capsys.readouterr().out


_FINE_TUNE = """
import numpy as np
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(24, 40), torch.nn.LayerNorm(40), torch.nn.Linear(40, 5))
for p in model.parameters():
    torch.nn.init.normal_(p, 0.0, 0.02)  # the library's initialisation
rng = np.random.default_rng(1)
with torch.no_grad():  # then the checkpoint's weights over it
    for p in model.parameters():
        p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.1).astype(np.float32)))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
x = torch.from_numpy(rng.standard_normal((33, 24)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 5, 33))
for _ in range(2):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def _trace_avx2_and_baseline(program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    """`parity trace` of ``program`` at avx2 and at baseline, 1 thread each; their `parity diff --json`."""
    runs = {}
    for name, platform_id in (("avx2", "linux-x86_64-avx2-t1"), ("base", "linux-x86_64-baseline-t1")):
        runs[name] = tmp_path / f"{name}.h5"
        cmd = ["trace", "--platform", platform_id, "--out", str(runs[name]), "--", sys.executable, str(program)]
        assert main(cmd) == 0
    return _diff_json(runs["avx2"], runs["base"], tmp_path, capsys)


@needs_modelled_mkl  # the expected root presumes MKL's generic path (its products and sqrt alike at both)
def test_a_fine_tune_names_the_root_that_reaches_the_result_and_the_overwritten_initialisation_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """normal_ differs between avx2 and baseline but the loaded weights overwrite it: the root cause
    is layer_norm, whose difference reaches the optimizer's state; normal_ is listed as dead."""
    if not {"avx2", "baseline"} <= set(_levels()):
        pytest.skip("needs a CPU with AVX2")
    program = tmp_path / "fine_tune.py"
    program.write_text(_FINE_TUNE)
    data = _trace_avx2_and_baseline(program, tmp_path, capsys)
    root = data["root_cause"]
    assert (root["op"], root["module"], root["phase"]) == ("aten.native_layer_norm.default", "Sequential.1", "forward")
    assert root["verified"] is True and root["knobs"] == ["capability"]
    reach = data["reach"]
    assert reach["target_differs"] and reach["root_causes"][0]["index_a"] == root["index_a"]
    assert reach["root_causes"][0]["path"][-1]["phase"] == "optimizer"
    dead = [d for d in reach["dead"] if d["op"] == "aten.normal_.default"]
    assert dead and all(d["died"].startswith("overwritten by aten.copy_.default at op ") for d in dead)
    assert all(d["index_a"] < root["index_a"] for d in dead)  # earlier in the stream, yet not the cause


_FOREACH_ADAMW = """
import numpy as np
import torch

rng = np.random.default_rng(0)
ps = [torch.nn.Parameter(torch.from_numpy(rng.standard_normal(n).astype(np.float32))) for n in (300, 37)]
opt = torch.optim.AdamW(ps, lr=0.01, foreach=True, weight_decay=0.1)
for _ in range(2):
    for p in ps:
        p.grad = torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32))
    opt.step()
"""


@needs_modelled_mkl  # the expected root presumes MKL's generic path (its products and sqrt alike at both)
def test_an_in_place_foreach_op_is_the_verified_root_cause(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """AdamW with foreach=True at avx2 vs baseline: the ops it runs return nothing, and the first
    whose writes differ (step 2's _foreach_lerp_: step 1's moments start at zero) is the root cause,
    verified by the digests of the later ops that read what it wrote."""
    if not {"avx2", "baseline"} <= set(_levels()):
        pytest.skip("needs a CPU with AVX2")
    program = tmp_path / "adamw.py"
    program.write_text(_FOREACH_ADAMW)
    data = _trace_avx2_and_baseline(program, tmp_path, capsys)
    root = data["root_cause"]
    assert (root["op"], root["phase"], root["step"]) == ("aten._foreach_lerp_.Scalar", "optimizer", 2)
    assert root["outputs"] == [] and root["knobs"] == ["capability"]
    assert root["verified"] is True, root


def test_trace_command_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "--out", str(tmp_path / "t.h5")]) == 2
    assert capsys.readouterr().err.startswith("parity: error: nothing to trace")
    write_trace(tmp_path / "t.h5", {"provenance": {}}, [_op(0, "aten.a", [b"1"], [b"2"])], {})
    fixture = Path(__file__).resolve().parents[1] / "harness" / "fixtures" / "torch-2.13.0"
    other = next(fixture.glob("*.h5"))
    assert main(["diff", str(tmp_path / "t.h5"), str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("parity: error: ") and err.count("\n") == 1
    assert main(["diff", str(tmp_path / "t.h5"), str(tmp_path / "t.h5")]) == 0
    for target, says in (("7", "--target 7: A has 1 ops"), ("fc9", "--target fc9: not an op index of A")):
        assert main(["diff", str(tmp_path / "t.h5"), str(tmp_path / "t.h5"), "--target", target]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"parity: error: {says}") and err.count("\n") == 1
    assert main(["diff", str(other), str(other), "--target", "loss"]) == 2
    assert "--target is for two traces" in capsys.readouterr().err
    other_python = tmp_path / "bin" / "python3"  # an interpreter without this package
    other_python.parent.mkdir()
    other_python.write_text("#!/bin/sh\nexit 1\n")
    other_python.chmod(0o755)
    assert main(["trace", "--out", str(tmp_path / "u.h5"), "--", str(other_python), "train.py"]) == 2
    err = capsys.readouterr().err
    assert "does not have parity-harness installed" in err and err.count("\n") == 1
    assert not (tmp_path / "u.h5").exists()
    other_python.write_text("#!/bin/sh\necho torch h5py\n")  # finds this package (from the cwd) but not its needs
    assert main(["trace", "--out", str(tmp_path / "u.h5"), "--", str(other_python), "train.py"]) == 2
    err = capsys.readouterr().err
    assert "cannot run the tracer: it lacks torch, h5py; install them there" in err and err.count("\n") == 1


def test_program_failure_still_writes_the_trace(tmp_path: Path, backend: str) -> None:
    script = tmp_path / "boom.py"
    script.write_text("import sys, torch\ntorch.ones(3).exp()\nsys.exit(3)\n")
    out = tmp_path / "t.h5"
    proc = subprocess.run([sys.executable, "-m", "harness.trace.run", "--out", str(out), "--", str(script)])
    assert proc.returncode == 3
    trace = read_trace(out)
    assert [op.op for op in trace.ops if op.op.startswith("aten.exp")] == ["aten.exp.default"]
    assert trace.attrs["tracer"] == backend


def test_a_capture_reruns_with_this_harness_not_one_in_the_traces_working_directory(tmp_path: Path) -> None:
    """A ``-m`` program traced in a directory that holds a ``harness`` package of its own (a checkout
    changed since, here one that cannot be imported): the re-run records with this harness's tracer,
    and the program's module still comes from that directory."""
    from harness.trace.cause import capture_ops

    (tmp_path / "prog.py").write_text("import torch\ntorch.ones(3).exp().sum()\n")
    out = tmp_path / "t.h5"
    rerun = [sys.executable, "-m", "harness.trace.run", "--out", str(out), "--", "-m", "prog"]
    assert subprocess.run(rerun, cwd=tmp_path).returncode == 0
    trace = read_trace(out)
    exp = next(i for i, op in enumerate(trace.ops) if op.op == "aten.exp.default")
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "__init__.py").write_text("raise SystemExit('another harness')\n")
    (captured,) = capture_ops(trace, [exp], tmp_path).values()
    (values,) = captured.outputs.values()
    assert values.tobytes() == torch.ones(3).exp().numpy().tobytes()


def test_a_capture_whose_working_directory_is_gone_is_refused_in_one_line(tmp_path: Path) -> None:
    from harness.trace.cause import capture_ops

    gone = tmp_path / "checkout"
    trace = Trace(tmp_path / "a.h5", {"provenance": {}, "command": ["train.py"], "cwd": str(gone)}, [])
    with pytest.raises(ParityError, match=f"its program ran in {gone}, which is gone, so it cannot be run again"):
        capture_ops(trace, [0], tmp_path)


def test_normal_replays_from_a_captured_generator_state(backend: str) -> None:
    """The impl draws torch's normal_ from the generator state a trace captures (the cached
    Box-Muller sample and a moved engine included)."""
    from harness.impl.profiles import profile_for_capability
    from harness.trace.impl_ops import replay

    torch.manual_seed(1337)
    torch.randn(5)
    profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), 1, platform.machine())
    for n in (7, 1000):
        with recording(capture=[1]) as tracer:
            out = torch.empty(n).normal_(0.0, 0.02)
        cap = tracer.captured[1]
        _recorded_by(tracer, backend)
        assert tracer.ops[1].op == "aten.normal_.default" and "generator_state" in cap.inputs
        again = replay(tracer.ops[1].op, cap.inputs, cap.args, profile)["out"]
        assert (again.view(np.uint32) == out.numpy().view(np.uint32)).all()


def test_a_generator_seeded_at_run_time_is_told_apart_from_draws_that_differ_in_number(backend: str) -> None:
    """A random op's generator state carries its initial seed: two runs whose dropout draws from a
    generator seeded differently (Reformer's ``torch.seed()``) are told so, with the seeds; two runs
    that drew a different number of numbers first are told that instead."""

    def run(seed: int, extra: int) -> Trace:
        torch.manual_seed(seed)
        w = torch.ones(64, requires_grad=True)
        with recording() as tracer:
            torch.rand(extra)
            (torch.nn.functional.dropout(w, 0.5) * 2).sum().backward()
        _recorded_by(tracer, backend)
        return Trace(Path("t.h5"), {"provenance": {}, "trace_version": SOURCES_SINCE}, tracer.ops)

    reseeded = diff_traces(run(11, 3), run(12, 3))
    assert reseeded.reach is not None and reseeded.root_cause is None
    assert any("seeded differently (initial seed 11 in A, 12 in B)" in why for why in reseeded.reach.unresolved)
    more_draws = diff_traces(run(11, 3), run(11, 4))
    assert more_draws.reach is not None and more_draws.root_cause is None
    assert any("earlier draws differ in number" in why for why in more_draws.reach.unresolved)
    from harness.trace.reach import _generator_note  # seeds of 64 bits (torch.seed()'s) kept as float64: not printed

    assert "two different 64-bit initial seeds" in _generator_note(float(2**63 - 25), 2.0**62)


def test_fingerprint_cache_follows_writes_views_dtypes_and_dying_tensors(backend: str) -> None:
    """The recorder's cache (csrc/hook.cpp's, or csrc/tracer.c's through the mode): an input takes the
    fingerprint of its current bytes, whoever wrote them and however it is viewed; entries go with
    their tensors."""
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    with recording() as tracer:
        a = x * 2  # a's fingerprint is cached when mul writes it
        b = a + 1  # a read from the cache
        a.mul_(3)  # written in place: the version counter moves on
        c = a + 1  # a fingerprinted anew
        d = a.t().contiguous()  # a non-contiguous view as an input
        i = torch.tensor([2, 0], dtype=torch.int64)
        g = a.index_select(0, i)  # int64 input: digest of its bytes, NumPy's sum
        m = a > 10  # bool output
        with torch.inference_mode():
            e = torch.ones(2) * 2  # inference tensors have no version counter: never cached
        f = e + 1
        n = tracer.cached()
        kept = {name: t.numpy().copy() for name, t in dict(d=d, g=g, m=m, e=e, f=f, i=i).items()}  # no ops
        del a, b, c, d, g, m, f, i
        assert n >= 5 and tracer.cached() < n  # the dead tensors' entries are gone
    _recorded_by(tracer, backend)
    adds = [op for op in tracer.ops if op.op == "aten.add.Tensor"]
    assert adds[0].inputs[0].digest == _digest((x * 2).numpy())
    assert adds[1].inputs[0].digest == _digest((x * 6).numpy())
    clone = next(op for op in tracer.ops if op.op == "aten.clone.default")
    assert clone.inputs[0].digest == _digest((x * 6).numpy().T) and clone.outputs[0].digest == _digest(kept["d"])
    index = next(op for op in tracer.ops if op.op == "aten.index_select.default")
    assert index.inputs[1].digest == _digest(kept["i"]) and index.inputs[1].sum == 2.0
    assert index.outputs[0].digest == _digest(kept["g"])
    gt = next(op for op in tracer.ops if op.op == "aten.gt.Scalar")
    assert gt.outputs[0].digest == _digest(kept["m"]) and gt.outputs[0].dtype == "bool"
    assert adds[-1].inputs[0].digest == _digest(kept["e"]) and adds[-1].outputs[0].digest == _digest(kept["f"])


def test_a_copy_of_a_view_onto_itself_reads_its_source(backend: str) -> None:
    """``x[1:] += y`` adds in place, then its setitem copies the slice onto itself (``copy_`` whose
    ``src`` views the bytes its overwritten ``self`` holds): ``src`` is read and fingerprinted, and
    leads back to the ``add_`` that wrote it, not taken for the blank an overwritten input leaves."""
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    y = torch.full((4,), 0.5)
    with recording() as tracer:
        x[1:] += y
    _recorded_by(tracer, backend)
    add = next(op for op in tracer.ops if op.op == "aten.add_.Tensor")
    copy = next(op for op in tracer.ops if op.op == "aten.copy_.default")
    src = next(r for r in copy.inputs if r.name == "src")
    dst = next(r for r in copy.inputs if r.name == "self")
    assert src.fingerprinted and src.digest == _digest(x[1:].numpy()) == add.outputs[0].digest
    assert src.src == add.index and not dst.fingerprinted
    assert copy.outputs[0].fingerprinted and copy.outputs[0].digest == src.digest


def test_a_write_in_place_that_torch_does_not_count_is_read_anew(backend: str) -> None:
    """clip_grad_norm_ scales the gradients with _foreach_mul_, which under a dispatch mode leaves
    their version counters alone: the optimizer's ops still read the scaled gradients' bits."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 6)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    with recording() as tracer:
        (lin(torch.ones(2, 4)) * 10).sum().backward()
        torch.nn.utils.clip_grad_norm_(lin.parameters(), 0.5, foreach=True)
        clipped = lin.weight.grad.numpy().copy()
        opt.step()
    _recorded_by(tracer, backend)
    scale = next(op for op in tracer.ops if op.op == "aten._foreach_mul_.Tensor")
    assert scale.inputs[0].digest != _digest(clipped)  # the gradient before clipping
    reads = [r for op in tracer.ops if op.phase == "optimizer" for r in op.inputs if r.shape == (6, 4)]
    assert _digest(clipped) in {r.digest for r in reads}
    assert scale.inputs[0].digest not in {r.digest for r in reads}


def _program() -> None:
    """A little of everything a training loop dispatches: parameters made, a random init with a
    generator, dropout, embedding and int64 indices, tensor lists in and out, a bool mask, Python
    numbers for tensors, in-place and inference ops, AdamW and a clip."""
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(3)
    emb = torch.nn.Embedding(10, 4)
    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.LayerNorm(6), torch.nn.GELU(), torch.nn.Dropout(0.2))
    opt = torch.optim.AdamW([*emb.parameters(), *model.parameters()], lr=0.01)
    idx = torch.tensor([[1, 2, 3], [4, 5, 6]])
    noise = torch.randn(2, 3, 6, generator=gen)
    for _ in range(2):
        h = model(emb(idx)) + noise
        parts = h.split(2, dim=-1)
        y = torch.stack([p.sum(-1) for p in parts], dim=0).sum(0)
        loss = torch.nn.functional.cross_entropy(y.reshape(-1, 3), torch.tensor([0, 2]))
        (loss * 2 + y.masked_fill(y < 0, 0.0).sum() * 0.5).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.inference_mode():
            torch.ones(3).mul_(2).add_(1)


def _comparable(ops: list[OpRecord]) -> list[str]:
    """The records but their index, with NaN sums made comparable, and but for where a dispatch mode
    changes what torch runs: no detach (torch keeps Parameter's from modes; a mode brings on others),
    and the autograd engine's accumulation of gradients as add (add_ where no mode is active)."""
    out = []
    kept: dict[int, int] = {-1: -1}  # an op's index among those kept: what inputs' sources name
    for o in ops:
        if o.op == "aten.detach.default":
            continue
        kept[o.index] = len(out)
        op = "aten.add.Tensor" if o.phase == "backward" and o.op == "aten.add_.Tensor" else o.op
        inputs = [r._replace(src=kept[r.src]) for r in o.inputs]
        out.append(repr((op, o.module, o.site, o.phase, o.step, o.args, inputs, o.outputs)).replace("nan", "NaN"))
    return out


def test_the_dispatcher_hook_records_what_the_dispatch_mode_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same program through both: the same ops in the same order, each with the same name, module,
    call site, phase, step, arguments and fingerprints, detach aside."""
    streams = {}
    for backend in BACKENDS:
        monkeypatch.setenv("PARITY_TRACE_HOOK", "1" if backend == "dispatcher-hook" else "0")
        with recording() as tracer:
            _program()
        _recorded_by(tracer, backend)
        streams[backend] = tracer.ops
    hook, mode = (_comparable(streams[b]) for b in BACKENDS)
    assert len(hook) > 250
    first = next((i for i, (h, m) in enumerate(zip(hook, mode, strict=False)) if h != m), None)
    assert first is None and len(hook) == len(mode), f"first difference at {first}: {hook[first]} vs {mode[first]}"
    phases = {o.phase for o in streams["dispatcher-hook"]}
    assert phases == {"forward", "backward", "optimizer", "other"}
    assert any(o.module.startswith("AccumulateGrad(") for o in streams["dispatcher-hook"])


def test_the_hook_records_the_path_an_unobserved_run_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dispatch mode makes torch take its tensor-subclass paths (index's backward through index_put);
    the hook leaves the program as it runs untraced, as torch's profiler sees it (_index_put_impl_)."""
    x = torch.arange(6.0, requires_grad=True)

    def step() -> None:
        x[x > 2].sum().backward()

    with torch.profiler.profile() as prof:
        step()
    untraced = {e.name for e in prof.events()}
    assert "aten::_index_put_impl_" in untraced and "aten::index_put" not in untraced
    seen = {}
    for backend in BACKENDS:
        monkeypatch.setenv("PARITY_TRACE_HOOK", "1" if backend == "dispatcher-hook" else "0")
        with recording() as tracer:
            step()
        seen[backend] = {o.op for o in tracer.ops if o.phase == "backward"}
    assert (
        "aten._index_put_impl_.default" in seen["dispatcher-hook"]
        and "aten.index_put.default" not in seen["dispatcher-hook"]
    )
    assert "aten.index_put.default" in seen["dispatch-mode"]


def test_a_hook_that_cannot_be_built_leaves_the_dispatch_mode_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.trace import native

    monkeypatch.setenv("PARITY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    monkeypatch.delenv("PARITY_TRACE_HOOK", raising=False)
    native._loaded.cache_clear()
    try:
        with tracing(tmp_path / "t.h5") as tracer:
            torch.ones(2).exp()
    finally:
        native._loaded.cache_clear()  # the next trace loads the hook that builds
    assert tracer.backend == "dispatch-mode" and "cannot run the compiler" in tracer.backend_note
    trace = read_trace(tmp_path / "t.h5")
    assert trace.attrs["tracer"] == "dispatch-mode" and "no-such-compiler" in trace.attrs["tracer_note"]
    assert [op.op for op in trace.ops] == ["aten.ones.default", "aten.exp.default"]


def test_the_forward_ops_origins_are_dropped_at_each_step(backend: str) -> None:
    """A long run holds the origins of one step's forward ops, not of every step's."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    held = []
    with recording() as tracer:
        for _ in range(6):
            model(torch.ones(3, 4)).sum().backward()
            held.append(tracer.origins_held())
            opt.step()
            opt.zero_grad()
    _recorded_by(tracer, backend)
    assert held[0] > 0 and held[-1] == held[1]  # no growth from step to step
    back = [op for op in tracer.ops if op.phase == "backward" and op.step == 6 and op.op == "aten.mm.default"]
    assert back and all(op.module.startswith("Sequential.") for op in back)


def test_a_new_build_of_the_hook_removes_the_older_builds_of_its_torch_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.trace import native

    monkeypatch.setenv("PARITY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(native, "_compile", lambda target: target.write_bytes(b"built"))
    target = native._target()
    assert target.parent == tmp_path / "hook" and target.name.startswith(native._install_tag())
    target.parent.mkdir()
    older = target.with_name(f"{native._install_tag()}{'0' * 16}{target.suffix}")
    other_install = target.with_name(f"_hook-torch9.9.9-00000000-{'0' * 16}{target.suffix}")
    older.write_bytes(b"old")
    other_install.write_bytes(b"other")
    assert native.build() == target and target.read_bytes() == b"built"
    assert not older.exists() and other_install.exists()
    assert native.build() == target  # built once


def test_the_arguments_text_of_a_record() -> None:
    """tracer.c's args_text, which both recorders use: reprs, lists in brackets, torch's types by str."""
    from harness.trace.recorder import _NAMED_TYPES, _tracer

    plain = (
        ("dim", [0, -1]), ("keepdim", True), ("alpha", 0.5), ("approximate", "tanh"), ("nested", ((1, 2.0), [])),
        ("dtype", torch.float16), ("device", torch.device("cpu")), ("layout", torch.strided),
        ("memory_format", torch.channels_last), ("generator", torch.Generator()), ("none", None),
    )  # fmt: skip
    assert _tracer().args_text(plain, _NAMED_TYPES) == (
        "dim=[0, -1], keepdim=True, alpha=0.5, approximate='tanh', nested=[[1, 2.0], []], dtype=torch.float16, "
        "device=cpu, layout=torch.strided, memory_format=torch.channels_last, generator=Generator, none=NoneType"
    )
    assert _tracer().args_text((), _NAMED_TYPES) == ""


def test_a_capture_reruns_the_program_the_way_its_trace_was_recorded() -> None:
    from harness.trace.cause import rerun_env

    hook = Trace(Path("a.h5"), {"provenance": {}, "tracer": "dispatcher-hook", "env": {}}, [])
    older = Trace(Path("b.h5"), {"provenance": {}}, [])  # written before the hook: the mode
    assert rerun_env(hook, {"PARITY_TRACE_HOOK": "0"})["PARITY_TRACE_HOOK"] == "1"
    assert rerun_env(older, {})["PARITY_TRACE_HOOK"] == "0"
    a = [_op(0, "aten.a", [b"1"], [b"2"])]
    d = diff_traces(Trace(Path("a.h5"), {"provenance": {}, "tracer": "dispatcher-hook"}, a), _trace(a))
    assert d.bit_identical and any("through the dispatcher-hook, B through the dispatch-mode" in n for n in d.notes)


def test_a_cause_whose_knob_alone_does_not_give_bs_bits_is_not_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """One knob named (threads), but the profiles differ in the capability too: the impl gives each side's
    bits under its own profile, yet A's profile at B's thread count does not give B's, so the named knob
    alone is not shown to be the cause and the cause must not be called verified."""
    from harness.impl import profiles
    from harness.trace import cause as cause_module
    from harness.trace import impl_ops

    out_a, out_b, out_other = (np.float32([1.0, v]) for v in (2.0, 3.0, 4.0))
    pa = profiles.profile_for_capability("AVX2", 1)
    pb = profiles.profile_for_capability("DEFAULT", 2)
    by_profile = {pa: out_a, pb: out_b, pa.with_threads(2): out_other}
    monkeypatch.setattr(impl_ops, "replay", lambda op, inputs, args, profile: {"out": by_profile[profile]})
    ref = lambda a: TensorRef("out", digest(a, "mix256-v1"), "float32", (2,), 0.0)
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    op = lambda out: OpRecord(0, "aten.mm.default", "m", "x.py:1", "forward", 1, "", [x], [ref(out)])
    prov = lambda cap, threads: {"capability": cap, "threads": threads, "arch": "x86_64"}
    diff = diff_traces(
        Trace(Path("a.h5"), {"provenance": prov("AVX2", 1), "digest": "mix256-v1"}, [op(out_a)]),
        Trace(Path("b.h5"), {"provenance": prov("DEFAULT", 2), "digest": "mix256-v1"}, [op(out_b)]),
    )
    cause = cause_module.Cause("aten.mm.default", "matmul", ["threads"], {}, "threads: 1 vs 2")
    captured = Captured({"in0": np.float32([1, 1])}, {}, [])
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert not verified and text.startswith("unexplained: ") and "does not give B's bits" in text
    by_profile[pa.with_threads(2)] = out_b  # now the thread count alone does turn A's bits into B's
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert verified and "changing only the intra-op thread count turns A's bits into B's" in text


def test_the_torch_release_is_a_knob_the_impl_changes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two traces of one configuration under torch 2.12.1 and 2.13.0: each side is replayed under its
    own release's profile, and the release alone turning A's bits into B's verifies it. A release the
    impl has no profile for leaves the cause unexplained, saying so."""
    from harness.impl import profiles
    from harness.trace import cause as cause_module
    from harness.trace import impl_ops

    out_a, out_b = np.float32([1.0, 2.0]), np.float32([1.0, 3.0])
    pa = profiles.profile_for_capability("AVX2", 1, torch="2.12.1")
    pb = profiles.profile_for_capability("AVX2", 1, torch="2.13.0")
    by_profile = {pa: out_a, pb: out_b}
    monkeypatch.setattr(impl_ops, "replay", lambda op, inputs, args, profile: {"out": by_profile[profile]})
    ref = lambda a: TensorRef("out", digest(a, "mix256-v1"), "float32", (2,), 0.0)
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    op = lambda out: OpRecord(0, "aten.native_layer_norm_backward.default", "m", "x.py:1", "backward", 1, "", [x],
                              [ref(out)])  # fmt: skip
    prov = lambda release: {"capability": "AVX2", "threads": 1, "arch": "x86_64", "torch_version": release}
    trace = lambda release, out: Trace(Path("t.h5"), {"provenance": prov(release), "digest": "mix256-v1"}, [op(out)])
    diff = diff_traces(trace("2.12.1", out_a), trace("2.13.0", out_b))
    cause = cause_module.explain(diff)
    assert cause is not None and cause.knobs == ["torch_version"] and "the torch release" in cause.explanation
    captured = Captured({"in0": np.float32([1, 1])}, {}, [])
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert verified and "changing only the torch release turns A's bits into B's" in text
    diff = diff_traces(trace("2.11.0", out_a), trace("2.13.0", out_b))
    verified, text, _ = cause_module.replay_verdict(diff, cause_module.explain(diff), captured)
    assert not verified and "no kernel profile for torch 2.11.0" in text


def test_a_kernel_that_reads_only_onednns_isa_is_verified_by_the_level_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """gelu at avx2 vs avx512 (oneDNN's ISA is its only knob): A's thread count and release at B's level
    must give B's bits."""
    from harness.impl import profiles
    from harness.trace import cause as cause_module
    from harness.trace import impl_ops

    out_a, out_b = np.float32([1.0, 2.0]), np.float32([1.0, 3.0])
    pa, pb = profiles.profile_for_capability("AVX2", 1), profiles.profile_for_capability("AVX512", 1)
    by_profile = {pa: out_a, pb: out_b}
    monkeypatch.setattr(impl_ops, "replay", lambda op, inputs, args, profile: {"out": by_profile[profile]})
    ref = lambda a: TensorRef("out", digest(a, "mix256-v1"), "float32", (2,), 0.0)
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    op = lambda out: OpRecord(0, "aten.gelu.default", "m", "x.py:1", "forward", 1, "", [x], [ref(out)])
    prov = lambda cap, isa: {"capability": cap, "threads": 1, "arch": "x86_64", "env": {"ONEDNN_MAX_CPU_ISA": isa}}
    diff = diff_traces(
        Trace(Path("a.h5"), {"provenance": prov("AVX2", "AVX2"), "digest": "mix256-v1"}, [op(out_a)]),
        Trace(Path("b.h5"), {"provenance": prov("AVX512", "AVX512_CORE"), "digest": "mix256-v1"}, [op(out_b)]),
    )
    cause = cause_module.explain(diff)
    assert cause is not None and cause.knobs == ["onednn_isa"]
    verified, text, _ = cause_module.replay_verdict(diff, cause, Captured({"in0": np.float32([1, 1])}, {}, []))
    assert verified and "changing only the oneDNN ISA (ONEDNN_MAX_CPU_ISA) turns A's bits into B's" in text


def test_a_traced_runs_profile_takes_the_mkl_code_path_it_ran() -> None:
    """On an Intel CPU MKL runs its SSE4.2, AVX2 or AVX-512 path, named in the trace's platform id: the
    profile a trace is replayed under takes that path (with any ATen level: MKL_ENABLE_INSTRUCTIONS is
    set apart from ATEN_CPU_CAPABILITY), MKL_CBWR where set, and the Intel CPU's RSQRTPS; an AMD run,
    a run from before platform ids and a BLAS the impl does not model keep the arch's own path."""
    from harness.impl.profiles import profile_for_trace, unmodelled_blas

    def prov(cap: str, platform_id: str, cpu: str = "Intel(R) Xeon(R) Processor") -> dict:
        return {"capability": cap, "threads": 2, "arch": "x86_64", "platform_id": platform_id, "cpu_model": cpu}

    intel = profile_for_trace(prov("AVX2", "linux-x86_64-avx2-mklavx2-t2"))
    assert (intel.name, intel.blas, intel.threads, intel.rsqrt_estimate) == ("x86-avx2", "mklavx2", 2, "intel")
    mixed = profile_for_trace(prov("AVX2", "linux-x86_64-avx2-mklavx512-t2"))
    assert (mixed.name, mixed.blas) == ("x86-avx2", "mklavx512")
    assert profile_for_trace(prov("DEFAULT", "linux-x86_64-baseline-mklsse42-t2")).blas == "mklsse42"
    cbwr = profile_for_trace(prov("AVX512", "linux-x86_64-avx512-mklgeneric-t2-cbwr-compatible"))
    assert (cbwr.blas, cbwr.mkl_cbwr) == ("mklgeneric", True)
    amd = profile_for_trace(prov("AVX512", "linux-x86_64-avx512-mklgeneric-t2", "AMD EPYC 9B14"))
    assert (amd.blas, amd.mkl_cbwr, amd.rsqrt_estimate) == ("mklgeneric", False, "amd")
    assert profile_for_trace({"capability": "AVX2", "threads": 1, "arch": "x86_64"}).blas == "mklgeneric"
    assert (intel.l1_per_core, intel.l2_per_core) == (32 << 10, 1 << 20)  # not named: the fixtures' host's
    caches = {**prov("AVX2", "linux-x86_64-avx2-mklavx2-t2"), "l1d_per_core": 49152, "l2_per_core": 2 << 20}
    assert (profile_for_trace(caches).l1_per_core, profile_for_trace(caches).l2_per_core) == (49152, 2 << 20)
    with pytest.raises(ParityError, match="provenance has l2_per_core = 'big', not a size in bytes"):
        profile_for_trace({**caches, "l2_per_core": "big"})  # a damaged trace: refused in one line
    emulated = profile_for_trace({**caches, "emulation": "qemu-x86_64 -cpu Haswell-v4"})
    assert (emulated.l1_per_core, emulated.l2_per_core, emulated.rsqrt_estimate) == (32 << 10, 1 << 20, "qemu")
    mac = {"capability": "DEFAULT", "threads": 1, "arch": "arm64", "platform_id": "macos-arm64-neon-accelerate-t1"}
    assert profile_for_trace(mac).name == "arm64-neon"
    with pytest.raises(ParityError, match="no kernel profile for x86-avx2 on the BLAS code path nvpl"):
        intel.with_blas("nvpl")
    amx = prov("AVX512", "linux-x86_64-avx512-mklamx-t2")  # MKL unpinned on a Xeon with AMX: float32 as AVX-512
    assert profile_for_trace(amx).blas == "mklavx512" and unmodelled_blas(amx) == ""
    sandy = prov("DEFAULT", "linux-x86_64-baseline-mklavx-t2")  # MKL's AVX path, not modelled
    assert profile_for_trace(sandy).blas == "mklgeneric" and unmodelled_blas(sandy) == "mklavx"
    assert unmodelled_blas(mac) == "accelerate"
    assert [unmodelled_blas(prov("AVX2", f"linux-x86_64-avx2-{b}-t2")) for b in ("mklavx2", "mklgeneric")] == ["", ""]
    assert (
        unmodelled_blas({"capability": "SVE256", "arch": "arm64", "platform_id": "linux-arm64-neoverse-v1-nvpl-t1"})
        == ""
    )


def test_mkls_code_path_is_a_knob_the_impl_changes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """tanh at avx2 vs avx512 on an Intel CPU (VML on MKL's AVX2 and AVX-512 paths; MKL's code path
    is its only knob): each side is replayed on its own path, and A's profile on B's path alone must
    give B's bits."""
    from harness.impl import profiles
    from harness.trace import cause as cause_module
    from harness.trace import impl_ops

    out_a, out_b, out_other = np.float32([1.0, 2.0]), np.float32([1.0, 3.0]), np.float32([1.0, 4.0])
    prov = lambda cap, path, blas: {
        "capability": cap, "threads": 1, "arch": "x86_64", "platform_id": f"linux-x86_64-{path}-{blas}-t1",
        "mkl_code_path": f"Intel(R) {blas} enabled processors", "cpu_model": "Intel(R) Xeon(R) Processor",
    }  # fmt: skip
    pa = profiles.profile_for_trace(prov("AVX2", "avx2", "mklavx2"))
    pb = profiles.profile_for_trace(prov("AVX512", "avx512", "mklavx512"))
    assert (pa.blas, pb.blas) == ("mklavx2", "mklavx512")
    by_profile = {pa: out_a, pb: out_b, pa.with_blas("mklavx512"): out_other}
    monkeypatch.setattr(impl_ops, "replay", lambda op, inputs, args, profile: {"out": by_profile[profile]})
    ref = lambda a: TensorRef("out", digest(a, "mix256-v1"), "float32", (2,), 0.0)
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    op = lambda out: OpRecord(0, "aten.tanh.default", "m", "x.py:1", "forward", 1, "", [x], [ref(out)])
    diff = diff_traces(
        Trace(Path("a.h5"), {"provenance": prov("AVX2", "avx2", "mklavx2"), "digest": "mix256-v1"}, [op(out_a)]),
        Trace(Path("b.h5"), {"provenance": prov("AVX512", "avx512", "mklavx512"), "digest": "mix256-v1"}, [op(out_b)]),
    )
    cause = cause_module.explain(diff)
    assert cause is not None and cause.knobs == ["mkl_code_path"]
    captured = Captured({"in0": np.float32([1, 1])}, {}, [])
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert not verified and "changing only the MKL code path (x86-avx2 mklavx512 t1" in text
    by_profile[pa.with_blas("mklavx512")] = out_b
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert verified and "changing only the MKL code path turns A's bits into B's" in text


def test_non_contiguous_inputs_larger_than_the_hooks_buffer_are_digested_in_c_order(backend: str) -> None:
    """csrc/hook.cpp digests a non-contiguous input a block of rows at a time through a 4 MiB buffer
    (not a copy of the whole tensor): the bytes and sums are those of the tensor laid out in C order,
    for a transpose of many blocks, rows longer than the buffer, and a strided 1-d view."""
    torch.manual_seed(0)
    w = torch.randn(1500, 1100)  # its transpose: 1100 rows of 6 KB, 6.6 MB
    long_rows = torch.randn(3, 2, 1_200_000)[:, :, ::2].transpose(0, 1)  # rows of 4.8 MB
    strided = torch.randn(6_000_000)[::3]
    views = {"t": w.t(), "long_rows": long_rows, "strided": strided}
    for name, view in views.items():
        assert not view.is_contiguous() and view.nbytes > 4 << 20, name
    _assert_digested_in_c_order(views, backend)


def _assert_digested_in_c_order(views: dict[str, torch.Tensor], backend: str) -> None:
    """``neg`` of each view, traced: its input's digest and sum are those of the view in C order."""
    with recording() as tracer:
        for view in views.values():
            torch.neg(view)
    _recorded_by(tracer, backend)
    negs = [op for op in tracer.ops if op.op == "aten.neg.default"]
    assert len(negs) == len(views)
    for op, (name, view) in zip(negs, views.items(), strict=True):
        dense = view.contiguous().numpy()
        got = op.inputs[0]
        assert got.digest == _digest(dense), name
        want_sum = fingerprint_at(dense.ctypes.data, dense.nbytes, True, TRACE_ALGORITHM)[1]
        assert np.float64(got.sum).view(np.uint64) == np.float64(want_sum).view(np.uint64), name


def test_transposed_matrices_are_digested_in_c_order_tile_by_tile(backend: str) -> None:
    """csrc/hook.cpp copies a view whose last two dims are a transposed matrix (w.t(), a batch of
    k.transpose(-2, -1), a transposed slice with a leading dimension wider than its rows) 8 x 8
    elements at a time into its buffer: the digests and sums are those of the view in C order, for
    sizes off the tile, blocks of the buffer, one row or one column, rows of the buffer's 4 MiB and
    longer (ATen's copy_ then, as for a view of other strides)."""
    torch.manual_seed(2)
    views = {
        "t": torch.randn(37, 45).t(), "slice": torch.randn(70, 90)[3:66, 5:88].t(),
        "batch": torch.randn(3, 5, 33, 17).transpose(-2, -1), "one_row": torch.randn(9, 5).t()[:1],
        "one_col": torch.randn(9, 2).t()[:, 1:], "blocks": torch.randn(3000, 700).t(),
        "wide": torch.randn(1 << 20, 3).t(), "wider": torch.randn((1 << 20) + 1, 2).t(),  # rows of 4 MiB, more
        "strided": torch.randn(40, 64)[:, ::2].t(),
    }  # fmt: skip
    _assert_digested_in_c_order(views, backend)


@pytest.mark.usefixtures("restore_threads")
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_one_long_tensors_segments_fingerprinted_on_several_threads_give_its_digest(backend: str, threads: int) -> None:
    """csrc/hook.cpp shares a contiguous float32 tensor of 1 MiB or more among ATen's threads segment by
    segment (mix256-v2's 256 KiB segments, csrc/fingerprint_v2.h): its digest and sum are still the
    tensor's, whatever the thread count, for lengths off a segment and just under the threshold."""
    torch.set_num_threads(threads)
    torch.manual_seed(3)
    xs = [torch.randn(n) for n in (800_001, (1 << 18) - 3, 4 * (1 << 16), 65_536 * 4 + 16)]
    with recording() as tracer:
        for x in xs:
            torch.neg(x)
    _recorded_by(tracer, backend)
    negs = [op for op in tracer.ops if op.op == "aten.neg.default"]
    assert len(negs) == len(xs)
    for op, x in zip(negs, xs, strict=True):
        for ref, a in ((op.inputs[0], x.numpy()), (op.outputs[0], (-x).numpy())):
            assert ref.fingerprinted and ref.digest == _digest(a), a.size
            want_sum = fingerprint_at(a.ctypes.data, a.nbytes, True, TRACE_ALGORITHM)[1]
            assert np.float64(ref.sum).view(np.uint64) == np.float64(want_sum).view(np.uint64), a.size


def test_a_foreach_ops_tensors_fingerprinted_on_several_threads_are_each_their_own(backend: str) -> None:
    """csrc/hook.cpp takes the fingerprints of an op's float32 inputs, and of its outputs, on ATen's
    threads where they are 4 MiB or more in all: each tensor still gets its own digest and sum, in its
    place (an in-place foreach op returns nothing: its tensors are read anew as the next op's inputs)."""
    torch.manual_seed(1)
    xs = [torch.randn(n) for n in (700_000, 7, 320_001, 0, 250_000, 33)]
    with recording() as tracer:
        ys = torch._foreach_mul(xs, 3.0)
        torch._foreach_add_(ys, 1.0)
        torch._foreach_neg(ys)
    _recorded_by(tracer, backend)
    ops = {op.op: op for op in tracer.ops}
    expected = [(x * 3.0).numpy() for x in xs]
    checked = (
        (ops["aten._foreach_mul.Scalar"].inputs, [x.numpy() for x in xs]),
        (ops["aten._foreach_mul.Scalar"].outputs, expected),
        (ops["aten._foreach_add_.Scalar"].inputs, expected),
        (ops["aten._foreach_neg.default"].inputs, [y.numpy() for y in ys]),
    )
    for refs, arrays in checked:
        assert len(refs) == len(xs)
        for ref, a in zip(refs, arrays, strict=True):
            assert ref.fingerprinted and ref.digest == _digest(a)
            want_sum = fingerprint_at(a.ctypes.data, a.nbytes, True, TRACE_ALGORITHM)[1] if a.size else 0.0
            assert np.float64(ref.sum).view(np.uint64) == np.float64(want_sum).view(np.uint64)
