"""The zero's sign of MKL's Intel sgemm paths' gemv forms (csrc/mkl_sgemm.h mkl_avx2_dot, mkl_avx2_gemv_dot,
mkl_gemv_t_store) on products recorded under emulation: torch 2.13.0 under ``qemu-x86_64 -cpu Haswell``
(ATEN_CPU_CAPABILITY=avx2: MKL's Intel AVX2 path; with MKL_ENABLE_INSTRUCTIONS=SSE4_2 and the default ATen
level: its SSE4.2 path). Each product's operands come from ``stored_operands(default_rng(seed), ...)``, then
"tiny": A's elements -|x| * 1e-30 and B's |x| * 1e-30 (every product a negative number below the smallest
subnormal, so every sum underflows to -0 and only the zero's sign tells the kernels apart), "negzero": A all
-0, "denorm": A zero but its first column -2^-149, B ones (times alpha 0.5: below the smallest subnormal).
C, where beta is 1, is filled with ``cfill``. The digests are of torch's bits, ``before`` the old model's
(None where it already agreed), so each check depends on the rule it names. No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import linalg
from harness.impl.profiles import profile_for_platform
from tests.impl_intel_mkl import digest, stored_operands

PLATFORMS = {"avx2": "linux-x86_64-avx2-mklavx2-t{}", "sse42": "linux-x86_64-baseline-mklsse42-t{}"}

# (path, op, layout: A / B stored transposed, batch items (bmm), M, N, K, alpha, beta, cfill, values, seed,
# MKL's threads, torch's digest, the old model's). AVX2: the dot form (N == 1 with A row-major, M == 1 with B
# stored transposed, a batch item of one row) stores +0 for beta 0 at every K, and for beta 1 onto -0 where
# K % 8 != 0 (its last step's zero-padded lanes); a single product (1 x 1, K == 1) the dot's +0. SSE4.2: gemv
# 'T' keeps the chain's -0 where no whole step of lanes ran (K 4 and 11 below), +0 after one (K 5 and 12).
PRODUCTS = (
    ("avx2", "mm", "tb", 0, 27, 1, 100, 1.0, 0.0, "+0", "tiny", 200018, 1, "77133f431d5e12dd", "995601447f84f99c"),
    ("avx2", "addmm", "tt", 0, 1, 12, 16, 1.0, 0.0, "7", "tiny", 200058, 1, "17b0761f87b081d5", "c68e39df6b119d83"),
    ("avx2", "addmm", "tb", 0, 1, 1, 8, 1.0, 0.0, "+0", "tiny", 200066, 1, "df3f619804a92fdb", "6d58692645c9d1cf"),
    ("avx2", "mm", "nn", 0, 14, 1, 33, 1.0, 0.0, "+0", "tiny", 200133, 1, "d4817aa5497628e7", "8aa8405d0c8ceb0e"),
    ("avx2", "addmm", "tb", 0, 19, 1, 17, 1.0, 1.0, "-0", "tiny", 200195, 1, "f2c0d5456a983ecd", "31936a55241de073"),
    ("avx2", "addmm", "nn", 0, 15, 1, 100, 1.0, 1.0, "-0", "tiny", 200272, 1, "5dcc1b5872dd9ff1", "e87d4d3ac884481a"),
    ("avx2", "addmm", "tt", 0, 1, 26, 33, 1.0, 1.0, "-0", "tiny", 200377, 1, "39f37f8d1931b3bd", "993984bb4c6a900c"),
    ("avx2", "bmm", "tb", 2, 1, 34, 16, 1.0, 0.0, "+0", "tiny", 200673, 1, "e4d879a3407de578", "17efd7eab90af003"),
    ("avx2", "addmm", "tt", 0, 1, 9, 9, 1.0, 1.0, "-0", "tiny", 201177, 1, "6db65fd59fd356f6", "f95946d66e9cee77"),
    ("avx2", "mm", "tb", 0, 32, 1, 8, 1.0, 0.0, "+0", "tiny", 200069, 4, "38723a2e5e8a17aa", "61c41f4ce9a3ab83"),
    ("avx2", "bmm", "tb", 2, 1, 26, 33, 1.0, 0.0, "+0", "tiny", 200861, 4, "46f531b7ea0428fb", "e30b72e1dd966caf"),
    ("avx2", "addmm", "nn", 0, 1, 1, 1, 1.0, 1.0, "-0", "tiny", 17, 1, "df3f619804a92fdb", "6d58692645c9d1cf"),
    ("avx2", "addmm", "ta", 0, 1, 1, 1, 1.0, 1.0, "-0", "tiny", 21, 1, "df3f619804a92fdb", "6d58692645c9d1cf"),
    ("avx2", "addmm", "nn", 0, 5, 1, 8, 1.0, 1.0, "-0", "tiny", 281, 1, "90c8303320d54d7b", None),
    ("avx2", "addmm", "tt", 0, 1, 6, 8, 1.0, 1.0, "-0", "tiny", 293, 1, "8522255bdec52151", None),
    ("avx2", "addmm", "nn", 0, 1, 6, 8, 1.0, 1.0, "-0", "tiny", 313, 1, "8522255bdec52151", None),
    ("avx2", "addmm", "nn", 0, 5, 1, 9, 1.0, 1.0, "-0", "tiny", 321, 1, "de47c9b27eb8d300", "90c8303320d54d7b"),
    ("avx2", "addmm", "tt", 0, 1, 6, 9, 1.0, 1.0, "-0", "tiny", 333, 1, "9d908ecfb6b256de", "8522255bdec52151"),
    ("avx2", "addmm", "nn", 0, 1, 6, 9, 1.0, 1.0, "-0", "tiny", 353, 1, "8522255bdec52151", None),
    ("avx2", "addmm", "nn", 0, 5, 1, 9, 0.5, 0.0, "+0", "denorm", 1001, 1, "90c8303320d54d7b", None),
    ("sse42", "addmm", "nn", 0, 5, 1, 4, 1.0, 1.0, "-0", "tiny", 121, 1, "90c8303320d54d7b", "de47c9b27eb8d300"),
    ("sse42", "addmm", "tb", 0, 5, 1, 4, 1.0, 1.0, "-0", "tiny", 125, 1, "90c8303320d54d7b", "de47c9b27eb8d300"),
    ("sse42", "addmm", "nn", 0, 1, 1, 4, 1.0, 1.0, "-0", "tiny", 137, 1, "6d58692645c9d1cf", None),
    ("sse42", "addmm", "tb", 0, 1, 1, 4, 1.0, 1.0, "-0", "tiny", 145, 1, "6d58692645c9d1cf", "df3f619804a92fdb"),
    ("sse42", "addmm", "nn", 0, 5, 1, 5, 1.0, 1.0, "-0", "tiny", 161, 1, "9242c5b0c7689e12", "de47c9b27eb8d300"),
    ("sse42", "addmm", "tb", 0, 5, 1, 5, 1.0, 1.0, "-0", "tiny", 165, 1, "9242c5b0c7689e12", "de47c9b27eb8d300"),
    ("sse42", "addmm", "nn", 0, 1, 1, 5, 1.0, 1.0, "-0", "tiny", 177, 1, "6d58692645c9d1cf", None),
    ("sse42", "addmm", "tb", 0, 1, 1, 5, 1.0, 1.0, "-0", "tiny", 185, 1, "6d58692645c9d1cf", "df3f619804a92fdb"),
    ("sse42", "addmm", "nn", 0, 5, 1, 11, 1.0, 1.0, "-0", "tiny", 401, 1, "9242c5b0c7689e12", "de47c9b27eb8d300"),
    ("sse42", "addmm", "tb", 0, 5, 1, 11, 1.0, 1.0, "-0", "tiny", 405, 1, "9242c5b0c7689e12", "de47c9b27eb8d300"),
    ("sse42", "addmm", "nn", 0, 1, 1, 11, 1.0, 1.0, "-0", "tiny", 417, 1, "6d58692645c9d1cf", None),
    ("sse42", "addmm", "tb", 0, 1, 1, 11, 1.0, 1.0, "-0", "tiny", 425, 1, "6d58692645c9d1cf", "df3f619804a92fdb"),
    ("sse42", "addmm", "nn", 0, 5, 1, 12, 1.0, 1.0, "-0", "tiny", 441, 1, "de47c9b27eb8d300", None),
    ("sse42", "addmm", "tb", 0, 5, 1, 12, 1.0, 1.0, "-0", "tiny", 445, 1, "de47c9b27eb8d300", None),
    ("sse42", "addmm", "nn", 0, 1, 1, 12, 1.0, 1.0, "-0", "tiny", 457, 1, "6d58692645c9d1cf", None),
    ("sse42", "addmm", "tb", 0, 1, 1, 12, 1.0, 1.0, "-0", "tiny", 465, 1, "df3f619804a92fdb", None),
    ("sse42", "addmm", "nn", 0, 5, 1, 2, 0.5, 0.0, "+0", "denorm", 1000, 1, "de47c9b27eb8d300", "90c8303320d54d7b"),
    ("sse42", "addmm", "nn", 0, 5, 1, 9, 0.5, 0.0, "+0", "denorm", 1001, 1, "de47c9b27eb8d300", "90c8303320d54d7b"),
    ("sse42", "addmm", "nn", 0, 1, 6, 2, 0.5, 0.0, "+0", "denorm", 1004, 1, "9d908ecfb6b256de", None),
    ("sse42", "addmm", "nn", 0, 1, 6, 9, 0.5, 0.0, "+0", "denorm", 1005, 1, "9d908ecfb6b256de", None),
    ("sse42", "addmm", "tb", 0, 9, 1, 1, 1.0, 1.0, "-0", "tiny", 100142, 1, "f95946d66e9cee77", "6db65fd59fd356f6"),
    ("sse42", "addmm", "nn", 0, 19, 1, 1, 1.0, 1.0, "-0", "tiny", 100293, 1, "31936a55241de073", "f2c0d5456a983ecd"),
    ("sse42", "addmm", "tb", 0, 1, 2, 3, 1.0, 1.0, "-0", "tiny", 100359, 1, "830c36064389b2cc", "af5570f5a1810b7a"),
)
# 1 x 1 products with K == 1 and beta 1 on the AVX2 path, per layout: (layout, a, b, C, torch's result) as
# float32 bits; a*b rounded, then added to C (a fused a*b + C gives other bits in each of these)
SINGLE = (
    ("tt", 0x3F691694, 0xBFD7F760, 0x3F987CBB, 0xBEB099DC),
    ("nn", 0xBF2048DC, 0xBF9733C6, 0xBF59FFEC, 0xBDE54918),
    ("ta", 0xBFF50923, 0x3F3F1FAC, 0x3FC11F1F, 0x3DA2EFD0),
    ("tb", 0xBF41E0A5, 0x3F53BF60, 0xBF905471, 0xBFE082FC),
)


def _values(x: np.ndarray, operand: str, vals: str, k_axis: int) -> np.ndarray:
    """Operand ``operand`` ("a" or "b") of kind ``vals`` from standard normal ``x`` in its stored layout."""
    if vals == "tiny":
        return ((-np.abs(x) if operand == "a" else np.abs(x)) * np.float32(1e-30)).astype(np.float32)
    if vals == "negzero":
        return np.full_like(x, -0.0) if operand == "a" else x
    if operand == "b":  # "denorm": B ones, A's k = 0 elements -2^-149, the rest 0
        return np.ones_like(x)
    out = np.zeros_like(x)
    np.moveaxis(out, k_axis, -1)[..., 0] = -np.float32(2.0**-149)
    return out


def _operands(layout: str, items: int, m: int, n: int, k: int, seed: int, vals: str) -> tuple[np.ndarray, np.ndarray]:
    """The operands mapped in their stored layout, then viewed transposed as torch saw them."""
    a, b = stored_operands(np.random.default_rng(seed), layout, items, m, n, k)
    ta, tb = layout in ("ta", "tt"), layout in ("tb", "tt")
    sa = _values(np.swapaxes(a, -1, -2) if ta else a, "a", vals, -2 if ta else -1)
    sb = _values(np.swapaxes(b, -1, -2) if tb else b, "b", vals, -1 if tb else -2)
    return (np.swapaxes(sa, -1, -2) if ta else sa), (np.swapaxes(sb, -1, -2) if tb else sb)


@pytest.mark.parametrize(
    "index", range(len(PRODUCTS)), ids=[f"{p[0]}-{p[1]}-{p[2]}-{p[4]}x{p[5]}x{p[6]}-t{p[12]}" for p in PRODUCTS]
)
def test_gemv_zero_sign(index: int):
    path, op, layout, items, m, n, k, alpha, beta, cfill, vals, seed, threads, torch_bits, before = PRODUCTS[index]
    profile = profile_for_platform(PLATFORMS[path].format(threads))
    a, b = _operands(layout, items, m, n, k, seed, vals)
    if op == "bmm":
        out = linalg.bmm(a, b, profile, alpha=alpha)
    elif op == "mm":
        out = linalg.mm(a, b, profile)
    else:
        c = np.full((m, n), {"-0": -0.0, "+0": 0.0, "7": 7.0}[cfill], np.float32)
        out = linalg.addmm(c, a, b, profile, alpha=alpha, beta=beta)
    assert digest(out) == torch_bits
    assert before != torch_bits


@pytest.mark.parametrize("index", range(len(SINGLE)), ids=[s[0] for s in SINGLE])
def test_single_product_rounded_then_added(index: int):
    layout, a_bits, b_bits, c_bits, torch_bits = SINGLE[index]
    a, b, c = (np.array([[x]], np.uint32).view(np.float32) for x in (a_bits, b_bits, c_bits))
    a = np.ascontiguousarray(a.T).T if layout in ("ta", "tt") else a
    b = np.ascontiguousarray(b.T).T if layout in ("tb", "tt") else b
    out = linalg.addmm(c, a, b, profile_for_platform(PLATFORMS["avx2"].format(1)), beta=1.0)
    assert int(out.view(np.uint32)[0, 0]) == torch_bits
    fused = np.float32(np.float64(a[0, 0]) * np.float64(b[0, 0]) + np.float64(c[0, 0]))
    assert int(fused.view(np.uint32)) != torch_bits
