"""ULP distances and per-tensor comparison statistics, on bit patterns.

The distance between two floats of one format is the number of representable values between
them plus one: the bit patterns are mapped onto a line in sign-magnitude order (-0 and +0
both at 0, negative values below), and the distance is the gap on that line. Rules:
- bit-identical elements are 0 apart, and are the only ones counted identical;
- +0 vs -0 is 0 ULP apart but not bit-identical: counted as a signed-zero mismatch;
- NaN vs NaN is equal for ULP purposes; differing payloads are counted separately;
- NaN vs anything else, and inf vs anything but the same inf, are non-finite mismatches:
  counted, never folded into a ULP figure;
- subnormals need no special case: the ordering counts them like any other value.
Integer and boolean tensors are compared for equality only.

Near zero a ULP count says little: two values of order 1e-7 on either side of zero are about
2e9 float32 ULP apart, though both are tiny next to a tensor whose values reach 1. So each
comparison also gives the error at the tensor's own scale, ``scaled_ulp`` = max|a - b| /
ulp(max|expected|) (the largest difference in units of the spacing of floats at the
expected tensor's largest magnitude), and ``sign_flips``, the elements whose non-zero values
have opposite signs.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class FloatFormat:
    name: str
    bits: int
    mantissa_bits: int

    @property
    def uint(self) -> type[np.unsignedinteger]:
        return {16: np.uint16, 32: np.uint32, 64: np.uint64}[self.bits]

    @property
    def sign_mask(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def exponent_mask(self) -> int:
        return ((1 << (self.bits - 1)) - 1) & ~((1 << self.mantissa_bits) - 1)

    def ulp_at(self, magnitude_bits: int) -> float:
        """The spacing of floats at the finite value whose magnitude bits are given."""
        exponent_bits = self.bits - 1 - self.mantissa_bits
        bias = (1 << (exponent_bits - 1)) - 1
        biased = max(1, int(magnitude_bits) >> self.mantissa_bits)  # subnormals space like the smallest normals
        return math.ldexp(1.0, biased - bias - self.mantissa_bits)


FORMATS = {
    "float16": FloatFormat("float16", 16, 10),
    "bfloat16": FloatFormat("bfloat16", 16, 7),
    "float32": FloatFormat("float32", 32, 23),
    "float64": FloatFormat("float64", 64, 52),
}


def format_of(dtype: str | np.dtype) -> FloatFormat | None:
    return FORMATS.get(dtype if isinstance(dtype, str) else np.dtype(dtype).name)


def as_bits(array: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """The bit patterns of ``array`` (bfloat16 arrives as its uint16 patterns)."""
    array = np.asarray(array)
    if array.dtype.itemsize * 8 != fmt.bits:
        raise ValueError(f"{array.dtype} is not {fmt.name}")
    return np.ascontiguousarray(array).view(fmt.uint).reshape(array.shape)


def _magnitude_and_sign(bits: np.ndarray, fmt: FloatFormat) -> tuple[np.ndarray, np.ndarray]:
    b = bits.astype(np.uint64)
    sign = (b & np.uint64(fmt.sign_mask)) != 0
    return b & np.uint64(fmt.sign_mask - 1), sign


def _is_nan(bits: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    mag, _ = _magnitude_and_sign(bits, fmt)
    return mag > np.uint64(fmt.exponent_mask)


def _is_inf(bits: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    mag, _ = _magnitude_and_sign(bits, fmt)
    return mag == np.uint64(fmt.exponent_mask)


def ulp_distance_bits(a_bits: np.ndarray, b_bits: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Elementwise distance (uint64) on the sign-magnitude line; meaningless where non-finite."""
    ma, sa = _magnitude_and_sign(a_bits, fmt)
    mb, sb = _magnitude_and_sign(b_bits, fmt)
    same_side = sa == sb
    gap = np.where(ma > mb, ma - mb, mb - ma)
    return np.where(same_side, gap, ma + mb)  # across zero: both magnitudes (+0 and -0 meet)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ULP distance of two float arrays of one dtype (see the module rules for NaN and inf)."""
    fmt = format_of(np.asarray(a).dtype)
    if fmt is None or np.asarray(a).dtype != np.asarray(b).dtype:
        raise ValueError(f"ULP distance needs two float arrays of one dtype, not {a.dtype} and {b.dtype}")
    return ulp_distance_bits(as_bits(a, fmt), as_bits(b, fmt), fmt)


def bucket_index(ulp: int) -> int:
    """Histogram bucket: 0, 1, 2, 3-4, 5-8, 9-16, ... (bucket k >= 2 holds 2^(k-2)+1 .. 2^(k-1))."""
    return int(ulp) if ulp < 2 else 1 + (int(ulp) - 1).bit_length()


