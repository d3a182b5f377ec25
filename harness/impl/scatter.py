"""Index accumulation as torch 2.13.0's CPU kernels compute it, float32: scatter_add / scatter_reduce
(cpu/ScatterGatherKernel.cpp), index_add (TensorAdvancedIndexing.cpp ``index_add_cpu_out``),
index_put with accumulate=True (cpu/IndexKernel.cpp ``index_put_kernel``), and nn.Fold / nn.Unfold's
col2im / im2col (Col2Im.cpp, Im2Col.cpp over im2col.h). Torch-free, NumPy only: each result element
is its start value and a run of single IEEE additions (or comparisons), so the order of the terms
that reach one element is all there is to reproduce; ``ordered_add`` keeps it (``np.add.at`` is an
unbuffered loop over the terms in the order given, one float32 rounding each).

Shape legend: self and out of any rank; ``dim`` the indexed dim; index of self's rank (scatter) or
1-D (index_add); src at least index's shape; for index_put, ``indices`` one entry per leading dim of
self (None: the whole dim), the index tensors broadcast together to B, values broadcast to the
indexed result's shape. im2col: x (N, C, H, W) -> (N, C*KH*KW, L), L = OH*OW; col2im the reverse.

- scatter_add / scatter_reduce "sum" (``cpu_scatter_gather_base_kernel`` with ``ReduceAdd``): per
  position p of index, ``self[p with dim := index[p]] += src[p]``; the thread split is over the
  positions off ``dim`` (each element of self is reached from one of them), the loop along ``dim``
  serial: the terms of one element come in the order of ``p[dim]``. The radix-sort path of
  ``cpu_scatter_reduce_expanded_index`` (dim 0, an expanded 1-D index, 16 columns or more) sorts
  stably and adds each row's terms in the same order, whatever the threads. include_self=False
  starts the reached elements at +0 (ATen's ``scatter_(index, 0)`` or ``_init``).
- "mean": that sum divided (one IEEE division) by the count of terms, self counted where
  include_self, a count of 0 taken as 1. "amax" / "amin": ``std::max(self, src)``, src where it is
  NaN; the start -inf / +inf without self. NaN and -0.0 operands are refused: the expanded path's
  vector ``maximum`` keeps another NaN and the other zero of a tie.
- index_add (alpha 1): per i in index order ``self.select(dim, index[i]) += source.select(dim, i)``
  (dim 0 or last with matching sizes: through scatter_add, the same order); alpha other than 1 is
  refused (a fused multiply-add in the AVX2 add kernel).
- index_put accumulate: ``cpu_index_kernel`` over the TensorIterator of the indexed result (C order
  of B for contiguous or broadcast values), ``self[idx] += value`` serially; at 2 or more threads and
  32768 elements or more ATen adds with ``cpu_atomic_add_float`` from every thread at once: any
  element reached twice there is refused (its order is the threads' race). Without accumulate
  (``x[idx] = v``, and the write-back of ``x[idx] += v``): a copy, the last of repeats kept;
  ``cpu_index_kernel``'s parallel loop (its grain 3000 elements) writes repeats from racing threads
  at 2 or more threads: refused there alike.
- im2col: a copy (zeros in the padding); col2im: zeros, then per column row (c, kh, kw) in order
  each output position's value added to the pixel it reaches: a pixel's terms in (kh, kw) order.
Nothing depends on the ATen capability (no vector arithmetic but single additions), nor, outside
index_put's racing threads, on the thread count: torch 2.13.0 gives the same bits at default and avx2
and on Linux arm64 (emulated N1, V1, V2; tests/test_impl_arm64_scatter.py). AVX-512 is not measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile

# at::internal::GRAIN_SIZE: index_put's atomic adds run from this many elements at 2 or more threads
GRAIN_SIZE = 32768
# cpu_index_kernel's parallel grain: index_put without accumulate splits from this many elements
INDEX_GRAIN_SIZE = 3000
REDUCES = ("sum", "mean", "amax", "amin")


def check_measured(profile: KernelProfile, op: str) -> None:
    """ParityError on the build not measured: AVX-512 (no such CPU here); default, avx2 and Linux arm64's
    neon and sve builds are."""
    profile.refuse_unmeasured(op)


def _float32(x: np.ndarray, op: str, name: str) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        raise ParityError(f"the impl reproduces {op} of float32 tensors only, not {name} {x.dtype}")
    return x


def _long(index: np.ndarray, op: str) -> np.ndarray:
    index = np.asarray(index)
    if index.dtype.kind not in "iu":
        raise ParityError(f"{op}: an integer index only, not {index.dtype}")
    return index.astype(np.int64)


def ordered_add(out: np.ndarray, flat: np.ndarray, values: np.ndarray) -> None:
    """``out.flat[flat[k]] += values[k]`` for k in order, one float32 rounding each (in place)."""
    np.add.at(out.reshape(-1), flat, values)


def _scatter_targets(shape: tuple[int, ...], dim: int, index: np.ndarray, op: str) -> np.ndarray:
    """The flat offset in self (C order, ``shape``) each position of index reaches, in C order of index."""
    if index.ndim != len(shape) or any(i > s for k, (i, s) in enumerate(zip(index.shape, shape, strict=True))
                                       if k != dim):  # fmt: skip
        raise ParityError(f"{op}: index {list(index.shape)} does not fit self {list(shape)} off dim {dim}")
    if index.size and (index.min() < 0 or index.max() >= shape[dim]):
        raise ParityError(f"{op}: index out of range for dim {dim} of size {shape[dim]}")
    coords = list(np.indices(index.shape, dtype=np.int64))
    coords[dim] = index
    return np.ravel_multi_index(tuple(coords), shape).reshape(-1)


def _dim(dim: int, ndim: int, op: str) -> int:
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise ParityError(f"{op}: dim {dim} out of range for {ndim} dims")
    return dim % max(ndim, 1)


def scatter_reduce(
    self_: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str = "sum", include_self: bool = True
) -> np.ndarray:
    """``scatter_add`` (reduce "sum") and ``scatter_reduce.two`` of float32 self and src."""
    op = "scatter_add" if reduce == "sum" and include_self else f"scatter_reduce {reduce}"
    if reduce not in REDUCES:
        raise ParityError(f"the impl reproduces scatter_reduce with {', '.join(REDUCES)} only, not {reduce!r}")
    self_, src = _float32(self_, op, "self"), _float32(src, op, "src")
    index = _long(index, op)
    shape = self_.shape or (1,)
    index = index.reshape(index.shape or (1,))
    dim = _dim(dim, self_.ndim, op)
    if index.ndim != src.reshape(src.shape or (1,)).ndim or any(
        i > s for i, s in zip(index.shape, src.reshape(src.shape or (1,)).shape, strict=True)
    ):
        raise ParityError(f"{op}: index {list(index.shape)} larger than src {list(src.shape)}")
    targets = _scatter_targets(shape, dim, index, op)
    values = src.reshape(src.shape or (1,))[tuple(slice(0, n) for n in index.shape)].reshape(-1)
    out = np.array(self_, np.float32, copy=True).reshape(shape)
    return _reduce_into(out, targets, values, reduce, include_self, op).reshape(self_.shape)


def _reduce_into(
    out: np.ndarray, targets: np.ndarray, values: np.ndarray, reduce: str, include_self: bool, op: str
) -> np.ndarray:
    """``out`` with the terms ``values`` reduced into the flat offsets ``targets`` in order."""
    flat = out.reshape(-1)
    if reduce in ("amax", "amin"):
        operands = (values, flat[targets]) if include_self else (values,)
        if any(np.isnan(v).any() or (np.signbit(v) & (v == 0)).any() for v in operands):
            raise ParityError(f"{op}: NaN or -0.0 operands are not modelled (the vector path keeps other bits)")
        if not include_self:
            flat[targets] = -np.inf if reduce == "amax" else np.inf
        (np.maximum if reduce == "amax" else np.minimum).at(flat, targets, values)
        return out
    if not include_self:
        flat[targets] = 0.0
    ordered_add(flat, targets, values)
    if reduce == "mean":
        count = np.full(flat.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, targets, 1)
        count[count == 0] = 1
        flat[...] = flat / count.astype(np.float32)
    return out


def index_add(self_: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, alpha: float = 1) -> np.ndarray:
    """``index_add``: source's slices along ``dim`` added, in index order, to self's slices ``index``."""
    op = "index_add"
    if alpha != 1:
        raise ParityError("the impl reproduces index_add with alpha 1 only (else a multiply-add)")
    self_, source = _float32(self_, op, "self"), _float32(source, op, "source")
    index = _long(index, op).reshape(-1)
    shape = self_.shape or (1,)
    dim = _dim(dim, self_.ndim, op)
    src = source.reshape(source.shape or (1,))
    if src.ndim != len(shape) and not (len(shape) == 1 and src.ndim <= 1):
        raise ParityError(f"{op}: source {list(source.shape)} of another rank than self {list(self_.shape)}")
    want = list(shape)
    want[dim] = index.size
    try:
        src = np.broadcast_to(src.reshape(-1) if len(shape) == 1 else src, tuple(want))
    except ValueError as err:
        raise ParityError(f"{op}: source {list(source.shape)} does not fit self {list(self_.shape)}") from err
    idx = np.broadcast_to(index.reshape([-1 if k == dim else 1 for k in range(len(shape))]), tuple(want))
    targets = _scatter_targets(shape, dim, np.ascontiguousarray(idx), op)
    out = np.array(self_, np.float32, copy=True).reshape(shape)
    ordered_add(out, targets, np.ascontiguousarray(src).reshape(-1))
    return out.reshape(self_.shape)


def index_put(
    self_: np.ndarray,
    indices: Sequence[np.ndarray | None],
    values: np.ndarray,
    threads: int,
    accumulate: bool = True,
    values_stride: Sequence[int] | None = None,
) -> np.ndarray:
    """``index_put_(indices, values, accumulate)``: ``self[indices] += values`` with repeats added in the
    C order of the indexed positions, or (accumulate False) ``self[indices] = values``, the last of
    repeats kept; integer or bool index tensors, None for a whole dim. ``values_stride``: the values'
    strides as torch had them, where TensorIterator would take the positions in another order
    (strides increasing over the indexed dims): refused."""
    op = "index_put accumulate" if accumulate else "index_put"
    self_, values = _float32(self_, op, "self"), _float32(values, op, "values")
    if len(indices) > self_.ndim:
        raise ParityError(f"{op}: {len(indices)} indices for {self_.ndim} dims")
    tensors: list[np.ndarray | None] = []
    for k, ix in enumerate(indices):  # a bool mask stands for its nonzero positions over as many dims
        if ix is not None and np.asarray(ix).dtype == np.bool_:
            mask = np.asarray(ix)
            if mask.shape != self_.shape[len(tensors) : len(tensors) + mask.ndim]:
                raise ParityError(f"{op}: bool index {k} of shape {list(mask.shape)} does not fit self")
            tensors.extend(np.nonzero(mask))
        else:
            tensors.append(None if ix is None else _long(ix, op))
    given = [k for k, ix in enumerate(tensors) if ix is not None]
    if not given:
        raise ParityError(f"{op}: no index tensor")
    try:
        expanded = np.broadcast_arrays(*[tensors[k] for k in given])
    except ValueError as err:
        raise ParityError(f"{op}: index tensors of shapes that do not broadcast") from err
    for k, ix in zip(given, expanded, strict=True):
        if ix.size and (ix.min() < -self_.shape[k] or ix.max() >= self_.shape[k]):
            raise ParityError(f"{op}: index out of range for dim {k} of size {self_.shape[k]}")
    b = expanded[0].shape
    rest = list(range(len(tensors), self_.ndim))
    adjacent = given == list(range(given[0], given[-1] + 1))
    before = [k for k in range(len(tensors)) if tensors[k] is None and adjacent and k < given[0]]
    after = [k for k in range(len(tensors)) if tensors[k] is None and k not in before] + rest
    # the indexed result: [before dims] B [after dims] (B first where the index tensors are apart)
    shape = (*[self_.shape[k] for k in before], *b, *[self_.shape[k] for k in after])
    try:
        vals = np.broadcast_to(values, shape)
    except ValueError as err:
        raise ParityError(f"{op}: values {list(values.shape)} do not fit the indexed shape {list(shape)}") from err
    nb = len(before)
    if values_stride is not None and len(b) > 1:
        lead = len(shape) - len(values_stride)  # values broadcast from the left
        steps = [values_stride[d - lead] for d in range(nb, nb + len(b)) if d >= lead and shape[d] > 1]
        steps = [st for st in steps if st != 0]
        if any(x < y for x, y in pairwise(steps)):
            raise ParityError(f"{op}: values of strides {list(values_stride)} (another order of the repeats)")
    grids = np.indices(shape, dtype=np.int64)
    coords: list[np.ndarray] = [np.empty(0, np.int64)] * self_.ndim
    for j, k in enumerate(before):
        coords[k] = grids[j]
    for j, k in enumerate(after):
        coords[k] = grids[nb + len(b) + j]
    bgrid = tuple(grids[nb : nb + len(b)])
    for k, ix in zip(given, expanded, strict=True):
        coords[k] = (ix[bgrid] if b else np.broadcast_to(ix, shape)) % self_.shape[k]
    targets = np.ravel_multi_index(tuple(coords), self_.shape).reshape(-1)
    parallel = targets.size >= (GRAIN_SIZE if accumulate else INDEX_GRAIN_SIZE)
    if threads > 1 and parallel and np.unique(targets).size < targets.size:
        raise ParityError(
            f"{op}: {targets.size} elements at {threads} threads are written by racing threads where an element"
            " is reached twice: their order is not reproducible"
        )
    out = np.array(self_, np.float32, copy=True)
    flat = np.ascontiguousarray(vals).reshape(-1)
    if accumulate:
        ordered_add(out, targets, flat)
    else:  # the last write of each element: its last position in order
        last = targets.size - 1 - np.unique(targets[::-1], return_index=True)[1]
        out.reshape(-1)[targets[last]] = flat[last]
    return out


def _fold_geometry(
    hw: tuple[int, int], kernel: Sequence[int], dilation: Sequence[int], padding: Sequence[int], stride: Sequence[int]
) -> tuple[int, ...]:
    """(kh, kw, sh, sw, ph, pw, dh, dw, oh, ow) of im2col's blocks over an image of ``hw``."""
    kh, kw, dh, dw, ph, pw, sh, sw = (int(v) for pair in (kernel, dilation, padding, stride) for v in pair)
    oh = (hw[0] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (hw[1] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if min(kh, kw, dh, dw, sh, sw) < 1 or min(ph, pw) < 0 or oh < 1 or ow < 1:
        raise ParityError(f"im2col/col2im: no blocks for kernel {list(kernel)} over {list(hw)}")
    return kh, kw, sh, sw, ph, pw, dh, dw, oh, ow


def im2col(x: np.ndarray, kernel, dilation, padding, stride) -> np.ndarray:
    """``aten.im2col`` (nn.Unfold): (N, C, H, W) or (C, H, W) -> (N, C*KH*KW, L) or (C*KH*KW, L)."""
    from harness.impl.conv import _im2col

    x = _float32(x, "im2col", "self")
    if x.ndim not in (3, 4):
        raise ParityError(f"im2col: a 3-D or 4-D input only, not {x.ndim}-D")
    planes = x.reshape(-1, *x.shape[-3:])
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = _fold_geometry(x.shape[-2:], kernel, dilation, padding, stride)
    cols = np.stack([_im2col(p, kh, kw, sh, sw, ph, pw, oh, ow, dh, dw) for p in planes])
    return cols.reshape(*x.shape[:-3], x.shape[-3] * kh * kw, oh * ow)


def col2im(cols: np.ndarray, output_size, kernel, dilation, padding, stride) -> np.ndarray:
    """``aten.col2im`` (nn.Fold): (N, C*KH*KW, L) or (C*KH*KW, L) -> (N, C, H, W) or (C, H, W)."""
    from harness.impl.conv import _col2im

    cols = _float32(cols, "col2im", "self")
    h, w = (int(v) for v in output_size)
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = _fold_geometry((h, w), kernel, dilation, padding, stride)
    if cols.ndim not in (2, 3) or cols.shape[-2] % (kh * kw) or cols.shape[-1] != oh * ow:
        raise ParityError(f"col2im: input {list(cols.shape)} does not fit kernel {list(kernel)} over {[h, w]}")
    c = cols.shape[-2] // (kh * kw)
    batch = cols.reshape(-1, *cols.shape[-2:])
    out = np.stack([_col2im(b, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow, dh, dw) for b in batch])
    return out.reshape(*cols.shape[:-2], c, h, w)
