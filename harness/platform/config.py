"""Platform configurations: OS, architecture, ISA level and intra-op thread count.

A configuration is applied to every library that dispatches on the CPU, so that one
machine stands in for another: ATen (ATEN_CPU_CAPABILITY), MKL (MKL_ENABLE_INSTRUCTIONS)
and oneDNN (ONEDNN_MAX_CPU_ISA), plus the thread count of OpenMP, MKL, Accelerate and
OpenBLAS. The libraries read these variables once, at load time, so a configuration is
applied by starting a fresh process with the environment set (see ``child_env``).

Machine facts are gathered by ``collect_facts`` and parsed by pure functions, so that
other platforms (macOS arm64, Linux aarch64) are testable on any machine.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from harness.core.errors import ParityError

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
# variables that change which CPU code runs or how it is split; all recorded in provenance
RELEVANT_ENV = (
    "ATEN_CPU_CAPABILITY",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_CBWR",
    "MKL_DYNAMIC",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
    "ONEDNN_DEFAULT_FPMATH_MODE",
    "KMP_AFFINITY",
    "GOMP_CPU_AFFINITY",
    "OMP_DYNAMIC",
    "OMP_PROC_BIND",
    "OPENBLAS_CORETYPE",
    "TORCH_MKLDNN_MATMUL_MIN_DIM",
    *THREAD_VARS,
)


@dataclass(frozen=True)
class IsaLevel:
    """One ISA level of an architecture and the library settings that pin it."""

    name: str
    arch: str
    aten_capability: str  # what torch.backends.cpu.get_cpu_capability() reports
    env: dict[str, str] = field(default_factory=dict)
    required_flags: tuple[str, ...] = ()


ISA_LEVELS: dict[str, tuple[IsaLevel, ...]] = {
    "x86_64": (
        IsaLevel(
            "baseline",
            "x86_64",
            "DEFAULT",
            {
                "ATEN_CPU_CAPABILITY": "default",
                "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
                "ONEDNN_MAX_CPU_ISA": "SSE41",
            },
            ("sse4_2",),
        ),
        IsaLevel(
            "avx2",
            "x86_64",
            "AVX2",
            {
                "ATEN_CPU_CAPABILITY": "avx2",
                "MKL_ENABLE_INSTRUCTIONS": "AVX2",
                "ONEDNN_MAX_CPU_ISA": "AVX2",
            },
            ("avx2", "fma"),
        ),
        IsaLevel(
            "avx512",
            "x86_64",
            "AVX512",
            {
                "ATEN_CPU_CAPABILITY": "avx512",
                "MKL_ENABLE_INSTRUCTIONS": "AVX512",
                "ONEDNN_MAX_CPU_ISA": "AVX512_CORE",
            },
            ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"),
        ),
    ),
    # NEON is part of every arm64 CPU; ATen's "default" build is the NEON one there. The named
    # server cores pin the kernels ATen picks on them, and need that core (its MIDR part number,
    # read from /proc/cpuinfo as the pseudo-flag "part:0x..."): on real silicon or emulated.
    "arm64": (
        IsaLevel("neon", "arm64", "DEFAULT", {"ATEN_CPU_CAPABILITY": "default"}),
        IsaLevel("neoverse-n1", "arm64", "DEFAULT", {"ATEN_CPU_CAPABILITY": "default"}, ("part:0xd0c",)),
        IsaLevel("neoverse-v1", "arm64", "SVE256", {"ATEN_CPU_CAPABILITY": "sve256"}, ("part:0xd40", "sve")),
        IsaLevel("neoverse-v2", "arm64", "SVE128", {"ATEN_CPU_CAPABILITY": "sve128"}, ("part:0xd4f", "sve")),
    ),
}


@dataclass(frozen=True)
class PlatformFacts:
    os: str  # linux | macos | windows
    arch: str  # x86_64 | arm64
    cpu_model: str
    cpu_flags: frozenset[str]


def normalize_os(sys_platform: str) -> str:
    if sys_platform.startswith("linux"):
        return "linux"
    if sys_platform == "darwin":
        return "macos"
    if sys_platform in ("win32", "cygwin"):
        return "windows"
    return sys_platform


def normalize_arch(machine: str) -> str:
    machine = machine.lower()
    if machine in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if machine in ("arm64", "aarch64", "armv8", "armv8l"):
        return "arm64"
    return machine


def host_arch() -> str:
    """This machine's architecture, as ``normalize_arch`` spells it."""
    return normalize_arch(platform.machine())


