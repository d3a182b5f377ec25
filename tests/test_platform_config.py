"""Platform facts and configurations, including platforms this machine is not (faked facts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.errors import ParityError
from harness.platform.config import (
    PlatformConfig,
    PlatformFacts,
    blas_tag,
    cache_per_core,
    child_env,
    config_problems,
    normalize_arch,
    normalize_os,
    parse_cpu_list,
    parse_cpuinfo,
    parse_platform_id,
    parse_sysctl,
    supported_levels,
)
from harness.platform.provenance import blas_from_config, mkl_code_path_from_banner, public_version
from harness.record.launch import plan_configs
from harness.store.paths import fixture_path

X86_CPUINFO = """\
processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse sse2 sse4_1 sse4_2 avx fma avx2 avx512f avx512dq avx512bw avx512vl amx_tile

processor\t: 1
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse sse2 sse4_1 sse4_2 avx fma avx2 avx512f avx512dq avx512bw avx512vl amx_tile
"""

ZEN3_CPUINFO = """\
processor\t: 0
model name\t: AMD EPYC
flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx avx2 bmi2 sha_ni
"""

ARM_CPUINFO = """\
processor\t: 0
BogoMIPS\t: 2000.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm sve
CPU implementer\t: 0x41
CPU part\t: 0xd40
"""

MAC_SYSCTL = """\
machdep.cpu.brand_string: Apple M2 Pro
machdep.cpu.core_count: 12
hw.optional.arm.FEAT_FP16: 1
hw.optional.arm.FEAT_BF16: 1
hw.optional.arm.FEAT_SME: 0
hw.optional.neon: 1
hw.optional.floatingpoint: 1
"""

MAC_TORCH_CONFIG = """PyTorch built with:
  - LAPACK is enabled (usually provided by MKL)
  - Build settings: BLAS_INFO=accelerate, BUILD_TYPE=Release, LAPACK_INFO=accelerate, USE_MKL=OFF,
"""


def test_os_and_arch_names():
    assert normalize_os("darwin") == "macos"
    assert normalize_os("linux") == "linux"
    assert normalize_arch("aarch64") == "arm64"
    assert normalize_arch("arm64") == "arm64"
    assert normalize_arch("AMD64") == "x86_64"


def test_x86_cpuinfo_gives_model_and_flags():
    model, flags = parse_cpuinfo(X86_CPUINFO)
    assert model == "Intel(R) Xeon(R) Platinum 8480+"
    assert {"avx512f", "amx_tile", "fma"} <= flags


def test_arm_linux_cpuinfo_names_part_and_features():
    model, flags = parse_cpuinfo(ARM_CPUINFO)
    assert model == "implementer 0x41 part 0xd40"
    assert {"asimd", "sve"} <= flags


def test_macos_sysctl_gives_brand_and_enabled_features():
    model, flags = parse_sysctl(MAC_SYSCTL)
    assert model == "Apple M2 Pro"
    assert {"feat_fp16", "feat_bf16", "neon", "floatingpoint"} == flags  # FEAT_SME is 0


def _cache(root: Path, index: int, level: int, kind: str, size: str, shared: str) -> None:
    d = root / f"index{index}"
    d.mkdir(parents=True)
    for name, value in (("level", str(level)), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
        (d / name).write_text(value + "\n", encoding="utf-8")


def test_cache_per_core_reads_sysfs(tmp_path):
    """A cache's size over the CPUs sharing it, by level (instruction caches left out); 0 unknown."""
    assert parse_cpu_list("0-1,4") == 3 and parse_cpu_list("7") == 1
    _cache(tmp_path, 0, 1, "Instruction", "32K", "0")
    _cache(tmp_path, 1, 1, "Data", "48K", "0-1")
    _cache(tmp_path, 2, 2, "Unified", "2048K", "0-1")
    _cache(tmp_path, 3, 3, "Unified", "32M", "0-15")
    assert cache_per_core(1, tmp_path) == 24 << 10
    assert cache_per_core(2, tmp_path) == 1 << 20
    assert cache_per_core(3, tmp_path) == 2 << 20
    assert cache_per_core(4, tmp_path) == 0
    assert cache_per_core(2, tmp_path / "none") == 0


