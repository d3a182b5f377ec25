"""Emulated arm64 cores: the fake CPU description and the command lines (no QEMU run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.platform.config import PlatformConfig, PlatformFacts, parse_cpuinfo, resolve_level, supported_levels
from harness.platform.emulation import CORES, Emulator, cpuinfo_text, fake_cpu_files, record_command, write_fake_cpu


def test_midr_fields():
    n1 = CORES["neoverse-n1"]
    assert (n1.implementer, n1.variant, n1.part, n1.revision) == (0x41, 0x3, 0xD0C, 0x1)
    assert (CORES["neoverse-v1"].part, CORES["neoverse-v2"].part) == (0xD40, 0xD4F)


def test_cpuinfo_reads_back_as_the_core_it_describes():
    for core in CORES.values():
        model, flags = parse_cpuinfo(cpuinfo_text(core, 2))
        assert model == f"implementer 0x41 part 0x{core.part:03x}"
        assert f"part:0x{core.part:03x}" in flags and "asimd" in flags
        facts = PlatformFacts("linux", "arm64", model, flags)
        assert resolve_level(facts, core.name).name == core.name  # the level this core pins
        assert [lvl.name for lvl in supported_levels(facts)] == ["neon", core.name]
    assert "sve" not in parse_cpuinfo(cpuinfo_text(CORES["neoverse-n1"], 1))[1]


def test_fake_sysfs_entries(tmp_path: Path):
    v1 = CORES["neoverse-v1"]
    files = fake_cpu_files(v1, 2)
    assert files["sys/devices/system/cpu/online"] == "0-1\n"
    assert files["sys/devices/system/cpu/cpu1/regs/identification/midr_el1"] == "0x00000000411fd401\n"
    assert cpuinfo_text(v1, 2).count("processor\t:") == 2
    write_fake_cpu(tmp_path, v1, 2)
    assert (tmp_path / "proc/cpuinfo").read_text() == files["proc/cpuinfo"]
    assert (tmp_path / "sys/devices/system/cpu/cpu0/topology/core_id").read_text() == "0\n"


def test_record_command_and_environment(tmp_path: Path):
    emu = Emulator(tmp_path / "cache", "2.13.0")
    config = PlatformConfig("linux", "arm64", "neoverse-v1", 2)
    cmd = record_command(emu, config, tmp_path / "x.h5", ops="exp")
    assert cmd[1:4] == ["-L", str(emu.root), str(emu.root / "usr/bin/python3.11")]
    assert cmd[4:] == ["-m", "harness.record.ops_child", "--platform-id", "linux-arm64-neoverse-v1-t2",
                       "--out", str(tmp_path / "x.h5"), "--quiet", "--ops", "exp"]  # fmt: skip
    nano = record_command(emu, config, tmp_path / "y.h5", nanogpt="tiny", force=True)
    assert nano[5] == "harness.record.nanogpt_child" and nano[-3:] == ["--config", "tiny", "--force"]
    digests = record_command(emu, config, tmp_path / "z.h5", nanogpt="tiny", full_steps="none")
    assert digests[-4:] == ["--config", "tiny", "--full-steps", "none"]
    env = emu.env(config, CORES["neoverse-v1"], Path("/repo"), {"PATH": "/bin", "MKL_CBWR": "AVX2"})
    assert env["QEMU_CPU"] == "max,sve-default-vector-length=32"
    assert env["ATEN_CPU_CAPABILITY"] == "sve256" and env["OMP_NUM_THREADS"] == "2"
    assert env["PYTHONPATH"].split(":") == [str(emu.site), "/repo"] and "MKL_CBWR" not in env
    assert "fake MIDR 0x411fd401 (neoverse-v1, like AWS Graviton3)" in env["PARITY_EMULATION"]


def test_each_core_gets_its_own_root_so_cores_run_side_by_side(tmp_path: Path):
    emu = Emulator(tmp_path / "cache", "2.13.0")
    (emu.root / "usr/bin").mkdir(parents=True)
    (emu.root / "usr/bin/python3.11").write_text("")
    (emu.root / "proc").mkdir()  # a stale fake /proc of the shared root is never linked
    n1 = emu.core_root(CORES["neoverse-n1"], 2)
    v1 = emu.core_root(CORES["neoverse-v1"], 4)
    assert n1 != v1 and (n1 / "usr").resolve() == (emu.root / "usr").resolve()
    assert not (n1 / "proc").is_symlink() and "sve" not in (n1 / "proc/cpuinfo").read_text()
    assert " sve " in (v1 / "proc/cpuinfo").read_text() and (v1 / "proc/cpuinfo").read_text().count("processor") == 4
    assert emu.core_root(CORES["neoverse-n1"], 2) == n1  # idempotent
    config = PlatformConfig("linux", "arm64", "neoverse-n1", 1, blas="nvpl")
    cmd = record_command(emu, config, tmp_path / "r.h5", root=n1, random=100, seed=3)
    assert cmd[1:3] == ["-L", str(n1)] and cmd[-4:] == ["--random", "100", "--seed", "3"]


def test_two_runs_setting_up_one_core_at_once_do_not_trip_on_each_other(tmp_path: Path, monkeypatch):
    """Two emulated runs started together with a new CPU count write the same core's fake files and links:
    each write goes through its own temporary file, and a link the other run made first is taken as made."""
    emu = Emulator(tmp_path / "cache", "2.13.0")
    (emu.root / "usr/bin").mkdir(parents=True)
    (emu.root / "usr/bin/python3.11").write_text("")
    n1 = emu.core_root(CORES["neoverse-n1"], 4)
    regs = n1 / "sys/devices/system/cpu/cpu0/regs/identification"
    (regs / ".midr_el1.tmp").mkdir()  # the other run's temporary file, under the one name they once shared
    monkeypatch.setattr(Path, "is_symlink", lambda self: False)  # the other run linked usr/ after this one looked
    assert emu.core_root(CORES["neoverse-n1"], 4) == n1
    assert (regs / "midr_el1").read_text() == "0x00000000413fd0c1\n"
    assert sorted(p.name for p in regs.iterdir()) == [".midr_el1.tmp", "midr_el1"]  # no temporary file left


def test_bad_thread_counts_are_one_line_and_exit_2(tmp_path: Path):
    import subprocess
    import sys

    tool = Path(__file__).resolve().parents[1] / "tools" / "emulate_arm64.py"
    for threads in ("x", "0", "1,,-2"):
        result = subprocess.run(
            [sys.executable, str(tool), "run", "--threads", threads, "--cache", str(tmp_path), "--", "s.py"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "--threads takes positive integers" in result.stderr


def test_impl_check_argument_errors_are_one_line_and_exit_2(tmp_path: Path):
    import subprocess
    import sys

    tool = Path(__file__).resolve().parents[1] / "tools" / "emulate_arm64.py"
    cases = {
        ("impl-check", "--cores", "neoverse-n1,neoverse-v1"): "one emulated core",
        ("impl-check", "--cores", "cortex-a53"): "unknown core",
        ("impl-check", "--nanogpt", "shakespeare-char"): "nanoGPT tiny fixtures only",
        ("impl-check", "--native", str(tmp_path / "absent.h5")): "no such fixture",
        ("impl-check", "--random", "3"): "takes no --random",
        ("record", "x.h5"): "takes no fixtures",
    }
    for argv, message in cases.items():
        result = subprocess.run(
            [sys.executable, str(tool), *argv, "--cache", str(tmp_path / "cache")],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (argv, result.stderr)
        assert message in result.stderr, (argv, result.stderr)
    assert not (tmp_path / "cache").exists()  # refused before any setup


def test_trace_argument_errors_are_one_line_and_exit_2(tmp_path: Path):
    import subprocess
    import sys

    tool = Path(__file__).resolve().parents[1] / "tools" / "emulate_arm64.py"
    (tmp_path / "folder").mkdir()
    one = ("trace", "--cores", "neoverse-n1")
    cases = {
        ("trace", "--out", "t.h5", "--", "-m", "m"): "one core at one thread count",  # default: all three
        (*one, "--threads", "1,2", "--out", "t.h5", "--", "-m", "m"): "one core at one thread count",
        (*one, "--", "-m", "m"): "trace needs --out FILE",
        (*one, "--out", "t.h5"): "nothing to trace",
        (*one, "--out", "t.h5", "--", "python"): "nothing to trace",
        (*one, "--out", "t.h5", "--", str(tmp_path / "absent.py")): "absent.py: no such script",
        (*one, "--out", "t.h5", "--capture", "1,x", "--", "-m", "m"): "--capture takes op indices",
        (*one, "--out", str(tmp_path / "folder"), "--", "-m", "m"): "is a folder",
    }
    for argv, message in cases.items():
        result = subprocess.run(
            [sys.executable, str(tool), argv[0], "--cache", str(tmp_path / "cache"), *argv[1:]],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (argv, result.stderr)
        assert message in result.stderr, (argv, result.stderr)
    assert not (tmp_path / "cache").exists()  # refused before any setup


def test_arm64_impl_is_compiled_with_the_package_flags_for_aarch64(tmp_path: Path):
    from harness.core import buildinfo
    from harness.platform.emulation import AARCH64_CC, arm64_compile_command, impl_env

    assert buildinfo.compile_flags(machine="aarch64") == buildinfo.PORTABLE_FLAGS
    assert "-ffp-contract=off" in buildinfo.PORTABLE_FLAGS  # GCC contracts a*b+c into FMA on aarch64 otherwise
    emu = Emulator(tmp_path, "2.13.0")
    lib = next(lib for lib in buildinfo.libraries() if lib.name == "digest")
    cmd = arm64_compile_command(emu, lib, tmp_path / "_digest.so")
    assert cmd[0] == AARCH64_CC and "-mfma" not in cmd
    assert cmd[1 : 1 + len(buildinfo.PORTABLE_FLAGS)] == buildinfo.PORTABLE_FLAGS
    assert str(tmp_path / "python-dev" / "usr" / "include" / "python3.11") in cmd  # Python.h of the arm64 Python
    env = impl_env(
        emu, CORES["neoverse-n1"], tmp_path / "site", tmp_path / "pkg", {"PYTHONPATH": "/host", "HOME": "/h"}
    )
    assert env["PYTHONPATH"] == f"{tmp_path / 'site'}:{tmp_path / 'pkg'}" and env["HOME"] == "/h"
    assert env["QEMU_CPU"] == "neoverse-n1"


def fake_cross_compiler(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The cross compiler replaced by one that writes "build N" to its output; returns the list of its runs."""
    import harness.platform.emulation as emulation

    runs: list[str] = []

    def compile_(cmd: list[str], what: str) -> None:
        runs.append(what)
        Path(cmd[cmd.index("-o") + 1]).write_bytes(f"build {len(runs)}".encode())

    monkeypatch.setattr(emulation, "_run", compile_)
    return runs


