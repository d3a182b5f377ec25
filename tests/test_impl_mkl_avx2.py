"""MKL's Intel AVX2 sgemm path (csrc/mkl_sgemm.h mkl_avx2_sgemm) against the committed fixture recorded
under QEMU's Haswell-v4 model (linux-x86_64-avx2-mklavx2-t1): chosen outputs compared as uint32 bit
patterns with the fixture's own tensors, and the same outputs under MKL's generic path shown to differ
(so that each check depends on the Intel path's model). No torch, no recording: the fixture only."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import linalg
from harness.impl.op_registry import run_case
from harness.impl.profiles import MKL_AVX2, get_profile, profile_for_platform
from tests.impl_intel_mkl import assert_model_reproduces, assert_own_profile, bits, digest, fixture, run

PLATFORM = "linux-x86_64-avx2-mklavx2-t1"
LEVEL = "x86-avx2"  # the ISA level's profile, MKL's generic path

# (case, output): outputs the model reproduces whole, each with elements MKL's generic path computes
# otherwise: K above 256 (two K blocks), the 6-row tile's edge rows, the 16-column tile's edge
# columns, A handed over transposed (K blocks of 96), row chunks of a 128-row product, bmm items,
# flash attention's blocks.
EXACT = (
    ("matmul/17x48_48x33", "out"),
    ("matmul/17x48_48x33", "grad_b"),
    ("matmul/2x2x32x64_2x2x64x32", "out"),
    ("matmul/2x2x32x64_2x2x64x32", "grad_a"),
    ("matmul/64x512_512x65", "out"),
    ("matmul/64x512_512x65", "grad_a"),
    ("matmul/64x512_512x65", "grad_b"),
    ("linear/3x5x48_to_17", "out"),
    ("linear/3x5x48_to_17", "grad_x"),
    ("linear/4x32x64_to_65_nobias", "grad_weight"),
    ("sdpa/1x1x100x64", "out"),
    ("sdpa/1x1x100x64", "grad_k"),
    ("sdpa_dropout/1x2x257x64", "out"),
)


def test_the_intel_avx2_platform_gets_its_own_profile():
    # the AVX2 path on a baseline machine: no such model
    assert_own_profile(
        PLATFORM, MKL_AVX2, "avx2", "linux-x86_64-avx2-mklgeneric-t1", "linux-x86_64-baseline-mklavx2-t1"
    )


@pytest.mark.parametrize(("case", "output"), EXACT, ids=[f"{c}/{o}" for c, o in EXACT])
def test_intel_avx2_sgemm_reproduces_the_fixture_bits(case: str, output: str):
    assert_model_reproduces(PLATFORM, case, output, MKL_AVX2, LEVEL)


def _mm_avx2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return linalg.mm(a, b, profile_for_platform(PLATFORM))


def test_k_blocks_and_tile_edges_follow_the_measured_rules():
    """Exact small cases of the rules in csrc/mkl_sgemm.h, built so that each rule changes the bits:
    a product's K blocks (2**24 at k = 0 swallows the ones after it in its own block, each later
    block's sum of ones survives), and the 2-lane sums of the edge columns."""
    for k, blocks_after_first in ((240, 0), (600, 172 + 172)):  # one block; 256, then halves 172, 172
        a = np.ones((6, k), np.float32)
        a[:, 0] = 2.0**24
        c = _mm_avx2(a, np.ones((k, 16), np.float32))
        assert np.all(c == np.float32(2.0**24 + blocks_after_first)), k
    # an edge column (N % 16 == 1): lanes of even and odd k; 2**24 at k = 0 swallows the even ones only
    a2 = np.ones((6, 8), np.float32)
    a2[:, 0] = 2.0**24
    b2 = np.ones((8, 17), np.float32)
    c2 = _mm_avx2(a2, b2)
    assert np.all(c2[:, :16] == np.float32(2.0**24))  # one chain: all seven ones lost
    assert np.all(c2[:, 16] == np.float32(2.0**24 + 4))  # even lane 2**24, odd lane 4: 2**24 + 4


def test_the_wide_form_of_x_at_w_t_has_its_own_k_blocks():
    """B stored transposed with M, N >= 56 (a plain sgemm): K = 400 is cut 192, 192, 16 (the 2**24 at
    k = 0 swallows the ones of the first block only); a smaller product of the same K takes two halves
    of 200."""
    k = 400
    for m, n, after_first in ((64, 65, 192 + 16), (24, 32, 200)):
        a = np.ones((m, k), np.float32)
        a[:, 0] = 2.0**24
        w = np.ones((n, k), np.float32)
        c = linalg.mm(a, w, profile_for_platform(PLATFORM), trans_b=True)
        assert np.all(c == np.float32(2.0**24 + after_first)), (m, n)


