"""pow.Tensor_Scalar of an integer or bool tensor to a float's power (LightGlue's ``int64 hidden size ** 0.25``):
the common dtype is float32, TensorIterator casts the base to it, and the float kernel runs (its special cases
0.5, -0.5, 2 and the others among them). The digests (SHA-256 of the float32 output's bit patterns) are torch
2.13.0's, recorded at avx2 on 1 and 4 threads on a Zen 5 (70,001 elements ** 7.3: other bits on 4 threads, whose
grain chunks end their vector runs elsewhere). No torch here."""

from __future__ import annotations

import numpy as np
import pytest
from bit_digest import bits_sha256

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from harness.trace.impl_ops import REPLAYS

# (dtype, shape, largest magnitude, exponent)
CASES = (
    ("int64", (), 16, 0.25),
    ("int64", (1001,), 2**40, 0.25),
    ("int32", (2, 17), 2**31 - 1, 1.5),
    ("int32", (70001,), 1000, 7.3),
    ("uint8", (100,), 255, 2.0),
    ("uint8", (33,), 255, -2.0),
    ("bool", (40,), 1, 0.5),
    ("int64", (9,), 2**30, -0.5),
    ("int32", (15,), 50, 1.0),
)

DIGESTS = {
    (0, 1): "9526e7a133043f3688c11b9b828511833527e2fbc9c0bae3392f11a0761accce",
    (0, 4): "9526e7a133043f3688c11b9b828511833527e2fbc9c0bae3392f11a0761accce",
    (1, 1): "079c2ed326e0ff86eb7d68f5b6e2a82ab192d4fdc8d12c7f50673ac67919d372",
    (1, 4): "079c2ed326e0ff86eb7d68f5b6e2a82ab192d4fdc8d12c7f50673ac67919d372",
    (2, 1): "9941512c728a8ff0d1fb0d0552c225309b9d2865caf1dead1b4dd526ef20fe6f",
    (2, 4): "9941512c728a8ff0d1fb0d0552c225309b9d2865caf1dead1b4dd526ef20fe6f",
    (3, 1): "636baf909677fee9559ef821effc9f9b9e7584d1092eced60c0e827c58055b9b",
    (3, 4): "f267c1404b13051cdfaa62efdd954416edeb154599e8c290b3a6e3e1b974a0ef",
    (4, 1): "6f018bdd438efe66668405f5bb749b927cb9a3863bb2ac7fc48d911b46a78e22",
    (4, 4): "6f018bdd438efe66668405f5bb749b927cb9a3863bb2ac7fc48d911b46a78e22",
    (5, 1): "9c9b1b030042b6cdbaa3ab27be48c48ef33298ddedd8df4b3763faf72e255c83",
    (5, 4): "9c9b1b030042b6cdbaa3ab27be48c48ef33298ddedd8df4b3763faf72e255c83",
    (6, 1): "1e7f0e7b9750e1ed583b0f46c562abac571f64e79d629bacef5cdaaa8874e0b5",
    (6, 4): "1e7f0e7b9750e1ed583b0f46c562abac571f64e79d629bacef5cdaaa8874e0b5",
    (7, 1): "4b921adea26593b49ff29b01e41eaefb11b59d6ef2e6dc4f0c9fc2bb5bf99ea4",
    (7, 4): "4b921adea26593b49ff29b01e41eaefb11b59d6ef2e6dc4f0c9fc2bb5bf99ea4",
    (8, 1): "9e8fc713b44b64c7cfa2ebab5f3de3bda0b08feb3fa96eccc8faaeb02586ab1a",
    (8, 4): "9e8fc713b44b64c7cfa2ebab5f3de3bda0b08feb3fa96eccc8faaeb02586ab1a",
}


def base(i: int) -> np.ndarray:
    dtype, shape, top, _ = CASES[i]
    rng = np.random.default_rng(i)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    low = 0 if dtype == "uint8" else -top
    return np.asarray(rng.integers(low, top, size=shape, endpoint=True), dtype=dtype)


@pytest.mark.parametrize("threads", (1, 4))
@pytest.mark.parametrize("i", range(len(CASES)))
def test_integer_base_to_a_float_power_matches_torch(i: int, threads: int) -> None:
    profile = profile_for_platform(f"linux-x86_64-avx2-t{threads}")
    out = REPLAYS["pow"]({"self": base(i)}, {"exponent": CASES[i][3]}, profile)["out"]
    assert out.dtype == np.float32 and bits_sha256(out) == DIGESTS[(i, threads)]


def test_an_integer_base_cast_channels_last_3d_is_refused() -> None:
    """TensorIterator's cast keeps a dense operand's strides and makes a strided one contiguous (tests/
    test_impl_pow_dtypes.py measures both against torch); a 5-D one that suggests channels-last-3d is refused."""
    x = np.arange(2 * 3 * 2 * 2 * 2, dtype=np.int64).reshape(2, 3, 2, 2, 2)
    with pytest.raises(ParityError, match="channels-last-3d"):
        REPLAYS["pow"](
            {"self": x},
            {"exponent": 0.25, "self.stride": [48, 1, 12, 6, 3]},
            profile_for_platform("linux-x86_64-avx2-t1"),
        )
