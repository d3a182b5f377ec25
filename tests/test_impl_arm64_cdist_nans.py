"""_cdist_forward's NaNs under the Linux arm64 profiles, against torch 2.13.0's aarch64 wheel run under QEMU
(``python tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_cdist_nan_cases.py``, emulated Neoverse
N1, V2 and V1; 1 and 2 threads set with torch.set_num_threads in one process): the SHA-256 of torch's output bits
over 48 cases whose operands hold NaNs of several payloads, both signs, quiet and signalling (p = 0, 1, 2, inf,
1.5 and 3 in turn, m off the 4-lane blocks), the same at both thread counts. Torch-free.

What the recordings pin (csrc/nn.c cdist_pair_a64): FABD's and FSUB's NaN of x1 - x2 (a signalling operand
first, inf - inf +qNaN, FABD's sign cleared), the sum's first operand kept where two NaNs meet (FADDA's
accumulator on V1 and V2, the scalar FADD and FMADD), and N1's NEON blocks of 4 of p = 1 and 2 (and of p = 0 in
cdist_kernel_impl's own copy of the loop, below the grain) whose lanes 1 and 2 are added as term + sum: there the
term's NaN replaces the sum's.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import nn
from harness.impl.profiles import get_profile
from tests import arm64_cdist_nan_cases as cases
from tests.arm64_sampling_cases import ARM64_PROFILES, digest

# profile -> torch's digest over arm64_cdist_nan_cases' cdist_nans cases, at 1 and 2 threads alike
DIGESTS = {
    "arm64-neon": "5d09c7703181943853d04c096d171c06deadb19e2bd79b55924487d18037e06f",
    "arm64-sve128": "88357ef975d7aceac90176420cd387092fd8edb34a9e50977221375590128fc0",
    "arm64-sve256": "88357ef975d7aceac90176420cd387092fd8edb34a9e50977221375590128fc0",
}


# profile -> torch's digest over the cdist_backward_nans cases (p = 2), at 1, 2 and 4 threads alike
BACKWARD_DIGESTS = {
    "arm64-neon": "4e92737d4b974c241e61998f6abaa8c014c096ef60b731d225ca4e4651527c20",
    "arm64-sve128": "60317d24892310eced42868fed0c910cb542903712f392109bace3f53fb6fb7a",
    "arm64-sve256": "c6d4b3719b38006adea8cc7fc5eaf37325404bc787bacb47d0eb978d77dbe92e",
}


@pytest.mark.parametrize(("profile_name", "threads"), [("arm64-neon", 1), ("arm64-sve128", 2), ("arm64-sve256", 1)])
def test_cdist_backward_nans_at_p2_match_the_recording(profile_name: str, threads: int) -> None:
    """_cdist_backward at p = 2 of the NaN cases' operands and a gradient with NaNs: FSUB's, FMUL's (diff * grad
    in the NEON-typed objects, grad * diff in SVE256's), FDIV's and the sum's FADD's NaNs (the product's operands
    swapped fails it)."""
    profile = get_profile(profile_name, threads)
    outs = [[cases.impl_output("cdist_backward_nans", c, profile)] for c in cases.CASES["cdist_backward_nans"]()]
    assert digest(iter(outs)) == BACKWARD_DIGESTS[profile_name]


@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
@pytest.mark.parametrize("threads", cases.THREADS)
def test_cdist_nans_match_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    outs = [[cases.impl_output("cdist_nans", case, profile)] for case in cases.CASES["cdist_nans"]()]
    assert digest(iter(outs)) == DIGESTS[profile_name]


def test_n1_p0_nans_past_the_grain_are_refused() -> None:
    """N1's p = 0 in run_parallel_cdist's OpenMP body (2 outputs past the grain 32768 / (16 * 2048) = 1, at 2
    threads): its adds are not measured, a NaN distance refused; one thread takes cdist_kernel_impl's own loop."""
    x1 = np.ones((1, 2, 2048), np.float32)
    x1[0, 0, 5] = np.nan
    with pytest.raises(ParityError, match="not modelled"):
        nn.cdist(x1, x1[:, :1].copy(), 0.0, get_profile("arm64-neon", 2))
    assert np.isnan(nn.cdist(x1, x1[:, :1].copy(), 0.0, get_profile("arm64-neon", 1))[0, 0, 0])