# Outputs of the committed fixtures recorded with MKL on 2 and 4 threads (the same Haswell-v4 model) that
# the thread split reproduces whole: each differs from the one-thread model's bits on the same inputs.
THREADED = tuple(
    (t, case, output)
    for t in (2, 4)
    for case, outputs in (
        ("linear/64x512_to_65", ("out", "grad_x", "grad_weight")),
        ("linear/4x32x64_to_65_nobias", ("out", "grad_x", "grad_weight")),
        ("matmul/64x512_512x65", ("out", "grad_a", "grad_b")),
        ("sdpa/1x1x100x64", ("out", "grad_q", "grad_k", "grad_v")),
    )
    for output in outputs
)


def _platform(threads: int) -> str:
    return f"linux-x86_64-avx2-mklavx2-t{threads}"


@pytest.mark.parametrize(("threads", "case", "output"), THREADED, ids=[f"t{t}/{c}/{o}" for t, c, o in THREADED])
def test_the_thread_split_reproduces_the_threaded_fixtures(threads: int, case: str, output: str):
    expected = bits(fixture(_platform(threads)).cases[case].outputs[output])
    got = bits(run(_platform(threads), case, MKL_AVX2, LEVEL)[output])
    assert got.shape == expected.shape
    assert np.array_equal(got, expected), f"{int((got != expected).sum())} of {got.size} elements differ"


@pytest.mark.parametrize("threads", (2, 4))
def test_each_threaded_fixture_case_needs_the_split(threads: int):
    """Per case, some output of the threaded fixture differs from the one-thread model's bits."""
    for case in ("linear/64x512_to_65", "linear/4x32x64_to_65_nobias", "matmul/64x512_512x65", "sdpa/1x1x100x64"):
        rec = fixture(_platform(threads)).cases[case]
        one = run_case(rec.op, rec.params, rec.inputs, _profile(1))
        assert any(not np.array_equal(bits(one[o]), bits(rec.outputs[o])) for o in rec.outputs), (threads, case)


def _profile(threads: int):
    return profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}")


def _big_first(m: int, k: int) -> np.ndarray:
    """Rows of ones with 2**24 at k = 0: a fused or unfused chain from k = 0 loses every later one, two
    lanes (even, odd k) keep the odd lane's k // 2 ones."""
    a = np.ones((m, k), np.float32)
    a[:, 0] = 2.0**24
    return a


def test_two_threads_cut_the_rows_of_a_narrow_product():
    """N <= 64 on 2 threads: rows cut at ceil(M/2), each part its own 6-row tiles: M = 62 is 31 + 31, so
    rows 30 and 61 are edge rows (1 or 2 left: unfused lanes); on one thread rows 60, 61 are."""
    a, b = _big_first(62, 64), np.ones((64, 32), np.float32)
    lanes, chain = np.float32(2.0**24 + 32), np.float32(2.0**24)
    one, two = linalg.mm(a, b, _profile(1)), linalg.mm(a, b, _profile(2))
    assert np.all(one[30] == chain) and np.all(one[60:] == lanes) and np.all(one[:60] == chain)
    assert np.all(two[30] == lanes) and np.all(two[61] == lanes)
    assert np.all(two[:30] == chain) and np.all(two[31:61] == chain)


def test_three_threads_cut_the_rows_in_three():
    """N <= 64 on 3 threads: 3 row parts of ceil(M/3): M = 62 is 21, 21, 20, so the last 3 rows of the
    first two parts take the fused lanes (21 % 6 = 3) and the last 2 of the third the unfused ones: 2**24 +
    32 on rows 18 to 20, 39 to 41, 60 and 61, the chain's 2**24 elsewhere; one thread gives the lanes on
    rows 60 and 61 only. The bits MKL gave under Haswell-v4 on 3 threads."""
    a, b = _big_first(62, 64), np.ones((64, 32), np.float32)
    lanes = [*range(18, 21), *range(39, 42), 60, 61]
    three = linalg.mm(a, b, _profile(3))
    assert np.all(three[lanes] == np.float32(2.0**24 + 32))
    assert np.all(np.delete(three, lanes, axis=0) == np.float32(2.0**24))
    one = linalg.mm(a, b, _profile(1))
    assert not np.array_equal(one.view(np.uint32), three.view(np.uint32))


