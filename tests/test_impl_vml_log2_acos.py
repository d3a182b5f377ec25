"""MKL VML's log2 and acos (``torch.log2``/``torch.acos`` on x86, csrc/vmath.h mkl_vml_log2f/mkl_vml_acosf) on MKL's
generic path, against torch's bits recorded on an AMD EPYC Zen 5 (tests/vml_log2_acos_cases.py: the inputs whose
bits RCPPS's estimate decides, the edges of RCPPS's and RSQRTPS's buckets, the floats next to 1, subnormals, both
acos branches and their border, a spread of every bit pattern), on its Intel AVX2 and SSE4.2 paths against the bits
recorded over the same inputs under QEMU (``qemu-x86_64 -cpu Haswell-v4``, QEMU's exact RCPPS/RSQRTPS), the special
inputs measured there, and what the impl refuses. No torch, no recording."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, RSQRT_AMD, RSQRT_INTEL, RSQRT_QEMU, get_profile
from tests.bit_digest import bits_sha256
from tests.vml_log2_acos_cases import cases

GENERIC = get_profile("x86-avx512")

# SHA-256 of torch.log2/acos's output bits over cases(op), recorded with torch 2.13.0 on a Zen 5 (every level and
# thread count gives these bits)
DIGEST = {
    "log2": "a435e08fbad8ddc6caac63c03f6855406364ad6a82c50519246337124101be86",
    "acos": "c373d73b9f293b009bb3335bdf1134a4cecc58e18239eba2f82d87e22f090a9d",
}

# MKL's Intel paths under QEMU's Haswell-v4 (QEMU's exact RCPPS and RSQRTPS: the profile's rsqrtps=qemu), the same
# inputs, torch 2.13.0 on 1 thread: the AVX2 path (sLog2/sAcos_L9HAynn) and the SSE4.2 path
# (MKL_ENABLE_INSTRUCTIONS=SSE4_2: sLog2_EXHAynn, sAcos_H8HAynn, the generic path's steps)
AVX2 = replace(GENERIC, blas=MKL_AVX2).with_rsqrt_estimate(RSQRT_QEMU)
SSE42 = replace(GENERIC, blas=MKL_SSE42).with_rsqrt_estimate(RSQRT_QEMU)
INTEL_DIGEST = {
    ("log2", MKL_AVX2): "d84e8649cb55c88b4e1e53fe556603cafbf5b5a11999be6302cb015910acb5cd",
    ("acos", MKL_AVX2): "d6c8c18256b9f301f3ceaf5ef09616e61bf40b72ace71ddef118f848d05adfdf",
    ("log2", MKL_SSE42): "55f75997e6ab9fa1887dab2c80c7c69b7711719c03b1e02e8973f9bccf048b7f",
    ("acos", MKL_SSE42): "2eb16c69010d848b4ad0bd8663147329f7c8477023956a44426cfbae0ab173b3",
}

# (input bits, log2 bits, acos bits) measured there and, the same bits, on both Intel paths under QEMU: signed
# zeros, subnormals, +-1, +-1/2 (acos's branches meet), the floats next to 1, infinities, NaNs (quieted, sign and
# payload kept), negatives (log2: 0x7fc00000, not x86's default NaN), |x| > 1 (acos: 0xffc00000)
SPECIAL = (
    (0x00000000, 0xFF800000, 0x3FC90FDB),
    (0x80000000, 0xFF800000, 0x3FC90FDB),
    (0x00000001, 0xC3150000, 0x3FC90FDB),
    (0x007FFFFF, 0xC2FC0000, 0x3FC90FDB),
    (0x00800000, 0xC2FC0000, 0x3FC90FDB),
    (0x3F800000, 0x00000000, 0x00000000),
    (0xBF800000, 0x7FC00000, 0x40490FDB),
    (0x3F000000, 0xBF800000, 0x3F860A92),
    (0xBF000000, 0x7FC00000, 0x40060A92),
    (0x3F7FFFFF, 0xB3B8AA3C, 0x39B504F3),
    (0x3F800001, 0x3438AA3A, 0xFFC00000),
    (0x7F7FFFFF, 0x43000000, 0xFFC00000),
    (0x7F800000, 0x7F800000, 0xFFC00000),
    (0xFF800000, 0x7FC00000, 0xFFC00000),
    (0x7F800001, 0x7FC00001, 0x7FC00001),
    (0x7FA00000, 0x7FE00000, 0x7FE00000),
    (0xFFC12345, 0xFFC12345, 0xFFC12345),
    (0x7FC00000, 0x7FC00000, 0x7FC00000),
    (0xC0000000, 0x7FC00000, 0xFFC00000),
    (0x80000001, 0x7FC00000, 0x3FC90FDB),
    (0x40000000, 0x3F800000, 0xFFC00000),
)


@pytest.mark.parametrize("op", ["log2", "acos"])
def test_vml_log2_acos_reproduce_the_recorded_bits(op: str) -> None:
    assert bits_sha256(unary.forward(op, cases(op), GENERIC)) == DIGEST[op]


@pytest.mark.parametrize("op", ["log2", "acos"])
@pytest.mark.parametrize("profile", [GENERIC, AVX2, SSE42], ids=["generic", "avx2", "sse42"])
def test_vml_log2_acos_special_inputs(op: str, profile) -> None:
    x = np.array([row[0] for row in SPECIAL], np.uint32).view(np.float32)
    want = np.array([row[1 if op == "log2" else 2] for row in SPECIAL], np.uint32)
    got = unary.forward(op, x, profile).view(np.uint32)
    assert [hex(v) for v in got] == [hex(v) for v in want]


@pytest.mark.parametrize("op", ["log2", "acos"])
@pytest.mark.parametrize("profile", [AVX2, SSE42], ids=["avx2", "sse42"])
def test_vml_log2_acos_intel_paths_under_qemu_reproduce_the_recorded_bits(op: str, profile) -> None:
    assert bits_sha256(unary.forward(op, cases(op), profile)) == INTEL_DIGEST[op, profile.blas]


@pytest.mark.parametrize("op", ["log2", "acos"])
def test_vml_log2_acos_refuse_other_code_paths_and_estimates(op: str) -> None:
    x = np.array([0.25, 0.75], np.float32)
    with pytest.raises(ParityError, match=r"generic, Intel SSE4\.2 and Intel AVX2 paths only"):
        unary.forward(op, x, replace(GENERIC, blas=MKL_AVX512))
    for profile, estimate in ((GENERIC, RSQRT_INTEL), (AVX2, RSQRT_INTEL), (SSE42, RSQRT_AMD)):
        with pytest.raises(ParityError, match="RCPPS/RSQRTPS estimates, modelled on"):
            unary.forward(op, x, profile.with_rsqrt_estimate(estimate))
