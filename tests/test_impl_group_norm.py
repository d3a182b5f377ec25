"""harness.impl.rows.group_norm and group_norm_backward against torch's recorded bits (torch 2.13.0 on an
AMD EPYC, ATEN_CPU_CAPABILITY default and avx2; aten.native_group_norm and its backward, eps 1e-5).

Inputs from ``np.random.default_rng(seed)``: x standard normal float32 times 2 plus 0.5, then (with
affine) the weight and the bias, then grad_output, all standard normal float32. The digest is one
SHA-256 over the uint32 bits of y, mean, rstd and grad_input (and grad_weight, grad_bias with affine).
"omp_vs_inline" at avx2 differs between 1 and 2 threads: GCC compiled the per-group tail loop twice, the
copy in the OpenMP region fused, the one inlined for a single thread partly vectorised.

``CL_CASES``: the same on channels-last inputs (``x.contiguous(memory_format=torch.channels_last)``, 5-D:
channels_last_3d; grad_output likewise), 1, 2 and 4 threads; past 1024 pixels the forward, past 2048 the
backward too, sum per thread, so the bits change with the thread count.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.core.errors import ParityError
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

# (name, N, C, G, spatial dims, affine, seed, {(capability, threads): digest})
CL_CASES = (
    ("cl_by_group", 2, 20, 4, (7, 9), True, 21, {
        ("DEFAULT", 1): "48790211bbe8bfd0b0427d57d66d1fcac5da330e68bb94b9538d3ee85fe26c47",
        ("AVX2", 1): "fce1f41f637d413c5a0cd928a80a68884cb7684f99d8f807505b638e2ee2ace9",
        ("AVX2", 2): "fce1f41f637d413c5a0cd928a80a68884cb7684f99d8f807505b638e2ee2ace9"}),
    ("cl_plain_tail", 3, 30, 3, (5, 11), False, 22, {
        ("DEFAULT", 1): "1d3407db72c562e6ddf41b18b067626bfac7de5e0ab938d4afd4df062b27fb72",
        ("AVX2", 1): "f0f717352212666f13c44f42f9542067a9f6c48dabf79b4909aca1071f442ff8"}),
    ("cl_fwd_by_pixel", 2, 12, 3, (32, 40), True, 23, {
        ("DEFAULT", 2): "e5920988a1b09712486decb829cc621cabe7abf24ac700ec2b7f855c771384e2",
        ("DEFAULT", 4): "3bde90dc1222a01e182a6c0becf2ce2785194dfe280080c047e6078ac0529e3f",
        ("AVX2", 1): "393fcaf2d52097fe677e8a1b13234d93577c262c5c722401ec9bda4650b65c04",
        ("AVX2", 4): "2635d0b208686ec3f1dd7295e758b6a0e964e673dfb2eb8012d4c24024b3d186"}),
    ("cl_both_by_pixel", 1, 10, 2, (48, 45), True, 24, {
        ("DEFAULT", 1): "3f09a55367645ba8b67bb6ef8ed9b355f1f2890c8b60a35fcb34573fc6cc6ae4",
        ("DEFAULT", 2): "24636806395b0a8408901508eb1ba9faa801eca646df199a62a1c980a414131f",
        ("DEFAULT", 4): "b3ff9e9adde7173c43c8ca1968d1daf348c2752132791cf0aba1db79ea1ce0ab",
        ("AVX2", 1): "308247da30249b880131d09fb610a8dba758b8424979f3d0a90557997847fb22",
        ("AVX2", 2): "3c1056cd15f51b3532f9eff72ae564eab71090529e24730f29c221678d44dc3a",
        ("AVX2", 4): "d0d9e4101e9fe6e2de156581540212db5e66f86bde3bd05c39e357fcccdae3a2"}),
    ("cl3d_by_pixel", 2, 9, 3, (4, 16, 20), False, 25, {
        ("DEFAULT", 4): "b9bdf8b78cfa2d09c2ecf81dd9afadbe063f4f0e62f9663469129e41f6d00bcd",
        ("AVX2", 1): "fb0ed3c67489cab13fa703e9b71121be805d752c034246a1cfc67965330c3911",
        ("AVX2", 4): "e72325266cecf10cc7c00997d01af7fb3f4b64eb3740058a8545e177ed5c761a"}),
)  # fmt: skip

RUNS = [(case, cap, threads) for case in CASES for cap, threads in case[-1]]
CL_RUNS = [(case, cap, threads) for case in CL_CASES for cap, threads in case[-1]]


def _digest(case, cap: str, threads: int, channels_last: bool) -> str:
    _name, n, c, g, spatial, affine, seed, _digests = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, *spatial), dtype=np.float32) * np.float32(2) + np.float32(0.5)
    weight = rng.standard_normal(c, dtype=np.float32) if affine else None
    bias = rng.standard_normal(c, dtype=np.float32) if affine else None
    dy = rng.standard_normal(x.shape, dtype=np.float32)
    profile = profile_for_capability(cap, threads, "x86_64")
    y, mean, rstd = rows.group_norm(x, weight, bias, g, 1e-5, profile, channels_last)
    gx, gw, gb = rows.group_norm_backward(dy, x, mean, rstd, weight, g, profile, channels_last)
    digest = hashlib.sha256()
    for a in [y, mean, rstd, gx] + ([gw, gb] if affine else []):
        digest.update(np.ascontiguousarray(a, np.float32).view(np.uint32).tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize(("case", "cap", "threads"), RUNS, ids=[f"{c[0]}-{cap}-t{t}" for c, cap, t in RUNS])
def test_recorded_bits(case, cap: str, threads: int) -> None:
    name, n, c, g, h, w, affine, seed, digests = case
    assert _digest((name, n, c, g, (h, w), affine, seed, digests), cap, threads, False) == digests[(cap, threads)]


@pytest.mark.parametrize(("case", "cap", "threads"), CL_RUNS, ids=[f"{c[0]}-{cap}-t{t}" for c, cap, t in CL_RUNS])
def test_recorded_channels_last_bits(case, cap: str, threads: int) -> None:
    assert _digest(case, cap, threads, True) == case[-1][(cap, threads)]


def test_channels_last_needs_a_4d_or_5d_input() -> None:
    """A 3-D input has no channels-last layout (the arm64 channels-last kernels: tests/test_impl_arm64_sampling.py)."""
    x = np.ones((1, 4, 3, 3), np.float32)
    with pytest.raises(ParityError, match="4-D and 5-D"):
        rows.group_norm(x[0], None, None, 2, 1e-5, profile_for_capability("AVX2", 1), channels_last=True)
