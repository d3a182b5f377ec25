"""MKL's Intel AVX2 sgemm on 2 and 4 threads (csrc/mkl_sgemm.h mkl_avx2_split): how MKL cuts C between its
threads, on products of random operands. Each product's operands come from a seeded NumPy generator (A, B
and C drawn in their stored shapes, in that order, as the probe under emulation drew them); the digests
are of torch 2.13.0's bits under ``qemu-x86_64 -cpu Haswell-v4`` (ATEN_CPU_CAPABILITY=avx2,
``torch.set_num_threads(T)``, ``torch.mm`` or ``addmm_`` into C), and ``before`` the digest the model gave
before these rules: so each check depends on the rule it names. No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import profile_for_platform
from tests.impl_intel_mkl import causal_sdpa_digests, digest, flash_digests, stored_operands

# (threads, M, N, K, A stored transposed, B stored transposed, addmm, seed, torch's digest, the old model's)
PRODUCTS = (
    (2, 38, 271, 168, 0, 1, 0, 210001, "8819550019c439f8", "dff02b1ad17f4fdd"),  # columns at floor(N/2) = 135, wide
    (2, 10, 258, 127, 0, 1, 0, 210000, "00bddb436c6dcca5", "127fd01b3cf9df22"),  # narrow: at a multiple of 16
    (2, 406, 140, 196, 0, 1, 0, 210106, "7b04dc2d2cc6c925", "de925ea53308c885"),  # M > N: rows at floor(M/2)
    (2, 12, 233, 41, 1, 0, 0, 210009, "3133e3e8c29252f4", "fc636f24f8934025"),  # A transposed: wide at M = 12
    (2, 301, 102, 345, 0, 0, 1, 210118, "ad98bada033c5ae3", "6d0a7177c6d48c70"),  # N <= 128, wide: floor(M/2)
    (2, 240, 11, 37, 1, 0, 1, 410138, "6fff76996a2e529d", "52d7071b653ab8ba"),  # M*N*K = 97,680: cut
    (4, 406, 140, 196, 0, 1, 0, 210106, "985593cca96070d7", "b428342e9842aed6"),  # 4 row parts of round(M/4)
    (4, 152, 417, 422, 0, 1, 1, 210104, "605449c9d896e8a0", "1e4db649d3f4c3d7"),  # 4 column parts of round(N/4)
    (4, 64, 180, 120, 0, 1, 1, 310107, "f288deccdf65241e", "c1b4f0ad23169917"),  # M = 64: narrow, rows at 32
    (4, 31, 51, 50, 0, 1, 0, 310149, "0d6b273abdafaee6", "ee85332a8c891c44"),  # M*N*K = 79,050: cut
    # K long on 2 threads (the same digests on an Intel Xeon with MKL_ENABLE_INSTRUCTIONS=AVX2):
    (2, 100, 64, 800, 0, 0, 0, 220001, "4e58cf337973bc5c", "2f4a706689c1acd7"),  # K cut at 400, each wide
    (2, 200, 64, 906, 0, 1, 0, 220002, "c17fe4603b5ef35b", "a6ca2c394a9b2b09"),  # K = N + 3M + 242: K cut
    (2, 200, 64, 905, 0, 1, 0, 220003, "bbf677b80d616513", "5d63870faea72256"),  # one less: C cut, wide
    (2, 64, 200, 650, 1, 0, 1, 220004, "39ead59bc5fabed2", "0976ba468857b2d5"),  # N > 128, M > 32: below 756
    (2, 160, 64, 780, 0, 0, 1, 220005, "b2210489d3aa82bc", "de1b31b59a78e26c"),  # rows cut, wide from K = 756
    (2, 220, 220, 16, 0, 1, 0, 220007, "2a390ec04fdfb25f", "4b0dddad2de7d3b7"),  # square, N > 128: rows cut
    (2, 300, 300, 100, 0, 0, 1, 220008, "c36327e19826629c", "58fce98790fdbc89"),
    # A transposed, M*N < 4,096: K cut from K = 336 (the old model refused these: None)
    (2, 10, 223, 487, 1, 0, 0, 220009, "24bb2b02381ae28d", None),
    (2, 24, 150, 600, 1, 1, 1, 220010, "a44dd95951d55518", None),
    # K < 8 with M > 64 and N > 128 on 2 threads (on the Xeon, MKL_ENABLE_INSTRUCTIONS=AVX2): the model's cut of C
    # for K 5 to 7, and for K 3 and 4 with A transposed (refused before; the one-thread model's digest)
    (2, 354, 447, 5, 0, 0, 0, 230001, "66006f187be12331", "1920e4d5ee08dc0e"),
    (2, 142, 551, 6, 1, 1, 1, 230002, "e001a8458cfa1153", "5ab6679f3cb26acf"),
    (2, 128, 505, 4, 1, 0, 0, 230003, "c39263afb099d46d", "393f474446b79568"),
    # on the Xeon, 2 threads: from K = 756 a cut of C where M or N is 379 or more (the old model cut K), C's
    # columns cut from N = 768 even where M >= N (the old model cut rows), rows cut at floor(M/2) from K = 756
    (2, 162, 461, 1836, 0, 0, 0, 240001, "ffee7020bbecb44d", "42e74e7129c5e4f5"),
    (2, 607, 104, 5666, 0, 0, 0, 240002, "7666a081f32df61c", "59e95396e66dabe2"),
    (2, 800, 800, 400, 0, 0, 0, 240003, "d2af6684fdcd0e4e", "4b8707b251d3144b"),
    (2, 315, 47, 989, 0, 0, 0, 240004, "664d17de0c00b54a", "b53ae9bb3c2b2cce"),
    (2, 482, 289, 2953, 1, 0, 1, 240005, "59cb00612d6a15de", "580f36616319a4dd"),
    # and K cut where M < N, N >= 1,304, K >= N and 8M <= K (at K = N; at 8M = K, 8 x 227 > 1,815 is C), C at N 1,303
    (2, 100, 2000, 2000, 1, 0, 0, 250001, "3f896249a06fc40c", "c5499030bbe2ff3d"),
    (2, 100, 1303, 2606, 0, 1, 0, 250004, "a3b23129507b3d18", "517a58c70eb8c881"),
    (2, 226, 1449, 1815, 0, 0, 1, 250006, "36dac7d5602270b8", "ac4530515b3e85ba"),
    # 3 threads: rows cut in three above M*N*K = 72,000 (the same under Haswell-v4; the old bound was 100,000)
    (3, 22, 36, 91, 0, 0, 0, 22 * 36 * 91, "8f79d9fb81f283dd", "83d1522d9a64c0eb"),
    (3, 62, 32, 37, 0, 0, 0, 62 * 32 * 37, "1836a6e20c5efdbc", "66db072a6ffc51f8"),
)  # fmt: skip


# (threads, M, N, K, B stored transposed, torch's digest): M*N*K at each thread count's bound, and just above it
# (torch 2.13.0 on an Intel Xeon, MKL_ENABLE_INSTRUCTIONS=AVX2; 3 threads the same under Haswell-v4)
AT_THE_BOUND = (
    (3, 24, 40, 75, 0, "cb43117afff517ab"), (3, 62, 32, 36, 0, "13bf8ec7c9971814"),
    (2, 50, 16, 120, 1, "db2cdc3a8b9b2061"), (2, 30, 40, 80, 1, "037007066b106cf0"),
    (2, 64, 15, 100, 0, "9b790efc5c6b23fd"),
    (4, 80, 40, 20, 0, "bd63ddda1b42f8bc"), (4, 20, 32, 100, 1, "09918322178823c7"),
)  # fmt: skip
ABOVE_THE_BOUND = ((2, 61, 16, 99, 1, "0f5fe05c308c2cfd"), (4, 20, 32, 101, 1, "16900ea530450908"))


@pytest.mark.parametrize(("threads", "m", "n", "k", "tb", "torch_bits"), AT_THE_BOUND)
def test_the_bound_itself_stays_whole(threads: int, m: int, n: int, k: int, tb: int, torch_bits: str):
    """M*N*K of exactly 72,000 (3 threads), 96,000 (2) or 64,000 (4): MKL leaves the call whole, so torch's
    bits are the one-thread model's (a cut at 96,000 and 64,000 gave other bits for each of these)."""
    a, b, _ = operands(m, n, k, 0, tb, m * n * k)
    assert digest(linalg.mm(a, b, profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}"))) == torch_bits
    assert digest(linalg.mm(a, b, profile_for_platform("linux-x86_64-avx2-mklavx2-t1"))) == torch_bits


@pytest.mark.parametrize(("threads", "m", "n", "k", "tb", "torch_bits"), ABOVE_THE_BOUND)
def test_just_above_the_bound_is_cut(threads: int, m: int, n: int, k: int, tb: int, torch_bits: str):
    a, b, _ = operands(m, n, k, 0, tb, m * n * k)
    assert digest(linalg.mm(a, b, profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}"))) == torch_bits
    assert digest(linalg.mm(a, b, profile_for_platform("linux-x86_64-avx2-mklavx2-t1"))) != torch_bits


def operands(m: int, n: int, k: int, ta: int, tb: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((k, m) if ta else (m, k), dtype=np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n), dtype=np.float32)
    c = rng.standard_normal((m, n), dtype=np.float32)
    return (a.T if ta else a), (b.T if tb else b), c


@pytest.mark.parametrize("index", range(len(PRODUCTS)), ids=[f"t{p[0]}-{p[1]}x{p[2]}x{p[3]}" for p in PRODUCTS])
def test_the_cut_of_c_between_threads(index: int):
    threads, m, n, k, ta, tb, add, seed, torch_bits, before = PRODUCTS[index]
    a, b, c = operands(m, n, k, ta, tb, seed)
    profile = profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}")
    got = linalg.addmm(c, a, b, profile) if add else linalg.mm(a, b, profile)
    assert digest(got) == torch_bits
    assert before != torch_bits


# shapes whose cut MKL makes by a rule the model does not have: refused, not answered (on 2 threads: A
# transposed with N > 340 where K is cut, and with M < 8, N > 128 and K > N; fewer than 8 rows where K is cut;
# K of 2 or 3 at any M and N; from K = 756 fewer than 24 columns (some, like 40 x 16 x 1,500, are the model's
# cut, others not: 629 x 11 x 1,379), a side of 56 or less against 379 or more, A row-major with N <= 64 and
# M >= 379; on 3 threads N > 128, or 64 < N <= 128 with M < 48, K of 1,134 or more, A transposed with M > 128;
# on 5 or more threads above M*N*K = 64,000)
REFUSED = (
    (2, 11, 355, 579, 1), (2, 4, 200, 800, 1), (2, 5, 100, 1000, 0), (4, 4, 277, 85, 1), (2, 174, 281, 3, 0),
    (2, 1022, 78, 2, 0), (2, 845, 85, 3, 0), (2, 40, 16, 1500, 0), (2, 629, 11, 1379, 0), (2, 10, 646, 1811, 0),
    (2, 671, 28, 1324, 1), (2, 379, 64, 3000, 0),
    (3, 57, 244, 309, 1), (3, 41, 100, 30, 0), (3, 62, 32, 1200, 0), (3, 150, 40, 300, 1), (5, 100, 100, 100, 0),
    (8, 59, 198, 116, 1),
)  # fmt: skip


@pytest.mark.parametrize(("threads", "m", "n", "k", "ta"), REFUSED)
def test_unmodelled_cuts_are_refused(threads: int, m: int, n: int, k: int, ta: int):
    a, b, _ = operands(m, n, k, ta, 0, 1)
    with pytest.raises(ParityError, match="not modelled"):
        linalg.mm(a, b, profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}"))
    one = linalg.mm(a, b, profile_for_platform("linux-x86_64-avx2-mklavx2-t1"))  # one thread: modelled
    assert one.shape == (m, n)
    with pytest.raises(ParityError, match="not modelled"):  # a batch of one is MKL's plain sgemm too
        linalg.matmul(a[None], b[None], profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}"))


# causal sdpa (B, H, L, D) on T threads, B*H >= 2: flash attention's gemms run inside its OpenMP region; MKL
# cuts them as outside, the narrow kernel in every part, except grad_k's and grad_v's products (A transposed),
# which keep the outside kernel, whole where that is the wide one (q, k, v, grad_out from default_rng(seed));
# torch's out, grad_q, grad_k, grad_v digests under Haswell-v4 and the old model's grad_k
SDPA = (
    ((2, 2, 185, 32), 601, 2,
     ("550e1241e4d62e89", "11c697ef45cc7213", "f6ebe42fd309a236", "04b8069f6b85c34d"), "945bdcf5d55941d6"),
    ((1, 3, 150, 80), 602, 2,
     ("7d63e25e042b18a4", "11ef12e4756225fe", "0984ccfa37852eaf", "f1227c002064df28"), "07271101c4c0ed52"),
    ((1, 3, 150, 80), 602, 4,
     ("7d63e25e042b18a4", "11ef12e4756225fe", "0984ccfa37852eaf", "f1227c002064df28"), "73083e156815179f"),
    ((2, 1, 100, 136), 603, 2,
     ("d44877ed07b42606", "e488a2fb48462581", "d3bd740aa563b6bf", "5c1d675ddaaeb388"), "0911e65f16366e9c"),
)  # fmt: skip
SDPA_IDS = [f"{'x'.join(map(str, c[0]))}-t{c[2]}" for c in SDPA]
# longer sequences on 2 threads (q blocks of 64; the same digests on an Intel Xeon and under Haswell-v4):
# q k^T whose columns MKL would cut outside the region runs whole with the outside kernel (232: wide);
# a last q block of one row: its gemv 'N' whole inside the region, cut along K outside it (385, one head:
# the backward's calls), alpha on the vector's elements, and grad_k's K = 1 update fmaf(alpha*a, b, C)
# (scale 1/sqrt(24), 1/sqrt(32)); torch's out, grad_q, grad_k, grad_v digests and the old model's
SDPA_LONG = (
    ((1, 2, 232, 24), 611, ("daa4289444e53be9", "6c1e8faab99b54c7", "933b07504bb082cb", "e85468a9cec04bc9"),
     ("2174c035851da933", "6c4d15ffdf3ecf5b", "0ad6e05398898fa2", "24e1096ccd6bffd1")),
    ((2, 3, 193, 32), 612, ("a8afa5a6f8d955ad", "027c2ea3adcc852b", "38f13a79880a70e1", "c9277a2fc353d072"),
     ("a8afa5a6f8d955ad", "d8ff97921a24dd1f", "24525a3d50eeee66", "1eb49775a9b5e26b")),
    ((1, 1, 385, 24), 613, ("725c11d7a8d12a0b", "7ca1b93d70216652", "f39dccb8b23f3850", "d7b420d9001c1853"),
     ("725c11d7a8d12a0b", "6d25d760caa4af6f", "fc54667d52af38c6", "d7b420d9001c1853")),
    ((1, 1, 385, 16), 614, ("3fe19de7ed4f8629", "c2c837ee55317689", "6ed7e156c076f7fa", "ee2e1393f361a8cd"),
     ("3fe19de7ed4f8629", "3862d160d5bd47c5", "6ed7e156c076f7fa", "ee2e1393f361a8cd")),
)  # fmt: skip


@pytest.mark.parametrize("index", range(len(SDPA_LONG)), ids=["x".join(map(str, c[0])) for c in SDPA_LONG])
def test_long_sequences_and_one_row_q_blocks_on_two_threads(index: int):
    shape, seed, torch_bits, old = SDPA_LONG[index]
    assert causal_sdpa_digests(shape, seed, "linux-x86_64-avx2-mklavx2-t2") == torch_bits
    assert old != torch_bits


@pytest.mark.parametrize("index", range(len(SDPA)), ids=SDPA_IDS)
def test_calls_inside_flash_attentions_region(index: int):
    shape, seed, threads, torch_bits, old_grad_k = SDPA[index]
    assert causal_sdpa_digests(shape, seed, f"linux-x86_64-avx2-mklavx2-t{threads}") == torch_bits
    assert old_grad_k != torch_bits[2]


@pytest.mark.parametrize("threads", (1, 2))
def test_six_by_six_row_major_is_refused(threads: int):
    """x @ W with a 6 x 6 W, both row-major: MKL's AVX2 path takes another kernel there (whole groups of 4
    rows one fused chain each; the last rows forms not found): refused as a product and as bmm items;
    N = 7 and W stored transposed are the model's."""
    profile = profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}")
    a, b, _ = operands(44, 6, 6, 0, 0, 1)
    with pytest.raises(ParityError, match="not modelled"):
        linalg.mm(a, b, profile)
    with pytest.raises(ParityError, match="not modelled"):
        linalg.bmm(np.stack([a, a]), np.stack([b, b]), profile)
    for ta, tb, n in ((0, 0, 7), (0, 1, 6), (1, 0, 6)):
        a, b, _ = operands(44, n, 6, ta, tb, 1)
        assert linalg.mm(a, b, profile).shape == (44, n)


