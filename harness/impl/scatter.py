"""Index accumulation and index copies as torch 2.13.0's CPU kernels compute them, float32: scatter_add /
scatter_reduce / scatter (cpu/ScatterGatherKernel.cpp), index_add and index_reduce
(TensorAdvancedIndexing.cpp ``index_add_cpu_out``, ``index_reduce_func_impl``), index_put, index_copy,
index_fill, masked_scatter and put_ (cpu/IndexKernel.cpp), nn.Fold / nn.Unfold's col2im / im2col
(Col2Im.cpp, Im2Col.cpp over im2col.h), and the backwards of reflection and replication padding
(cpu/PaddingKernel.cpp) and of Tensor.unfold (UnfoldBackward.cpp, cpu/UnfoldBackwardKernel.cpp),
float32 and float64. Torch-free, NumPy only: each result element is its start value
and a run of single IEEE operations (or comparisons, or writes), so the order of the terms that reach
one element is all there is to reproduce; ``ordered_add`` keeps it (``np.add.at`` is an unbuffered loop
over the terms in the order given, one float32 rounding each); ``_rounds`` splits the terms into rounds
of distinct targets where an operation is not a ufunc.

Shape legend: self and out of any rank; ``dim`` the indexed dim; index of self's rank (scatter) or
1-D (index_add, index_reduce, index_copy, index_fill); src at least index's shape (source: self's shape
but ``index.size`` along dim); for index_put, ``indices`` one entry per leading dim of self (None: the
whole dim), the index tensors broadcast together to B, values broadcast to the indexed result's shape;
put_: self as one dim, index and source of one size. im2col: x (N, C, H, W) -> (N, C*KH*KW, L),
L = OH*OW; col2im the reverse.

- scatter_add / scatter_reduce "sum" (``cpu_scatter_gather_base_kernel`` with ``ReduceAdd``): per
  position p of index, ``self[p with dim := index[p]] += src[p]``; the thread split is over the
  positions off ``dim`` (each element of self is reached from one of them), the loop along ``dim``
  serial: the terms of one element come in the order of ``p[dim]``. The radix-sort path of
  ``cpu_scatter_reduce_expanded_index`` (``expanded_path``: dim 0, an expanded 1-D index, 16 columns or
  more) sorts stably and adds each row's terms in the same order, whatever the threads. include_self=False
  starts the reached elements at the identity (ATen's ``scatter_(index, init)``).
- "prod": ``self *= src`` in the same order. "mean": the sum divided (one IEEE division) by the count of
  terms, self counted where include_self, a count of 0 taken as 1. "amax" / "amin" on the serial path:
  ``self = isnan(src) ? src : std::max(self, src)``, self kept on a tie; on the expanded path
  ``vec::maximum(self, src)`` (src on a tie; a NaN all-ones at avx2 and avx512, the first NaN at
  default). The expanded path's sums and products at the default level from 2 threads keep another NaN
  where two meet: NaN operands refused there (``expanded_nan``).
- scatter (src, value; ``reduce=`` "add" / "multiply" through scatter_reduce's sum / prod): a write per
  position, the last along ``dim`` kept; no thread shares an element.
- index_add: per i in index order ``self.select(dim, index[i]) += alpha * source.select(dim, i)``; alpha 1
  at dim 0 or last (matching sizes) through scatter_add, a plain addition in the same order; else on 2
  or more dims the add kernel's ``fmadd(source, alpha, self)`` (fused at avx2 and avx512, not at default;
  with alpha 1 the sum, but where two NaNs meet the kernel's pick), on 1-D the product rounded first.
  index_reduce: the slices filled with the identity where not include_self, then per index in order a
  product, maximum or sum (mean: divided by the counts), scatter_reduce's rules; on 2 or more dims NaN
  operands (and amax/amin's -0.0) refused: the binary kernels' vector and scalar code keep other bits.
- index_put accumulate: ``cpu_index_kernel`` over the TensorIterator of the indexed result (C order
  of B for contiguous or broadcast values), ``self[idx] += value`` serially; at 2 or more threads and
  32768 elements or more ATen adds with ``cpu_atomic_add_float`` from every thread at once: any
  element reached twice there is refused (its order is the threads' race). Without accumulate
  (``x[idx] = v``, and the write-back of ``x[idx] += v``): a copy, the last of repeats kept;
  ``cpu_index_kernel``'s parallel loop (its grain 3000 elements) writes repeats from racing threads
  at 2 or more threads: refused there alike. put_ is index_put into self's C order, the same races.
- index_copy: the last of repeats kept, racing threads from 32768 elements refused; index_fill a write
  of float32(value); masked_scatter source's elements in self's C order where the mask is set.
- im2col: a copy (zeros in the padding); col2im: zeros, then per column row (c, kh, kw) in order
  each output position's value added to the pixel it reaches: a pixel's terms in (kh, kw) order.
- reflection_pad{1,2,3}d_backward / replication_pad{1,2,3}d_backward: zeros, then each output
  position's gradient added to the input position it read, the output positions in raster order (a
  plane a thread, or in the channels-last kernel an image a thread with the channels as one vector
  add); unfold_backward: a copy into the windows where they do not overlap (step >= size), else per
  element the windows holding it in increasing order onto +0. The sum's NaN kept where two meet, but
  in the channels-last kernel's vector adds of the AVX2 object (the term's in the first C - C % 4
  channels); such a meeting is refused there at the default level (whose pick did not hold from one
  layout to another) and in float64, as is an empty grad_output (ATen leaves grad_input unwritten);
  Linux arm64 refused (not measured). Measured on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4
  threads: 1,388 of 1,440 random traced cases bit for bit, 52 refused, 0 other; draws of mostly NaN
  gradients (random payloads and signs): channels-last 300 of 300 at avx2 and avx512 (149 of 150
  refused at default), contiguous 360 of 360 and unfold_backward 360 of 360 over the three levels.
Nothing else (but that channels-last NaN) depends on the ATen capability, nor, outside the racing
threads, on the thread count: torch 2.13.0 gives the same bits at default, avx2 and avx512 and, the
ops before padding's, on Linux arm64 (emulated N1, V1, V2; tests/test_impl_arm64_scatter.py; the ops
of ``ARM64_FINITE`` with finite operands only, the 1-D index_add's alpha fused there). At avx512 every
kernel here is ``REGISTER_DISPATCH`` only (no AVX-512 object: ScatterGatherKernel.cpp, IndexKernel.cpp,
PaddingKernel.cpp, UnfoldBackwardKernel.cpp, the add, mul, div and maximum kernels), so the AVX2
objects run and give avx2's bits (``AVX2_OBJECT``; measured on an AMD Zen 5, 1, 2 and 4 threads).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from harness.core.errors import ParityError
from harness.impl import nans
from harness.impl.profiles import KernelProfile

# at::internal::GRAIN_SIZE: index_put's atomic adds run from this many elements at 2 or more threads
GRAIN_SIZE = 32768
# cpu_index_kernel's parallel grain: index_put without accumulate splits from this many elements
INDEX_GRAIN_SIZE = 3000
REDUCES = ("sum", "prod", "mean", "amax", "amin")
# scatter's older ``reduce=`` names and index_reduce's: the scatter_reduce each stands for
SCATTER_REDUCES = {"add": "sum", "multiply": "prod"}
INDEX_REDUCES = ("prod", "mean", "amax", "amin")
# the x86 levels that run ScatterGatherKernel.cpp's AVX2 object: avx512 too (REGISTER_DISPATCH, no AVX-512 one)
AVX2_OBJECT = ("avx2", "avx512")
# the expanded-path vector maximum's rule (NaN, signed zeros) per level: the object each runs
EXPANDED_RULES = {"default": "default", **dict.fromkeys(AVX2_OBJECT, "avx2")}


# the ops measured under arm64 emulation with finite operands only (tests/arm64_index_arith_cases.py)
ARM64_FINITE = ("index_reduce", "index_add alpha", "scatter_reduce prod")


def arm64_finite(profile: KernelProfile, op: str, result: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    """``result``, or ParityError where on Linux arm64 ``op`` (``ARM64_FINITE``) met a NaN or an infinity
    or made a NaN: measured there with finite operands only (and a NaN an invalid operation makes is
    aarch64's +qNaN, x86's -qNaN)."""
    finite = all(np.isfinite(x).all() for x in operands) and not np.isnan(result).any()
    if profile.aarch64 and op in ARM64_FINITE and not finite:
        raise ParityError(f"{op}: non-finite operands or results on Linux arm64 are not measured ({profile.name})")
    return result


def _float32(x: np.ndarray, op: str, name: str) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        raise ParityError(f"the impl reproduces {op} of float32 tensors only, not {name} {x.dtype}")
    return x


def _integral(self_: np.ndarray, src: np.ndarray, op: str) -> bool:
    """Whether ``self_`` is an integer or bool tensor: ParityError unless ``src`` is of its dtype (ATen's
    scatter ops take src of self's dtype only), and for a bool mean; False for a float self."""
    self_, src = np.asarray(self_), np.asarray(src)
    if self_.dtype.kind not in "biu":
        return False
    if src.dtype != self_.dtype or (op.endswith("mean") and self_.dtype == np.bool_):
        raise ParityError(f"the impl reproduces {op} of {self_.dtype} with a src of that dtype only (not a bool mean)")
    return True


def _long(index: np.ndarray, op: str) -> np.ndarray:
    index = np.asarray(index)
    if index.dtype.kind not in "iu":
        raise ParityError(f"{op}: an integer index only, not {index.dtype}")
    return index.astype(np.int64)


def ordered_add(out: np.ndarray, flat: np.ndarray, values: np.ndarray, term_first: bool = False) -> None:
    """``out.flat[flat[k]] += values[k]`` for k in order, one float32 rounding each (in place). Where two
    NaNs meet x86 keeps the first operand's: ``self + term`` keeps self's; ``term_first``, the loops whose
    compiled addition takes the term first (index_add's 1-D loop; index_put's atomic adds in the AVX2
    object), the term's."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf and overflow: IEEE's NaN and inf, as ATen's
        if not term_first:
            np.add.at(out.reshape(-1), flat, values)
            return
        target = out.reshape(-1)
        for pick in _rounds(flat):  # the term's NaN kept explicitly (NumPy's loops may keep either NaN)
            where = flat[pick]
            target[where] = nans.arith("add", target[where], values[pick], keep=1)


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


def expanded_path(
    shape: tuple[int, ...],
    dim: int,
    index_shape: tuple[int, ...],
    src_shape: tuple[int, ...],
    index_stride: Sequence[int] | None = None,
    dense: bool = True,
) -> bool:
    """Whether scatter_add / scatter_reduce.two may take ``cpu_scatter_reduce_expanded_index``
    (``can_use_expanded_index_path``): dim 0, self and src contiguous (``dense``), src of index's
    sizes past dim 0, 16 or more index elements per row, and an index of stride 1 on dim 0 and 0 on
    the others (a dim of size 1: 0 or 1). ``index_stride`` None (unknown): whenever the rest holds."""
    if dim != 0 or not dense or not index_shape or 0 in (*shape, *index_shape, *src_shape) or not shape:
        return False
    if len(src_shape) != len(index_shape) or any(src_shape[d] != index_shape[d] for d in range(1, len(index_shape))):
        return False
    if int(np.prod(index_shape)) // index_shape[0] < 16:
        return False
    if index_stride is None:
        return True
    rest = zip(index_stride[1:], index_shape[1:], strict=True)
    return index_stride[0] == 1 and all(st == 0 or (st == 1 and n == 1) for st, n in rest)


def scatter_reduce(
    self_: np.ndarray,
    dim: int,
    index: np.ndarray,
    src: np.ndarray,
    reduce: str = "sum",
    include_self: bool = True,
    index_stride: Sequence[int] | None = None,
    dense: bool = True,
    profile: KernelProfile | None = None,
) -> np.ndarray:
    """``scatter_add`` (reduce "sum") and ``scatter_reduce.two`` of float32 self and src;
    ``index_stride`` and ``dense`` (self and src contiguous) as torch had them, for ``expanded_path``
    (amax/amin there: NaN and -0.0 refused without a profile of a modelled level; the other reductions'
    NaN operands where ``profile`` is default from 2 threads, or None, ``expanded_nan``)."""
    op = "scatter_add" if reduce == "sum" and include_self else f"scatter_reduce {reduce}"
    if reduce not in REDUCES:
        raise ParityError(f"the impl reproduces scatter_reduce with {', '.join(REDUCES)} only, not {reduce!r}")
    integral = _integral(self_, src, op)
    if not integral:
        self_, src = _float32(self_, op, "self"), _float32(src, op, "src")
    self_, src = np.asarray(self_), np.asarray(src)
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
    out = np.array(self_, copy=True).reshape(shape)
    if integral:
        return _reduce_integers(out, targets, values, reduce, include_self).reshape(self_.shape)
    rule = "serial"
    if expanded_path(self_.shape, dim, index.shape, src.shape, index_stride, dense):
        if reduce in ("sum", "prod", "mean"):
            expanded_nan(op, profile, values, out.reshape(-1)[targets])
        rule = EXPANDED_RULES.get(profile.aten, "vector") if profile is not None else "vector"
    return _reduce_into(out, targets, values, reduce, include_self, op, rule).reshape(self_.shape)


def expanded_nan(op: str, profile: KernelProfile | None, *operands: np.ndarray) -> None:
    """ParityError where the expanded-index path's sum / product meets a NaN operand at a level and
    thread count that keeps another NaN where two meet: measured at the default level at 2 and 4
    threads (+qNaN kept for the serial order's -qNaN); avx2 and avx512 (the AVX2 object) at any thread
    count and every level at 1 thread keep the serial order's NaN. ``profile`` None: not known, refused
    alike."""
    if profile is not None and (profile.threads == 1 or profile.aten in AVX2_OBJECT):
        return
    if any(np.isnan(x).any() for x in operands):
        where = "an unknown profile" if profile is None else f"{profile.aten} at {profile.threads} threads"
        raise ParityError(
            f"{op}: NaN operands on the expanded-index path at {where} are not modelled (another NaN is kept"
            " where two meet)"
        )


def _reduce_integers(
    out: np.ndarray, targets: np.ndarray, values: np.ndarray, reduce: str, include_self: bool
) -> np.ndarray:
    """``out`` (integers or bools) with the terms ``values`` reduced into the flat offsets ``targets``: sums
    and products wrap and commute, maxima and minima are exact, so neither the order, the path nor the
    threads reach the bits (bools: a sum or maximum is an or, a product or minimum an and); without self,
    the reached elements start from scatter_reduce's initial value (0, 1, the dtype's lowest for amax,
    its highest for amin); mean the floor of the sum over the count, as ATen's ``out.div_(count,
    "floor")`` for integers."""
    flat = out.reshape(-1)
    low, high = (False, True) if out.dtype == np.bool_ else (np.iinfo(out.dtype).min, np.iinfo(out.dtype).max)
    if not include_self:
        flat[targets] = {"prod": 1, "amax": low, "amin": high}.get(reduce, 0)
    ufunc = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}.get(reduce, np.add)
    if out.dtype == np.bool_:
        ufunc = np.logical_and if reduce in ("prod", "amin") else np.logical_or
    with np.errstate(over="ignore"):
        ufunc.at(flat, targets, values)
    if reduce == "mean":
        count = np.full(flat.shape, 1 if include_self else 0, out.dtype)
        np.add.at(count, targets, out.dtype.type(1))
        count[count == 0] = 1
        flat[...] = np.floor_divide(flat, count)
    return out


def _reduce_into(
    out: np.ndarray,
    targets: np.ndarray,
    values: np.ndarray,
    reduce: str,
    include_self: bool,
    op: str,
    rule: str = "vector",
) -> np.ndarray:
    """``out`` with the terms ``values`` reduced into the flat offsets ``targets`` in order. amax/amin
    by ``rule``: "serial", the serial loops' ``self = isnan(src) ? src : std::max(self, src)``
    (``std::min``: self kept on a tie, a NaN self kept, a NaN src taken); "avx2" / "default", the
    expanded path's ``vec::maximum(self, src)`` of that object (``self > src ? self : src``, src on a
    tie; a NaN: avx2 all-ones ``0xffffffff``, default self's where self is NaN, else src's); "vector",
    a vector maximum of no known rule: NaN and -0.0 operands refused."""
    flat = out.reshape(-1)
    if reduce in ("amax", "amin"):
        operands = (values, flat[targets]) if include_self else (values,)
        if rule == "vector" and any(np.isnan(v).any() or (np.signbit(v) & (v == 0)).any() for v in operands):
            raise ParityError(f"{op}: NaN or -0.0 operands are not modelled (the vector path keeps other bits)")
        if not include_self:
            flat[targets] = -np.inf if reduce == "amax" else np.inf
        if rule == "vector":
            (np.maximum if reduce == "amax" else np.minimum).at(flat, targets, values)
            return out
        for pick in _rounds(targets):
            where, src = targets[pick], values[pick]
            kept = flat[where]
            if rule == "serial":
                takes = (kept < src) if reduce == "amax" else (src < kept)
                flat[where] = np.where(np.isnan(src) | takes, src, kept)
                continue
            keeps = (kept > src) if reduce == "amax" else (kept < src)
            got = np.where(keeps | np.isnan(kept), kept, src)  # default: a NaN self kept, else src (NaN or not)
            if rule == "avx2":
                got[np.isnan(kept) | np.isnan(src)] = np.uint32(0xFFFFFFFF).view(np.float32)
            flat[where] = got
        return out
    if reduce == "prod":
        if not include_self:
            flat[targets] = 1.0
        with np.errstate(invalid="ignore", over="ignore", under="ignore"):
            np.multiply.at(flat, targets, values)
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


def _slices(
    self_: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray | None, op: str, negative: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a float32 copy of self, the flat offset in it of each element of source in C order, source's
    values in that order) of the index_* ops: source's slice i along ``dim`` meets self's slice
    ``index[i]`` (``negative``: an index from -size counts from the end, as index_fill's). Without a
    source (index_fill) the values are empty."""
    self_ = _float32(self_, op, "self")
    index = _long(index, op)
    if index.ndim > 1:
        raise ParityError(f"{op}: a 0-D or 1-D index only, not {index.ndim}-D")
    index = index.reshape(-1)
    shape = self_.shape or (1,)
    dim = _dim(dim, self_.ndim, op)
    if negative and index.size and index.min() >= -shape[dim]:
        index = index % shape[dim]
    want = list(shape)
    want[dim] = index.size
    src = np.empty(0, np.float32)
    if source is not None:
        source = _float32(source, op, "source")
        src = source.reshape(source.shape or (1,))
        if src.ndim != len(shape) and not (len(shape) == 1 and src.ndim <= 1):
            raise ParityError(f"{op}: source {list(source.shape)} of another rank than self {list(self_.shape)}")
        try:
            src = np.broadcast_to(src.reshape(-1) if len(shape) == 1 else src, tuple(want))
        except ValueError as err:
            raise ParityError(f"{op}: source {list(source.shape)} does not fit self {list(self_.shape)}") from err
        src = np.ascontiguousarray(src).reshape(-1)
    idx = np.broadcast_to(index.reshape([-1 if k == dim else 1 for k in range(len(shape))]), tuple(want))
    targets = _scatter_targets(shape, dim, np.ascontiguousarray(idx), op)
    return np.array(self_, np.float32, copy=True).reshape(shape), targets, src


