"""Provenance: everything about the recording process that can change a fixture's bits."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import subprocess
import sys
from functools import cache
from importlib import metadata
from typing import Any

from harness.core.errors import ParityError
from harness.core.version import __version__
from harness.platform.config import (
    RELEVANT_ENV,
    Launcher,
    PlatformConfig,
    PlatformFacts,
    blas_tag,
    cache_per_core,
    child_env,
)


def public_version(version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0': the release a fixture set is keyed by."""
    return version.split("+", 1)[0]


def installed_torch_version() -> str:
    """The installed torch's version, read without importing torch."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return ""


def blas_from_config(config_text: str) -> str:
    """The BLAS named by torch.__config__.show() (mkl, openblas, accelerate, ...)."""
    match = re.search(r"BLAS_INFO=([\w.-]+)", config_text)
    return match.group(1) if match else "unknown"


def mkl_code_path_from_banner(banner: str) -> str:
    """The code path MKL says it runs, from its verbose banner line.

    'MKL_VERBOSE oneMKL 2024.0 ... for Intel(R) 64 architecture Intel(R) Advanced Vector
    Extensions 2 (Intel(R) AVX2) enabled processors, Lnx 2.45GHz lp64 gnu_thread' gives
    'Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2) enabled processors'.
    """
    match = re.search(r"64 architecture (.+?), (?:Lnx|Win|Mac|Linux|Windows|macOS)", banner)
    return match.group(1).strip() if match else ""


@cache
def mkl_verbose_banner() -> str:
    """MKL's verbose banner, captured from file descriptor 1 around one small sgemm.

    MKL prints it once per process, so the first capture is kept for every later caller.
    """
    import ctypes
    import tempfile

    import torch

    if not torch.backends.mkl.is_available():
        return ""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        try:
            os.dup2(tmp.fileno(), 1)
            with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
                a = torch.ones(4, 4)
                a @ a
            libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", errors="replace")
    return next((ln for ln in text.splitlines() if " architecture " in ln), "")


def running_blas_tag() -> str:
    """The BLAS code path of this process's torch as an id tag (``platform_config.blas_tag``)."""
    import torch

    return blas_tag(blas_from_config(torch.__config__.show()), mkl_code_path_from_banner(mkl_verbose_banner()))


