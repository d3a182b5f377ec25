"""harness.impl.linalg.solve_triangular against torch's recorded bits (torch 2.13.0, MKL 2024.2's strsm on
its generic path, recorded on an AMD EPYC Zen 5; no ATen level reaches a bit): the lower solve of a
C-contiguous A (MKL's strsmlt; Qwen3-Next's chunked delta rule: 64 rows, 8 columns, unit) and autograd's upper
solve on its transpose (strsmlun), unit or not, n off the 4-row blocks (strsmlt's pairs and last row,
strsmlun's top rows), A at each 4-byte offset from a 16-byte boundary (strsmlt's peels); past 64 rows MKL's
64-row blocks and the sgemm updates between them, on the columns each of MKL's threads takes (BEYOND: the
thread count picks the updates' widths, so their sgemm kernels); the other two layouts with two or more columns
(OTHER_LAYOUTS: strsmlt's lower branch, strsmlln); the right side (RIGHT: strsm_i, its recursion's sgemm updates
on each thread's rows, one row through strsv).

Each case's inputs come from ``trsm_inputs``: A's strict lower triangle standard normal times 0.5 with ones on
the diagonal, or for a non-unit case diagonal entries of 0.5 to 3 of either sign (its upper triangle random
too: strsm must not read it), B standard normal, a -0, a subnormal and an infinity planted in B. A lies
``offset`` floats past a 64-byte boundary (``python -m tests.test_impl_solve_triangular`` records the digests
so). The digests are SHA-256 of torch's output as uint32 (C order). No host is needed.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256


def trsm_inputs(
    batch: tuple[int, ...], n: int, k: int, upper: bool, seed: int, unit: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The op's A (..., n, n): lower, or for ``upper`` its transpose, and B (..., n, k), float32."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((*batch, n, n)) * 0.5).astype(np.float32)
    a[..., np.arange(n), np.arange(n)] = 1.0
    b = rng.standard_normal((*batch, n, k)).astype(np.float32)
    if not unit:
        diag = rng.uniform(0.5, 3.0, (*batch, n)) * rng.choice([-1.0, 1.0], (*batch, n))
        a[..., np.arange(n), np.arange(n)] = diag.astype(np.float32)
    b[..., 0, 0] = -0.0
    b[..., 1, -1] = np.float32(1e-41)
    if n > 8 and k > 1:
        b.reshape(-1, n, k)[-1, n // 2, 1] = np.inf
    return (np.swapaxes(a, -1, -2) if upper else a), b


def _strides(shape: tuple[int, ...], upper: bool) -> list[int]:
    """torch's strides of the op's A: C-contiguous, or for ``upper`` the transpose of a C-contiguous tensor."""
    n = shape[-1]
    batch = [int(np.prod(shape[d + 1 : -2], dtype=np.int64)) * n * n for d in range(len(shape) - 2)]
    return batch + ([1, n] if upper else [n, 1])


# (threads, batch, n, k, upper, seed, digest)
# fmt: off
CASES = (
    # Qwen3-Next's chunks (batch, heads, chunks, 64, 64) and its backward's solve on their transpose
    (1, (1, 2, 2), 64, 8, False, 0,
     "32cd2abb836155059f9529ebc3c8edcdee43e828818863266155cb5d44956c0e"),
    (2, (1, 2, 2), 64, 8, True, 0,
     "5aafbffd1102bce0efaa9d5f301712509c6beb1e203447ab626b6516c457e6de"),
    (4, (3,), 16, 5, False, 1,
     "77902a5ebe95ddb2ca6f532b706e23f90f2b2764709db48e14ef21b32733328b"),
    (1, (3,), 16, 5, True, 1,
     "ad2d680e60251575dbb9126de282cf452b894acf1dd480f9692b53c136b2bf3c"),
    (2, (), 4, 2, False, 2,
     "4da35be392b3339f3907af81d3ef41970d136c60958fca8f7d0573cc01e4813f"),
    (1, (2,), 36, 33, True, 3,
     "12bd06aaed30a26de757f71d3244fa9398b5a95c79e9be4b225514e0fed21ce1"),
    (1, (2,), 60, 3, False, 4,
     "c4b935ece392805240eb851d14a2f3ec22bdf60e1e3a2faea0318d1f7b16c5c5"),
)
# (threads, batch, n, k, upper, unit, offset, seed, digest): strsmlt's pairs, last rows and peels, non-unit
# diagonals, strsmlun's top rows
MORE = (
    (1, (), 64, 8, False, False, 0, 10,
     "61ec7927421e67be276845dfd4e82bba19df550c0bff2f31e46ca22d2f61e52c"),
    (2, (2,), 63, 3, False, True, 1, 11,
     "6ccdf3da4e9ecf5dd88191b3610d3f3e372b3faa6fcb285b304ad4be5146b1fb"),
    (1, (3,), 62, 4, False, False, 2, 12,
     "4319f059ca1551032be0c9586dc9171c7ef84ffce5c5ee36afe02914fd116bee"),
    (4, (), 61, 2, False, True, 3, 13,
     "7eab5265f059f9debfb7da31780e1eaf00db94458d1b021f7382ca1125f9c9d3"),
    (1, (2, 2), 29, 5, False, False, 1, 14,
     "b5f783533cb22f6acc5aa0e47f0404f6b8148015c03c2cffac7403268e7523e1"),
    (2, (), 18, 7, False, True, 2, 15,
     "7a391fa29c1c76f7995fefef4b4f26f160c5fb6ca29bffe8d17239f9f9530dd9"),
    (1, (2,), 7, 3, False, False, 3, 16,
     "80f6969eb9e651f378ea53136e0dd26499ab03254d450b59481f5d202886b413"),
    (1, (), 64, 8, True, False, 0, 17,
     "3671cfd3205f59c6d5f7cb8283126aeb6137be6a7ef54fef29e9748c7bc75f56"),
    (2, (2,), 63, 3, True, True, 1, 18,
     "875107a38067293cbf1a5cc079d2dfb9b6d52dc68477c4b063a824aec2d8afbc"),
    (1, (3,), 62, 4, True, False, 2, 19,
     "c4c4b7a3378222f60361cd30bd712f073c4e76f165d4c631920b3b7d771d087a"),
    (4, (), 61, 2, True, False, 3, 20,
     "7bd6b0f64189a772eef7dfbbbe3ca0c3607ea29bcfd73cf7c438e3429e8bb780"),
    (1, (2, 2), 30, 5, True, True, 0, 21,
     "07742b21d292d89e8dadc7e5ada661052a8b71c02ad7a6ebe75f842f70ca88cf"),
    (1, (), 5, 3, True, False, 1, 22,
     "c8f6ec9ed0c27979ca4c54db9615f4b986210558642c0f7c0d982c593fd58443"),
    (1, (3, 2), 23, 7, True, True, 0, 23,
     "37c7d87a16075710b4644f5772ee1787c8aa534c56bb31eb1aca9a0fa9c93270"),
    (2, (2,), 13, 6, True, False, 3, 24,
     "2fa4e994f07dc6f01362f7e84fab72861b9b0047975f28753733b9178ace35c8"),
    (1, (3, 2), 15, 10, True, False, 0, 25,
     "d42dab26e85b17e31e1e7db38490452ea40263382eeceb81bd06a5348afde650"),
)
# (threads, batch, n, k, upper, unit, offset, seed, digest): past 64 rows (64-row blocks, sgemm updates of the
# columns each thread takes: 2 to 20 wide)
BEYOND = (
    (1, (), 100, 8, False, True, 0, 30,
     "c394d973e6f366edda46c531a60ddf8c9ad34db35723c7b8928b07ef9a397a84"),
    (4, (2,), 150, 10, False, False, 1, 31,
     "fcd42d4d5f398a41d030d3f66cc896bbcbd02287d0c506cfa5ecf21e4652b18d"),
    (2, (), 256, 24, False, True, 2, 32,
     "1d32a47a044424103d21514af90cf21b1f45a7a34d28a538d81cfc215119bd9e"),
    (1, (3,), 66, 3, False, False, 3, 33,
     "43ba594b80780c887bea0c87df83a1123ff83cb0160bacc7ac2ebbfa5ae714e1"),
    (4, (), 200, 40, False, False, 0, 34,
     "a7298586aec30d55e669041d64640a446b5c3e349d089b41bad17af95e56bff1"),
    (1, (), 200, 40, True, False, 3, 35,
     "881c6eb363b2079eda68626944a6be5ed7f3ff50aeb7de199f4cd683600761d3"),
    (4, (2,), 130, 5, True, True, 0, 36,
     "878770ed2887583de4a5165b68a01a1832a173557d82becb362ba275c2133f2a"),
    (2, (), 192, 7, True, False, 1, 37,
     "cc2dd373dc7907ca410593ead045bd0394bd25485c84f2a84eb64dac3e14abb3"),
    (1, (2,), 128, 8, True, True, 0, 38,
     "f3cdd779581c20294bd11139d3e0b659c01366f7e3c6bc5cfb368bd6acf75e59"),
)
# (threads, batch, n, k, upper, unit, offset, seed, digest): one right-hand column (MKL's strsv: 32-row blocks, the
# gemv between them; odd last rows, the column's copy off a 16-byte boundary in later items)
STRSV = (
    (1, (), 40, 1, False, True, 1, 40,
     "225d28028a49d6b08754776569c427cfad09711bb3758e5be193d9f601095808"),
    (2, (2,), 130, 1, False, False, 2, 41,
     "ba1bcaa0ee45fc5ae90148eb5ea6f0abc5005a1badad8762112a59c084f09d4c"),
    (4, (3,), 9, 1, False, True, 3, 42,
     "f3e85834b14d6e7ab2f120513a3ca2b452a91a7e283d5e8eff8e5005323a667d"),
    (1, (), 255, 1, False, False, 0, 43,
     "6c653c5dbd596025a4abec90c70898ec542f5bc19ab402815bbc5f21cea148d3"),
    (1, (3,), 131, 1, True, True, 1, 44,
     "40f698abb707c88310a5bd2b254ac7ba46dda1fdb71951e57db9a565ffc68a67"),
    (2, (), 37, 1, True, False, 2, 45,
     "d5ce3b8791045be522f77a8c3d5db7723a238d6f9bfdcf8c3c64590a025430b9"),
    (1, (2, 2), 2, 1, True, False, 0, 46,
     "29a960ab28d625e24e2936ae5fc3178abd2552c9e7cec667e400c2e823968af7"),
    (4, (2,), 201, 1, True, False, 3, 47,
     "3c9057d8b3c8c49d5dfc2ee5d3de92ae77038dafaee142d784ab565fda0afe3b"),
)
# (threads, batch, n, k, upper, unit, offset, seed, digest): one column on the other two layouts, the op's upper
# triangle of a C-contiguous A (MKL's strsv_ltu / ltn) and its lower triangle of a transposed one (strsv_lnu / lnn)
STRSV_OTHER = (
    (1, (), 40, 1, True, True, 1, 60,
     "c512de1ee2ee9b19a950bd7145b6c0ccd13f6c1d1e93f35104171cf43938fa50"),
    (2, (2,), 130, 1, True, False, 2, 61,
     "89da8dc5dd9f86edc586cd378a70cd2780e2ae8a0399b05b633a6130eaa9c805"),
    (1, (3,), 33, 1, True, False, 3, 62,
     "63bd144abbf7b090398d2aa167c9de3b756e468a0034d653c242df104f0816c1"),
    (1, (2,), 99, 1, False, True, 0, 63,
     "cb06bbcc793a4498722f8b4568b8e34f2141e8c6ffc095cd44c4bc9903ad3eed"),
    (4, (), 200, 1, False, False, 1, 64,
     "3f1655996050ea37953094ce0f71dd6b3f0b286d1f95612b87071cd9b1c49543"),
)
# (threads, batch, n, k, upper, unit, offset, seed, digest): two or more columns on the other two layouts, the op's
# upper triangle of a C-contiguous A (strsmlt's lower branch: blocks of 4 from the last, the unit blocks' peel to row
# i0 + 3's first term, the pair's to row hi's, row 0's to its own) and its lower triangle of a transposed one
# (strsmlln); n off the 4-row blocks, past 64 rows MKL's sgemm updates (TN, resp. NN) on each thread's columns
OTHER_LAYOUTS = (
    (1, (), 64, 8, True, True, 1, 70,
     "c4c3758ac71234c752e4147fba6b216b333dc47b9e9040a95cdc49cff695e526"),
    (1, (2,), 63, 3, True, False, 2, 71,
     "89e2d2d49b10c5385d035c7d176476a0d22b04cdcc24f709ef53b96fb608d3d7"),
    (2, (), 62, 5, True, True, 3, 72,
     "30d12bde2eeb08e05f16777fe2f77993efd41786fdee9a053447bff642f1214a"),
    (1, (3,), 29, 4, True, False, 0, 73,
     "c99cde6fd57b7c966ad9105d0749e632c4f93264690cf01cb6acad26f7f90e1f"),
    (4, (), 150, 10, True, True, 1, 74,
     "331ac91b3bbe44b139026f8a08518734bf9098e60ab1908161f087b47cfde76f"),
    (2, (2,), 131, 7, True, False, 2, 75,
     "627a3e7e44a93a1cc9d9ef29c825788a59da9a12fe37b8c7f625bd1fcd16adeb"),
    (1, (), 64, 8, False, True, 0, 76,
     "0e3a8cb0b05fa98f5125eec6a28eac9f5ca98b3aff6e534fc476f6dd20f3bbf0"),
    (1, (2,), 63, 3, False, False, 1, 77,
     "ac6534480e9e03f07cc3539c408382161bd4b4de045e38b894e6023e8a8d6a7c"),
    (2, (), 61, 5, False, True, 2, 78,
     "051f4dbfaca32bd6e565fa2275c77794a9d2421da4b5d15ba89a04806d88fc02"),
    (1, (3,), 30, 4, False, False, 3, 79,
     "33f5e0ec95223e27e105b48a389adcb1f9d53652eb7a89a047ad71bca667a2b0"),
    (4, (), 200, 40, False, False, 0, 80,
     "60633a63741851a347c335dc7f2d3c6a5b7822811a31fa3dcb3aa14930580cc6"),
    (2, (2,), 129, 6, False, True, 1, 81,
     "fbe482f77b581f9f7ca17849f36f87737c1a4bb6f51b8a361747db70b245b8f6"),
)
# (threads, batch, n, k, upper, transposed, unit, offset, seed, digest): right-side solves (left = False, B of k
# rows), A C-contiguous or its transpose: MKL's strsm_i (reference BLAS's order; the op's lower triangle of a
# C-contiguous A subtracts from the last column down), past 64 columns its recursion's blocks and NT / NN sgemm
# updates on each thread's rows; one row: MKL's strsv
RIGHT = (
    (1, (), 40, 5, False, False, True, 1, 90,
     "9172b997b43fa45c51801cbf9dd562aaba3f6733d791766477dcb38090dfa84f"),
    (2, (2,), 33, 3, False, True, False, 2, 91,
     "bfb30f1bfd44cc4b0306ae1a2116528e7f25a3f09715e6055d5c71dd75cff9b5"),
    (1, (3,), 20, 4, True, False, False, 3, 92,
     "4f8c059a4506a123df372f7fb9a0441166eadf6f8b298fcd28c21c11f9ff1a8c"),
    (4, (), 64, 8, True, True, True, 0, 93,
     "511c89d1ec58e846a726508d1e99e6ee561542cd2c789438e6d4459b444e47c8"),
    (1, (), 150, 5, False, False, False, 1, 94,
     "a17e784b53e2c8624ab619d936782d465c00c2e22b71138d1c4d636614faa0f7"),
    (4, (2,), 200, 10, True, False, True, 2, 95,
     "3083714a775ad21fbb6d0c9cb022b47f8b0afea41fb86b8b36f806691e3c4e54"),
    (2, (), 256, 7, False, True, False, 3, 96,
     "88ce03621777d5507ea96c749246872433ceebdf55a4abea300af820461349c7"),
    (1, (), 129, 3, True, True, False, 0, 97,
     "0666df5a910178e4d311144477dd40f82d6ed6a288f4f140d85096f9741a03e8"),
    (1, (2,), 50, 1, False, False, False, 1, 98,
     "98745f33930759f383881e1b9200969d4bb8fc596199af8683050701d1fa3822"),
    (2, (), 100, 1, True, True, True, 2, 99,
     "657aac5ae5d0af37e70b0ee71246218f67726be8098177d9ecbbbfc949f87ba2"),
)
# (threads, batch, n, k, upper, unit, offset, seed, digest): past 64 rows, an sgemm update of one row (n % 64 == 1)
# or of a thread's one column (MKL's sgemm_pst, not its gemv)
UPDATES = (
    (1, (), 65, 3, False, True, 0, 50,
     "4c50202adc21ec516bbb1dfc4bb5c7606c706630d5ba1d4bc283787c72a03857"),
    (1, (2,), 129, 5, True, False, 1, 51,
     "72db9a3bcf1a7021b55bbb1eea30cb8362057ecb7ded423bd66a8b10030ec60c"),
    (2, (), 193, 2, False, False, 2, 52,
     "499f53cdcd4adbf2620c37daa46a359ec819b5aadf6fb010d41394fff636d356"),
    (4, (), 100, 5, False, True, 3, 53,
     "8dad216bd1b02187fcfe76c677e42701e1a32f9fcf10f562c8c8fc3575e09800"),
    (2, (2,), 256, 3, False, False, 1, 54,
     "2300d973e36450dff32b02342e6aee9556ebedf45fd379a9a2bd29c7401b8fd2"),
    (4, (), 150, 4, True, True, 0, 55,
     "0bf96f70020fa57191aa57ebca7e8069d0244f97795b72d489616221ada91589"),
)
# fmt: on


def _case_id(c: tuple) -> str:
    return f"t{c[0]}-{c[2]}x{c[3]}-{'upper' if c[4] else 'lower'}-{'unit' if c[5] else 'diag'}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"t{c[0]}-{c[2]}x{c[3]}-{'upper' if c[4] else 'lower'}")
def test_solve_triangular_replays_recorded_bits(case: tuple) -> None:
    threads, batch, n, k, upper, seed, digest = case
    a, b = trsm_inputs(batch, n, k, upper, seed)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    assert bits_sha256(linalg.solve_triangular(a, b, upper, True, _strides(a.shape, upper), 0, profile)) == digest


@pytest.mark.parametrize("case", MORE, ids=_case_id)
def test_solve_triangular_off_the_blocks_and_diagonals_replays_recorded_bits(case: tuple) -> None:
    threads, batch, n, k, upper, unit, offset, seed, digest = case
    a, b = trsm_inputs(batch, n, k, upper, seed, unit)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    got = linalg.solve_triangular(a, b, upper, unit, _strides(a.shape, upper), 4 * offset, profile)
    assert bits_sha256(got) == digest


@pytest.mark.parametrize("case", BEYOND + STRSV + UPDATES, ids=_case_id)
def test_solve_triangular_past_64_rows_and_one_column_replay_recorded_bits(case: tuple) -> None:
    threads, batch, n, k, upper, unit, offset, seed, digest = case
    a, b = trsm_inputs(batch, n, k, upper, seed, unit)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    got = linalg.solve_triangular(a, b, upper, unit, _strides(a.shape, upper), 4 * offset, profile)
    assert bits_sha256(got) == digest


@pytest.mark.parametrize("case", STRSV_OTHER + OTHER_LAYOUTS, ids=_case_id)
def test_solve_triangular_on_the_other_layouts_replays_recorded_bits(case: tuple) -> None:
    """The op's upper triangle of a C-contiguous A, its lower triangle of a transposed one: one column (MKL's
    strsv), two or more (strsmlt's lower branch, strsmlln)."""
    threads, batch, n, k, upper, unit, offset, seed, digest = case
    a, b = trsm_inputs(batch, n, k, upper, seed, unit)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    got = linalg.solve_triangular(a, b, upper, unit, _strides(a.shape, not upper), 4 * offset, profile)
    assert bits_sha256(got) == digest


def right_inputs(
    batch: tuple[int, ...], n: int, k: int, upper: bool, seed: int, unit: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``trsm_inputs``' A and its B's transpose (..., k, n); past 64 columns the infinity made finite (its NaNs
    in an update are refused)."""
    a, b = trsm_inputs(batch, n, k, upper, seed, unit)
    b = np.ascontiguousarray(np.swapaxes(b, -1, -2))
    if n > 64:
        b[np.isinf(b)] = 3.0
    return a, b


@pytest.mark.parametrize(
    "case", RIGHT, ids=lambda c: f"t{c[0]}-{c[2]}x{c[3]}-{'upper' if c[4] else 'lower'}-{'T' if c[5] else 'C'}"
)
def test_solve_triangular_right_side_replays_recorded_bits(case: tuple) -> None:
    threads, batch, n, k, upper, transposed, unit, offset, seed, digest = case
    a, b = right_inputs(batch, n, k, upper, seed, unit)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    got = linalg.solve_triangular(a, b, upper, unit, _strides(a.shape, transposed), 4 * offset, profile, left=False)
    assert bits_sha256(got) == digest


def test_solve_triangular_refuses_what_was_not_measured() -> None:
    """A layout neither C-contiguous nor its transpose, an address off 4 bytes, NaNs (one column's too)."""
    profile = profile_for_capability("AVX2", 1, "x86_64")
    a, b = trsm_inputs((), 8, 3, False, 5)
    c_order = _strides(a.shape, False)
    with pytest.raises(ParityError, match="measured on C-contiguous"):
        linalg.solve_triangular(a, b, False, True, [16, 2], 0, profile)
    with pytest.raises(ParityError, match="measured on C-contiguous"):
        linalg.solve_triangular(a, b, False, True, c_order, 2, profile)
    one = trsm_inputs((), 40, 1, True, 5)
    with pytest.raises(ParityError, match="and their transposes"):
        linalg.solve_triangular(*one, True, True, [80, 1], 0, profile)
    one[1][7, 0] = np.nan
    with pytest.raises(ParityError, match="NaN operands"):
        linalg.solve_triangular(*one, True, True, _strides(one[0].shape, True), 0, profile)
    b[3, 1] = np.nan
    with pytest.raises(ParityError, match="NaN operands"):
        linalg.solve_triangular(a, b, False, True, c_order, 0, profile)
    a, b = trsm_inputs((), 100, 3, False, 6)  # right side: infinity - infinity's NaN reaches an update
    b = np.ascontiguousarray(b.T)
    b[1, 99] = np.inf
    with pytest.raises(ParityError, match="reaches MKL's sgemm update"):
        linalg.solve_triangular(a, b, False, False, _strides(a.shape, False), 0, profile, left=False)


if __name__ == "__main__":  # pragma: no cover - records the digests of MORE and the lists after it with torch
    import torch

    for threads, batch, n, k, upper, unit, offset, seed, _ in (
        MORE + BEYOND + STRSV + UPDATES + STRSV_OTHER + OTHER_LAYOUTS
    ):
        other = (threads, batch, n, k, upper, unit, offset, seed, _) in STRSV_OTHER + OTHER_LAYOUTS  # A's other layout
        torch.set_num_threads(threads)
        a, b = trsm_inputs(batch, n, k, upper, seed, unit)
        stored = np.ascontiguousarray(np.swapaxes(a, -1, -2) if upper != other else a)
        room = torch.empty(stored.size + 16)
        start = (16 - room.data_ptr() % 64 // 4) % 16 + offset
        held = room[start : start + stored.size].view(stored.shape)
        held.copy_(torch.from_numpy(stored))
        assert held.data_ptr() % 64 == 4 * offset
        op_a = held.mT if upper != other else held
        x = torch.linalg.solve_triangular(op_a, torch.from_numpy(b), upper=upper, unitriangular=unit)
        print(threads, batch, n, k, upper, unit, offset, seed, bits_sha256(x.numpy()))
    for threads, batch, n, k, upper, transposed, unit, offset, seed, _ in RIGHT:
        torch.set_num_threads(threads)
        a, b = right_inputs(batch, n, k, upper, seed, unit)
        stored = np.ascontiguousarray(np.swapaxes(a, -1, -2) if transposed else a)
        room = torch.empty(stored.size + 16)
        start = (16 - room.data_ptr() % 64 // 4) % 16 + offset
        held = room[start : start + stored.size].view(stored.shape)
        held.copy_(torch.from_numpy(stored))
        assert held.data_ptr() % 64 == 4 * offset
        op_a = held.mT if transposed else held
        x = torch.linalg.solve_triangular(op_a, torch.from_numpy(b), upper=upper, left=False, unitriangular=unit)
        print("right", threads, batch, n, k, upper, transposed, unit, offset, seed, bits_sha256(x.numpy()))
