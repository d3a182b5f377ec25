"""Fixtures recorded under qemu-x86_64 and NaNs: QEMU 7.2's SSE/AVX arithmetic keeps, where two NaNs meet,
the one of the larger significand, Intel and AMD silicon the first source operand's
(harness.impl.nans.refuse_nans_under_qemu_x86). So a NaN of such a recording need not be an Intel CPU's.

The committed Intel sets (MKL's mklavx2 and mklsse42 paths, recorded under Haswell-v4 and Nehalem-v2) hold
no element where that pick can show: every case's inputs are finite and no output holds a NaN (the pick
chooses which NaN comes out, never a number), and every step of their nanoGPT runs is finite. A comparison
of one side recorded under qemu-x86_64 with one that was not sets the elements NaN on both sides apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.compare.fixtures import diff_ops, qemu_x86_nan_pick
from harness.formats.nanogpt import read_nanogpt_fixture
from harness.formats.ops import KIND, ROOT, CaseRecord, read_op_fixture, write_op_fixture
from harness.platform.emulation import emulated_x86_model
from harness.report.render import render
from harness.store import FixtureReader
from harness.store.paths import DEFAULT_FIXTURES

QEMU_HASWELL = {
    "arch": "x86_64",
    "emulation": "qemu-x86_64 version 7.2.22; QEMU_CPU=Haswell-v4; QEMU emulation of GenuineIntel family 6 model 60",
}
NATIVE = {"arch": "x86_64", "emulation": ""}


def _emulated(path: Path, kind: str) -> bool:
    with FixtureReader(path, kind=kind) as reader:
        return bool(emulated_x86_model(reader.attrs("/").get("provenance", {})))


def _committed(pattern: str, kind: str) -> list[Path]:
    return [p for p in sorted(DEFAULT_FIXTURES.glob(f"torch-*/linux-x86_64-{pattern}")) if _emulated(p, kind)]


def test_the_committed_qemu_x86_op_fixtures_hold_no_nan():
    """Every case of every committed op fixture recorded under qemu-x86_64: its float inputs finite (no NaN
    to meet another, no infinity to make one) and its outputs free of NaN. Each stored tensor is read once
    (the store keeps one copy of equal contents)."""
    fixtures = _committed("*-t[0-9].h5", KIND)
    seen: set = set()  # (tensor key, inputs or outputs) read already
    cases, bad = 0, []
    for path in fixtures:
        with FixtureReader(path, kind=KIND) as reader:
            for op in reader.groups(ROOT):
                for case in reader.groups(f"{ROOT}/{op}"):
                    cases += 1
                    for part in reader.groups(f"{ROOT}/{op}/{case}"):  # randn has no inputs
                        group = f"{ROOT}/{op}/{case}/{part}"
                        for name in reader.tensor_names(group):
                            key = reader.key(f"{group}/{name}")
                            if (key, part) in seen or np.dtype(key.dtype).kind != "f":
                                continue
                            seen.add((key, part))
                            x = reader.tensor(f"{group}/{name}")
                            if not (np.isfinite(x).all() if part == "inputs" else not np.isnan(x).any()):
                                bad.append(f"{path.name} {group}/{name}")
    # torch 2.12.1, 2.13.0 and 2.14.1: mklavx2 and mklsse42 at 1, 2 and 4 threads, the 26 ops' 78 cases each
    assert (len(fixtures), cases) == (18, 18 * 78)
    assert bad == []


def test_the_committed_qemu_x86_nanogpt_runs_stay_finite():
    """Every step of the committed nanoGPT runs recorded under qemu-x86_64: loss, gradient norm and the sum of
    every parameter's gradient, clipped gradient, value and moments finite (a NaN anywhere in them would make
    the sum NaN), so no NaN reached a parameter or the logits."""
    runs = _committed("*-t[0-9].nanogpt-tiny.h5", "nanogpt")
    assert len(runs) == 6  # torch 2.13.0's: mklavx2 and mklsse42 at 1, 2 and 4 threads
    for path in runs:
        run = read_nanogpt_fixture(path, full=False).run
        assert len(run.steps) == 50
        for rec in run.steps:
            assert np.isfinite(rec.loss).all() and np.isfinite(rec.grad_norm).all(), (path.name, rec.step)
            assert np.isfinite(rec.sums).all(), (path.name, rec.step)


def _nan(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


def _pair(tmp_path: Path, a_prov: dict, b_prov: dict) -> tuple:
    """Two fixtures of one case: NaNs of other payloads on the two sides at 0 and 1 (QEMU's pick and the
    silicon's), the same NaN at 2, a number at 3; at 4 a NaN on A and a number on B."""
    x = np.zeros(6, np.float32)
    a = np.array([_nan(0xFFC12345), _nan(0xFFFFFFFF), _nan(0xFFC00000), 1.5, _nan(0xFFC00000), 2.0], np.float32)
    b = np.array([_nan(0xFFC00000), _nan(0xFFC00000), _nan(0xFFC00000), 1.5, 3.0, 2.0], np.float32)
    fixtures = []
    for name, out, prov in (("a", a, a_prov), ("b", b, b_prov)):
        provenance = {"torch_version": "0.0.0", "platform_id": "linux-x86_64-avx2-mklavx2-t1", **prov}
        rec = CaseRecord("add", "6", {"n": 6}, {"x": x}, {"out": out, "grad_x": out[:5].copy()}, True, "torch.add")
        write_op_fixture(tmp_path / f"{name}.h5", provenance, [rec])
        fixtures.append(read_op_fixture(tmp_path / f"{name}.h5"))
    return tuple(fixtures)


def test_qemu_x86_nan_pick_is_one_side_under_qemu_x86():
    assert qemu_x86_nan_pick(QEMU_HASWELL, NATIVE) and qemu_x86_nan_pick(NATIVE, QEMU_HASWELL)
    assert not qemu_x86_nan_pick(QEMU_HASWELL, QEMU_HASWELL)  # QEMU picks alike on both sides
    assert not qemu_x86_nan_pick(NATIVE, NATIVE)
    arm64 = {"arch": "arm64", "emulation": "qemu-aarch64 version 7.2.22; QEMU_CPU=neoverse-n1; ..."}
    assert not qemu_x86_nan_pick(arm64, NATIVE)  # aarch64's NaN rules are the architecture's, which QEMU keeps


@pytest.mark.parametrize("emulated", ["a", "b"])
def test_nans_of_a_qemu_x86_side_are_set_apart(tmp_path, emulated):
    """The elements NaN on both sides are neither a match nor a mismatch: counted apart, said in the report;
    a NaN against a number still differs."""
    a, b = _pair(tmp_path, *((QEMU_HASWELL, NATIVE) if emulated == "a" else (NATIVE, QEMU_HASWELL)))
    diff = diff_ops(a, b)
    out, grad = diff.cases[0].tensors
    assert (out.count, out.identical, out.set_apart, out.set_apart_differ) == (6, 2, 3, 2)
    assert not out.bit_identical and out.nan_payload == 0 and out.non_finite == 1  # element 4
    assert (grad.identical, grad.set_apart, grad.set_apart_differ, grad.bit_identical) == (1, 3, 2, False)
    data = json.loads(render(diff, "json"))
    assert data["summary"]["nan_set_apart"] == 6 and data["summary"]["nan_set_apart_differ"] == 4
    assert data["ops"][0]["cases"][0]["tensors"][0]["set_apart"] == 3
    text = render(diff, "terminal")
    assert "6 NaN elements set apart, 4 with other bits (not compared: recorded under qemu-x86_64" in text


def test_only_nans_set_apart_is_no_mismatch_and_no_match(tmp_path):
    a, b = _pair(tmp_path, QEMU_HASWELL, NATIVE)
    for fixture in (a, b):  # element 4 a NaN on both sides: QEMU's pick against the CPU's, nothing else
        rec = next(iter(fixture.cases.values()))
        rec.outputs = {n: np.where(np.arange(v.size) == 4, _nan(0xFFC00000), v).astype(np.float32)
                       for n, v in rec.outputs.items()}  # fmt: skip
    diff = diff_ops(a, b)
    assert diff.bit_identical  # every compared element
    out = diff.cases[0].tensors[0]
    assert (out.identical, out.set_apart, out.set_apart_differ) == (2, 4, 2)
    assert "bit-identical; 4 NaN elements set apart, 2 with other bits" in render(diff, "markdown")


def test_two_sides_under_qemu_x86_compare_their_nans(tmp_path):
    a, b = _pair(tmp_path, QEMU_HASWELL, QEMU_HASWELL)
    out = diff_ops(a, b).cases[0].tensors[0]
    assert (out.identical, out.set_apart, out.nan_payload) == (3, 0, 2)


@pytest.fixture(scope="module")
def emulated_add(tmp_path_factory) -> Path:
    """add of 7 elements recorded under qemu-x86_64 (its provenance says so), a NaN among a's: the outputs
    the impl's, but for the NaN of ``out``, which holds another payload (as QEMU's pick may)."""
    from harness.replay.ops import impl_op_fixture

    a = np.linspace(-1, 1, 7).astype(np.float32)
    a[3] = _nan(0xFFC12345)
    inputs = {"a": a, "b": np.full(7, 0.25, np.float32), "grad_out": np.ones(7, np.float32)}
    rec = CaseRecord("add", "7", {"a_shape": [7], "b_shape": [7]}, inputs, {}, True, "torch.add(a, b)")
    provenance = {"torch_version": "2.13.0", "platform_id": "linux-x86_64-avx2-t3", "threads": 3, **QEMU_HASWELL}
    path = tmp_path_factory.mktemp("emulated") / "add.h5"
    write_op_fixture(path, provenance, [CaseRecord(**{**rec.__dict__, "outputs": {"out": a}})])
    impl, missing = impl_op_fixture(read_op_fixture(path))
    assert not missing
    outputs = dict(impl.cases["add/7"].outputs)
    outputs["out"] = outputs["out"].copy()
    outputs["out"][3] = _nan(0xFFFFFFFF)
    write_op_fixture(path, provenance, [CaseRecord(**{**rec.__dict__, "outputs": outputs})], force=True)
    return path


def test_impl_check_of_a_qemu_x86_fixture_sets_its_nans_apart(emulated_add, tmp_path, capsys):
    from harness.cli import main

    assert main(["check", "--impl", "--against", str(emulated_add), "--output", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert (data["summary"]["nan_set_apart"], data["summary"]["nan_set_apart_differ"]) == (1, 1)
    assert (
        "1/1 ops bit-identical where compared (1/1 cases); 1 NaN element set apart, 1 with other bits"
        in capsys.readouterr().out
    )


def test_parity_suite_says_a_case_of_nans_set_apart_apart(emulated_add, tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "pytest", "parity_suite", "-p", "no:cacheprovider", "-q", "-rs", "--parity-source",
         "impl", "--fixture-set", str(emulated_add)],
        capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    assert "1 skipped" in result.stdout
    assert "add/7: bit-identical but for 1 NaN element set apart, 1 with other bits" in result.stdout
