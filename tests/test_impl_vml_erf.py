"""MKL VML's erf (``torch.erf`` on x86, csrc/vmath.h mkl_vml_erff) on MKL's generic path, against torch's bits
recorded on an AMD EPYC Zen 5 (tests/vml_erf_cases.py: the floats around every grid point of the kernel's table and
half-way between them, the borders of its branches, small inputs, subnormals, a spread of every bit pattern, both
signs), on its Intel AVX2 and SSE4.2 paths against the bits recorded over the same inputs under QEMU
(``qemu-x86_64 -cpu Haswell-v4``), the special inputs measured there, and what the impl refuses. No torch, no
recording."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, get_profile
from tests.bit_digest import bits_sha256
from tests.vml_erf_cases import cases

GENERIC = get_profile("x86-avx512")

# SHA-256 of torch.erf's output bits over cases(), recorded with torch 2.13.0 on a Zen 5 (avx512, 1 thread)
DIGEST = "9738db4c8a158e3c58f4989b2e309d74b39b6dc150f6b3f862e7390b82f3911f"

# MKL's Intel paths under QEMU's Haswell-v4, the same inputs, torch 2.13.0 on 1 thread: the AVX2 path (avx2,
# sErf_L9HAynn: fused multiply-adds, other bits than the generic path's on 2,648 of these inputs) and the SSE4.2 path
# (MKL_ENABLE_INSTRUCTIONS=SSE4_2, sErf_H8HAynn: the generic path's steps and bits)
INTEL_DIGEST = {
    MKL_AVX2: "ad7fa6ae2ede6edfdf3dbe083c090047a0ec713d71a7887124e06464503c7631",
    MKL_SSE42: DIGEST,
}

# (input bits, erf bits) measured there: signed zeros, subnormals (x + x*c1 rounded twice), the table's first grid
# point past 0 (3.5/256), +-1, 3.9296875 and past it (1), infinities, NaNs (quieted, sign and payload kept)
SPECIAL = (
    (0x00000000, 0x00000000),
    (0x80000000, 0x80000000),
    (0x00000001, 0x00000001),
    (0x80000001, 0x80000001),
    (0x007FFFFF, 0x00906EB9),
    (0x00800000, 0x00906EBA),
    (0x38000000, 0x38106EBA),
    (0x3C600000, 0x3C7CBDBE),
    (0x3F800000, 0x3F57BB3D),
    (0xBF800000, 0xBF57BB3D),
    (0x407B8000, 0x3F800000),
    (0x407B7FFF, 0x3F800000),
    (0x40800000, 0x3F800000),
    (0x7F7FFFFF, 0x3F800000),
    (0x7F800000, 0x3F800000),
    (0xFF800000, 0xBF800000),
    (0x7FC00000, 0x7FC00000),
    (0xFFC00000, 0xFFC00000),
    (0x7F800001, 0x7FC00001),
    (0xFF812345, 0xFFC12345),
    (0x7FA00000, 0x7FE00000),
)


def test_vml_erf_reproduces_the_recorded_bits() -> None:
    assert bits_sha256(unary.forward("erf", cases(), GENERIC)) == DIGEST


@pytest.mark.parametrize("blas", [MKL_AVX2, MKL_SSE42])
def test_vml_erf_intel_paths_under_qemu_reproduce_the_recorded_bits(blas: str) -> None:
    assert bits_sha256(unary.forward("erf", cases(), replace(GENERIC, blas=blas))) == INTEL_DIGEST[blas]


# the special inputs give these bits on every path (recorded on the Intel ones under QEMU too: all 21 the same)
@pytest.mark.parametrize("blas", [GENERIC.blas, MKL_AVX2, MKL_SSE42])
def test_vml_erf_special_inputs(blas: str) -> None:
    x = np.array([row[0] for row in SPECIAL], np.uint32).view(np.float32)
    got = unary.forward("erf", x, replace(GENERIC, blas=blas)).view(np.uint32)
    assert [hex(v) for v in got] == [hex(row[1]) for row in SPECIAL]


def test_vml_erf_refuses_other_code_paths() -> None:
    x = np.array([0.25, 0.75], np.float32)
    with pytest.raises(ParityError, match=r"generic, Intel SSE4\.2 and Intel AVX2 paths only"):
        unary.forward("erf", x, replace(GENERIC, blas=MKL_AVX512))
