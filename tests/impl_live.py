"""Shared by the impl's live tests: torch, run now in this process, against the impl.

The profile is the running torch's own: its ATen capability and thread count, and MKL's Intel
code path where it runs one the impl models. Two kinds of
host cannot check everything, and the tests say so by name instead of failing or passing
by accident:

- ``needs_verified_profile``: the running capability's profile has no committed fixture
  behind it (known_gaps.json ``unverified_profiles``; none today); set
  PARITY_LIVE_UNVERIFIED=1 to run the tests anyway, which is how such a profile gets verified;
- ``needs_modelled_mkl``: ops whose bits come from MKL (sgemm, VML exp/log/tanh/sqrt), whose
  kernels the impl reproduces as MKL runs them on the fixtures' host: its generic code path
  ("Intel(R) Architecture processors") on an AMD x86 CPU. On Intel CPUs MKL runs other kernels;
- ``needs_modelled_vml``: VML's exp, log and tanh, whose kernels the impl also reproduces on MKL's
  Intel AVX2 and AVX-512 paths (and the AMX path, which computes float32 as the AVX-512 one), which
  ``live_profile`` carries where MKL runs them;
- ``needs_modelled_sgemm``: MKL's matrix products alone (not VML, not MKL_CBWR, no test that
  presumes which product the generic path gives), which the impl also models on MKL's Intel
  SSE4.2, AVX2 and AVX-512 paths within bounds it names (thread counts, shapes, layouts): there a
  product it refuses as not modelled is passed over (``unless_refused``), on the generic path none is.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.core.ulp import compare_tensors, describe
from harness.impl.known_gaps import load_gaps
from harness.impl.profiles import (
    MKL_AMX,
    MKL_AVX2,
    MKL_AVX512,
    MKL_SSE42,
    RSQRT_INTEL,
    KernelProfile,
    profile_for_capability,
)
from harness.platform.config import blas_tag, cache_per_core

MODELLED_MKL_PATH = "Intel(R) Architecture processors"
INTEL_PATHS = (MKL_SSE42, MKL_AVX2, MKL_AVX512, MKL_AMX)  # MKL's Intel code paths the impl replays


SEEDS = st.integers(0, 2**32 - 1)
THREADS = st.integers(1, 16)  # torch.set_num_threads: ATen's chunking and MKL's thread grid


def use_threads(n: int) -> None:
    """torch.set_num_threads(n) (it also sets MKL's count and turns MKL_DYNAMIC off); the
    restore_threads fixture undoes it."""
    torch.set_num_threads(n)


def normal32(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def as_tensor(a: np.ndarray, grad: bool = False) -> torch.Tensor:
    """A torch tensor over a copy of ``a`` (the impl's input stays untouched)."""
    return torch.from_numpy(a.copy()).requires_grad_(grad)


def live_profile() -> KernelProfile:
    """The kernel profile of the torch running in this process: its ATen capability and thread count;
    MKL's code path and the CPU's RSQRTPS where MKL runs an Intel path the impl models (else the
    generic path's, which the tests of MKL's kernels skip for, ``needs_modelled_mkl``); and this host's
    per-core L1 and L2 caches, where Linux names them (oneDNN's convolution blockings read them)."""
    profile = profile_for_capability(
        torch.backends.cpu.get_cpu_capability(), torch.get_num_threads(), platform.machine()
    )
    if mkl_intel_here():  # on an Intel CPU, the MKL path it runs and its RSQRTPS
        profile = profile.with_blas(_mkl_tag()).with_rsqrt_estimate(RSQRT_INTEL)
    l1, l2 = cache_per_core(1), cache_per_core(2)
    profile = profile.with_l1_per_core(l1) if l1 else profile
    return profile.with_l2_per_core(l2) if l2 else profile


# MKL's code paths an ancestor process probed, per environment that can choose the path (_mkl_choosing)
_MKL_PATHS_VAR = "PARITY_TEST_MKL_PATHS"
_mkl_paths: dict[str, str] = json.loads(os.environ.get(_MKL_PATHS_VAR, "{}"))  # those this process knows


def _mkl_choosing(env: Mapping[str, str]) -> str:
    """The part of ``env`` that can change MKL's code path (MKL's and QEMU's variables), as a key."""
    return json.dumps(sorted((k, v) for k, v in env.items() if k.startswith(("MKL_", "QEMU_"))))


def _mkl_path(env: Mapping[str, str]) -> str:
    """MKL's code path in a process started with ``env``: probed once per environment that can change it,
    the answers passed down to child processes (``run_child``), so a live test's fresh interpreter
    does not start torch a second time to ask."""
    choosing = _mkl_choosing(env)
    if choosing not in _mkl_paths:
        # a fresh interpreter: in this one MKL prints its banner once, and pytest's capture may take it
        code = "from harness.platform.provenance import mkl_code_path_from_banner as p, mkl_verbose_banner as b; "
        run = subprocess.run(
            [sys.executable, "-c", code + "print(p(b()))"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=dict(env),
        )
        if run.returncode != 0:
            return run.stdout.strip()
        _mkl_paths[choosing] = run.stdout.strip()
    return _mkl_paths[choosing]


@cache
def _mkl_host() -> tuple[str, bool]:
    """(MKL's code path here, whether the CPU is AMD's)."""
    try:
        amd = "AuthenticAMD" in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        amd = False
    return _mkl_path(os.environ), amd


def _mkl_tag() -> str:
    """MKL's code path here as a platform id's BLAS part (``mklgeneric``, ``mklavx2``, ...)."""
    return blas_tag("mkl", _mkl_host()[0])


def _mkl_mismatch() -> str:
    path, amd = _mkl_host()
    if path == MODELLED_MKL_PATH and amd:
        return ""
    where = f"MKL's code path here is {path or 'unknown'!r} on {'an AMD' if amd else 'a non-AMD'} CPU"
    return f"{where}; the impl reproduces MKL's {MODELLED_MKL_PATH!r} path on AMD CPUs (the fixtures' host)"


def _unverified() -> str:
    if os.environ.get("PARITY_LIVE_UNVERIFIED") == "1":
        return ""
    name = live_profile().name
    why = load_gaps().unverified_profiles.get(name, "")
    return f"profile {name} is unverified: {why}" if why else ""


def _mkl_vml_here() -> bool:
    """Whether MKL runs an Intel path here whose VML exp, log and tanh the impl models too (AVX2, or
    AVX-512, which the AMX path computes float32 as)."""
    return _mkl_tag() in (MKL_AVX2, MKL_AVX512, MKL_AMX)


def _vml_mismatch() -> str:
    return "" if _mkl_vml_here() else _mkl_mismatch()


def mkl_intel_here() -> bool:
    """Whether MKL runs one of its Intel code paths here (an Intel CPU), each of whose sgemm the impl
    models within bounds it names: a product outside them is refused ("not modelled")."""
    return _mkl_tag() in INTEL_PATHS


def _sgemm_mismatch() -> str:
    return "" if mkl_intel_here() else _mkl_mismatch()


def unless_refused(compute: Callable[[], Any]) -> Any:
    """``compute()``; None where MKL runs an Intel path here and the impl refuses the product as not
    modelled there (its rules are bounded: threads, shapes, layouts). On MKL's generic path nothing is
    excused."""
    try:
        return compute()
    except ParityError as err:
        if mkl_intel_here() and "not modelled" in str(err):
            return None
        raise


needs_modelled_mkl = pytest.mark.skipif(bool(_mkl_mismatch()), reason=_mkl_mismatch() or "-")
needs_modelled_vml = pytest.mark.skipif(bool(_vml_mismatch()), reason=_vml_mismatch() or "-")
# MKL's sgemm alone (products, not VML or MKL_CBWR): the generic path on AMD CPUs, and its Intel paths
needs_modelled_sgemm = pytest.mark.skipif(bool(_sgemm_mismatch()), reason=_sgemm_mismatch() or "-")
needs_verified_profile = pytest.mark.skipif(bool(_unverified()), reason=_unverified() or "-")


def bits_note(expected: np.ndarray, actual: np.ndarray) -> str:
    """ "exact" where the uint32 patterns are equal, else how many elements differ (for a child
    process's JSON report)."""
    expected, actual = np.asarray(expected, np.float32), np.asarray(actual, np.float32)
    if expected.shape != actual.shape:
        return f"shape {list(actual.shape)}, torch {list(expected.shape)}"
    differ = int((expected.view(np.uint32) != actual.view(np.uint32)).sum())
    return "exact" if differ == 0 else f"{differ} of {expected.size} differ"


def print_child_report(cases: Sequence, run: Callable[[Any, int, KernelProfile], dict[str, str] | None]) -> None:
    """A fresh process's report on ``cases``, on 1 and 2 threads: per case ``run(case, index, profile)``
    (each output's ``bits_note``; None where the impl refuses the case), printed as one JSON line."""
    rows = []
    for threads in (1, 2):
        use_threads(threads)
        profile = live_profile()
        for i, case in enumerate(cases):
            results = run(case, i, profile)
            if results is not None:
                rows.append({"case": f"{case} at {threads} threads", "got": results})
    print(json.dumps(rows))


ROOT = Path(__file__).resolve().parents[1]
LEVEL_ENV = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")  # what a platform level pins (dropped before its env)


def run_child(
    module: str, child: str, args: Sequence[str], env_extra: dict[str, str] | None = None, drop: Sequence[str] = ()
) -> Any:
    """``module``'s ``child`` function in a fresh interpreter (this environment less ``drop``,
    ``env_extra`` over it), ``args`` in its sys.argv; the JSON of its last line of output."""
    env = {k: v for k, v in os.environ.items() if k not in drop} | (env_extra or {})
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    _mkl_path(env)  # the child's MKL path, probed here once for every child of its settings
    env[_MKL_PATHS_VAR] = json.dumps(_mkl_paths)
    code = f"from {module} import {child}; {child}()"
    run = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=900, check=False, cwd=ROOT, env=env
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def assert_bits_equal(name: str, expected: np.ndarray, actual: np.ndarray) -> None:
    """Equal uint32 patterns, element by element; the message names the first mismatch."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (
        f"{name}: impl gave {actual.dtype}{list(actual.shape)}, torch {expected.dtype}{list(expected.shape)}"
    )
    c = compare_tensors(name, expected, actual)
    assert c.bit_identical, describe(c)