def parse_cpuinfo(text: str) -> tuple[str, frozenset[str]]:
    """CPU model and feature flags from Linux /proc/cpuinfo (x86 'flags', arm 'Features')."""
    model = ""
    flags: frozenset[str] = frozenset()
    parts: set[str] = set()  # arm64 MIDR part numbers, kept as pseudo-flags "part:0x..."
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if not model and key in ("model name", "cpu model", "hardware"):
            model = value.strip()
        elif not flags and key in ("flags", "features"):
            flags = frozenset(value.split())
        elif key == "cpu part" and value.strip():
            parts.add(f"part:{value.strip().lower()}")
    flags = flags | parts
    if not model:
        # arm64 Linux names the implementer and part number only
        parts = dict(
            (k.strip().lower(), v.strip())
            for k, _, v in (ln.partition(":") for ln in text.splitlines())
            if k.strip().lower() in ("cpu implementer", "cpu part")
        )
        if parts:
            model = f"implementer {parts.get('cpu implementer', '?')} part {parts.get('cpu part', '?')}"
    return model, flags


def parse_sysctl(text: str) -> tuple[str, frozenset[str]]:
    """CPU model and features from macOS ``sysctl machdep.cpu hw.optional`` output."""
    model = ""
    flags: set[str] = set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "machdep.cpu.brand_string":
            model = value
        elif key.startswith("hw.optional.") and value == "1":
            flags.add(key.removeprefix("hw.optional.").removeprefix("arm.").lower())
        elif key in ("machdep.cpu.features", "machdep.cpu.leaf7_features"):
            flags.update(v.lower().replace(".", "_") for v in value.split())
    return model, frozenset(flags)


