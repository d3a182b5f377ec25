"""sin and cos under the Linux arm64 profiles (harness.impl.unary, csrc/vmath.h sleef_sinf_u10/sleef_cosf_u10), against
torch 2.13.0's aarch64 wheel run under QEMU (``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_sincos_cases.py``, emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with torch.set_num_threads in
one process): the SHA-256 of torch's output bits over each op's cases that the impl does not refuse, as recorded
there, and which cases it refuses. Torch-free.

What the recordings pin: SLEEF's u10 sinf/cosf (Sleef_sinf4_u10/cosf4_u10 in the NEON-typed objects of N1 and V2,
Sleef_sinfx_u10sve/cosfx_u10sve in V1's SVE256 one) on every element of vec::map, the tail included, their Cody-Waite
branch (|x| < 125): the same bits on every core and thread count, -0 kept by sin, subnormals not flushed. A tensor
holding |x| >= 125, an infinity or a NaN (SLEEF's Payne-Hanek branch for the whole vector) is refused. MKL's sin/cos
(the x86 profiles) must not give these bits.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from harness.impl.profiles import get_profile
from tests import arm64_sincos_cases as cases
from tests.arm64_sampling_cases import digest, recorded, replay_cases

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ("sin", "arm64-neon"): "6204caf343e08e0b55d1c5c56a04760a55d9e34ca0aa40332e928a14c856edd0",
    ("cos", "arm64-neon"): "7ec8205e114fbf0cc866f44e6ebaaafee922ee758bff1e397c9ad4bea484bbdf",
    ("sin", "arm64-sve128"): "6204caf343e08e0b55d1c5c56a04760a55d9e34ca0aa40332e928a14c856edd0",
    ("cos", "arm64-sve128"): "7ec8205e114fbf0cc866f44e6ebaaafee922ee758bff1e397c9ad4bea484bbdf",
    ("sin", "arm64-sve256"): "6204caf343e08e0b55d1c5c56a04760a55d9e34ca0aa40332e928a14c856edd0",
    ("cos", "arm64-sve256"): "7ec8205e114fbf0cc866f44e6ebaaafee922ee758bff1e397c9ad4bea484bbdf",
}
# the cases holding NaNs, infinities or |x| >= 125: refused on every core
PROFILES = ("arm64-neon", "arm64-sve128", "arm64-sve256")
REFUSED = {(op, name): (3, 7, 11, 15, 19, 23) for op in cases.OPS for name in PROFILES}
CASES = [(op, name, threads) for op in cases.OPS for name in PROFILES for threads in (1, 2, 4)]


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    outputs, refused = replay_cases(
        cases.CASES[op](), partial(cases.impl_output, op), get_profile(profile_name, threads)
    )
    expected, expected_refused = recorded(DIGESTS, REFUSED, (op, profile_name), threads)
    assert refused == expected_refused
    assert digest(iter(outputs)) == expected


@pytest.mark.parametrize("op", cases.OPS)
def test_x86_mkl_does_not_give_the_arm64_bits(op: str) -> None:
    """MKL VML's sin/cos (x86, its generic path) over the cases the arm64 profiles replay: other bits."""
    arm, x86 = get_profile("arm64-neon"), get_profile("x86-avx2")
    differ = 0
    for j, case in enumerate(cases.CASES[op]()):
        if j not in REFUSED[(op, "arm64-neon")]:
            a, b = cases.impl_output(op, case, arm), cases.impl_output(op, case, x86)
            differ += int((a.view(np.uint32) != b.view(np.uint32)).sum())
    assert differ > 0
