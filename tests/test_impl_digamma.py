"""harness.impl.unary.forward("digamma") against torch's recorded bits (torch 2.13.0+cpu on an AMD Zen 3,
ATEN_CPU_CAPABILITY default or avx2, 1 thread, and on an AMD EPYC Zen 5 at avx512, which runs the avx2
object: digamma_stub has no AVX-512 registration; the bits do not depend on threads or layout).

ATen's digamma_kernel runs calc_digamma (Math.h) per element: negatives reflected through pi / tan(pi r) in
double, 1/x subtracted up to x >= 10, then logf(x) - 0.5/x - z P(z) with z = 1/x^2 and P a Horner chain of 7
float coefficients, whose step p*z + c GCC contracted to an FMA in the AVX2 object and not in the default one.
Inputs: every region (tiny and huge x, around the root at 1.4616, the step to 10 and the asymptotic bound at
1e17, negatives and their poles, infinities, NaN payloads, both zeros), 1,037 floats in one tensor.
Digests: SHA-256 of torch's output as uint32 (recorded at each level and checked against the impl there)."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import get_profile, profile_for_capability
from tests.bit_digest import bits_sha256
from tests.test_impl_lgamma import SPECIALS, _near


def _inputs() -> np.ndarray:
    r = np.random.default_rng(3107)
    parts = [
        SPECIALS.view(np.float32),
        10.0 ** r.uniform(-45.5, -1, 100),  # tiny x, subnormals: ten steps of 1/x
        r.uniform(1.3, 1.6, 200),  # around the root, where the levels part most often
        _near([1.4616321, 1.513097, 9.0, 10.0, 11.0, 1e17], 3),
        np.abs(r.standard_normal(300) * 20) + 0.01,
        10.0 ** r.uniform(1, 38.5, 100),  # the series, then past 1e17 logf alone
        r.uniform(-30, 0, 200),  # the reflection
        _near(-np.arange(1.0, 11.0), 1),  # the poles (a NaN) and their neighbours
        -(10.0 ** r.uniform(1.5, 38.5, 50)),  # large negatives: integers past 2^23
    ]
    return np.concatenate([np.asarray(p, np.float32) for p in parts])


# capability -> SHA-256 of torch.digamma(_inputs()) as uint32
RECORDED = {
    "DEFAULT": "1f99d20a53aac2a890b34e7c23d1077f958bcb15c9229c173625618ba4c22bdf",
    "AVX2": "d075241fef0d3b856fb33f2f8046df3641d0e3feadfc1ff7a0676ad5a373e0bc",
    "AVX512": "d075241fef0d3b856fb33f2f8046df3641d0e3feadfc1ff7a0676ad5a373e0bc",  # on an AMD EPYC Zen 5
}


def test_inputs_are_the_recorded_ones() -> None:
    x = _inputs()
    assert x.size == 1037
    assert bits_sha256(x) == "05b8298eb656ea63d083b6a8cf7d6d1f5347aaf40da64e2b9d4757520614e98a"


@pytest.mark.parametrize("capability", sorted(RECORDED))
@pytest.mark.parametrize("threads", [1, 2])
def test_recorded_bits(capability: str, threads: int) -> None:
    x, profile = _inputs(), profile_for_capability(capability, threads)
    assert bits_sha256(unary.forward("digamma", x, profile)) == RECORDED[capability]
    one_by_one = np.concatenate([unary.forward("digamma", x[i : i + 1], profile) for i in range(40)])
    assert bits_sha256(one_by_one) == bits_sha256(unary.forward("digamma", x[:40], profile))


def test_the_levels_differ_by_the_contracted_horner_step_and_specials_are_ieee() -> None:
    x = _inputs()
    default = unary.forward("digamma", x, profile_for_capability("DEFAULT", 1)).view(np.uint32)
    avx2 = unary.forward("digamma", x, profile_for_capability("AVX2", 1)).view(np.uint32)
    assert 0 < (default != avx2).sum() < 50
    one = np.array([0x3FC1AD2A], np.uint32).view(np.float32)  # 1.513097: torch gives 0x3d475260 and 0x3d47525f
    assert unary.forward("digamma", one, profile_for_capability("DEFAULT", 1)).view(np.uint32)[0] == 0x3D475260
    assert unary.forward("digamma", one, profile_for_capability("AVX2", 1)).view(np.uint32)[0] == 0x3D47525F
    nan = SPECIALS[(SPECIALS & 0x7FFFFFFF) > 0x7F800000]
    for out in (default, avx2):
        assert (out[: SPECIALS.size][np.isin(SPECIALS, nan)] == (nan | 0x00400000)).all()
        assert out[0] == 0x7F800000 and out[1] == 0x7FC00000  # +inf; -inf a pole: the default NaN
        assert out[7] == 0xFF800000 and out[8] == 0x7F800000  # +0: -inf, -0: +inf


def test_the_unmeasured_builds_are_refused() -> None:
    with pytest.raises(ParityError, match="digamma is reproduced at the default, avx2, avx512 builds only, not neon"):
        unary.forward("digamma", np.ones(3, np.float32), get_profile("arm64-neon", 1))