def collect_facts() -> PlatformFacts:
    """This machine's facts."""
    os_name = normalize_os(sys.platform)
    arch = host_arch()
    model, flags = "", frozenset()
    if os_name == "linux":
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
                model, flags = parse_cpuinfo(fh.read())
        except OSError:
            pass
    elif os_name == "macos":
        try:
            out = subprocess.run(
                ["sysctl", "machdep.cpu", "hw.optional"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            model, flags = parse_sysctl(out)
        except OSError:
            pass
    return PlatformFacts(os_name, arch, model or platform.processor() or "unknown", flags)


def parse_cpu_list(text: str) -> int:
    """How many CPUs a Linux CPU list names ("0-1,4" is 3)."""
    count = 0
    for part in text.strip().split(","):
        if part:
            low, _, high = part.partition("-")
            count += int(high or low) - int(low) + 1
    return count


def cache_per_core(level: int, cache_dir: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> int:
    """This machine's level-``level`` data cache per logical CPU sharing it, in bytes (Linux sysfs,
    from the same CPUID leaves oneDNN reads: its size over the CPUs sharing it); 0 where unknown."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    for index in sorted(cache_dir.glob("index*")):
        try:
            found = (index / "level").read_text(encoding="utf-8").strip()
            kind = (index / "type").read_text(encoding="utf-8").strip()
            size = (index / "size").read_text(encoding="utf-8").strip()
            sharing = parse_cpu_list((index / "shared_cpu_list").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if found == str(level) and kind in ("Unified", "Data") and size:
            scale = units.get(size[-1].upper(), 1)
            try:
                total = int(size.rstrip("KMGkmg")) * scale
            except ValueError:
                return 0
            return total // max(1, sharing)
    return 0


def levels_for(arch: str) -> tuple[IsaLevel, ...]:
    try:
        return ISA_LEVELS[arch]
    except KeyError:
        raise ParityError(f"architecture {arch} is not supported (known: {', '.join(ISA_LEVELS)})") from None


def supported_levels(facts: PlatformFacts) -> list[IsaLevel]:
    """The ISA levels this machine can run, lowest first."""
    return [lvl for lvl in levels_for(facts.arch) if set(lvl.required_flags) <= facts.cpu_flags]


def resolve_level(facts: PlatformFacts, name: str) -> IsaLevel:
    known = {lvl.name: lvl for lvl in levels_for(facts.arch)}
    if name not in known:
        raise ParityError(f"unknown ISA level '{name}' for {facts.arch} (choose from {', '.join(known)})")
    level = known[name]
    missing = sorted(set(level.required_flags) - facts.cpu_flags)
    if missing:
        raise ParityError(f"this CPU cannot run ISA level '{name}': it lacks {', '.join(missing)}")
    return level


# The BLAS code path, a knob of its own: MKL chooses its kernels from the CPU's vendor and model
# (and MKL_ENABLE_INSTRUCTIONS on Intel CPUs), not from ATen's capability, so two machines at one
# ISA level can run different matrix kernels. ``blas_tag`` names it from what the recording
# process reports; ids name it between the ISA level and the thread count.
BLAS_TAGS = (
    "mklgeneric",  # MKL's "Intel(R) Architecture processors" path: what it runs on AMD CPUs
    "mklsse42",
    "mklavx",
    "mklavx2",
    "mklavx512",
    "mklamx",
    "mkl",  # MKL without a readable code path
    "nvpl",
    "openblas",
    "accelerate",
    "armpl",
    "blis",
    "eigen",
    "otherblas",
)
_MKL_PATHS = (  # (what the code path names, tag), the most capable first
    ("Advanced Matrix Extensions", "mklamx"),
    ("AVX-512", "mklavx512"),
    ("Vector Extensions 512", "mklavx512"),
    ("AVX2", "mklavx2"),
    ("Intel(R) AVX)", "mklavx"),
    ("SSE4.2", "mklsse42"),
    ("Intel(R) Architecture processors", "mklgeneric"),
)


def blas_tag(blas_info: str, mkl_code_path: str = "") -> str:
    """The id tag of a BLAS code path, from torch's BLAS_INFO and MKL's reported code path.

    'mkl' with "Intel(R) Architecture processors" (MKL on an AMD CPU) gives 'mklgeneric';
    'mkl' with "Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled processors" gives
    'mklavx2'; 'nvpl' gives 'nvpl'; a BLAS this list does not know gives 'otherblas'.
    """
    blas = blas_info.strip().lower()
    if blas == "mkl" or mkl_code_path:
        return next((tag for text, tag in _MKL_PATHS if text in mkl_code_path), "mkl")
    return blas if blas in BLAS_TAGS else "otherblas"


@dataclass(frozen=True)
class PlatformConfig:
    os: str
    arch: str
    isa: str
    threads: int
    mkl_cbwr: str = ""
    blas: str = ""  # a BLAS_TAGS entry; empty in ids recorded before the BLAS path was named

    @property
    def id(self) -> str:
        blas = f"-{self.blas}" if self.blas else ""
        suffix = f"-cbwr-{self.mkl_cbwr.lower()}" if self.mkl_cbwr else ""
        return f"{self.os}-{self.arch}-{self.isa}{blas}-t{self.threads}{suffix}"

    def with_blas(self, blas: str) -> PlatformConfig:
        if blas and blas not in BLAS_TAGS:
            raise ParityError(f"unknown BLAS code path '{blas}' (known: {', '.join(BLAS_TAGS)})")
        return replace(self, blas=blas)

    @property
    def level(self) -> IsaLevel:
        for lvl in levels_for(self.arch):
            if lvl.name == self.isa:
                return lvl
        raise ParityError(f"unknown ISA level '{self.isa}' for {self.arch}")

    def env(self) -> dict[str, str]:
        """The variables that pin this configuration in a fresh process."""
        env = dict(self.level.env)
        env.update({var: str(self.threads) for var in THREAD_VARS})
        # T threads on fewer cores compute what T cores do: MKL and OpenMP never shrink their teams
        # (OMP_DYNAMIC=TRUE changes matmul bits at 4+ threads; README "Platform configurations")
        env.update(MKL_DYNAMIC="FALSE", OMP_DYNAMIC="FALSE")
        if self.mkl_cbwr:
            env["MKL_CBWR"] = self.mkl_cbwr
        return env


_ID_RE = re.compile(
    r"^(?P<os>[a-z]+)-(?P<arch>[a-z0-9_]+)-(?P<isa>[a-z0-9]+(?:-[a-z0-9]+)*?)"
    rf"(?:-(?P<blas>{'|'.join(BLAS_TAGS)}))?-t(?P<threads>\d+)"
    r"(?:-cbwr-(?P<cbwr>[a-z0-9_,]+))?$"
)


def parse_platform_id(text: str) -> PlatformConfig:
    """'linux-x86_64-avx2-mklgeneric-t2' -> its configuration (the BLAS part may be absent)."""
    match = _ID_RE.match(text)
    if not match:
        raise ParityError(
            f"'{text}' is not a platform id (expected OS-ARCH-ISA-BLAS-tN, e.g. linux-x86_64-avx512-mklgeneric-t2)"
        )
    return PlatformConfig(
        match["os"],
        match["arch"],
        match["isa"],
        int(match["threads"]),
        (match["cbwr"] or "").upper(),
        match["blas"] or "",
    )


def child_env(config: PlatformConfig, base: dict[str, str] | None = None) -> dict[str, str]:
    """A process environment for ``config``: the caller's, with the configuration pinned.

    Variables of another configuration (an MKL_CBWR the configuration does not name, a
    oneDNN ISA cap under its old name) are removed so nothing leaks in unrecorded.
    """
    env = dict(os.environ if base is None else base)
    for var in (
        "ATEN_CPU_CAPABILITY",
        "MKL_ENABLE_INSTRUCTIONS",
        "ONEDNN_MAX_CPU_ISA",
        "DNNL_MAX_CPU_ISA",
        "MKL_CBWR",
    ):
        env.pop(var, None)
    env.update(config.env())
    return env


class Launcher(Protocol):
    """How a configuration's process is started where it is not started plainly on this machine
    (``harness.platform.emulation.EmulatedX86``: under QEMU, as another CPU)."""

    def command(self, argv: list[str]) -> list[str]:
        """The host command that runs ``argv`` there."""
        ...

    def env(self, config: PlatformConfig, base: dict[str, str] | None = None) -> dict[str, str]:
        """``child_env(config, base)`` and what the launcher adds."""
        ...


def config_problems(config: PlatformConfig, environ: dict[str, str] | None = None) -> list[str]:
    """What in the running process's environment differs from ``config``."""
    environ = dict(os.environ if environ is None else environ)
    return [
        f"{var}={environ.get(var, '<unset>')} (expected {value})"
        for var, value in config.env().items()
        if environ.get(var) != value
    ]


def provenance_problem(platform_id: str, provenance: dict[str, object]) -> str:
    """Where a recording's provenance contradicts the platform id it is filed under ("" if nowhere):
    the id parses, and the OS, architecture, ISA level, thread count, ATen capability and BLAS code
    path the provenance records (those it records) are the id's."""
    try:
        config = parse_platform_id(platform_id)
        level = config.level
    except ParityError as err:
        return str(err)
    recorded = {"os": config.os, "arch": config.arch, "isa": config.isa, "threads": config.threads}
    for key, want in recorded.items():
        if key in provenance and provenance[key] != want:
            return f"its provenance records {key} {provenance[key]!r}, its platform id {platform_id} says {want!r}"
    capability = provenance.get("capability")
    if capability is not None and str(capability).upper() != level.aten_capability:
        runs = level.aten_capability
        return f"its provenance records ATen capability {capability!r}, ISA level {config.isa} runs {runs}"
    blas = provenance.get("blas")
    if config.blas and blas:
        tag = blas_tag(str(blas), str(provenance.get("mkl_code_path", "")))
        if tag != config.blas and not (tag == "mkl" and config.blas.startswith("mkl")):
            return f"its provenance records BLAS code path {tag}, its platform id {platform_id} says {config.blas}"
    return ""
