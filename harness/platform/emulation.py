"""Recording on another CPU under QEMU user-mode emulation: Linux arm64, and x86_64 as another x86 CPU.

The real PyTorch aarch64 wheel runs under ``qemu-aarch64-static`` with an arm64 Python taken
from Debian's packages. What it needs, all kept in a cache folder outside the repository
(``$PARITY_ARM64_CACHE``, default ``~/.cache/parity-harness/arm64``), made idempotently:

- ``root/``: Debian bookworm's arm64 Python 3.11 and the libraries it links, unpacked with
  ``dpkg -x`` (no debootstrap: its second stage needs binfmt_misc, which containers often lack);
- ``site-<torch>/``: torch and its aarch64 wheels (the CUDA build and its nvidia libraries: it
  never touches a GPU but does not import without them), numpy and h5py, unpacked;
- a fake CPU inside ``root/``: ``/proc/cpuinfo`` and ``/sys/devices/system/cpu`` describing the
  emulated core (features, MIDR), since QEMU passes the host's through and torch's CPU
  detection reads them. QEMU looks a path up under ``-L root`` first.

Each emulated core is a platform configuration of its own, ``linux-arm64-<core>-t<threads>``,
recorded by the same recorders as every other platform. Provenance says it was emulated (the
QEMU version, QEMU's CPU model and the fake MIDR), so nobody mistakes it for silicon.

x86_64 (``parity generate --emulate x86:MODEL``, ``EmulatedX86``) needs no set-up beyond
``qemu-x86_64``: this host's own Python and torch run under ``qemu-x86_64 -cpu MODEL``, whose
CPUID answers for the emulated CPU (an Intel Haswell: MKL's Intel AVX2 kernels), with a fake
``/proc/cpuinfo`` saying the same; the fixture is named after the BLAS code path MKL reports
there, and its provenance names the QEMU version and CPU model.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from harness.core.errors import ParityError
from harness.platform.config import PlatformConfig, PlatformFacts, child_env, normalize_arch
from harness.platform.cpuid import CpuIdentity, cpuinfo_as

DEBIAN_PACKAGES = (
    "python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib", "python3.11", "libc6", "libexpat1",
    "zlib1g", "libffi8", "libssl3", "libbz2-1.0", "liblzma5", "libsqlite3-0", "libgcc-s1", "libstdc++6", "libgomp1",
    "libuuid1", "libncursesw6", "libtinfo6", "libreadline8", "libdb5.3", "libcrypt1", "libnsl2", "libtirpc3",
    "libgssapi-krb5-2", "libkrb5-3", "libk5crypto3", "libcom-err2", "libkrb5support0", "libkeyutils1",
)  # fmt: skip
# the CUDA build's runtime libraries (torch 2.13.0's aarch64 wheel requires these versions)
NVIDIA_WHEELS = (
    "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.3",
    "nvidia-cudnn-cu13==9.20.0.48", "nvidia-cusparselt-cu13==0.8.1", "nvidia-nccl-cu13==2.29.7",
    "nvidia-nvshmem-cu13==3.4.5",
)  # fmt: skip
PURE_PYTHON = (
    "filelock", "typing-extensions", "sympy", "networkx", "jinja2", "fsspec", "mpmath", "rich", "markdown-it-py",
    "mdurl", "pygments",
)  # fmt: skip
# transformers and what it imports beyond the site above, at the test environment's versions: the zoo's
# Hugging Face families under emulation (`setup --transformers`, a site folder of its own; the ones with
# C or Rust code, tokenizers, safetensors, regex, pyyaml, pydantic-core, hf-xet and markupsafe, as aarch64
# wheels; markupsafe for the jinja2 of torch's site, which transformers imports). One file holds the pins:
# tox installs the test and zoo environments under it as pip constraints.
TRANSFORMERS_PINS = Path(__file__).with_name("transformers-pins.txt")


def _read_pins(path: Path) -> tuple[str, ...]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return tuple(line for line in lines if line)


TRANSFORMERS = _read_pins(TRANSFORMERS_PINS)
_BASE_FEATURES = "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp"


@dataclass(frozen=True)
class EmulatedCore:
    name: str  # the ISA level of its platform id
    qemu_cpu: str  # QEMU_CPU
    midr: int  # MIDR_EL1 as the real core reports it
    features: str  # /proc/cpuinfo Features
    like: str  # which machines have it

    @property
    def part(self) -> int:
        return (self.midr >> 4) & 0xFFF

    @property
    def implementer(self) -> int:
        return self.midr >> 24

    @property
    def variant(self) -> int:
        return (self.midr >> 20) & 0xF

    @property
    def revision(self) -> int:
        return self.midr & 0xF


CORES: dict[str, EmulatedCore] = {
    core.name: core
    for core in (
        EmulatedCore("neoverse-n1", "neoverse-n1", 0x413FD0C1, f"{_BASE_FEATURES} ssbs", "AWS Graviton2, Ampere Altra"),
        EmulatedCore("neoverse-v1", "max,sve-default-vector-length=32", 0x411FD401,
                     f"{_BASE_FEATURES} ssbs sve asimdfhm dit uscat ilrcpc flagm sb paca pacg dcpodp svei8mm "
                     "svebf16 i8mm bf16 dgh rng", "AWS Graviton3"),
        EmulatedCore("neoverse-v2", "max,sve-default-vector-length=16", 0x410FD4F0,
                     f"{_BASE_FEATURES} ssbs sve asimdfhm dit uscat ilrcpc flagm sb paca pacg dcpodp sve2 "
                     "svei8mm svebf16 i8mm bf16 dgh rng", "NVIDIA Grace, AWS Graviton4"),
    )
}  # fmt: skip


def cpuinfo_text(core: EmulatedCore, ncpus: int) -> str:
    """A /proc/cpuinfo as Linux prints it on ``ncpus`` cores of ``core``."""
    block = (
        "processor\t: {i}\nBogoMIPS\t: 50.00\nFeatures\t: {features}\nCPU implementer\t: 0x{impl:02x}\n"
        "CPU architecture: 8\nCPU variant\t: 0x{variant:x}\nCPU part\t: 0x{part:03x}\nCPU revision\t: {rev}\n"
    )
    return "\n".join(
        block.format(i=i, features=core.features, impl=core.implementer, variant=core.variant, part=core.part,
                     rev=core.revision)
        for i in range(ncpus)
    )  # fmt: skip


def fake_cpu_files(core: EmulatedCore, ncpus: int) -> dict[str, str]:
    """Relative path -> content of the fake /proc and /sys entries for ``core``."""
    span = f"0-{ncpus - 1}\n" if ncpus > 1 else "0\n"
    files = {"proc/cpuinfo": cpuinfo_text(core, ncpus)}
    for name in ("online", "possible", "present"):
        files[f"sys/devices/system/cpu/{name}"] = span
    for i in range(ncpus):
        cpu = f"sys/devices/system/cpu/cpu{i}"
        files[f"{cpu}/regs/identification/midr_el1"] = f"0x{core.midr:016x}\n"
        files[f"{cpu}/topology/core_id"] = f"{i}\n"
        files[f"{cpu}/topology/physical_package_id"] = "0\n"
        files[f"{cpu}/topology/thread_siblings_list"] = f"{i}\n"
        files[f"{cpu}/topology/core_siblings_list"] = span
    return files


def write_fake_cpu(root: Path, core: EmulatedCore, ncpus: int) -> None:
    write_files(root, fake_cpu_files(core, ncpus))


@dataclass(frozen=True)
class Emulator:
    cache: Path
    torch_version: str

    @property
    def root(self) -> Path:
        return self.cache / "root"

    @property
    def site(self) -> Path:
        return self.cache / f"site-{self.torch_version}"

    @property
    def transformers_site(self) -> Path:
        """transformers' site folder (``setup_transformers``), on the path after torch's where it is set up;
        named by a digest of every pin, so that a changed pin makes a new one."""
        pins = hashlib.sha256("\n".join(TRANSFORMERS).encode()).hexdigest()[:12]
        return self.cache / f"site-{TRANSFORMERS[0].replace('==', '-')}-{pins}"

    @property
    def python(self) -> Path:
        return self.root / "usr" / "bin" / "python3.11"

    def env(self, config: PlatformConfig, core: EmulatedCore, repo: Path, base: dict[str, str]) -> dict[str, str]:
        env = child_env(config, base)
        extra = [self.transformers_site] if (self.transformers_site / ".complete").exists() else []
        env.update(
            QEMU_CPU=core.qemu_cpu,
            PYTHONPATH=os.pathsep.join(map(str, [self.site, *extra, repo])),
            PYTHONNOUSERSITE="1",
            PARITY_EMULATION=emulation_note(
                "arm64", core.qemu_cpu, f"fake MIDR 0x{core.midr:08x} ({core.name}, like {core.like})"
            ),
        )
        return env

    def core_root(self, core: EmulatedCore, ncpus: int) -> Path:
        """The system root QEMU serves to one emulated core: the shared arm64 root (linked) with
        that core's own fake /proc/cpuinfo and /sys/devices/system/cpu, so that several cores
        can run at once."""
        root = self.cache / "cores" / f"{core.name}-c{ncpus}"
        root.mkdir(parents=True, exist_ok=True)
        for entry in self.root.iterdir():
            link = root / entry.name
            if entry.name not in ("proc", "sys") and not link.is_symlink():
                with suppress(FileExistsError):  # another run set this core up at the same moment
                    link.symlink_to(entry)
        write_fake_cpu(root, core, ncpus)
        return root

    def command(self, module_args: list[str], root: Path | None = None) -> list[str]:
        """The host command that runs ``python3.11 <module_args>`` as an arm64 process."""
        return [qemu_binary("arm64"), "-L", str(root or self.root), str(self.python), *module_args]


# the QEMU user-mode emulator of each guest architecture, and the Debian package that has it
QEMU_PROGRAMS = {"arm64": ("qemu-aarch64-static", "qemu-user-static"), "x86_64": ("qemu-x86_64", "qemu-user")}
# the same emulator as another package names it (qemu-user's dynamically linked build): user mode with
# -L runs the same code either way
QEMU_ALTERNATIVES = {"arm64": ("qemu-aarch64",), "x86_64": ()}


def qemu_binary(arch: str = "arm64") -> str:
    """The emulator's path: the preferred program, else an installed alternative, else its bare name."""
    for program in (QEMU_PROGRAMS[arch][0], *QEMU_ALTERNATIVES[arch]):
        found = shutil.which(program)
        if found:
            return found
    return QEMU_PROGRAMS[arch][0]


