"""The op-match matrix: equal to an independent bitwise comparison, and published up to date."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.maintenance import pack
from harness.platform.config import parse_platform_id
from harness.replay.check import PARTLY_MODELLED_BLAS, UNMODELLED_BLAS
from harness.report.matrix import load_configs, matrix_dict, write_matrix_files

REPO = Path(__file__).resolve().parent.parent
PUBLISHED = REPO / "ops_matrix"
REFERENCE = "linux-x86_64-avx2-mklgeneric-t2 torch-2.13.0"  # as tox -e matrix


@pytest.fixture(scope="module")
def configs(committed_root):
    return load_configs([committed_root])


@pytest.fixture(scope="module")
def data(configs):
    """The matrix against the reference, computed once (every pair of 32 configurations: about 10 s)."""
    return matrix_dict(configs, REFERENCE)


def _bits(a: np.ndarray) -> tuple:
    """What bitwise equality compares: shape, dtype and the bytes."""
    return a.shape, a.dtype.str, a.tobytes()


def test_pairs_equal_an_independent_bitwise_comparison(configs, data, committed_fixtures):
    # the fixtures the matrix read (every committed op fixture: reading them again took 22 s on 2 cores),
    # labelled from their own attributes; their outputs' bytes are compared here, the matrix compares digests
    assert sorted(c.path for c in configs) == committed_fixtures
    fixtures = {f"{c.ops.attrs['platform_id']} torch-{c.ops.attrs['torch_version']}": c.ops for c in configs}
    assert set(fixtures) == {c["label"] for c in data["configurations"]}
    # per fixture and op, its outputs' bits in one tuple, made once (32 x 32 pairs compare them)
    bits = {
        label: {op: tuple(_bits(arr) for rec in fx.cases.values() if rec.op == op for arr in rec.outputs.values())
                for op in fx.ops}
        for label, fx in fixtures.items()
    }  # fmt: skip
    for a_label, a in bits.items():
        for b_label, b in bits.items():
            same_ops = sum(a[op] == b[op] for op in a)
            assert data["pairs"][a_label][b_label] == same_ops, (a_label, b_label)
    assert all(data["pairs"][x][x] == len(data["ops"]) == 26 for x in fixtures)


def test_against_reference_marks_identical_ops_and_measures_the_rest(data):
    ref_row = data["against_reference"][REFERENCE]
    assert set(ref_row.values()) == {"="}
    t1 = data["against_reference"]["linux-x86_64-avx2-mklgeneric-t1 torch-2.13.0"]
    assert t1["add"] == "=" and isinstance(t1["sum"], int) and t1["sum"] > 0
    assert data["nanogpt"]["tiny"][REFERENCE]["identical_steps"] == 50


def test_the_error_at_the_tensors_scale_colours_the_matrix(data):
    """sdpa, baseline against avx2: 1,735,095,052 ULP (grad_q near zero), but 5.88 ULP at the scale of
    the worst output (grad_k of 1x2x7x64: max|expected| 1.35)."""
    from harness.report.matrix import render_html
    from harness.report.render import heat_colour

    baseline = "linux-x86_64-baseline-mklgeneric-t2 torch-2.13.0"
    assert data["against_reference"][baseline]["sdpa"] == 1_735_095_052
    scaled = data["against_reference_scaled"][baseline]["sdpa"]
    assert scaled == pytest.approx(5.88, abs=0.005)
    assert data["against_reference_scaled"][REFERENCE]["sdpa"] == "="
    cell = f"<td style='background:{heat_colour(scaled, False)}'>1735095052 ({scaled:.3g})</td>"
    assert cell in render_html(data)
    assert heat_colour(scaled, False) != heat_colour(1_735_095_052, False)


def test_published_matrix_is_up_to_date(data, tmp_path):
    written = write_matrix_files(data, tmp_path)
    assert sorted(p.name for p in written) == sorted(
        ["MATRIX.md", "matrix.json", "matrix.html", "heatmap.png", "heatmap.svg"]
    )
    for name in ("MATRIX.md", "matrix.json", "matrix.html"):
        assert (PUBLISHED / name).read_text() == (tmp_path / name).read_text(), (
            f"ops_matrix/{name} is out of date with harness/fixtures: run tox -e matrix"
        )
    for name in ("heatmap.png", "heatmap.svg"):
        assert (PUBLISHED / name).stat().st_size > 0


def test_matrix_json_schema(configs):
    data = json.loads((PUBLISHED / "matrix.json").read_text())
    assert data["schema"] == "parity-harness/matrix" and data["schema_version"] == 2
    assert data["reference"] == REFERENCE
    for c in data["configurations"]:
        assert {"label", "os", "arch", "isa", "threads", "torch", "capability", "emulated"} <= set(c)
        blas = parse_platform_id(c["label"].split()[0]).blas
        assert blas in UNMODELLED_BLAS or blas in ("mklgeneric", "nvpl")
        intel = blas in ("mklsse42", "mklavx2")  # MKL's Intel paths recorded under QEMU; mklavx512 on a Xeon
        assert c["emulated"] == (c["arch"] == "arm64" or intel)  # the committed arm64 and those Intel sets


def test_nanogpt_rows_compare_our_runs_only(configs):
    """A configuration with a run of nanoGPT's own train.py beside ours still shows ours."""
    tiny = {c.label: c.nanogpt.get("tiny") for c in configs}
    assert tiny[REFERENCE] is not None and str(tiny[REFERENCE].attrs["kind"]) == "nanogpt"
    with_upstream = "linux-x86_64-baseline-mklgeneric-t1 torch-2.13.0"
    assert str(tiny[with_upstream].attrs["kind"]) == "nanogpt"
    rows = json.loads((PUBLISHED / "matrix.json").read_text())["nanogpt"]["tiny"]
    assert rows["linux-x86_64-avx2-mklgeneric-t1 torch-2.13.0"]["steps"] == 50  # same inputs: compared


