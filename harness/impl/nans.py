"""NaNs that may meet in a kernel whose operand order the impl does not model: the refusal.

A product or sum of two NaNs passes one of them on, and which is each vector instruction's operand
order in the kernel (MKL's and oneDNN's sgemm, oneDNN's convolutions): where a NaN result may be one
of two or more NaNs, the operands' own or the one arithmetic makes of infinities, the impl refuses.
One kind of NaN alone (only NaN operands of one pattern, or only infinities) passes.

``arith``: a NumPy sum, difference, product or quotient whose NaN, where two meet, is named (the one the
reproduced kernel keeps) or refused, not left to NumPy's CPU dispatch, whose loops keep either by host.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile

# the NaN an x86 operation makes of no NaN (inf - inf, 0 * inf): negative; aarch64's: positive
_DEFAULT_NAN = {False: 0xFFC00000, True: 0x7FC00000}
_DEFAULT_NAN64 = {False: 0xFFF8000000000000, True: 0x7FF8000000000000}  # the same of float64


def arith(
    op: str, a: np.ndarray, b: np.ndarray, keep: int | None, where: str = "", aarch64: bool = False
) -> np.ndarray:
    """``a op b`` (``op`` add, sub, mul or div) of float32 arrays (broadcast), one IEEE rounding per
    element; where both are NaN, operand ``keep``'s NaN (0: ``a``'s, 1: ``b``'s), quieted, as an x86
    ADDSS/MULSS (or its vector form) whose first source is that operand gives it. ``keep`` None: two
    NaNs of other payloads (quieted) meeting are refused (``where`` names the step). NumPy's own sum or
    product leaves that choice to the loop its dispatch picks (NumPy 2.4, measured on a Zen 5 under
    NPY_DISABLE_CPU_FEATURES): its AVX-512 and AVX2 loops keep ``a``'s in the first 16 lanes of two
    contiguous operands and ``b``'s past them (and ``b``'s everywhere past 16 for a scalar ``b``), its
    SSE loops ``b``'s in the vector body and ``a``'s in the tail: other bits on another host. A NaN the
    operation makes of no NaN (inf - inf, 0 * inf) is the CPU's default NaN: x86's (NumPy's here), or
    with ``aarch64`` that architecture's +qNaN."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    with np.errstate(all="ignore"):
        out = np.asarray(UFUNCS[op](a, b, dtype=np.float32), np.float32)
    if aarch64:
        made = np.isnan(out) & ~np.isnan(a) & ~np.isnan(b)
        out[made] = np.uint32(_DEFAULT_NAN[True]).view(np.float32)
    both = np.isnan(a) & np.isnan(b)
    if both.any():
        quiet = np.uint32(0x00400000)
        bits = [np.broadcast_to(x, both.shape).view(np.uint32)[both] | quiet for x in (a, b)]
        if keep is None and (bits[0] != bits[1]).any():
            why = "which one ATen keeps is not modelled"
            raise ParityError(f"{where} of two NaNs with other payloads ({why}): refused")
        out[both] = bits[keep or 0].view(np.float32)
    return out


UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def arith_a64(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a op b`` as one aarch64 FADD, FSUB, FMUL or FDIV (``a`` its first operand) gives it: ``arith``'s
    rounding and default NaN, and where both are NaN FPProcessNaNs' pick (a signalling one first, quieted, then
    the first quiet one)."""
    out = arith(op, a, b, 0, aarch64=True)
    a, b = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
    both = np.isnan(a) & np.isnan(b)
    if both.any():
        out[both] = fmax_nan_a64(a.view(np.uint32)[both], b.view(np.uint32)[both]).view(np.float32)
    return out


def default_nans(out: np.ndarray, made: np.ndarray, aarch64: bool) -> np.ndarray:
    """``out`` with its NaNs where ``made`` (a NaN an operation made of no NaN: inf - inf, 0 * inf, inf / inf)
    the CPU's default NaN: x86's -qNaN, or with ``aarch64`` +qNaN (float32, or float64 where ``out`` is)."""
    if out.dtype == np.float64:
        return np.where(np.isnan(out) & made, np.uint64(_DEFAULT_NAN64[aarch64]).view(np.float64), out)
    return np.where(np.isnan(out) & made, np.uint32(_DEFAULT_NAN[aarch64]).view(np.float32), out)


def x86_nans(op: str, out: np.ndarray, aarch64: bool) -> np.ndarray:
    """``out``, refused where it holds a NaN under an arm64 profile (``aarch64``): the kernel's NaNs as computed
    here are this x86 host's (-qNaN of an invalid operation, the first NaN operand kept), not aarch64's (+qNaN,
    a signalling operand first)."""
    if aarch64 and bool(np.isnan(out).any()):
        raise ParityError(f"{op} with NaN results is measured on x86 only")
    return out


def summed_nans(op: str, out: np.ndarray, g: np.ndarray, linear: Callable[[np.ndarray], np.ndarray],
                aarch64: bool) -> np.ndarray:  # fmt: skip
    """``out`` of a kernel whose every element is a sum of elements of ``g`` (``linear``: the kernel itself, a map
    of float32 arrays of g's shape), its NaNs named under an arm64 profile (``aarch64``) where one NaN alone can
    come out, else refused: an element reached by one kind of NaN (the operands' NaNs of one pattern, quieted)
    and no opposite infinities is that NaN on every CPU, as computed here (FADD and ADDSS alike pass a lone NaN
    on quieted, a copy keeps a signalling one: unfold_backward's windows where step >= size, measured; NaNs of
    one pattern meet as themselves); one reached by +inf and -inf and no NaN operand is aarch64's
    default NaN, +qNaN (x86's -qNaN computed here). Two kinds of NaN meeting, or one meeting the NaN of inf -
    inf, keep the one each FADD's operand order gives (aarch64: a signalling one first): not modelled, refused.
    A finite operand past 2^100 (a sum that may overflow into an infinity) is not traced: its NaNs refused.
    On x86 ``out`` as it is."""
    bad = np.isnan(out)
    if not aarch64 or not bad.any():
        return out
    g = np.asarray(g, np.float32)
    quiet = g.view(np.uint32) | np.uint32(0x00400000)
    nan = np.isnan(g)
    kinds = np.unique(quiet[nan])
    if kinds.size > 8:
        raise ParityError(f"{op}: NaN results from {kinds.size} kinds of NaN operands are not traced (8 at most)")

    def reach(mask: np.ndarray) -> np.ndarray:
        return np.asarray(linear(mask.astype(np.float32)), np.float32) > 0

    count = np.zeros(out.shape, np.int64)
    for kind in kinds:
        count += reach(nan & (quiet == kind))
    invalid = reach(g == np.inf) & reach(g == -np.inf)
    big = reach(np.isfinite(g) & (np.abs(g) > np.float32(2.0**100)))
    lone = bad & ~big & (((count == 1) & ~invalid) | ((count == 0) & invalid))
    if not lone[bad].all():
        raise ParityError(f"{op}: {int((bad & ~lone).sum())} NaN result(s) where two NaNs may meet (FADD's operand "
                          "order, not modelled on aarch64)")  # fmt: skip
    out = out.copy()
    out.view(np.uint32)[bad & (count == 0)] = _DEFAULT_NAN[True]
    return out


def made_nans(op: str, out: np.ndarray, aarch64: bool, *operands: np.ndarray) -> np.ndarray:
    """``out`` of a kernel whose NaNs can only be ones its operations make of no NaN (inf - inf, 0 * inf): with
    no NaN among ``operands``, each NaN of ``out`` descends from default NaNs alone, x86's -qNaN as computed here,
    through the same operations on aarch64 from its +qNaN: where two such NaNs meet both CPUs pass the first
    operand's on (neither is signalling), so aarch64's bits are x86's with the sign bit flipped (a negation
    flips either alike). Under an arm64 profile (``aarch64``) that flip; a NaN operand (whose bits may meet a
    made NaN's), or a NaN result not of the two default patterns, refused. On x86 ``out`` as it is."""
    bad = np.isnan(out)
    if not aarch64 or not bad.any():
        return out
    if any(bool(np.isnan(np.asarray(x, np.float32)).any()) for x in operands):
        raise ParityError(f"{op} of NaN operands with NaN results: which NaN comes out is not modelled on aarch64")
    bits = np.ascontiguousarray(out, np.float32).view(np.uint32)
    if not np.isin(bits[bad], (_DEFAULT_NAN[False], _DEFAULT_NAN[True])).all():
        raise ParityError(f"{op}: NaN results other than the default NaN are not modelled on aarch64")
    flipped = bits.copy()
    flipped[bad] ^= np.uint32(0x80000000)
    return flipped.view(np.float32).reshape(np.shape(out))


def nan_kinds(*arrays: np.ndarray) -> set[int]:
    """The bit patterns of the NaNs ``arrays`` hold (quieted, as arithmetic passes them on)."""
    kinds: set[int] = set()
    for arr in arrays:
        flat = np.ascontiguousarray(arr, np.float32).reshape(-1)
        kinds.update(int(v) | 0x00400000 for v in np.unique(flat.view(np.uint32)[np.isnan(flat)]))
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


def refuse_nans_under_qemu_x86(op: str, profile: KernelProfile, arrays: list[np.ndarray]) -> None:
    """ParityError where ``profile`` is a run under qemu-x86_64 (its RSQRTPS estimate QEMU's) and a float
    operand holds a NaN. QEMU 7.2's SSE/AVX arithmetic keeps, where two NaNs meet, the one of the larger
    significand (x87's rule), where silicon keeps the first source operand's: ADDPS of 0xffc12345 and
    0xffc00000 gives 0xffc00000 on a Zen 5 and 0xffc12345 under QEMU's Haswell-v4; a NaN and ATen's all-ones
    NaN mask (vec::maximum, SLEEF) meeting give all ones there (VMAXPS and the FMAs alike on both). The
    impl models the silicon's rule, so an emulated trace's NaNs are not the bits an Intel CPU gives."""
    from harness.impl.profiles import RSQRT_QEMU

    if profile.rsqrt_estimate != RSQRT_QEMU or profile.aarch64:
        return
    if any(a.dtype.kind == "f" and bool(np.isnan(a).any()) for a in arrays):
        raise ParityError(
            f"{op} of NaN operands under qemu-x86_64: QEMU keeps the NaN of the larger significand where two "
            "meet (x87's rule), silicon the first operand's; not modelled"
        )


def fmax_nan_a64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """FMAX(a, b)'s NaN (FPProcessNaNs: a signalling operand first, quieted, then the first quiet one) of NaN bit
    patterns, 0 standing for a number: 0 where neither is NaN."""
    q = np.uint32(0x00400000)
    sig_a, sig_b = (a != 0) & ((a & q) == 0), (b != 0) & ((b & q) == 0)
    return np.where(sig_a, a | q, np.where(sig_b, b | q, np.where(a != 0, a, b)))