def qemu_version(arch: str = "arm64") -> str:
    """The first line of ``qemu-<arch> --version``: what an emulated fixture's provenance names."""
    unknown = f"{QEMU_PROGRAMS[arch][0]} (version unknown)"
    try:
        out = subprocess.run([qemu_binary(arch), "--version"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return unknown
    return out.splitlines()[0].strip() if out else unknown


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (relative path -> text) under ``root``: a fake /proc or /sys QEMU serves
    in place of the host's, since it looks an absolute path up under ``-L root`` first."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # unique: runs share it
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)


def _run(cmd: list[str], what: str, **kwargs) -> None:
    print(f"emulate-arm64: {what}", file=sys.stderr, flush=True)
    result = subprocess.run(cmd, check=False, **kwargs)
    if result.returncode != 0:
        raise ParityError(f"emulate-arm64: {what} failed (exit {result.returncode}): {' '.join(cmd[:6])} ...")


def _manylinux_flags() -> list[str]:
    flags = ["--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp"]
    flags += ["--abi", "cp311", "--abi", "abi3", "--abi", "none"]
    for n in range(17, 41):  # pip matches platform tags exactly: name every one
        flags += ["--platform", f"manylinux_2_{n}_aarch64"]
    return [*flags, "--platform", "manylinux2014_aarch64", "--platform", "linux_aarch64", "--platform", "any"]


def emulation_note(arch: str, qemu_cpu: str, detail: str) -> str:
    """What an emulated process records as its provenance's ``emulation``: the QEMU version, its
    CPU model and what the emulated CPU stands for."""
    return f"{qemu_version(arch)}; QEMU_CPU={qemu_cpu}; {detail}"


def emulated_cpu_model(note: str) -> str:
    """The QEMU CPU model an ``emulation_note`` names ("" where it names none)."""
    return next((part.partition("=")[2] for part in note.split("; ") if part.startswith("QEMU_CPU=")), "")


def emulated_x86_model(provenance: dict) -> str:
    """The QEMU x86 CPU model an x86_64 run (a trace, a fixture) was emulated as, from its provenance's
    ``emulation``; "" where it ran on this host's own CPU, or was not an x86_64 run."""
    if provenance.get("arch") != "x86_64":
        return ""
    return emulated_cpu_model(str(provenance.get("emulation", "")))


def _install_host_package(program: str, package: str, alternatives: tuple[str, ...] = ()) -> None:
    if not any(shutil.which(name) for name in (program, *alternatives)):
        if os.geteuid() != 0:
            raise ParityError(f"emulate-arm64: install {package} (Debian: apt-get install {package})")
        _run(["apt-get", "install", "-y", "-qq", package], f"installing {package}",
             env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})  # fmt: skip


