"""torch.special.logit (aten.logit: Grounding DINO's inverse sigmoid of its reference points) against torch
2.13.0's bits recorded on an AMD EPYC Zen 5. tests/logit_cases.py's 40 cases (the SHA-256 digest of every output,
the same at default, avx2 and avx512 on 1, 2 and 4 threads: ATen's MKL path, the clamp and the ratio in float,
then MKL VML's vsLn on its generic path; a view of every second element ATen's basic loop, glibc's logf on every
element). tests/logit_strided_cases.py's 54 cases (sliced, transposed, broadcast and 3-d views, the input read as a
scalar, past the thread grain: ATen's vectorized loop, SLEEF's logf in the vector body at avx2 and avx512, glibc's
in the tails and at default), one digest per level and thread count. No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl.profiles import get_profile
from tests import logit_cases, logit_strided_cases
from tests.bit_digest import bits_sha256

DIGEST = "5a913ae53fe6981fe6989bb1b01664bdfa1a7ed2137413cf7d309ff0beb914b4"
STRIDED: dict[str, tuple[str, str, str]] = {  # profile -> the digest at 1, 2 and 4 threads
    "x86-baseline": ("79e7c9f1284fee51737a3deb2e505464aaebda1ae73a4da64ca15b5fd4512a4e",) * 3,
    "x86-avx2": (
        "3b7f9bfa0d7293e5eefd749a5d99c7dfa005f03894b17b86ba3013c8261f9d6b",
        "a176a774ed131b0434ccc00e65e1e188de93179b11e70381eb765baad9cacc5a",
        "1c24e41f4969b8036ce7d5f3908ac923c17300c676ff3e5767d8e3471d90b17d",
    ),
    "x86-avx512": (
        "d53547da2b58f212946c79c534173bd651e819e55f92495d545e863aa86d2d06",
        "264b60622fbb01fde35735c12c008bd8acc2000265c945d949b2a814985ebdb7",
        "8ce69e4e7f37f55f855b8ea2954561d1935fa6dd502242a27bdda8d55b1f5313",
    ),
}


@pytest.mark.parametrize(("name", "threads"), [("x86-baseline", 1), ("x86-avx512", 4)])
def test_logit_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = [logit_cases.replay(case, profile).ravel() for case in logit_cases.cases()]
    assert bits_sha256(np.concatenate(outs)) == DIGEST


@pytest.mark.parametrize("name", sorted(STRIDED))
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_logit_in_atens_vectorized_loop(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = [logit_strided_cases.replay(case, profile).ravel() for case in logit_strided_cases.cases()]
    assert bits_sha256(np.concatenate(outs)) == STRIDED[name][(1, 2, 4).index(threads)]