def probe_blas_tag(config: PlatformConfig, launcher: Launcher | None = None) -> str:
    """The BLAS code path torch runs under ``config``, asked of a fresh process pinned to it
    (started by ``launcher`` where given: under emulation, as another CPU).

    MKL reads MKL_ENABLE_INSTRUCTIONS and the CPU once, when it loads, so only a new process
    answers for another ISA level. Takes about as long as importing torch.
    """
    code = "from harness.platform.provenance import running_blas_tag; print('blas=' + running_blas_tag())"
    cmd = [sys.executable, "-c", code]
    try:
        run = subprocess.run(
            launcher.command(cmd) if launcher else cmd,
            env=launcher.env(config) if launcher else child_env(config),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParityError(f"could not start torch to read its BLAS code path under {config.id}: {exc}") from None
    tags = [ln.removeprefix("blas=") for ln in run.stdout.splitlines() if ln.startswith("blas=")]
    if run.returncode != 0 or not tags:
        detail = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise ParityError(f"could not read torch's BLAS code path under {config.id}: {detail}")
    return tags[-1]


def _version_of(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return ""


def hash_seed() -> dict[str, Any]:
    """What sets this process's string hash order: ``PYTHONHASHSEED`` as it saw it (None: unset) and
    ``sys.flags.hash_randomization`` (0 only where the seed is 0)."""
    return {"PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED"), "hash_randomization": sys.flags.hash_randomization}


def _recorded_hash_seed(provenance: dict[str, Any]) -> dict[str, Any] | None:
    seed = provenance.get("python_hash_seed")
    return seed if isinstance(seed, dict) and "hash_randomization" in seed else None


def fixed_hash_seed(provenance: dict[str, Any]) -> str | None:
    """The seed that fixed a recording's string hash order ("0" where randomization was off); None where
    the order was drawn at random or the recording does not say."""
    seed = _recorded_hash_seed(provenance)
    if seed is None:
        return None
    if not seed.get("hash_randomization"):
        return "0"
    value = seed.get("PYTHONHASHSEED")
    return value if isinstance(value, str) and value.isdigit() and int(value) > 0 else None


def hash_seed_is_random(provenance: dict[str, Any]) -> bool:
    """Whether a recording's string hash order was drawn at random (False where not recorded)."""
    return _recorded_hash_seed(provenance) is not None and fixed_hash_seed(provenance) is None


def describe_hash_seed(provenance: dict[str, Any]) -> str:
    """A recording's hash seed as text: "PYTHONHASHSEED=0", "PYTHONHASHSEED unset (random per process)",
    or "not recorded" (recordings made before provenance kept it)."""
    seed = _recorded_hash_seed(provenance)
    if seed is None:
        return "not recorded"
    fixed = fixed_hash_seed(provenance)
    if fixed is not None:
        return f"PYTHONHASHSEED={fixed}"
    value = seed.get("PYTHONHASHSEED")
    if value in (None, ""):
        return "PYTHONHASHSEED unset (random per process)"
    return f"PYTHONHASHSEED={value}{'' if value == 'random' else ' not in force'} (random per process)"


def collect(config: PlatformConfig, facts: PlatformFacts, **extra: Any) -> dict[str, Any]:
    """Provenance of the running process; imports torch."""
    import numpy
    import torch

    config_text = torch.__config__.show()
    banner = mkl_verbose_banner()
    blas, code_path = blas_from_config(config_text), mkl_code_path_from_banner(banner)
    return {
        "generator": "parity-harness",
        "generator_version": __version__,
        "platform_id": config.id,
        "os": config.os,
        "arch": config.arch,
        "isa": config.isa,
        "threads": torch.get_num_threads(),
        "capability": torch.backends.cpu.get_cpu_capability(),
        "torch_version": public_version(torch.__version__),
        "torch_version_full": torch.__version__,
        "torch_git_version": getattr(torch.version, "git_version", "") or "",
        "torch_config": config_text,
        "torch_parallel_info": torch.__config__.parallel_info(),
        "blas": blas,
        "mkl_available": bool(torch.backends.mkl.is_available()),
        "mkldnn_available": bool(torch.backends.mkldnn.is_available()),
        # MKL picks its own code path by CPU vendor and model; on non-Intel CPUs it may
        # ignore MKL_ENABLE_INSTRUCTIONS. Its banner says what it really ran.
        "mkl_verbose_banner": banner,
        "mkl_code_path": code_path,
        "blas_path": blas_tag(blas, code_path),
        "cpu_model": facts.cpu_model,
        "cpu_flags": " ".join(sorted(facts.cpu_flags)),
        # the per-core L1 data and L2 caches (bytes; 0 where Linux does not name them), which oneDNN reads
        # from CPUID to block its convolutions: a replay of this run takes them (profiles.profile_for_trace)
        "l1d_per_core": cache_per_core(1),
        "l2_per_core": cache_per_core(2),
        "env": {var: os.environ[var] for var in RELEVANT_ENV if var in os.environ},
        # set by harness.platform.emulation: this process ran under QEMU, not on the silicon it names
        "emulation": os.environ.get("PARITY_EMULATION", ""),
        "python_version": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        # what orders Python's sets of strings: a program that iterates one may run its ops on
        # other tensors from run to run (docs/trace.md, a divergence of the program's data flow)
        "python_hash_seed": hash_seed(),
        "numpy_version": numpy.__version__,
        "h5py_version": _version_of("h5py"),
        "platform": platform.platform(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **extra,
    }
