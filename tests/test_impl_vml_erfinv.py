"""MKL VML's erfinv (``torch.erfinv`` on x86, csrc/vmath.h mkl_vml_erfinvf) on MKL's generic path, against torch's bits
recorded on an AMD EPYC Zen 5 (tests/vml_erfinv_cases.py: the inputs whose exact erfinv lies nearest a float midpoint
and those VML rounds otherwise than it, the largest floats below 1, the table's borders, subnormals and tiny inputs,
random ones, both signs), on its Intel AVX2 and SSE4.2 paths against the bits recorded over the same inputs under QEMU
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
from tests.vml_erfinv_cases import cases

GENERIC = get_profile("x86-avx512")

# SHA-256 of torch.erfinv's output bits over cases(), recorded with torch 2.13.0 on a Zen 5 (avx512, 1 thread)
DIGEST = "7f4f5a38e9edefbadeef6774159704fe32db553fd677c648e175d60662cef707"

# MKL's Intel paths under QEMU's Haswell-v4, the same inputs, torch 2.13.0 on 1 thread: the AVX2 path (avx2,
# sErfInv_L9HAynn: fused multiply-adds, S split otherwise; other bits than the generic path's on 87 of these inputs)
# and the SSE4.2 path (MKL_ENABLE_INSTRUCTIONS=SSE4_2: MKL has no H8 erfinv, sErfInv_EXHAynn runs, the generic bits)
INTEL_DIGEST = {
    MKL_AVX2: "a3d80327c6b5e3f990942fa8c30001f18433369c2df3e3f31fcc3ffb62ddadaf",
    MKL_SSE42: DIGEST,
}

# (input bits, erfinv bits) measured there: signed zeros, +-1, past 1, infinities, NaNs (quieted, sign and payload
# kept), the smallest subnormal, the scalar routine's last input and the vector lanes' first (2^-24, which takes the
# table's entry 0), the largest float below 1
SPECIAL = (
    (0x00000000, 0x00000000),
    (0x80000000, 0x80000000),
    (0x3F800000, 0x7F800000),
    (0xBF800000, 0xFF800000),
    (0x3F800001, 0xFFC00000),
    (0xBF800001, 0xFFC00000),
    (0x40000000, 0xFFC00000),
    (0x7F800000, 0xFFC00000),
    (0xFF800000, 0xFFC00000),
    (0x7FC00000, 0x7FC00000),
    (0xFFC00000, 0xFFC00000),
    (0x7F800001, 0x7FC00001),
    (0xFF812345, 0xFFC12345),
    (0x00000001, 0x00000001),
    (0x80000001, 0x80000001),
    (0x337FFFFF, 0x3362DFC4),
    (0x33800000, 0x3362DFC5),
    (0xB3800000, 0xB362DFC5),
    (0x33800001, 0x3362DFC6),
    (0x3F7FFFFF, 0x407547CB),
    (0xBF7FFFFF, 0xC07547CB),
)


def test_vml_erfinv_reproduces_the_recorded_bits() -> None:
    assert bits_sha256(unary.forward("erfinv", cases(), GENERIC)) == DIGEST


@pytest.mark.parametrize("blas", [MKL_AVX2, MKL_SSE42])
def test_vml_erfinv_intel_paths_under_qemu_reproduce_the_recorded_bits(blas: str) -> None:
    assert bits_sha256(unary.forward("erfinv", cases(), replace(GENERIC, blas=blas))) == INTEL_DIGEST[blas]


# the special inputs give these bits on every path (recorded on the Intel ones under QEMU too: all 21 the same)
@pytest.mark.parametrize("blas", [GENERIC.blas, MKL_AVX2, MKL_SSE42])
def test_vml_erfinv_special_inputs(blas: str) -> None:
    x = np.array([row[0] for row in SPECIAL], np.uint32).view(np.float32)
    got = unary.forward("erfinv", x, replace(GENERIC, blas=blas)).view(np.uint32)
    assert [hex(v) for v in got] == [hex(row[1]) for row in SPECIAL]


def test_vml_erfinv_refuses_other_code_paths() -> None:
    with pytest.raises(ParityError, match=r"generic, Intel SSE4\.2 and Intel AVX2 paths only"):
        unary.forward("erfinv", np.array([0.5], np.float32), replace(GENERIC, blas=MKL_AVX512))
