"""MKL VML's double sqrt (vmdSqrt on MKL's generic path, csrc/optim.c vml_sqrt_d: torch.sqrt and pow(x, 0.5) of
float64 on x86) against torch 2.13.0's bits recorded on a Zen 5 (tests/vml_sqrt_f64_cases.py's operands): the
SHA-256 of torch.sqrt's output, the same at avx2 on 1 thread, avx512 on 4 and default on 2 (pow(x, 0.5) gave the
same bytes), and single values where the kernel is an ULP off IEEE sqrt; and on MKL's Intel AVX2 path (dSqrt_L9HAynn,
its steps fused) from QEMU's exact RSQRTPS, recorded under `qemu-x86_64 -cpu Haswell-v4` at avx2 on 1 thread. No torch
here."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from vml_sqrt_f64_cases import operands

from harness.core.errors import ParityError
from harness.impl.optim import sqrt_f64
from harness.impl.profiles import RSQRT_QEMU, profile_for_platform
from harness.trace.impl_ops import replay

GENERIC = ("linux-x86_64-avx2-t1", "linux-x86_64-avx512-t4", "linux-x86_64-baseline-t2")
DIGEST = "5b2d7e9fa0aa2fe94ad687d69290285a17719e5f40a65068ca9871ece7c7842a"  # 734 of the positive finite not IEEE's
HASWELL_DIGEST = "a4dd8732017cda13eea2683db163d55dc821819c6c7bd0a5afdbee1adc32e801"  # 1 not IEEE's (0x7fcfffffffffffff)

# (x, torch.sqrt(x), IEEE sqrt(x)) from the recording
MEASURED = (
    (0x3FF8FA3679456E98, 0x3FF3FDAF4165B874, 0x3FF3FDAF4165B873),
    (0x4009827A9E1D2C6C, 0x3FFC923609864AC5, 0x3FFC923609864AC6),
    (0x39E664498187EBE1, 0x3CEAC4A7F8E0E4BD, 0x3CEAC4A7F8E0E4BE),
    (0x1CD4F412EE60511D, 0x2E624F5983C2D4EC, 0x2E624F5983C2D4EB),
    (0x4FD745E8AE21C5C0, 0x47E34BFFDE0F3E97, 0x47E34BFFDE0F3E96),
)


@pytest.mark.parametrize("platform", GENERIC)
def test_vml_sqrt_f64_matches_torch(platform: str) -> None:
    out = sqrt_f64(operands(), profile_for_platform(platform))
    assert hashlib.sha256(out.tobytes()).hexdigest() == DIGEST


def test_vml_sqrt_f64_intel_avx2_path() -> None:
    profile = profile_for_platform("linux-x86_64-avx2-mklavx2-t1").with_rsqrt_estimate(RSQRT_QEMU)
    out = sqrt_f64(operands(), profile)
    assert hashlib.sha256(out.tobytes()).hexdigest() == HASWELL_DIGEST
    assert sqrt_f64(np.array([0x7FCFFFFFFFFFFFFF], np.uint64).view(np.float64), profile).view(np.uint64)[0] == (
        0x5FE0000000000000  # IEEE's is 0x5fdfffffffffffff: the fused steps' own rounding
    )


def test_vml_sqrt_f64_single_values() -> None:
    x = np.array([m[0] for m in MEASURED], np.uint64).view(np.float64)
    out = sqrt_f64(x, profile_for_platform(GENERIC[0]))
    assert out.view(np.uint64).tolist() == [m[1] for m in MEASURED]
    assert np.sqrt(x).view(np.uint64).tolist() == [m[2] for m in MEASURED]


@pytest.mark.parametrize("op", ("aten.sqrt.default", "aten.pow.Tensor_Scalar"))
def test_vml_sqrt_f64_through_the_trace(op: str) -> None:
    """The trace's sqrt and pow.Tensor_Scalar(0.5) of a transposed float64 view: element-wise, the same bits."""
    x = operands()[: 301 * 29].reshape(29, 301).T
    args = [{"name": "self", "tensor": "self", "stride": [1, 301], "shape": [301, 29], "dtype": "float64"}]
    if op == "aten.pow.Tensor_Scalar":
        args.append({"name": "exponent", "value": 0.5})
    out = replay(op, {"self": np.array(x)}, args, profile_for_platform(GENERIC[1]))["out"]
    assert np.array_equal(out.view(np.uint64), sqrt_f64(x, profile_for_platform(GENERIC[1])).view(np.uint64))


@pytest.mark.parametrize("platform", ("linux-x86_64-baseline-mklsse42-t1", "linux-x86_64-avx512-mklavx512-t1"))
def test_vml_sqrt_f64_intel_paths_refused(platform: str) -> None:
    with pytest.raises(ParityError, match="vdSqrt"):
        sqrt_f64(np.ones(3), profile_for_platform(platform))


def test_float64_sqrt_on_aarch64_is_fsqrt() -> None:
    """torch.sqrt of float64 on aarch64 is sqrt_kernel's vsqrtq_f64 / fsqrt, as pow(x, 0.5) there
    (test_impl_pow_dtypes.test_float64_square_root_on_aarch64_is_ieee): a negative's NaN +qNaN, a NaN quieted."""
    x = np.array([2.0, -1.0, -0.0, np.inf, 5e-324, -np.inf], np.float64)
    x = np.append(x, np.uint64(0xFFF0000000000AB1).view(np.float64))
    args = [{"name": "self", "tensor": "self", "stride": [1], "shape": [7], "dtype": "float64"}]
    out = replay("aten.sqrt.default", {"self": x}, args, profile_for_platform("linux-arm64-neoverse-n1-nvpl-t1"))
    want = [0x3FF6A09E667F3BCD, 0x7FF8000000000000, 0x8000000000000000, 0x7FF0000000000000, 0x1E60000000000000]
    assert out["out"].view(np.uint64).tolist() == [*want, 0x7FF8000000000000, 0xFFF8000000000AB1]
