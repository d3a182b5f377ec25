"""Re-running the generator on this machine reproduces the committed fixtures bit for bit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.bits import describe_first_mismatch
from harness.formats.ops import OpFixture, read_op_fixture
from harness.platform.config import PlatformConfig, child_env, collect_facts, supported_levels
from harness.platform.provenance import installed_torch_version
from harness.record.launch import machine_blas, with_machine_blas
from harness.store.paths import fixture_path

# ops whose bits depend on the ISA level or the thread count on x86 (see the committed data), so
# reproducing them proves the configuration was really applied. All are ATen's own kernels:
# no BLAS, whose code path also depends on the CPU's vendor and model (see provenance_notes).
SUBSET = "randn,gelu_tanh,layer_norm,softmax,log_softmax,sum,adamw_step"


def run_parity(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False, env=env
    )


def committed_config(committed_root: Path, threads: int, also: tuple[int, ...] = ()) -> PlatformConfig:
    """The highest ISA level this machine runs that has a committed fixture at ``threads`` (and at each
    thread count of ``also``)."""
    facts = collect_facts()
    for level in reversed(supported_levels(facts)):
        (config,) = with_machine_blas([PlatformConfig(facts.os, facts.arch, level.name, threads)])
        others = [PlatformConfig(config.os, config.arch, config.isa, t, blas=config.blas) for t in also]
        if all(fixture_path(committed_root, installed_torch_version(), c).exists() for c in [config, *others]):
            return config
    pytest.skip(f"no committed fixture of torch {installed_torch_version()} for {facts.os}-{facts.arch}")


def regenerate(tmp_path: Path, config: PlatformConfig, ops: str) -> OpFixture:
    result = run_parity(
        "generate", "--isa", config.isa, "--threads", str(config.threads), "--ops", ops,
        "--out", str(tmp_path), "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return read_op_fixture(fixture_path(tmp_path, installed_torch_version(), config))


def bit_differences(fresh: OpFixture, committed: OpFixture) -> list[str]:
    problems = []
    for key, rec in fresh.cases.items():
        assert key in committed.cases, f"{key} is not in the committed fixture"
        old = committed.cases[key]
        assert rec.params == old.params, f"{key}: params changed"
        for part in ("inputs", "outputs"):
            new_t, old_t = getattr(rec, part), getattr(old, part)
            assert list(new_t) == list(old_t), f"{key}: {part} names changed"
            for name in new_t:
                problem = describe_first_mismatch(old_t[name], new_t[name])
                if problem:
                    problems.append(f"{key}/{part}/{name}: {problem}")
    return problems


def test_regeneration_reproduces_the_committed_fixture(tmp_path, committed_root):
    """On one thread: on an Intel Xeon two threads gave adamw_step other bits in one half of a
    parameter now and then with the cores loaded, cause not found (docs/emulation.md, "On the CPU
    itself")."""
    config = committed_config(committed_root, threads=1)
    fresh = regenerate(tmp_path, config, SUBSET)
    committed = read_op_fixture(fixture_path(committed_root, installed_torch_version(), config))
    assert fresh.ops == SUBSET.split(",")
    assert bit_differences(fresh, committed) == []
    for key, rec in fresh.cases.items():
        assert rec.deterministic == committed.cases[key].deterministic, key
    assert fresh.provenance["platform_id"] == committed.provenance["platform_id"] == config.id
    # the BLAS check before recording must leave MKL's banner (printed once a process) to provenance
    assert fresh.provenance["mkl_code_path"] == committed.provenance["mkl_code_path"]
    assert fresh.provenance["capability"] == config.level.aten_capability


def test_thread_count_is_really_applied(tmp_path, committed_root):
    """One thread reproduces the t1 fixture and differs from the t2 one in a threaded sum."""
    one = committed_config(committed_root, threads=1, also=(2,))
    two = PlatformConfig(one.os, one.arch, one.isa, 2, blas=one.blas)
    fresh = regenerate(tmp_path, one, "sum")
    version = installed_torch_version()
    assert bit_differences(fresh, read_op_fixture(fixture_path(committed_root, version, one))) == []
    differing = bit_differences(fresh, read_op_fixture(fixture_path(committed_root, version, two)))
    assert any(d.startswith("sum/full_65x509/outputs/out") for d in differing), differing


def test_generator_refuses_to_overwrite_before_doing_work(tmp_path):
    facts = collect_facts()
    (config,) = with_machine_blas([PlatformConfig(facts.os, facts.arch, supported_levels(facts)[-1].name, 1)])
    assert config.blas, "the configuration names this machine's BLAS code path"
    target = fixture_path(tmp_path, installed_torch_version(), config)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"keep me")
    result = run_parity("generate", "--threads", "1", "--out", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: already exists, pass --force to overwrite: {target}"
    assert target.read_bytes() == b"keep me"


def test_recorder_refuses_an_unpinned_process(tmp_path):
    facts = collect_facts()
    config = PlatformConfig(facts.os, facts.arch, supported_levels(facts)[-1].name, 1)
    env = {k: v for k, v in os.environ.items() if k not in config.env()}
    result = subprocess.run(
        [sys.executable, "-m", "harness.record.ops_child", "--platform-id", config.id,
         "--out", str(tmp_path / "x.h5")],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith(f"parity: error: environment does not pin {config.id}: ")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.h5").exists()


def test_recorder_refuses_another_blas_code_path(tmp_path):
    """A configuration names its BLAS code path; a process that runs another one records nothing."""
    facts = collect_facts()
    config = PlatformConfig(facts.os, facts.arch, supported_levels(facts)[-1].name, 1)
    own = machine_blas(config)
    other = config.with_blas("mklavx512" if own != "mklavx512" else "mklgeneric")
    result = subprocess.run(
        [sys.executable, "-m", "harness.record.ops_child", "--platform-id", other.id, "--ops", "add",
         "--out", str(tmp_path / "x.h5")],
        capture_output=True, text=True, check=False, env=child_env(other),
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == (
        f"parity: error: this process runs the BLAS code path {own}, not {other.blas} as {other.id} names"
    )
    assert not (tmp_path / "x.h5").exists()


def test_generate_says_what_each_recording_added_to_the_pool(tmp_path):
    """The first recording adds a pool file; the same bits recorded again add nothing."""
    facts = collect_facts()
    level = supported_levels(facts)[0].name
    cmd = ("generate", "--isa", level, "--threads", "1", "--ops", "exp", "--out", str(tmp_path))
    first = run_parity(*cmd)
    assert first.returncode == 0, first.stderr
    (line,) = [ln for ln in first.stdout.splitlines() if "pool" in ln]
    assert " added 1 pool file, " in line and line.endswith(".hdf5)")
    again = run_parity(*cmd, "--force")
    assert again.returncode == 0, again.stderr
    assert [ln for ln in again.stdout.splitlines() if "pool" in ln] == [
        line.split(":")[0] + ": added nothing to the pool (every tensor it holds was there already)"
    ]


def test_the_recorder_warms_vml_on_every_thread_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every recording process calls exp, log, tanh and sqrt once, below ATen's grain (MKL's own threads
    cut it) and above it (each ATen thread calls VML), before it records: the first VML call on two
    threads can take another kernel on the second (docs/emulation.md)."""
    import argparse

    from harness.record import child

    calls: list[tuple[str, int]] = []

    def recorder(name: str):
        return lambda x: calls.append((name, x.numel()))

    def record(config: PlatformConfig) -> tuple[int, str, str]:
        calls.append(("record", 0))
        out.write_bytes(b"")
        return 0, "nothing", ""

    monkeypatch.setattr(child, "_VML_WARM", tuple(recorder(n) for n in ("exp", "log", "tanh", "sqrt")))
    monkeypatch.setattr(child, "check_process_matches", lambda config: None)
    out = tmp_path / "x.h5"
    args = argparse.Namespace(platform_id="linux-x86_64-avx2-mklavx2-t1", out=out, live=False)
    assert child.run_child(args, record) == 0
    warm = [(n, s) for s in (65 * 64, 1 << 17) for n in ("exp", "log", "tanh", "sqrt")]
    assert calls == [*warm, ("record", 0)]
