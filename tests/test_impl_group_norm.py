"""harness.impl.rows.group_norm and group_norm_backward against torch's recorded bits (torch 2.13.0 on an
AMD EPYC, ATEN_CPU_CAPABILITY default and avx2; aten.native_group_norm and its backward, eps 1e-5).

Inputs from ``np.random.default_rng(seed)``: x standard normal float32 times 2 plus 0.5, then (with
affine) the weight and the bias, then grad_output, all standard normal float32. The digest is one
SHA-256 over the uint32 bits of y, mean, rstd and grad_input (and grad_weight, grad_bias with affine).
"omp_vs_inline" at avx2 differs between 1 and 2 threads: GCC compiled the per-group tail loop twice, the
copy in the OpenMP region fused, the one inlined for a single thread partly vectorised.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.impl import rows
from harness.impl.profiles import profile_for_capability

# (name, N, C, G, H, W, affine, seed, {(capability, threads): digest})
CASES = (
    ("inline_tail4", 1, 12, 1, 9, 5, True, 11, {
        ("DEFAULT", 1): "2c90bfd03df06745af41f3c6f1c75d96915907042e539684babc762047cd873a",
        ("AVX2", 1): "f68a418bb8a03fe5dc0a811cf297cfc1964f1e73b00c4215b90de229bd1b63e2"}),
    ("omp_vs_inline", 3, 46, 2, 7, 15, True, 12, {
        ("DEFAULT", 2): "76f3bd37d3e1458c6b79cb32065caec699b18813ea53a11d583d4550896457b2",
        ("AVX2", 1): "6f41bfc4a22756fc253bdf6c89bca7478133c4b6e7099a3e522e6455c51793b3",
        ("AVX2", 2): "2041867976ac07be9ae4cd452e91dbef8989a00e2cab0df884a263dff445aea9"}),
    ("plain_257", 2, 6, 3, 1, 257, False, 13, {
        ("DEFAULT", 1): "a75ad2621624ba369d96dc18f41b7d94dc5c88c8d1fd900ce4f1d9326820f6ea",
        ("AVX2", 2): "890e36dec63821433ee61c89a6cfbf1eb23bf735ee273626715540ee4d64a2e2"}),
    ("one_group_t2_inline", 1, 23, 1, 10, 10, True, 14, {
        ("AVX2", 2): "c0488c67e49b3c8190fb0d2cd96e0f624c0677350f768fe26e4a433b11746c1d"}),
    ("big_cascade", 2, 64, 4, 17, 17, True, 15, {
        ("DEFAULT", 2): "741f1044cf367006134798adf746b4a169889a1a6e11a68bbccdb9dc8a430a03",
        ("AVX2", 1): "1975cc350ef6bf67f34a427a35a2888ea813f50c8997d4af0b5d2daa684b9434"}),
)  # fmt: skip

RUNS = [(case, cap, threads) for case in CASES for cap, threads in case[-1]]


@pytest.mark.parametrize(("case", "cap", "threads"), RUNS, ids=[f"{c[0]}-{cap}-t{t}" for c, cap, t in RUNS])
def test_recorded_bits(case, cap: str, threads: int) -> None:
    _name, n, c, g, h, w, affine, seed, digests = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w), dtype=np.float32) * np.float32(2) + np.float32(0.5)
    weight = rng.standard_normal(c, dtype=np.float32) if affine else None
    bias = rng.standard_normal(c, dtype=np.float32) if affine else None
    dy = rng.standard_normal((n, c, h, w), dtype=np.float32)
    profile = profile_for_capability(cap, threads, "x86_64")
    y, mean, rstd = rows.group_norm(x, weight, bias, g, 1e-5, profile)
    gx, gw, gb = rows.group_norm_backward(dy, x, mean, rstd, weight, g, profile)
    digest = hashlib.sha256()
    for a in [y, mean, rstd, gx] + ([gw, gb] if affine else []):
        digest.update(np.ascontiguousarray(a, np.float32).view(np.uint32).tobytes())
    assert digest.hexdigest() == digests[(cap, threads)]
