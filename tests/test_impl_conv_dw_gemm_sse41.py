"""harness.impl.conv_grouped's depthwise grad_weight through gemm:jit at SSE4.1 (NCHW) against torch's recorded
bits (torch 2.13.0 on an AMD EPYC Zen 5, ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41; ONEDNN_VERBOSE
named ``x64:gemm:jit`` for every backward_weights here).

init_conf decides the outer threading over all the groups (OH*OW / threads < 256), and bwd_weights_balance then
gives threads // groups threads each group's images, their sums added in order. A group's own configuration on
threads // groups threads keeps all its images on one thread where its pixels reach 256 a thread: the model did
so before, and gave other grad_weight bits in every case here (2 and 3 channels on 4 and 8 threads).

Inputs: x (N, C, H, W), w (C, 1, K, K), dy (N, C, OH, OW) from ``np.random.default_rng(seed)`` in that order,
standard normal float32, NCHW, stride 1, padding P, groups C, the bias counted; the digests are SHA-256 of
torch's grad_input, grad_weight and grad_bias as uint32 (C order).
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import conv_grouped
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# (N, C, H, W, K, P, seed, threads, (grad_input, grad_weight, grad_bias) SHA-256)
CASES = (
    (3, 3, 28, 21, 4, 2, 60, 8, (
        "cbb32bae27a47c3f5d8c84e09b4efac2c5fc4935aa603739ded1d46c0f3b8bba",
        "2bf0217e8c0771d0966fd144f7ee4d254c5e7329c0aee03752451db4da56049d",
        "b09420fdc02674b2e61a713f8f7d0d9aa7556a21ebb00b9804af880c7abdb4ec")),
    (4, 3, 20, 39, 7, 3, 61, 8, (
        "8fc7493e989d156c2a5416e551a0e71a00a4a5297796afb3207b9b8b2d46c03f",
        "d7524a203809086dac178ac0937c4d6027b3531263745dfbec10186a03cf1755",
        "f1e6eb4dc1525237c88661763da2448e610b7266c6053a16a9388105dca82d5f")),
    (3, 2, 30, 30, 5, 2, 62, 4, (
        "71aae60ea1f26c6e57c525719e2d9bff2970e78b935491ea4e5a6c2faf6cf5ce",
        "9eef3ee0814b19000d6b92d520f9958552e8b182ad615f77784594a6e447af08",
        "0ee9dc270ee59ec2f027bb5e3a876eabddec7f04ef0b394eb12c7e33117e1f4a")),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c[:4]} {c[4]}x{c[4]} t{c[7]}" for c in CASES])
def test_recorded_bits(case) -> None:
    n, c, h, w_, k, p, seed, threads, want = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((c, 1, k, k), dtype=np.float32)
    dy = rng.standard_normal((n, c, h + 2 * p - k + 1, w_ + 2 * p - k + 1), dtype=np.float32)
    profile = profile_for_capability("DEFAULT", threads, "x86_64")
    assert conv_grouped.path(x.shape, w.shape, (1, 1), (p, p), c, profile)[2] == conv_grouped.GEMM_JIT_SSE41_GROUPS
    got = conv_grouped.conv2d_backward(dy, x, w, (1, 1), (p, p), c, True, profile, (True,) * 3)
    assert [bits_sha256(g) for g in got] == list(want)