def test_four_threads_cut_the_rows_in_four():
    """N <= 64 on 4 threads: 4 row parts of ceil(M/4): M = 64 is 16 x 4, each with 4 edge rows (4 left:
    the chain), so no lanes anywhere; M = 62 is 16, 16, 16, 14: rows 60, 61 (2 left) take the lanes."""
    b = np.ones((64, 32), np.float32)
    assert np.all(linalg.mm(_big_first(64, 64), b, _profile(4)) == np.float32(2.0**24))
    c = linalg.mm(_big_first(62, 64), b, _profile(4))
    assert np.all(c[60:] == np.float32(2.0**24 + 32)) and np.all(c[:60] == np.float32(2.0**24))


def test_two_threads_cut_wide_columns_in_halves_with_the_wide_kernel():
    """N > 128 on 2 threads: columns cut at floor(N/2), the wide kernel in each part: N = 140 is 70 + 70,
    each part's last 70 % 24 = 22 columns a chain of 16, then 6 in fused lanes (columns 64..69 and
    134..139); on one thread (B row-major: the narrow kernel) N % 16 = 12 columns take the chain."""
    a, b = _big_first(64, 64), np.ones((64, 140), np.float32)
    lanes, chain = np.float32(2.0**24 + 32), np.float32(2.0**24)
    assert np.all(linalg.mm(a, b, _profile(1)) == chain)
    two = linalg.mm(a, b, _profile(2))
    cols = np.r_[64:70, 134:140]
    assert np.all(two[:, cols] == lanes)
    assert np.all(np.delete(two, cols, axis=1) == chain)


def test_small_products_stay_on_one_thread():
    """Below M*N*K = 100,000 MKL does not cut the product: the one-thread bits at 2 and 4 threads."""
    a, b = _big_first(62, 16), np.ones((16, 32), np.float32)  # 31,744 products
    one = linalg.mm(a, b, _profile(1))
    for t in (2, 4):
        assert np.array_equal(linalg.mm(a, b, _profile(t)).view(np.uint32), one.view(np.uint32)), t


def test_gemv_axpy_form_is_one_fused_chain_without_k_blocks():
    """M = 1 with B row-major: one fused chain from beta*C in k order over all of K (no K blocks: the
    2**24 at k = 0 swallows all 599 ones; blocks would keep the later blocks' sums); fused: with
    x = 1 + 2**-12, -1 + x*x keeps the 2**-24 that a rounded product (MKL's generic path) loses."""
    a, b = _big_first(1, 600), np.ones((600, 20), np.float32)
    assert np.all(linalg.mm(a, b, _profile(1)) == np.float32(2.0**24))
    c = linalg.addmm(np.full(20, 3.0, np.float32), a, b, _profile(1))
    assert np.all(c == np.float32(2.0**24 + 4))  # 3 + 2**24 rounds to 2**24 + 4; then every one is lost
    x = np.float32(1 + 2.0**-12)
    a2 = np.array([[1.0, x]], np.float32)
    b2 = np.tile(np.array([[-1.0], [x]], np.float32), (1, 20))
    assert np.all(linalg.mm(a2, b2, _profile(1)) == np.float32(2.0**-11 + 2.0**-24))
    assert np.all(linalg.mm(a2, b2, get_profile("x86-avx2", 1)) == np.float32(2.0**-11))


def test_the_wide_forms_last_single_row_takes_the_lanes_in_every_edge_column():
    """The wide form (x @ W.T, M, N >= 56): N = 57 leaves r = 57 % 24 % 16 = 9 edge columns, the first 8
    in fused lanes, the odd last one (column 56) the chain, except in a last single row (M % 4 = 1:
    row 56), where it takes the lanes too."""
    a, w = _big_first(57, 64), np.ones((57, 64), np.float32)
    c = linalg.mm(a, w, _profile(1), trans_b=True)
    lanes, chain = np.float32(2.0**24 + 32), np.float32(2.0**24)
    assert np.all(c[:, 48:56] == lanes) and np.all(c[:, :48] == chain)
    assert np.all(c[:56, 56] == chain) and c[56, 56] == lanes


# Flash attention's one-row q block (sdpa 1x2x257x64: rows 256 of each head): its q @ k.T and
# grad_out @ v.T are MKL's gemv dot form (M = 1, B stored transposed), at 1, 2 and 4 threads.
DOT_FORM = tuple((t, o) for t in (1, 2, 4) for o in ("out", "grad_q", "grad_k", "grad_v"))


@pytest.mark.parametrize(("threads", "output"), DOT_FORM, ids=[f"t{t}/{o}" for t, o in DOT_FORM])
def test_the_gemv_dot_form_reproduces_flash_attentions_one_row_block(threads: int, output: str):
    assert_model_reproduces(_platform(threads), "sdpa/1x2x257x64", output, MKL_AVX2, LEVEL)


