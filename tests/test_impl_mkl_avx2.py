"""MKL's Intel AVX2 sgemm path (csrc/mkl_sgemm.h mkl_avx2_sgemm) against the committed fixture recorded
under QEMU's Haswell-v4 model (linux-x86_64-avx2-mklavx2-t1): chosen outputs compared as uint32 bit
patterns with the fixture's own tensors, and the same outputs under MKL's generic path shown to differ
(so that each check depends on the Intel path's model). No torch, no recording: the fixture only."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.ops import OpFixture, read_op_fixture
from harness.impl import linalg
from harness.impl.op_registry import run_case
from harness.impl.profiles import MKL_AVX2, MODELLED_BLAS, get_profile, profile_for_platform
from harness.replay.check import check_profile, unmodelled_note
from harness.store.paths import DEFAULT_FIXTURES

PLATFORM = "linux-x86_64-avx2-mklavx2-t1"
FIXTURE = DEFAULT_FIXTURES / "torch-2.13.0" / f"{PLATFORM}.h5"

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


@cache
def _fixture() -> OpFixture:
    return read_op_fixture(FIXTURE)


@cache
def _run(case: str, blas: str) -> dict[str, np.ndarray]:
    rec = _fixture().cases[case]
    profile = profile_for_platform(PLATFORM)
    if blas != profile.blas:
        profile = get_profile("x86-avx2", 1)
    return run_case(rec.op, rec.params, rec.inputs, profile)


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, np.float32).view(np.uint32)


def test_the_intel_avx2_platform_gets_its_own_profile():
    profile = profile_for_platform(PLATFORM)
    assert profile.blas == MKL_AVX2 and profile.aten == "avx2" and profile.threads == 1
    assert check_profile(PLATFORM) == profile
    assert "not modelled whole" in unmodelled_note(PLATFORM)
    assert profile_for_platform("linux-x86_64-avx2-mklgeneric-t1").blas == MODELLED_BLAS
    with pytest.raises(ParityError, match="mklavx2"):  # the AVX2 path on a baseline machine: no such model
        profile_for_platform("linux-x86_64-baseline-mklavx2-t1")


@pytest.mark.parametrize(("case", "output"), EXACT, ids=[f"{c}/{o}" for c, o in EXACT])
def test_intel_avx2_sgemm_reproduces_the_fixture_bits(case: str, output: str):
    expected = _bits(_fixture().cases[case].outputs[output])
    got = _bits(_run(case, MKL_AVX2)[output])
    assert got.shape == expected.shape
    assert np.array_equal(got, expected), f"{int((got != expected).sum())} of {got.size} elements differ"
    generic = _bits(_run(case, MODELLED_BLAS)[output])
    assert not np.array_equal(generic, expected), "the generic path gives these bits too: not a check of the model"


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
