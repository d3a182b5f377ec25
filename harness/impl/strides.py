"""What a tensor's strides say about its layout, as c10 reads them. Torch-free, no NumPy.

Sizes and strides are in elements, in the tensor's logical dim order (N, C, H, W for a 4-D image
tensor, whatever its memory order). The kernels of the impl and the trace replay ask these questions
of captured strides: whether a tensor is contiguous (c10's ``is_contiguous``: dims of size 1 aside,
every tensor of no elements), whether it lies in a given order of its dims, and which memory format
``suggest_memory_format()`` gives it (the channels-last kernels of pooling and convolution switch on
that).
"""

from __future__ import annotations

from collections.abc import Sequence


def strides_in_order(shape: Sequence[int], order: Sequence[int]) -> list[int]:
    """The strides of a dense tensor of ``shape`` whose dims lie in memory in ``order``, outermost first."""
    out, step = [0] * len(shape), 1
    for d in reversed(order):
        out[d], step = step, step * shape[d]
    return out


def c_strides(shape: Sequence[int]) -> list[int]:
    """The strides of a C-contiguous tensor of ``shape``."""
    return strides_in_order(shape, range(len(shape)))


def channels_last_strides(shape: Sequence[int]) -> list[int]:
    """The strides torch gives a 4-D tensor in ``torch.channels_last`` (N, C, H, W sizes; NHWC memory)."""
    return strides_in_order(shape, (0, 2, 3, 1))


def same_layout(stride: Sequence[int], expected: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether ``stride`` is ``expected`` in every dim of size above 1."""
    return all(s == e for s, e, n in zip(stride, expected, shape, strict=True) if n > 1)


def contiguous(stride: Sequence[int], shape: Sequence[int]) -> bool:
    """c10's ``is_contiguous`` (ATen's ``geometry_is_contiguous``): C order, dims of size 1 whatever
    their stride, and every tensor of no elements."""
    return 0 in shape or same_layout(stride, c_strides(shape), shape)


def suggests_channels_last(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """c10's ``suggest_memory_format()`` of a 4-D or 5-D tensor: ChannelsLast (is_channels_last_strides_2d_s4)
    or ChannelsLast3d (_3d_s5): strides non-decreasing in the order C, W, H, (D,) N (each bound multiplied
    by a size above 1), with its tie rules for size-1 dims. The adaptive average pooling kernels switch on
    it (the forward on the input's, the backward on grad_output's), so an ambiguous (N, C, 1, 1) may go
    either way; so do convolutions (harness.impl.conv_nhwc)."""
    if len(shape) not in (4, 5) or len(stride) != len(shape) or stride[1] == 0:
        return False
    low = 0
    for d in (1, 3, 2, 0) if len(shape) == 4 else (1, 4, 3, 2, 0):
        if shape[d] == 0 or stride[d] < low:
            return False
        if d == 0 and low == stride[1]:
            return False
        low = stride[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def iteration_order(shape: Sequence[int], strides: Sequence[Sequence[int]]) -> list[int]:
    """The dims of a TensorIterator over operands of these ``strides`` (one list per operand, in the order
    they were added; no outputs, no reduction) as ``reorder_dimensions`` permutes them, innermost first:
    an insertion sort from the reversed dims, a dim moving inward past another where the first operand
    that tells them apart (a stride of 0 tells nothing) gives it the smaller stride or, strides equal,
    the other dim the larger size; a pair none tells apart is passed over, the sort going on past it.
    A serial loop (``cpu_serial_kernel``) visits the elements in that order, the first dim fastest."""

    def should_swap(d0: int, d1: int) -> int:
        for stride in strides:
            s0, s1 = stride[d0], stride[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(reversed(range(len(shape))))
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[d0], perm[d1])
            if comparison > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif comparison < 0:
                break
    return perm
