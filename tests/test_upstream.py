"""nanoGPT's own train.py, run unchanged: its data, the reference implementation's replay of the
committed upstream fixtures, and (with a checkout in PARITY_NANOGPT_DIR) the recorder end to end.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from harness.formats.run_keep import UpstreamRecorder
from harness.formats.upstream import diff_evals, read_upstream_fixture
from harness.impl.profiles import get_profile, profile_for_platform
from harness.replay.upstream import check_fixture, replay
from harness.workloads.nanogpt_data import VOCAB, encode, make_text
from harness.workloads.upstream import UPSTREAM_CONFIGS, dataset_splits, write_dataset

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = sorted((ROOT / "harness" / "fixtures").glob("torch-2.13.0/*.nanogpt-upstream-*.h5"))
CHECKOUT = os.environ.get("PARITY_NANOGPT_DIR", "")
needs_checkout = pytest.mark.skipif(
    not CHECKOUT, reason="set PARITY_NANOGPT_DIR to a checkout of karpathy/nanoGPT to run train.py itself"
)
# train.py's settings as the tiny override set gives them (its config dict, as a fixture stores it)
TINY_SETTINGS = {
    "device": "cpu", "dtype": "float32", "compile": False, "init_from": "scratch", "eval_only": False,
    "grad_clip": 1.0, "decay_lr": True, "eval_interval": 2000, "weight_decay": 0.1, "beta1": 0.9, "max_iters": 49,
    **UPSTREAM_CONFIGS["tiny"].overrides,
}  # fmt: skip


def run_parity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False)


# ----------------------------------------------------------------------------- torch-free


def test_dataset_is_nanogpts_format(tmp_path):
    digests = write_dataset(tmp_path)
    tokens = encode(make_text())
    train = np.fromfile(tmp_path / "train.bin", dtype="<u2")
    val = np.fromfile(tmp_path / "val.bin", dtype="<u2")
    assert len(train) == int(len(tokens) * 0.9) and np.array_equal(np.concatenate([train, val]), tokens)
    assert sorted(digests) == ["meta.pkl", "train.bin", "val.bin"]
    assert (tmp_path / "meta.pkl").read_bytes().startswith(b"\x80")  # a pickle protocol header, for train.py
    assert int(train.max()) < len(VOCAB) and int(val.max()) < len(VOCAB)


def test_argv_puts_the_config_file_first_and_keeps_the_checkout_clean(tmp_path):
    argv = UPSTREAM_CONFIGS["shakespeare-char"].argv(tmp_path / "data", tmp_path / "out", {"eval_iters": 3})
    assert argv[0] == "config/train_shakespeare_char.py"
    assert f"--dataset={tmp_path / 'data'}" in argv and f"--out_dir={tmp_path / 'out'}" in argv
    assert "--eval_iters=3" in argv and "--eval_iters=2" not in argv
    assert {"--device=cpu", "--compile=False", "--dtype=float32", "--max_iters=49", "--wandb_log=False"} <= set(argv)


def test_replay_draws_batches_in_train_pys_order():
    """The first training batch comes before the evaluation's batches, and with g micro-steps a
    step keeps g stacked batches, each drawn after the previous micro-step's forward."""
    settings = {**TINY_SETTINGS, "gradient_accumulation_steps": 2, "eval_iters": 1}
    recorder = UpstreamRecorder(set())
    replay(settings, len(VOCAB), get_profile("x86-avx2", 2), recorder, steps=2)
    steps, evals = recorder.steps, recorder.evals
    assert [s.x.shape for s in steps] == [(2, 4, 32)] * 2 and steps[0].loss.shape == (2,)
    assert [e.iteration for e in evals] == [0] and evals[0].x.shape == (2, 4, 32)
    assert len(steps[0].dropout_mask_digests) == 2 * (1 + 3 * 2)  # per micro-step: embedding, 3 per block
    # torch.randint(len(data) - T, (B,)) in order: train batch, eval train, eval val, then training
    from harness.impl import rng
    from harness.impl.nanogpt import init_params, param_shapes
    from harness.workloads.upstream import get_batch, train_config

    cfg = train_config(settings, len(VOCAB))
    gen = rng.CPUGenerator(1337)
    init_params(cfg, gen, get_profile("x86-avx2", 2))
    data = dataset_splits()
    first = get_batch(data["train"], rng.randint(gen, 0, len(data["train"]) - 32, 4), 32)
    ev_train = get_batch(data["train"], rng.randint(gen, 0, len(data["train"]) - 32, 4), 32)
    ev_val = get_batch(data["val"], rng.randint(gen, 0, len(data["val"]) - 32, 4), 32)
    assert np.array_equal(steps[0].x[0], first[0]) and np.array_equal(steps[0].y[0], first[1])
    assert np.array_equal(evals[0].x[0], ev_train[0]) and np.array_equal(evals[0].x[1], ev_val[0])
    assert len(param_shapes(cfg)) == len(recorder.names)


