"""MKL VML's double sin and cos (``torch.sin``/``torch.cos`` of float64 on x86: vmdSin/vmdCos, csrc/dmath.h
mkl_vml_sincos_d) on MKL's generic path, against torch's bits recorded on an AMD EPYC Zen 5
(tests/vml_sincos_f64_cases.py: random bit patterns up to 65536.0035, random doubles of [-64, 64], the doubles next
to the table's nodes and the index's rounding boundary, integers and halves, position-embedding angles, signed zeros
and subnormals; past 65536.0035 the kernel's Payne-Hanek branch: random bit patterns, binades' ends, the doubles
next to k*pi/2), the special inputs measured there, the tables' generator, and what the impl refuses; replayed
through the trace's ``aten.sin`` / ``aten.cos``. No torch, no recording."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, profile_for_platform
from harness.trace.impl_ops import replay
from tests.vml_sincos_f64_cases import SPECIAL, cases, digest, special_inputs

ROOT = Path(__file__).resolve().parent.parent

# SHA-256 of torch.sin/cos's float64 output bytes over cases(), recorded with torch 2.13.0 on one thread on a Zen 5
# (MKL's generic path, mkl_vml_kernel_dSin/dCos_EXHAynn): the same bytes at default, avx2 and avx512, and with
# MKL_CBWR=COMPATIBLE
DIGEST = {
    "sin": "939db0f98c92f6b4f2f208e1c53303d2161493d7b918f4eab7fd1808eb22ce0e",
    "cos": "39dea75b70398a4d67cfb5239b0e288192e6876f14f3098dac19c02ae318ca0e",
}


def _replay(op: str, x: np.ndarray, platform: str) -> np.ndarray:
    args = [{"name": "self", "tensor": "self", "stride": [1], "shape": [x.size]}]
    return replay(f"aten.{op}", {"self": x}, args, profile_for_platform(platform))["out"]


@pytest.mark.parametrize("platform", ("linux-x86_64-avx2-t1", "linux-x86_64-avx512-t4", "linux-x86_64-baseline-t2"))
@pytest.mark.parametrize("op", ["sin", "cos"])
def test_float64_sincos_reproduces_the_recorded_bits(op: str, platform: str) -> None:
    assert digest(_replay(op, cases(), platform)) == DIGEST[op]


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_float64_sincos_special_inputs(op: str) -> None:
    """Infinities give the default NaN (x * 0), NaNs themselves quieted (x * x), sign and payload kept."""
    got = _replay(op, special_inputs(), "linux-x86_64-avx2-t1").view(np.uint64)
    assert [hex(v) for v in got] == [hex(s[1 if op == "sin" else 2]) for s in SPECIAL]


@pytest.mark.parametrize("op", ["sin", "cos"])
@pytest.mark.parametrize("blas", [MKL_AVX2, MKL_SSE42, MKL_AVX512])
def test_float64_sincos_on_mkls_intel_paths_is_refused(op: str, blas: str) -> None:
    profile = replace(profile_for_platform("linux-x86_64-avx2-t1"), blas=blas)
    args = [{"name": "self", "tensor": "self", "stride": [1], "shape": [3]}]
    with pytest.raises(ParityError, match=r"not modelled on .* read from MKL's generic path only"):
        replay(f"aten.{op}", {"self": np.ones(3)}, args, profile)


def test_float64_sincos_payne_hanek_vectors_on_arm64_are_refused() -> None:
    """aarch64's SLEEF vectors holding |x| >= 1e14, an infinity or a NaN take its Payne-Hanek branch (not ported);
    the rest: tests/test_impl_pow_dtypes.py."""
    with pytest.raises(ParityError, match="Payne-Hanek"):
        _replay("sin", np.array([1.0, 2.0, np.nan]), "linux-arm64-neoverse-n1-nvpl-t1")


def test_float64_sincos_table_is_generated() -> None:
    """csrc/vml_sincos_d_table.h is what tools/gen_vml_sincos_d_table.py writes (the table's rule from 600-bit values,
    1/(2*pi)'s bits)."""
    pytest.importorskip("mpmath")
    tool = ROOT / "tools" / "gen_vml_sincos_d_table.py"
    assert subprocess.run([sys.executable, str(tool), "--check"], check=False).returncode == 0
