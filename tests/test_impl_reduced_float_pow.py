"""pow.Tensor_Scalar of bfloat16 and float16 on x86 (harness.impl.unary.pow_bf16_scalar, pow_f16_scalar) against torch
2.13.0's bits recorded on an AMD EPYC Zen 5: tests/reduced_float_pow_cases.py's 56 cases, a digest per level and
thread count (the default build's alike on every thread count: each element rounds as c10's scalar types do; the
AVX2 and AVX-512 objects' vector bodies round a bfloat16 NaN to 0xFFFF and compute -0.5's rsqrt and powf otherwise
than the scalar tails, so the chunks and the 32- or 64-element bodies reach the bits). No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from harness.impl.unary import pow_bf16_scalar, pow_f16_scalar
from tests import reduced_float_pow_cases
from tests.bit_digest import bits_sha256

DIGESTS = {
    ("x86-baseline", 1): "59f90c2329c68f05df8abe6474d08400cfdf819fb2c5d5940cf866d02feb5657",
    ("x86-baseline", 2): "59f90c2329c68f05df8abe6474d08400cfdf819fb2c5d5940cf866d02feb5657",
    ("x86-baseline", 4): "59f90c2329c68f05df8abe6474d08400cfdf819fb2c5d5940cf866d02feb5657",
    ("x86-avx2", 1): "b5737b1f0c3b87053d963074adf2bc7eef475f4c49f9f7ccfb4eedbb66245c9c",
    ("x86-avx2", 2): "75e924c12f5392592446b8fb898a985e9228db67058393ff59b429122200bffe",
    ("x86-avx2", 4): "6c914a1e549d83f3cd34c11566031194528581d3dfdec7a32566610d24804165",
    ("x86-avx512", 1): "33a71ae86c9b62d3ae4b342887a942f588425cb4edf3514055c32a3a52602b3f",
    ("x86-avx512", 2): "63271be6968ab147e3dd3f447ebac965e45926455a55d42d3794323b602d29f7",
    ("x86-avx512", 4): "454514368fb881df8753af31f51641f71ddcd6f0eb50f249015d8ff6878dcb08",
}


@pytest.mark.parametrize(
    ("name", "threads"), [("x86-baseline", 4), ("x86-avx2", 1), ("x86-avx2", 4), ("x86-avx512", 2)]
)
def test_reduced_float_pow_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = [reduced_float_pow_cases.replay(case, profile) for case in reduced_float_pow_cases.cases()]
    assert bits_sha256(np.concatenate(outs).astype(np.float32)) == DIGESTS[(name, threads)]


def test_reduced_float_pow_refuses_arm64_and_an_exponent_past_the_dtype() -> None:
    x = np.array([0x3F80, 0x4000], np.uint16)
    with pytest.raises(ParityError, match="aarch64"):
        pow_bf16_scalar(x, 1.5, get_profile("arm64-neon", 1))
    with pytest.raises(ParityError, match="does not fit bfloat16"):
        pow_bf16_scalar(x, 1e39, get_profile("x86-avx2", 1))
    with pytest.raises(ParityError, match="aarch64"):
        pow_f16_scalar(x, 1.5, get_profile("arm64-sve256", 1))
    with pytest.raises(ParityError, match="does not fit float16"):
        pow_f16_scalar(x, 70000.0, get_profile("x86-baseline", 1))
