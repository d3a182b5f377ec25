"""harness.impl.unary.softplus_forward and softplus_backward against torch's recorded bits (torch 2.13.0
on an AMD EPYC; ATEN_CPU_CAPABILITY default or avx2 on a Zen 3, avx512 on a Zen 5). At avx2 the vector body
runs SLEEF's expf and log1pf (its large-input path: x itself where exp overflows, case B), the scalar tail
glibc's; the NaN rules differ between body and tail (case D). At avx512 the kernel's AVX-512 object runs
(softplus_stub is also registered for AVX-512): 16 lanes, so a step of two vectors takes 32 elements (case
D's 21 all fall in the scalar tail), SLEEF's AVX-512 expf and log1pf giving the avx2 lanes' bits but for
log1pf's NaN, x quieted there. Digests: SHA-256 of torch's output as uint32."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import unary
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFD00001, 0x3F800000, 0x42C80000, 0xFF800000], np.uint32)


def _inputs(case: str) -> tuple[np.ndarray, np.ndarray]:
    if case == "D":
        p = NANS.view(np.float32)
        return np.resize(p, 21), np.resize(np.roll(p, 3), 21)
    seed, size, draw = {
        "A": (11, 37, lambda r, n: r.standard_normal(n) * 30),
        "B": (12, 1000, lambda r, n: r.uniform(80, 90, n)),
        "C": (13, 70001, lambda r, n: r.standard_normal(n) * 10),
        "E": (14, 5000, lambda r, n: r.standard_normal(n) * 20),
    }[case]
    r = np.random.default_rng(seed)
    x = draw(r, size).astype(np.float32)
    return x, r.standard_normal(size).astype(np.float32)


# (case, capability, threads, beta, threshold, forward digest, backward digest)
CASES = (
    ("A", "AVX2", 1, 1.0, 20.0, "1ac100a48b4f9b2849c280db5148d736f78425e543d8223092d9087d8850b22d",
     "db13b19d4090957fa6411f7fed18d0ff778d7e93be55233919738361150b6901"),
    ("B", "AVX2", 1, 1.0, 100.0, "8fe2b811c9ed45e0413c7c39f1628acf418d284cf17cf50e21aa66959c4db267",
     "ddfdad7833981fa4e1ae46eb23bf5f55c9a5910c33137111c735f47ea0c53dbe"),
    ("C", "AVX2", 2, 0.5, 20.0, "b94889e46c15cf1bae4c53377a8ef22132dca18982ba0cd834cf22d96f103ac1",
     "136249078791bc65edf1a143271222721d5f57f898467bb6c59c9fd3119ed4da"),
    ("D", "AVX2", 1, 1.0, 20.0, "7d7098cd1038c75ea9f5469e30e7f3ce12c734e0b7b682da0ec11c3c4c3eee6a",
     "50afc216aed3b11a915556532acd5ad86838fcacda8d6e79478697ed7db80c1a"),
    ("E", "DEFAULT", 1, 2.0, 20.0, "05af92b132ba8d20ca0b886b4b59b3f4a4fda5b2ba6d5072e583e6260fd13df3",
     "c53b4e9cf1bc6224467b239ef77a92cd795d5c332b93d4ac2784bc54bb9c6526"),
    ("C", "AVX512", 2, 0.5, 20.0, "13f9cb588418016443b47a39e3f82997d7f9de30b3f52ff192ed5f6018218ddb",
     "136249078791bc65edf1a143271222721d5f57f898467bb6c59c9fd3119ed4da"),
    ("D", "AVX512", 1, 1.0, 20.0, "ef6e380097176fc647d5c0ad0be32ad6fe2a8c129f3345792950e63406ba6119",
     "cd7274b4678730d38603e0f6e9a933f616595220d5f2b2d1b3c63d55944960bf"),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-t{c[2]}" for c in CASES])
def test_recorded_bits(case) -> None:
    name, cap, threads, beta, threshold, forward, backward = case
    x, g = _inputs(name)
    profile = profile_for_capability(cap, threads, "x86_64")
    assert bits_sha256(unary.softplus_forward(x, beta, threshold, profile)) == forward
    assert bits_sha256(unary.softplus_backward(g, x, beta, threshold, profile)) == backward


def test_log1p_nan_is_the_levels_own() -> None:
    """log1p of NaNs (signalling and quiet, both signs; 19 elements, every one a vector lane): SLEEF's AVX2
    log1pf answers its own NaN 0x7fc00000, its AVX-512 variant (log1p_stub is also registered for AVX-512)
    passes x on quieted, as recorded from torch at each level."""
    nans = np.resize(np.array([0x7FC12345, 0xFFD00001, 0x7F800001, 0xFF800001], np.uint32), 19)
    quieted = (nans | 0x00400000).tolist()
    for cap, want in (("AVX2", [0x7FC00000] * 19), ("AVX512", quieted), ("DEFAULT", quieted)):
        got = unary.forward("log1p", nans.view(np.float32), profile_for_capability(cap, 1, "x86_64"))
        assert got.view(np.uint32).tolist() == want, cap
