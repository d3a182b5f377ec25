"""MKL's Intel AVX2 sgemm (csrc/mkl_sgemm.h) on constructed products that no committed fixture holds:
which products take the wide form (every layout and batch item, thresholds 56 with B stored transposed
and 72 with B row-major), the wide form's edge lanes over whole steps of 4, alpha (flash attention's
scale) on each kernel, the narrow kernel's row chunks with B stored transposed, at::bmm's items of
one column (the same kernel; 1 and 4 threads), the dot kernel of two and three columns. Each product's
operands come from a seeded NumPy generator; the digests are of torch 2.13.0's bits under
``qemu-x86_64 -cpu Haswell-v4`` (one thread unless given, ATEN_CPU_CAPABILITY=avx2), and ``before`` is the digest
the model gave before these rules (None where it already agreed): so each check depends on the rule
it names. No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.op_registry import run_case
from harness.impl.profiles import profile_for_platform
from tests.impl_intel_mkl import digest, stored_operands

PROFILE = profile_for_platform("linux-x86_64-avx2-mklavx2-t1")

# (layout: A / B stored transposed, batch items (0: torch.mm), M, N, K, torch's digest, the old model's)
PRODUCTS = (
    ("nn", 0, 72, 200, 38, "415daec8fb41ea41", "5f5a70dfe6902fbe"),  # B row-major: wide from 72
    ("nn", 0, 71, 200, 38, "b29313ce1d7c6fb4", None),  # 71: the narrow kernel
    ("ta", 0, 200, 72, 38, "1950168794ac7e23", "56b58214a8ce187f"),  # A transposed too
    ("ta", 0, 200, 71, 38, "ce3f81433427bcea", None),
    ("tt", 0, 200, 56, 38, "7dcada89b715636a", "2e048828c267bb82"),  # B transposed: wide from 56
    ("tt", 0, 200, 55, 38, "65d28783ecb85895", None),
    ("tb", 2, 56, 200, 38, "eaf406b74373f740", "924be1a550781a96"),  # batch items too
    ("nn", 2, 83, 245, 20, "ab7df0c013f776e6", "9847be44359eab26"),
    ("tb", 0, 64, 90, 38, "117e074f0eb305ae", "26fb0867b39be082"),  # r = 2 edge lanes, K % 4 = 2: by 4
    ("nn", 0, 116, 213, 41, "5f29203aa716fefb", "bf624eaa61b656f6"),
    ("ta", 0, 258, 127, 10, "56d3609f9f6d2c9c", "8888c534ee46aa48"),
    ("nn", 0, 100, 101, 700, "cfd3f48826996271", "423c4d1fe9f68f1c"),  # K blocks of 192 from k = 0
)
# the narrow kernel's row chunks with B stored transposed (96 while more than 192 rows are left, then
# whole up to 144 or halves), as PRODUCTS (operands from seed 300 + index)
CHUNKS = (
    ("tb", 0, 173, 16, 60, "7ba7c77ad5b6173c", "faf4277a89a68d8e"),  # halves 87, 86
    ("tb", 0, 255, 20, 40, "bc5ad87ff42abe97", "94c697494fd02c9b"),  # 96, then halves 80, 79
    ("tt", 0, 161, 6, 45, "1ffd0dce3d0271a7", "ae450b26e008bc1c"),  # halves 81, 80
    ("tb", 0, 144, 20, 40, "60a80114baff9f3f", None),  # whole
    ("tb", 0, 145, 20, 40, "45f4164c8e085462", "0e13c325d23334dc"),  # halves 73, 72
    ("nn", 0, 145, 20, 40, "064753a90adc17a2", None),  # B row-major: 48, 48, then 49 whole
)
# at::bmm items of one column (N = 1): the same kernel as wider products (K blocks of 256, or 96 with A
# transposed; the edge forms of a single column), as PRODUCTS plus MKL's thread count (operands from
# seed 400 + index); A row-major with B stored transposed below 16 rows: refused (not found)
COLUMN_ITEMS = (
    ("nn", 3, 50, 1, 300, 1, "d5f1fc723a782815", "1910fe5d94e2343f"),
    ("ta", 2, 37, 1, 500, 1, "16f862db4623cd3a", "d5a8c16e4a7adc91"),
    ("tt", 3, 9, 1, 120, 1, "da0fb84fa14b98da", "f14e4bf524df724c"),
    ("tb", 2, 40, 1, 200, 1, "e08a4e91924632ac", "6aa0f980b405c77c"),
    ("nn", 2, 100, 1, 45, 1, "eced3189e815c9c6", "08b969c9e19b5faa"),
    (
        "nn",
        2,
        130,
        1,
        257,
        4,
        "0ab3614807406743",
        "43e98147171ccbd0",
    ),  # fewer items than threads: each item cut into parts
    ("ta", 3, 61, 1, 700, 4, "a7fce2bbf694a006", "ca3a2d55f9c732ab"),
)
# MKL's dot kernel (A row-major, B stored transposed, N == 2 below 16 rows, N == 3 below 11) and the
# shapes beside it that take the tiles, as PRODUCTS (operands from seed 500 + index); the same digests
# on an Intel Xeon (MKL_ENABLE_INSTRUCTIONS=AVX2) as under emulation
DOT_ROWS = (
    ("tb", 0, 2, 2, 40, "65e9e40a8fda26e0", "4f43788cc90ddfca"),  # a pair of rows, 4 lanes over k 32..39
    ("tb", 0, 3, 2, 47, "a7634ccb5f63cddf", "33a116e2e81958bc"),  # an odd last row: no 4-lane step
    ("tb", 0, 15, 2, 300, "7eff71f2c8bc9b12", "52c1495b263d8c90"),  # N == 2 up to 15 rows
    ("tb", 0, 10, 3, 97, "57800c7d7f502145", "c173432a5adf68bc"),  # N == 3 up to 10 rows
    ("tb", 0, 7, 3, 1000, "bd9c801f3818f39a", "5a8dbdd8186e821d"),  # no K blocks
    ("tb", 0, 11, 3, 97, "c6ea6c82c4cde628", "da07b4759b3c6223"),  # 11 rows of 3: the tiles
    ("tb", 0, 16, 2, 100, "4053bbbfb1908a2b", None),  # 16 rows of 2: the tiles
    ("tt", 0, 5, 2, 60, "dcc2df9d3768bdef", "bfeea7e0b908cb0d"),  # A transposed: the tiles
)
# addmm on the dot kernel (alpha 0.5 on the sum, beta 1) and K == 1 (the tiles' single fma), as DOT_ROWS
# plus alpha and beta (operands from seed 600 + index, C from a generator of its own with that seed)
DOT_ROWS_ADDMM = (
    ("tb", 5, 3, 200, 0.5, 1.0, "f78510474aa30d06", "4f3842847be5c90a"),
    ("tb", 4, 2, 1, 1.0, 1.0, "a9b1bcf271fc1c77", "2221c1639dc196e7"),
)
# causal sdpa (B, H, L, D): out, grad_q, grad_k, grad_v; the scale 1/sqrt(D) is no power of two
SDPA = (
    # grad_k's products (121 x 80, A transposed) take the wide form: alpha on B's elements
    ((1, 1, 121, 80), ("28bd3e6ad8c6d310", "a1eb5d4c9db748e4", "7a4926dc883755b2", "d9e98e4147229251")),
    # every product narrow: alpha on each block's sum
    ((2, 3, 21, 32), ("c639bbd33bdaf678", "d48e3fc9e66c8d95", "7156ba7775d8deae", "f6ce421f54a14955")),
)
SDPA_BEFORE = {  # the old model's grad_q, grad_k, grad_v (its out agreed)
    (1, 1, 121, 80): ("2b857023a9c25f9c", "12c36c9ce2f84031", "97c732ff89e04e62"),
    (2, 3, 21, 32): ("9670c0fe91c3791e", "9f63828b32acc0b9", "26d9e30edfeac9dd"),
}


def operands(layout: str, items: int, m: int, n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return stored_operands(np.random.default_rng(seed), layout, items, m, n, k)


def assert_product(row: tuple, seed: int, profile=PROFILE) -> None:
    """A table row (layout, items, M, N, K, torch's digest, the old model's): the model's bits of the
    product (at::bmm where items, else torch.mm) are torch's, and the old model's were not."""
    layout, items, m, n, k, torch_bits, before = row
    a, b = operands(layout, items, m, n, k, seed=seed)
    c = linalg.bmm(a, b, profile) if items else linalg.mm(a, b, profile)
    assert digest(c) == torch_bits
    assert before != torch_bits


@pytest.mark.parametrize("index", range(len(PRODUCTS)), ids=[f"{p[0]}-{p[1]}x{p[2]}x{p[3]}x{p[4]}" for p in PRODUCTS])
def test_wide_form_thresholds_and_lanes(index: int):
    assert_product(PRODUCTS[index], seed=100 + index)


@pytest.mark.parametrize("index", range(len(CHUNKS)), ids=[f"{p[0]}-{p[2]}x{p[3]}x{p[4]}" for p in CHUNKS])
def test_row_chunks_with_b_transposed(index: int):
    assert_product(CHUNKS[index], seed=300 + index)


@pytest.mark.parametrize(
    "index", range(len(COLUMN_ITEMS)), ids=[f"{p[0]}-{p[1]}x{p[2]}x1x{p[4]}" for p in COLUMN_ITEMS]
)
def test_batch_items_of_one_column(index: int):
    *shape, threads, torch_bits, before = COLUMN_ITEMS[index]
    assert_product((*shape, torch_bits, before), seed=400 + index, profile=PROFILE.with_threads(threads))


def test_batch_items_of_one_column_not_found_are_refused():
    """A row-major, B stored transposed, 2 to 15 rows: MKL's bits differ from every form tried."""
    for m in (2, 10, 15):
        with pytest.raises(ParityError):
            linalg.bmm(*operands("tb", 2, m, 1, 300, seed=1), PROFILE)
    linalg.bmm(*operands("tb", 2, 16, 1, 100, seed=1), PROFILE)
    linalg.bmm(*operands("tt", 2, 10, 1, 100, seed=1), PROFILE)