# Rows of ones with 2**30 and -2**30 at two k (K = 37): the ones that survive tell which lanes meet
# when. Bits recorded by torch under QEMU's Haswell-v4 model, the same at 1, 2 and 4 threads.
_PAIRS = ((0, 8), (0, 32), (0, 1), (4, 5), (0, 4), (0, 2), (6, 36))
_PAIRS_MKL = (35, 32, 27, 28, 18, 0, 0)


def _pair_rows(k: int = 37) -> np.ndarray:
    w = np.ones((len(_PAIRS), k), np.float32)
    for r, (a, b) in enumerate(_PAIRS):
        w[r, a], w[r, b] = 2.0**30, -(2.0**30)
    return w


@pytest.mark.parametrize("threads", (1, 2, 4))
def test_gemv_dot_form_lanes_and_their_sum_tree(threads: int):
    """8 lanes of k % 8, the last partial step in its lanes (k = 32 follows 24 in lane 0, k = 36 is in
    lane 4), lanes added ((l0 + l1) + (l4 + l5)) + ((l2 + l3) + (l6 + l7)): a pair in one lane (0, 8)
    loses nothing, (0, 32) the three ones between, lanes 0 and 1 their other eight, 4 and 5 seven (lane
    4 has 5 products), lanes 0 and 4 meet second, 0 and 2 (or 6 and 4) last, losing every one. Both
    gemv shapes: x @ W.T (M = 1) and A @ v (N = 1)."""
    w, expected = _pair_rows(), np.array(_PAIRS_MKL, np.float32)
    p = _profile(threads)
    assert np.array_equal(linalg.mm(np.ones((1, 37), np.float32), w, p, trans_b=True)[0], expected)
    assert np.array_equal(linalg.mm(w, np.ones((37, 1), np.float32), p)[:, 0], expected)
    generic = linalg.mm(w, np.ones((37, 1), np.float32), get_profile(LEVEL, threads))[:, 0]
    assert not np.array_equal(generic, expected)


def test_gemv_dot_form_lanes_are_fused():
    """-1 * 1 in lane 0 at k = 0, then x * x at k = 8 (x = 1 + 2**-12): fused, -1 + x*x keeps the
    2**-24 that a rounded product (MKL's generic path) loses."""
    x = np.float32(1 + 2.0**-12)
    a = np.zeros((1, 9), np.float32)
    a[0, 0], a[0, 8] = -1.0, x
    b = np.zeros((3, 9), np.float32)
    b[:, 0], b[:, 8] = 1.0, x
    assert np.all(linalg.mm(a, b, _profile(1), trans_b=True) == np.float32(2.0**-11 + 2.0**-24))
    assert np.all(linalg.mm(a, b, get_profile(LEVEL, 1), trans_b=True) == np.float32(2.0**-11))


def test_gemv_dot_form_of_bmm_items_with_one_row():
    """bmm of x @ W.T with one row per item (518 products per item: MKL's batched gemm, not ATen's
    loop) takes the same lanes in every item."""
    w = np.concatenate([_pair_rows(), _pair_rows()[::-1]])
    got = linalg.bmm(np.ones((2, 1, 37), np.float32), np.stack([w, w[::-1]]).transpose(0, 2, 1), _profile(1))
    row = np.array(_PAIRS_MKL + _PAIRS_MKL[::-1], np.float32)
    assert np.array_equal(got[:, 0], np.stack([row, row[::-1]]))


@pytest.mark.parametrize("threads", (2, 4))
def test_gemv_dot_form_keeps_k_whole_up_to_8192(threads: int):
    """At 2 and 4 threads MKL keeps each dot whole (K = 8192, 3 rows: 2**24 at k = 0 swallows lane 0's
    1,023 later ones and nothing else; K = 20,000 is cut between the threads, not modelled)."""
    a = _big_first(3, 8192)
    c = linalg.mm(a, np.ones((8192, 1), np.float32), _profile(threads))
    assert np.all(c == np.float32(2.0**24 + 8191 - 1023))


def test_batched_items_are_cut_into_parts_at_three_threads():
    """bmm of 2 items of 130 x 20 (K = 40, B row-major) on 3 threads: MKL's batched gemm cuts each item's
    rows into parts of 80 and 50 (mkl_batch_split, as on the generic path), each with its own row chunks
    and 6-row edges. The sha256 of the bits MKL gave under Haswell-v4 (operands from default_rng(5)); the
    one-thread model, whole items, gives other bits."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 130, 40)).astype(np.float32)
    b = rng.standard_normal((2, 40, 20)).astype(np.float32)
    got = linalg.bmm(a, b, _profile(3))
    assert digest(got) == "1dd79ea33b9313cf"
    assert not np.array_equal(bits(linalg.bmm(a, b, _profile(1))), bits(got))
