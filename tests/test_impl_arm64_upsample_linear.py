"""ATen's generic linear upsampling kernels (upsample_linear1d, upsample_bilinear2d of a channels-first input
past OH + OW = 128, upsample_trilinear3d of a channels-first input) and the backwards of upsample_linear1d and
upsample_trilinear3d under the Linux arm64 profiles, through the trace's replays, against torch 2.13.0's
aarch64 wheel run under QEMU (tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2; 1, 2 and 4
threads set with torch.set_num_threads in one process): the SHA-256 of every output's uint32 bits over each
op's cases of tests/arm64_upsample_linear_cases.py, as recorded there. Torch-free.

What the recording pins: the nine recordings (three cores, three thread counts) gave one digest per op, so
every aarch64 object (DEFAULT, SVE128, SVE256) contracts each two-tap sum to fma(t0, w0, t1*w1) and each
backward update to fma(l, g, acc), as x86's AVX2 object does, each output element on its own; and the NaNs
of a third of the cases come out by aarch64's rules (the addend's NaN first, the positive default NaN of
inf*0), which x86's differ from.
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.arm64_sampling_cases import ARM64_PROFILES, digest
from tests.arm64_upsample_linear_cases import CASES, impl_output

# op -> the digest torch gave on Neoverse N1, V1 and V2 at 1, 2 and 4 threads alike
DIGESTS = {
    "linear1d": "c291b3757a2af9391ea1b2f7f0e7576381965662b994f208b2c4cf8daf5cc0c0",
    "linear1d_backward": "1fc3ca199f1ca1208913705170f630af225545c85171d93d07978b319cfb0cac",
    "bilinear2d": "2e9095a6418a4bf43b069cdfeb27528b2df99d79f272100945d659d87fd8197c",
    "trilinear3d": "52501491c70da9555f54137f25a92bd9aa8a9493b7656a045784aad802cb4bc5",
    "trilinear3d_backward": "80cc26c6b3d6af33384db752324f892dc2f9f06408d21187465aeee5b94aa660",
}


@pytest.mark.parametrize("op", sorted(DIGESTS))
@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_impl_matches_the_recording(profile_name: str, op: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert digest([impl_output(op, case, profile)] for case in CASES[op]()) == DIGESTS[op]


@pytest.mark.parametrize("op", sorted(DIGESTS))
def test_x86_nan_rules_give_other_bits(op: str) -> None:
    """The same contractions with x86's NaN choices (the AVX2 profile) miss every recording: the cases'
    NaNs reach the digests, so the tests above check aarch64's NaN rules and not only the roundings."""
    profile = get_profile("x86-avx2", 1)
    assert digest([impl_output(op, case, profile)] for case in CASES[op]()) != DIGESTS[op]
