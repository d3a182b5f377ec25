"""``topk`` on its ``std::nth_element`` path (TopKImpl.h, k * 64 > n) against torch's recorded outputs, Torch-free:
libstdc++'s introselect (and, with ``sorted``, its introsort of the first k - 1) followed step by step decides
which of equal elements come out and in what order (``sorted=False``: the order nth_element leaves)."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import select
from harness.trace.impl_ops import REPLAYS
from tests import topk_nth_cases
from tests.arm64_sampling_cases import digest

# torch 2.13.0's outputs over topk_nth_cases.cases() (python tests/topk_nth_cases.py: x86 Zen 5 at default, avx2
# and avx512 on 1, 2 and 4 threads alike; TopKImpl's loop is the same libstdc++ code on every level and core)
DIGEST = "b6d0aeea34f4b40e5048d30a230898d662325ea9bfa44c5d0b4b41a9f6b2ea58"


def _outputs() -> list[list[np.ndarray]]:
    outs = []
    for c in topk_nth_cases.cases():
        values, index = select.topk(c["x"], c["k"], 1, c["largest"], c["sorted"])
        outs.append([topk_nth_cases.outputs(values, index)])
    return outs


def test_topk_nth_element_path_matches_torch_bit_for_bit() -> None:
    assert digest(iter(_outputs())) == DIGEST


def test_topk_unsorted_replay_keeps_nth_elements_order() -> None:
    """The trace's replay answers ``sorted=False`` (LongCat-Flash's router takes the top 2 of 6 so): the
    order nth_element leaves (torch: indices 2, 4, 0), not the ranked one."""
    x = np.array([[3.0, 0.0, 4.0, 1.0, 5.0, 2.0]], np.float32)
    out = REPLAYS["topk"]({"self": x}, {"k": 3, "dim": -1, "sorted": False}, None)  # type: ignore[arg-type]
    assert out["out1"].tolist() == [[2, 4, 0]] and out["out0"].tolist() == [[4.0, 5.0, 3.0]]


def test_topk_partial_sort_ties_stay_refused() -> None:
    """k * 64 <= n runs std::partial_sort, whose heap orders equal elements: refused in one line."""
    x = np.zeros((1, 128), np.float32)
    with pytest.raises(ParityError, match="partial_sort"):
        select.topk(x, 2, 1, True, True)
