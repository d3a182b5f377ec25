"""`parity check` and the parity suite against a fixture with one known difference."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.formats.ops import read_op_fixture, write_op_fixture
from harness.platform.config import collect_facts, supported_levels

ROOT = Path(__file__).resolve().parent.parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *cmd], capture_output=True, text=True, check=False, cwd=ROOT)


@pytest.fixture(scope="module")
def tampered(tmp_path_factory) -> Path:
    """softmax and sum recorded on this machine now, with one element of one output nudged 2 ULP."""
    isa = supported_levels(collect_facts())[-1].name
    tmp = tmp_path_factory.mktemp("tampered")
    result = _run("-m", "harness.cli", "generate", "--isa", isa, "--threads", "1", "--ops", "softmax,sum",
                  "--out", str(tmp), "--quiet")  # fmt: skip
    assert result.returncode == 0, result.stderr
    (recorded,) = tmp.glob("torch-*/*.h5")  # named by this machine's configuration
    fx = read_op_fixture(recorded)
    out = fx.cases["softmax/7x1000"].outputs["out"]
    out.view(np.uint32)[2, 17] += 2
    path = tmp / "tampered.h5"
    write_op_fixture(path, fx.provenance, list(fx.cases.values()))
    return path


def test_check_reports_the_difference_and_exits_1(tampered, tmp_path):
    result = _run("-m", "harness.cli", "check", "--against", str(tampered), "--quiet",
                  "--output", str(tmp_path / "r.json"))  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "1/2 ops bit-identical (6/7 cases)" in result.stdout
    assert "softmax/7x1000/out: 1 of 7000 elements differ; max 2 ULP at [2, 17]" in result.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"] == {"ops": 2, "ops_bit_identical": 1, "cases": 7, "cases_bit_identical": 6,
                                 "nan_set_apart": 0, "nan_set_apart_differ": 0}  # fmt: skip
    assert report["note"].startswith("live: this machine in the fixture's configuration")


def test_parity_suite_fails_exactly_the_differing_case(tampered, tmp_path):
    report = tmp_path / "suite.json"
    result = _run("-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q", "-n", "2",
                  "--fixture-set", str(tampered), "--report", str(report))  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:]
    assert "1 failed, 6 passed" in result.stdout
    assert "FAILED parity_suite/test_parity.py::test_op_case[softmax/7x1000]" in result.stdout
    assert "max 2 ULP at [2, 17]" in result.stdout
    (data,) = json.loads(report.read_text())
    assert data["summary"]["cases_bit_identical"] == 6
    assert "parity: report written to" in result.stdout


@pytest.fixture(scope="module")
def impl_tampered(tmp_path_factory) -> Path:
    """The committed sum cases under a platform id with no known gaps (3 threads), their outputs
    made by the impl itself, then one element of one output nudged 2 ULP."""
    from harness.replay.check import committed_impl_fixtures
    from harness.replay.ops import impl_op_fixture

    committed = read_op_fixture(committed_impl_fixtures()[0], ops=["sum"])
    committed.attrs["platform_id"] = "linux-x86_64-avx2-t3"
    impl, missing = impl_op_fixture(committed)
    assert not missing
    impl.cases["sum/dim0_65x509"].outputs["out"].view(np.uint32)[100] += 2
    path = tmp_path_factory.mktemp("impl") / "tampered.h5"
    machine = ("os", "arch", "isa", "threads", "capability", "blas", "mkl_code_path")  # of the committed set's
    provenance = {k: v for k, v in committed.provenance.items() if k not in machine}
    provenance |= {"platform_id": "linux-x86_64-avx2-t3", "ops_recorded": ["sum"], "threads": 3}
    write_op_fixture(path, provenance, list(impl.cases.values()))
    return path


def test_parity_suite_on_the_impl_fails_exactly_the_differing_case(impl_tampered, tmp_path):
    report = tmp_path / "impl.json"
    result = _run("-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q", "--parity-source", "impl",
                  "--fixture-set", str(impl_tampered), "--report", str(report))  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:]
    assert "1 failed, 3 passed" in result.stdout
    assert "FAILED parity_suite/test_parity.py::test_op_case[sum/dim0_65x509]" in result.stdout
    assert "max 2 ULP at [100]" in result.stdout
    (data,) = json.loads(report.read_text())
    assert data["actual"] == "reference implementation (impl x86-avx2 t3)"
    assert data["summary"]["cases_bit_identical"] == 3


def test_parity_mac_without_mac_fixtures_says_so_in_one_line():
    result = _run("-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q", "--platform-os", "macos")
    assert result.returncode == 4
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("ERROR: no committed macOS fixtures for torch ")
    assert "tox -e regen" in lines[0]


def test_live_check_progress_names_no_file_that_is_gone_when_it_ends(tmp_path):
    result = _run("-m", "harness.cli", "check", "--platform", "linux-x86_64-avx2-mklgeneric-t1", "--ops", "exp",
                  "--output", str(tmp_path / "r.md"))  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "recorded the live run (3 cases" in result.stderr
    named = re.findall(r"(/[^\s:()]+\.(?:h5|md))", result.stdout + result.stderr)
    assert named and all(Path(p).exists() for p in named), named


def test_suite_summary_lines_start_on_their_own_lines(tampered, tmp_path):
    report = tmp_path / "suite.html"
    result = _run("-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q",
                  "--fixture-set", str(tampered), "--report", str(report))  # fmt: skip
    assert result.returncode == 1, result.stdout[-2000:]
    lines = result.stdout.splitlines()
    ours = [line for line in lines if "parity: " in line]
    assert ours and all(line.startswith("parity: ") for line in ours), ours
    assert f"parity: {tampered}: 1/2 ops bit-identical (6/7 cases)" in lines
    page = report.read_text()
    assert page.count("<!DOCTYPE html>") == 1 and page.count("</html>") == 1


def test_suite_report_that_cannot_be_written_is_a_usage_error(tampered, tmp_path):
    (tmp_path / "file").write_text("")
    result = _run("-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q",
                  "--fixture-set", str(tampered), "--report", str(tmp_path / "file" / "r.html"))  # fmt: skip
    assert result.returncode == 4
    assert f"--report: cannot write {tmp_path / 'file' / 'r.html'}: {tmp_path / 'file'} is a file" in result.stderr


def test_live_suite_without_torch_says_so_pinned_to_the_fixtures_torch():
    hide_torch = (
        "import sys, pytest, harness.platform.provenance as p; p.installed_torch_version = lambda: ''; "
        "sys.exit(pytest.main(['parity_suite', '-p', 'no:cacheprovider', '-q', '--fixture-set', "
        "'2.13.0/linux-x86_64-avx2-mklgeneric-t1']))"
    )
    result = _run("-c", hide_torch)
    assert result.returncode == 4
    assert "ERROR: torch is not installed: python3 -m pip install torch==2.13.0; or check the reference " in (
        result.stdout + result.stderr
    )


def test_a_nanogpt_config_asked_for_without_a_fixture_is_an_error_not_dropped():
    """V1 at 1 thread has no committed nanoGPT run: asking for one by name says so; the default says
    in the summary that it was not checked; a set with the run collects its steps."""
    base = ("-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q", "--parity-source", "impl",
            "--fixture-set", "2.13.0/linux-arm64-neoverse-v1-nvpl-t1")  # fmt: skip
    asked = _run(*base, "--nanogpt", "tiny", "--collect-only")
    assert asked.returncode == pytest.ExitCode.USAGE_ERROR, asked.stdout + asked.stderr
    assert "--nanogpt tiny: no committed fixture linux-arm64-neoverse-v1-nvpl-t1.nanogpt-tiny.h5" in asked.stderr
    default = _run(*base, "-k", "exp/")
    assert default.returncode == 0, default.stdout + default.stderr
    assert (
        "nanoGPT tiny: not checked, no linux-arm64-neoverse-v1-nvpl-t1.nanogpt-tiny.h5 is committed" in default.stdout
    )
    present = _run(*base[:-1], "2.13.0/linux-arm64-neoverse-v1-nvpl-t2", "--nanogpt", "tiny", "--collect-only")
    assert present.returncode == 0 and "test_nanogpt_step[" in present.stdout, present.stdout + present.stderr


def test_a_live_run_given_other_inputs_fails_its_case():
    """The suite's op test compares a live run's recorded inputs with the fixture's: other inputs, same
    outputs, still a failure naming the input."""
    from harness.formats.ops import CaseRecord, OpFixture
    from parity_suite.test_parity import test_op_case

    x, out = np.float32([1.0, 2.0]), np.float32([3.0, 4.0])
    rec = CaseRecord("exp", "2", {}, {"x": x}, {"out": out})
    expected = OpFixture(Path("f.h5"), {"platform_id": "linux-x86_64-avx2-t1"}, {rec.key: rec})
    live = lambda inputs: OpFixture(Path("live.h5"), {"platform_id": "linux-x86_64-avx2-t1"},
                                    {rec.key: CaseRecord("exp", "2", {}, inputs, {"out": out.copy()})})  # fmt: skip
    test_op_case((Path("f.h5"), rec.key), lambda path: (expected, live({"x": x.copy()})))
    with pytest.raises(AssertionError, match="exp/2: input x differs"):
        test_op_case((Path("f.h5"), rec.key), lambda path: (expected, live({"x": np.float32([1.0, 2.5])})))


def test_live_check_of_a_random_case_subset_records_its_draws_cases_and_finds_a_nudged_one(tmp_path):
    """A committed random-case subset (model ops, seed 3) checked live: the same draw's cases are
    recorded, only those the subset holds, and a one-element change is found."""
    committed = ROOT / "harness/fixtures/torch-2.13.0/linux-x86_64-avx2-mklgeneric-t1.random-3.h5"
    fx = read_op_fixture(committed)
    kept = [c for c in fx.cases.values() if c.op in ("uniform", "where")]
    kept[-1].outputs["out"].view(np.uint32)[1, 3] += 1
    prov = {**fx.provenance, "random_cases": {**fx.provenance["random_cases"], "cases": [c.key for c in kept]}}
    path = tmp_path / "subset.h5"
    write_op_fixture(path, prov, kept)
    result = _run("-m", "harness.cli", "check", "--against", str(path), "--quiet")
    assert result.returncode == 1, result.stderr
    assert f"recorded the live run ({len(kept)} cases" in result.stderr
    assert f"1/2 ops bit-identical ({len(kept) - 1}/{len(kept)} cases)" in result.stdout
    assert f"{kept[-1].key}/out: 1 of" in result.stdout
    other = _run("-m", "harness.cli", "check", "--against", str(path), "--ops", "softmax", "--quiet")
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert "unknown op(s): softmax (known: uniform, where)" in other.stderr
