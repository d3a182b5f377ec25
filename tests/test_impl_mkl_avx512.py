"""MKL's Intel AVX-512 sgemm path (csrc/mkl_sgemm.h mkl_avx512_sgemm) against torch 2.13.0's bits
recorded on an Intel Xeon (AVX-512, AMX; ATEN_CPU_CAPABILITY=avx512, MKL_ENABLE_INSTRUCTIONS=AVX512,
one thread): chosen products, operands from default_rng(5) drawn in the order below, compared by
the SHA-256 of their bits. No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import profile_for_platform
from tests.impl_intel_mkl import causal_sdpa_digests, digest, flash_digests, stored_operands

AVX512 = "linux-x86_64-avx512-mklavx512-t1"

# (M, N, K, layout: A stored transposed?, B stored transposed?) -> the digest of torch.mm's bits
SILICON = {
    (64, 65, 512, "00"): "8a5bd6eeecb1839da37b7ba689126637425c90ddff4840e43ae9228399e9657c",  # two halves of K
    (64, 65, 512, "01"): "eeb41ffe57484095dd9e8f687f08ecdbfd2f538c4bde3935b6d81df628222e55",
    (17, 33, 48, "00"): "1289a7b762a66e307b734238a790cd04c78cd04d90ebfeb144f68e057886f93d",  # one block
    (48, 100, 900, "10"): "8604f7c7650ffc2b0f853bd7720b2a8177a85e4f4335e1e7762109974385acb4",  # 384, 258, 258
    (16, 256, 769, "01"): "2507678e696d878772830f4f25d16d1575378f63c1e0927be1ce7f8d6720f206",  # wide: 384, 384, 1
    (200, 300, 1300, "00"): "ed01cf2c631489a3ff04284d674e2ae1c5a6b614a9cfd5ac806a4819822e49c9",  # wide
    (192, 192, 769, "10"): "0dbd0f77d0eeab3456a269e106cca663dc13ac11f2a1abf2538a6793ca6c12b8",  # wide, at the edge
    (191, 256, 769, "00"): "0b0851641808ba1c41e5dd904f567182d3e1d90470073f16a8df1ae0ba508abb",  # narrow: M < 192
    (8, 256, 769, "11"): "1b0b0fe78c94b2406345d2a0eec389dd6db8430c8f53d0e8d3d6df3a5b431297",
    (5, 300, 50, "00"): "497c10f91a6e8af0fa2daee11fd3eedc696be4c5c2e557fb164c0eebfede97ff",
    (2, 2, 1, "00"): "6499ec56ae6aa2de0898b93b3396d354b93645b438f698295c82906d355649f3",
    (300, 600, 385, "11"): "777928736da1171a57b46aa34fbc062003e5f40a95b2cfc0a3b1fe30bb9cb660",  # wide, K <= 768: halves
}
LINEAR = "a351c2139e3772716bdde51fdf8617ffcc601b268a4ce30b9f9db4412ebd0aa1"  # F.linear, 64 x 512 -> 65, bias


def _operands() -> tuple[dict, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(5)
    products = {}
    for m, n, k, t in SILICON:
        ta, tb = t[0] == "1", t[1] == "1"
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
        products[(m, n, k, t)] = (a.T if ta else a, b.T if tb else b)
    bias = rng.standard_normal(65).astype(np.float32)
    x = rng.standard_normal((64, 512)).astype(np.float32)
    w = rng.standard_normal((65, 512)).astype(np.float32)
    return products, (x, w, bias)


def test_mkl_avx512_sgemm_is_the_xeons() -> None:
    profile = profile_for_platform(AVX512)
    generic = profile_for_platform("linux-x86_64-avx512-mklgeneric-t1")
    products, _ = _operands()
    unlike_generic = 0
    for key, (a, b) in products.items():
        got = linalg.mm(a, b, profile)
        assert digest(got, 64) == SILICON[key], key
        unlike_generic += digest(linalg.mm(a, b, generic), 64) != SILICON[key]
    assert unlike_generic >= 8  # MKL's generic path (K blocks of 192) gives other bits for most of them


def test_linear_with_its_bias_is_the_xeons() -> None:
    _, (x, w, bias) = _operands()
    assert digest(linalg.addmm(bias, x, w.T, profile_for_platform(AVX512)), 64) == LINEAR


def test_mkls_amx_path_is_replayed_as_its_avx512_path() -> None:
    """On an Intel CPU with AMX, MKL unpinned runs its AMX path (``mklamx``), which has no float32
    tiles: SILICON's 12 products and LINEAR, recorded on the Xeon with MKL unpinned, have the AVX-512
    path's digests (and 10 of them and LINEAR other digests with MKL pinned to AVX2). A platform or
    trace of that path is replayed on the AVX-512 path."""
    amx = profile_for_platform("linux-x86_64-avx512-mklamx-t1")
    assert (amx.blas, amx.threads) == ("mklavx512", 1)
    products, (x, w, bias) = _operands()
    for key, (a, b) in products.items():
        assert digest(linalg.mm(a, b, amx), 64) == SILICON[key], key
    assert digest(linalg.addmm(bias, x, w.T, amx), 64) == LINEAR


def test_what_the_model_does_not_cover_is_refused() -> None:
    """On 3 or more threads outside the rules modelled (here K above 768), on 2 where MKL cuts K with one
    side of at most 56 and the other of 379 or more (forms by layout, not fitted), and with A and B both
    stored transposed below 8 rows, linalg
    refuses the product (one line naming the path and the shape) instead of giving the generic path's
    bits."""
    products, _ = _operands()
    a, b = products[(48, 100, 900, "10")]
    with pytest.raises(
        ParityError,
        match="AVX-512 path on 4 threads, alpha not a power of two, K above 768",
    ):
        linalg.mm(a, b, profile_for_platform("linux-x86_64-avx512-mklavx512-t4"))
    two = profile_for_platform("linux-x86_64-avx512-mklavx512-t2")
    a = np.zeros((379, 900), np.float32)  # 379 rows, 20 columns: one thread's form with A row-major (bisected)
    with pytest.raises(ParityError, match="379x20x900: MKL's Intel AVX-512 path on 2 threads, K above 768 with one"):
        linalg.mm(a, np.zeros((900, 20), np.float32), two)
    assert linalg.mm(a[:378], np.zeros((900, 20), np.float32), two).shape == (378, 20)  # the K cut
    assert linalg.mm(a, np.zeros((900, 57), np.float32), two).shape == (379, 57)  # 57 columns: the K cut
    with pytest.raises(ParityError, match="both stored transposed with M < 8"):
        linalg.mm(np.zeros((64, 7), np.float32).T, np.zeros((9, 64), np.float32).T, profile_for_platform(AVX512))


# 4 threads (MKL running 4 threads on the Xeon's 2 cores), alpha 1, K <= 640 or K <= 768 with both sides
# 192 or more: (M, N, K, layout: A stored
# transposed?, B stored transposed?, F.linear's bias added?) -> the digest of torch's bits there, operands
# from default_rng(41) in order (a, b, bias). Each is also what the Xeon gives on one thread, and those
# with both sides 192 or more what it gives on 3, 8 and 16 threads.
FOUR_THREADS = {
    (1024, 2304, 768, "01", True): "4b154a457eea0d3c1009d95b86effa77b8b2e94d71eb5d756713d9fe3a0abf96",  # GPT-2's qkv
    (1024, 768, 768, "01", True): "8b96c073cf6ab96cbd67d8920a353d012489234df808a7000438e988e2fec2ad",
    (600, 700, 768, "10", False): "7da2553d13e4f5e5a167667cf52b8850bde15ef40172d220f30b24118caeb776",
    (300, 1500, 500, "00", True): "93eac3415c451f98719c8c4fcd78dfcfe6b98e4361692e2afe2c336d30a09c04",
    (64, 2000, 640, "11", False): "fc095da6e8d465da31306b9d1413ace8ab5625ebe22b32dad02dd6a6acb39c31",
    (2000, 20, 600, "00", True): "42e225f0a81b0470d4ae7ff1811459b0c61e0c5456e16013a56b24d0d81810f0",
    (40, 900, 333, "01", False): "423068db8895e20dcaaf406b3e2d78470541a9c65639745c4dbd2f0e77d307e1",
    (17, 3000, 96, "10", True): "5c5f34cfccc61d65bd3903fa6b1ae7997804a373d35682ebf99eba0a7b61c174",
    (122, 64, 546, "00", True): "bfa9f7c0d5ab332cbe31b357c772943fbed0fee87b4d4d3b2f80d0836fcc77dd",
}


def _linear_cases(table: dict, seed: int):
    """Per entry of ``table`` ((M, N, K, layout, bias?) -> digest): (M, N, K, layout), the digest, and
    a, b and the bias row (None without one) from default_rng(seed), drawn in order (a, b, bias), each
    operand stored transposed where the layout says so."""
    rng = np.random.default_rng(seed)
    for (m, n, k, layout, bias), expected in table.items():
        ta, tb = layout[0] == "1", layout[1] == "1"
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
        c = rng.standard_normal(n).astype(np.float32)
        yield (m, n, k, layout), expected, a.T if ta else a, b.T if tb else b, c if bias else None


def _linear(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None, profile) -> np.ndarray:
    """a @ b, plus the bias row as F.linear's addmm adds it where one is given."""
    if bias is None:
        return linalg.mm(a, b, profile)
    return linalg.addmm(np.broadcast_to(bias, (a.shape[0], b.shape[1])), a, b, profile)


