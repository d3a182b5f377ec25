"""The flash op with head size 1 and several heads under the Linux arm64 profiles (NVPL's gemv with a
strided vector or output: csrc/nvpl_sgemm.h nvpl_gemv_strided), against torch 2.13.0's aarch64 wheel
run under QEMU (tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2, 1 thread; N1 at 2 threads
gave the same bits): the SHA-256 of every output's bits over the cases below, as recorded there.
Torch-free. The inputs are drawn here as the recording script drew them (one generator, case by case);
the cases with a one-row query block (which the impl refuses on NVPL) keep their place in the draws.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import attention
from harness.impl.profiles import get_profile

# (b, kv heads, group, L, S, causal, mask, scale, (B, L, H, D) layout); one_row: refused on NVPL
CASES = [
    (1, 2, 1, 8, 8, True, None, None, False),
    (1, 1, 2, 13, 13, True, None, None, False),
    (1, 2, 1, 13, 11, False, None, None, True),
    (1, 1, 4, 33, 33, True, None, None, True),  # one_row (refused, though exact when recorded)
    (2, 3, 1, 20, 37, False, "float", 0.3, False),
    (1, 2, 2, 65, 65, True, None, None, True),  # one_row
    (1, 1, 3, 1, 24, False, "where", 1.7, True),  # one_row
    (1, 3, 1, 40, 9, False, None, 0.25, False),
    (1, 1, 1, 30, 30, True, "float", 0.3, False),  # one head: not hashed
    (1, 2, 3, 50, 50, False, None, None, True),
    (2, 1, 2, 17, 17, True, "rows", 1.7, True),
    (1, 4, 1, 100, 100, True, None, None, False),
]
HASHED = [0, 1, 2, 4, 7, 9, 10, 11]
ONE_ROW = [3, 5, 6]
DIGESTS = {
    "arm64-neon": "27c9267da5ec7e6d4a97451ff2651913ca237ee29057f361de5fe345000ecfb2",
    "arm64-sve256": "510e1e1352000d5b86f147f5a1126e01a47ff71bc3af6e58e8a06ef2405a71f7",
    "arm64-sve128": "d99cb87dbd96136de66a493831f2f70f8abe51c19f73f0a929cbb2e4021b923c",
}


def _laid(x: np.ndarray, bnhd: bool) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3) if bnhd else x


def _inputs() -> list[tuple]:
    rng = np.random.default_rng(11)
    out = []
    for b, hk, group, lq, s, causal, mask, scale, bnhd in CASES:
        h = hk * group
        q, k, v, g = (
            rng.standard_normal(shape).astype(np.float32)
            for shape in [(b, h, lq, 1), *[(b, hk, s, 1)] * 2, (b, h, lq, 1)]
        )
        m = None
        if mask == "float":
            m = rng.standard_normal((lq, s)).astype(np.float32)
        elif mask == "where":
            m = np.where(rng.random((lq, s)) > 0.3, np.float32(0), np.float32(-np.inf)).astype(np.float32)
        elif mask == "rows":
            m = rng.standard_normal((lq, 1)).astype(np.float32)
        arrays = [_laid(x, bnhd) for x in (q, k, v, g)]
        out.append((arrays, attention.FlashCall(causal, m, scale)))
    return out


@pytest.mark.parametrize("profile_name", sorted(DIGESTS))
def test_nvpl_head_size_one_matches_the_recording(profile_name: str) -> None:
    profile = get_profile(profile_name, 1)
    inputs = _inputs()
    digest = hashlib.sha256()
    for i in HASHED:
        (q, k, v, g), call = inputs[i]
        saved = attention.sdpa_forward(q, k, v, profile, call)
        grads = attention.sdpa_backward(g, q, k, v, saved, profile, call)
        for x in (saved.out, saved.lse, *grads):
            digest.update(np.ascontiguousarray(x, np.float32).view(np.uint32).tobytes())
    assert digest.hexdigest() == DIGESTS[profile_name]


def test_nvpl_one_row_block_refused() -> None:
    """A one-row query block makes NVPL's single-output and K = 1 gemv forms, not modelled (cases 5
    and 6 differ on N1, V1 and V2): refused, forward too when v's rows are strided."""
    profile = get_profile("arm64-neon", 1)
    for i in ONE_ROW:
        (q, k, v, g), call = _inputs()[i]
        if v.strides[2] != v.itemsize:
            with pytest.raises(ParityError, match="one-row query or key block"):
                attention.sdpa_forward(q, k, v, profile, call)
            continue
        saved = attention.sdpa_forward(q, k, v, profile, call)
        with pytest.raises(ParityError, match="head size 1"):
            attention.sdpa_backward(g, q, k, v, saved, profile, call)