def test_levels_follow_the_cpu_flags():
    sapphire = PlatformFacts("linux", "x86_64", *parse_cpuinfo(X86_CPUINFO))
    zen3 = PlatformFacts("linux", "x86_64", *parse_cpuinfo(ZEN3_CPUINFO))
    mac = PlatformFacts("macos", "arm64", *parse_sysctl(MAC_SYSCTL))
    assert [lvl.name for lvl in supported_levels(sapphire)] == ["baseline", "avx2", "avx512"]
    assert [lvl.name for lvl in supported_levels(zen3)] == ["baseline", "avx2"]
    assert [lvl.name for lvl in supported_levels(mac)] == ["neon"]


def test_plan_configs_on_a_mac():
    mac = PlatformFacts("macos", "arm64", *parse_sysctl(MAC_SYSCTL))
    configs = plan_configs(mac, None, "1,8")
    assert [c.id for c in configs] == ["macos-arm64-neon-t1", "macos-arm64-neon-t8"]
    assert configs[0].env()["ATEN_CPU_CAPABILITY"] == "default"
    assert configs[0].env()["VECLIB_MAXIMUM_THREADS"] == "1"
    assert "MKL_ENABLE_INSTRUCTIONS" not in configs[0].env()
    with pytest.raises(ParityError, match="unknown ISA level 'avx2' for arm64"):
        plan_configs(mac, "avx2", "1")


def test_plan_configs_all_and_default(monkeypatch):
    monkeypatch.delenv("MKL_CBWR", raising=False)
    zen3 = PlatformFacts("linux", "x86_64", *parse_cpuinfo(ZEN3_CPUINFO))
    assert [c.id for c in plan_configs(zen3, "all", "1,2")] == [
        "linux-x86_64-baseline-t1",
        "linux-x86_64-baseline-t2",
        "linux-x86_64-avx2-t1",
        "linux-x86_64-avx2-t2",
    ]
    assert [c.id for c in plan_configs(zen3, None, "2")] == ["linux-x86_64-avx2-t2"]
    with pytest.raises(ParityError, match="cannot run ISA level 'avx512': it lacks avx512bw"):
        plan_configs(zen3, "avx512", "2")


def test_mkl_cbwr_makes_its_own_configuration(monkeypatch):
    monkeypatch.setenv("MKL_CBWR", "COMPATIBLE")
    zen3 = PlatformFacts("linux", "x86_64", *parse_cpuinfo(ZEN3_CPUINFO))
    (config,) = plan_configs(zen3, "avx2", "1")
    assert config.id == "linux-x86_64-avx2-t1-cbwr-compatible"
    assert config.env()["MKL_CBWR"] == "COMPATIBLE"
    assert parse_platform_id(config.id) == config


@pytest.mark.parametrize(
    "text",
    [
        "linux-x86_64-avx512-t2",
        "macos-arm64-neon-t8",
        "linux-arm64-neon-t1",
        "windows-x86_64-avx2-t4",
        "linux-x86_64-avx512-mklgeneric-t2",
        "linux-x86_64-avx2-mklavx2-t16-cbwr-compatible",
        "linux-arm64-neoverse-n1-nvpl-t1",
        "macos-arm64-neon-accelerate-t8",
    ],
)
def test_platform_id_round_trip(text):
    assert parse_platform_id(text).id == text


def test_platform_id_names_the_blas_code_path_apart_from_the_isa_level():
    n1 = parse_platform_id("linux-arm64-neoverse-n1-nvpl-t2")
    assert (n1.isa, n1.blas, n1.threads) == ("neoverse-n1", "nvpl", 2)
    amd, intel = parse_platform_id("linux-x86_64-avx2-mklgeneric-t2"), parse_platform_id("linux-x86_64-avx2-mklavx2-t2")
    assert amd != intel and (amd.isa, amd.threads) == (intel.isa, intel.threads)
    assert amd.env() == intel.env()  # the BLAS path is observed, not set: same environment
    assert parse_platform_id("linux-x86_64-avx2-t2").blas == ""  # ids recorded before it was named
    with pytest.raises(ParityError, match="unknown BLAS code path"):
        PlatformConfig("linux", "x86_64", "avx2", 2).with_blas("mklfast")


