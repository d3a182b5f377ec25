"""Comparing fixtures: per-op tables, nanoGPT first divergence, report formats, bad inputs."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.compare.fixtures import diff_nanogpt, diff_ops
from harness.core.errors import ParityError
from harness.formats.nanogpt import DIGEST_KINDS, read_nanogpt_fixture
from harness.formats.ops import CaseRecord, read_op_fixture, write_op_fixture
from harness.report.render import SCHEMA, render

PROV = {"torch_version": "0.0.0", "platform_id": "linux-x86_64-avx2-t1"}


def _records(nudge: bool) -> list[CaseRecord]:
    x = np.linspace(-2, 2, 40, dtype=np.float32)
    out = np.exp(x)
    grad = out * 0.5
    if nudge:  # element 3 one ULP up, element 10 five ULP down, element 0 of tanh a signed zero
        out = out.copy()
        out.view(np.uint32)[3] += 1
        out.view(np.uint32)[10] -= 5
    t_out = np.array([0.0, 1.0], np.float32)
    if nudge:
        t_out = np.array([-0.0, 1.0], np.float32)
    return [
        CaseRecord("exp", "40", {"n": 40}, {"x": x}, {"out": out, "grad_x": grad}, True, "torch.exp"),
        CaseRecord("<tanh&>", "2", {"n": 2}, {"x": x[:2]}, {"out": t_out}, True, "torch.tanh"),
        CaseRecord("sum", "40", {"n": 40}, {"x": x}, {"out": np.array(1.5, np.float32)}, True, "x.sum()"),
    ]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    write_op_fixture(a, PROV, _records(False))
    write_op_fixture(b, PROV, _records(True))
    return a, b


def test_ops_diff_finds_the_known_differences(pair):
    diff = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    by_key = {f"{c.op}/{c.case}": c for c in diff.cases}
    exp_out = by_key["exp/40"].tensors[0]
    assert (exp_out.count, exp_out.identical, exp_out.max_ulp) == (40, 38, 5)
    assert exp_out.first_mismatch.index == [3]
    assert by_key["exp/40"].tensors[1].bit_identical
    tanh = by_key["<tanh&>/2"].tensors[0]
    assert (tanh.signed_zero, tanh.max_ulp, tanh.bit_identical) == (1, 0, False)
    assert by_key["sum/40"].bit_identical
    assert not diff.bit_identical


def test_json_report_follows_its_schema(pair):
    diff = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    data = json.loads(render(diff, "json", note="hand-made"))
    assert data["schema"] == SCHEMA and data["schema_version"] == 3 and data["kind"] == "ops"
    assert data["impl_known_gaps"] is None  # not a report of the reference implementation
    assert data["summary"] == {"ops": 3, "ops_bit_identical": 1, "cases": 3, "cases_bit_identical": 1,
                               "nan_set_apart": 0, "nan_set_apart_differ": 0}  # fmt: skip
    assert data["bit_identical"] is False and data["note"] == "hand-made"
    exp = data["ops"][0]
    assert exp["op"] == "exp" and exp["max_ulp"] == 5
    out = exp["cases"][0]["tensors"][0]
    assert out["histogram"] == {"0": 38, "1": 1, "5-8": 1}
    assert out["first_mismatch"]["expected_hex"] != out["first_mismatch"]["actual_hex"]


def test_markdown_report(pair):
    diff = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    text = render(diff, "markdown")
    assert text.startswith("# Parity report: ops\n")
    assert "- **1/3 ops bit-identical (1/3 cases)**" in text
    assert "| op | bits | cases identical | max ULP | ULP at scale | sign flips | first differing tensor |" in text
    # 5 ULP of exp(-0.974) = 0.377 (2^-25 apart) are 5/16 of a ULP of max|expected| = e^2 (2^-21)
    assert "| exp | differs | 0/1 | 5 | 0.312 |  | out of 40 |" in text
    assert "| sum | = | 1/1 | 0 |  |  |  |" in text
    assert "- `exp/40` out: 2 of 40 elements differ; max 5 ULP at [10]" in text


def test_html_report_is_self_contained_and_escapes_names(pair):
    diff = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    page = render(diff, "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<tanh&>" not in page and "&lt;tanh&amp;&gt;" in page
    assert "<script" not in page and "http" not in page  # nothing loaded from elsewhere
    assert page.count("class='cell'") == 4  # one heatmap cell per output tensor
    assert "background:#cfe8cf" in page and "background:#f4d58d" in page  # identical; 0-ULP mismatch


def test_terminal_report(pair):
    diff = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    text = render(diff, "terminal")
    assert "1/3 ops bit-identical (1/3 cases)" in text
    assert "exp/40/out: 2 of 40 elements differ" in text


def test_different_input_sets_are_refused(tmp_path, pair):
    other = _records(False)
    other[0].inputs["x"] = other[0].inputs["x"] + np.float32(1)
    write_op_fixture(tmp_path / "c.h5", PROV, other)
    with pytest.raises(ParityError, match="different input sets"):
        diff_ops(read_op_fixture(pair[0]), read_op_fixture(tmp_path / "c.h5"))


def test_missing_ops_are_refused_by_name(tmp_path, pair):
    write_op_fixture(tmp_path / "c.h5", PROV, _records(False)[:2])
    with pytest.raises(ParityError, match=r"c.h5 lacks 1 op\(s\) of .*a.h5: sum$"):
        diff_ops(read_op_fixture(pair[0]), read_op_fixture(tmp_path / "c.h5"))
    with pytest.raises(ParityError, match=r"c.h5 lacks 1 op\(s\) of .*a.h5: sum$"):
        diff_ops(read_op_fixture(tmp_path / "c.h5"), read_op_fixture(pair[0]))
    # as a live subset it is fine the other way round, and refused when A lacks a case
    assert diff_ops(read_op_fixture(pair[0]), read_op_fixture(tmp_path / "c.h5"), subset=True).cases
    with pytest.raises(ParityError, match=r"c.h5 lacks 1 op\(s\) of .*b.h5: sum$"):
        diff_ops(read_op_fixture(tmp_path / "c.h5"), read_op_fixture(pair[1]), subset=True)


def test_an_op_deleted_under_the_same_input_digest_is_named(pair):
    """The input digest says nothing of what was deleted: the message names it, not the digest twice."""
    a, b = read_op_fixture(pair[0]), read_op_fixture(pair[1])
    del b.cases["sum/40"]
    assert a.attrs["input_digest"] == b.attrs["input_digest"]
    with pytest.raises(ParityError) as err:
        diff_ops(a, b)
    assert str(err.value) == f"{pair[1]} lacks 1 op(s) of {pair[0]}: sum"
    b = read_op_fixture(pair[1])
    b.cases["exp/41"] = b.cases.pop("exp/40")
    with pytest.raises(ParityError, match=r"b.h5 lacks 1 case\(s\) of .*a.h5: exp/40$"):
        diff_ops(a, b)


def test_outputs_linked_in_another_order_compare_by_name(tmp_path, pair):
    records = _records(True)
    records[0].outputs = dict(reversed(list(records[0].outputs.items())))  # grad_x first, then out
    write_op_fixture(tmp_path / "c.h5", PROV, records)
    a, b, c = (read_op_fixture(p) for p in (*pair, tmp_path / "c.h5"))
    assert list(c.cases["exp/40"].outputs) == ["grad_x", "out"]
    assert render(diff_ops(a, c), "json") == render(diff_ops(a, b), "json").replace(str(pair[1]), str(c.path))
    records[1].outputs = {"other": records[1].outputs["out"]}  # names still count
    write_op_fixture(tmp_path / "d.h5", PROV, records)
    with pytest.raises(ParityError, match=r"outputs \['other'\] of .*d.h5 are not \['out'\]"):
        diff_ops(a, read_op_fixture(tmp_path / "d.h5"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: np.zeros(41, np.float32), r"exp/40/out: cannot compare float32\[40\] with float32\[41\]"),
        (lambda r: r.astype(np.float64), r"exp/40/out: cannot compare float32\[40\] with float64\[40\]"),
    ],
)
def test_mismatched_shapes_or_dtypes_are_refused(tmp_path, pair, change, message):
    recs = _records(False)
    recs[0].outputs["out"] = change(recs[0].outputs["out"])
    write_op_fixture(tmp_path / "c.h5", PROV, recs)
    with pytest.raises(ParityError, match=message):
        diff_ops(read_op_fixture(pair[0]), read_op_fixture(tmp_path / "c.h5"))


def _parity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False)


def test_diff_command_exit_status_and_output_file(tmp_path, pair):
    same = _parity("diff", str(pair[0]), str(pair[0]))
    assert same.returncode == 0, same.stderr
    assert "3/3 ops bit-identical" in same.stdout
    differs = _parity("diff", str(pair[0]), str(pair[1]), "--output", str(tmp_path / "r.json"))
    assert differs.returncode == 1
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["ops_bit_identical"] == 1
    write_op_fixture(tmp_path / "c.h5", PROV, _records(False)[:1])
    refused = _parity("diff", str(pair[0]), str(tmp_path / "c.h5"))
    assert refused.returncode == 2
    assert refused.stderr == f"parity: error: {tmp_path / 'c.h5'} lacks 2 op(s) of {pair[0]}: <tanh&>, sum\n"


# ----------------------------------------------------------------------------- nanoGPT


@pytest.fixture(scope="module")
def tiny(committed_nanogpt):
    path = next(p for p in committed_nanogpt if p.name.endswith(".nanogpt-tiny.h5"))
    return read_nanogpt_fixture(path)


def test_identical_runs_have_no_divergence(tiny):
    diff = diff_nanogpt(tiny, copy.deepcopy(tiny))
    assert diff.first is None and diff.identical_steps == 50 and diff.bit_identical


def test_divergence_in_the_optimiser_is_found_at_its_step(tiny):
    other = copy.deepcopy(tiny)
    i = other.run.param_names.index("transformer.h.1.mlp.c_fc.weight")
    for step in range(7, 51):  # from step 7 on, as a real divergence would go on
        rec = other.run.steps[step - 1]
        rec.digests[i, DIGEST_KINDS.index("exp_avg")] ^= 1
    diff = diff_nanogpt(tiny, other)
    assert (diff.first.step, diff.first.stage) == (7, "optimiser")
    assert diff.first.tensor == "exp_avg transformer.h.1.mlp.c_fc.weight"
    assert diff.identical_steps == 6
    assert diff.steps[6].params_differing["exp_avg"] == 1


def test_divergence_in_the_loss_reports_its_ulp(tiny):
    other = copy.deepcopy(tiny)
    rec = other.run.steps[2]
    rec.loss = rec.loss.copy()
    rec.loss.view(np.uint32)[...] += 3
    diff = diff_nanogpt(tiny, other)
    assert (diff.first.step, diff.first.stage) == (3, "loss")
    assert "(3 ULP)" in diff.first.detail
    assert diff.steps[2].loss_ulp == 3


def test_divergence_in_a_dropout_mask_is_a_forward_divergence(tiny):
    other = copy.deepcopy(tiny)
    rec = other.run.steps[4]
    rec.dropout_mask_digests = rec.dropout_mask_digests.copy()
    rec.dropout_mask_digests[2, 0] ^= 0xFF
    diff = diff_nanogpt(tiny, other)
    assert (diff.first.step, diff.first.stage, diff.first.tensor) == (5, "forward", "dropout mask 2")


@pytest.mark.parametrize("qemu", [True, False])
def test_a_divergence_past_nans_in_a_run_under_qemu_x86_says_it_may_be_qemus_nan_pick(tiny, qemu: bool) -> None:
    """One run recorded under qemu-x86_64, the other on a CPU: a divergence at or past the first step where both
    runs hold NaNs may be QEMU's pick where two NaNs meet (digests cannot set those elements apart): its detail
    says so; before that step, or with both runs on CPUs, it does not."""
    from harness.platform.emulation import emulation_note

    a, b = copy.deepcopy(tiny), copy.deepcopy(tiny)
    a.attrs["provenance"] = {**a.provenance, "arch": "x86_64", "emulation": ""}
    b.attrs["provenance"] = {**b.provenance, "arch": "x86_64", "emulation": ""}
    if qemu:
        b.attrs["provenance"]["emulation"] = emulation_note("x86_64", "Haswell-v4", "Intel Core (Haswell)")
    for run in (a, b):
        for rec in run.run.steps[3:]:  # both blow up at step 4
            rec.loss = np.array(np.nan, np.float32)
    b.run.steps[5].digests[0, 0] ^= 1  # and differ at step 6
    diff = diff_nanogpt(a, b)
    assert (diff.first.step, diff.first.stage) == (6, "backward")
    assert ("may be that pick alone" in diff.first.detail) == qemu
    assert ("both hold NaNs from step 4" in diff.first.detail) == qemu
    early = copy.deepcopy(b)
    early.run.steps[1].digests[0, 0] ^= 1  # a divergence at step 2, before any NaN
    assert "pick" not in diff_nanogpt(a, early).first.detail


def test_nanogpt_report_formats(tiny):
    other = copy.deepcopy(tiny)
    other.run.steps[1].digests[0, 0] ^= 1
    diff = diff_nanogpt(tiny, other)
    data = json.loads(render(diff, "json"))
    assert data["kind"] == "nanogpt" and data["summary"]["steps_bit_identical"] == 49
    assert data["nanogpt"]["first_divergence"]["step"] == 2
    assert "first divergence at step 2, backward" in render(diff, "markdown")
    assert render(diff, "html").count("<tr><td>grad_preclip</td>") == 1


def test_runs_of_different_lengths_are_an_input_error(tiny):
    short = copy.deepcopy(tiny)
    short.run.steps = short.run.steps[:49]
    with pytest.raises(ParityError, match=r"has 50 training steps and .* 49: runs of different lengths"):
        diff_nanogpt(tiny, short)


def test_runs_of_different_batches_are_refused(tiny):
    other = copy.deepcopy(tiny)
    other.run.steps[7].x = other.run.steps[7].x.copy()
    other.run.steps[7].x.flat[0] += 1
    with pytest.raises(ParityError, match="different configs or batches"):
        diff_nanogpt(tiny, other)
    other = copy.deepcopy(tiny)
    other.attrs["config"] = {**tiny.config, "seed": tiny.config["seed"] + 1}
    with pytest.raises(ParityError, match="different configs or batches"):
        diff_nanogpt(tiny, other)


def test_runs_that_keep_other_steps_in_full_compare(tiny):
    """full_steps decides what a fixture stores, not what was trained: a digests-only run and one that
    kept steps in full are the same training (their stored input digests differ)."""
    other = copy.deepcopy(tiny)
    other.attrs["config"] = {**tiny.config, "full_steps": [] if tiny.config.get("full_steps") else [1]}
    other.attrs["input_digest"] = "0" * 64
    assert diff_nanogpt(tiny, other).identical_steps == len(tiny.run.steps)


def test_names_with_a_slash_are_refused(tmp_path):
    bad = CaseRecord("a/b", "c", {}, {}, {"out": np.zeros(2, np.float32)})
    with pytest.raises(ValueError, match="'a/b' cannot be a name in a fixture"):
        write_op_fixture(tmp_path / "x.h5", PROV, [bad])
    assert list(tmp_path.iterdir()) == []


def test_provenance_notes_name_what_differs_beyond_the_platform_id():
    from harness.compare.fixtures import provenance_notes

    a = {"cpu_model": "AMD EPYC", "mkl_code_path": "Intel(R) Architecture processors", "blas": "mkl"}
    b = {"cpu_model": "Intel Xeon", "mkl_code_path": "Intel(R) AVX2 enabled processors", "blas": "mkl"}
    notes = provenance_notes(a, b)
    assert "mkl_code_path: Intel(R) Architecture processors vs Intel(R) AVX2 enabled processors" in notes
    assert "cpu_model: AMD EPYC vs Intel Xeon" in notes
    assert notes[-1].startswith("BLAS-backed ops")
    assert provenance_notes(a, dict(a)) == []


def test_provenance_notes_say_which_side_was_emulated_and_what_a_difference_means():
    from harness.compare.fixtures import provenance_notes

    emulated = "qemu-x86_64 version 7.2.22; QEMU_CPU=Haswell-v4; QEMU emulation of GenuineIntel family 6 model 60"
    a = {"cpu_model": "Intel Core Processor (Haswell)", "emulation": emulated}
    b = {"cpu_model": "Intel Xeon E5-2680 v3", "emulation": ""}
    notes = provenance_notes(a, b)
    assert "recorded under: QEMU user-mode emulation (-cpu Haswell-v4) vs the CPU itself" in notes
    assert "evidence that the emulation is not faithful" in notes[-1]
    # two emulated recordings under other models: named, but neither is the CPU itself
    other = dict(a, emulation=emulated.replace("Haswell-v4", "Skylake-Client-v4"))
    notes = provenance_notes(a, other)
    assert notes[-1] == (
        "recorded under: QEMU user-mode emulation (-cpu Haswell-v4) vs "
        "QEMU user-mode emulation (-cpu Skylake-Client-v4)"
    )
    assert provenance_notes(a, dict(a)) == [] and provenance_notes(b, {"cpu_model": b["cpu_model"]}) == []


# ----------------------------------------------------------------------------- reports


def _near_zero_pair(tmp_path: Path) -> tuple[Path, Path]:
    """A gradient reaching 1.0 whose tiny values near zero change sign: huge ULP, small error."""
    x = np.array([1.0, 0.5, 1e-7, -1e-7, 0.25], np.float32)
    y = np.array([1.0, 0.5, -1e-7, 1e-7, 0.25], np.float32)
    paths = tmp_path / "near_a.h5", tmp_path / "near_b.h5"
    for path, out in zip(paths, (x, y), strict=True):
        write_op_fixture(path, PROV, [CaseRecord("sdpa", "5", {"n": 5}, {"q": x}, {"grad_q": out}, True, "sdpa")])
    return paths


def test_reports_give_the_error_at_the_tensors_scale_and_sign_flips(tmp_path):
    a, b = (read_op_fixture(p) for p in _near_zero_pair(tmp_path))
    diff = diff_ops(a, b)
    data = json.loads(render(diff, "json"))
    t = data["ops"][0]["cases"][0]["tensors"][0]
    unit = float(np.spacing(np.float32(1.0)))  # the ULP at max|expected| = 1.0
    assert t["max_ulp"] > 1_000_000_000 and t["sign_flips"] == 2
    assert t["scaled_ulp"] == pytest.approx(2 * float(np.float32(1e-7)) / unit)  # about 1.68
    assert data["ops"][0]["max_scaled_ulp"] == t["scaled_ulp"] and data["ops"][0]["sign_flips"] == 2
    figure = f"{t['scaled_ulp']:.3g}"
    assert figure == "1.68"
    assert f"| sdpa | differs | 0/1 | {t['max_ulp']} | 1.68 | 2 | grad_q of 5 |" in render(diff, "markdown")
    terminal = render(diff, "terminal")
    assert "ULP at scale" in terminal and "1.68 ULP at the tensor's scale (max |expected| 1); 2 sign flips" in terminal
    page = render(diff, "html")
    assert "1.68 at scale" in page and "<th>sign flips</th>" in page


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "json", "html"])
def test_known_gaps_are_reported_as_none_in_every_format(pair, fmt):
    diff = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    none, listed, absent = (render(diff, fmt, gaps=g) for g in ([], ["exp/40 out on x: 2 of 40 differ"], None))
    if fmt == "json":
        assert [json.loads(t)["impl_known_gaps"] for t in (none, listed, absent)] == [[], listed_gaps(), None]
        return
    assert "known gaps: none" in none
    assert "known gaps: 1" in listed and "exp/40 out on x: 2 of 40 differ" in listed
    assert "known gaps" not in absent


def listed_gaps() -> list[str]:
    return ["exp/40 out on x: 2 of 40 differ"]


def test_check_impl_says_known_gaps_none(capsys):
    from harness.cli import main

    for fmt in ("terminal", "markdown", "html"):
        assert (
            main(["check", "--impl", "--platform", "linux-x86_64-avx2-mklgeneric-t1", "--ops", "exp", "--format", fmt])
            == 0
        )
        assert "known gaps: none" in capsys.readouterr().out, fmt


def test_several_reports_make_one_document(pair, tiny):
    from harness.report.render import render_all

    ops = diff_ops(read_op_fixture(pair[0]), read_op_fixture(pair[1]))
    nano = diff_nanogpt(tiny, copy.deepcopy(tiny))
    items = [(ops, "", None), (nano, "", [])]
    page = render_all(items, "html", problems=["x.h5: <unreadable>"])
    assert page.count("<!DOCTYPE html>") == 1 and page.count("<html>") == 1 and page.count("</html>") == 1
    assert page.count("<section>") == 2 and "x.h5: &lt;unreadable&gt;" in page
    assert page.count("<div class='scroll'><table class='heat'>") == 2  # the 50-column heatmap scrolls in its box
    data = json.loads(render_all(items, "json"))
    assert [d["kind"] for d in data] == ["ops", "nanogpt"]
    text = render_all(items, "markdown")
    assert text.count("# Parity report: ") == 2 and text.rstrip().endswith("known gaps: none")