def _unpack_debian(emu: Emulator, packages: tuple[str, ...], debs: Path, into: Path, what: str) -> None:
    """Download Debian's arm64 ``packages`` into ``debs`` and unpack them into ``into``, once."""
    if (into / ".complete").exists():
        return
    lists = emu.cache / "apt-lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    debs.mkdir(parents=True, exist_ok=True)
    apt = ["-oAPT::Architecture=arm64", "-oAPT::Architectures=arm64", f"-oDir::State::Lists={lists}"]
    _run(["apt-get", *apt, "update", "-qq"], "reading Debian's arm64 package lists")
    _run(["apt-get", *apt, "download", *packages], f"downloading {what}", cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        _run(["dpkg", "-x", str(deb), str(into)], f"unpacking {deb.name}")
    (into / ".complete").write_text("ok\n")


def setup(emu: Emulator) -> None:
    """Make the arm64 Python and torch, once; later calls find them and return."""
    _install_host_package("qemu-aarch64-static", "qemu-user-static", QEMU_ALTERNATIVES["arm64"])
    _unpack_debian(emu, DEBIAN_PACKAGES, emu.cache / "debs", emu.root, "arm64 Python")
    if not (emu.site / ".complete").exists():
        wheels = emu.cache / f"wheels-{emu.torch_version}"
        pip = [sys.executable, "-m", "pip", "download", "-q", *_manylinux_flags(), "-d", str(wheels)]
        _run([*pip, "--no-deps", f"torch=={emu.torch_version}", "numpy", "h5py"], "downloading torch for aarch64")
        _run([*pip, *NVIDIA_WHEELS], "downloading torch's aarch64 runtime libraries (about 2 GB)")
        _run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile", "--target", str(emu.site),
              *PURE_PYTHON], "installing pure-Python dependencies")  # fmt: skip
        for wheel in sorted(wheels.glob("*.whl")):  # a wheel is a zip: unpack it as an install would
            print(f"emulate-arm64: unpacking {wheel.name}", file=sys.stderr, flush=True)
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(emu.site)
        (emu.site / ".complete").write_text("ok\n")