def test_more_threads_with_alpha_one_are_the_xeons() -> None:
    """On 3 or more threads, with both sides 192 or more and K up to 768, and on 4 threads with K up to
    640 at any sides, each element takes the one-thread form however MKL shares C (csrc/mkl_sgemm.h
    mkl_avx512_threads_whole; alpha a power of two, exact wherever it goes). Other alphas, longer K (MKL
    cuts 119 x 107 x 720's on 4 threads), smaller sides on other thread counts and, on 4, B stored
    transposed with A row-major below 16 rows (where MKL's dot kernel gives way to forms not found) are
    refused."""
    four, generic = (
        profile_for_platform("linux-x86_64-avx512-mklavx512-t4"),
        profile_for_platform("linux-x86_64-avx512-mklgeneric-t4"),
    )
    unlike_generic = 0
    for (m, n, k, layout), expected, a, b, bias in _linear_cases(FOUR_THREADS, 41):
        assert digest(_linear(a, b, bias, four), 64) == expected, (m, n, k, layout)
        unlike_generic += digest(_linear(a, b, bias, generic), 64) != expected
        for threads in (3, 8, 16) if min(m, n) >= 192 else ():
            many = profile_for_platform(f"linux-x86_64-avx512-mklavx512-t{threads}")
            assert digest(_linear(a, b, bias, many), 64) == expected, (m, n, k, layout, threads)
    assert unlike_generic >= 7
    x, w = np.ones((64, 700), np.float32), np.ones((700, 64), np.float32)
    with pytest.raises(ParityError, match=r"alpha 0.3 \(not a power of two\) is modelled .* at one and two threads"):
        linalg.addmm(np.zeros((64, 64), np.float32), x, w, four, alpha=0.3)
    with pytest.raises(
        ParityError,
        match="on 4 threads, alpha not a power of two, K above 768",
    ):
        linalg.mm(np.ones((64, 769), np.float32), np.ones((769, 64), np.float32), four)
    with pytest.raises(
        ParityError,
        match="on 4 threads, alpha not a power of two, K above 768",
    ):  # 124 of 300 such differed
        linalg.mm(np.ones((12, 600), np.float32), np.ones((935, 600), np.float32).T, four)
    with pytest.raises(ParityError, match="119x107x720: MKL's Intel AVX-512 path on 4 threads, alpha not"):
        linalg.mm(np.ones((720, 119), np.float32).T, np.ones((720, 107), np.float32), four)
    with pytest.raises(
        ParityError,
        match="on 3 threads, alpha not a power of two, K above 768",
    ):
        linalg.mm(x, w, profile_for_platform("linux-x86_64-avx512-mklavx512-t3"))  # 64 x 64: a side under 192
    with pytest.raises(ParityError, match="on 8 threads, alpha not a power of two, K above 768"):
        linalg.mm(
            np.ones((256, 769), np.float32),
            np.ones((769, 256), np.float32),
            profile_for_platform("linux-x86_64-avx512-mklavx512-t8"),
        )


