"""aten._upsample_bilinear2d_aa and its backward (F.interpolate(mode="bilinear", antialias=True): SigLIP 2's
position embeddings resized to each image's patch grid) against torch 2.13.0's bits recorded on an AMD EPYC Zen 5
(SHA-256 digests over tests/upsample_bilinear_aa_cases.py's 60 cases, at default, avx2 and avx512, the same at 1,
2 and 4 threads): the default object rounds every step, the AVX2 object (avx2 and avx512) fuses each sum's
scalar epilogue and the backward's updates. No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.nn import upsample_bilinear2d_aa
from harness.impl.profiles import get_profile
from tests.bit_digest import bits_sha256
from tests.upsample_bilinear_aa_cases import cases, impl_output

NON_FINITE = (4, 9, 14, 19, 24, 29, 34, 39, 44, 49, 54, 59)  # NaNs or infinities: refused
REFUSED = {"forward": (1, *NON_FINITE[:8], 43, *NON_FINITE[8:]), "backward": NON_FINITE}  # 1, 43: width 1, strided
FUSED = {
    "forward": "379a74fe1aa4cfc7548c4f42eb5ebcd55267d937f08ffc339f688bc47a6e6307",
    "backward": "ed530f06aa2c4e7bb1bb4766ede0911f21eaada73f62b382cf2a3917a0d7711b",
}
DIGESTS = {
    "x86-baseline": {
        "forward": "382531a0451d9e557d24c9ac5a91586defc042faa067410ad5b55476e9a73d0c",
        "backward": "d3fa8f3f72754698ab13ed2b9f092f7ae8dacfd6d947bc1079a5b7fea4b027bd",
    },
    "x86-avx2": FUSED,
    "x86-avx512": FUSED,
}


@pytest.fixture(scope="module")
def every() -> list[dict]:
    return cases()


@pytest.mark.parametrize("op", ["forward", "backward"])
@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("name", sorted(DIGESTS))
def test_bilinear_aa_reproduces_the_recorded_bits(every: list[dict], name: str, threads: int, op: str) -> None:
    profile = get_profile(name, threads)
    outs, refused = [], []
    for j, case in enumerate(every):
        try:
            outs.append(impl_output(op, case, profile).ravel())
        except ParityError:
            refused.append(j)
    assert tuple(refused) == REFUSED[op]
    assert bits_sha256(np.concatenate(outs)) == DIGESTS[name][op]


def test_bilinear_aa_refuses_aarch64_and_non_finite_inputs() -> None:
    x = np.ones((1, 2, 4, 4), np.float32)
    assert upsample_bilinear2d_aa(x, (2, 7), False, get_profile("x86-avx2")).shape == (1, 2, 2, 7)
    with pytest.raises(ParityError, match="arm64 builds' antialiased bilinear"):
        upsample_bilinear2d_aa(x, (2, 7), False, get_profile("arm64-neon"))
    x[0, 1, 2, 3] = np.nan
    with pytest.raises(ParityError, match="NaN or infinity"):
        upsample_bilinear2d_aa(x, (2, 7), False, get_profile("x86-avx2"))
