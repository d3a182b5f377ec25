"""x86_64 under emulation (`parity generate --emulate x86:MODEL`): the form, CPUID decoding, the fake
/proc/cpuinfo, the launcher and the errors. No QEMU runs here: a stand-in `qemu-x86_64` script
answers `-cpu help` where the command line needs one (tox -e emulate-x86-smoke runs the real one)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.core import buildinfo
from harness.core.errors import ParityError
from harness.platform import emulation
from harness.platform.config import PlatformConfig, parse_cpuinfo, supported_levels
from harness.platform.cpuid import CpuIdentity, cpuinfo_as, decode, read_registers
from harness.platform.emulation import EmulatedX86, emulated_x86, parse_cpu_models, parse_emulate
from harness.platform.provenance import probe_blas_tag
from harness.record.launch import RecordRequest, with_machine_blas

REPO = Path(__file__).resolve().parent.parent

HELP = (
    "Available CPUs:\n"
    "x86 EPYC-Milan            (alias configured by machine type)\n"
    "x86 Haswell-v4            Intel Core Processor (Haswell, no TSX, IBRS)\n"
    "x86 Nehalem-v2            Intel Core i7 9xx (Nehalem Core i7, IBRS update)\n"
    "\nRecognized CPUID flags:\n  avx avx2 fma\n"
)


def _words(text: str) -> tuple[int, ...]:
    return struct.unpack(f"<{len(text) // 4}I", text.encode("ascii"))


def _registers(vendor: str, brand: str, eax1: int, ecx1: int, ebx7: int) -> dict:
    v = _words(vendor)
    b = _words(brand.ljust(48, "\0"))
    return {(0, 0): (7, v[0], v[2], v[1]), (1, 0): (eax1, 0, ecx1, 0), (7, 0): (0, ebx7, 0, 0),
            (0x80000002, 0): b[0:4], (0x80000003, 0): b[4:8], (0x80000004, 0): b[8:12]}  # fmt: skip


HASWELL = _registers(
    "GenuineIntel", "Intel Core Processor (Haswell)", 0x000306C1, 1 << 12 | 1 << 20 | 1 << 28, 1 << 5
)  # fmt: skip  (fma, sse4_2, avx; avx2)
NEHALEM = _registers("GenuineIntel", "Intel Core i7 9xx (Nehalem Core i7)", 0x000106A3, 1 << 20, 0)


def test_the_emulate_form_is_x86_and_a_model():
    assert parse_emulate("x86:Haswell-v4") == "Haswell-v4" == parse_emulate("x86_64:Haswell-v4")
    for bad in ("x86", "x86:", "Haswell-v4", "x86: Haswell-v4", "riscv:rv64", ""):
        with pytest.raises(ParityError, match="--emulate takes x86:MODEL"):
            parse_emulate(bad)
    with pytest.raises(ParityError, match=r"tools/emulate_arm64\.py record"):
        parse_emulate("arm64:neoverse-n1")


def test_cpu_models_are_read_from_qemus_listing():
    assert parse_cpu_models(HELP) == {"EPYC-Milan", "Haswell-v4", "Nehalem-v2"}


def test_cpuid_decodes_vendor_brand_family_model_and_the_flags_levels_need():
    haswell, nehalem = decode(HASWELL), decode(NEHALEM)
    assert (haswell.vendor, haswell.brand) == ("GenuineIntel", "Intel Core Processor (Haswell)")
    assert (haswell.family, haswell.model, haswell.stepping) == (6, 60, 1)  # extended model 3, model 0xC
    assert haswell.flags == {"fma", "sse4_2", "avx", "avx2"}
    assert (nehalem.family, nehalem.model, nehalem.stepping, nehalem.flags) == (6, 26, 3, {"sse4_2"})
    amd = decode({(1, 0): (0x00A00F11, 0, 0, 0)})  # family 0xF + extended 0xA: Zen 3
    assert (amd.family, amd.model, amd.vendor, amd.brand) == (25, 1, "", "")
    levels = lambda cpu: [lvl.name for lvl in supported_levels(EmulatedX86("m", cpu, Path("/r")).facts)]
    assert levels(haswell) == ["baseline", "avx2"] and levels(nehalem) == ["baseline"]
    assert CpuIdentity.from_json(haswell.to_json()) == haswell


@pytest.mark.skipif(platform.machine() != "x86_64" or not Path("/proc/cpuinfo").exists(), reason="an x86 Linux host")
def test_cpuid_read_here_agrees_with_this_hosts_proc_cpuinfo():
    here = decode(read_registers())
    text = Path("/proc/cpuinfo").read_text()
    vendor = next(ln.partition(":")[2].strip() for ln in text.splitlines() if ln.startswith("vendor_id"))
    model, flags = parse_cpuinfo(text)
    assert here.vendor == vendor and here.brand == model
    for name in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"):
        assert (name in here.flags) == (name in flags), name


def test_the_fake_cpuinfo_is_the_hosts_with_the_emulated_identity():
    host = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
            "model name\t: AMD EPYC\nstepping\t: 1\napicid\t\t: 0\nflags\t\t: fpu sse4_2 avx2 avx512f\n\n"
            "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\napicid\t\t: 1\n"
            "flags\t\t: fpu sse4_2 avx2 avx512f\n")  # fmt: skip
    text = cpuinfo_as(host, decode(NEHALEM))
    assert parse_cpuinfo(text) == ("Intel Core i7 9xx (Nehalem Core i7)", frozenset({"sse4_2"}))
    assert text.count("GenuineIntel") == 2 and "AMD" not in text and "avx512f" not in text
    assert "apicid\t\t: 1" in text and "cpu family\t: 6" in text and "model\t: 26" in text


def test_the_launcher_runs_under_qemu_as_the_model_and_says_so(tmp_path: Path):
    emu = EmulatedX86("Haswell-v4", decode(HASWELL), tmp_path)
    assert emu.command(["python", "-m", "x"])[1:] == ["-L", str(tmp_path), "-cpu", "Haswell-v4", "python", "-m", "x"]
    env = emu.env(PlatformConfig("linux", "x86_64", "avx2", 2), {"PATH": "/bin", "MKL_CBWR": "AVX2"})
    assert env["ATEN_CPU_CAPABILITY"] == "avx2" and env["ONEDNN_MAX_CPU_ISA"] == "AVX2" and "MKL_CBWR" not in env
    assert env["MKL_ENABLE_INSTRUCTIONS"] == "AVX2" and env["OMP_NUM_THREADS"] == "2"
    note = env["PARITY_EMULATION"]
    assert note.startswith(emulation.qemu_version("x86_64")) and "QEMU_CPU=Haswell-v4" in note
    assert "QEMU emulation of GenuineIntel family 6 model 60 stepping 1 (Intel Core Processor (Haswell))" in note


class _Reports:
    """A launcher whose 'emulated' process reports a BLAS code path (what the banner would name)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def command(self, argv: list[str]) -> list[str]:
        return [sys.executable, "-c", f"import os; print('blas={self.tag}'); print(os.environ['PARITY_EMULATION'])"]

    def env(self, config: PlatformConfig, base: dict[str, str] | None = None) -> dict[str, str]:
        return {**os.environ, "PARITY_EMULATION": config.id}