def setup_transformers(emu: Emulator) -> None:
    """Make transformers' site folder (``TRANSFORMERS``' aarch64 or pure-Python wheels), once."""
    site = emu.transformers_site
    if (site / ".complete").exists():
        return
    wheels = emu.cache / f"wheels-{site.name.removeprefix('site-')}"
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", *_manylinux_flags(), "-d", str(wheels)]
    _run([*pip, *TRANSFORMERS], "downloading transformers and its dependencies for aarch64")
    for wheel in sorted(wheels.glob("*.whl")):
        print(f"emulate-arm64: unpacking {wheel.name}", file=sys.stderr, flush=True)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site)
    (site / ".complete").write_text("ok\n")


def record_command(emu: Emulator, config: PlatformConfig, out: Path, *, nanogpt: str = "", ops: str = "",
                   force: bool = False, root: Path | None = None, random: int = 0,
                   seed: int = 1, full_steps: str = "") -> list[str]:  # fmt: skip
    """The recorder run for one emulated configuration (the recorder itself, not `parity
    generate`: without binfmt_misc an emulated process cannot start another one)."""
    module = "harness.record.nanogpt_child" if nanogpt else "harness.record.ops_child"
    args = ["-m", module, "--platform-id", config.id, "--out", str(out), "--quiet"]
    if nanogpt:
        args += ["--config", nanogpt] + (["--full-steps", full_steps] if full_steps else [])
    elif ops:
        args += ["--ops", ops]
    if random and not nanogpt:
        args += ["--random", str(random), "--seed", str(seed)]
    if force:
        args.append("--force")
    return emu.command(args, root)


# --- the impl (no torch) on an emulated arm64 host -------------------------------------------------

AARCH64_CC = "aarch64-linux-gnu-gcc"  # Debian's gcc-aarch64-linux-gnu
ARM64_EXT_SUFFIX = ".cpython-311-aarch64-linux-gnu.so"  # EXTENSION_SUFFIXES[0] of the arm64 Python 3.11
PYTHON_DEV_PACKAGES = ("libpython3.11-dev",)  # Python.h and the aarch64 pyconfig.h: core/_digest, trace/_tracer


