"""torch.special.logit (aten.logit) under the Linux arm64 profiles, against torch 2.13.0's aarch64 wheel run under
QEMU (``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/logit_strided_cases.py``, emulated
Neoverse N1, V2 and V1; 1, 2 and 4 threads set with torch.set_num_threads in one process): the SHA-256 of torch's
output bits over tests/logit_strided_cases.py's 54 cases, as recorded there. Torch-free.

What the recordings pin: no MKL on aarch64, so ATen's vectorized loop at every layout (contiguous and permuted
dense tensors too): SLEEF's advsimd logf (V1: its SVE logf) in the vector body, FMAX/FMIN's clamp there (a NaN eps
makes every lane NaN), aarch64 glibc's logf in the scalar tail and the basic loop, and aarch64's +qNaN where the
ratio is inf / -inf or negative."""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests import logit_strided_cases
from tests.arm64_sampling_cases import digest

# profile -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads
DIGESTS: dict[str, tuple[str, str, str]] = {
    "arm64-neon": ("b03216fceec8c2d3274f502ff9c49c42dcf6600de0990061f203a4c1e229d8d9",) * 3,
    "arm64-sve128": ("b03216fceec8c2d3274f502ff9c49c42dcf6600de0990061f203a4c1e229d8d9",) * 3,
    "arm64-sve256": (
        "8753721db3289dbde08a8f2346d712673f5179723743a03011fd3f5c736f3568",
        "8753721db3289dbde08a8f2346d712673f5179723743a03011fd3f5c736f3568",
        "b9438592a758277f865dac50fd1ea882dc37eaf4a0f7a5c28b05caf327b69bc8",
    ),
}


@pytest.mark.parametrize("name", sorted(DIGESTS))
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_logit_on_arm64(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = ([logit_strided_cases.replay(case, profile)] for case in logit_strided_cases.cases())
    assert digest(outs) == DIGESTS[name][(1, 2, 4).index(threads)]