@pytest.mark.parametrize(("threads", "k", "ta"), [(2, 256, 0), (3, 384, 1), (4, 512, 0)])
def test_one_element_with_b_row_major_is_refused_where_mkl_cuts_k(threads: int, k: int, ta: int):
    """A 1 x 1 product with B row-major (MKL's axpy form) on 2 or more threads: MKL cuts K from 128 x
    threads (on the Xeon it missed from K = 300 at 2 threads); refused from there, answered below."""
    profile = profile_for_platform(f"linux-x86_64-avx2-mklavx2-t{threads}")
    a, b, _ = operands(1, 1, k, ta, 0, 1)
    with pytest.raises(ParityError, match="not modelled"):
        linalg.mm(a, b, profile)
    a, b, _ = operands(1, 1, k - 1, ta, 0, 1)
    assert linalg.mm(a, b, profile).shape == (1, 1)


# flash attention (aten._scaled_dot_product_flash_attention_for_cpu and its backward, no mask; q, k, v,
# grad_out from default_rng(seed): tests.impl_intel_mkl.flash_digests) -> torch's out, lse, grad_q, grad_k,
# grad_v digests on the Xeon (MKL_ENABLE_INSTRUCTIONS=AVX2, a fresh process per thread count). Inside the
# kernel's OpenMP region MKL keeps the wide kernel where it takes it outside, its rows cut at a multiple of
# 4 (query blocks of 256 and 130 rows against heads of 66 and 128); leaves a call whose columns it cuts
# outside whole (heads of 200); on 4 threads cuts q k^T of 4 to 15 rows into parts of 32 columns. On one
# thread the backward's K = 1 products with the scale take it on A's element, (alpha*a)*b (head size 1).
# The model before these rules gave other bits for out or the gradients of each.
FLASH = (
    (2, dict(b=1, heads=1, kv_heads=1, l=800, s=22, d=66, layout="bhnd", causal=False, scale=None), 801,
     ("a754caed06c4a6fc", "d04aab6d56c4cc2a", "1f1e60a0535c6622", "50ee511fbff6c810", "f7a5481db29f477e")),
    (2, dict(b=1, heads=1, kv_heads=1, l=898, s=22, d=128, layout="bhnd", causal=True, scale=None), 802,
     ("9c13ca90e2f0af0b", "eef57d389113f76e", "ea69f23ada2d9244", "bb160609a49317e1", "b050ce1fe2e21eb0")),
    (2, dict(b=1, heads=1, kv_heads=1, l=300, s=300, d=200, layout="bhnd", causal=True, scale=None), 803,
     ("4c9936444ac37319", "21e649ce640646d2", "8acfe6acf4b68876", "3679f8ff0bbf1251", "4c961b8c24c75d85")),
    (4, dict(b=2, heads=1, kv_heads=1, l=9, s=66, d=256, layout="bhnd", causal=False, scale=None), 804,
     ("fa56cfa391ff0ed4", "8b0d0e2a8755d39a", "d391d061c82f4b93", "80052c5586e19ca4", "2aa425fa07fa1768")),
    (1, dict(b=1, heads=1, kv_heads=1, l=50, s=50, d=1, layout="bhnd", causal=True, scale=0.3), 806,
     ("78af3da1f2427560", "f2ecb824e33948c5", "9f1b0de311964afd", "7b826a9b9b616ef0", "50f151098cf62090")),
)  # fmt: skip
FLASH_IDS = ("wide rows at 4s", "a last block of 130 rows", "a head over 128, whole", "parts of 32", "head size 1")