def index_add(
    self_: np.ndarray,
    dim: int,
    index: np.ndarray,
    source: np.ndarray,
    alpha: float = 1,
    profile: KernelProfile | None = None,
) -> np.ndarray:
    """``index_add``: source's slices along ``dim`` added, in index order, to self's slices ``index``,
    alpha rounded to float32. 1-D self: TensorAdvancedIndexing.cpp's own loop, the product rounded, then
    the sum, the term's NaN kept where two meet (every x86 build; aarch64 GCC fuses it). 2 or more dims
    with alpha 1 along dim 0 or the last: ``scatter_add`` (``self + src``, self's NaN kept where two
    meet). Otherwise the add kernel per slice,
    ``fmadd(source, alpha, self)`` (``profile``: one rounding where its vector FMA fuses, avx2, avx512's
    AVX2 object and aarch64; with alpha 1 the sum itself, but where two NaNs meet the kernel's pick)."""
    op = "index_add"
    out, targets, values = _slices(self_, dim, index, source, op)
    dim = _dim(dim, self_.ndim, op)
    if alpha == 1 and (out.ndim == 1 or dim in (0, out.ndim - 1)):
        through = (int(np.size(index)), *out.shape[1:])  # dim 0: scatter_add of the index expanded over source
        if expanded_path(out.shape, dim, through, through):
            expanded_nan(op, profile, values, out.reshape(-1)[targets])
        ordered_add(out, targets, values, term_first=out.ndim == 1)
    elif out.ndim == 1 and not (profile is not None and profile.aarch64):  # aarch64 contracts the loop too
        ordered_add(out, targets, np.float32(alpha) * values, term_first=True)
    else:
        if profile is None:
            raise ParityError("index_add through the add kernel (alpha other than 1, or a middle dim): the"
                              " profile's add kernel is needed")  # fmt: skip
        _fused_add_in_order(out.reshape(-1), targets, values, float(np.float32(alpha)), profile)
    return out.reshape(self_.shape)