# K above 768 with both sides 192 or more where 2 threads cut C (GPT-2 small's MLP projection and a weight
# gradient among them): (M, N, K, layout, bias) -> the digest of torch's bits on the Xeon, the same on 1, 3,
# 4 and 8 threads, operands from default_rng(43) in order (a, b, bias).
LONG_K = {
    (1024, 768, 3072, "01", True): "ccf35027a408d213804a4bc107a227e84e481c8093fd2e1f4fdebf002cdff13c",
    (768, 3072, 1024, "10", False): "b2d99cc197824032edaed639c3dfb73d3993a905a721e7cf608eb8e1a23d76dc",
    (400, 500, 2000, "00", True): "cca317a5b9d5f0f56053c439d734c0dcaa1b419d9b0d50668364377884159305",
}


def test_three_and_four_threads_keep_the_wide_form_where_two_cut_c() -> None:
    """On 3 and 4 threads, above K = 768 with both sides 192 or more, where 2 threads cut C
    (mkl_avx512_c_cut), every element is the wide form whole, as on one thread. Where 2 threads would
    cut K, and on 8 or more threads (where MKL cuts K for Cs that 2 threads cut: 19 of 36 such
    products at 16 threads), the product is refused."""
    for (m, n, k, _), expected, a, b, bias in _linear_cases(LONG_K, 43):
        for threads in (3, 4):
            profile = profile_for_platform(f"linux-x86_64-avx512-mklavx512-t{threads}")
            assert digest(_linear(a, b, bias, profile), 64) == expected, (m, n, k, threads)
    with pytest.raises(ParityError, match="223x193x1424: MKL's Intel AVX-512 path on 4 threads, alpha not"):
        linalg.mm(
            np.ones((223, 1424), np.float32),
            np.ones((1424, 193), np.float32),
            profile_for_platform("linux-x86_64-avx512-mklavx512-t4"),
        )  # 2 threads cut K here; 4 take other sums (31 of 32 such products differed)
    with pytest.raises(ParityError, match="1024x768x3072: MKL's Intel AVX-512 path on 8 threads"):
        linalg.mm(
            np.ones((1024, 3072), np.float32),
            np.ones((768, 3072), np.float32).T,
            profile_for_platform("linux-x86_64-avx512-mklavx512-t8"),
        )


# F.linear's addmm(bias, a, b) on 2 threads, operands from default_rng(17) in order (a (M, K), b (K, N),
# bias (N,)) -> the digest of torch's bits on the Xeon: MKL cuts K at ceil(K/2), each thread's part
# its own K blocks, the sums added; (300, 600, 385): K <= 768, the one-thread model
TWO_THREADS = {
    (48, 32, 769): "b5bee5a7df39997215a581b9e915f19e6a1cf85995e3d627f60f69811bf17d8c",
    (64, 100, 2048): "55f97e3311182147a7ef8602f37fad8b81e0c3f2ab90c06a426abaa50b283d99",
    (300, 600, 385): "ca289196ff05da3537280ad36a7e790738366b68635e4d4ef28a06b13df4f393",
}


def test_two_threads_are_the_xeons() -> None:
    two, one = profile_for_platform("linux-x86_64-avx512-mklavx512-t2"), profile_for_platform(AVX512)
    rng = np.random.default_rng(17)
    cut = 0
    for (m, n, k), want in TWO_THREADS.items():
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        bias = rng.standard_normal(n).astype(np.float32)
        assert digest(linalg.addmm(bias, a, b, two), 64) == want, (m, n, k)
        cut += digest(linalg.addmm(bias, a, b, one), 64) != want
    assert cut == 2  # the two K cuts are not the one-thread bits


# torch.addmm(0, a, b.T, beta=0, alpha) with B stored transposed (M, N, K, alpha): operands from
# default_rng(7), a (M, K) then b (N, K), drawn in this order, then K1 and BMM below -> the digest of
# torch's bits on the Xeon
B_TRANSPOSED = {
    (7, 7, 64, 0.3): "78e540cbed637cccfed46917db1c2b2187a059460a62df55d1afba198ad8fcb4",  # small M: one chain
    (2, 64, 100, 1.0): "f6900e5dfe7582aebf923d0508e29731963643c8d9146af800f13ad422c7b979",  # K >= 24 M: the dot
    (5, 3, 100, 1.0): "d5bd38d71b1dec8ecc28aebfdfce5a438ca5f0c998c8a96853dd0463925b5b50",  # N 3: halves, pairs
    (3, 9, 6, 1.0): "554c41fd189ec01abd892effd04e27c05c6756c15bbbb95344a4f9cbac11f808",  # K <= N <= 11: halves
    (3, 2, 40, 1.0): "7fd9acddd832dc362c50321dae972a8f110011ac97450ff6a33df4d2fbf409b4",  # N 2: halves, pairs
    (15, 300, 400, 0.3): "749146c767d6817dffd726bbcdad2e6fd19dd352522d71a8393f17b1a604a231",  # dot; alpha on the sum
    (32, 185, 32, 0.17677669): "1d5ffe00bf90b41caadc929b18aff788ed107777737c8906c873fff123fc3ace",  # alpha on B
    (64, 65, 30, 0.3): "903d8115acc98323ab90c936e455bf3b934c4cc0d02c3a001b61b2d32cdc2357",  # N > M, N >= K: on B
    (200, 100, 8, 0.3): "69257a982728ed6aab88a811ad672cd8c5aab08355e54d83e4b2756219c54718",  # N < M: on the sum
}
K1 = "7b097d270f35f20ade0e4d00a70ed37b77cf3069cd0e59064c1342958e7ae3d8"  # addmm(c, a.T, b, alpha=0.3), K 1
BMM = {  # torch.bmm of (nb, M, K) @ (nb, K, N), B stored transposed or not
    (3, 7, 7, 64, True): "32c0261200d322f0564e7e22c47d203e09b5def9ad930f8d0d123cf44415509b",
    (2, 257, 64, 257, False): "750656a47cfc11505746fa7a5823584715192733b75ea0bd8421b18fa5bb05fe",
}