@pytest.mark.parametrize("index", range(len(FLASH)), ids=FLASH_IDS)
def test_flash_attentions_calls_are_the_xeons(index: int) -> None:
    threads, params, seed, torch_bits = FLASH[index]
    assert flash_digests(params, seed, f"linux-x86_64-avx2-mklavx2-t{threads}") == torch_bits


def test_q_k_t_of_few_rows_in_parts_of_32_columns_on_four_threads() -> None:
    """torch.mm of 9 x 66 x 256 with B stored transposed on 4 threads (the Xeon's digest): MKL cuts C's
    columns into parts of 32, the last of 2 columns; N = 65 would leave one (refused), as would M < 4."""
    rng = np.random.default_rng(805)
    a, b = rng.standard_normal((9, 256), dtype=np.float32), rng.standard_normal((66, 256), dtype=np.float32)
    four = profile_for_platform("linux-x86_64-avx2-mklavx2-t4")
    assert digest(linalg.mm(a, b.T, four)) == "7566a0a00f251a37"
    wide = rng.standard_normal((97, 256), dtype=np.float32)
    for m, n in ((9, 65), (3, 97), (9, 97)):
        with pytest.raises(ParityError, match="not modelled"):
            linalg.mm(a[:m], wide[:n].T, four)


@pytest.mark.parametrize(
    ("m", "n", "k", "ta", "tb", "refused"),
    [(16, 8, 776, 0, 0, False), (16, 8, 3001, 0, 0, True), (100, 64, 1512, 0, 0, False), (6, 187, 2590, 0, 0, True),
     (15, 2, 2769, 0, 0, True), (8, 187, 2590, 0, 0, False), (200, 100, 944, 0, 0, False),
     (400, 40, 4000, 0, 0, False), (2000, 700, 640, 1, 1, False), (101, 778, 762, 0, 1, False),
     (300, 1600, 700, 0, 1, False), (100, 1400, 1500, 0, 1, True), (780, 1000, 700, 0, 1, False),
     (900, 1100, 801, 0, 1, True), (4099, 778, 300, 0, 1, True), (2050, 778, 3000, 0, 0, False),
     (2403, 1100, 300, 0, 1, True), (385, 1538, 300, 0, 0, False),
     (2001, 40, 700, 0, 0, True), (400, 40, 4001, 0, 0, True), (300, 100, 5, 0, 0, True), (400, 40, 5, 0, 0, False),
     (400, 40, 5, 1, 0, True), (128, 120, 5, 0, 0, False), (40, 200, 551, 1, 0, True)],
)  # fmt: skip
def test_four_threads_long_and_short_k(m: int, n: int, k: int, ta: int, tb: int, refused: bool) -> None:
    """On 4 threads from K = 640 MKL leaves the model's forms where the model takes the narrow kernel from
    K = 770 with fewer than 8 rows or columns, above K = 3,000, and from 768 columns between the cuts
    measured (or where MKL cuts K: N >= 1,304, K >= N); beyond the sides
    and K measured the model answers nothing. K <= 8 above 128 rows where N > 64 or A is transposed, and A
    transposed up to 72 rows with N > 128 and K > N, are refused too; their neighbours answered."""
    a, b, _ = operands(m, n, k, ta, tb, 2)
    four = profile_for_platform("linux-x86_64-avx2-mklavx2-t4")
    if refused:
        with pytest.raises(ParityError, match="not modelled"):
            linalg.mm(a, b, four)
    else:
        assert linalg.mm(a, b, four).shape == (m, n)


