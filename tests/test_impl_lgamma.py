"""harness.impl.unary.forward("lgamma") against torch's recorded bits (torch 2.13.0+cpu on an AMD Zen 3,
ATEN_CPU_CAPABILITY default or avx2, 1 thread, and on an AMD EPYC Zen 5 at avx512, whose AVX-512
object's SLEEF variant gives the avx2 bits; the bits do not depend on threads or layout).

ATen maps Vectorized<float>::lgamma over every element (vml::vlgamma, no scalar tail): SLEEF's
Sleef_lgammaf8_u10 in the AVX2 object (vmath.h sleef_lgammaf_u10: gammafk's double-float series and
reflection, logk2f, sinpifk), std::lgamma = glibc 2.36's lgammaf in the default one (glibc_lgammaf:
fdlibm's float code, lgamma_negf on (-15, -2), glibc's FMA-build logf and sinf/cosf). Inputs: every
region of both (tiny |x|, around 1 and 2, the branch edges, negatives, poles and the zeros of lgamma,
large x up to overflow, infinities, NaNs, -0), 1,319 floats in one tensor (off the vector width).
Digests: SHA-256 of torch's output as uint32."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import unary
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

SPECIALS = np.array(
    [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FC12345, 0x00000000,
     0x80000000, 0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x80800000, 0x00000001, 0x80000001],
    np.uint32,
)  # fmt: skip


def _near(values, k: int) -> np.ndarray:
    """``values`` (float32) and their ``k`` float neighbours either side."""
    u = np.asarray(values, np.float32).view(np.int32)[:, None] + np.arange(-k, k + 1, dtype=np.int32)
    return u.ravel().view(np.float32)


def _inputs() -> np.ndarray:
    r = np.random.default_rng(2605)
    sign = r.choice([-1.0, 1.0], 800)
    parts = [
        SPECIALS.view(np.float32),
        10.0 ** r.uniform(-45.5, -20, 100) * sign[:100],  # tiny |x|, subnormals
        _near([1e-30, -1e-30, 2.0**-30, -(2.0**-30)], 3),  # SLEEF's and glibc's tiny bounds
        10.0 ** r.uniform(-20, -0.3, 100) * sign[100:200],
        1 + r.uniform(-1e-2, 1e-2, 50),
        2 + r.uniform(-1e-2, 1e-2, 50),
        _near([1.0, 2.0], 4),
        r.uniform(0, 10, 200),
        _near([0.5, 0.9, 0.73, 0.2316, 1.2, 1.23164, 1.4616321, 1.7316, 2.3, 7, 8], 2),
        r.uniform(-15, 0, 200),  # lgamma_negf on (-15, -2); SLEEF's reflection
        -np.arange(0, 21) + r.uniform(-1e-3, 1e-3, 21),  # near the poles
        _near(-np.arange(0.0, 21.0), 1),  # the poles and their neighbours
        _near([-2.4570, -2.7476, -3.1435, -3.9552, -4.0395, -4.9913, -5.0082], 2),  # near lgamma's zeros
        -(10.0 ** r.uniform(np.log10(15), np.log10(2.0**23), 150)),
        -(10.0 ** r.uniform(np.log10(2.0**23), 38.5, 20)),
        10.0 ** r.uniform(1, 38.53, 200),  # large x, overflow past ~4.08e36
        _near([4.0850e36, 2.0**26], 3),
    ]
    return np.concatenate([np.asarray(p, np.float32) for p in parts])


# capability -> SHA-256 of torch.lgamma(_inputs()) as uint32
RECORDED = {
    "DEFAULT": "8763f361f4ce6ca0e1cd48c826c37a30caa25f062e26850775a460b55829b206",
    "AVX2": "5c911ffb57ad98187624327614fefbb9b8902c6cad95ea4e354cdcc4804752cd",
    "AVX512": "5c911ffb57ad98187624327614fefbb9b8902c6cad95ea4e354cdcc4804752cd",  # on an AMD EPYC Zen 5
}


def test_inputs_are_the_recorded_ones() -> None:
    x = _inputs()
    assert x.size == 1319
    assert bits_sha256(x) == "669fa5c374ee2da0e69b939a9089f0aa567afd906b7c1383a9e35838c4aa793a"


@pytest.mark.parametrize("capability", sorted(RECORDED))
@pytest.mark.parametrize("threads", [1, 2])
def test_recorded_bits(capability: str, threads: int) -> None:
    x, profile = _inputs(), profile_for_capability(capability, threads)
    assert bits_sha256(unary.forward("lgamma", x, profile)) == RECORDED[capability]
    # one element at a time: the same lanes (every element a vector lane, no scalar tail)
    one_by_one = np.concatenate([unary.forward("lgamma", x[i : i + 1], profile) for i in range(40)])
    assert bits_sha256(one_by_one) == bits_sha256(unary.forward("lgamma", x[:40], profile))


def test_the_levels_differ_and_nans_pass_quieted() -> None:
    x = _inputs()
    default = unary.forward("lgamma", x, profile_for_capability("DEFAULT", 1)).view(np.uint32)
    avx2 = unary.forward("lgamma", x, profile_for_capability("AVX2", 1)).view(np.uint32)
    assert (default != avx2).sum() > 100  # SLEEF's double-float gamma against fdlibm's lgammaf
    nan = SPECIALS[(SPECIALS & 0x7FFFFFFF) > 0x7F800000]
    for out in (default, avx2):
        assert (out[: SPECIALS.size][np.isin(SPECIALS, nan)] == (nan | 0x00400000)).all()
        assert (out[:2] == 0x7F800000).all() and (out[7:9] == 0x7F800000).all()  # +-inf, +-0: +inf
