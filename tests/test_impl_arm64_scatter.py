"""scatter_add, scatter_reduce, index_add, index_put and im2col/col2im under the Linux arm64 profiles
(harness.impl.scatter: each element's terms in index order), against torch 2.13.0's aarch64 wheel run
under QEMU (tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2; 1 and 2 threads set with
torch.set_num_threads in one process): the SHA-256 of every output's uint32 bits over the cases of
tests/arm64_scatter_cases.py, as recorded there. Torch-free.

What the recording pins: the serial loop along dim and the expanded path's stable sort on every core
(no vector arithmetic but whole additions: the x86 bits, whatever the lanes), index_put below its
parallel grain, col2im's (kh, kw) order. Every core and thread count gave the one digest torch gives
on x86 (default and avx2, 1 and 2 threads), which the impl's serial order also gives; a reversed order
of the terms would not (tests/test_impl_live_scatter.py sees it: 193 of 200 sums differ).
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.arm64_scatter_cases import cases, digest, impl_outputs

# (profile, threads) -> the digest torch gave on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1): "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715",
    ("arm64-neon", 2): "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715",
    ("arm64-sve128", 1): "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715",
    ("arm64-sve128", 2): "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715",
    ("arm64-sve256", 1): "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715",
    ("arm64-sve256", 2): "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715",
}
# the same cases on x86 (torch 2.13.0+cpu, default and avx2, 1 and 2 threads: one digest)
X86 = "3cd97781363c82f918065f04d3304713a287ac538802b741302e0ebe3a8a1715"


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_impl_matches_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert digest(impl_outputs(case, profile) for case in cases()) == DIGESTS[profile_name, threads]


@pytest.mark.parametrize("profile_name", ["x86-avx2", "x86-baseline"])
def test_impl_matches_x86(profile_name: str) -> None:
    assert digest(impl_outputs(case, get_profile(profile_name, 1)) for case in cases()) == X86