def _rounds(targets: np.ndarray) -> list[np.ndarray]:
    """The positions of ``targets`` in rounds, round r each target's r-th position (so a round's targets
    are distinct, and the rounds in order keep every target's order)."""
    order = np.argsort(targets, kind="stable")
    first = np.r_[0, np.flatnonzero(np.diff(targets[order])) + 1]
    rank = np.empty(targets.size, np.int64)
    rank[order] = np.arange(targets.size) - np.repeat(first, np.diff(np.r_[first, targets.size]))
    return [np.flatnonzero(rank == r) for r in range(int(rank.max(initial=-1)) + 1)]


def _fused_add_in_order(
    flat: np.ndarray, targets: np.ndarray, values: np.ndarray, alpha: float, profile: KernelProfile
) -> None:
    """``flat[targets[k]] = add(flat[targets[k]], alpha, values[k])`` for k in order, the add kernel's
    ``a + alpha*b`` (harness.impl.optim.elementwise), a round of distinct targets at a time."""
    from harness.impl.optim import elementwise

    for pick in _rounds(targets):
        where = targets[pick]
        flat[where] = elementwise("add", np.ascontiguousarray(flat[where]), values[pick], None, alpha, profile)


def index_reduce(
    self_: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, reduce: str, include_self: bool = True
) -> np.ndarray:
    """``index_reduce`` (``index_reduce_func_impl``): self's slices ``index`` filled with the reduction's
    identity where not include_self, then source's slices reduced in, in index order (``mul``,
    ``maximum``/``minimum``, ``add`` then a division by the counts): scatter_reduce's rule per element."""
    op = f"index_reduce {reduce}"
    if reduce not in INDEX_REDUCES:
        raise ParityError(f"the impl reproduces index_reduce with {', '.join(INDEX_REDUCES)} only, not {reduce!r}")
    out, targets, values = _slices(self_, dim, index, source, op)
    if reduce in ("prod", "mean") and out.ndim > 1 and (np.isnan(values).any() or np.isnan(out.flat[targets]).any()):
        raise ParityError(
            f"{op}: NaN operands are not modelled for a self of 2 or more dims (the binary kernel's vector"
            " and scalar code keep the other operand's NaN where two meet)"
        )
    rule = "vector" if out.ndim > 1 else "serial"
    return _reduce_into(out, targets, values, reduce, include_self, op, rule).reshape(self_.shape)


