"""NaNs that may meet in a kernel whose operand order the impl does not model: the refusal.

A product or sum of two NaNs passes one of them on, and which is each vector instruction's operand
order in the kernel (MKL's and oneDNN's sgemm, oneDNN's convolutions): where a NaN result may be one
of two or more NaNs, the operands' own or the one arithmetic makes of infinities, the impl refuses.
One kind of NaN alone (only NaN operands of one pattern, or only infinities) passes.
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile

# the NaN an x86 operation makes of no NaN (inf - inf, 0 * inf): negative; aarch64's: positive
_DEFAULT_NAN = {False: 0xFFC00000, True: 0x7FC00000}


def nan_kinds(*arrays: np.ndarray) -> set[int]:
    """The bit patterns of the NaNs ``arrays`` hold (quieted, as arithmetic passes them on)."""
    kinds: set[int] = set()
    for arr in arrays:
        bits = np.ascontiguousarray(arr, np.float32).view(np.uint32).reshape(-1)
        kinds.update(int(v) | 0x00400000 for v in np.unique(bits[np.isnan(arr.reshape(-1))]))
    return kinds


def refuse_mixed_nans(
    where: str, out: np.ndarray, profile: KernelProfile, kinds: set[int], *operands: np.ndarray
) -> None:
    """ParityError where ``out`` holds a NaN that may be one of two or more NaNs: the operands' own
    (``kinds`` and ``operands``' NaNs) and the one arithmetic makes of infinities. Which of them a
    product or sum passes on is the operand order of each vector instruction of the kernel (MKL's and
    oneDNN's sgemm: not modelled; measured on an AMD Zen 5, torch 2.13.0: 2 of 12 random products with
    NaN and infinite operands and 4 of 6 slow_conv2d forwards gave a NaN of the other sign)."""
    if not np.isnan(out).any():
        return
    kinds = kinds | nan_kinds(*operands)
    if any(np.isinf(op).any() for op in operands):
        kinds.add(_DEFAULT_NAN[profile.aarch64])
    if len(kinds) > 1:
        named = ", ".join(f"{k:#010x}" for k in sorted(kinds))
        raise ParityError(
            f"{where}: a NaN result where NaNs of {len(kinds)} kinds may meet ({named}: the operands' and the one "
            "infinities make): which one the kernel passes on is not modelled"
        )
