"""torch.linalg.vector_norm(x, 1, dims) of float32 (DBRX's router: its top-k weights over their 1-norm):
NormOneOps through binary_kernel_reduce (acc + |x| per output in the iterator's order; one output of
32768 elements or more split over the threads, the threads' sums added in order), replayed through the
trace's linalg_vector_norm replay with each case's layout. The digests are torch 2.13.0's outputs,
recorded at default, avx2 and avx512 on 1, 2 and 4 threads on a Zen 5 (the same bits at every level;
the threads part the single large outputs), and the same digests on emulated Neoverse N1, V1 and V2 (no
multiply to fuse). No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile, profile_for_platform
from harness.trace.impl_ops import REPLAYS
from tests.bit_digest import bits_sha256

SPECIAL = np.array([0xFFC54321, 0x7F800000, 0xFF800000, 0x00000001, 0x807FFFFF, 0x80000000], np.uint32).view(
    np.float32
)  # -NaN (one pattern), infinities, subnormals, -0

# (shape, reduced dims, keepdim, storage order of the dims, specials)
CASES = (
    ((64, 2), [-1], True, (0, 1), False),  # DBRX's top-2 weights
    ((5, 37), [1], False, (1, 0), False),
    ((9, 17, 3), [0, 2], True, (2, 0, 1), True),
    ((33, 17), [0], False, (0, 1), True),
    ((70001,), None, False, (0,), False),
    ((32769,), None, False, (0,), True),
    ((3, 70000), [1], False, (0, 1), False),
    ((40000, 3), [0], True, (1, 0), False),
    ((2, 3, 6000), None, False, (2, 1, 0), False),
)


def case(i: int) -> tuple[np.ndarray, dict]:
    """Case i's values (in their logical order) and the replay's arguments (its layout's strides)."""
    shape, dims, keepdim, order, special = CASES[i]
    rng = np.random.default_rng(1000 + i)
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-3, 3))).astype(np.float32)
    if special:
        x.reshape(-1)[rng.integers(x.size, size=6)] = SPECIAL
    step, stride = 1, [0] * len(shape)
    for d in reversed(order):
        stride[d] = step
        step *= shape[d]
    return x, {"ord": 1.0, "dim": dims, "keepdim": keepdim, "self.stride": stride}


# case -> torch's output digest on 1, 2 and 4 threads
DIGESTS: dict[int, tuple[str, str, str]] = {
    0: ("1d70cb16001c314b9abcfe1c826e53611edd40e4279aa7d3df63637d7b835666",) * 3,
    1: ("80b8c5a55c7bed4798a132532ea15113b931d5de9d51b0edccb78f3900b4e536",) * 3,
    2: ("23544b8b0afcb59eae52786b377abd03d50a6cb42280d3b12282bfb793b8e13c",) * 3,
    3: ("9ac423898be37682469f579c735694fcf3bf3053405d4281ab8bf3f7c4ee2146",) * 3,
    4: (
        "8d6729819b0a7ce13363286cc8355b1a4a5d11d129eea7bd674b84e5110b569a",
        "94ddbd22d04af287a08b27b057ad43e91092dc2ec7d966f17f76224c7af5413b",
        "ff7c8b2bf23f9eb1e79ed2ce02ce05e9758b226fbc15f4725924f362cac374f4",
    ),
    5: ("0daf14df86efacd76c36013c791f4406cb6e7be46059e26d34c13eaf79a892cf",) * 3,
    6: ("6f084c37427ef0fa6e8be7ad5116edc1a215a485f09aefb5ae6e0c73952c3ed3",) * 3,
    7: ("d8bebe0da1d3d1336306be68ce8553aa37edbd4bf205e2ace97d37e57c382293",) * 3,
    8: ("48210b228b5e41d2fb3b2f222b94a0648eea7ca456290a1f4b932d0e0218c7e9",) * 3,
}


@pytest.mark.parametrize(
    "profile", ("x86-baseline", "x86-avx2", "x86-avx512", "arm64-neon", "arm64-sve128", "arm64-sve256")
)
@pytest.mark.parametrize("threads", (1, 2, 4))
@pytest.mark.parametrize("i", range(len(CASES)))
def test_one_norm_matches_torch(i: int, threads: int, profile: str) -> None:
    x, args = case(i)
    out = REPLAYS["linalg_vector_norm"]({"self": x}, args, get_profile(profile, threads))
    assert bits_sha256(out["out"]) == DIGESTS[i][(1, 2, 4).index(threads)]


def test_one_norm_of_two_nan_patterns_is_refused() -> None:
    x = np.ones((4, 8), np.float32)
    x[1, 2], x[1, 5] = np.uint32(0x7FC12345).view(np.float32), np.uint32(0x7FC54321).view(np.float32)
    with pytest.raises(ParityError, match="NaNs of 2 kinds"):
        REPLAYS["linalg_vector_norm"]({"self": x}, {"ord": 1, "dim": [1]}, profile_for_platform("linux-x86_64-avx2-t1"))


def test_other_orders_are_refused() -> None:
    with pytest.raises(ParityError, match="1- and 2-norm only"):
        REPLAYS["linalg_vector_norm"](
            {"self": np.ones(4, np.float32)}, {"ord": 3.0}, profile_for_platform("linux-x86_64-avx2-t1")
        )
