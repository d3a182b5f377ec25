"""MKL VML's sin and cos (``torch.sin``/``torch.cos`` on x86, csrc/vmath.h mkl_vml_sinf/mkl_vml_cosf) on MKL's
generic path, against torch's bits recorded on an AMD EPYC Zen 5 (tests/vml_sincos_cases.py: the inputs whose
bits the polynomial's last bits decide, those next to k*pi and (k + 1/2)*pi where the float N matters, the tiny
ones, both signs), the special inputs measured there, and what the impl refuses. No torch, no recording."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, get_profile
from tests.vml_sincos_cases import REFUSED, cases, digest

GENERIC = get_profile("x86-avx512")

# SHA-256 of torch.sin/cos's output bits over cases(op), recorded with torch 2.13.0 on a Zen 5 (default, avx512)
DIGEST = {
    "sin": "740914dadfc97e471559a6a0b374a3bf8788d9799454668e3516f252671afcf0",
    "cos": "0ff6eab44c91e29c04288ba1b0a63c8fddcf628aef9997fd70f190ad265e8786",
}

# (input bits, sin bits, cos bits) measured there: signed zeros, subnormals, infinities, NaNs (quieted, sign and
# payload kept), the tiny-input thresholds, and the float N rule's example (cos 3279.823 = 1.0)
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


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_reproduces_the_recorded_bits(op: str) -> None:
    x = cases(op)
    assert digest(unary.forward(op, x, GENERIC)) == DIGEST[op]


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_special_inputs(op: str) -> None:
    x = np.array([row[0] for row in SPECIAL], np.uint32).view(np.float32)
    want = np.array([row[1 if op == "sin" else 2] for row in SPECIAL], np.uint32)
    got = unary.forward(op, x, GENERIC).view(np.uint32)
    assert [hex(v) for v in got] == [hex(v) for v in want]


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_vml_sincos_refuses_what_it_does_not_reproduce(op: str) -> None:
    for bits in REFUSED[op]:
        for sign in (0, 0x80000000):
            x = np.array([0.5, np.float32(np.array(bits | sign, np.uint32).view(np.float32))], np.float32)
            with pytest.raises(ParityError, match="within 8 double ULPs"):
                unary.forward(op, x, GENERIC)
    for big in (10000.001, -1e6, 3e38):
        with pytest.raises(ParityError, match=r"10000 < \|x\| < inf"):
            unary.forward(op, np.array([big], np.float32), GENERIC)
    for other in (replace(GENERIC, blas=MKL_AVX2), replace(GENERIC, blas=MKL_AVX512), get_profile("arm64-neon")):
        with pytest.raises(ParityError, match="generic path only"):
            unary.forward(op, np.array([1.0], np.float32), other)