@pytest.mark.parametrize(
    ("blas", "code_path", "tag"),
    [
        ("mkl", "Intel(R) Architecture processors", "mklgeneric"),
        ("mkl", "Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled processors", "mklavx2"),
        ("mkl", "Intel(R) Advanced Vector Extensions (Intel(R) AVX) enabled processors", "mklavx"),
        ("mkl", "Intel(R) Streaming SIMD Extensions 4.2 (Intel(R) SSE4.2) enabled processors", "mklsse42"),
        (
            "mkl",
            "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) with support for Intel(R) Deep "
            "Learning Boost (Intel(R) DL Boost), EVEX-encoded AES",
            "mklavx512",
        ),
        (
            "mkl",
            "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) with Intel(R) Deep Learning Boost "
            "(Intel(R) DL Boost) and bfloat16 support and Intel(R) Advanced Matrix Extensions (Intel(R) AMX)",
            "mklamx",
        ),
        ("mkl", "", "mkl"),
        ("nvpl", "", "nvpl"),
        ("accelerate", "", "accelerate"),
        ("open", "", "otherblas"),
    ],
)
def test_blas_tag_names_the_code_path(blas, code_path, tag):
    assert blas_tag(blas, code_path) == tag
    assert parse_platform_id(f"linux-x86_64-avx2-{tag}-t1").blas == tag


@pytest.mark.parametrize("text", ["linux-x86_64-avx512", "linux_x86_64_avx2_t2", "linux-x86_64-avx2-tX", ""])
def test_bad_platform_id(text):
    with pytest.raises(ParityError, match="is not a platform id"):
        parse_platform_id(text)


def test_x86_levels_pin_aten_mkl_and_onednn_together():
    for isa, aten, mkl, onednn in [
        ("baseline", "default", "SSE4_2", "SSE41"),
        ("avx2", "avx2", "AVX2", "AVX2"),
        ("avx512", "avx512", "AVX512", "AVX512_CORE"),
    ]:
        env = PlatformConfig("linux", "x86_64", isa, 2).env()
        assert env["ATEN_CPU_CAPABILITY"] == aten
        assert env["MKL_ENABLE_INSTRUCTIONS"] == mkl
        assert env["ONEDNN_MAX_CPU_ISA"] == onednn
        assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "2"


def test_child_env_replaces_stray_settings():
    base = {"PATH": "/bin", "MKL_CBWR": "AVX2", "DNNL_MAX_CPU_ISA": "SSE41", "ATEN_CPU_CAPABILITY": "avx512"}
    config = PlatformConfig("linux", "x86_64", "avx2", 1)
    env = child_env(config, base)
    assert env["PATH"] == "/bin"
    assert "MKL_CBWR" not in env and "DNNL_MAX_CPU_ISA" not in env
    assert env["ATEN_CPU_CAPABILITY"] == "avx2"
    assert config_problems(config, env) == []
    assert config_problems(config, base) != []


def test_fixture_path_uses_the_public_torch_version(tmp_path):
    config = PlatformConfig("linux", "x86_64", "avx2", 2)
    assert fixture_path(tmp_path, "2.13.0+cpu", config) == tmp_path / "torch-2.13.0/linux-x86_64-avx2-t2.h5"
    assert public_version("2.14.1+cu128") == "2.14.1"


def test_blas_is_read_from_torch_config():
    assert blas_from_config(MAC_TORCH_CONFIG) == "accelerate"
    assert blas_from_config("  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release") == "mkl"
    assert blas_from_config("nothing here") == "unknown"


