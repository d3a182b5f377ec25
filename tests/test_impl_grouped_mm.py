"""linalg.grouped_mm (torch._grouped_mm on the CPU) without torch: its groups are the impl's own mm, an
empty one is zeros, what ATen would leave unwritten or the model does not have is refused in one line.
Its bits against torch: tests/test_impl_live_traced.py (test_grouped_mm_replays)."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import profile_for_platform

GENERIC = profile_for_platform("linux-x86_64-avx2-t1")
AVX512_T1 = profile_for_platform("linux-x86_64-avx512-mklavx512-t1")
AVX512_T2 = profile_for_platform("linux-x86_64-avx512-mklavx512-t2")


def _operands(rows: int, k: int, groups: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(rows * 1000 + n)
    return rng.standard_normal((rows, k), dtype=np.float32), rng.standard_normal((groups, k, n), dtype=np.float32)


def test_each_group_is_the_product_of_its_rows() -> None:
    x, w = _operands(30, 12, 3, 20)
    got = linalg.grouped_mm(x, w, [7, 7, 30], GENERIC)  # the second expert takes no row
    want = np.concatenate([linalg.mm(x[:7], w[0], GENERIC), linalg.mm(x[7:], w[2], GENERIC)])
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_the_weights_gradient_of_an_expert_without_rows_is_zeros() -> None:
    """x^T (12, 30) by the output's gradient (30, 20), its 30 rows in groups of 10, 0 and 20."""
    rng = np.random.default_rng(2)
    xt, grad = rng.standard_normal((12, 30), dtype=np.float32), rng.standard_normal((30, 20), dtype=np.float32)
    got = linalg.grouped_mm(xt, grad, [10, 10, 30], GENERIC)
    assert got.shape == (3, 12, 20) and not got[1].any()
    want = linalg.mm(xt[:, 10:], grad[10:], GENERIC)
    assert got[2].view(np.uint32).tolist() == want.view(np.uint32).tolist()


@pytest.mark.parametrize(
    ("offs", "why"),
    [([7, 5, 30], "not ascending"), ([7, 20, 25], "groups end at row 25 of 30: the rest is unwritten")],
)
def test_offsets_torch_would_not_fill_are_refused(offs: list[int], why: str) -> None:
    x, w = _operands(30, 12, 3, 20)
    with pytest.raises(ParityError, match=why):
        linalg.grouped_mm(x, w, offs, GENERIC)


def test_groups_of_columns_are_refused() -> None:
    with pytest.raises(ParityError, match="3-D by 2-D"):
        linalg.grouped_mm(np.ones((2, 3, 4), np.float32), np.ones((4, 6), np.float32), [3, 6], GENERIC)


def test_a_one_row_group_off_a_line_is_refused_on_avx512_at_two_threads() -> None:
    """Rows of 20 floats (80 bytes): the group starting at row 3 has its C 240 bytes in, 48 past a line."""
    x, w = _operands(8, 12, 3, 20)
    offs = [3, 4, 8]  # the second group is the single row 3
    with pytest.raises(ParityError, match="48 bytes past a 64-byte line"):
        linalg.grouped_mm(x, w, offs, AVX512_T2)
    assert linalg.grouped_mm(x, w, offs, AVX512_T1).shape == (8, 20)  # one thread: the whole gemv
    assert linalg.grouped_mm(x, w, [4, 5, 8], AVX512_T2).shape == (8, 20)  # row 4: 320 bytes, on a line