def bucket_label(index: int) -> str:
    if index < 3:
        return str(index)
    return f"{2 ** (index - 2) + 1}-{2 ** (index - 1)}"


@dataclass
class Mismatch:
    index: list[int]
    expected: str
    expected_hex: str
    actual: str
    actual_hex: str


@dataclass
class TensorComparison:
    """How one tensor of B differs from the same tensor of A (A is the expectation)."""

    name: str
    dtype: str
    shape: list[int]
    count: int
    identical: int
    signed_zero: int = 0
    nan_payload: int = 0
    non_finite: int = 0
    max_ulp: int = 0
    max_ulp_index: list[int] | None = None
    mean_ulp: float = 0.0
    histogram: dict[str, int] = field(default_factory=dict)
    first_mismatch: Mismatch | None = None
    max_abs_diff: float = 0.0
    max_rel_diff: float = 0.0
    scale: float = 0.0  # max |expected| over the finite elements
    scaled_ulp: float = 0.0  # max_abs_diff in units of the ULP at ``scale``
    sign_flips: int = 0  # elements whose non-zero expected and actual values have opposite signs
    # NaN on both sides and not compared (``apart``): one side's NaN there is qemu-x86_64's pick where two
    # NaNs meet, not a CPU's; of them, ``set_apart_differ`` hold other bits on the two sides
    set_apart: int = 0
    set_apart_differ: int = 0

    @property
    def bit_identical(self) -> bool:
        """Every compared element bit-identical (the ``set_apart`` ones are neither a match nor a mismatch)."""
        return self.identical + self.set_apart == self.count

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _index(flat: int, shape: tuple[int, ...]) -> list[int]:
    return [int(i) for i in np.unravel_index(flat, shape)] if shape else []