def test_fixtures_are_named_after_the_path_the_launched_process_reports(tmp_path: Path):
    configs = [PlatformConfig("linux", "x86_64", "avx2", n) for n in (1, 2)]
    named = with_machine_blas(configs, _Reports("mklavx2"))
    assert [c.id for c in named] == ["linux-x86_64-avx2-mklavx2-t1", "linux-x86_64-avx2-mklavx2-t2"]
    assert probe_blas_tag(configs[0], _Reports("mklsse42")) == "mklsse42"
    run = RecordRequest(ops="exp").run(named[0], tmp_path / "x.h5", capture=True, launcher=_Reports("mklavx2"))
    assert run.stdout.split() == ["blas=mklavx2", "linux-x86_64-avx2-mklavx2-t1"]  # its command, its environment


class _ReportsUnderCbwr(_Reports):
    """A launcher whose process reports the path MKL runs on an Intel CPU: its generic path under
    MKL_CBWR=COMPATIBLE, its AVX2 path otherwise (measured under emulated Haswell-v4)."""

    def command(self, argv: list[str]) -> list[str]:
        code = "import os; print('blas=' + ('mklgeneric' if os.environ.get('MKL_CBWR') == 'COMPATIBLE' else 'mklavx2'))"
        return [sys.executable, "-c", code]

    def env(self, config: PlatformConfig, base: dict[str, str] | None = None) -> dict[str, str]:
        return EmulatedX86("Haswell-v4", decode(HASWELL), Path("/nonexistent")).env(config, {"PATH": "/bin"})


def test_the_emulated_child_gets_the_configurations_mkl_cbwr(tmp_path: Path):
    emu = EmulatedX86("Haswell-v4", decode(HASWELL), tmp_path)
    env = emu.env(PlatformConfig("linux", "x86_64", "avx2", 2, "COMPATIBLE"), {"PATH": "/bin"})
    assert env["MKL_CBWR"] == "COMPATIBLE" and env["ATEN_CPU_CAPABILITY"] == "avx2"


