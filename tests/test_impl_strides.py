"""harness/impl/strides.py: what captured strides say about a tensor's layout, as c10 reads them.

Torch-free cases fix the rules (dims of size 1, tensors of no elements, the channels-last orders);
live cases draw random views and permutations and ask torch whether each is contiguous.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl.strides import (
    c_strides,
    channels_last_strides,
    contiguous,
    same_layout,
    strides_in_order,
    suggests_channels_last,
)


def test_strides_in_order_lays_dims_out_outermost_first() -> None:
    assert c_strides((2, 3, 4)) == [12, 4, 1]
    assert strides_in_order((2, 3, 4, 5), (0, 2, 3, 1)) == [60, 1, 15, 3]
    assert channels_last_strides((2, 3, 4, 5)) == [60, 1, 15, 3]
    assert c_strides(()) == []


def test_contiguous_ignores_dims_of_size_one_and_empty_tensors() -> None:
    assert contiguous((12, 4, 1), (2, 3, 4))
    assert contiguous((99, 4, 1), (1, 3, 4))  # a leading dim of size 1 may have any stride
    assert contiguous((12, 7, 1), (2, 1, 12))
    assert not contiguous((12, 1, 3), (2, 3, 4))
    assert not contiguous((24, 8, 2), (2, 3, 4))  # every other element
    assert contiguous((5, 7, 3), (2, 0, 4))  # no elements: contiguous whatever the strides
    assert not same_layout((5, 7, 3), c_strides((2, 0, 4)), (2, 0, 4))  # the strides alone still differ


def test_suggests_channels_last_tie_rules() -> None:
    assert suggests_channels_last((4, 32, 4, 4), (512, 1, 128, 32))
    assert not suggests_channels_last((4, 32, 4, 4), (512, 16, 4, 1))
    assert not suggests_channels_last((2, 152, 16), (2432, 1, 152))  # 3-D: never
    assert suggests_channels_last((2, 3, 4, 5, 6), strides_in_order((2, 3, 4, 5, 6), (0, 2, 3, 4, 1)))


def _views(rng: np.random.Generator, n: int) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """(base shape, permutation, per-dim step) of ``n`` random strided views, some dims of size 1 or 0."""
    out = []
    for _ in range(n):
        ndim = int(rng.integers(1, 6))
        shape = tuple(int(rng.choice([0, 1, 1, 2, 3, 5])) if rng.random() < 0.5 else int(rng.integers(1, 7))
                      for _ in range(ndim))  # fmt: skip
        perm = tuple(int(d) for d in rng.permutation(ndim)) if rng.random() < 0.6 else tuple(range(ndim))
        step = tuple(int(rng.choice([1, 1, 1, 2])) for _ in range(ndim))
        out.append((shape, perm, step))
    return out


def test_live_contiguous_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    seen = {True: 0, False: 0}
    for shape, perm, step in _views(rng, 3000):
        base = torch.empty([n * s for n, s in zip(shape, step, strict=True)])
        t = base[tuple(slice(None, None, s) for s in step)].permute(perm)
        sizes, stride = tuple(t.shape), tuple(t.stride())
        assert contiguous(stride, sizes) == t.is_contiguous(), (sizes, stride)
        seen[t.is_contiguous()] += 1
    assert min(seen.values()) > 300  # both answers drawn often
