"""The model ops' random cases (harness/record/model_ops.py, harness/impl/model_ops.py): recorded by
``parity generate --random`` in a pinned process, read back against their draw, and checked by the
impl bit for bit; a fixture that is not a random-case recording may not hold them."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from harness.core.errors import FixtureError
from harness.core.op_ids import MODEL_OP_IDS
from harness.workloads.random_cases import MODEL_GROUPS, expected_params, model_tensor_names

ROOT = Path(__file__).resolve().parents[1]
PER_GROUP, SEED = 3, 5
# ops whose bits the impl reproduces on every x86 level at 1 thread for this draw (conv2d has known gaps
# of other shapes: the committed random fixtures hold them, known_gaps.json lists them)
CHECKED = [op for op in MODEL_OP_IDS if op != "conv2d"]


def _x86_level() -> str:
    from harness.platform.config import collect_facts, supported_levels

    facts = collect_facts()
    if facts.arch != "x86_64":
        pytest.skip("the model ops' kernels are modelled on x86 only")
    names = [level.name for level in supported_levels(facts)]
    return "avx2" if "avx2" in names else names[0]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """The model ops' random cases of one draw, recorded by ``parity generate --random`` at 1 thread."""
    pytest.importorskip("torch")
    level = _x86_level()
    out = tmp_path_factory.mktemp("model-ops")
    cmd = [sys.executable, "-m", "harness.cli", "generate", "--random", str(PER_GROUP), "--seed", str(SEED),
           "--isa", level, "--threads", "1", "--ops", ",".join(MODEL_OP_IDS), "--out", str(out), "--quiet"]  # fmt: skip
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    (path,) = out.glob(f"torch-*/*.random-{SEED}.h5")
    return path


def test_every_model_op_case_reads_back_as_its_draw(recorded: Path):
    from harness.formats.ops import read_op_fixture

    fixture = read_op_fixture(recorded)
    drawn = {key: params for key, params in expected_params(PER_GROUP, SEED).items() if key[0] in MODEL_OP_IDS}
    assert {(r.op, r.case) for r in fixture.cases.values()} == set(drawn)
    assert len(drawn) == PER_GROUP * len(MODEL_GROUPS)
    for rec in fixture.cases.values():
        inputs, outputs = model_tensor_names(rec.op, rec.params)
        assert (set(rec.inputs), set(rec.outputs)) == (inputs, outputs), rec.key
        assert rec.deterministic, rec.key


@pytest.mark.usefixtures("restore_threads")
def test_the_impl_reproduces_the_model_ops_bit_for_bit(recorded: Path):
    from tests.impl_live import needs_modelled_mkl  # flash attention's sgemm, trunc_normal's log: MKL's generic path

    if needs_modelled_mkl.args[0]:
        pytest.skip(needs_modelled_mkl.kwargs["reason"])
    from harness.replay.check import measure

    gaps, lines = measure(recorded, CHECKED)
    assert len(lines) >= 2 * len(CHECKED) and not gaps, [g.line() for g in gaps]
    assert all(" EXACT " in line for line in lines)


def test_a_model_op_only_in_a_random_case_fixture(recorded: Path, tmp_path: Path):
    from harness.formats.ops import read_op_fixture, write_op_fixture

    fixture = read_op_fixture(recorded)
    prov = {k: v for k, v in fixture.provenance.items() if k != "random_cases"}
    write_op_fixture(tmp_path / "fixed.h5", prov, list(fixture.cases.values()), force=False)
    with pytest.raises(FixtureError, match="unknown op"):
        read_op_fixture(tmp_path / "fixed.h5")
    rec = next(r for r in fixture.cases.values() if r.op == "batch_norm")
    lost = replace(rec, outputs={k: v for k, v in rec.outputs.items() if k != "save_invstd"})
    others = [r for r in fixture.cases.values() if r.key != rec.key]
    write_op_fixture(tmp_path / "lost.h5", fixture.provenance, [*others, lost], force=False)
    with pytest.raises(FixtureError, match="lacks output save_invstd"):
        read_op_fixture(tmp_path / "lost.h5")


@pytest.mark.parametrize(
    "args",
    [
        ["--random", "3", "--nanogpt"],
        ["--random", "0"],
        ["--random", "3", "--seed", "-1"],
        ["--ops", "silu"],  # a model op without --random: no fixed case to record
        ["--random", "3", "--ops", "no_such_op"],
    ],
)
def test_generate_refuses_a_bad_random_request_in_one_line(args: list[str], tmp_path: Path):
    cmd = [sys.executable, "-m", "harness.cli", "generate", *args, "--out", str(tmp_path)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert not list(tmp_path.iterdir())
