"""MKL's Intel SSE4.2 sgemm path (csrc/mkl_sgemm.h mkl_sse42_sgemm) against the committed fixtures recorded
under QEMU's Nehalem-v2 model (linux-x86_64-baseline-mklsse42-tN): chosen outputs compared as uint32 bit
patterns with the fixture's own tensors, and the same outputs under MKL's generic path shown to differ
(so that each check depends on the SSE4.2 path's model). No torch, no recording: the fixtures only."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.op_registry import run_case
from harness.impl.profiles import MKL_SSE42, profile_for_platform
from tests.impl_intel_mkl import (
    assert_model_reproduces,
    assert_own_profile,
    bits,
    causal_sdpa_digests,
    digest,
    fixture,
    flash_digests,
)

PLATFORMS = tuple(f"linux-x86_64-baseline-mklsse42-t{t}" for t in (1, 2, 4))
PLATFORM = PLATFORMS[0]
LEVEL = "x86-baseline"  # the ISA level's profile, MKL's generic path

# (case, output): every sgemm-made output of the fixture's linear, matmul, sdpa and sdpa_dropout cases, each
# with elements MKL's generic path computes otherwise: K blocks of 256 and of roundup(K/2, 4) (K = 512),
# the 4-lane dot of the last N % 4 columns (N = 17, 33, 65), the corner where the last M % 4 rows meet them
# (with a bias: linear 3x5x48), A handed over transposed, bmm items, flash attention's blocks (alpha = its
# scale; 4 and 7 rows: the small kernels; a 1-row last block: MKL's gemv), the math path's bmm.
EXACT = (
    ("linear/3x5x48_to_17", "out"),
    ("linear/3x5x48_to_17", "grad_x"),
    ("linear/3x5x48_to_17", "grad_weight"),
    ("linear/4x32x64_to_65_nobias", "out"),
    ("linear/4x32x64_to_65_nobias", "grad_x"),
    ("linear/4x32x64_to_65_nobias", "grad_weight"),
    ("linear/64x512_to_65", "out"),
    ("linear/64x512_to_65", "grad_x"),
    ("linear/64x512_to_65", "grad_weight"),
    ("matmul/17x48_48x33", "out"),
    ("matmul/17x48_48x33", "grad_a"),
    ("matmul/17x48_48x33", "grad_b"),
    ("matmul/2x2x32x64_2x2x64x32", "out"),
    ("matmul/2x2x32x64_2x2x64x32", "grad_a"),
    ("matmul/2x2x32x64_2x2x64x32", "grad_b"),
    ("matmul/64x512_512x65", "out"),
    ("matmul/64x512_512x65", "grad_a"),
    ("matmul/64x512_512x65", "grad_b"),
    ("sdpa/1x2x7x64", "out"),
    ("sdpa/1x2x7x64", "grad_q"),
    ("sdpa/1x2x7x64", "grad_k"),
    ("sdpa/1x2x7x64", "grad_v"),
    ("sdpa/1x1x100x64", "out"),
    ("sdpa/1x1x100x64", "grad_q"),
    ("sdpa/1x1x100x64", "grad_k"),
    ("sdpa/1x1x100x64", "grad_v"),
    ("sdpa/1x2x257x64", "out"),
    ("sdpa/1x2x257x64", "grad_q"),
    ("sdpa/1x2x257x64", "grad_k"),
    ("sdpa/1x2x257x64", "grad_v"),
    ("sdpa_dropout/1x2x7x64", "out"),
    ("sdpa_dropout/1x2x7x64", "grad_q"),
    ("sdpa_dropout/1x2x7x64", "grad_k"),
    ("sdpa_dropout/1x2x7x64", "grad_v"),
    ("sdpa_dropout/1x2x257x64", "out"),
    ("sdpa_dropout/1x2x257x64", "grad_q"),
    ("sdpa_dropout/1x2x257x64", "grad_k"),
    ("sdpa_dropout/1x2x257x64", "grad_v"),
)


def test_the_intel_sse42_platform_gets_its_own_profile():
    # the SSE4.2 path at the avx2 level: no such model
    assert_own_profile(
        PLATFORM, MKL_SSE42, "default", "linux-x86_64-baseline-mklgeneric-t1", "linux-x86_64-avx2-mklsse42-t1"
    )


# 2 and 4 threads: a few outputs of each kind (at 2 threads flash attention's backward of length 100 cuts its
# products between the threads: mkl_sse42_run; at 4 threads every output has the one-thread bits)
THREADED = tuple(
    (p, c, o) for p in PLATFORMS[1:] for c, o in EXACT if o in ("out", "grad_k") and "2x2" not in c
) + tuple((PLATFORMS[1], "sdpa/1x1x100x64", o) for o in ("grad_q", "grad_v"))
CHECKS = tuple((PLATFORM, c, o) for c, o in EXACT) + THREADED


@pytest.mark.parametrize(("platform", "case", "output"), CHECKS, ids=[f"{p[-2:]}/{c}/{o}" for p, c, o in CHECKS])
def test_intel_sse42_sgemm_reproduces_the_fixture_bits(platform: str, case: str, output: str):
    assert_model_reproduces(platform, case, output, MKL_SSE42, LEVEL)


def _mm_sse42(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return linalg.mm(a, b, profile_for_platform(PLATFORM))


def test_k_blocks_follow_the_measured_rule():
    """2**24 at k = 0 swallows the ones after it in its own K block (each an unfused chain); each later
    block's sum of ones survives: K = 240 one block, 402 blocks of roundup(201, 4) = 204 (204, 198), 600
    blocks of 256 (256, 256, 88). The generic path cuts K = 402 into 201, 201 and 600 into 192s."""
    for k, after_first in ((240, 0), (402, 198), (600, 256 + 88)):
        a = np.ones((8, k), np.float32)
        a[:, 0] = 2.0**24
        c = _mm_sse42(a, np.ones((k, 4), np.float32))
        assert np.all(c == np.float32(2.0**24 + after_first)), k


def test_the_last_columns_take_a_four_lane_dot():
    """N % 4 == 1, A row-major, rows above the last M % 4: lanes k % 4 (2**24 at k = 0 swallows k = 4 in
    lane 0 only), then (l0 + l2) + (l1 + l3): 2**24 + 6 for K = 8, where the other columns' chains lose
    every one."""
    a = np.ones((8, 8), np.float32)
    a[:, 0] = 2.0**24
    c = _mm_sse42(a, np.ones((8, 5), np.float32))
    assert np.all(c[:, :4] == np.float32(2.0**24))
    assert np.all(c[:, 4] == np.float32(2.0**24 + 6))


def _big_first(m: int, k: int) -> np.ndarray:
    a = np.ones((m, k), np.float32)
    a[:, 0] = 2.0**24
    return a


def _mm_t(a: np.ndarray, w: np.ndarray, threads: int) -> np.ndarray:
    return linalg.mm(a, w, profile_for_platform(f"linux-x86_64-baseline-mklsse42-t{threads}"), trans_b=True)


def test_two_threads_cut_the_columns_into_blocks_of_their_own():
    """x @ W.T, 14 x 11, K = 314 on 2 threads: columns 8 + 3 (roundup(ceil(11/2), 4) = 8). The first block
    keeps the main kernel's chains (K blocks 160, 154: 2**24 + 154); the 3-column block is a product of its
    own with N < 4, the small kernel's lanes by row parity (8 lanes on even rows: 2**24 + 276, 4 lanes over
    steps of 8 on odd rows: 2**24 + 236), where one thread gives the 4-lane dot of the last N % 4 columns
    (2**24 + 274; the corner rows 12 and 13: 314, 312). The bits MKL gave under Nehalem-v2."""
    a, w = _big_first(14, 314), np.ones((11, 314), np.float32)
    c = _mm_t(a, w, 2)
    assert np.all(c[:, :8] == np.float32(2.0**24 + 154))
    assert np.all(c[0::2, 8:] == np.float32(2.0**24 + 276)) and np.all(c[1::2, 8:] == np.float32(2.0**24 + 236))
    one = _mm_t(a, w, 1)
    assert np.all(one[:12, 8:] == np.float32(2.0**24 + 274))  # the one-thread model: other bits
    assert np.all(one[12:, 8:10] == np.float32(2.0**24 + 314)) and np.all(one[12:, 10] == np.float32(2.0**24 + 312))


def test_a_threads_block_of_four_rows_takes_the_main_kernel():
    """Flash attention's last q block of length 100 (4 x 100, K = 64, x @ W.T) on 2 threads: the columns are
    cut and each block of 4 rows takes the main kernel's chain (2**24 swallows every one: 2**24), where one
    thread, and 4 threads (MKL does not cut it there), give the small kernel's lanes (2**24 + 56 on even
    rows, + 48 on odd). The bits MKL gave under Nehalem-v2."""
    a, w = _big_first(4, 64), np.ones((100, 64), np.float32)
    assert np.all(_mm_t(a, w, 2) == np.float32(2.0**24))
    for threads in (1, 4):
        c = _mm_t(a, w, threads)
        assert np.all(c[0::2] == np.float32(2.0**24 + 56)) and np.all(c[1::2] == np.float32(2.0**24 + 48)), threads


def test_small_products_and_short_sides_stay_whole_on_two_threads():
    """Below M*(N rounded down to even)*K = 19,456 with K <= 256, or with fewer than 10 columns to cut:
    the one-thread bits (4 x 100 x 40 = 16,000: the small kernel's lanes, 2**24 + 34 on even rows, + 30
    on odd, not the chain's 2**24; 12 x 9 x 491), as MKL gave them under Nehalem-v2 on 2 threads."""
    a, w = _big_first(4, 40), np.ones((100, 40), np.float32)
    c = _mm_t(a, w, 2)
    assert np.all(c[0::2] == np.float32(2.0**24 + 34)) and np.all(c[1::2] == np.float32(2.0**24 + 30))
    for m, n, k in ((4, 100, 40), (12, 9, 491)):
        a, w = _big_first(m, k), np.ones((n, k), np.float32)
        assert np.array_equal(_mm_t(a, w, 2).view(np.uint32), _mm_t(a, w, 1).view(np.uint32)), (m, n, k)


# Where MKL's SSE4.2 path cuts C on 2 threads (mkl_sse42_cut, mkl_sse42_run): (M, N, K, layout) -> SHA-256 of
# torch's bits on an Intel Xeon with MKL_ENABLE_INSTRUCTIONS=SSE4_2 (the same under QEMU's Nehalem-v2), and
# whether they differ from the one-thread form. Operands from default_rng(M*N*K): A (M, K), then B as W (N, K)
# for "01" (x @ W.T) or (K, N) for "00". The bound was M*N*K = 18,000 before: the first, fourth, fifth and
# sixth were answered with the other form.
SSE42_CUTS = {
    (4, 10, 300, "01"): ("cf8a26301ca6cf9a", True),  # K > 256 cuts, though M*N*K = 12,000
    (4, 10, 256, "01"): ("9843a2673b040a80", False),
    (4, 32, 152, "01"): ("acb012ef87447d60", True),  # 19,456
    (4, 32, 151, "01"): ("da6d0e055b8af1d1", False),  # 19,328
    (4, 27, 187, "01"): ("bf97b766a259cdd8", False),  # 20,196 whole: N rounded down to even, 4 x 26 x 187 = 19,448
    (22, 11, 274, "00"): ("dd6392516afb8432", True),  # M = 2N: the columns are cut, not the rows
    (21, 10, 274, "00"): ("5dd44b21914db65d", False),  # M > 2N: the rows, in blocks of 4 (the one-thread bits)
}


# On 4 threads (mkl_sse42_grid): a grid of 1 x 4 where N > 4M, 4 x 1 where M > 4N, else 2 x 2, from
# (M/2)*(N/2)*K = 9,728 or K > 256, N >= 10. Digests as SSE42_CUTS's (an Intel Xeon, the same under Nehalem-v2),
# operands as there, layouts "00" and "01"; whether they differ from the one-thread form. The model ran 4
# threads whole before: the cut ones were answered with the one-thread bits.
SSE42_GRID4 = {
    (6, 15, 358, "00"): ("b210300dda197927", True),  # 2 x 2: rows 4 + 2
    (5, 23, 357, "00"): ("63d72186bcf1a4da", True),  # 1 x 4: N > 4M
    (51, 10, 82, "01"): ("4f094cd73a05e83f", True),  # 4 x 1: rows 16, 16, 16, 3
    (4, 64, 152, "01"): ("ebd7ab4df3434315", True),  # 2 x 32 x 152 = 9,728
    (4, 64, 151, "01"): ("9e22bcddf22864eb", False),
    (5, 200, 49, "01"): ("5289376b355f50d5", True),  # 2 x 100 x 49 = 9,800
    (5, 200, 48, "01"): ("a5e90646bd802993", False),  # 9,600
    (9, 9, 300, "01"): ("1de2bb11fc3f945a", False),  # fewer than 10 columns: whole
}


XEON_CUTS = tuple((PLATFORMS[1], s, *d) for s, d in SSE42_CUTS.items()) + tuple(
    (PLATFORMS[2], s, *d) for s, d in SSE42_GRID4.items()
)


@pytest.mark.parametrize(
    ("platform", "shape", "expected", "cut"),
    XEON_CUTS,
    ids=[f"{p[-2:]}-{'x'.join(map(str, s))}" for p, s, *_ in XEON_CUTS],
)
def test_where_threads_cut_c_is_the_xeons(platform: str, shape: tuple[int, int, int, str], expected: str, cut: bool):
    m, n, k, layout = shape
    rng = np.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((n, k) if layout == "01" else (k, n), dtype=np.float32)
    b = b.T if layout == "01" else b
    assert digest(linalg.mm(a, b, profile_for_platform(platform))) == expected
    assert (digest(linalg.mm(a, b, profile_for_platform(PLATFORM))) != expected) == cut


@pytest.mark.parametrize("threads", (3, 8))
def test_other_thread_counts_are_refused_where_mkl_may_cut(threads: int):
    """3 or 5 and more threads: K > 256 or M*N*K >= 19,456 refused (4 x 39 x 262 and 14 x 15 x 530 took
    other bits there on the Xeon); below, the one-thread bits (checked on 400 random products at each)."""
    profile = profile_for_platform(f"linux-x86_64-baseline-mklsse42-t{threads}")
    for m, n, k in ((4, 39, 262), (14, 15, 530), (10, 40, 50)):
        a, b = _big_first(m, k), np.ones((k, n), np.float32)
        with pytest.raises(ParityError, match="not modelled"):
            linalg.mm(a, b, profile)
    a, b = _big_first(10, 40), np.ones((40, 40), np.float32)
    assert np.array_equal(
        linalg.mm(a, b, profile).view(np.uint32), linalg.mm(a, b, profile_for_platform(PLATFORM)).view(np.uint32)
    )


def test_the_length_100_backward_at_two_threads_needs_the_split():
    """The fixture's flash attention backward of length 100 at 2 threads: the one-thread model misses it."""
    rec = fixture(PLATFORMS[1]).cases["sdpa/1x1x100x64"]
    one = run_case(rec.op, rec.params, rec.inputs, profile_for_platform(PLATFORMS[0]))
    for o in ("grad_q", "grad_k", "grad_v"):
        assert not np.array_equal(bits(one[o]), bits(rec.outputs[o])), o


def test_batched_items_are_cut_into_parts_at_eight_threads():
    """bmm of 2 items of x @ W.T (100 x 20, K = 40) on 8 threads: MKL's batched gemm cuts each item's rows
    into parts of 48, 48, 4 (mkl_batch_split, as on the generic path), the 4-row part taking the small
    kernel's lanes. The sha256 of the bits MKL gave under Nehalem-v2 (operands from default_rng(5)); the
    one-thread model, whole items, gives other bits."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 100, 40)).astype(np.float32)
    w = rng.standard_normal((2, 20, 40)).astype(np.float32)
    got = linalg.bmm(a, np.swapaxes(w, 1, 2), profile_for_platform("linux-x86_64-baseline-mklsse42-t8"))
    assert digest(got) == "91d7f3e749955379"
    one = linalg.bmm(a, np.swapaxes(w, 1, 2), profile_for_platform(PLATFORM))
    assert not np.array_equal(bits(one), bits(got))


# causal sdpa (B, H, L, D) with the scale 1/sqrt(D), no power of two, where it meets alpha in each of the SSE4.2
# path's kernels (q, k, v, grad_out from default_rng(seed), in that order; MKL's thread count): the sha256 of
# torch's out, grad_q, grad_k, grad_v under Nehalem-v2, and the old model's grad_k (alpha on B's elements in
# every kernel). A last q block of 4 rows: its x @ W.T products take the small kernel's lanes (alpha scales the
# sum) and grad_q's (4 x D, K = kv length) the chain from C (alpha on A's elements); L = 33: grad_k's products
# with K = 1 (the rank-1 update, alpha on A's elements).
# gemv 'T' on 2 threads: (kind, outputs R, K) -> SHA-256 of torch's bits (an Intel Xeon with
# MKL_ENABLE_INSTRUCTIONS=SSE4_2, the same under QEMU's Nehalem-v2), operands from seed 23 in this
# order: "xwt" x (1, K) @ W.T, W (R, K); "col" A (R, K) @ b (K, 1); and whether MKL cuts the outputs
# there (at ceil(R/2), each part its own groups of 4)
GEMV_2_THREADS = {
    (
        "xwt",
        36,
        192,
        True,
    ): "24088ae0d3bd38d2a9f55df1dadd4494bc777fdbfabe89cd317714469fab7b6f",  # K >= 128 and 18 * 192 >= 2,048
    (
        "xwt",
        36,
        122,
        False,
    ): "812e27ab8710c47c3ddd305c3251dae305b7cfb557d3957cb60186bfb57fc091",  # K < 128 and R < 128: whole
    ("xwt", 13, 343, True): "2a9a409e3d9ea78ef2641a0edcbfc905eb171235cd720a629f6f54c186b5735e",  # 6 * 343 = 2,058
    ("xwt", 13, 340, False): "5b7b986db9ed72f84ab4e68185e34092cfecf65dd3639f11a6c5077fc196d4f8",  # 6 * 340 = 2,040
    (
        "xwt",
        201,
        41,
        True,
    ): "147cb8e50a0f2d56c818d9784d774eb248d8204713de71302a196505611ce0cb",  # R >= 128 and R * K = 8,241
    ("xwt", 201, 40, False): "5c3553d1cb710c957e2009ab07a9d96c41686bffbbea60868893c6f6587ac2e6",  # 8,040
    ("col", 100, 300, True): "7d82343fa6e45f082f27b3e8b1884b0c4bd6a35ae4692cf8d40a2df7f1adeb46",
}


def test_two_threads_cut_gemv_outputs_in_halves():
    """mkl_sse42_gemv_cut: from R >= 128 with R*K >= 8,192, or K >= 128 with floor(R/2)*K >= 2,048."""
    two, one = (profile_for_platform(f"linux-x86_64-baseline-mklsse42-t{t}") for t in (2, 1))
    rng = np.random.default_rng(23)
    for (kind, r, k, cut), want in GEMV_2_THREADS.items():
        a = rng.standard_normal((1, k) if kind == "xwt" else (r, k)).astype(np.float32)
        b = (
            rng.standard_normal((r, k)).astype(np.float32).T
            if kind == "xwt"
            else rng.standard_normal((k, 1)).astype(np.float32)
        )
        assert digest(linalg.mm(a, b, two), 64) == want, (kind, r, k)
        assert (digest(linalg.mm(a, b, one), 64) != want) == cut, (kind, r, k)


ALPHA_SDPA = (
    ((1, 1, 68, 91), 500, 1,
     ("806152e03d013d13", "5168e944d4f01147", "74f3c25bb8a59eaf", "77bb65de93ff57bf"), "e8a29c5df59e72db"),
    ((1, 2, 36, 20), 501, 1,
     ("ee5f55f9a8d12eff", "1b3f5c74fa873d71", "9e2a006df6bbde51", "ed6fb469f6e21153"), "a970c4bd7ca2c9cf"),
    ((1, 2, 33, 80), 502, 1,
     ("f2ec962c5823ca75", "bdd910bf03df8265", "b55f6ac3df0714ce", "0c01b252f61ec7da"), "84e5906348d75753"),
    ((1, 1, 100, 50), 505, 1,
     ("53ace87a2c48dc2a", "45f5ab4be59f07f4", "18d3b140208ba836", "d40916080b83f752"), "188ca20e2ec51032"),
    ((1, 1, 68, 91), 500, 4,
     ("806152e03d013d13", "5168e944d4f01147", "74f3c25bb8a59eaf", "77bb65de93ff57bf"), "e8a29c5df59e72db"),
    ((1, 2, 33, 80), 502, 4,
     ("f2ec962c5823ca75", "bdd910bf03df8265", "b55f6ac3df0714ce", "0c01b252f61ec7da"), "84e5906348d75753"),
)  # fmt: skip
ALPHA_IDS = [f"{'x'.join(map(str, c[0]))}-t{c[2]}" for c in ALPHA_SDPA]


@pytest.mark.parametrize("index", range(len(ALPHA_SDPA)), ids=ALPHA_IDS)
def test_alpha_enters_each_kernel_where_mkl_scales_it(index: int):
    shape, seed, threads, torch_bits, old_grad_k = ALPHA_SDPA[index]
    assert causal_sdpa_digests(shape, seed, f"linux-x86_64-baseline-mklsse42-t{threads}") == torch_bits
    assert old_grad_k != torch_bits[2]


def test_tiny_scaled_backward_products_are_refused():
    """L, S and D of 10 or less: the backward's scaled products are MKL's tiny addmm, whose order with alpha != 1
    is not modelled (sdpa 2x1x6x10: grad_q's bits under Nehalem-v2 differ from beta*C + alpha * the chain)."""
    rng = np.random.default_rng(504)
    q, k, v, g = (rng.standard_normal((2, 1, 6, 10)).astype(np.float32) for _ in range(4))
    params = {"shape": [2, 1, 6, 10], "dropout_p": 0.0, "is_causal": True}
    with pytest.raises(ParityError, match="tiny"):
        run_case("sdpa", params, {"q": q, "k": k, "v": v, "grad_out": g}, profile_for_platform(PLATFORM))


def test_two_thread_gemv_n_with_k_cut_is_refused():
    """MKL's gemv 'N' on 2 threads cuts K (linalg.mkl_gemv_n_k_cut); on this path the first outputs of
    such a product take sums not modelled: refused, not answered. Below the cut, and on one thread, it runs."""
    rng = np.random.default_rng(29)
    x, w = rng.standard_normal((1, 300)).astype(np.float32), rng.standard_normal((300, 20)).astype(np.float32)
    two = profile_for_platform("linux-x86_64-baseline-mklsse42-t2")
    with pytest.raises(ParityError, match="cuts this gemv's K"):
        linalg.mm(x, w, two)
    with pytest.raises(ParityError, match="cuts this gemv's K"):
        linalg.mm(w.T, np.ascontiguousarray(x.T), two)  # a column, A (20 x 300) stored transposed
    linalg.mm(x[:, :255], w[:255], two)  # K < 256: whole
    linalg.mm(x, w, profile_for_platform(PLATFORM))


def test_head_size_one_with_a_scale_is_the_xeons():
    """Flash attention with head size 1 and a scale (one head, 50 x 50, causal; q, k, v, grad_out from
    default_rng(806)): the backward's grad_k is a gemv 'N' whose alpha scales the vector's elements, and
    its K = 1 products of one column are MKL's gemv, not the rank-1 update. torch's out, lse, grad_q,
    grad_k, grad_v digests on the Xeon (MKL_ENABLE_INSTRUCTIONS=SSE4_2); the model before gave other
    grad_k bits ("496980ab16ee4949")."""
    params = dict(b=1, heads=1, kv_heads=1, l=50, s=50, d=1, layout="bhnd", causal=True, scale=0.3)
    torch_bits = ("654197c8331b5e65", "a1cbc7a5b452eef2", "6c7e131bedde09db", "4f5802f6059fa754", "9298fdb29e115565")
    assert flash_digests(params, 806, PLATFORM) == torch_bits


def test_flash_forms_not_measured_on_this_path_are_refused():
    """One query row against one key with operands off a 16-byte boundary (7 of 12 lse differed on the
    Xeon), and head size 1 with rows a stride apart (a strided gemv vector): refused, not answered."""

    def flash(heads: int, lq: int, d: int, layout: str) -> None:
        x = np.ones((1, heads, lq, d), np.float32)
        params = dict(b=1, heads=heads, kv_heads=heads, l=lq, s=lq, d=d, layout=layout, causal=False, scale=None)
        run_case("flash_attention", {**params, "mask": "none"}, dict.fromkeys(("q", "k", "v", "grad_out"), x), sse42)

    sse42 = profile_for_platform(PLATFORM)
    with pytest.raises(ParityError, match="one-element products"):
        flash(1, 1, 64, "bhnd")
    with pytest.raises(ParityError, match="rows a stride apart"):
        flash(3, 3, 1, "bnhd")  # (B, L, H, D) memory: a head's rows 3 floats apart