def test_b_transposed_k1_and_bmm_are_the_xeons() -> None:
    """MKL's dot and chain kernels for B stored transposed with M < 16, alpha scaling B's elements
    where MKL copies B, the rank-1 update with beta (fused), and at::bmm's items, which take the
    plain sgemm's kernels (csrc/mkl_sgemm.h, "Intel AVX-512 path")."""
    profile = profile_for_platform(AVX512)
    generic = profile_for_platform("linux-x86_64-avx512-mklgeneric-t1")
    rng = np.random.default_rng(7)
    unlike_generic = 0
    for (m, n, k, alpha), want in B_TRANSPOSED.items():
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((n, k)).astype(np.float32)
        zero = np.zeros((m, n), np.float32)
        assert digest(linalg.addmm(zero, a, b.T, profile, alpha=alpha, beta=0.0), 64) == want, (m, n, k)
        if alpha == 1.0:  # the generic path's model takes powers of two only
            unlike_generic += digest(linalg.addmm(zero, a, b.T, generic, beta=0.0), 64) != want
    assert unlike_generic >= 3
    a = rng.standard_normal((1, 257)).astype(np.float32)
    b = rng.standard_normal((1, 64)).astype(np.float32)
    c = rng.standard_normal((257, 64)).astype(np.float32)
    assert digest(linalg.addmm(c, a.T, b, profile, alpha=0.3), 64) == K1
    for (nb, m, n, k, tb), want in BMM.items():
        a = rng.standard_normal((nb, m, k)).astype(np.float32)
        b = rng.standard_normal((nb, n, k) if tb else (nb, k, n)).astype(np.float32)
        assert digest(linalg.bmm(a, b.transpose(0, 2, 1) if tb else b, profile), 64) == want, (nb, m, n, k)


# MKL's gemv kernels (M or N = 1): torch.addmm(c, a, b, alpha, beta) of (M, N, K, layout: A stored
# transposed?, B stored transposed?, alpha, beta), operands from default_rng(11) in this order (a, b, c
# each case, then GEMV_BMM) -> the digest of torch's bits on the Xeon, one thread
GEMV = {
    (1, 7, 100, "01", 0.3, 1.0): "25416b1e38a81e5e397e71c45e1865fe532f4dc1644acf25b79872a6010dd95f",  # 'T': 4 + 3
    (1, 301, 257, "01", 1.0, 0.0): "d55395fae319f937f8320deb06202741d1b49f7e9a7beb6bc49325b3306bea2a",
    (1, 65, 40, "00", 0.125, 1.0): "c6167ec60747e2bb38e1a97b0307e7540a2af2f4c8c74c25cf5f75c67efcef17",  # 'N'
    (1, 20, 1000, "00", 1.0, 0.0): "b5f6dda4e1a227aed2cd359c5f1a665b3cc1db635c87970e5ee52aac6e5bcd1e",
    (300, 1, 64, "00", 1.0, 0.0): "dbcee7d17f6a4b33cf69b6f9219adc9cd4de1a51d21f47793b3d8c38ee9c001e",  # one column
    (17, 1, 100, "10", 1.0, 0.0): "ade6a660cb0e04a4f1cc8415650845cfe8f1d810ca234b6df73a8e04cfffc16a",
    (9, 1, 33, "11", 1.0, 0.0): "010297ff295772e34a262ef7652106a28ae005900fb710fe89d58c7031e3693f",
    (1, 5, 9, "11", 1.0, 0.0): "eddd10f79ec477176ed0eca1cca7a2917ab7d2b56a8bf0ff313a0be5fd82ab1f",
}
GEMV_BMM = {  # torch.bmm items of one column or one row
    (3, 7, 1, 64, True): "de3715320bbcd8ddb475ccf384ad3f1f3ef47c75cfd83e32cbad3a9ef60dc185",
    (2, 1, 33, 100, False): "8619d3de975ee25db8d5287e9c0a54e21dd29eacc3901ac125670574de8b6485",
}
# torch.mm of a (1, 257) row and b.T, b (301, 257), default_rng(13), on 2 threads: MKL cuts the 301
# outputs at 151, each part its own groups of 4
GEMV_2_THREADS = "168211eda1f578d4a76f6a8af8b5db3f1585a8974af6653f30280ef7ecddb1d9"


def test_gemv_is_the_xeons() -> None:
    """MKL's gemv 'T' and 'N' on the AVX-512 path (csrc/mkl_sgemm.h mkl_avx512_gemv, _gemv_n), a column
    as the row of the transposed product (mkl_avx512_gemv_any), and at::bmm's one-row and one-column
    items; on 2 threads the cut of the outputs."""
    profile = profile_for_platform(AVX512)
    rng = np.random.default_rng(11)
    for (m, n, k, lay, alpha, beta), want in GEMV.items():
        a = rng.standard_normal((k, m) if lay[0] == "1" else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if lay[1] == "1" else (k, n)).astype(np.float32)
        c = rng.standard_normal((m, n)).astype(np.float32)
        got = linalg.addmm(c, a.T if lay[0] == "1" else a, b.T if lay[1] == "1" else b, profile, alpha=alpha, beta=beta)
        assert digest(got, 64) == want, (m, n, k, lay)
    for (nb, m, n, k, tb), want in GEMV_BMM.items():
        a = rng.standard_normal((nb, m, k)).astype(np.float32)
        b = rng.standard_normal((nb, n, k) if tb else (nb, k, n)).astype(np.float32)
        assert digest(linalg.bmm(a, b.transpose(0, 2, 1) if tb else b, profile), 64) == want, (nb, m, n, k)
    rng = np.random.default_rng(13)
    a = rng.standard_normal((1, 257)).astype(np.float32)
    b = rng.standard_normal((301, 257)).astype(np.float32)
    two = linalg.mm(a, b.T, profile_for_platform("linux-x86_64-avx512-mklavx512-t2"))
    assert digest(two, 64) == GEMV_2_THREADS
    assert digest(linalg.mm(a, b.T, profile), 64) != GEMV_2_THREADS  # one thread: one part, other bits


