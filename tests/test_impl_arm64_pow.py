"""pow.Tensor_Scalar with an exponent PowKernel.cpp has no special case for, under the Linux arm64 profiles
(harness.impl.unary.pow_scalar_forward), against torch 2.13.0's aarch64 wheel run under QEMU
(tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2; 1 and 2 threads set with torch.set_num_threads
in one process): the SHA-256 of every output's uint32 bits over the cases of tests/arm64_pow_cases.py, as
recorded there. Torch-free.

What the recording pins: the vector lanes are SLEEF's advsimd (N1, V2) and SVE (V1) powf with the bits of
the x86 avx2 object's (sleef_powf_u10), in blocks of 2 x 4 or 2 x 8 lanes; each thread's scalar tail (and
every element of a strided operand) is aarch64 glibc's double pow of the float and the exponent as a double,
rounded to float (pow_tail: the same proof as on x86), whose invalid answer (a negative x, y not an integer)
is aarch64's default NaN, +qNaN 0x7fc00000, not x86's 0xffc00000.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl.profiles import get_profile
from harness.impl.unary import pow_tail
from tests.arm64_pow_cases import cases, digest, impl_outputs

# (profile, threads) -> the digest torch gave on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1): "0241b553661968af733d6319def216f9076ae885d437213352c38814f6978e99",
    ("arm64-neon", 2): "e52c40d1836842c6040cdfb4f4f500e9941807d3b71d5ab757c166d1c89f61ad",
    ("arm64-sve128", 1): "0241b553661968af733d6319def216f9076ae885d437213352c38814f6978e99",
    ("arm64-sve128", 2): "e52c40d1836842c6040cdfb4f4f500e9941807d3b71d5ab757c166d1c89f61ad",
    ("arm64-sve256", 1): "b2fa7c0de7ba25a8eaf2f4fa2d33600fb9bc27d54fa916c5b6784209e8db33b6",
    ("arm64-sve256", 2): "d67370f6f091d2f71641cd50b4d4022dc83c3a07160503d42a828ac83ad66914",
}


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_impl_matches_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert digest(impl_outputs(case, profile) for case in cases()) == DIGESTS[profile_name, threads]


def test_the_recordings_tell_the_builds_threads_and_x86_apart() -> None:
    """V1's blocks of 16 lanes leave other tails than N1's of 8 (the tail takes the exponent as a double:
    other bits), 2 threads move the tails of the cases past the grain, and the x86 avx2 profile's tails
    answer x86's default NaN, so no test above passes by a shared fallback."""
    for (name, threads), value in DIGESTS.items():
        assert value != DIGESTS[name, 3 - threads]
        x86 = get_profile("x86-avx2", threads)
        assert digest(impl_outputs(case, x86) for case in cases()) != value
    for threads in (1, 2):
        assert DIGESTS["arm64-neon", threads] != DIGESTS["arm64-sve256", threads]


def test_the_aarch64_tail_answers_its_default_nan() -> None:
    """glibc's (x - x) / (x - x) for a negative x and a non-integer y: +qNaN on aarch64, -qNaN on x86."""
    x = np.float32([-3.5, -1e-40, -np.inf, -2.0])
    for aarch64, nan in ((True, 0x7FC00000), (False, 0xFFC00000)):
        values, proven = pow_tail(x, 0.3, aarch64)
        assert proven.all()
        assert values.view(np.uint32).tolist() == [nan, nan, 0x7F800000, nan]
