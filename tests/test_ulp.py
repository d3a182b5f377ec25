"""The ULP engine: distances on the sign-magnitude line, edge cases, statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.ulp import bucket_index, bucket_label, compare_tensors, describe, ulp_distance

F32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
F64 = st.floats(allow_nan=False, allow_infinity=False)


def f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def bits32(*patterns: int) -> np.ndarray:
    return np.array(patterns, dtype=np.uint32).view(np.float32)


@given(F32, F32)
def test_distance_is_symmetric(a, b):
    assert ulp_distance(f32(a), f32(b)) == ulp_distance(f32(b), f32(a))


@given(F32, F32)
def test_zero_exactly_when_bits_equal_up_to_signed_zero(a, b):
    x, y = f32(a), f32(b)
    same_bits = x.view(np.uint32)[0] == y.view(np.uint32)[0]
    both_zero = a == 0 and b == 0
    assert (ulp_distance(x, y)[0] == 0) == (same_bits or both_zero)


@given(F32)
def test_adjacent_floats_are_one_apart(a):
    x = f32(a)
    with np.errstate(over="ignore"):  # the largest float steps to inf
        up = np.nextafter(x, np.float32(np.inf))
    if np.isfinite(up[0]):
        assert ulp_distance(x, up)[0] == 1


def _numpy_nulp(x: np.ndarray, y: np.ndarray) -> float:
    from numpy.testing._private.utils import nulp_diff

    return float(np.asarray(nulp_diff(x, y)).reshape(-1)[0])


@settings(max_examples=300)
@given(F32, F32)
def test_agrees_with_numpy_nulp_diff_float32(a, b):
    x, y = f32(a), f32(b)
    ours = int(ulp_distance(x, y)[0])
    if ours < 2**31:  # numpy subtracts int32 patterns: beyond this it wraps around
        assert _numpy_nulp(x, y) == float(np.float32(ours))  # numpy returns the count as float32


@settings(max_examples=300)
@given(F64, F64)
def test_agrees_with_numpy_nulp_diff_float64(a, b):
    x, y = np.array([a]), np.array([b])
    ours = int(ulp_distance(x, y)[0])
    if ours < 2**63:
        assert _numpy_nulp(x, y) == float(ours)


def test_crossing_zero_counts_both_sides():
    smallest = bits32(0x00000001)[0]
    assert ulp_distance(f32(smallest), f32(-smallest))[0] == 2
    assert ulp_distance(f32(0.0), f32(-0.0))[0] == 0


def test_subnormals_are_ordinary():
    assert ulp_distance(bits32(0x00000001), bits32(0x00800000))[0] == 0x7FFFFF
    assert ulp_distance(bits32(0x007FFFFF), bits32(0x00800000))[0] == 1


def test_float16_and_bfloat16():
    h = np.array([1.0], np.float16)
    assert ulp_distance(h, np.nextafter(h, np.float16(2)))[0] == 1
    bf_one, bf_next = np.array([0x3F80], np.uint16), np.array([0x3F81], np.uint16)
    c = compare_tensors("bf", bf_one, bf_next, dtype="bfloat16")
    assert c.max_ulp == 1 and c.first_mismatch.expected == "1.0"
    assert c.first_mismatch.actual == repr(float(np.float32(1.0078125)))


def test_edge_cases_are_counted_apart():
    nan_a, nan_b = 0x7FC00000, 0x7FC00001  # two quiet NaNs with different payloads
    one, two, inf, ninf, three = 0x3F800000, 0x40000000, 0x7F800000, 0xFF800000, 0x40400000
    expected = bits32(one, 0x00000000, nan_a, nan_a, one, inf, inf, two)
    actual = bits32(one, 0x80000000, nan_a, nan_b, nan_a, three, ninf, two)
    c = compare_tensors("t", expected, actual)
    assert c.count == 8
    assert c.identical == 3  # 1.0, the same NaN, 2.0
    assert c.signed_zero == 1  # +0 vs -0: 0 ULP, not identical
    assert c.nan_payload == 1  # NaN vs NaN of another payload
    assert c.non_finite == 3  # 1.0 vs NaN, inf vs 3.0, inf vs -inf: never a ULP figure
    assert c.max_ulp == 0
    assert c.first_mismatch.index == [1]
    assert "1 signed zeros; 1 NaN payloads; 3 non-finite mismatches" in describe(c)


def test_statistics_and_first_mismatch():
    expected = np.arange(1, 11, dtype=np.float32)
    actual = expected.copy()
    u = actual.view(np.uint32)
    u[3] += 1
    u[7] += 5
    u[9] -= 300
    c = compare_tensors("y", expected.reshape(2, 5), actual.reshape(2, 5))
    assert (c.count, c.identical) == (10, 7)
    assert c.max_ulp == 300 and c.max_ulp_index == [1, 4]
    assert c.mean_ulp == pytest.approx(306 / 10)
    assert c.histogram == {"0": 7, "1": 1, "5-8": 1, "257-512": 1}
    assert c.first_mismatch.index == [0, 3]
    assert c.first_mismatch.expected == "4.0" and c.first_mismatch.expected_hex == "0x40800000"
    assert c.first_mismatch.actual_hex == "0x40800001"
    assert c.max_abs_diff == pytest.approx(abs(float(expected[9]) - float(actual[9])))
    assert "3 of 10 elements differ; max 300 ULP at [1, 4]" in describe(c)


def test_bucket_labels():
    assert [bucket_label(bucket_index(u)) for u in (0, 1, 2, 3, 4, 5, 8, 9, 16, 17)] == [
        "0", "1", "2", "3-4", "3-4", "5-8", "5-8", "9-16", "9-16", "17-32",
    ]  # fmt: skip


def test_integers_compare_by_equality():
    c = compare_tensors("idx", np.array([1, 2, 3]), np.array([1, 5, 3]))
    assert (c.count, c.identical, c.max_ulp) == (3, 2, 0)
    assert c.first_mismatch.index == [1] and c.first_mismatch.actual == "5"


def test_shape_or_dtype_mismatch_is_refused():
    with pytest.raises(ValueError, match="cannot compare float32\\[3\\] with float32\\[4\\]"):
        compare_tensors("x", np.zeros(3, np.float32), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="cannot compare float32\\[3\\] with float64\\[3\\]"):
        compare_tensors("x", np.zeros(3, np.float32), np.zeros(3, np.float64))


def test_error_at_the_tensors_scale_and_sign_flips():
    expected = f32(1.0, 0.5, 1e-7, -1e-7, 0.0, 3e-8)
    actual = f32(1.0, 0.5, -1e-7, 1e-7, -0.0, 3e-8)
    c = compare_tensors("g", expected, actual)
    assert c.max_ulp > 1_000_000_000  # two values of order 1e-7 on either side of zero
    assert c.sign_flips == 2  # +0 vs -0 is a signed zero, not a flip
    assert c.scale == 1.0
    assert c.scaled_ulp == pytest.approx(2 * float(np.float32(1e-7)) / 2**-23)
    assert f"{c.scaled_ulp:.3g} ULP at the tensor's scale (max |expected| 1); 2 sign flips" in describe(c)


def test_scale_follows_the_largest_expected_magnitude():
    expected = f32(-3.0, 1.0)  # max|expected| 3.0: ULP 2^-22
    actual = expected.copy()
    actual.view(np.uint32)[1] += 4  # 4 ULP at 1.0 (2^-23 each) are 2 ULP at 3.0
    c = compare_tensors("x", expected, actual)
    assert (c.max_ulp, c.scaled_ulp, c.sign_flips) == (4, 2.0, 0)
    zeros = compare_tensors("z", f32(0.0, 0.0), bits32(0, 3))  # all-zero expectation: the smallest subnormal
    assert zeros.scaled_ulp == 3.0


def test_bfloat16_differences_have_values():
    c = compare_tensors("bf", np.array([0x3F80, 0x4000], np.uint16), np.array([0x3F81, 0x4000], np.uint16),
                        dtype="bfloat16")  # fmt: skip
    assert c.max_abs_diff == 2**-7 and c.scale == 2.0 and c.scaled_ulp == 0.5  # bf16 ULP at 2.0 is 2^-6
