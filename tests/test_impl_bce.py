"""F.binary_cross_entropy and its backward (aten.binary_cross_entropy: differentiable binarisation's loss on
PP-OCRv5's sigmoid probability map) against torch 2.13.0's bits recorded on an AMD EPYC Zen 5:
tests/bce_cases.py's 24 cases (the loss, then the gradient), the same digest at default, avx2 and avx512 (Loss.cpp's
scalar lambda in its one x86 object: glibc's log1pf and logf, no level reaches it), one at 1 thread and another at 2
and 4 (the mean's cascade over 70,000 elements split between threads); and on the Linux arm64 profiles against the
aarch64 wheel under QEMU (tests/arm64_bce_cases.py). No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from tests import arm64_bce_cases, bce_cases
from tests.arm64_sampling_cases import digest
from tests.bit_digest import bits_sha256

DIGESTS = {  # threads -> the digest at default, avx2 and avx512
    1: "ff3aaaebffc59179dcd7ab2020e8e950c6e88c76a4676e8972f9cf80fe0483bd",
    2: "e4f7bc5c597b3f125b8585c85f64fb565faebd76ba99909877cef1cad62e2abb",
    4: "e4f7bc5c597b3f125b8585c85f64fb565faebd76ba99909877cef1cad62e2abb",
}


@pytest.mark.parametrize(("name", "threads"), [("x86-baseline", 1), ("x86-avx2", 2), ("x86-avx512", 4)])
def test_binary_cross_entropy_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = [o.ravel() for case in bce_cases.cases() for o in bce_cases.replay(case, profile)]
    assert bits_sha256(np.concatenate(outs)) == DIGESTS[threads]


# (profile, threads) -> torch's digests over tests/arm64_bce_cases.py's ops (bce: the 24 cases above, loss then
# gradient; bce_backward: 32 NaN cases), recorded under emulation on N1, V2 and V1 at 1, 2 and 4 threads (N1's and
# V2's the same at all three, V1's mean at 1 thread its own)
ARM64 = {
    ("arm64-neon", 1): (
        "c07b7ad76231dcb7ec68dc1e313c5455bafc4b754c31eca4e168cad0571a2c39",
        "71bddb95047f088cb3e6faaa167643f1b5ea6de586f26e430634e66774681163",
    ),
    ("arm64-sve128", 4): (
        "c07b7ad76231dcb7ec68dc1e313c5455bafc4b754c31eca4e168cad0571a2c39",
        "71bddb95047f088cb3e6faaa167643f1b5ea6de586f26e430634e66774681163",
    ),
    ("arm64-sve256", 1): (
        "91faaae3c843e1b212779e922baf7f54c61de95e32b846d642711b5166990d31",
        "71bddb95047f088cb3e6faaa167643f1b5ea6de586f26e430634e66774681163",
    ),
    ("arm64-sve256", 2): (
        "0027c164a7d0096fad9aa6dd32e2ca6c9845797b2bfad8a6d71011522b485e44",
        "71bddb95047f088cb3e6faaa167643f1b5ea6de586f26e430634e66774681163",
    ),
}


@pytest.mark.parametrize(("name", "threads"), list(ARM64))
def test_binary_cross_entropy_on_arm64_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    """aarch64's Loss.cpp object: ``t * b`` fused into the difference (FMSUB) over aarch64 glibc's contracted
    log1pf; the backward's FSUB, FMUL and FDIV NaNs in the object's operand orders (the unfused forward or the
    product ``g * (x - t)`` fails it)."""
    profile = get_profile(name, threads)
    got = tuple(digest(iter([[arm64_bce_cases.impl_output(op, c, profile)] for c in arm64_bce_cases.CASES[op]()]))
                for op in arm64_bce_cases.OPS)  # fmt: skip
    assert got == ARM64[(name, threads)]


def test_binary_cross_entropy_refuses_a_weight() -> None:
    case = bce_cases.cases()[0]
    from harness.trace.impl_ops import REPLAYS

    operands = {"self": case["x"], "target": case["target"], "weight": np.ones_like(case["x"])}
    with pytest.raises(ParityError, match="weight"):
        REPLAYS["binary_cross_entropy"](operands, {"reduction": 1}, get_profile("x86-avx2", 1))
