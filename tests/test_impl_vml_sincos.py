"""MKL VML's sin and cos (``torch.sin``/``torch.cos`` on x86, csrc/vmath.h mkl_vml_sinf/cosf, mkl_avx2_vml_sinf/cosf)
on MKL's generic path, against torch's bits recorded on an AMD EPYC Zen 5, and on its Intel AVX2 and SSE4.2 paths,
recorded under QEMU's Haswell-v4 (tests/vml_sincos_cases.py: the inputs whose bits the order of the double operations
decides, those next to k*pi and (k + 1/2)*pi where N's rounding matters, those where the AVX2 and generic paths
differ, the tiny ones, both signs; past 10000, the large-argument branch's inputs of every binade), the special
inputs measured there, and what the impl refuses. No torch, no recording."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, MODELLED_BLAS, get_profile
from tests.bit_digest import bits_sha256
from tests.vml_sincos_cases import AVX2_COS, AVX2_LARGE_COS, AVX2_LARGE_SIN, AVX2_SIN, cases, large_cases

GENERIC = get_profile("x86-avx512")
PATHS = (MODELLED_BLAS, MKL_AVX2, MKL_SSE42)

# SHA-256 of torch.sin/cos's output bits over cases(op), recorded with torch 2.13.0 on one thread: the generic path on
# a Zen 5, the Intel paths under `qemu-x86_64 -cpu Haswell-v4` (AVX2: ATEN_CPU_CAPABILITY=avx2; SSE4.2: default,
# MKL_ENABLE_INSTRUCTIONS=SSE4_2)
DIGEST = {
    MODELLED_BLAS: {
        "sin": "3fa1cb10b2090516ae885302303a669a42ebca590bba61698201381b7febb0c0",
        "cos": "70f94de46b2c5b07bef429005f801f66f7dc713eaea0ed1917a17bbf61ba4707",
    },
    MKL_AVX2: {
        "sin": "1081b4bb56dfcbb84f486199eb03b7424b42928039c155082a52e462fa01abfe",
        "cos": "27a2d2100411742eca1dddb3f3ca065de11f0accf45129ff1c952d1723ecbda6",
    },
}
DIGEST[MKL_SSE42] = DIGEST[MODELLED_BLAS]  # recorded: the SSE4.2 path gives the generic path's bits
# the same over large_cases(op), 10000 < |x| < inf
DIGEST_LARGE = {
    MODELLED_BLAS: {
        "sin": "94d9c7dd77da15df4ecbe7771cbba8473ee9f18f2f82881fa3bf41dc47c247c5",
        "cos": "4f411e9eca196f4192282d28fc272eebb8c26e4a649678f71f013c60a81ae084",
    },
    MKL_AVX2: {
        "sin": "827f84160f2f579f91061d3e7598ab564227f6103bf4de4b65027fa5d79f1075",
        "cos": "1764594abaf3ec80c4c2131d507bb32b74156f5085b69c71157c7c930ec0faf6",
    },
}
DIGEST_LARGE[MKL_SSE42] = DIGEST_LARGE[MODELLED_BLAS]  # recorded: the generic path's bits again

# (input bits, sin bits, cos bits) measured there, the same on the three paths: signed zeros, subnormals, infinities,
# NaNs (quieted, sign and payload kept)
SPECIAL = (
    (0x00000000, 0x00000000, 0x3F800000),
    (0x80000000, 0x80000000, 0x3F800000),
    (0x00000001, 0x00000001, 0x3F800000),
    (0x80000001, 0x80000001, 0x3F800000),
    (0x7F800000, 0xFFC00000, 0xFFC00000),
    (0xFF800000, 0xFFC00000, 0xFFC00000),
    (0x7F800001, 0x7FC00001, 0x7FC00001),
    (0x7FA00000, 0x7FE00000, 0x7FE00000),
    (0xFFC12345, 0xFFC12345, 0xFFC12345),
    (0x7FC00000, 0x7FC00000, 0x7FC00000),
)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_reproduces_the_recorded_bits(op: str, path: str) -> None:
    x = cases(op)
    assert bits_sha256(unary.forward(op, x, replace(GENERIC, blas=path))) == DIGEST[path][op]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_large_arguments_reproduce_the_recorded_bits(op: str, path: str) -> None:
    """10000 < |x| < inf: the kernels' large-argument branch (csrc/vmath.h mkl_vml_sincosf_large)."""
    x = large_cases(op)
    assert bits_sha256(unary.forward(op, x, replace(GENERIC, blas=path))) == DIGEST_LARGE[path][op]


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("op", ["sin", "cos"])
def test_the_avx2_path_differs_from_the_generic_one_where_recorded(op: str, large: bool) -> None:
    """The AVX2 path's fused a*InvPi + shift rounds to another N there, its large-argument branch's fused steps give
    other last bits: a model of one path fails the other's bits."""
    bits = {"sin": (AVX2_SIN, AVX2_LARGE_SIN), "cos": (AVX2_COS, AVX2_LARGE_COS)}[op][large]
    x = np.array(bits, np.uint32).view(np.float32)
    x = np.concatenate([x, -x])
    avx2 = unary.forward(op, x, replace(GENERIC, blas=MKL_AVX2)).view(np.uint32)
    assert np.all(avx2 != unary.forward(op, x, GENERIC).view(np.uint32))
    assert np.all(avx2 != unary.forward(op, x, replace(GENERIC, blas=MKL_SSE42)).view(np.uint32))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_special_inputs(op: str, path: str) -> None:
    x = np.array([row[0] for row in SPECIAL], np.uint32).view(np.float32)
    want = np.array([row[1 if op == "sin" else 2] for row in SPECIAL], np.uint32)
    got = unary.forward(op, x, replace(GENERIC, blas=path)).view(np.uint32)
    assert [hex(v) for v in got] == [hex(v) for v in want]


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_refuses_what_it_does_not_reproduce(op: str) -> None:
    with pytest.raises(ParityError, match=r"Intel SSE4\.2 and Intel AVX2 paths only"):
        unary.forward(op, np.array([1.0], np.float32), replace(GENERIC, blas=MKL_AVX512))
