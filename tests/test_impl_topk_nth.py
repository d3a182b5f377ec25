"""``topk`` on its ``std::nth_element`` path (TopKImpl.h, k * 64 > n) and its ``std::partial_sort`` path
(k * 64 <= n) against torch's recorded outputs, Torch-free: libstdc++'s introselect (and, with ``sorted``, its
introsort of the first k - 1) followed step by step decides which of equal elements come out and in what order
(``sorted=False``: the order nth_element leaves); on partial_sort, libstdc++'s heap (make_heap of the first k,
each later element sifted in, sort_heap) does."""

from __future__ import annotations

import numpy as np

from harness.impl import select
from harness.trace.impl_ops import REPLAYS
from tests import topk_nth_cases, topk_partial_cases
from tests.arm64_sampling_cases import digest

# torch 2.13.0's outputs over topk_nth_cases.cases() (python tests/topk_nth_cases.py: x86 Zen 5 at default, avx2
# and avx512 on 1, 2 and 4 threads alike; TopKImpl's loop is the same libstdc++ code on every level and core)
DIGEST = "b6d0aeea34f4b40e5048d30a230898d662325ea9bfa44c5d0b4b41a9f6b2ea58"
# torch 2.13.0's outputs over topk_partial_cases.cases() (python -m tests.topk_partial_cases: the same on this
# Zen 5 at default, avx2 and avx512 on 1 and 4 threads)
PARTIAL_DIGEST = "24c0227c3ae79252ffed43d95f643c4963f5336ddd06ade882031399707508a4"


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


def test_topk_partial_sort_path_with_ties_matches_torch_bit_for_bit() -> None:
    """k * 64 <= n runs std::partial_sort, whose heap decides which of equal elements come out and where."""
    outs = []
    for c in topk_partial_cases.cases():
        values, index = select.topk(c["x"], c["k"], c["dim"], c["largest"], c["sorted"])
        outs.append([topk_partial_cases.outputs(values, index)])
    assert digest(iter(outs)) == PARTIAL_DIGEST


def test_topk_partial_sort_heap_keeps_its_order_of_equal_elements() -> None:
    """The top 3 of 192 elements, four equal ones among them at 5, 9, 100 and 150: the heap's order (torch's
    indices 100, 9, 5), not the stable ranked one (5, 9, 100)."""
    x = np.zeros((1, 192), np.float32)
    x[0, [5, 9, 100, 150]] = 1.0
    values, index = select.topk(x, 3, 1, True, True)
    assert index.tolist() == [[100, 9, 5]] and values.tolist() == [[1.0, 1.0, 1.0]]