def test_an_arm64_library_is_compiled_once_per_source_and_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cross compiler runs for a library whose command, source or headers it has not built from;
    an unchanged one is taken from the cache, and a rebuild replaces the older build."""
    import harness.core.buildinfo as buildinfo
    import harness.platform.emulation as emulation

    csrc = tmp_path / "pkg" / "impl" / "csrc"
    csrc.mkdir(parents=True)
    (csrc / "toy.c").write_text("int toy(void) { return 1; }\n")
    (csrc / "toy.h").write_text("#define TOY 1\n")
    monkeypatch.setattr(buildinfo, "PACKAGE", tmp_path / "pkg")
    lib = buildinfo.Library("impl", "toy")
    runs = fake_cross_compiler(monkeypatch)
    emu = Emulator(tmp_path / "cache", "2.13.0")
    first = emulation.arm64_library(emu, lib)
    assert emulation.arm64_library(emu, lib) == first and len(runs) == 1 and first.read_bytes() == b"build 1"
    (csrc / "toy.h").write_text("#define TOY 2\n")  # a header beside the source changed: built again
    second = emulation.arm64_library(emu, lib)
    assert second != first and len(runs) == 2 and second.read_bytes() == b"build 2"
    assert first.exists()  # an older build stays for checkouts still at it


def test_arm64_builds_are_shared_across_checkouts_and_the_least_recently_used_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two checkouts of the same source at other paths take one build (the key holds no path); past
    ARM64_BUILDS_KEPT builds of a library, the least recently used is removed."""
    import os

    import harness.core.buildinfo as buildinfo
    import harness.platform.emulation as emulation

    def checkout(name: str, source: str) -> None:
        csrc = tmp_path / name / "impl" / "csrc"
        csrc.mkdir(parents=True, exist_ok=True)
        (csrc / "toy.c").write_text(source)
        (csrc / "toy.h").write_text("#define TOY 1\n")
        monkeypatch.setattr(buildinfo, "PACKAGE", tmp_path / name)

    runs = fake_cross_compiler(monkeypatch)
    emu = Emulator(tmp_path / "cache", "2.13.0")
    lib = buildinfo.Library("impl", "toy")
    checkout("a", "int toy(void) { return 0; }\n")
    shared = emulation.arm64_library(emu, lib)
    checkout("b", "int toy(void) { return 0; }\n")
    assert emulation.arm64_library(emu, lib) == shared and len(runs) == 1
    builds = [shared]
    for n in range(1, emulation.ARM64_BUILDS_KEPT + 1):
        os.utime(builds[-1], ns=(n * 10**9, n * 10**9))  # each build older than the next
        checkout("b", f"int toy(void) {{ return {n}; }}\n")
        builds.append(emulation.arm64_library(emu, lib))
    kept = sorted(shared.parent.iterdir())
    assert len(runs) == emulation.ARM64_BUILDS_KEPT + 1 and len(kept) == emulation.ARM64_BUILDS_KEPT
    assert not shared.exists() and kept == sorted(builds[1:])  # the least recently used went