def impl_site(emu: Emulator, numpy: str, h5py: str) -> Path:
    """The aarch64 NumPy and h5py the impl runs with: the host's versions, so the two runs differ
    only in the machine."""
    return emu.cache / f"site-impl-numpy{numpy}-h5py{h5py}"


def setup_impl(emu: Emulator, numpy: str, h5py: str) -> Path:
    """Make the arm64 Python, its headers and the aarch64 NumPy and h5py wheels (no torch),
    once; return the site folder."""
    _install_host_package("qemu-aarch64-static", "qemu-user-static", QEMU_ALTERNATIVES["arm64"])
    _unpack_debian(emu, DEBIAN_PACKAGES, emu.cache / "debs", emu.root, "arm64 Python")
    setup_cross_build(emu)
    site = impl_site(emu, numpy, h5py)
    if not (site / ".complete").exists():
        wheels = emu.cache / f"wheels-impl-numpy{numpy}-h5py{h5py}"
        pip = [sys.executable, "-m", "pip", "download", "-q", *_manylinux_flags(), "-d", str(wheels)]
        _run([*pip, f"numpy=={numpy}", f"h5py=={h5py}"], "downloading NumPy and h5py for aarch64")
        for wheel in sorted(wheels.glob("*.whl")):
            print(f"emulate-arm64: unpacking {wheel.name}", file=sys.stderr, flush=True)
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(site)
        (site / ".complete").write_text("ok\n")
    return site


def setup_cross_build(emu: Emulator) -> None:
    """The cross compiler and the arm64 Python headers that build_arm64_package needs, once."""
    _install_host_package(AARCH64_CC, "gcc-aarch64-linux-gnu")
    _unpack_debian(emu, PYTHON_DEV_PACKAGES, emu.cache / "debs-python-dev", emu.cache / "python-dev",
                   "arm64 Python headers")  # fmt: skip


def arm64_compile_command(emu: Emulator, lib, out: Path) -> list[str]:
    """The cross compiler's command for one of the package's C libraries (a
    ``harness.core.buildinfo.Library``), with the package's flags as an aarch64 host computes them."""
    from harness.core import buildinfo

    headers = emu.cache / "python-dev" / "usr" / "include"
    includes = [arg for inc in lib.includes for arg in ("-I", str(inc))]
    includes += ["-I", str(headers / "python3.11"), "-I", str(headers)]  # pyconfig.h includes the aarch64 one
    flags = buildinfo.compile_flags(machine="aarch64")
    return [AARCH64_CC, *flags, "-fPIC", "-shared", *includes, str(lib.source), "-o", str(out), "-lm"]


def build_arm64_package(emu: Emulator, repo: Path, dest: Path) -> Path:
    """A copy of the package under ``dest`` with its C libraries compiled for aarch64 (``arm64_library``:
    compiled once per source), for the emulated Python's path: the host's own libraries in ``repo``
    stay as they are. Python files are copied afresh each time; ``harness/fixtures`` is a link to the
    committed store, so the fixtures checked are the committed ones. Returns ``dest`` (the folder to
    put on the path)."""
    from harness.core import buildinfo

    package = dest / "harness"
    if package.exists():
        shutil.rmtree(package)
    skip = shutil.ignore_patterns("*.so", "__pycache__", ".*.tmp", "fixtures")
    shutil.copytree(repo / "harness", package, ignore=skip)
    (package / "fixtures").symlink_to(repo / "harness" / "fixtures", target_is_directory=True)
    for lib in buildinfo.libraries():
        shutil.copyfile(arm64_library(emu, lib), package / lib.layer / f"_{lib.name}{ARM64_EXT_SUFFIX}")
    return dest


ARM64_BUILDS_KEPT = 4  # builds kept per library: checkouts at other commits share the cache without evicting each other