def _values(array: np.ndarray, bits: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """The values as float64 (bfloat16 arrives as uint16 patterns: the top half of a float32)."""
    if fmt.name == "bfloat16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return array.astype(np.float64)


def _show(value: Any, fmt: FloatFormat, bits: int) -> tuple[str, str]:
    """A float's decimal value and its bit pattern in hex."""
    value = _values(np.asarray(value).reshape(1), np.asarray([bits], fmt.uint), fmt)[0]
    return repr(float(value)), f"0x{int(bits):0{fmt.bits // 4}x}"


def compare_tensors(
    name: str, expected: np.ndarray, actual: np.ndarray, dtype: str | None = None, apart: np.ndarray | None = None
) -> TensorComparison:
    """Compare two tensors of one shape and dtype; ``dtype='bfloat16'`` for uint16-held bf16. ``apart``: a mask
    of elements (of a float dtype) left out of the comparison, counted as ``set_apart`` (neither identical nor
    differing; ``set_apart_differ`` of them hold other bits)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        raise ValueError(
            f"{name}: cannot compare {expected.dtype}{list(expected.shape)} with {actual.dtype}{list(actual.shape)}"
        )
    dtype = dtype or expected.dtype.name
    fmt = FORMATS.get(dtype)
    shape = tuple(expected.shape)
    if fmt is None:
        ea = np.ascontiguousarray(expected).reshape(-1).view(np.uint8).reshape(expected.size, -1)
        aa = np.ascontiguousarray(actual).reshape(-1).view(np.uint8).reshape(actual.size, -1)
        differ = (ea != aa).any(axis=1) if expected.size else np.zeros(0, bool)
        out = TensorComparison(name, dtype, list(shape), expected.size, int(expected.size - differ.sum()))
        if differ.any():
            i = int(np.flatnonzero(differ)[0])
            e, a = expected.reshape(-1)[i], actual.reshape(-1)[i]
            out.first_mismatch = Mismatch(_index(i, shape), str(e), hex(int(e)), str(a), hex(int(a)))
        return out

    a_bits = as_bits(expected, fmt).reshape(-1)
    b_bits = as_bits(actual, fmt).reshape(-1)
    apart_flat = np.zeros(a_bits.shape, bool) if apart is None else np.broadcast_to(apart, shape).reshape(-1)
    apart_differ = int((apart_flat & (a_bits != b_bits)).sum())
    b_bits = np.where(apart_flat, a_bits, b_bits)  # the elements set apart count as no difference below
    same = a_bits == b_bits
    nan_a, nan_b = _is_nan(a_bits, fmt), _is_nan(b_bits, fmt)
    inf_a, inf_b = _is_inf(a_bits, fmt), _is_inf(b_bits, fmt)
    both_nan = nan_a & nan_b
    non_finite = ~same & ~both_nan & (nan_a | nan_b | inf_a | inf_b)
    finite = ~(nan_a | nan_b | inf_a | inf_b)
    dist = ulp_distance_bits(a_bits, b_bits, fmt)
    dist = np.where(finite, dist, np.uint64(0))
    ma, sign_a = _magnitude_and_sign(a_bits, fmt)
    mb, sign_b = _magnitude_and_sign(b_bits, fmt)
    signed_zero = ~same & (ma == 0) & (mb == 0)
    sign_flips = finite & (sign_a != sign_b) & (ma != 0) & (mb != 0)

    out = TensorComparison(
        name, dtype, list(shape), int(a_bits.size), int(same.sum()),
        signed_zero=int(signed_zero.sum()), nan_payload=int((both_nan & ~same).sum()),
        non_finite=int(non_finite.sum()), sign_flips=int(sign_flips.sum()),
        set_apart=int(apart_flat.sum()), set_apart_differ=apart_differ,
    )  # fmt: skip
    out.identical -= out.set_apart
    if finite.any():
        d = dist[finite]
        worst = int(np.argmax(np.where(finite, dist, np.uint64(0))))
        out.max_ulp = int(dist[worst])
        out.max_ulp_index = _index(worst, shape) if out.max_ulp else None
        out.mean_ulp = float(d.astype(np.float64).mean())
        hist: dict[str, int] = {}
        values, freq = np.unique(d, return_counts=True)
        for value, n in zip(values, freq, strict=True):
            label = bucket_label(bucket_index(int(value)))
            hist[label] = hist.get(label, 0) + int(n)
        out.histogram = hist
        ef = _values(expected.reshape(-1)[finite], a_bits[finite], fmt)
        af = _values(actual.reshape(-1)[finite], b_bits[finite], fmt)
        diff = np.abs(ef - af)
        out.max_abs_diff = float(diff.max())
        larger = np.maximum(np.abs(ef), np.abs(af))
        rel = np.divide(diff, larger, out=np.zeros_like(diff), where=larger > 0)
        out.max_rel_diff = float(rel.max())
        top = int(ma[finite].max())
        out.scale = float(np.abs(ef).max())
        out.scaled_ulp = out.max_abs_diff / fmt.ulp_at(top)
    if not same.all():
        i = int(np.flatnonzero(~same)[0])
        e_val, e_hex = _show(expected.reshape(-1)[i], fmt, a_bits[i])
        a_val, a_hex = _show(actual.reshape(-1)[i], fmt, b_bits[i])
        out.first_mismatch = Mismatch(_index(i, shape), e_val, e_hex, a_val, a_hex)
    return out


def describe(c: TensorComparison) -> str:
    """One line, like a good assertion message."""
    if c.bit_identical and c.set_apart:
        apart = set_apart_text(c.set_apart, c.set_apart_differ)
        return f"{c.name}: {c.identical} of {c.count} elements bit-identical; {apart}"
    if c.bit_identical:
        return f"{c.name}: {c.count} elements bit-identical"
    parts = [f"{c.name}: {c.count - c.identical - c.set_apart} of {c.count} elements differ"]
    if c.max_ulp:
        parts.append(f"max {c.max_ulp} ULP at {c.max_ulp_index}, mean {c.mean_ulp:.3g} ULP")
        parts.append(f"{scaled(c.scaled_ulp)} ULP at the tensor's scale (max |expected| {c.scale:.3g})")
    if c.sign_flips:
        parts.append(f"{c.sign_flips} sign flips")
    if c.signed_zero:
        parts.append(f"{c.signed_zero} signed zeros")
    if c.nan_payload:
        parts.append(f"{c.nan_payload} NaN payloads")
    if c.non_finite:
        parts.append(f"{c.non_finite} non-finite mismatches")
    m = c.first_mismatch
    if m:
        parts.append(f"first at {m.index}: expected {m.expected} ({m.expected_hex}), got {m.actual} ({m.actual_hex})")
    if c.set_apart:
        parts.append(set_apart_text(c.set_apart, c.set_apart_differ))
    return "; ".join(parts)


def set_apart_text(count: int, differ: int) -> str:
    """What a report says of ``count`` elements set apart as NaNs recorded under qemu-x86_64."""
    return (
        f"{count} NaN element{'' if count == 1 else 's'} set apart, {differ} with other bits (not compared: recorded "
        "under qemu-x86_64, whose NaN where two meet is QEMU's pick, not an Intel CPU's)"
    )


def scaled(value: float) -> str:
    """A scaled-ULP figure for a report: 3 significant digits."""
    return f"{value:.3g}"