# gemv on 2 threads: (kind, outputs, K) -> SHA-256 of torch's bits on the Xeon, operands from
# gemv_operands with seed 17 in this order; "n": x (1, K) @ W (K, R) (gemv 'N'), "n+c": addmm of it with a
# row C, "col": A (R, K) @ b (K, 1) (gemv 'T' of the transposed row), "colT": the same with A stored
# transposed (gemv 'N'); each with whether the bits differ from one thread's (a cut of K, or of the
# outputs where that changes a bit)
GEMV_N_2_THREADS = {
    ("n", 100, 300, True): "ecf2e3cecb70cc79b596d8b434d48fd1a0b96394584bdd2c8493e36079dd59f6",
    ("n", 40, 255, False): "cc6f91295eccaef6ec5bc4852ea701b89c5fd44672eec900fdd176f7e3a174b2",  # K < 256: whole
    (
        "n",
        55,
        999,
        False,
    ): "252b272a0c6e19f09a4b5b0451227dc5ace24a579b61c41d79e72337305caeb8",  # 41 <= N <= 69: whole below K = 1,000
    ("n", 55, 1000, True): "ee96948e8a66bfdabdfbf6757a9d577c8f44ca3af1e953fa781f87be5ef863a1",
    ("n", 1001, 300, True): "146a700e271606e7e668cb5d3a0a06f7f125200108b6a908359222c45e084b76",
    (
        "n",
        1002,
        300,
        False,
    ): "5d5545cb50c37996724732c6d47a9743c3a1914a311d7377971f5dd83b4c77d3",  # more than 1,001 outputs: whole
    (
        "n+c",
        75,
        890,
        True,
    ): "859d7e1fb17ad2b960bd589ee8fa1a701ce6170ab74547ce228302d1e95baecc",  # c = C + (part 0 + part 1)
    (
        "col",
        100,
        300,
        True,
    ): "5ba663179a8577b8510c194bf56a9966fafd4879e078f70b4e7543f646c86398",  # gemv 'T': outputs cut at 50
    ("colT", 100, 300, True): "91b3d312970f182e50de64f8da36af046de1abc55ff8301d659136ff412e95ac",
}


