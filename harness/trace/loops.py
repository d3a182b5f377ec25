"""Where ATen's CPU element-wise loop puts each element: TensorIterator's dim order, its coalesced inner
loop and the kind of that loop (torch 2.13.0, aten/src/ATen/TensorIterator.cpp, native/cpu/Loops.h).
Torch-free.

``TensorIteratorBase::build``: operands of one shape whose defined tensors are all contiguous, all
channels-last (4-d), or all non-overlapping and dense with equal strides take ``fast_set_up``: one dim of
every element in memory order. Otherwise ``compute_strides`` (a dim an operand broadcasts along, or lacks,
gets stride 0), ``reorder_dimensions`` (an insertion sort of the dims, fastest first, whose comparison
asks the operands in turn, outputs first, an output TensorIterator allocates skipped: the smaller stride
goes inner; a stride 0 on either side passes the question to the next operand; equal strides put the
larger dim outer, else pass it on; no answer keeps the order), the allocated output dense in that order,
and ``coalesce_dimensions`` (adjacent dims merge where a dim has size 1 or every operand's strides
chain). ``at::parallel_for`` then cuts the flat index of that order into the threads' chunks, and each
chunk's piece of one inner dim is one call of ``VectorizedLoop2d``: its vectorized loop (vector body,
scalar tail) where every operand has a unit stride along the inner dim, or where exactly the first such
input has stride 0 and the others unit strides (that input read as a scalar); else ``basic_loop``, the
scalar op on every element.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.impl.strides import c_strides, channels_last_strides, contiguous, iteration_order, same_layout

Stride = Sequence[int]


@dataclass(frozen=True)
class Loop:
    """``order``: the logical dims, outermost first, in which ATen's flat index walks the elements;
    ``run``: the elements of one inner dim (an inner call holds at most that many, cut further by the
    threads' chunks); ``vector``: whether the inner calls are the vectorized loop (else the basic loop);
    ``scalar``: the input (1 for the first) that loop reads as a scalar, 0 for none."""

    order: tuple[int, ...]
    run: int
    vector: bool
    scalar: int = 0


def non_overlapping_and_dense(stride: Stride, shape: Sequence[int]) -> bool:
    """TensorImpl's ``is_non_overlapping_and_dense``: the dims of size over 1, sorted by stride, tile
    their memory without a gap."""
    step = 1
    for s, n in sorted((s, n) for s, n in zip(stride, shape, strict=True) if n != 1):
        if s != step:
            return False
        step *= n
    return True


def _fast(shape: tuple[int, ...], operands: list[tuple[tuple[int, ...], Stride]]) -> tuple[int, ...] | None:
    """``fast_set_up``'s memory order of the dims (outermost first), or None where it does not apply."""
    if any(s != shape for s, _ in operands):
        return None
    strides = [list(st) for _, st in operands]
    c_order = tuple(range(len(shape)))
    if all(contiguous(st, shape) for st in strides):
        return c_order
    if len(shape) == 4 and all(same_layout(st, channels_last_strides(shape), shape) for st in strides):
        return (0, 2, 3, 1)
    if all(non_overlapping_and_dense(st, shape) for st in strides) and all(st == strides[0] for st in strides):
        return tuple(sorted(c_order, key=lambda d: (-strides[0][d], d)))
    return None


def element_wise_loop(
    shape: Sequence[int], inputs: Sequence[tuple[Sequence[int], Stride]], output: Stride | None = None
) -> Loop:
    """TensorIterator's loop over ``inputs`` ((shape, strides) in elements, in the order the kernel adds
    them; each broadcasts to ``shape``) for an output it allocates (``output`` None: a functional
    structured op) or one of ``shape`` given with strides ``output`` (an in-place op, an ``empty_like``)."""
    shape = tuple(int(n) for n in shape)
    ndim = len(shape)
    numel = 1
    for n in shape:
        numel *= n
    ops = [(tuple(int(n) for n in s), [int(v) for v in st]) for s, st in inputs]
    defined = ([(shape, [int(v) for v in output])] if output is not None else []) + ops
    if numel <= 1 or ndim == 0:
        return Loop(tuple(range(ndim)), max(numel, 1), True)
    fast = _fast(shape, defined)
    if fast is not None:
        return Loop(fast, numel, True)
    # compute_strides: broadcast dims (and the dims an operand lacks) get stride 0; fastest dim first
    strides: list[list[int]] = []
    for op_shape, st in defined:
        offset = ndim - len(op_shape)
        full = [0] * offset + [0 if n == 1 and shape[offset + i] != 1 else st[i] for i, n in enumerate(op_shape)]
        strides.append(full[::-1])
    sizes = list(shape[::-1])
    # reorder_dimensions (harness.impl.strides.iteration_order), in TensorIterator's dims: fastest first,
    # the logical dims reversed
    perm = [ndim - 1 - d for d in iteration_order(shape, [st[::-1] for st in strides])]
    shape_ = [sizes[p] for p in perm]
    operands = [[st[p] for p in perm] for st in strides]
    if output is None:  # allocate_or_resize_outputs: dense in the iteration order
        operands.insert(0, c_strides(shape_[::-1])[::-1])
    # coalesce_dimensions
    prev = 0
    for dim in range(1, ndim):
        if shape_[prev] == 1 or shape_[dim] == 1 or all(shape_[prev] * st[prev] == st[dim] for st in operands):
            if shape_[prev] == 1:
                for st in operands:
                    st[prev] = st[dim]
            shape_[prev] *= shape_[dim]
        else:
            prev += 1
            if prev != dim:
                for st in operands:
                    st[prev] = st[dim]
                shape_[prev] = shape_[dim]
    inner = [st[0] for st in operands]
    # VectorizedLoop2d: is_contiguous, else the first input that is a contiguous scalar, else basic_loop
    scalar = 0
    if not all(s == 1 for s in inner):
        scalars = [i for i in range(1, len(inner)) if inner[i] == 0 and all(s == 1 for s in inner[:i] + inner[i + 1 :])]
        scalar = scalars[0] if scalars else -1
    return Loop(tuple(ndim - 1 - p for p in reversed(perm)), shape_[0], scalar >= 0, max(scalar, 0))