def test_transformers_is_an_extra_on_the_path_only_once_set_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """setup --transformers downloads the pinned aarch64 wheels once into a site folder of its own,
    which the emulated runs then have after torch's; without it the path is torch's site and the package."""
    import zipfile

    import harness.platform.emulation as emulation

    emu = Emulator(tmp_path / "cache", "2.13.0")
    config = PlatformConfig("linux", "arm64", "neoverse-n1", 1, blas="nvpl")
    assert emu.env(config, CORES["neoverse-n1"], Path("/repo"), {})["PYTHONPATH"].split(":") == [str(emu.site), "/repo"]
    runs: list[list[str]] = []

    def download(cmd: list[str], what: str) -> None:
        runs.append(cmd)
        wheels = Path(cmd[cmd.index("-d") + 1])
        wheels.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels / "transformers-5.23.0-py3-none-any.whl", "w") as archive:
            archive.writestr("transformers/__init__.py", "")

    monkeypatch.setattr(emulation, "_run", download)
    emulation.setup_transformers(emu)
    emulation.setup_transformers(emu)  # idempotent
    assert len(runs) == 1 and "--no-deps" in runs[0] and "manylinux_2_28_aarch64" in runs[0]
    assert [a for a in runs[0] if "==" in a] == list(emulation.TRANSFORMERS)
    assert (emu.transformers_site / "transformers" / "__init__.py").exists()
    env = emu.env(config, CORES["neoverse-n1"], Path("/repo"), {})
    assert env["PYTHONPATH"].split(":") == [str(emu.site), str(emu.transformers_site), "/repo"]


