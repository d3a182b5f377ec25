"""torch.special.logit (aten.logit: Grounding DINO's inverse sigmoid of its reference points) against torch
2.13.0's bits recorded on an AMD EPYC Zen 5 (the SHA-256 digest over tests/logit_cases.py's 40 cases, the same at
default, avx2 and avx512 on 1, 2 and 4 threads: ATen's MKL path, the clamp and the ratio in float, then MKL VML's
vsLn on its generic path). No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from tests.bit_digest import bits_sha256
from tests.logit_cases import cases, replay

DIGEST = "ec563e5c518267448b7b83a1d69c104ac53e04d4da087e14df1fc6c43b2d65a4"
REFUSED = (4, 9, 14, 19, 24, 29, 34, 39)  # strided views: ATen's vectorized loop


@pytest.mark.parametrize(("name", "threads"), [("x86-baseline", 1), ("x86-avx512", 4)])
def test_logit_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs, refused = [], []
    for j, case in enumerate(cases()):
        try:
            outs.append(replay(case, profile).ravel())
        except ParityError as e:
            assert "non-contiguous" in str(e)
            refused.append(j)
    assert tuple(refused) == REFUSED
    assert bits_sha256(np.concatenate(outs)) == DIGEST


def test_logit_on_aarch64_is_refused() -> None:
    with pytest.raises(ParityError, match="aarch64"):
        replay(cases()[0], get_profile("arm64-neon"))