@pytest.mark.skipif(not COMMITTED, reason="no upstream fixture committed under harness/fixtures/torch-2.13.0")
@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_impl_replays_committed_upstream_fixture(path):
    """Every step (the first 2 of a digest-only run: 25 minutes in full, `parity check --impl`)."""
    expected = read_upstream_fixture(path)
    steps = None if expected.attrs.get("full_init") else 2
    diff, evals = check_fixture(expected, steps=steps)
    assert evals == []
    assert diff.init_identical and diff.first is None, diff.first
    assert diff.identical_steps == len(diff.steps) == (steps or 50)


def test_a_changed_eval_loss_is_reported():
    settings = {**TINY_SETTINGS, "eval_iters": 1}
    runs = []
    for _ in range(2):
        recorder = UpstreamRecorder(set())
        replay(settings, len(VOCAB), get_profile("x86-avx2", 1), recorder, steps=1)
        runs.append(recorder.evals)
    assert diff_evals(runs[0], runs[1]) == []
    changed = runs[1][0].loss.copy()
    changed.view(np.uint32)[1] ^= 1
    runs[1][0] = replace(runs[1][0], loss=changed)
    assert diff_evals(runs[0], runs[1]) == ["evaluation at iteration 0: loss differs"]


def test_generate_refuses_a_directory_without_train_py(tmp_path):
    result = run_parity("generate", "--nanogpt-train", str(tmp_path), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"parity: error: {tmp_path}: no train.py, model.py, configurator.py here (expected a checkout of nanoGPT)"
    ]


def test_generate_refuses_nanogpt_train_with_nanogpt_dir(tmp_path):
    result = run_parity("generate", "--nanogpt-train", str(tmp_path), "--nanogpt-dir", str(tmp_path))
    assert result.returncode == 2 and "does not go with --nanogpt-dir" in result.stderr


# ----------------------------------------------------------------------------- with a checkout


@needs_checkout
def test_recorded_train_py_is_replayed_bit_exact(tmp_path):
    """train.py itself for 3 iterations with 2 micro-steps each, recorded twice and replayed by the impl."""
    from harness.platform.config import PlatformConfig, child_env, collect_facts, supported_levels

    checkout = Path(CHECKOUT)
    before = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--ignored"], capture_output=True, text=True
    )
    facts = collect_facts()
    levels = [lvl.name for lvl in supported_levels(facts)]
    config = PlatformConfig(facts.os, facts.arch, "avx2" if "avx2" in levels else levels[0], 2)
    out = tmp_path / "run.h5"
    cmd = [
        sys.executable, "-m", "harness.record.upstream_child", "--platform-id", config.id, "--out", str(out),
        "--nanogpt-train", str(checkout), "--config", "tiny", "--quiet",
        "--set", "max_iters=2", "--set", "gradient_accumulation_steps=2",
    ]  # fmt: skip
    result = subprocess.run(cmd, env=child_env(config), capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    fixture = read_upstream_fixture(out)
    assert fixture.attrs["deterministic"] is True and fixture.attrs["runs"] == 2
    assert fixture.attrs["train_config"]["gradient_accumulation_steps"] == 2
    assert set(fixture.attrs["upstream"]["sha256"]) == {"train.py", "model.py", "configurator.py"}
    assert len(fixture.run.steps) == 3 and fixture.run.steps[0].x.shape == (2, 4, 32)
    diff, evals = check_fixture(fixture, profile_for_platform(config.id))
    assert evals == [] and diff.first is None and diff.identical_steps == 3
    after = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--ignored"], capture_output=True, text=True
    )
    assert after.stdout == before.stdout  # no data, checkpoint or bytecode left in the checkout