def arm64_library(emu: Emulator, lib) -> Path:
    """One of the package's C libraries compiled for aarch64, from the cache's earlier builds where
    one was compiled by the same command from the same source and headers (by their bytes), else
    compiled now (minutes under load for the whole package). The key holds the command with the
    checkout's and the cache's folders as placeholders, so checkouts of the same source at other
    paths share a build; the ``ARM64_BUILDS_KEPT`` most recently used builds of a library are kept."""
    from harness.core import buildinfo

    command = "\0".join(arm64_compile_command(emu, lib, Path("OUT")))
    command = command.replace(str(buildinfo.PACKAGE), "<package>").replace(str(emu.cache), "<cache>")
    key = hashlib.sha256(command.encode())
    for header_dir in lib.includes:
        for f in sorted(header_dir.glob("*.h*")):
            key.update(f.name.encode() + b"\0" + f.read_bytes())
    key.update(lib.source.read_bytes())
    builds = emu.cache / "aarch64-builds"
    built = builds / f"_{lib.layer}_{lib.name}-{key.hexdigest()[:32]}{ARM64_EXT_SUFFIX}"
    if built.exists():
        built.touch()  # most recently used
        return built
    builds.mkdir(parents=True, exist_ok=True)
    tmp = built.with_name(f".{built.name}.{os.getpid()}.tmp")
    _run(arm64_compile_command(emu, lib, tmp), f"compiling {lib.module} for aarch64")
    tmp.replace(built)
    older = sorted(builds.glob(f"_{lib.layer}_{lib.name}-*{ARM64_EXT_SUFFIX}"), key=lambda p: p.stat().st_mtime_ns)
    for old in [p for p in older if p != built][: max(0, len(older) - ARM64_BUILDS_KEPT)]:
        old.unlink(missing_ok=True)
    return built


def impl_env(emu: Emulator, core: EmulatedCore, site: Path, package_dir: Path, base: dict[str, str]) -> dict[str, str]:
    """The environment of the emulated impl: its own NumPy and package copy on the path, nothing of the host's."""
    env = {k: v for k, v in base.items() if not k.startswith(("PYTHON", "OMP_", "MKL_", "ATEN_"))}
    env.update(QEMU_CPU=core.qemu_cpu, PYTHONPATH=f"{site}{os.pathsep}{package_dir}", PYTHONNOUSERSITE="1")
    return env


# --- parity trace on an emulated arm64 core ---------------------------------------------------------


def default_cache() -> Path:
    """The arm64 emulator's cache folder: ``$PARITY_ARM64_CACHE``, default ``~/.cache/parity-harness/arm64``."""
    return Path(os.environ.get("PARITY_ARM64_CACHE") or Path.home() / ".cache" / "parity-harness" / "arm64")


def emulated_core_of(provenance: dict) -> EmulatedCore | None:
    """The emulated arm64 core a traced or recorded run's provenance names; None where the run was
    not an emulated arm64 one (silicon, or x86_64)."""
    note = str(provenance.get("emulation", ""))
    if provenance.get("arch") != "arm64" or not note:
        return None
    midr = re.search(r"fake MIDR 0x([0-9a-fA-F]+)", note)  # emulation_note's, as Emulator.env writes it
    found = [c for c in CORES.values() if midr and c.midr == int(midr.group(1), 16)]
    found = found or [CORES[name] for name in (str(provenance.get("isa", "")),) if name in CORES]
    if not found:
        raise ParityError(f"the run was emulated on an arm64 core that this harness does not know ({note}; "
                          f"known: {', '.join(CORES)})")  # fmt: skip
    return found[0]


@contextmanager
def arm64_runner(
    repo: Path, torch_version: str, core: EmulatedCore, threads: int, base: dict[str, str], cache: Path | None = None
) -> Iterator[tuple[Callable[[list[str]], list[str]], dict[str, str]]]:
    """(command, env) that run ``python3.11 <args>`` on emulated ``core`` at ``threads`` threads with
    the emulator's torch and an aarch64 build of this package (in a temporary folder of the cache,
    removed on leaving: the host's x86_64 libraries are never loaded). ``PYTHONSAFEPATH`` keeps the
    working directory's copy of the package (its x86_64 libraries) off the path; ``harness.trace.run``
    puts the working directory back for the program. Refused in one line where the emulator or its
    torch release is not set up (``python tools/emulate_arm64.py setup``)."""
    emu = Emulator(cache or default_cache(), torch_version)
    setup_hint = f"python tools/emulate_arm64.py setup --torch {torch_version}"
    if not (emu.root / ".complete").exists() or not (emu.site / ".complete").exists():
        raise ParityError(f"the arm64 emulator with torch {torch_version} is not set up in {emu.cache}: {setup_hint}")
    if shutil.which(AARCH64_CC) is None or not (emu.cache / "python-dev" / ".complete").exists():
        raise ParityError(f"building the package for aarch64 needs {AARCH64_CC} and the arm64 Python headers: "
                          "python tools/emulate_arm64.py run sets them up")  # fmt: skip
    config = PlatformConfig("linux", "arm64", core.name, threads, blas="nvpl")
    emu.cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="package-trace-", dir=emu.cache) as tmp:
        package = build_arm64_package(emu, repo, Path(tmp))
        # the dispatcher hook (C++, compiled when first traced) cannot be built for aarch64 from inside
        # the emulated process (a compiler it starts runs natively): traced through the dispatch mode
        env = {**emu.env(config, core, package, base), "PYTHONSAFEPATH": "1", "PARITY_TRACE_HOOK": "0"}
        root = emu.core_root(core, max(threads, 2))
        yield (lambda args: emu.command(args, root)), env