@pytest.mark.parametrize("index", range(len(DOT_ROWS)), ids=[f"{p[0]}-{p[2]}x{p[3]}x{p[4]}" for p in DOT_ROWS])
def test_dot_kernel_of_two_and_three_columns(index: int):
    assert_product(DOT_ROWS[index], seed=500 + index)


@pytest.mark.parametrize("index", range(len(DOT_ROWS_ADDMM)), ids=[f"{p[1]}x{p[2]}x{p[3]}" for p in DOT_ROWS_ADDMM])
def test_dot_kernel_alpha_beta_and_k1(index: int):
    layout, m, n, k, alpha, beta, torch_bits, before = DOT_ROWS_ADDMM[index]
    a, b = operands(layout, 0, m, n, k, seed=600 + index)
    c = np.random.default_rng(600 + index).standard_normal((m, n)).astype(np.float32)
    out = linalg.addmm(c, a, b, PROFILE, alpha=alpha, beta=beta)
    assert digest(out) == torch_bits
    assert before != torch_bits


@pytest.mark.parametrize("index", range(len(SDPA)), ids=["x".join(map(str, s)) for s, _ in SDPA])
def test_alpha_on_each_kernel(index: int):
    shape, torch_bits = SDPA[index]
    rng = np.random.default_rng(200 + index)
    q, k, v, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(4))
    params = {"shape": list(shape), "dropout_p": 0.0, "is_causal": True}
    out = run_case("sdpa", params, {"q": q, "k": k, "v": v, "grad_out": g}, PROFILE)
    assert tuple(digest(out[name]) for name in ("out", "grad_q", "grad_k", "grad_v")) == torch_bits
    assert all(old != new for old, new in zip(SDPA_BEFORE[shape], torch_bits[1:], strict=True))
