"""``pow.Scalar`` of a number to a float64 exponent tensor (RT-DETR's and D-FINE's sine position embeddings,
``10000 ** (arange(d) / d)`` in float64): pow_tensor_tensor_kernel's vector lanes, SLEEF's double pow
(Sleef_powd4_u10 at avx2, Sleef_powd8_u10 at avx512: csrc/dmath.h sleef_pow_d), replayed through the trace's
``aten.pow.Scalar``. The digests (SHA-256 of the output's bytes) are torch 2.13.0's, recorded at avx2 and
avx512 on 1 and 4 threads on a Zen 5 (the same bytes at both levels). Elements in glibc's pow (a run's scalar
tail; every element of the default build): tests/test_impl_glibc_pow.py. No torch here."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.impl.profiles import profile_for_platform
from harness.trace.impl_ops import replay

# NaNs of both signs (quiet and signalling), infinities, -0, 0, 1, a negative subnormal
SPECIAL = np.array(
    [
        *(0x7FF8000000000123, 0xFFF8000000000456, 0x7FF0000000000789, 0xFFF0000000000AB1, 0x7FF0000000000000),
        *(0xFFF0000000000000, 0x8000000000000000, 0, 0x3FF0000000000000, 0x800FFFFFFFFFFFFF),
    ],
    np.uint64,
).view(np.float64)


def exponents(kind: str) -> np.ndarray:
    """The exponent tensors of the cases: RT-DETR's (d = 64), random ones of 6 grains (whole chunks of
    every thread count here) with specials, and a small one of integers and halves for signed bases."""
    rng = np.random.default_rng(2026)
    if kind == "rtdetr":
        return np.arange(64, dtype=np.float64) / 64
    if kind == "grains":
        e = rng.uniform(-80.0, 80.0, 6 * 32768)
        e[::97] = np.resize(SPECIAL, e[::97].size)
        return e
    e = np.concatenate([rng.integers(-40, 40, 2000) / 2.0, rng.uniform(-1100.0, 1100.0, 2048)])
    e[::31] = np.resize(SPECIAL, e[::31].size)
    return e


# (base, exponents, torch's output digest)
CASES = (
    (10000.0, "rtdetr", "47b2846736797e99917a644fc8f211c9a83240923e968090ea6882102f8e2cab"),
    (10000.0, "grains", "b0e7224ddfa9bd7c46c7992cd8903db78018265ac385dca97ab7ed752c56f6a4"),
    (0.5, "grains", "026b6c10ecf7752fc6cb62a9a9b3c0f5750b59200b91986ceaabcaa7c78a96d7"),
    (-3.0, "signed", "b95dff16c90cbe171e02704c0ddbbc97e19b2c254a07b20112974dfea01335c9"),
    (1e-300, "signed", "b561715eb2d63dc838551705294f02f7126c25b1cd7ab295996c8fefdd8e6395"),
    (float("nan"), "signed", "8d42dac77006119fa51449ab1cefe9a9b8dc61399e4742c1830a8a5cee46b859"),
    (0.0, "signed", "ee9c56bd7dcfc513d2f4e6ded0de7382e304ac0f9d16b1837b66f1e711e44f49"),
    (-0.0, "signed", "60b16a3b29f3ee073c83f1066b2bc0cf6743d5ddfe5b005d6626048a9eba78ef"),
    (float("-inf"), "signed", "ff7b9774d27847eab2e9b7599a718795e81452e824ccfc34b557563b9d932793"),
    (2.0, "signed", "f89eeb92776a3606eed9a65ab0fd21445e5bf95d5f26cc5e45dda9dac39ead81"),
)


def _replay(base: float, e: np.ndarray, platform: str) -> np.ndarray:
    args = [
        {"name": "self", "value": base},
        {"name": "exponent", "tensor": "exponent", "stride": [1], "shape": [e.size]},
    ]
    return replay("aten.pow.Scalar", {"exponent": e}, args, profile_for_platform(platform))["out"]


@pytest.mark.parametrize("platform", ("linux-x86_64-avx2-t1", "linux-x86_64-avx512-t4"))
@pytest.mark.parametrize("i", range(len(CASES)))
def test_float64_pow_scalar_matches_torch(i: int, platform: str) -> None:
    base, kind, digest = CASES[i]
    assert hashlib.sha256(_replay(base, exponents(kind), platform).tobytes()).hexdigest() == digest
