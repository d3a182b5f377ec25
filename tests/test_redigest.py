"""harness.replay.redigest (tools/redigest.py): a nanoGPT fixture's digests converted to another
algorithm only where the impl's replay proves every recorded digest, and nothing else changed."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.core.digest import ALGORITHM, LEGACY, digest
from harness.formats.maintenance import pack
from harness.formats.nanogpt import DIGEST_KINDS, NanoGPTFixture, write_nanogpt_fixture
from harness.formats.registry import read_fixture
from harness.replay.redigest import redigest
from harness.store import FixtureReader

REPO = Path(__file__).resolve().parent.parent
COMMITTED = REPO / "harness" / "fixtures" / "torch-2.13.0"
TINY = "linux-x86_64-avx2-mklgeneric-t2.nanogpt-tiny.h5"
UPSTREAM_TINY = "linux-x86_64-baseline-mklgeneric-t1.nanogpt-upstream-tiny.h5"


def _packed(tmp_path: Path, name: str) -> Path:
    return pack(COMMITTED / name, tmp_path / name, force=False)


def _digest_records(fx: NanoGPTFixture) -> list[bytes]:
    run = fx.run
    out = [run.init_digests.tobytes(), run.init_sums.tobytes()]
    for rec in run.steps:
        out += [rec.logits_digest.tobytes(), rec.dropout_mask_digests.tobytes(), rec.digests.tobytes()]
        out.append(rec.sums.tobytes())
    return out


def _stored(fx: NanoGPTFixture) -> list[bytes]:
    """Everything but the digests and sums: batches, scalars, full tensors, lr."""
    out = [a.tobytes() for n in fx.run.param_names for a in [fx.run.init.get(n, np.zeros(0))]]
    for rec in fx.run.steps:
        out += [rec.x.tobytes(), rec.y.tobytes(), rec.loss.tobytes(), rec.grad_norm.tobytes()]
        out += [rec.clip_coef.tobytes(), np.float64(rec.lr).tobytes()]
        out += [t.tobytes() for kind in sorted(rec.full) for _, t in sorted(rec.full[kind].items())]
    return out


def _digest_only_init(tmp_path: Path) -> Path:
    """The committed tiny run with its initial weights as digests only (as shakespeare-char keeps them)."""
    fx = read_fixture(_packed(tmp_path, TINY))
    path = tmp_path / "digest-init.h5"
    write_nanogpt_fixture(path, fx.provenance, fx.config, fx.run, deterministic=True, full_init=False)
    return path


@pytest.mark.parametrize("name", [TINY, UPSTREAM_TINY, "digest-init"])
def test_a_round_trip_through_sha256_gives_back_the_committed_digests(tmp_path: Path, name: str):
    path = _digest_only_init(tmp_path) if name == "digest-init" else _packed(tmp_path, name)
    committed = read_fixture(path)
    assert bool(committed.run.init) is (name != "digest-init")
    assert committed.run.digest == ALGORITHM
    to_legacy = redigest(path, LEGACY)
    assert to_legacy.converted, to_legacy.detail
    legacy = read_fixture(path)
    with FixtureReader(path) as reader:  # laid out as before the digest was named
        assert "digest" not in reader.attrs("/")
        assert reader.has("init_sha256") and reader.has("steps/0001/logits_sha256")
    assert legacy.run.digest == LEGACY
    step = legacy.run.steps[0]  # stored in full: its SHA-256 digests can be checked with hashlib
    i, k = 0, DIGEST_KINDS.index("value")
    value = step.full["value"][legacy.run.param_names[i]]
    assert bytes(step.digests[i, k]) == hashlib.sha256(value.tobytes()).digest()
    assert _stored(legacy) == _stored(committed)
    assert legacy.provenance["digest_converted"]["from"] == ALGORITHM
    back = redigest(path, ALGORITHM)
    assert back.converted, back.detail
    again = read_fixture(path)
    assert _digest_records(again) == _digest_records(committed)  # every digest and sum, bit for bit
    assert _stored(again) == _stored(committed)
    assert again.attrs["input_digest"] == committed.attrs["input_digest"]
    if name == UPSTREAM_TINY:
        assert [e.logits_digest.tobytes() for e in again.evals] == [e.logits_digest.tobytes() for e in committed.evals]
    assert redigest(path, ALGORITHM).detail == f"already digested with {ALGORITHM}"


def test_a_fixture_the_replay_does_not_reproduce_is_left_as_it_is(tmp_path: Path):
    fx = read_fixture(_packed(tmp_path, TINY))
    fx.run.steps[2].digests[5, 1, 0] ^= 1  # one digest bit of step 3's gradients
    path = tmp_path / "tampered.h5"
    write_nanogpt_fixture(
        path, fx.provenance, fx.config, fx.run, deterministic=True, full_init=bool(fx.run.init)
    )  # fmt: skip
    before = path.read_bytes()
    result = redigest(path, LEGACY)
    assert not result.converted
    assert "does not reproduce it (step 3 grad " in result.detail, result.detail
    assert path.read_bytes() == before


def test_digests_of_the_converted_fixture_are_those_of_its_full_tensors(tmp_path: Path):
    fx = read_fixture(COMMITTED / TINY)
    for rec in (fx.run.steps[0], fx.run.steps[-1]):
        for kind, tensors in rec.full.items():
            k = DIGEST_KINDS.index(kind)
            for i, name in enumerate(fx.run.param_names):
                assert bytes(rec.digests[i, k]) == digest(tensors[name], ALGORITHM), (rec.step, kind, name)


def test_the_tool_reports_bad_input_in_one_line(tmp_path: Path):
    tool = [sys.executable, str(REPO / "tools" / "redigest.py")]
    for args, text in (([str(tmp_path / "none.h5")], "none.h5"), (["--to", "md5", "x.h5"], "invalid choice")):
        out = subprocess.run([*tool, *args], capture_output=True, text=True, check=False)
        assert out.returncode == 2 and text in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    ops = pack(COMMITTED / "linux-x86_64-avx2-mklgeneric-t2.h5", tmp_path / "ops.h5", force=False)
    out = subprocess.run([*tool, str(ops)], capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "only nanoGPT fixtures carry digests" in out.stderr


def test_diff_refuses_fixtures_of_two_digest_algorithms_in_one_line(tmp_path: Path):
    legacy = _packed(tmp_path, TINY)
    assert redigest(legacy, LEGACY).converted
    out = subprocess.run(
        [sys.executable, "-m", "harness.cli", "diff", str(legacy), str(COMMITTED / TINY)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 2, out.stdout
    assert out.stderr.count("\n") == 1
    assert f"digests with {LEGACY} and " in out.stderr and f"with {ALGORITHM}: their digests are not" in out.stderr