# --- x86_64 under emulation: this host's own Python and torch, as another x86 CPU -------------------

X86_EXAMPLES = "x86:Haswell-v4 (Intel AVX2), x86:Nehalem-v2 (Intel SSE4.2), x86:EPYC-Milan (AMD)"


def parse_emulate(text: str) -> str:
    """``--emulate x86:MODEL`` -> MODEL, a QEMU x86 CPU model; any other form is an input error."""
    arch, sep, model = text.partition(":")
    if arch.strip().lower() in ("arm64", "aarch64"):
        raise ParityError(
            "--emulate runs this host's own x86_64 Python and torch; arm64 is recorded with its own: "
            "python tools/emulate_arm64.py record"
        )
    if arch.strip().lower() not in ("x86", "x86_64") or not sep or not model.strip() or model.strip() != model:
        raise ParityError(f"--emulate takes x86:MODEL, a QEMU x86 CPU model (e.g. {X86_EXAMPLES}), not '{text}'")
    return model


def parse_cpu_models(help_text: str) -> frozenset[str]:
    """The CPU models ``qemu-x86_64 -cpu help`` lists (its lines 'x86 NAME  description')."""
    return frozenset(
        line.split()[1] for line in help_text.splitlines() if line.startswith("x86 ") and len(line.split()) > 1
    )


