"""Selections and extremes of torch 2.13.0 on CPU, bit for bit: max/min (with indices), amax/amin,
aminmax, topk, sort and histc. Torch-free (NumPy).

These kernels pick elements rather than compute them, so their values are the operands' own bits
wherever the element chosen is determined; what a kernel's order of comparisons decides is modelled
where it is a sequential scan and refused where it is not:

- ``max``/``min`` over a dim (TensorCompareKernel.cpp ``max_kernel_impl``/``min_kernel_impl`` through
  ``compare_base_kernel``): each output scans its slice in order, replacing the running extreme where
  ``!(value <= max)`` (``!(value >= min)``) and stopping at the first NaN, so the first extreme (+0 and
  -0 equal: the first zero) or the first NaN, its bits and index; the same on every level and thread
  count (threads split the outputs). ``aminmax`` over a dim the same scan for both.
- full ``max``/``min``/``aminmax`` (ReduceAllOpsKernel.cpp ``reduce_all``: vector ``maximum`` per lane,
  lanes folded, thread chunks combined by ``max_impl``) and ``amax``/``amin`` (ReduceOpsKernel.cpp
  ``binary_kernel_reduce_vec``): without NaN the extreme's value, whatever the order, except a zero
  extreme with zeros of both signs among the values (``_mm256_max_ps`` keeps its second operand,
  ``std::max`` its first: the sign follows the lanes' order): refused. With a NaN, full ``max``/``min``/
  ``aminmax`` (``nan_extreme``): a single element itself; over 32768 elements at 2 threads or more the
  chunks' partials combined by ``max_impl`` from its identity, so ``quiet_NaN`` 0x7fc00000; else one
  ``reduce_all`` over the contiguous values: the AVX2 object (also at AVX-512: REGISTER_DISPATCH) ORs
  its unordered mask into the result, the all-ones NaN 0xffffffff; the default object's generic
  ``maximum`` keeps a NaN first operand and takes a NaN second one, so each of its 8 lanes keeps the
  first NaN of its column and the fold over lanes 0..7 the lowest lane's; written by ``fill_`` through a
  double, so quiet. On aarch64 (N1, V2, V1 under emulation) the vector lanes are FMAX/FMIN, which pass a
  NaN on (a signalling one first): NaNs of one pattern give that pattern quieted, on more than 32768
  elements at 2 threads or more 0x7fc00000 as on x86; NaNs of several patterns in one chunk refused.
  ``amax``/``amin`` with a NaN: over each output's one contiguous run (the reduced dims the fastest of a
  contiguous tensor) ``max_impl``'s 0x7fc00000, else refused (the same on aarch64: measured).
- ``topk`` (TopKImpl.h ``topk_impl_loop``): ``std::partial_sort`` where ``k * 64 <= n``, else
  ``std::nth_element`` then ``std::sort`` of the first k - 1 (with ``sorted``), NaN ranked above every
  number, the values copied (a signalling NaN comes back as it was: measured). Neither algorithm is
  stable: on the partial_sort path, where two of the first k + 1 ranked elements compare equal (+0 and -0,
  two NaNs, equal numbers), libstdc++'s heap is followed step by step (``_partial_sort_order``:
  ``__make_heap`` of the first k, each later element the comparator puts before the top sifted in,
  ``__sort_heap``), which gives the index of equal elements and their order. The nth_element path is followed step
  by step (``_introselect``: libstdc++'s introselect, the introsort's pivot and partition while more than 3
  elements remain, then an insertion sort; ``_introsort`` for the sort of the first k - 1), which gives the
  order ``sorted=False`` leaves and the index of equal elements; past either's depth limit (a heap)
  refused.
- ``sort`` (SortingKernel.cpp ``sort_kernel``): ``std::stable_sort`` where ``stable``, else
  ``std::sort``, whose introsort leaves slices of 16 or fewer to one insertion sort (stable); NaN after
  every number ascending, before descending (KeyValueCompAsc/Desc). An unstable sort of a longer slice
  with equal elements (a mixture-of-experts layer's sort of its expert ids) follows libstdc++'s introsort
  step by step (``_introsort``); past its depth limit (a heap sort) refused, and 1-D integer tensors of
  32768 or more with equal elements (fbgemm's radix sort). Over dims, sort, topk and max/min with
  their indices give the same bits on aarch64 (libstdc++'s algorithms and the same scans; measured with
  NaNs of several patterns on emulated N1, V2 and V1).
- ``histc`` (TensorAdvancedIndexing histogram_histc_out, HistogramKernel.cpp
  ``histogramdd_cpu_contiguous`` LINEAR_INTERPOLATION): the edges from ``linspace(min, max, bins + 1)``
  (min = max: the values' aminmax, then min - 1 and max + 1 where still equal), an element in
  ``[edge0, edgeN]`` counted in bin ``int((x - edge0) * bins / (edgeN - edge0))`` in float32 (the last
  bin keeps its right edge), NaN and out-of-range skipped; threads add whole counts (exact).

Measured on an AMD Zen 5 at default, avx2 and avx512, 1, 2 and 4 threads, traced and replayed (NaN of
both signs and several payloads, signalling ones, infinities, signed zeros, ties, sizes across the 32768
grain): 2,550 random ops per level 2,296 exact, 254 refused, 0 other; 750 ops per level whose values all
hold NaNs (the full extremes' NaN rules) 720 exact, 30 refused, 0 other; 150 unstable sorts of many equal
elements per level 150 exact; 300 topk per level with ties, NaNs and ``sorted`` either way: the 257 on the
nth_element path exact, on partial_sort 14 exact and 29 refused, 0 other (the same on emulated N1, V2 and V1);
300 topk per level and thread count on the partial_sort path with many ties (598 rows through the heap):
300 of 300 exact, 0 other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile


def _last(x: np.ndarray, dim: int) -> np.ndarray:
    return np.moveaxis(np.asarray(x), dim, -1)


def _zeros_of_both_signs(y: np.ndarray, extreme: np.ndarray) -> np.ndarray:
    """Per slice of ``y`` (last axis): whether its extreme is a zero and both +0 and -0 occur."""
    if y.dtype.kind != "f":
        return np.zeros(extreme.shape, bool)
    zero = y == 0
    neg = (zero & np.signbit(y)).any(-1)
    pos = (zero & ~np.signbit(y)).any(-1)
    return (extreme == 0) & neg & pos


def extreme_dim(x: np.ndarray, dim: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """``torch.max(x, dim)`` / ``torch.min(x, dim)`` (values, int64 indices): compare_base_kernel's scan,
    the first extreme or the first NaN (NumPy's argmax/argmin choose the same element)."""
    y = _last(x, dim)
    if y.shape[-1] == 0:
        raise ParityError("max/min over an empty dim raises in torch")
    index = (np.argmax if largest else np.argmin)(y, axis=-1)
    values = np.take_along_axis(y, index[..., None], -1)[..., 0]
    return values, index.astype(np.int64)


def aminmax_dim(x: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """``torch.aminmax(x, dim=d)``: one scan for both (a NaN ends it and is both results)."""
    y = _last(x, dim)
    lo, _ = extreme_dim(y, -1, False)
    hi, _ = extreme_dim(y, -1, True)
    if y.dtype.kind == "f":
        nan = np.isnan(y)
        first = np.argmax(nan, axis=-1)
        has = nan.any(-1)
        picked = np.take_along_axis(y, first[..., None], -1)[..., 0]
        lo, hi = np.where(has, picked, lo), np.where(has, picked, hi)
    return lo, hi


def nan_extreme(x: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """The NaN full ``max``/``min``/``aminmax`` return for float32 values ``x`` (C order) holding a NaN
    (the module docstring)."""
    v = np.ascontiguousarray(x, np.float32).reshape(-1)
    if v.size == 1:
        return v[0].copy()
    if profile.threads > 1 and v.size > 32768:
        return np.uint32(0x7FC00000).view(np.float32)
    if profile.aarch64:  # FMAX / FMIN lanes pass a NaN on by aarch64's rule: one pattern (quieted) is that one
        kinds = np.unique(v.view(np.uint32)[np.isnan(v)] | np.uint32(0x00400000))
        if kinds.size > 1:
            raise ParityError(
                f"full max/min over NaNs of {kinds.size} bit patterns on aarch64: which one its FMAX/FMIN lanes "
                "keep (a signalling one first, else by the lanes' order) is not modelled"
            )
        return kinds.view(np.float32)[0]
    if profile.aten != "default":
        return np.uint32(0xFFFFFFFF).view(np.float32)
    lanes = 8  # Vectorized<float>::size() of the default object (32 bytes)
    if v.size < lanes:  # one partial vector folded from lane 0: the first NaN
        return v[np.argmax(np.isnan(v))].copy()
    nan = np.isnan(v)
    lane = min(j for j in range(lanes) if nan[j::lanes].any())
    return v[lane + lanes * int(np.argmax(nan[lane::lanes]))].copy()


def full_extreme(x: np.ndarray, largest: bool, op: str, profile: KernelProfile) -> np.ndarray:
    """Full ``max``/``min`` (one of ``aminmax``'s two): ``extreme_values`` of every element, ``nan_extreme``
    where a NaN is among them. ATen writes the result with ``fill_`` of a Scalar (a double), so a signalling
    NaN comes out quiet (measured)."""
    v = np.asarray(x).reshape(-1)
    if v.dtype == np.float32 and np.isnan(v).any():
        bits = np.asarray(nan_extreme(v, profile), np.float32).view(np.uint32) | np.uint32(0x00400000)
        return bits.view(np.float32)
    return extreme_values(v, (0,), largest, op)


def extreme_values(x: np.ndarray, dims: tuple[int, ...], largest: bool, op: str, inner: bool = False) -> np.ndarray:
    """Full ``max``/``min``, ``amax``/``amin`` over ``dims``: the extreme of each output's values; a zero
    extreme with zeros of both signs refused (its sign follows the lanes). A NaN among an output's values:
    ``inner`` (``amax``/``amin`` whose reduced elements are each output's one contiguous run, the fastest
    dim, of 2 or more): binary_kernel_reduce_vec's inner reduction folds its lanes and tail with
    ``max_impl``, so ``quiet_NaN`` 0x7fc00000 (measured); else refused (the vector ``maximum`` across
    outputs keeps the AVX2 object's all-ones NaN or the default object's operand)."""
    x = np.asarray(x)
    kept = [d for d in range(x.ndim) if d not in dims]
    y = np.transpose(x, kept + list(dims)).reshape([x.shape[d] for d in kept] + [-1])
    if y.shape[-1] == 0:
        raise ParityError(f"{op} over no elements raises in torch")
    nan = np.isnan(y).any(-1) if y.dtype.kind == "f" else np.zeros(y.shape[:-1], bool)
    if nan.any() and not (inner and y.shape[-1] > 1):
        raise ParityError(
            f"{op} with a NaN among the values, not over one contiguous run: which NaN (the operand's,"
            " 0xffffffff of the AVX2/AVX-512 vector maximum, 0x7fc00000 of max_impl) follows the lanes, not modelled"
        )
    out = (np.max if largest else np.min)(y, axis=-1)
    if (_zeros_of_both_signs(y, out) & ~nan).any():
        raise ParityError(f"{op} of +0 and -0 as the extreme: its sign follows the vector lanes' order, not modelled")
    return np.where(nan, np.uint32(0x7FC00000).view(np.float32), out).astype(y.dtype) if nan.any() else out


def _rank_order(y: np.ndarray, largest: bool) -> np.ndarray:
    """Indices ordering each row of ``y`` (last axis) by TopKImpl's / SortingKernel's comparator, NaN
    ranked above every number, equal elements (+0 and -0, two NaNs) in index order: a stable sort.
    NumPy's stable argsort puts NaN last and keeps equal elements in order; largest first is that sort of
    the reversed row, reversed."""
    if not largest:
        return np.argsort(y, axis=-1, kind="stable")
    n = y.shape[-1]
    return (n - 1 - np.argsort(y[..., ::-1], axis=-1, kind="stable"))[..., ::-1]


def _equal_neighbours(v: np.ndarray) -> np.ndarray:
    """Per row: whether two neighbours of ``v`` (ranked) compare equal (both NaN counts as equal)."""
    if v.shape[-1] < 2:
        return np.zeros(v.shape[:-1], bool)
    a, b = v[..., :-1], v[..., 1:]
    same = a == b
    if v.dtype.kind == "f":
        same |= np.isnan(a) & np.isnan(b)
    return same.any(-1)


def topk(x: np.ndarray, k: int, dim: int, largest: bool, sorted_: bool) -> tuple[np.ndarray, np.ndarray]:
    """``torch.topk``: values and int64 indices where no tie decides them (see the module docstring)."""
    y = _last(x, dim)
    n = y.shape[-1] if y.ndim else 1
    if y.ndim == 0:
        y = y.reshape(1)
    if not 0 <= k <= n:
        raise ParityError(f"topk: k = {k} out of range for a dim of {n}")
    if k == 0 or y.size == 0:
        shape = (*y.shape[:-1], k)
        return np.moveaxis(np.empty(shape, y.dtype), -1, dim), np.moveaxis(np.empty(shape, np.int64), -1, dim)
    order = _rank_order(y, largest)[..., : min(k + 1, n)]
    ranked = np.take_along_axis(y, order, -1)
    ties = _equal_neighbours(ranked)
    order = order[..., :k]
    rows, orders = y.reshape(-1, n), order.reshape(-1, k).copy()
    if k * 64 <= n:  # std::partial_sort: its heap followed step by step where equal elements meet
        for r in np.flatnonzero(ties.reshape(-1)):
            orders[r] = _partial_sort_order(rows[r], k, largest)
    else:  # std::nth_element, then std::sort of the first k - 1: followed step by step where it decides
        for r in range(rows.shape[0]) if not sorted_ else np.flatnonzero(ties.reshape(-1)):
            orders[r] = _selected_order(rows[r], k, largest, sorted_)
    order = orders.reshape(order.shape)
    index = order.astype(np.int64)
    values = np.take_along_axis(y, index, -1)
    return np.ascontiguousarray(np.moveaxis(values, -1, dim)), np.ascontiguousarray(np.moveaxis(index, -1, dim))


class _DepthLimit(Exception):
    """libstdc++'s introsort or introselect reached its depth limit (it would heap-sort or heap-select the rest)."""


class _Libstdcxx:
    """The steps libstdc++'s ``std::sort`` and ``std::nth_element`` (bits/stl_algo.h) take over the positions
    of ``keys`` with the comparator ``before``, written from the algorithms' description, not their code:
    ``__move_median_to_first`` (the median of three moved to the front as the pivot), ``__unguarded_partition``
    from both ends, ``__insertion_sort`` and the unguarded linear insertion. ``a`` holds the positions."""

    def __init__(self, keys: list[Any], before: Callable[[Any, Any], bool]) -> None:
        self.keys, self.before, self.a = keys, before, list(range(len(keys)))

    def less(self, i: int, j: int) -> bool:
        return self.before(self.keys[self.a[i]], self.keys[self.a[j]])

    def swap(self, i: int, j: int) -> None:
        self.a[i], self.a[j] = self.a[j], self.a[i]

    def pivot(self, first: int, last: int) -> int:
        """``__unguarded_partition_pivot``: the median of the second, the middle and the last moved to the
        front, then the rest partitioned around it; the cut."""
        x, y, z = first + 1, first + (last - first) // 2, last - 1
        if self.less(x, y):
            self.swap(first, y if self.less(y, z) else (z if self.less(x, z) else x))
        elif self.less(x, z):
            self.swap(first, x)
        else:
            self.swap(first, z if self.less(y, z) else y)
        lo, hi = first + 1, last
        while True:
            while self.less(lo, first):
                lo += 1
            hi -= 1
            while self.less(first, hi):
                hi -= 1
            if not lo < hi:
                return lo
            self.swap(lo, hi)
            lo += 1

    def linear_insert(self, i: int) -> None:  # unguarded: a smaller element always lies before (i > 0 a guard)
        a, keys, value = self.a, self.keys, self.a[i]
        while i > 0 and self.before(keys[value], keys[a[i - 1]]):
            a[i] = a[i - 1]
            i -= 1
        a[i] = value

    def insertion(self, first: int, last: int) -> None:
        a = self.a
        for i in range(first + 1, last):
            value = a[i]
            if self.before(self.keys[value], self.keys[a[first]]):
                a[first + 1 : i + 1] = a[first:i]
                a[first] = value
            else:
                self.linear_insert(i)


def _depth_limit(n: int) -> int:
    """2 * floor(log2 n), the depth both algorithms allow before their heap fallbacks."""
    return 2 * (n.bit_length() - 1)


def _introsort(keys: list[Any], before: Callable[[Any, Any], bool]) -> list[int]:
    """The positions of ``keys`` in the order libstdc++'s ``std::sort`` leaves them with the comparator
    ``before``: ``__introsort_loop`` (while more than 16 elements: pivot and partition, recurse on the right
    part, loop on the left; at its depth limit it would heap-sort: raises ``_DepthLimit``) then
    ``__final_insertion_sort`` (an insertion sort of the first 16, the rest inserted unguarded)."""
    s = _Libstdcxx(keys, before)

    def loop(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                raise _DepthLimit
            depth -= 1
            cut = s.pivot(first, last)
            loop(cut, last, depth)
            last = cut

    n = len(keys)
    if n:
        loop(0, n, _depth_limit(n))
    s.insertion(0, min(n, 16))
    for i in range(16, n):
        s.linear_insert(i)
    return s.a


def _introselect(keys: list[Any], before: Callable[[Any, Any], bool], nth: int) -> list[int]:
    """The positions of ``keys`` in the order libstdc++'s ``std::nth_element(first, first + nth, last)``
    leaves them: ``__introselect`` (while more than 3 elements: pivot and partition, keep the part holding
    ``nth``; at its depth limit it would heap-select: raises ``_DepthLimit``) then an insertion sort of the
    part left."""
    s = _Libstdcxx(keys, before)
    first, last = 0, len(keys)
    if nth >= last:
        return s.a
    depth = _depth_limit(last)
    while last - first > 3:
        if depth == 0:
            raise _DepthLimit
        depth -= 1
        cut = s.pivot(first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    s.insertion(first, last)
    return s.a


def _partial_sort_order(row: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """The first k positions of one row as libstdc++'s ``std::partial_sort(first, first + k, last)`` leaves them
    with TopKImpl's comparator ``comp`` (bits/stl_heap.h, bits/stl_algo.h; written from the algorithms'
    description): ``__heap_select`` (``__make_heap`` of the first k, then each later element that ``comp``
    puts before the heap's top swapped in by ``__pop_heap``), then ``__sort_heap``. ``__adjust_heap`` moves the
    hole down to the child ``comp`` does not put after the other (the right one on a tie, the left one where
    only a left child is left), then ``__push_heap`` moves the value up while ``comp(parent, value)``."""
    keys, comp = row.tolist(), _comparator(row.dtype, largest)
    heap = list(range(k))

    def adjust(hole: int, size: int, value: int) -> None:
        top, child = hole, hole
        while child < (size - 1) // 2:
            child = 2 * (child + 1)
            if comp(keys[heap[child]], keys[heap[child - 1]]):
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if size % 2 == 0 and child == (size - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and comp(keys[heap[parent]], keys[value]):
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    if k > 1:
        for parent in range((k - 2) // 2, -1, -1):
            adjust(parent, k, heap[parent])
    for i in range(k, len(keys)):
        if comp(keys[i], keys[heap[0]]):  # __pop_heap(first, middle, i): the top goes to i, i's element sifts in
            adjust(0, k, i)
    for last in range(k - 1, 0, -1):  # __sort_heap: each __pop_heap(first, last, last)
        value, heap[last] = heap[last], heap[0]
        adjust(0, last, value)
    return np.array(heap, np.int64)


def _comparator(dtype: np.dtype, descending: bool) -> Callable[[Any, Any], bool]:
    """TopKImpl's and SortingKernel's comparators (KeyValueCompAsc/Desc): NaN ranked above every number."""
    nan = math.isnan if dtype.kind == "f" else (lambda v: False)
    if descending:
        return lambda p, q: (nan(p) and not nan(q)) or p > q
    return lambda p, q: (not nan(p) and nan(q)) or p < q


def _unstable_order(row: np.ndarray, descending: bool) -> np.ndarray:
    """One row's order by ``std::sort`` with KeyValueCompAsc/Desc (``_introsort``); its depth limit refused."""
    try:
        return np.array(_introsort(row.tolist(), _comparator(row.dtype, descending)), np.int64)
    except _DepthLimit:
        raise ParityError("std::sort past its depth limit (a heap sort), not modelled") from None


def _selected_order(row: np.ndarray, k: int, largest: bool, sorted_: bool) -> np.ndarray:
    """The first k positions of one row as TopKImpl's ``std::nth_element`` path leaves them: nth_element
    at k - 1, then (``sorted``) ``std::sort`` of the first k - 1; either past its depth limit refused."""
    keys, before = row.tolist(), _comparator(row.dtype, largest)
    try:
        order = _introselect(keys, before, k - 1)[:k]
        if sorted_ and k > 2:
            head = order[: k - 1]
            order[: k - 1] = [head[i] for i in _introsort([keys[j] for j in head], before)]
    except _DepthLimit:
        raise ParityError("topk's std::nth_element or std::sort past its depth limit (a heap), not modelled") from None
    return np.array(order, np.int64)


def sort(x: np.ndarray, dim: int, descending: bool, stable: bool) -> tuple[np.ndarray, np.ndarray]:
    """``torch.sort``: a stable sort by SortingKernel's comparators (see the module docstring)."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    y = _last(x, dim)
    if y.size == 0:
        return x.copy(), np.zeros(x.shape, np.int64)
    order = _rank_order(y, descending)
    ranked = np.take_along_axis(y, order, -1)
    ties = _equal_neighbours(ranked)
    if ties.any() and x.ndim == 1 and x.size >= 32768 and x.dtype.kind in "iu":
        raise ParityError("sort of 32768 or more integers with equal ones (fbgemm's radix sort), not modelled")
    if ties.any() and not stable and y.shape[-1] > 16:  # std::sort's introsort, row by row
        if y.shape[-1] > 1 << 17:
            raise ParityError("unstable sort of over 131072 elements with equal ones (std::sort), not modelled")
        rows, orders = y.reshape(-1, y.shape[-1]), order.reshape(-1, y.shape[-1])
        for r in np.flatnonzero(ties.reshape(-1)):
            orders[r] = _unstable_order(rows[r], descending)
        order = orders.reshape(y.shape)
        ranked = np.take_along_axis(y, order, -1)
    index = order.astype(np.int64)
    return np.ascontiguousarray(np.moveaxis(ranked, -1, dim)), np.ascontiguousarray(np.moveaxis(index, -1, dim))


def histc(x: np.ndarray, bins: int, low: float, high: float, profile: KernelProfile) -> np.ndarray:
    """``torch.histc`` of float32 (see the module docstring); the edges by harness.impl.factories.linspace."""
    from harness.impl.factories import linspace

    x = np.asarray(x)
    if x.dtype != np.float32:
        raise ParityError(f"the impl reproduces histc of float32 only, not {x.dtype}")
    if x.size >= 1 << 24:
        raise ParityError("histc of 2**24 elements or more (float counts no longer exact), not modelled")
    lo, hi = float(low), float(high)
    if lo == hi and x.size:
        lo, hi = float(np.min(x)), float(np.max(x))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
        raise ParityError(f"histc over the range [{lo}, {hi}] raises in torch")
    edges = linspace(lo, hi, bins + 1, profile)
    left, right = edges[0], edges[-1]
    if not left < right:
        raise ParityError("histc whose range rounds to one float32 (a division by 0), not modelled")
    v = x.reshape(-1)
    v = v[(v >= left) & (v <= right)]
    pos = ((v - left) * np.float32(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] = bins - 1
    return np.bincount(pos, minlength=bins).astype(np.float32)
