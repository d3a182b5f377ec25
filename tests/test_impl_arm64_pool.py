"""avg_pool2d / avg_pool3d and nearest / nearest-exact upsampling (forward and backward, through the trace
replays) under the Linux arm64 profiles, against torch 2.13.0's aarch64 wheel run under QEMU (``python
tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_pool_cases.py``, emulated Neoverse N1,
V1 and V2; 1 and 2 threads set with torch.set_num_threads in one process): the SHA-256 of every output's
uint32 bits over tests/arm64_pool_cases.py's cases, as recorded there. Torch-free.

What the recordings pin: average pooling is one set of bits on every core, thread count and x86 level
(sums and one division); nearest upsampling too, but for nearest-exact's generic forward, whose source
`scale*(i + 0.5) - 0.5` every aarch64 object contracts to an fma as x86's AVX2 object does (the cases
resize 2 -> 41, 47, 55, 83 and a 2-D (2, 3) -> (41, 100), where the x86 default build's two roundings read
another element).
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import KernelProfile, get_profile
from tests.arm64_pool_cases import OPS, cases, digest, impl_outputs

# the digests torch gave on N1 (arm64-neon), V1 (arm64-sve256) and V2 (arm64-sve128) at 1 and 2 threads:
# one per op, every core and thread count alike
AVG_POOL = "86b46da66079c66f898e79ecffadfed13ddc40731404415bd5a4990101e9243a"
NEAREST = "51e9f8e6bb1c1a4e021759c5c69c9702d0b5f2d1100fa99f5ff8234650142e6f"


def _bits(op: str, profile: KernelProfile) -> str:
    return digest(impl_outputs(op, case, profile) for case in cases(op))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("profile_name", ["arm64-neon", "arm64-sve128", "arm64-sve256"])
def test_every_core_and_thread_count_gives_the_recorded_bits(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert (_bits("avg_pool", profile), _bits("nearest", profile)) == (AVG_POOL, NEAREST)


def test_the_x86_default_build_does_not_give_the_arm64_nearest_bits() -> None:
    """The unfused source index (x86's default build) reads other elements in the cases' first four
    resizes; x86's AVX2 object gives the arm64 bits, and average pooling is the same everywhere."""
    assert OPS == ("avg_pool", "nearest")
    default, avx2 = get_profile("x86-baseline"), get_profile("x86-avx2", 2)
    assert _bits("nearest", default) != NEAREST and _bits("nearest", avx2) == NEAREST
    assert _bits("avg_pool", default) == _bits("avg_pool", avx2) == AVG_POOL
