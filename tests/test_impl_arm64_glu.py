"""glu and its backward under the Linux arm64 profiles (harness.impl.nn.glu / glu_backward through the
trace's replays), against torch 2.13.0's aarch64 wheel run under QEMU (tools/emulate_arm64.py run,
emulated Neoverse N1, V1 and V2; 1 and 2 threads set with torch.set_num_threads in one process): the
SHA-256 of every output's uint32 bits over the cases of tests/arm64_glu_cases.py, as recorded there.
Torch-free.

What the recording pins: SLEEF's advsimd and SVE expf in the vector body (4 lanes on N1 and V2, 8 on V1,
whose bits are x86 AVX2's), aarch64 `expf` in the scalar tails, where 2 threads cut a run, and the
positive default NaN of `inf * 0` (x86's is negative).
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.arm64_glu_cases import cases, digest, impl_outputs

# (profile, threads) -> the digest torch gave on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1): "3686f14970ee19064d22f39a66f2272bbdb57165029a8e40a6c4be7874161960",
    ("arm64-neon", 2): "fa6e38aa51188bc61a53429de76b95c6721a48c5c35b5f7a3c0f073fdeab57e0",
    ("arm64-sve128", 1): "3686f14970ee19064d22f39a66f2272bbdb57165029a8e40a6c4be7874161960",
    ("arm64-sve128", 2): "fa6e38aa51188bc61a53429de76b95c6721a48c5c35b5f7a3c0f073fdeab57e0",
    ("arm64-sve256", 1): "b06c2f3a88340f859480ccb0dff35045df6845bb8fac5b1849223a451ef05ef0",
    ("arm64-sve256", 2): "327de18a180655b288b139d99c0e7268f5635b96ff308392493975bfd9650cbe",
}


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_impl_matches_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert digest(impl_outputs(case, profile) for case in cases()) == DIGESTS[profile_name, threads]


def test_the_recordings_tell_the_builds_and_threads_apart() -> None:
    """V1's 8-lane SVE256 vector body gives other bits than N1's 4 lanes, and 2 threads other bits than 1
    (a run cut mid-way gets a scalar tail), so no test above passes by a shared fallback."""
    for threads in (1, 2):
        assert DIGESTS["arm64-neon", threads] != DIGESTS["arm64-sve256", threads]
    for build in ("arm64-neon", "arm64-sve128", "arm64-sve256"):
        assert DIGESTS[build, 1] != DIGESTS[build, 2]
