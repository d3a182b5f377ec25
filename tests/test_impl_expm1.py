"""harness.impl.unary.forward("expm1") against torch's recorded bits (torch 2.13.0+cpu on an AMD Zen 3,
ATEN_CPU_CAPABILITY default or avx2, 1 thread, and on an AMD EPYC Zen 5 at avx512, whose AVX-512
object's SLEEF variant gives the avx2 bits; the bits do not depend on threads or layout).

ATen maps Vectorized<float>::expm1 over every element (vml::vexpm1, MKL's Expm1 kept off, no scalar
tail): SLEEF's Sleef_expm1f8_u10 in the AVX2 object (vmath.h sleef_expm1f_u10: expk2f(x) - 1 in
double-float, +inf above 88.72283172607421875, -1 below -16.635532), std::expm1 = glibc 2.36's
expm1f in the default one (glibc_expm1f: fdlibm's float code). Inputs: every region of both (tiny
|x| and subnormals, fdlibm's 2^-25 and ln2/2 and 1.5 ln2 bounds, the reduction's k range, SLEEF's
bounds and both sides of them, the overflow edge, large negatives, infinities, NaNs, -0), 915
floats in one tensor (off the vector width). Digests: SHA-256 of torch's output as uint32."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import unary
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256
from tests.test_impl_lgamma import SPECIALS, _near


def _inputs() -> np.ndarray:
    r = np.random.default_rng(2607)
    sign = r.choice([-1.0, 1.0], 600)
    parts = [
        SPECIALS.view(np.float32),
        10.0 ** r.uniform(-45.5, -7, 100) * sign[:100],  # tiny |x|, subnormals: x itself (glibc), 2-term sum
        _near([2.0**-25, -(2.0**-25), 0.34657359, -0.34657359, 1.0397208, -1.0397208], 3),  # fdlibm's bounds
        10.0 ** r.uniform(-7, 0.3, 200) * sign[100:300],
        r.uniform(-17, 89, 300),  # every k of the reduction
        _near([88.72283172607421875, 88.7216796875, -16.635532333438687, 27 * 0.6931472], 3),  # the bounds
        r.uniform(-104, -16, 100),  # SLEEF: -1; glibc: -1 past 27 ln2
        -(10.0 ** r.uniform(2, 38.5, 50)),
        10.0 ** r.uniform(1.9, 38.5, 50),  # overflow: +inf
        _near([1.0, -1.0, 0.5, -0.5, 0.25, -0.25], 2),
    ]
    return np.concatenate([np.asarray(p, np.float32) for p in parts])


# capability -> SHA-256 of torch.expm1(_inputs()) as uint32
RECORDED = {
    "DEFAULT": "bb00084406a62dcfc2d6348eaa4eedc049a4083b7fd018a7c6acf560bdfdd91d",
    "AVX2": "28d5378ca1ab1a3e1ce41a51cc425e25415b778d5ea678ed141fe4caf6d795ec",
    "AVX512": "28d5378ca1ab1a3e1ce41a51cc425e25415b778d5ea678ed141fe4caf6d795ec",  # on an AMD EPYC Zen 5
}


def test_inputs_are_the_recorded_ones() -> None:
    x = _inputs()
    assert x.size == 915
    assert bits_sha256(x) == "6455161afdb973adae0980669f07316cb0b7358438e9bae4d0e7e886aefb5d1a"


@pytest.mark.parametrize("capability", sorted(RECORDED))
@pytest.mark.parametrize("threads", [1, 2])
def test_recorded_bits(capability: str, threads: int) -> None:
    x, profile = _inputs(), profile_for_capability(capability, threads)
    assert bits_sha256(unary.forward("expm1", x, profile)) == RECORDED[capability]
    # one element at a time: the same lanes (every element a vector lane, no scalar tail)
    one_by_one = np.concatenate([unary.forward("expm1", x[i : i + 1], profile) for i in range(40)])
    assert bits_sha256(one_by_one) == bits_sha256(unary.forward("expm1", x[:40], profile))


def test_the_levels_differ_and_the_edges_hold() -> None:
    x = _inputs()
    default = unary.forward("expm1", x, profile_for_capability("DEFAULT", 1)).view(np.uint32)
    avx2 = unary.forward("expm1", x, profile_for_capability("AVX2", 1)).view(np.uint32)
    assert (default != avx2).sum() == 48  # SLEEF's double-float exp against fdlibm's expm1f (torch: the same 48)
    nan = SPECIALS[(SPECIALS & 0x7FFFFFFF) > 0x7F800000]
    for out in (default, avx2):
        assert (out[: SPECIALS.size][np.isin(SPECIALS, nan)] == (nan | 0x00400000)).all()  # NaNs: x quieted
        assert list(out[[0, 1, 7, 8]]) == [0x7F800000, 0xBF800000, 0, 0x80000000]  # inf, -inf: -1, +-0 kept
    # SLEEF's +inf bound: 88.72283172607421875 is finite, the next float up +inf
    edge = np.array([0x42B17217, 0x42B17218], np.uint32).view(np.float32)
    got = unary.forward("expm1", edge, profile_for_capability("AVX2", 1)).view(np.uint32)
    assert got[0] < 0x7F800000 and got[1] == 0x7F800000