@dataclass(frozen=True)
class EmulatedX86:
    """This host's x86_64 programs run under ``qemu-x86_64 -cpu MODEL``: CPUID answers for the
    emulated CPU, so MKL, oneDNN and ATen choose their kernels for it; QEMU serves ``root``'s
    fake ``/proc/cpuinfo`` (the host's with the emulated CPU's identity and flags) in place of the
    host's, and everything else (``/sys``, the libraries) is the host's own."""

    model: str  # the QEMU CPU model
    cpu: CpuIdentity  # what CPUID says under it
    root: Path  # QEMU's -L prefix: proc/cpuinfo
    portable: Path | None = None  # where a portable build of the package goes, where this CPU needs one

    @cached_property
    def package(self) -> Path | None:
        """The portable build to run from (``portable_x86_package``), compiled the first time a run needs it, so
        that a bad request (a level the emulated CPU lacks) is refused before anything is compiled; None where
        this host's own build runs."""
        if self.portable is None:
            return None
        return portable_x86_package(Path(__file__).resolve().parent.parent.parent, self.portable)

    @property
    def facts(self) -> PlatformFacts:
        return PlatformFacts("linux", "x86_64", self.cpu.brand, self.cpu.flags)

    @property
    def note(self) -> str:
        cpu = self.cpu
        return emulation_note(
            "x86_64", self.model, f"QEMU emulation of {cpu.vendor} family {cpu.family} model {cpu.model} "
            f"stepping {cpu.stepping} ({cpu.brand})"
        )  # fmt: skip

    def command(self, argv: list[str]) -> list[str]:
        return [qemu_binary("x86_64"), "-L", str(self.root), "-cpu", self.model, *argv]

    def env(self, config: PlatformConfig, base: dict[str, str] | None = None) -> dict[str, str]:
        return self.wrap(child_env(config, base))

    def wrap(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` (a configuration's, or a traced run's as it was) with what running under this model adds:
        the provenance's ``emulation`` note, and the portable build of the package first on the path."""
        env = {**env, "PARITY_EMULATION": self.note}
        if self.package is not None:  # first on the path, and not the working directory's copy (-m puts it first)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(self.package), env.get("PYTHONPATH", "")) if p)
            env["PYTHONSAFEPATH"] = "1"
        return env


def needs_portable_build(cpu: CpuIdentity, host_flags: list[str]) -> bool:
    """Whether this host's build of the package's C libraries would not run on ``cpu``: ``-mfma``
    (an x86_64 host with FMA) lets GCC use AVX and FMA anywhere in them, and the digest a nanoGPT
    recording runs stops with an illegal instruction on a CPU without FMA (``Nehalem-v2``)."""
    return "-mfma" in host_flags and "fma" not in cpu.flags


def portable_x86_package(repo: Path, dest: Path, layers: tuple[str, ...] | None = None) -> Path:
    """A copy of the package under ``dest`` with its C libraries compiled by this host's compiler
    with the portable flags alone (``buildinfo.PORTABLE_FLAGS``, no ``-mfma``: SSE2 code, which
    every x86_64 runs; the flags change no bits, every FMA being an explicit ``fmaf``); the host's
    own libraries in ``repo`` stay as they are. ``harness/fixtures`` is a link to the store.
    ``layers``: only their libraries (default every one). Returns ``dest`` (the folder to put on the path)."""
    import sysconfig

    from harness.core import buildinfo

    package = dest / "harness"
    skip = shutil.ignore_patterns("*.so", "__pycache__", ".*.tmp", "fixtures")
    shutil.copytree(repo / "harness", package, ignore=skip)
    (package / "fixtures").symlink_to(repo / "harness" / "fixtures", target_is_directory=True)
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for lib in buildinfo.libraries():
        if layers is not None and lib.layer not in layers:
            continue
        out = package / lib.layer / f"_{lib.name}{suffix}"
        includes = [arg for inc in lib.includes for arg in ("-I", str(inc))]
        includes += ["-I", sysconfig.get_paths()["include"]]
        cmd = [cc, *buildinfo.PORTABLE_FLAGS, "-DPARITY_FP_NO_AVX", "-fPIC", "-shared", *includes, str(lib.source)]
        cmd += ["-o", str(out), "-lm"]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            detail = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise ParityError(f"compiling {lib.module} without -mfma for the emulated CPU failed: {detail}")
    return dest


def probe_x86_cpu(model: str) -> CpuIdentity:
    """What CPUID says under ``qemu-x86_64 -cpu model`` (``harness.platform.cpuid`` run there)."""
    cmd = [qemu_binary("x86_64"), "-cpu", model, sys.executable, "-m", "harness.platform.cpuid"]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParityError(f"could not run Python under qemu-x86_64 -cpu {model}: {exc}") from None
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("{")]
    if run.returncode != 0 or not lines:
        detail = ([ln for ln in run.stderr.strip().splitlines() if "warning:" not in ln] or ["no output"])[-1]
        raise ParityError(f"could not read the CPU under qemu-x86_64 -cpu {model}: {detail}")
    return CpuIdentity.from_json(lines[-1])


@contextmanager
def emulated_x86(spec: str, host_arch: str | None = None) -> Iterator[EmulatedX86]:
    """The launcher for ``--emulate x86:MODEL``, its fake /proc/cpuinfo in a temporary folder
    removed on leaving. Input errors (the form, a host that is not x86_64, no qemu-x86_64, a model
    QEMU does not know) are raised before anything runs."""
    model = parse_emulate(spec)
    host = normalize_arch(host_arch or platform.machine())
    if host != "x86_64":
        raise ParityError(f"--emulate {spec} runs this host's own x86_64 Python and torch; this host is {host}")
    if shutil.which(QEMU_PROGRAMS["x86_64"][0]) is None:
        raise ParityError("qemu-x86_64 is not installed: --emulate needs QEMU user-mode emulation "
                          "(Debian, Ubuntu: apt-get install qemu-user)")  # fmt: skip
    listing = subprocess.run([qemu_binary("x86_64"), "-cpu", "help"], capture_output=True, text=True, check=False)
    models = parse_cpu_models(listing.stdout)
    if model not in models:
        raise ParityError(f"QEMU knows no x86 CPU model '{model}' (`qemu-x86_64 -cpu help` lists {len(models)}; "
                          f"e.g. {X86_EXAMPLES})")  # fmt: skip
    cpu = probe_x86_cpu(model)
    from harness.core import buildinfo

    try:
        host_cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ParityError(f"/proc/cpuinfo: cannot read it ({exc.strerror})") from None
    with tempfile.TemporaryDirectory(prefix="parity-x86-") as tmp:
        write_files(Path(tmp), {"proc/cpuinfo": cpuinfo_as(host_cpuinfo, cpu)})
        portable = Path(tmp) / "package" if needs_portable_build(cpu, buildinfo.compile_flags()) else None
        yield EmulatedX86(model, cpu, Path(tmp), portable)
