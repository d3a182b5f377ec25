"""`parity generate --nanogpt`: reproduces the committed runs, and records upstream nanoGPT."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from harness.compare.fixtures import provenance_notes
from harness.core.bits import describe_first_mismatch
from harness.formats.nanogpt import NanoGPTFixture, read_nanogpt_fixture
from harness.platform.config import PlatformConfig, collect_facts, supported_levels
from harness.platform.provenance import installed_torch_version
from harness.record.launch import with_machine_blas
from harness.store.paths import fixture_path


def run_parity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False)


def committed_tiny(committed_root: Path, threads: int) -> tuple[PlatformConfig, Path]:
    facts = collect_facts()
    for level in reversed(supported_levels(facts)):
        (config,) = with_machine_blas([PlatformConfig(facts.os, facts.arch, level.name, threads)])
        path = fixture_path(committed_root, installed_torch_version(), config, "tiny")
        if path.exists():
            return config, path
    pytest.skip(f"no committed nanogpt-tiny fixture for {facts.os}-{facts.arch} with this machine's BLAS code path")


def generate_tiny(out: Path, config: PlatformConfig, *extra: str) -> NanoGPTFixture:
    result = run_parity(
        "generate", "--nanogpt", "--isa", config.isa, "--threads", str(config.threads), "--out", str(out),
        "--quiet", *extra,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return read_nanogpt_fixture(fixture_path(out, installed_torch_version(), config, "tiny"))


def step_differences(a: NanoGPTFixture, b: NanoGPTFixture, *, full: bool = True) -> list[str]:
    problems = []
    if a.run.param_names != b.run.param_names:
        return ["parameter names differ"]
    if not np.array_equal(a.run.init_digests, b.run.init_digests):
        problems.append("initial weights differ")
    for ra, rb in zip(a.run.steps, b.run.steps, strict=True):
        for name, arr in ra.tensors().items():
            problem = describe_first_mismatch(arr, rb.tensors()[name])
            if problem:
                problems.append(f"step {ra.step} {name}: {problem}")
        if full:  # the tensors both keep in full (a run recorded as digests keeps none; its digests stand)
            for kind, tensors in ra.full.items():
                for pname, arr in tensors.items() if kind in rb.full else ():
                    problem = describe_first_mismatch(arr, rb.full[kind][pname])
                    if problem:
                        problems.append(f"step {ra.step} {kind} {pname}: {problem}")
    return problems


# Regenerations run on one thread: on an Intel Xeon two threads gave AdamW other bits now and then with
# the cores loaded, cause not found (docs/emulation.md, "On the CPU itself").
def test_regenerating_tiny_reproduces_the_committed_run(tmp_path, committed_root):
    config, path = committed_tiny(committed_root, threads=1)
    committed = read_nanogpt_fixture(path)
    full_steps = ",".join(str(s) for s in committed.config["full_steps"]) or "none"  # part of the input digest
    fresh = generate_tiny(tmp_path, config, "--full-steps", full_steps)
    other = provenance_notes(committed.provenance, fresh.provenance)
    if any(n.startswith("mkl_code_path") for n in other):
        pytest.skip(f"committed on another BLAS code path, so another platform: {other}")
    assert step_differences(fresh, committed) == []
    for name in committed.run.param_names:
        assert describe_first_mismatch(committed.run.init[name], fresh.run.init[name]) is None, name
    assert fresh.attrs["deterministic"] and committed.attrs["deterministic"]
    assert fresh.attrs["input_digest"] == committed.attrs["input_digest"]


STANDIN = '''
"""A stand-in for a nanoGPT checkout's model.py: nanoGPT's API (GPT, GPTConfig,
configure_optimizers(weight_decay, learning_rate, betas, device_type)), built on our model."""
import math
import torch
from harness.record.nanogpt_model import GPT as _GPT, GPTConfig

class GPT(_GPT):
    INIT_STD = {std}

    def _init_weights(self, module):
        if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
            torch.nn.init.normal_(module.weight, mean=0.0, std=self.INIT_STD)
            if getattr(module, "bias", None) is not None:
                torch.nn.init.zeros_(module.bias)
'''


@pytest.mark.parametrize(("std", "same"), [("0.02", True), ("0.021", False)])
def test_upstream_model_option(tmp_path, committed_root, std, same):
    """Same config and init as ours: a bit-identical run. Another init: not."""
    config, path = committed_tiny(committed_root, threads=1)
    checkout = tmp_path / "nanoGPT"
    checkout.mkdir()
    (checkout / "model.py").write_text(textwrap.dedent(STANDIN.format(std=std)))
    upstream = generate_tiny(tmp_path / "out", config, "--nanogpt-dir", str(checkout), "--full-steps", "none")
    assert upstream.provenance["model_source"] == f"nanoGPT model.py at {checkout / 'model.py'}"
    assert len(upstream.provenance["model_py_sha256"]) == 64
    differences = step_differences(upstream, read_nanogpt_fixture(path, full=False), full=False)
    if same:
        assert differences == []
    else:
        assert differences[0] == "initial weights differ"


def test_nanogpt_dir_without_model_py(tmp_path):
    result = run_parity("generate", "--nanogpt-dir", str(tmp_path), "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {tmp_path}: no model.py here (expected a checkout of nanoGPT)"


def test_nanogpt_dir_with_a_foreign_model_py(tmp_path):
    (tmp_path / "model.py").write_text("class GPTConfig:\n    pass\n")
    result = run_parity("generate", "--nanogpt-dir", str(tmp_path), "--threads", "1", "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {tmp_path / 'model.py'}: defines no GPT"


def test_ops_do_not_go_with_nanogpt(tmp_path):
    result = run_parity("generate", "--nanogpt", "--ops", "exp", "--out", str(tmp_path))
    assert result.returncode == 2
    assert "--ops selects ops; it does not go with --nanogpt" in result.stderr


def test_info_and_verify_of_a_committed_run(committed_root):
    _, path = committed_tiny(committed_root, threads=2)
    result = run_parity("verify", str(path))
    assert result.returncode == 0, result.stderr
    assert "nanogpt-tiny, 50 steps" in result.stdout
    info = run_parity("info", str(path))
    assert info.returncode == 0, info.stderr
    assert "two runs from the same start: identical" in info.stdout
    assert "transformer.wte.weight" in info.stdout


def test_digest_option_is_for_nanogpt_runs_only(tmp_path):
    result = run_parity("generate", "--digest", "sha256", "--ops", "exp", "--out", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().startswith("parity: error: --digest names a nanoGPT run's digest algorithm")
    result = run_parity("generate", "--nanogpt", "--digest", "md5", "--out", str(tmp_path))
    assert result.returncode == 2 and "invalid choice: 'md5'" in result.stderr


def test_a_live_check_records_with_its_fixtures_digest(committed_root):
    from harness.core.digest import ALGORITHM, LEGACY
    from harness.record.launch import RecordRequest, live_request

    _, path = committed_tiny(committed_root, threads=2)
    fx = read_nanogpt_fixture(path, full=False)
    assert fx.run.digest == ALGORITHM
    request = live_request(fx)
    config = PlatformConfig("linux", "x86_64", "avx2", 2)
    assert request.digest == ALGORITHM
    assert request.command(config, Path("o.h5"))[-5:-3] == ["--digest", ALGORITHM]
    fx.run.digest = LEGACY  # a fixture of SHA-256 digests is checked by a SHA-256 recording
    assert live_request(fx).command(config, Path("o.h5"))[-5:-3] == ["--digest", LEGACY]
    assert "--digest" not in RecordRequest(ops="exp", digest=LEGACY).command(config, Path("o.h5"))
    info = run_parity("info", str(path))
    assert f"digests      {ALGORITHM} " in info.stdout
