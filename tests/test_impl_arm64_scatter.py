"""scatter_add, scatter_reduce, index_add, index_put, im2col/col2im and the index copies under the Linux arm64 profiles
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

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import scatter
from harness.impl.profiles import get_profile
from tests import arm64_index_arith_cases as arith
from tests import arm64_index_copy_cases as copies
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


# the index copies (tests/arm64_index_copy_cases.py): one digest on N1, V1 and V2 at 1 and 2 threads
# (emulated), and on x86 at default and avx2, 1 and 2 threads
COPIES = "d6db50831ff50dc05dbd172df5ebe75a2eacdb2111e9c4e8cd8faed39f40caa9"


@pytest.mark.parametrize("threads", [1, 2])
def test_index_copies_match_the_recording(threads: int) -> None:
    """The copies take no profile: the one digest every core and level gives."""
    assert copies.digest(copies.impl_outputs(case, threads) for case in copies.cases()) == COPIES


# the index ops that compute (tests/arm64_index_arith_cases.py, finite operands), per op: one digest on
# N1, V1 and V2 at 1 and 2 threads (emulated); x86 the same but index_add's alpha, whose 1-D loop aarch64
# GCC fuses (x86: the product rounded first) and whose add kernel the default x86 build does not
ARITH = {
    "scatter_reduce prod": "3754138f9096a23b96c923e0fdb94af848b05bcc0f1aa3d817e7ab63d66d178d",
    "expanded prod": "4d609e4b6b8da09c68455f9c10714f5b69e7b1eaf734cac803442edcd504179f",
    "index_reduce": "0c4713f4e42baa533c526705fcf3e19eae2b80984b52e251c5aaf9d24d00fd76",
    "index_add alpha": "4767f239af776e28daa50279c2abdccb2ccb9741b579b03ddc5e2fe8a166ca81",
}
ARITH_X86 = {
    "x86-avx2": {**ARITH, "index_add alpha": "0a56b0b987f3ab356e8965ecbe64e602718bb74860ac19499b87c49755888784"},
    "x86-baseline": {**ARITH, "index_add alpha": "e35b3f64c4292c7b368d8183d20de16cfa887e8eb3df26582a4aaa9c0a972592"},
}


@pytest.mark.parametrize(("profile_name", "threads"), [*sorted(DIGESTS), ("x86-avx2", 2), ("x86-baseline", 1)])
def test_index_arithmetic_matches_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    outs = [arith.impl_outputs(case, profile) for case in arith.cases()]
    got = {op: digest(iter([o[op] for o in outs])) for op in arith.OPS}
    assert got == ARITH_X86.get(profile_name, ARITH)


def test_non_finite_index_arithmetic_is_refused_on_arm64() -> None:
    x, nan = np.ones(3, np.float32), np.array([np.nan], np.float32)
    with pytest.raises(ParityError, match="non-finite operands or results on Linux arm64"):
        scatter.arm64_finite(get_profile("arm64-neon", 1), "index_reduce", x, x, nan)
    assert scatter.arm64_finite(get_profile("x86-avx2", 1), "index_reduce", x, x, nan) is x