def gemv_operands(
    kind: str, r: int, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if kind in ("n", "n+c"):
        x = rng.standard_normal((1, k)).astype(np.float32)
        w = rng.standard_normal((k, r)).astype(np.float32)
        return x, w, rng.standard_normal((1, r)).astype(np.float32) if kind == "n+c" else None
    a = rng.standard_normal((k, r) if kind == "colT" else (r, k)).astype(np.float32)
    return (a.T if kind == "colT" else a), rng.standard_normal((k, 1)).astype(np.float32), None


def test_gemv_n_and_columns_on_two_threads_are_the_xeons() -> None:
    """On 2 threads MKL's gemv 'N' cuts K at ceil(K/2) from K = 256 (csrc/mkl_sgemm.h
    mkl_avx512_gemv_n_k_cut) for up to 1,001 outputs, except 41 to 69 outputs below K = 1,000; a
    column product takes the gemv of its transposed row on 2 threads too."""
    two, one = (profile_for_platform(f"linux-x86_64-avx512-mklavx512-t{t}") for t in (2, 1))
    rng = np.random.default_rng(17)
    for (kind, r, k, cut), want in GEMV_N_2_THREADS.items():
        a, b, c = gemv_operands(kind, r, k, rng)
        got = {t: linalg.addmm(c, a, b, p) if c is not None else linalg.mm(a, b, p) for t, p in ((2, two), (1, one))}
        assert digest(got[2], 64) == want, (kind, r, k)
        assert (digest(got[1], 64) != want) == cut, (kind, r, k)


# SHA-256 of torch.exp's, torch.log's and torch.tanh's bits (little-endian uint32) for every 997th bit
# pattern from 13 (4,307,891 inputs of every class: each kernel's fallback inputs among them, exp's
# |x| >= 87.3365, log's subnormals, x above 2^126, zeros and negatives, tanh's +-1 above 2^127 * 1.25,
# and NaN), recorded on the Xeon as above.
VML_STRIDED = {
    "exp": "d2f208b30e4930fde9d60451601f5bdbeb10666c07e13f5817f2a7e25c53bcfe",
    "log": "e8924d36edc115674f89e154268c319c753002c864dadb65c72983a1c08323ed",
    "tanh": "175eb9b13d02aaa2965c4bf852d3639b920080d52f51d7e96144a1e603b7b6f6",
}


@pytest.mark.parametrize("op", sorted(VML_STRIDED))
def test_vml_on_the_avx512_path_is_the_xeons(op: str) -> None:
    from harness.impl import unary

    x = (np.arange(0, 2**32, 997, dtype=np.uint64) + 13).astype(np.uint32).view(np.float32)
    assert digest(unary.forward(op, x, profile_for_platform(AVX512)), 64) == VML_STRIDED[op]
    # MKL's generic path's kernels give other bits
    generic = profile_for_platform("linux-x86_64-avx512-mklgeneric-t1")
    assert digest(unary.forward(op, x, generic), 64) != VML_STRIDED[op]


# torch.addmm(c, a, b, beta, alpha) on 2 threads (M, N, K, layout: A / B stored transposed, alpha, beta):
# operands from default_rng(23), drawn in this order, each a then b in their stored shapes
# (tests.impl_intel_mkl.stored_operands), then c (M, N) -> the digest of torch's bits on the Xeon
# (MKL_ENABLE_INSTRUCTIONS=AVX512, torch.set_num_threads(2))
ALPHA_TWO_THREADS = {
    (64, 64, 100, "00", 0.3, 0.0): "bbbcf1d065fb549c2d9dbee5dec510f2d8237b9c1824743aa95f6686a8abfc9f",  # both: on B
    (14, 446, 40, "01", 0.3, 0.0): "9d251c90ef7a7b6029398b4f39e779fc70ca45b452b8161519e61ab11292dfdb",  # < 57 rows: sum
    (357, 4, 270, "10", 0.3, 1.0): "701949cc6474f504d26d18bddabfa94b9d74584acaf855d24cc202f4e686e8f9",  # A^T: any N
    (477, 260, 2, "00", 0.3, 0.0): "54327fc39e465baeeb44932fb683ed2a39094c4efa1dc1c139da040859528921",  # K 2: the sum
    (52, 76, 49, "11", 0.3, 0.0): "234473967c1414ef16965be037ecb3f27873f014271b1b1643bc552016b3a343",  # < 57 rows: sum
    (8, 200, 200, "01", 1.0, 0.0): "55d6390c0e1967a131f44ed907dd25a04ef1841d3ef57aa7c7b3f617f1d960fe",  # the chain
    (3, 1000, 200, "01", 0.3, 0.0): "3eb69cf29ee03b54e253a15d22222751a23d5204b06f7dd7805ef3d50fc81d00",  # the dot
    (9, 110, 1294, "01", 0.3, 1.0): "c684c6890792fad81ecec867fdbce5b1b8ceb79d840aee6cee840136caabda18",  # K cut, chain
    (48, 32, 769, "00", 0.3, 1.0): "c8c83aa363164ad1b3ea1922526c0f976bf8c86589c4216c1906225e06072763",  # K cut
}
# the same on one thread, operands from default_rng(29)
ALPHA_ONE_THREAD = {
    (10, 11, 7, "11", 0.3, 0.0): "724cc4470f87674ee2760722445032f16cd179f7f2651241b040e99001642d11",  # N > M, N >= K
    (2, 2, 13, "01", 0.3, 1.0): "cb9eae9d24d62bfe7ee51c596c39372c9e931ffc233ead0f47c989b51e12787b",  # alpha*t + C
    (2, 2, 50, "01", 0.3, 1.0): "c4dd644f383a9d96ba9ad5dd0ba7ca8e33055fd3c81cd95ce05cc546a2760d0a",  # fused
}
_LAYOUTS = {"00": "nn", "01": "tb", "10": "ta", "11": "tt"}


def _addmm_digests(cases: dict, seed: int, platform: str) -> list[tuple[tuple, str, str]]:
    """(case, the impl's digest, the digest of the other place of alpha: on the sum where the impl puts
    it on B's elements or the reverse, from the same model with alpha 1)."""
    profile, rng, rows = profile_for_platform(platform), np.random.default_rng(seed), []
    for key in cases:
        m, n, k, layout, alpha, beta = key
        a, b = stored_operands(rng, _LAYOUTS[layout], 0, m, n, k)
        c = rng.standard_normal((m, n)).astype(np.float32)
        got = linalg.addmm(c, a, b, profile, alpha=alpha, beta=beta)
        on_sum = np.float32(alpha) * linalg.mm(a, b, profile) + (c if beta else np.float32(0))
        on_b = linalg.mm(a, np.float32(alpha) * b, profile) + (c if beta else np.float32(0))
        other = on_sum if digest(got, 64) == digest(on_b, 64) else on_b
        rows.append((key, digest(got, 64), digest(other, 64)))
    return rows


def test_alpha_on_two_threads_is_the_xeons() -> None:
    """Where MKL runs a call on both threads (M*N*K > 192,000) alpha scales B's elements with 57 rows or
    more (and 57 columns unless A is stored transposed) and K >= 3, else the sum; MKL's dot kernel
    runs there only for M <= 3 (the chain otherwise); the K cut places alpha by each part's own rule.
    The one-thread model gives other bits for all but the control."""
    for key, got, _ in _addmm_digests(ALPHA_TWO_THREADS, 23, "linux-x86_64-avx512-mklavx512-t2"):
        assert got == ALPHA_TWO_THREADS[key], key
    one = [key for key, got, _ in _addmm_digests(ALPHA_TWO_THREADS, 23, AVX512) if got != ALPHA_TWO_THREADS[key]]
    assert len(one) == 8  # all but the control, (3, 1000, 200): the dot kernel on both


# torch.addmm on 2 threads, K above 768 where MKL cuts C or K (csrc/mkl_sgemm.h mkl_avx512_two_threads),
# operands and C from default_rng(37) as _addmm_digests draws them -> the digest of torch's bits on the Xeon
C_OR_K_CUT = {
    (400, 300, 1536, "00", 1.0, 0.0): "af8d8524ed9c99f8b71f41376a571b8ab5dcd26619694f0d07af7b5eb3919771",  # C: 379
    (144, 512, 800, "00", 0.3, 1.0): "54266ba4be992655796312be4cf821b46eb9ce268fd5a28f6fcf74bb99914452",  # C: wide form
    (140, 117, 770, "10", 1.0, 0.0): "a3dfcf9a9212a83c032aacbd123c720a7bb8020dd9802f8366bf14b02980606a",  # C: N + 3M
    (140, 117, 780, "11", 0.3, 0.0): "276720818ffcfd1e20ced45f6e6dd878dcb0e71390216544b2a480cd475ec152",  # K
    (300, 380, 2400, "00", 1.0, 0.0): "1400d8cea7501e5f946c4d4eaa737c0938c8d1b2b6001bf2f50281ac6f252d57",  # K: 8M = K
    (301, 380, 2400, "00", 1.0, 0.0): "a20f1ffda2f259d7b1926760230062b79c9ebfb6707deee1bb4dbe43fad5be23",  # C
    (96, 200, 9000, "10", 0.3, 1.0): "7ad30c06db1d14bd7c45bc6a645c99604f0c72d443d3e146153eda4f546b7d3e",  # K, long
    (1000, 60, 1200, "01", 1.0, 0.0): "df648b2192329108c80259c2ca2b4fa4b2cd066ca68b0768a7237990c3c6f99e",  # K: 60 wide
}


def test_c_or_k_cut_on_two_threads_is_the_xeons() -> None:
    """Above K = 768 MKL cuts C where 8 min(M, N) > K and (max(M, N) >= 379 or N + 3M + 242 > K), each
    element then the wide form whole even below 192 rows; else it cuts K in halves. The one-thread
    model gives other bits for all but the two wide C cuts (where the forms agree)."""
    rows = _addmm_digests(C_OR_K_CUT, 37, "linux-x86_64-avx512-mklavx512-t2")
    for key, got, _ in rows:
        assert got == C_OR_K_CUT[key], key
    one = [key for key, got, _ in _addmm_digests(C_OR_K_CUT, 37, AVX512) if got != C_OR_K_CUT[key]]
    assert len(one) == 6


def test_alpha_on_one_thread_is_the_xeons() -> None:
    """Both stored transposed: alpha on B's elements where N > M and N >= K (no N >= 12 bound); MKL's dot
    kernel with beta: alpha*t rounded then added below K = 24 M, fused from there."""
    for key, got, other in _addmm_digests(ALPHA_ONE_THREAD, 29, AVX512):
        assert got == ALPHA_ONE_THREAD[key], key
        assert other != got, key


# torch.addmm(0, a, b, beta=0, alpha=0.3) on 2 threads, a (44, 300) and b (300, 64) from default_rng(31)
# in that order, b dense and as a view of rows 256 floats apart; then torch.mm(a, w.T), a (8, 256), w
# (200, 256) -> the digests of torch's bits on the Xeon
ALIASED = {
    "dense": "5b494434d44e37b7fa3e8c1b6e38c0e5730dfb6e8e090546164881064a436689",  # 44 rows: alpha on the sum
    "ldb 256": "139da50180c51db5ccd95ba9259dc0f8b96063bf5c9d2edbada13fca7ec441cb",  # on B's elements from 17 rows
    "dot": "60eea8d0a053944ee88f92d1db68412901725e121284f345201fb5a6a9b450b5",  # lda 256: the dot kernel kept
}


def test_leading_dimensions_of_256_floats_are_the_xeons() -> None:
    """On both threads a leading dimension of A, B or C that is a multiple of 256 floats moves where
    alpha goes (B's elements from 17 rows and 32 columns, unless B alone is stored transposed) and keeps
    MKL's dot kernel for B stored transposed below 16 rows (csrc/mkl_sgemm.h mkl_avx512_aliased)."""
    two = profile_for_platform("linux-x86_64-avx512-mklavx512-t2")
    rng = np.random.default_rng(31)
    a, b = rng.standard_normal((44, 300)).astype(np.float32), rng.standard_normal((300, 64)).astype(np.float32)
    rows = np.zeros((300, 256), np.float32)
    rows[:, :64] = b
    zero = np.zeros((44, 64), np.float32)
    assert digest(linalg.addmm(zero, a, b, two, alpha=0.3, beta=0.0), 64) == ALIASED["dense"]
    assert digest(linalg.addmm(zero, a, rows[:, :64], two, alpha=0.3, beta=0.0), 64) == ALIASED["ldb 256"]
    a, w = rng.standard_normal((8, 256)).astype(np.float32), rng.standard_normal((200, 256)).astype(np.float32)
    assert digest(linalg.mm(a, w.T, two), 64) == ALIASED["dot"]
    assert digest(linalg.mm(a, np.ascontiguousarray(w.T), two), 64) != ALIASED["dot"]  # the chain: other bits


# aten._scaled_dot_product_flash_attention_for_cpu and its backward (no mask), q, k, v, grad_out from
# default_rng(seed) (tests.impl_intel_mkl.flash_digests) -> the digests of torch's out, lse, grad_q,
# grad_k, grad_v on the Xeon; each but the last missed before the rules it names were modelled
FLASH = (
    (2, dict(b=1, heads=4, kv_heads=4, l=300, s=300, d=64, layout="bnhd", causal=False, scale=0.3), 701,
     ("c0a4999d39b44736", "c75656f886dc6d20", "ab06fb92f90a2d72", "eda165b3fd031304", "73f11dcd0e99b917")),
    (2, dict(b=1, heads=2, kv_heads=2, l=200, s=200, d=128, layout="bnhd", causal=False, scale=0.3), 702,
     ("7f090f549d915562", "fa4b5a7c49830cbd", "e1f8c9516b6b759d", "0fce8398d34b32be", "1fa6bab6a002767f")),
    (2, dict(b=1, heads=2, kv_heads=2, l=110, s=112, d=128, layout="bnhd", causal=False, scale=1.7), 703,
     ("4a1ac2de054ebb14", "72e9d7b3f3922281", "af5be676779f8d4a", "6adcaf2e7d441932", "83834ffa44816f95")),
    (2, dict(b=1, heads=1, kv_heads=1, l=200, s=200, d=256, layout="bhnd", causal=False, scale=0.0625), 704,
     ("613f482fcc31ec55", "8ac4edf65fb6dbdf", "87c4a78707ed7aac", "5f44879a04a3d856", "f3e2bcff1f96ad9a")),
    (1, dict(b=2, heads=2, kv_heads=1, l=1, s=1, d=60, layout="bhnd", causal=False, scale=0.3), 705,
     ("6cc8667eca7c095f", "06568b97ac711add", "862502960b42dcb8", "b11fc64186416e68", "1a9ec77e44491fea")),
    (2, dict(b=1, heads=1, kv_heads=1, l=5, s=734, d=96, layout="bhnd", causal=True, scale=None), 807,
     ("4efcf5fffd305381", "8d518f40c3a53e22", "2dcd9649e3d29704", "eb1405c8e2f7a4ab", "891039a30a2dbb30")),
    (2, dict(b=1, heads=2, kv_heads=2, l=5, s=734, d=96, layout="bhnd", causal=True, scale=None), 808,
     ("d76940de94d50b34", "b88949845fb75acc", "2cb9d42f9be23103", "1cee0c9cb50ab884", "b4350bddf877731e")),
)  # fmt: skip
FLASH_IDS = (
    "grad_q rows 1024 bytes apart",  # grad_q's C: alpha on B's elements from 17 rows
    "q k^T of 8 rows in the region",  # B stored transposed, 6 to 15 rows, 128 columns or more: on B's
    "q k^T of 14 rows, 112 columns",  # below 128 columns: on the sum
    "head size 256",  # lda 256: the dot kernel on both threads
    "one query, one key",  # cpublas's 1 x 1 gemm
    "q k^T of 5 rows, 512 keys",  # the backward's scaled q k^T into rows 2 KiB apart, N - K >= 128: on B's
    "the same in the region",  # 2 heads: inside the region from 128 columns (5 rows too: on the chain)
)


@pytest.mark.parametrize("index", range(len(FLASH)), ids=FLASH_IDS)
def test_flash_attentions_calls_are_the_xeons(index: int) -> None:
    threads, params, seed, torch_bits = FLASH[index]
    assert flash_digests(params, seed, f"linux-x86_64-avx512-mklavx512-t{threads}") == torch_bits


def test_one_element_through_at_mm_is_refused() -> None:
    with pytest.raises(ParityError, match="one element"):
        linalg.mm(np.ones((1, 5), np.float32), np.ones((5, 1), np.float32), profile_for_platform(AVX512))


# gemv on 4 threads (x @ W.T of one row, x @ W of one row, A @ b): (kind, outputs, K) -> SHA-256 of torch's bits
# on the Xeon (MKL_ENABLE_INSTRUCTIONS=AVX512, 4 threads), operands from default_rng(outputs * K) in this order.
# MKL keeps these whole: the one-thread forms. Before, 3 or more threads took the generic path's gemv: other bits.
GEMV_FOUR = {("n", 93, 200): "9255d6ea2c168fc3", ("t", 40, 64): "bbfdd5e16a1b0891", ("col", 50, 60): "07caeb4a11e647c8"}


def _gemv_operands(kind: str, r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(r * k)
    if kind == "col":
        return rng.standard_normal((r, k), dtype=np.float32), rng.standard_normal((k, 1), dtype=np.float32)
    a = rng.standard_normal((1, k), dtype=np.float32)
    return a, (
        rng.standard_normal((r, k), dtype=np.float32).T
        if kind == "t"
        else rng.standard_normal((k, r), dtype=np.float32)
    )


@pytest.mark.parametrize("shape", GEMV_FOUR, ids=["-".join(map(str, s)) for s in GEMV_FOUR])
def test_a_gemv_on_four_threads_takes_the_one_thread_form(shape: tuple[str, int, int]):
    a, b = _gemv_operands(*shape)
    assert digest(linalg.mm(a, b, profile_for_platform("linux-x86_64-avx512-mklavx512-t4"))) == GEMV_FOUR[shape]


@pytest.mark.parametrize("platform", ["linux-x86_64-avx512-mklavx512-t4", "linux-x86_64-baseline-mklsse42-t3"])
def test_a_gemv_that_mkl_cuts_on_three_or_more_threads_is_refused(platform: str):
    """gemv 'N' from K = 128 x threads (MKL cuts its K), gemv 'T' from outputs x K = 4,096 on the AVX-512 and
    SSE4.2 paths (MKL cuts its outputs); just below, answered."""
    threads = int(platform[-1])
    for kind, r, k in (("n", 93, 128 * threads), ("t", 64, 64), ("col", 64, 64)):
        a, b = _gemv_operands(kind, r, k)
        with pytest.raises(ParityError, match="not modelled"):
            linalg.mm(a, b, profile_for_platform(platform))
    for kind, r, k in (("n", 93, 128 * threads - 1), ("t", 63, 64), ("col", 63, 64)):
        a, b = _gemv_operands(kind, r, k)
        assert linalg.mm(a, b, profile_for_platform(platform)).size == r


@pytest.mark.parametrize(
    "platform",
    ["linux-x86_64-avx512-mklavx512-t3", "linux-x86_64-avx512-mklavx512-t4", "linux-x86_64-avx2-mklavx2-t3",
     "linux-x86_64-baseline-mklsse42-t8"],
)  # fmt: skip
def test_flash_attention_on_unmodelled_thread_counts_is_refused(platform: str):
    """The flash kernel's products where MKL's cuts are not modelled (the AVX-512 path from 3 threads; the
    backward on the AVX2 and SSE4.2 paths on 3 or 5 and more): refused, where random cases on the Xeon
    had differed; the AVX2 path on 4 threads answers."""
    with pytest.raises(ParityError, match="how MKL cuts its products there is not modelled"):
        causal_sdpa_digests((1, 2, 40, 16), 3, platform)
    assert len(causal_sdpa_digests((1, 2, 40, 16), 3, "linux-x86_64-avx2-mklavx2-t4")) == 4


def test_b_stored_transposed_below_16_rows_into_rows_1_kib_apart() -> None:
    """torch.addmm(0, a, b, alpha=0.3) of 5 x 512 x 96, B stored transposed, on 2 threads (the Xeon's
    digest): C's rows 2 KiB apart and N - K >= 128, so MKL copies B with alpha on its elements outside an
    OpenMP region too. Where N - K is 104 to 136 MKL's form there depends on which leading dimension is
    1 KiB (with only A's or B's, neither form): refused, but for alpha a power of two (either place)."""
    rng = np.random.default_rng(809)
    a, b = rng.standard_normal((5, 96), dtype=np.float32), rng.standard_normal((512, 96), dtype=np.float32)
    two = profile_for_platform("linux-x86_64-avx512-mklavx512-t2")
    got = linalg.addmm(np.zeros((5, 512), np.float32), a, b.T, two, alpha=0.3, beta=0.0)
    assert digest(got) == "1f9a9c0ac732be5b"
    a, b = rng.standard_normal((12, 96), dtype=np.float32), rng.standard_normal((216, 96), dtype=np.float32)
    with pytest.raises(ParityError, match="N - K of 104 to 136"):
        linalg.addmm(np.zeros((12, 216), np.float32), a, b.T, two, alpha=0.3, beta=0.0)
    assert linalg.addmm(np.zeros((12, 216), np.float32), a, b.T, two, alpha=0.5, beta=0.0).shape == (12, 216)


def test_few_rows_against_b_stored_transposed_1_kib_apart_keep_k_whole() -> None:
    """x @ W.T of 8 rows, K = 784, x's rows 1 KiB apart (a slice of a 1,024-wide buffer), on 2 threads:
    MKL keeps K whole (one thread's form) where it would cut K with rows packed (the Xeon's digest; the
    K cut gave 2,259 of 2,544 elements other bits)."""
    rng = np.random.default_rng(810)
    a = rng.standard_normal((8, 1024), dtype=np.float32)[:, :784]
    w = rng.standard_normal((318, 784), dtype=np.float32)
    two = profile_for_platform("linux-x86_64-avx512-mklavx512-t2")
    assert digest(linalg.mm(a, w.T, two)) == "eb0baf5391a756ca"
    assert digest(linalg.mm(np.ascontiguousarray(a), w.T, two)) != "eb0baf5391a756ca"  # packed: the K cut
