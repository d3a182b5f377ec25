"""Bit-level equality of tensors: equal bit patterns, compared as unsigned integers.

Never a tolerance: two float32 tensors are equal here only when every uint32 pattern is
equal (so +0 and -0 differ, and NaNs compare by payload).
"""

from __future__ import annotations

import numpy as np

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bit_view(array: np.ndarray) -> np.ndarray:
    """The array's bit patterns as unsigned integers of the same width."""
    array = np.asarray(array, order="C")
    if array.dtype == np.bool_:
        return array.view(np.uint8)
    return array.view(_UINT[array.dtype.itemsize])


def mismatch_count(a: np.ndarray, b: np.ndarray) -> int:
    """How many elements differ in their bits (shapes and dtypes must match)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        raise ValueError(f"cannot compare {a.dtype}{list(a.shape)} with {b.dtype}{list(b.shape)}")
    return int(np.count_nonzero(bit_view(a) != bit_view(b)))


def describe_first_mismatch(a: np.ndarray, b: np.ndarray) -> str | None:
    """None when bit-identical; else the count and the first differing element, in decimal and hex."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shape/dtype differ: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
    ua, ub = bit_view(a).reshape(-1), bit_view(b).reshape(-1)
    diff = np.flatnonzero(ua != ub)
    if diff.size == 0:
        return None
    i = int(diff[0])
    index = tuple(int(k) for k in np.unravel_index(i, a.shape)) if a.ndim else ()
    width = a.dtype.itemsize * 2
    va, vb = a.reshape(-1)[i], b.reshape(-1)[i]
    return (
        f"{diff.size} of {a.size} elements differ; first at index {list(index)}: "
        f"{va!r} (0x{int(ua[i]):0{width}x}) vs {vb!r} (0x{int(ub[i]):0{width}x})"
    )
