"""The zero's sign of at::bmm's items on MKL's generic path with K == 1 (csrc/mkl_sgemm.h mkl_zero_start): a
plain sgemm's rank-1 update keeps the product itself (-0 where a zero meets a negative number), an item of
MKL's batched gemm (2 or more items) starts from +0, so its zero products end as +0. Recorded through torch
2.13.0 at avx2 on a Zen 5 (MKL's generic path), 1, 2, 4 and 8 threads, every transpose of each operand:
items of zeros of both signs times 1.5 or -2 gave +0 everywhere in 64 of 64 batches of 2 to 5 items (Mamba's
scan backward, (4, 64, 1) @ (4, 1, 8), among them), and a batch of one the products' signs in 16 of 16.
No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import linalg
from harness.impl.profiles import profile_for_platform

SHAPES = ((1, 20, 30), (2, 7, 65), (4, 64, 8), (5, 3, 2), (3, 17, 64))


def _operands(nb: int, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(nb * 1000 + m * 10 + n)
    a = np.where(rng.random((nb, m, 1)) < 0.5, np.float32(0.0), np.float32(-0.0))
    b = np.where(rng.random((nb, 1, n)) < 0.5, np.float32(1.5), np.float32(-2.0))
    return a, b


def _laid_out(x: np.ndarray, transposed: bool) -> np.ndarray:
    """x itself, or the same values over storage with its last two dims swapped."""
    return np.ascontiguousarray(x.transpose(0, 2, 1)).transpose(0, 2, 1) if transposed else x


@pytest.mark.parametrize("threads", (1, 2, 4, 8))
@pytest.mark.parametrize(("nb", "m", "n"), SHAPES)
def test_batched_k1_zero_products_end_as_plus_zero(threads: int, nb: int, m: int, n: int) -> None:
    a, b = _operands(nb, m, n)
    products = a * b  # every element a signed zero: the rank-1 update's own result
    want = products if nb == 1 else np.zeros_like(products)
    profile = profile_for_platform(f"linux-x86_64-avx2-t{threads}")
    for ta in (False, True):
        for tb in (False, True):
            got = linalg.bmm(_laid_out(a, ta), _laid_out(b, tb), profile)
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (ta, tb)


def _unit_strides(x: np.ndarray) -> np.ndarray:
    """x (B, 1, N) as a view whose unit dim has stride 1 element, as torch records TAPAS's mat2 (strides
    (64, 1, 1)): B stored transposed to MKL."""
    return np.lib.stride_tricks.as_strided(x, x.shape, (x.strides[0], x.itemsize, x.itemsize))


@pytest.mark.parametrize("threads", (1, 2, 4, 8))
@pytest.mark.parametrize(("m", "n"), ((80, 64), (20, 30), (7, 65), (64, 8), (257, 100)))
def test_plain_k1_zero_products_keep_their_sign_with_b_stored_transposed(threads: int, m: int, n: int) -> None:
    """TAPAS's bmm of (1, 80, 1) zeros by a (1, 1, 64) row of strides (64, 1, 1) (recorded through torch at
    avx2 on 1, 2, 4 and 8 threads, bmm and mm, A of either layout: the products' signs in 40 of 40), which
    the impl had refused."""
    a, b = _operands(1, m, n)
    b = _unit_strides(b.copy())
    want = a * b
    profile = profile_for_platform(f"linux-x86_64-avx2-t{threads}")
    for ta in (False, True):
        got = linalg.bmm(_laid_out(a, ta), b, profile)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), ta
        got = linalg.mm(_laid_out(a, ta)[0], b[0], profile)
        assert np.array_equal(got.view(np.uint32), want[0].view(np.uint32)), ta