def test_transformers_pins_are_the_test_environments_versions() -> None:
    """The emulated site's transformers and its dependencies are the versions this environment runs
    the zoo with (tox installs it under harness/platform/transformers-pins.txt), so that a family runs
    the same Python on both."""
    from importlib.metadata import PackageNotFoundError, version

    from harness.platform.emulation import TRANSFORMERS

    try:
        version("transformers")
    except PackageNotFoundError:
        pytest.skip("transformers is not installed here")
    pins = dict(pin.split("==") for pin in TRANSFORMERS)
    assert {name: version(name) for name in pins} == pins


def test_tox_installs_the_test_environment_under_the_transformers_pins() -> None:
    """transformers' own dependencies float unless pinned: the test and zoo environments take the one
    pins file as constraints, and the emulated site's folder name changes with any pin."""
    import configparser

    from harness.platform import emulation

    tox = configparser.ConfigParser(interpolation=None)
    tox.read(Path(__file__).parents[1] / "tox.ini")
    deps = tox["testenv"]["deps"].split("\n")
    assert "-c {toxinidir}/harness/platform/transformers-pins.txt" in deps
    assert emulation.TRANSFORMERS[0].startswith("transformers==") and len(emulation.TRANSFORMERS) > 20
    emu = emulation.Emulator(Path("/cache"), "2.13.0")
    first = emu.transformers_site
    original = emulation.TRANSFORMERS
    try:
        emulation.TRANSFORMERS = (*original[:-1], "markupsafe==0.0.0")
        assert emu.transformers_site != first and emu.transformers_site.name.startswith("site-transformers-")
    finally:
        emulation.TRANSFORMERS = original


def test_qemu_binary_takes_qemu_users_build_when_the_static_one_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Debian's qemu-user has qemu-aarch64 only: emulation runs on it rather than failing to start."""
    from harness.platform import emulation

    for name in ("qemu-aarch64", "qemu-x86_64"):
        tool = tmp_path / name
        tool.write_text("#!/bin/sh\n")
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert emulation.qemu_binary("arm64") == str(tmp_path / "qemu-aarch64")
    assert emulation.qemu_binary("x86_64") == str(tmp_path / "qemu-x86_64")
    static = tmp_path / "qemu-aarch64-static"
    static.write_text("#!/bin/sh\n")
    static.chmod(0o755)
    assert emulation.qemu_binary("arm64") == str(static)