# 4 threads, K >= 640, under Haswell-v4 (refused before: every K >= 640): the model's cut of C where MKL keeps it,
# and K in 4 parts for the wide kernel from K = N + 3M + 242 (M, N, K, layout, alpha, beta, seed: A, B and C
# drawn in their stored shapes from the seed; torch's digest)
LONG_K_4 = (
    (16, 8, 768, "nn", 1.0, 0, 700003, "30811379ae1a7784"),  # the narrow kernel: C cut to K = 768
    (200, 100, 936, "nn", 1.0, 0, 700066, "898ab237f28e5fdd"),  # the wide one below K = N + 3M + 242 = 942
    (200, 100, 944, "nn", 1.0, 0, 700067, "2cd4b239d82f37cb"),  # from it: K in 4 parts
    (300, 200, 1344, "nn", 1.0, 0, 700080, "08aeb56347dc4203"),
    (300, 64, 1208, "ta", 1.0, 0, 700098, "5f8ef7e2ccdcab59"),
    (183, 82, 1880, "tb", 1.0, 1, 100005, "670347d0f5fd4543"),  # C + part 0, then + ((part 1 + 2) + 3)
    (87, 686, 2884, "nn", 0.5, 0, 4100023, "1940c216312459d2"),  # a side of 379 or more, N < 768
    (266, 666, 1465, "ta", 0.5, 0, 4100013, "c2f9af72c0189938"),
    (109, 736, 660, "tb", 1.0, 0, 4100050, "297d459cc2d8b229"),
    (776, 102, 1434, "tb", 0.5, 1, 4100070, "d317915418f01982"),
    # the narrow kernel from K = 770: K cut once (K2) for N <= 64 with M <= 144, N > 64 with M <= 48 and N <= 192
    (144, 8, 1000, "nn", 1.0, 0, 881012, "e481fcf3827c54a5"),
    (145, 8, 1000, "nn", 1.0, 0, 882000, "51afb57f08637218"),  # the cut of C
    (48, 100, 1000, "nn", 1.0, 0, 881053, "d1d2e3733529dc1b"),
    (49, 100, 1000, "ta", 1.0, 0, 882029, "a60ec754269b29a4"),  # the cut of C
    (16, 176, 1000, "nn", 1.0, 0, 882032, "ca0eb2f49d787429"),  # each half's columns at a multiple of 16
    (16, 192, 1000, "nn", 1.0, 0, 882034, "609223099fa21cc6"),
    (16, 193, 1000, "nn", 1.0, 0, 882035, "3011108df92027dc"),  # the cut of C
    (16, 24, 1600, "nn", 1.0, 0, 881101, "b030a1b98d949357"),  # from K = 1,512: K in 4 parts from 24 columns
    (16, 23, 1600, "nn", 1.0, 0, 883031, "9645b199960ecdb9"),  # below: K whole, the wide kernel in 4 row parts
    # from 768 columns, the wide kernel (at every K: 101 x 778 x 300 too, where the old model's 4 column parts missed)
    (101, 778, 300, "tb", 1.0, 0, 100, "c49875629c3ca7fe"),  # 2 x 2: rows at floor(M/2), columns at floor(N/2)
    (117, 1256, 1516, "ta", 1.0, 0, 5100003, "79ed36684daa1190"),
    (82, 1535, 800, "nn", 1.0, 0, 202, "b1934106bc760000"),
    (82, 1537, 800, "nn", 1.0, 0, 204, "facf1f9a8e8faac7"),  # few rows from 1,536 columns: 4 column parts
    (750, 1000, 640, "tb", 1.0, 0, 406, "b59f35932acd6676"),  # 2 x 2 below 768 rows
    (800, 1000, 640, "tb", 1.0, 0, 407, "e6506ff1ccd1a3e1"),  # 768 to 1,537 rows: the longer side in 4
    (1400, 778, 640, "nn", 1.0, 0, 301, "930f5419ccc35465"),
    (1700, 778, 640, "nn", 1.0, 0, 304, "93b7d2c47013a9e9"),  # from 1,540 rows: 2 x 2
    (771, 1106, 256, "tb", 1.0, 0, 500, "2756fdcd8be88a46"),  # 2 x 2 to 771 rows
    (772, 1106, 256, "tb", 1.0, 0, 501, "eaa63503fc308a04"),  # 772 to 1,539 rows: the longer side in 4
    (1539, 1106, 256, "tb", 1.0, 0, 507, "5b6d9d3421f9ce07"),
    (1202, 2306, 400, "nn", 1.0, 0, 209, "c5bc0708964c908c"),
    (1542, 1106, 400, "tb", 1.0, 0, 309, "2b5db65a16854e0d"),  # from 1,540 rows: 2 x 2 below 1,536 columns
    (1802, 1535, 256, "tb", 1.0, 0, 403, "1c8ea9d3c1ca1e16"),
    (385, 1538, 256, "nn", 1.0, 0, 906, "9eaf7350fdb8a20c"),  # 385 rows (of few) the columns alone in 4 too
    (1802, 1546, 256, "tb", 1.0, 0, 800, "7e209fe032362f55"),  # from 1,536 columns the columns alone in 4: N % 4
    (1802, 2317, 256, "tb", 1.0, 0, 802, "94231c3620700479"),  # == 2 the last two even, else (N + 2)/4 each
    (2306, 778, 400, "ta", 1.0, 0, 318, "95b31d3daa695148"),  # 2 x 2 above 2,000 rows
)  # fmt: skip