def test_mkl_code_path_is_read_from_its_banner():
    intel = (
        "MKL_VERBOSE oneMKL 2024.0 Update 2 Product build 20240605 for Intel(R) 64 architecture "
        "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) with support for Intel(R) Deep "
        "Learning Boost (Intel(R) DL Boost), EVEX-encoded AES, Lnx 2.00GHz lp64 gnu_thread"
    )
    assert mkl_code_path_from_banner(intel).startswith("Intel(R) Advanced Vector Extensions 512")
    assert mkl_code_path_from_banner(intel).endswith("EVEX-encoded AES")
    amd = (
        "MKL_VERBOSE oneMKL 2024.0 Update 2 Product build 20240605 for Intel(R) 64 architecture "
        "Intel(R) Architecture processors, Lnx 2.45GHz lp64 gnu_thread"
    )
    assert mkl_code_path_from_banner(amd) == "Intel(R) Architecture processors"
    assert mkl_code_path_from_banner("") == ""


def test_collect_facts_on_a_mac(monkeypatch):
    """The real collection path, with macOS arm64's answers faked."""
    import subprocess
    import sys

    import harness.platform.config as pc

    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(pc.platform, "machine", lambda: "arm64")
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout=MAC_SYSCTL, stderr="")

    monkeypatch.setattr(pc.subprocess, "run", fake_run)
    facts = pc.collect_facts()
    assert calls == [["sysctl", "machdep.cpu", "hw.optional"]]
    assert (facts.os, facts.arch, facts.cpu_model) == ("macos", "arm64", "Apple M2 Pro")
    assert "neon" in facts.cpu_flags
    monkeypatch.delenv("MKL_CBWR", raising=False)
    (config,) = plan_configs(facts, None, "8")
    assert config.id == "macos-arm64-neon-t8"
    assert fixture_path(Path("/f"), "2.13.0", config, "tiny") == Path(
        "/f/torch-2.13.0/macos-arm64-neon-t8.nanogpt-tiny.h5"
    )


def test_every_configuration_pins_mkl_and_openmp_teams():
    """T threads on fewer cores must compute what T cores do: no team shrinks to the cores found."""
    for config in (PlatformConfig("linux", "x86_64", "avx2", 8), PlatformConfig("macos", "arm64", "neon", 1)):
        env = config.env()
        assert env["MKL_DYNAMIC"] == env["OMP_DYNAMIC"] == "FALSE"
        assert child_env(config, {"OMP_DYNAMIC": "TRUE"})["OMP_DYNAMIC"] == "FALSE"


def test_this_machines_configuration_is_never_another_blas_path(tmp_path, monkeypatch):
    """default_config takes a committed set of this machine's BLAS code path, or none at all."""
    import harness.record.launch as recording

    zen3 = PlatformFacts("linux", "x86_64", *parse_cpuinfo(ZEN3_CPUINFO))
    monkeypatch.setattr(recording, "collect_facts", lambda: zen3)
    monkeypatch.setattr(recording, "DEFAULT_FIXTURES", tmp_path)
    amd = PlatformConfig("linux", "x86_64", "avx2", 2, blas="mklgeneric")
    committed = fixture_path(tmp_path, "2.13.0", amd)
    committed.parent.mkdir(parents=True)
    committed.write_bytes(b"")

    monkeypatch.setattr(recording, "machine_blas", lambda config: "mklgeneric")
    assert recording.default_config("2.13.0") == amd
    assert recording.live_config(amd)[0] == amd

    monkeypatch.setattr(recording, "machine_blas", lambda config: "mklavx2")  # MKL's Intel AVX2 kernels
    mine = recording.default_config("2.13.0")
    assert mine.blas == "mklavx2" and not fixture_path(tmp_path, "2.13.0", mine).exists()
    monkeypatch.setattr(recording, "installed_torch_version", lambda: "2.13.0")
    with pytest.raises(ParityError, match=r"configuration linux-x86_64-avx2-mklavx2-t\d+ \(torch 2\.13\.0\); record"):
        recording.committed_fixture(None)
    live, note = recording.live_config(amd)
    assert live == PlatformConfig("linux", "x86_64", "avx2", 2, blas="mklavx2")
    assert note == (
        "live: this machine as linux-x86_64-avx2-mklavx2-t2 (its own BLAS code path), "
        "against a fixture of linux-x86_64-avx2-mklgeneric-t2"
    )

    monkeypatch.setattr(recording, "machine_blas", lambda config: "")  # no torch: the impl's own path
    assert recording.default_config("2.13.0") == amd
