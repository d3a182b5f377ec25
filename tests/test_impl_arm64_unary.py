"""log1p, lgamma, expm1 and softplus (forward and backward) under the Linux arm64 profiles (harness.impl.unary,
csrc/unary.c), against torch 2.13.0's aarch64 wheel run under QEMU (tools/emulate_arm64.py run, emulated
Neoverse N1, V1 and V2; 1 and 2 threads set with torch.set_num_threads in one process): the SHA-256 of
every output's uint32 bits over the cases below, as recorded there. Torch-free.

The cases are drawn here as the recording script drew them: lengths off the 4- and 8-lane vectors and
past the 32,768-element grain (two threads split those), values near 0 and over every magnitude, gamma's
poles and negative half-integers, seven NaN payloads (both signs, signalling ones), -1, +-0 and +-inf.
Softplus runs contiguous (SLEEF's advsimd or SVE expf and log1pf in the vector body, the C library in
each thread's tail) and strided (every element through the scalar loop: glibc's expf and aarch64's
contracted log1pf).

What the recording pins: SLEEF's aarch64 log1pf, lgammaf and expm1f give the x86 FMA build's bits; aarch64 glibc's
log1pf is contracted (the scalar softplus differs from the x86 C library's in about 1 element of 7,000);
lgamma of a NaN is the NaN quieted with its sign flipped in the NEON objects (N1, V2), not in V1's SVE one.
The x86 profiles must not give these bits.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.impl import unary
from harness.impl.profiles import get_profile
from tests.arm64_sampling_cases import place_specials

NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800001, 0x7FBFFFFF], np.uint32)
SPECIALS = np.concatenate([NANS.view(np.float32), np.float32([0.0, -0.0, -1.0, np.inf, -np.inf, 1e-30, -1e-30])])
# (op, length, seed, values, strided, beta, threshold); beta and threshold for softplus only
CASES = (
    ("log1p", 19, 1, "near", False, 0.0, 0.0),
    ("log1p", 4099, 2, "wide", False, 0.0, 0.0),
    ("log1p", 70001, 3, "near", False, 0.0, 0.0),
    ("lgamma", 33, 4, "gamma", False, 0.0, 0.0),
    ("lgamma", 4099, 5, "gamma", False, 0.0, 0.0),
    ("lgamma", 1000, 6, "wide", False, 0.0, 0.0),
    ("expm1", 33, 11, "near", False, 0.0, 0.0),
    ("expm1", 70001, 12, "wide", False, 0.0, 0.0),
    ("softplus", 70001, 7, "soft", False, 1.0, 20.0),
    ("softplus", 37, 8, "soft", False, 2.0, 10.0),
    ("softplus", 100000, 9, "soft", True, 1.0, 20.0),
    ("softplus", 30000, 10, "soft", True, 0.5, 20.0),
)


def inputs(length: int, seed: int, values: str) -> tuple[np.ndarray, np.ndarray]:
    """x and an upstream gradient of a case: ``values`` near (-1.5 to 6), wide (every magnitude, both
    signs), gamma (-12 to 40, with negative integers and half-integers) or soft (-25 to 25); the specials
    at the front, then a few more at random places."""
    rng = np.random.default_rng(seed)
    if values == "near":
        x = rng.uniform(-1.5, 6.0, length)
    elif values == "wide":
        x = np.exp(rng.uniform(-80.0, 88.0, length)) * rng.choice([-1.0, 1.0], length)
    elif values == "gamma":
        x = rng.uniform(-12.0, 40.0, length)
        pick = rng.integers(0, length, length // 8 + 1)
        x[pick] = np.round(x[pick] * 2.0) / 2.0
    else:
        x = rng.uniform(-25.0, 25.0, length)
    x = x.astype(np.float32)
    place_specials(x, SPECIALS, rng, 5)
    return x, rng.standard_normal(length).astype(np.float32)


def impl_digest(profile_name: str, threads: int) -> str:
    profile = get_profile(profile_name, threads)
    digest = hashlib.sha256()
    for op, length, seed, values, strided, beta, threshold in CASES:
        x, grad = inputs(length, seed, values)
        if op == "softplus":
            row = 1 if strided else None  # a strided view: TensorIterator's loop one element at a time
            outs = [
                unary.softplus_forward(x, beta, threshold, profile, row),
                unary.softplus_backward(grad, x, beta, threshold, profile, row),
            ]
        else:
            outs = [unary.forward(op, x, profile)]
        for out in outs:
            digest.update(np.ascontiguousarray(out, np.float32).view(np.uint32).tobytes())
    return digest.hexdigest()


# (profile, threads): torch's bits on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1): "19b8321f6fb5839a1d470549035bf425659f5f4925a9e3a572756e76bba30bb3",
    ("arm64-neon", 2): "f4c87c1ecadf6737b130f5f1bfd62ee406a55e6abaa85775910f7f489e3c2dda",
    ("arm64-sve128", 1): "19b8321f6fb5839a1d470549035bf425659f5f4925a9e3a572756e76bba30bb3",
    ("arm64-sve128", 2): "f4c87c1ecadf6737b130f5f1bfd62ee406a55e6abaa85775910f7f489e3c2dda",
    ("arm64-sve256", 1): "63379ea0023c938dde6c17c78133a14e03ba00ab06126b75d9d64edf1c66e5cd",
    ("arm64-sve256", 2): "c94aeb573987107781a77e595ad80c89772888ead9ccb04f1dbd2622e54b2cf1",
}


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_unary_ops_match_the_recording(profile_name: str, threads: int) -> None:
    assert impl_digest(profile_name, threads) == DIGESTS[profile_name, threads]


def test_the_recordings_tell_the_builds_and_threads_apart() -> None:
    """NEON (N1, V2) and SVE256 (V1) differ (lgamma's NaNs), and so do 1 and 2 threads on each (the
    threads' chunks move softplus's scalar tails, SLEEF's lanes against the C library's), so a test
    above cannot pass by a shared fallback."""
    for threads in (1, 2):
        assert DIGESTS["arm64-neon", threads] == DIGESTS["arm64-sve128", threads] != DIGESTS["arm64-sve256", threads]
    for build in ("arm64-neon", "arm64-sve128", "arm64-sve256"):
        assert DIGESTS[build, 1] != DIGESTS[build, 2]


@pytest.mark.parametrize("profile_name", ["x86-avx2", "x86-baseline"])
def test_x86_arithmetic_does_not_give_the_arm64_bits(profile_name: str) -> None:
    assert impl_digest(profile_name, 1) not in {DIGESTS["arm64-neon", 1], DIGESTS["arm64-sve256", 1]}