@pytest.mark.parametrize("case", LONG_K_4, ids=[f"{c[0]}x{c[1]}x{c[2]}" for c in LONG_K_4])
def test_four_threads_long_k(case: tuple) -> None:
    m, n, k, layout, alpha, beta, seed, torch_bits = case
    rng = np.random.default_rng(seed)
    a, b = stored_operands(rng, layout, 0, m, n, k)
    c = rng.standard_normal((m, n)).astype(np.float32) if beta else np.zeros((m, n), np.float32)
    four = profile_for_platform("linux-x86_64-avx2-mklavx2-t4")
    got = linalg.mm(a, b, four) if (alpha, beta) == (1.0, 0) else linalg.addmm(c, a, b, four, alpha=alpha, beta=beta)
    assert digest(got) == torch_bits


def test_flash_products_outside_the_model_are_refused() -> None:
    """The flash kernels' products go through the same bounds as a plain sgemm: on 4 threads the
    backward's grad_k and grad_v of a last query block of 4 rows against 281 keys (K = 4, M > 128) are
    refused (on the Xeon they differed); 32 rows (q blocks of 32 only) are answered."""
    four = "linux-x86_64-avx2-mklavx2-t4"
    params = dict(b=1, heads=1, kv_heads=1, s=281, d=80, layout="bhnd", causal=False, scale=0.3)
    with pytest.raises(ParityError, match="K <= 8 with M > 128"):
        flash_digests({**params, "l": 36}, 1, four)
    assert len(flash_digests({**params, "l": 32}, 1, four)) == 5


def test_flash_products_of_long_k_inside_the_region_are_refused_on_four_threads() -> None:
    """From K = 640 and 768 columns on 4 threads the rules were measured on calls outside an OpenMP region:
    flash attention's q k^T of a head size of 640, and its P v of 768, inside it (two heads) are refused;
    one head, outside it, is answered."""
    four = "linux-x86_64-avx2-mklavx2-t4"
    params = dict(b=1, heads=2, kv_heads=2, l=20, s=20, d=640, layout="bhnd", causal=False, scale=0.3)
    for d in (640, 768):
        with pytest.raises(ParityError, match="from K = 640 or 768 columns is measured outside it only"):
            flash_digests({**params, "d": d}, 1, four)
    assert len(flash_digests({**params, "heads": 1, "kv_heads": 1}, 1, four)) == 5