def test_the_same_configuration_from_another_machine_gets_its_own_column(committed_fixtures, tmp_path):
    other = tmp_path / "runner" / "torch-2.13.0"
    other.mkdir(parents=True)
    pack(committed_fixtures[0], other / committed_fixtures[0].name, force=False)  # self-contained, as from CI
    configs = load_configs([committed_fixtures[0], tmp_path / "runner"])
    assert len(configs) == 2 and configs[0].label != configs[1].label
    assert matrix_dict(configs)["pairs"][configs[0].label][configs[1].label] == 26


def test_unknown_reference_and_empty_roots(configs, tmp_path):
    with pytest.raises(ParityError, match="reference 'nowhere' is not among"):
        matrix_dict(configs, "nowhere")
    with pytest.raises(ParityError, match="no op fixtures under"):
        load_configs([tmp_path])


def test_impl_row_follows_the_measured_gaps(configs, data):
    """The matrix's impl figures are the known gaps counted per configuration: an op is bit-exact
    there when no output of any of its cases has a gap."""
    from harness.impl.known_gaps import load_gaps

    gaps = load_gaps()
    for c in configs:
        row = data["impl"][c.label]
        blas = parse_platform_id(c.platform_id).blas
        if blas in UNMODELLED_BLAS and blas not in PARTLY_MODELLED_BLAS:  # the impl has no profile of its own there
            assert row == "no kernel profile", c.label
            continue
        if c.torch_version != gaps.torch_version:  # another release: its platform's gaps (tests/test_impl_fixtures.py)
            assert row["profile"].endswith(f" torch {c.torch_version}"), c.label
        # an x86 set recorded under QEMU is checked with QEMU's RSQRTPS estimate, and its label says so
        emulated_x86 = str(c.ops.provenance.get("emulation", "")).startswith("qemu-x86_64")
        assert ("rsqrtps=qemu" in row["profile"]) == emulated_x86, c.label
        # the matrix is of the 26 ops' fixture: random cases (of those ops too) have gaps of their own
        differing = {g.op for g in gaps.for_platform(c.platform_id) if f"{g.op}/{g.case}" in c.ops.cases}
        assert differing <= set(data["ops"]), c.label
        assert row["ops"] == 26 - len(differing) and row["of"] == 26, c.label
        if "tiny" in c.nanogpt:
            gap = gaps.run_gap(c.platform_id, "tiny")
            assert row["nanogpt"]["tiny"]["identical_steps"] == (50 - gap.mismatches if gap else 50), c.label
    assert data["impl"][REFERENCE]["ops"] == 26 and data["impl"][REFERENCE]["profile"] == "x86-avx2 t2"
    published = (PUBLISHED / "MATRIX.md").read_text()
    assert "## The reference implementation on each configuration" in published


def test_the_release_table_names_each_changed_op_and_its_kernel_change(data, configs, monkeypatch):
    """From one release to the next on one configuration: the ops whose bits moved, each with the kernel
    change behind it; an op that moved with no change known says so rather than name one."""
    from harness.impl import profiles
    from harness.report import matrix

    rows = {(r["platform_id"], r["from"], r["to"]): r for r in data["releases"]}
    assert rows, "the store holds configurations of several releases"
    for (pid, old, new), r in rows.items():
        assert r["ops_identical"] + len(r["changed"]) == r["of"] == len(data["ops"])
        for c in r["changed"]:
            assert c["max_ulp"] > 0 and c["change"] == profiles.RELEASE_CHANGES[(old, new)][c["op"]]
        if "-baseline-" in pid or (old, new) == ("2.13.0", "2.14.1"):
            assert r["changed"] == []  # no FMA at baseline; 2.14.1 computes as 2.13.0
    t1 = rows[("linux-x86_64-avx2-mklgeneric-t1", "2.12.1", "2.13.0")]
    assert [c["op"] for c in t1["changed"]] == ["layer_norm", "softmax"]
    monkeypatch.setattr(matrix, "RELEASE_CHANGES", {})
    unknown = [r for r in matrix.release_changes(configs, data["ops"]) if r["changed"]]
    assert unknown and all(c["change"].startswith("not known") for r in unknown for c in r["changed"])
