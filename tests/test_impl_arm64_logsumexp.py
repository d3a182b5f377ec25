"""logsumexp under the Linux arm64 profiles (harness.impl.reduce.logsumexp: ATen's amax, shift, exp_, sum,
log_ and add as the exp and sum rows reproduce them there), against torch 2.13.0's aarch64 wheel run under
QEMU (tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2; 1 and 2 threads set with
torch.set_num_threads in one process): the SHA-256 of every output's uint32 bits over the cases of
tests/arm64_logsumexp_cases.py, as recorded there. Torch-free.

What the recording pins: SLEEF's advsimd and SVE expf and logf (N1 and V2 alike, V1's SVE256 objects
their own) and the sum's thread split of a 70,001-element full reduction.
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.arm64_logsumexp_cases import cases, digest, impl_outputs

# (profile, threads) -> the digest torch gave on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1): "1346b0d2e1a18bd0de17ff2cf40020abeaa63172619fd11d072fed3da7f71ad4",
    ("arm64-neon", 2): "9021458e9ba135968af5d318f2d666a3f65d5251b58de9774f6806d4e1fb5dc7",
    ("arm64-sve128", 1): "1346b0d2e1a18bd0de17ff2cf40020abeaa63172619fd11d072fed3da7f71ad4",
    ("arm64-sve128", 2): "9021458e9ba135968af5d318f2d666a3f65d5251b58de9774f6806d4e1fb5dc7",
    ("arm64-sve256", 1): "6343ef82dedadaf0cd9e6e2da7a30e6dc1c997f39325d2ba7b4224aa8c7496e7",
    ("arm64-sve256", 2): "d6e81ec17f9308769dfe36fa97c98428ad9d141086bb6b5c5d2e7458c0c30766",
}


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_impl_matches_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert digest(impl_outputs(case, profile) for case in cases()) == DIGESTS[profile_name, threads]


def test_the_recordings_tell_the_builds_and_threads_apart() -> None:
    """V1's SVE256 objects give other bits than N1's, and 2 threads other bits than 1 (the split full sum),
    so no test above passes by a shared fallback."""
    for threads in (1, 2):
        assert DIGESTS["arm64-neon", threads] != DIGESTS["arm64-sve256", threads]
    for build in ("arm64-neon", "arm64-sve128", "arm64-sve256"):
        assert DIGESTS[build, 1] != DIGESTS[build, 2]