def _impl_fixture(tmp_path: Path, settings: dict, stored: dict | None = None, name: str = "run.h5") -> Path:
    """An upstream fixture written from the impl's replay (2 steps), as the recorder writes one;
    ``stored``: the train.py settings the fixture claims (default: ``settings``)."""
    from harness.formats.upstream import write_upstream_fixture

    recorder = UpstreamRecorder({1})
    replay(settings, len(VOCAB), get_profile("x86-avx2", 2), recorder, steps=2)
    run = recorder.run()
    attrs = {
        "provenance": {"platform_id": "linux-x86_64-avx2-t2"}, "torch_version": "2.13.0",
        "platform_id": "linux-x86_64-avx2-t2", "config": {"name": "tiny"}, "train_config": stored or settings,
        "vocab_size": len(VOCAB), "param_shapes": [list(run.init[n].shape) for n in run.param_names],
        "full_init": True, "upstream": {"sha256": {}}, "dataset": {}, "runs": 1, "deterministic": False,
        "first_nondeterministic_step": 0,
    }  # fmt: skip
    path = tmp_path / name
    write_upstream_fixture(path, attrs, run, recorder.evals)
    return path


def test_fixture_round_trip_and_structure_check(tmp_path):
    from harness.core.errors import FixtureError

    settings = {**TINY_SETTINGS, "eval_iters": 1, "max_iters": 1}
    fixture = read_upstream_fixture(_impl_fixture(tmp_path, settings))
    assert [s.step for s in fixture.run.steps] == [1, 2] and fixture.run.steps[0].full
    assert fixture.evals[0].x.shape == (2, 4, 32) and fixture.evals[0].mean.shape == (2,)
    diff, evals = check_fixture(fixture)
    assert evals == [] and diff.first is None and diff.identical_steps == 2
    bad = _impl_fixture(tmp_path, settings, {**settings, "batch_size": 5}, "bad.h5")
    with pytest.raises(FixtureError, match=r"steps/0001/x is int64\[4, 32\], expected int64\[5, 32\]"):
        read_upstream_fixture(bad)


@needs_checkout
def test_tracing_train_py_at_one_and_two_threads_finds_the_layer_norm_backward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """parity trace on upstream's train.py itself (its tiny overrides, one iteration after the
    evaluation): the root cause of 1 vs 2 threads, its call site in model.py, knob and proof."""
    import json

    from harness.cli import main

    checkout = Path(CHECKOUT).resolve()
    write_dataset(tmp_path / "data")
    argv = UPSTREAM_CONFIGS["tiny"].argv(tmp_path / "data", tmp_path / "out", {"max_iters": 0, "eval_iters": 1})
    monkeypatch.chdir(checkout)  # train.py reads configurator.py from its working directory
    traces = []
    for threads in (1, 2):
        out = tmp_path / f"t{threads}.h5"
        program = [sys.executable, "train.py", *argv]
        assert main(["trace", "--platform", f"linux-x86_64-avx2-t{threads}", "--out", str(out), "--", *program]) == 0
        traces.append(out)
    capsys.readouterr()
    report = tmp_path / "diff.json"
    assert main(["diff", *map(str, traces), "--verify-cause", "--output", str(report)]) == 1
    root = json.loads(report.read_text())["root_cause"]
    assert (root["op"], root["module"]) == ("aten.native_layer_norm_backward.default", "GPT.transformer.ln_f")
    assert root["site"] == f"{checkout / 'model.py'}:27" and root["knobs"] == ["threads"]
    assert root["verified"] is True