def test_the_blas_probe_runs_under_the_configurations_mkl_cbwr():
    """MKL_CBWR=COMPATIBLE changes the path MKL reports on an Intel CPU, so the probe that names the
    fixture must run with it (else the recording process, which runs with it, refuses the name)."""
    configs = [PlatformConfig("linux", "x86_64", "avx2", 1, "COMPATIBLE"), PlatformConfig("linux", "x86_64", "avx2", 1)]
    named = with_machine_blas(configs, _ReportsUnderCbwr("unused"))
    assert [c.id for c in named] == ["linux-x86_64-avx2-mklgeneric-t1-cbwr-compatible", "linux-x86_64-avx2-mklavx2-t1"]


@pytest.fixture()
def fake_qemu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `qemu-x86_64` on PATH that lists three models (and runs nothing)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "qemu-x86_64"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{HELP}EOF\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def test_generate_refuses_a_level_the_emulated_cpu_lacks(fake_qemu, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(emulation, "probe_x86_cpu", lambda model: decode(NEHALEM))
    # Nehalem-v2 lacks FMA, so a run there would take a portable build (tested below): not compiled for a refusal
    monkeypatch.setattr(emulation, "portable_x86_package", lambda repo, dest: pytest.fail("compiled before refusing"))
    monkeypatch.setattr(emulation, "platform", type("P", (), {"machine": staticmethod(lambda: "x86_64")}))
    for isa, lacks in (("avx2", "avx2, fma"), ("avx512", "avx2, avx512bw")):
        assert main(["generate", "--emulate", "x86:Nehalem-v2", "--isa", isa, "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"emulated Nehalem-v2: this CPU cannot run ISA level '{isa}'" in err, err
        assert f"lacks {lacks}" in err
    assert not (tmp_path / "o").exists()


def test_the_emulated_cpuinfo_lives_only_while_recording(fake_qemu, monkeypatch):
    monkeypatch.setattr(emulation, "probe_x86_cpu", lambda model: decode(HASWELL))
    with emulated_x86("x86:Haswell-v4", host_arch="x86_64") as emu:
        text = (emu.root / "proc" / "cpuinfo").read_text()
        assert parse_cpuinfo(text)[0] == "Intel Core Processor (Haswell)" and emu.model == "Haswell-v4"
    assert not emu.root.exists()
    with pytest.raises(ParityError, match="this host is arm64"), emulated_x86("x86:Haswell-v4", host_arch="aarch64"):
        pass


def test_a_cpu_without_fma_gets_a_portable_build_of_the_package(fake_qemu, monkeypatch, tmp_path):
    """This host's libraries, built with -mfma, use AVX anywhere (the digest stopped nanoGPT recordings
    on Nehalem-v2 with an illegal instruction): such a CPU runs a copy built without it, first on the path."""
    assert emulation.needs_portable_build(decode(NEHALEM), ["-O3", "-mfma"])
    assert not emulation.needs_portable_build(decode(HASWELL), ["-O3", "-mfma"])
    assert not emulation.needs_portable_build(decode(NEHALEM), ["-O3"])  # a host without FMA builds portably
    built: list[Path] = []
    monkeypatch.setattr(emulation, "portable_x86_package", lambda repo, dest: built.append(dest) or dest)
    monkeypatch.setattr(buildinfo, "compile_flags", lambda machine=None: [*buildinfo.PORTABLE_FLAGS, "-mfma"])
    config = PlatformConfig("linux", "x86_64", "baseline", 1)
    for registers, portable in ((NEHALEM, True), (HASWELL, False)):
        monkeypatch.setattr(emulation, "probe_x86_cpu", lambda model, r=registers: decode(r))
        with emulated_x86("x86:Nehalem-v2", host_arch="x86_64") as emu:
            env = emu.env(config, {"PATH": "/bin", "PYTHONPATH": "/w"})
            if portable:
                assert emu.package == built[-1] and emu.package.parent == emu.root
                assert env["PYTHONPATH"] == f"{emu.package}{os.pathsep}/w" and env["PYTHONSAFEPATH"] == "1"
            else:
                assert emu.package is None and env["PYTHONPATH"] == "/w" and "PYTHONSAFEPATH" not in env
    assert len(built) == 1


def test_the_portable_digest_has_no_avx_and_gives_the_hosts_digests(tmp_path: Path):
    from harness.core.digest import digest

    emulation.portable_x86_package(REPO, tmp_path, layers=("core",))
    (lib,) = (tmp_path / "harness" / "core").glob("_digest*.so")
    assert shutil.which("objdump"), "binutils' objdump reads the compiled code"
    code = subprocess.run(["objdump", "-d", str(lib)], capture_output=True, text=True, check=True).stdout
    assert "%ymm" not in code and not re.search(r"\tv[a-z]+ ", code)  # no VEX-encoded instruction
    data = np.arange(1000, dtype=np.float32) / 7
    run = [
        sys.executable,
        "-c",
        "import numpy as np; from harness.core import _digest; from harness.core.digest "
        "import digest; print(_digest.__file__); print(digest(np.arange(1000, dtype=np.float32) / 7).hex())",
    ]
    out = subprocess.run(
        run,
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONSAFEPATH": "1"},
    ).stdout.split()
    assert out == [str(lib), digest(data).hex()]  # the copy's library, the same bits


def _generate(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    cmd = [sys.executable, "-m", "harness.cli", "generate", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)


def test_generate_emulate_errors_are_one_line_and_exit_2(fake_qemu: Path, tmp_path: Path):
    cases = {
        ("--emulate", "x86:Skylake-Server-v9"): "QEMU knows no x86 CPU model 'Skylake-Server-v9'",
        ("--emulate", "x86"): "--emulate takes x86:MODEL",
        ("--emulate", "arm64:neoverse-n1"): "tools/emulate_arm64.py",
    }
    for argv, message in cases.items():
        result = _generate(*argv, "--out", str(tmp_path / "o"), path=str(fake_qemu))
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (argv, result.stderr)
        assert message in result.stderr, (argv, result.stderr)
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _generate("--emulate", "x86:Haswell-v4", "--out", str(tmp_path / "o"), path=str(empty))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "qemu-x86_64 is not installed" in result.stderr and "apt-get install qemu-user" in result.stderr
    assert not (tmp_path / "o").exists()


def test_estimate_instructions_are_found_in_qemus_log_and_placed_in_their_library():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "emulate_x86", Path(__file__).resolve().parents[1] / "tools/emulate_x86.py"
    )
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    maps = ("4000000000-4000100000 r-xp 00000000 fe:00 1 /usr/lib/libm.so.6\n"
            "400a62d000-401ec12000 r-xp 00001000 fe:00 2 /opt/torch/lib/libtorch_cpu.so\n"
            "401ec12000-401ec13000 rw-p 00000000 00:00 0\n")  # fmt: skip
    log = [
        "IN: mkl_vml_kernel\n",
        "0x4015aba742:  c5 7c 52 c0              vrsqrtps %ymm0, %ymm8\n",
        "0x4015aba746:  c5 fc 59 c8              vmulps   %ymm0, %ymm0, %ymm1\n",
        "0x4000000010:  0f 53 ea                 rcpps    %xmm2, %xmm5\n",
        "0x4000000020:  f3 0f 52 c0              rsqrtss  %xmm0, %xmm0\n",
        "0x4015aba742:  c5 7c 52 c0              vrsqrtps %ymm0, %ymm8\n",  # translated again: one site
        "0x5000000000:  0f 52 c1                 rsqrtps  %xmm1, %xmm0\n",  # in no mapped object
        "0x4000000030:  0f 51 c1                 sqrtps   %xmm1, %xmm0\n",  # exact: not an estimate
    ]
    assert tool.estimate_sites(log, maps) == {
        ("/opt/torch/lib/libtorch_cpu.so", 0xB48E742): "vrsqrtps",
        ("/usr/lib/libm.so.6", 0x10): "rcpps",
        ("/usr/lib/libm.so.6", 0x20): "rsqrtss",
        ("?", 0x5000000000): "rsqrtps",
    }


def test_the_tools_usage_errors_are_one_line_and_exit_2(tmp_path: Path):
    tool = Path(__file__).resolve().parents[1] / "tools" / "emulate_x86.py"
    committed = Path(__file__).resolve().parents[1] / "harness" / "fixtures"
    cases = {
        ("--model", ""): "--emulate takes x86:MODEL",
        ("--model", "Haswell-v4", "--out", str(committed)): "the store compared with",
        ("--model", "Haswell-v4", "--reference", str(tmp_path / "none")): "no such fixture store",
        ("--model", "Haswell-v4", "--estimates", "--isa", "baseline,avx2"): "one ISA level",
        ("--model", "Haswell-v4", "--compare-only", "--out", str(tmp_path)): "no fixtures recorded here",
    }
    for argv, message in cases.items():
        result = subprocess.run([sys.executable, str(tool), *argv], capture_output=True, text=True, check=False)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (argv, result.stderr)
        assert message in result.stderr, (argv, result.stderr)
