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


# op -> profile -> torch's digest over that op's cases (p = 1, inf, 1.5, 3), at 1 and 2 threads alike
BACKWARD_P_DIGESTS = {
    "cdist_backward_nans_p1": {
        "arm64-neon": "dc8507d0fddaf7548fcb0536955d86de85871cb93df65947298d9800b9539c77",
        "arm64-sve128": "dc8507d0fddaf7548fcb0536955d86de85871cb93df65947298d9800b9539c77",
        "arm64-sve256": "125e856604fac3c0e0a474298fe2cbda8fec725994af25efc3a781a1e47d7896",
    },
    "cdist_backward_nans_inf": {
        "arm64-neon": "df4617ff30f84d73fafcc313996a030b68226c160f3901aad8c6f33f2cb5cb05",
        "arm64-sve128": "df4617ff30f84d73fafcc313996a030b68226c160f3901aad8c6f33f2cb5cb05",
        "arm64-sve256": "7658e1b03c71da14b7c91cfc984fc9f4fc05dd96a59f414f9e1c81f975b32b6d",
    },
    "cdist_backward_nans_p1_5": {
        "arm64-neon": "ea691087272e0995252d451d5ad420527339013b0c840a4846e3997ef6245e04",
        "arm64-sve128": "ea691087272e0995252d451d5ad420527339013b0c840a4846e3997ef6245e04",
        "arm64-sve256": "a162087f8e2081ed8249366cf9d3770ea4d00c02eb93a2c28890535d5c751d9b",
    },
    "cdist_backward_nans_p3": {
        "arm64-neon": "db549d6a71bb1a274888c01aa3c50f0c07a9e877095d7a3c332acfdaff0615ff",
        "arm64-sve128": "db549d6a71bb1a274888c01aa3c50f0c07a9e877095d7a3c332acfdaff0615ff",
        "arm64-sve256": "db549d6a71bb1a274888c01aa3c50f0c07a9e877095d7a3c332acfdaff0615ff",
    },
}


@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
@pytest.mark.parametrize("op", cases.BACKWARD_OPS)
def test_cdist_backward_nans_of_other_p_match_the_recording(op: str, profile_name: str) -> None:
    """_cdist_backward at p = 1, inf, 1.5 and 3 of the NaN cases' operands and a gradient with NaNs: Dist::sign's
    FRINTP/FRINTM/FMAX/FMIN, p = 1's and inf's FMLA (V1: FMUL then FADD), inf's FABD, SLEEF powf's all-ones NaN
    and the pow branches' FMUL orders (lttdist: pow * sign, V1 sign * pow), FDIV and the sum's FADD."""
    profile = get_profile(profile_name, 2 if profile_name == "arm64-sve128" else 1)
    outs = [[cases.impl_output(op, c, profile)] for c in cases.CASES[op]()]
    assert digest(iter(outs)) == BACKWARD_P_DIGESTS[op][profile_name]


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
