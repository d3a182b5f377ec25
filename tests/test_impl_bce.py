"""F.binary_cross_entropy and its backward (aten.binary_cross_entropy: differentiable binarisation's loss on
PP-OCRv5's sigmoid probability map) against torch 2.13.0's bits recorded on an AMD EPYC Zen 5:
tests/bce_cases.py's 24 cases (the loss, then the gradient), the same digest at default, avx2 and avx512 (Loss.cpp's
scalar lambda in its one x86 object: glibc's log1pf and logf, no level reaches it), one at 1 thread and another at 2
and 4 (the mean's cascade over 70,000 elements split between threads). No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from tests import bce_cases
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


def test_binary_cross_entropy_refuses_arm64_and_a_weight() -> None:
    case = bce_cases.cases()[0]
    with pytest.raises(ParityError, match="aarch64"):
        bce_cases.replay(case, get_profile("arm64-neon", 1))
    from harness.trace.impl_ops import REPLAYS

    operands = {"self": case["x"], "target": case["target"], "weight": np.ones_like(case["x"])}
    with pytest.raises(ParityError, match="weight"):
        REPLAYS["binary_cross_entropy"](operands, {"reduction": 1}, get_profile("x86-avx2", 1))