def _racing(op: str, size: int, threads: int, grain: int, targets: np.ndarray) -> None:
    """ParityError where ``size`` elements at ``threads`` threads split from ``grain`` and an element of
    ``targets`` is written twice: by racing threads, in no reproducible order."""
    if threads > 1 and size >= grain and np.unique(targets).size < targets.size:
        raise ParityError(
            f"{op}: {size} elements at {threads} threads are written by racing threads where an element"
            " is reached twice: their order is not reproducible"
        )


def _write_last(flat: np.ndarray, targets: np.ndarray, values: np.ndarray) -> None:
    """``flat[targets[k]] = values[k]`` for k in order: each element keeps its last write (in place)."""
    last = targets.size - 1 - np.unique(targets[::-1], return_index=True)[1]
    flat[targets[last]] = values[last]


def index_copy(self_: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, threads: int) -> np.ndarray:
    """``index_copy`` (``index_copy_kernel``): source's slice i copied to self's slice ``index[i]``, the
    last of repeats kept; TensorIterator's parallel loop from 32768 elements at 2 or more threads
    writes repeats from racing threads: refused."""
    op = "index_copy"
    out, targets, values = _slices(self_, dim, index, source, op)
    _racing(op, values.size, threads, GRAIN_SIZE, targets)
    _write_last(out.reshape(-1), targets, values)
    return out.reshape(self_.shape)


def index_fill(self_: np.ndarray, dim: int, index: np.ndarray, value: float) -> np.ndarray:
    """``index_fill`` (``index_fill_kernel``): self's slices ``index`` (from -size) set to float32(value)."""
    out, targets, _ = _slices(self_, dim, index, None, "index_fill", negative=True)
    out.reshape(-1)[targets] = np.float32(value)
    return out.reshape(self_.shape)


def masked_scatter(self_: np.ndarray, mask: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``masked_scatter`` (``cpu_masked_scatter_kernel``, a serial loop in self's C order): where the mask
    (broadcast to self) is set, source's elements in C order, one each."""
    op = "masked_scatter"
    self_, source = _float32(self_, op, "self"), _float32(source, op, "source")
    mask = np.asarray(mask)
    if mask.dtype != np.bool_ or np.broadcast_shapes(self_.shape, mask.shape) != self_.shape:
        raise ParityError(f"{op}: a bool mask broadcast to self {list(self_.shape)}, not {mask.dtype} {mask.shape}")
    full = np.broadcast_to(mask, self_.shape)
    count = int(full.sum())
    if count > source.size:
        raise ParityError(f"{op}: {count} set in the mask for a source of {source.size} elements")
    out = np.array(self_, np.float32, copy=True)
    out[full] = source.reshape(-1)[:count]
    return out


def masked_scatter_backward(grad: np.ndarray, mask: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """``masked_scatter_backward``: grad's elements where the mask is set (both broadcast, C order),
    then +0.0 up to the source's ``sizes``."""
    op = "masked_scatter_backward"
    grad, mask = _float32(grad, op, "grad_output"), np.asarray(mask)
    try:
        g, m = np.broadcast_arrays(grad, mask.astype(np.bool_))
    except ValueError as err:
        raise ParityError(f"{op}: grad {list(grad.shape)} and mask {list(mask.shape)} do not broadcast") from err
    picked, n = g[m], int(np.prod(sizes, dtype=np.int64))
    if picked.size > n:
        raise ParityError(f"{op}: {picked.size} set in the mask for a source of {n} elements")
    return np.concatenate([picked, np.zeros(n - picked.size, np.float32)]).reshape(tuple(sizes))


def put(
    self_: np.ndarray, index: np.ndarray, source: np.ndarray, threads: int, accumulate: bool, aten: str | None = None
) -> np.ndarray:
    """``put_`` (``put_kernel``): self in C order as one dim, ``index_put`` of one index tensor (from
    -numel) in the C order of index and source; the same racing threads refused (atomic adds from
    32768 elements, copies from 3000, at 2 or more threads), and the atomic adds' NaN by ``aten``."""
    op = "put_ accumulate" if accumulate else "put_"
    self_, source, index = _float32(self_, op, "self"), _float32(source, op, "source"), _long(index, op)
    if index.size != source.size:
        raise ParityError(f"{op}: index of {index.size} elements for a source of {source.size}")
    flat = index_put(
        self_.reshape(-1), [index.reshape(-1)], source.reshape(-1), threads, accumulate, None, "put_", aten
    )
    return flat.reshape(self_.shape)


def scatter(
    self_: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray | float, reduce: str | None = None
) -> np.ndarray:
    """``scatter`` (.src, .value, .reduce, .value_reduce): ``self[p with dim := index[p]] = src[p]`` (or
    float32(value)), the last along ``dim`` kept of repeats (each element is reached from one position
    off ``dim``, so the threads never share one); with ``reduce`` "add" / "multiply" scatter_reduce's
    sum / prod with self included."""
    op = "scatter" if reduce is None else f"scatter {reduce}"
    if reduce is not None and reduce not in SCATTER_REDUCES:
        raise ParityError(f"scatter: reduce 'add' or 'multiply' only, not {reduce!r}")
    index = _long(index, op)
    if np.ndim(src) == 0 and not isinstance(src, np.ndarray):  # a number, as self's dtype (an integer: truncated)
        kind = np.asarray(self_).dtype
        value = np.float32(src) if kind.kind not in "biu" else bool(src) if kind == np.bool_ else _truncated(src, op)
        src = np.full(index.shape, np.asarray(value).astype(np.float32 if kind.kind not in "biu" else kind))
    if reduce is not None:
        # scatter_impl's reduce stub: the serial kernel whatever the layouts (dense False: no expanded path)
        return scatter_reduce(self_, dim, index, np.asarray(src), SCATTER_REDUCES[reduce], dense=False)
    if not _integral(self_, src, op):
        self_, src = _float32(self_, op, "self"), _float32(np.asarray(src), op, "src")
    self_, src = np.asarray(self_), np.asarray(src)
    shape, index = self_.shape or (1,), index.reshape(index.shape or (1,))
    src = src.reshape(src.shape or (1,))
    if index.ndim != src.ndim or any(i > s for i, s in zip(index.shape, src.shape, strict=True)):
        raise ParityError(f"{op}: index {list(index.shape)} larger than src {list(src.shape)}")
    targets = _scatter_targets(shape, _dim(dim, self_.ndim, op), index, op)
    out = np.array(self_, copy=True).reshape(shape)
    _write_last(out.reshape(-1), targets, src[tuple(slice(0, n) for n in index.shape)].reshape(-1))
    return out.reshape(self_.shape)


def _truncated(value: float, op: str) -> int:
    """A number written into an integer tensor: c10's conversion truncates a float toward zero (and a
    negative integer into an unsigned one wraps, as the cast from int64 does)."""
    if not np.isfinite(value):
        raise ParityError(f"{op}: {value} into an integer tensor (ATen raises)")
    return int(value)


def index_put(
    self_: np.ndarray,
    indices: Sequence[np.ndarray | None],
    values: np.ndarray,
    threads: int,
    accumulate: bool = True,
    values_stride: Sequence[int] | None = None,
    name: str = "index_put",
    aten: str | None = None,
) -> np.ndarray:
    """``index_put_(indices, values, accumulate)``: ``self[indices] += values`` with repeats added in the
    C order of the indexed positions, or (accumulate False) ``self[indices] = values``, the last of
    repeats kept; integer or bool index tensors, None for a whole dim. A float32 self, or an integer or
    bool one with values of its dtype: integer sums exact and wrapping, a bool sum an or (ATen's serial
    ``*dst += *src`` on bool, measured).
    ``values_stride``: the values' strides as torch had them, where TensorIterator would take the
    positions in another order (strides increasing over the indexed dims): refused. ``name``: the op its
    errors name. ``aten``: the build (profile.aten), for the NaN the atomic adds keep where a NaN value
    meets a NaN element: the value's in the AVX2 object (avx2, avx512), the element's at default
    (measured); else refused."""
    op = f"{name} accumulate" if accumulate else name
    integral = np.asarray(self_).dtype.kind in "biu"
    if integral:  # integer adds wrap and commute: neither the order nor the threads reach the bits
        self_, values = np.asarray(self_), np.asarray(values)
        if values.dtype != self_.dtype:
            raise ParityError(f"the impl reproduces {op} of {self_.dtype} with {self_.dtype} values only")
    else:
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
    flat = np.ascontiguousarray(vals).reshape(-1)
    if integral and accumulate:
        out = np.array(self_, copy=True)
        (np.logical_or if out.dtype == np.bool_ else np.add).at(out.reshape(-1), targets, flat)
        return out
    _racing(op, targets.size, threads, GRAIN_SIZE if accumulate else INDEX_GRAIN_SIZE, targets)
    out = np.array(self_, self_.dtype, copy=True)
    atomic = accumulate and threads > 1 and targets.size >= GRAIN_SIZE  # cpu_atomic_add_float, every thread
    unmodelled_nans = atomic and aten not in (*AVX2_OBJECT, "default")  # a float32 self: integers returned above
    if unmodelled_nans and (np.isnan(out.reshape(-1)[targets]) & np.isnan(flat)).any():
        raise ParityError(
            f"{op}: a NaN value meeting a NaN element in the atomic adds at {aten or 'an unknown build'} is not"
            " modelled (which NaN is kept is the build's)"
        )
    if accumulate:
        ordered_add(out, targets, flat, term_first=atomic and aten in AVX2_OBJECT)
    else:  # the last write of each element: its last position in order
        _write_last(out.reshape(-1), targets, flat)
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


def _floating(x: np.ndarray, op: str, name: str) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise ParityError(f"the impl reproduces {op} of float32 and float64 tensors only, not {name} {x.dtype}")
    return x


# PaddingKernel.cpp's ``ReflectionPad::index`` / ``ReplicationPad::index`` (nn.functional.pad's modes)
PAD_MODES = ("reflect", "replicate")


def _pad_index(mode: str, size: int, pad: int, out_size: int) -> np.ndarray:
    """The input position each output position j < ``out_size`` reads along a dim of ``size`` with ``pad``
    before it (negative: cropped), offset by PaddingParams' ``offsets``."""
    j = np.arange(out_size, dtype=np.int64)
    offset = max(0, -pad) - max(0, pad)
    past = (size + pad - 1) * 2 - j if mode == "reflect" else np.full_like(j, size + pad - 1)
    before = pad * 2 - j if mode == "reflect" else np.full_like(j, pad)
    return np.where(j < pad, before, np.where(j < size + pad, j, past)) + offset


def _add_stub_keeps_term(channels: int) -> np.ndarray:
    """Per channel, whether ``add_stub``'s ``grad_in + grad_out`` over the channels of one position (the
    channels-last kernel) keeps grad_out's NaN (the term's) where two NaNs meet, as GCC compiled the AVX2
    object (avx2, avx512): the 8-lane body and the tail's 4-lane epilogue the term's, the last C % 4 the
    sum's (measured on a Zen 5 for 1 to 24 channels, 2-D and 3-D). The default object's 8-lane
    Vectorized add runs as two 4-lane halves whose pick did not hold from one layout to another
    (refused there)."""
    c = np.arange(channels)
    return c < channels - channels % 4


def _nans_meet(targets: np.ndarray, terms: np.ndarray, size: int) -> bool:
    """Whether two NaNs may meet in a sum of ``terms`` onto ``targets``: an element with two NaN terms, or
    one and both infinities (whose sum is a NaN)."""
    count = np.bincount(targets[np.isnan(terms)], minlength=size)
    both = [np.bincount(targets[terms == sign * np.inf], minlength=size) > 0 for sign in (1, -1)]
    return bool((count + (both[0] & both[1])).max(initial=0) >= 2)


def padding_backward(
    grad_output: np.ndarray, input_shape: Sequence[int], padding: Sequence[int], mode: str,
    channels_last: bool = False, aten: str = "avx2",
) -> np.ndarray:  # fmt: skip
    """``reflection_pad{1,2,3}d_backward`` / ``replication_pad{1,2,3}d_backward`` (PaddingKernel.cpp
    ``cpu_padding_backward`` and ``cpu_padding_backward_channels_last``): grad_input zeroed, then every
    output position's gradient added to the input position it was read from, the output positions in
    C order (depth, height, width). The channels-first kernel runs a plane a thread, serially over the
    positions (``grad_in += grad_out``: the sum's NaN kept where two meet); the channels-last one
    (``channels_last``: grad_output's suggested memory format ChannelsLast / ChannelsLast3d) an image a
    thread, the positions in the same order and each position's channels through ``add_stub``, whose
    NaN where two meet depends on the channel in the AVX2 object (``_add_stub_keeps_term``); refused
    there at the ``aten`` level default and in float64 (not measured). So one input element's terms come
    in the output's raster order onto +0 whatever the layout, threads or level. An empty grad_output is
    refused: ATen returns before it zeroes grad_input (reflection_pad1d/3d's), whose memory is then
    torch.empty's."""
    if mode not in PAD_MODES:
        raise ParityError(f"padding backward: mode {mode!r} is not one of {PAD_MODES}")
    g = _floating(grad_output, f"{mode} padding backward", "grad_output")
    dims = len(padding) // 2
    shape = tuple(int(s) for s in input_shape)
    if len(padding) != 2 * dims or dims not in (1, 2, 3) or len(shape) not in (dims + 1, dims + 2):
        raise ParityError(f"padding backward: padding {list(padding)} does not fit an input of shape {list(shape)}")
    spatial = shape[-dims:]
    pads = [(int(padding[2 * (dims - 1 - d)]), int(padding[2 * (dims - 1 - d) + 1])) for d in range(dims)]
    out_spatial = tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads, strict=True))
    if g.shape != shape[:-dims] + out_spatial:
        raise ParityError(f"padding backward: grad_output {list(g.shape)} is not the padded {list(shape)}")
    if not g.size:
        raise ParityError("padding backward of an empty grad_output: ATen returns grad_input unwritten (empty memory)")
    reads = [_pad_index(mode, s, lo, o) for s, (lo, _), o in zip(spatial, pads, out_spatial, strict=True)]
    if any(r.size and (r.min() < 0 or r.max() >= s) for r, s in zip(reads, spatial, strict=True)):
        raise ParityError(f"padding backward: padding {list(padding)} reads outside an input of {list(spatial)}")
    # the input position of every output position, in the output's C order, per plane
    target = np.ravel_multi_index(np.meshgrid(*reads, indexing="ij"), spatial).reshape(-1)
    planes = int(np.prod(shape[:-dims], dtype=np.int64))
    size = int(np.prod(spatial, dtype=np.int64))
    out = np.zeros((planes, size), g.dtype)
    terms = g.reshape(planes, -1)
    flat = np.arange(planes, dtype=np.int64)[:, None] * size + target[None, :]
    keeps_term = np.zeros(planes, np.bool_)
    if channels_last and len(shape) == dims + 2:
        if (g.dtype != np.float32 or aten == "default") and _nans_meet(flat.reshape(-1), g.reshape(-1), out.size):
            raise ParityError(
                f"padding backward: two NaNs meet in the channels-last kernel's {g.dtype} vector adds at the "
                f"{aten} level (the default object's pick varies with the layout; float64 lanes not measured)"
            )
        keeps_term = np.tile(_add_stub_keeps_term(shape[1]), shape[0])
    for term_first in (False, True):
        rows = keeps_term == term_first
        if rows.any():
            # float64 has no NaN meeting here (refused above): NumPy's float64 additions in order
            keep = term_first and g.dtype == np.float32
            ordered_add(out, flat[rows].reshape(-1), terms[rows].reshape(-1), term_first=keep)
    return out.reshape(shape)


def unfold_backward(grad: np.ndarray, input_sizes: Sequence[int], dim: int, size: int, step: int) -> np.ndarray:
    """``aten.unfold_backward`` (UnfoldBackward.cpp, Tensor.unfold's gradient): grad_input zeros; with
    ``step >= size`` the windows do not overlap and grad is copied into them (``unfold(...).copy_``: its
    bits kept, a -0 too); with ``step < size`` UnfoldBackwardKernel.cpp's TensorIterator runs over
    grad_input, and each element adds the windows f that hold it (f * step <= i < f * step + size) in
    increasing f onto its +0 (``*grad_out += grad_in[...]``: the sum's NaN kept where two meet), one
    element one thread, a scalar loop at every level."""
    g = _floating(grad, "unfold_backward", "grad_in")
    shape = tuple(int(s) for s in input_sizes)
    if not shape:
        raise ParityError("unfold_backward: the impl reproduces the gradient of a tensor of one dim or more")
    dim = _dim(int(dim), len(shape), "unfold_backward")
    size, step = int(size), int(step)
    folds = (shape[dim] - size) // step + 1 if step > 0 and size <= shape[dim] else -1
    if folds < 1 or g.shape != (*shape[:dim], folds, *shape[dim + 1 :], size):
        raise ParityError(f"unfold_backward: grad {list(g.shape)} is not {list(shape)} unfolded by {size}, {step}")
    windows = np.moveaxis(g, (dim, g.ndim - 1), (-2, -1))  # (..., folds, size)
    out = np.zeros((*windows.shape[:-2], shape[dim]), g.dtype)
    i = np.arange(shape[dim], dtype=np.int64)
    if step >= size:  # a copy: every element in one window or none
        f, r = i // step, i % step
        held = (f < folds) & (r < size)
        out[..., held] = windows[..., f[held], r[held]]
        return np.moveaxis(out, -1, dim)
    first = np.where(i >= size, (i - size) // step + 1, 0)  # the first window holding i
    last = np.minimum(i // step, folds - 1)
    rows = np.arange(int(np.prod(out.shape[:-1], dtype=np.int64)), dtype=np.int64)[:, None] * shape[dim]
    targets, terms = [], []
    for k in range(-(-size // step)):  # the k-th window of each element, the rounds in order
        f = first + k
        held = f <= last
        targets.append((rows + i[held]).reshape(-1))
        terms.append(windows[..., f[held], i[held] - f[held] * step].reshape(-1))
    ordered_add(out, np.concatenate(targets), np.concatenate(terms))
    return np.moveaxis(out, -1, dim)
