"""pow's scalar tail (``harness.impl.unary.pow_tail``: std::pow(float, double), glibc's double pow
rounded to float) without torch: powers worked out by hand (exact midpoints between two floats, the
special values, overflow and underflow), and, on x86_64 Linux with glibc's pow of 2.28 or later (the
algorithm glibc 2.36 ships), the host's own pow through ctypes, bit for bit wherever the impl answers."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.unary import pow_tail


def _bits(a: np.ndarray) -> list[int]:
    return np.asarray(a, np.float32).view(np.uint32).tolist()


@pytest.mark.parametrize(
    ("x", "y", "bits"),
    [
        (103041.0, 1.5, 0x4BFC59E0),  # 321**3 = 33076161, halfway: to even 33076160
        (707281.0, 1.25, 0x4B9C7CD6),  # 29**5 = 20511149, halfway: to even 20511148
        (2.0**-30, 5.0, 0x00000000),  # 2**-150, halfway between 0 and 2**-149: to even 0
        (-(2.0**-30), 5.0, 0x80000000),
        (3e38, 40.0, 0x7F800000),
        (-3e38, 41.0, 0xFF800000),
        (1e-45, 1.5, 0x00000000),
        (0.0, -1.5, 0x7F800000),
        (-0.0, -3.0, 0xFF800000),
        (-0.0, 4.0, 0x00000000),
        (-np.inf, 5.0, 0xFF800000),
        (-np.inf, -5.0, 0x80000000),
        (-np.inf, 0.3, 0x7F800000),
        (1.0, 1e9, 0x3F800000),
        (-1.0, 7.0, 0xBF800000),
        (-3.5, 0.3, 0xFFC00000),  # invalid: the x86 default NaN
        (-2.0, 3.0 + 2**-51, 0xFFC00000),
    ],
)
def test_pow_tail_by_hand(x: float, y: float, bits: int) -> None:
    values, proven = pow_tail(np.array([x], np.float32), y)
    assert proven.all() and _bits(values) == [bits], (x, y, hex(_bits(values)[0]))


def test_pow_tail_keeps_a_nan_payload() -> None:
    """Quieted; the sign cleared for an odd integer exponent only (glibc negates x*x of a negative x)."""
    x = np.array([0x7F800001, 0xFFA00001, 0xFFC12345], np.uint32).view(np.float32)
    assert _bits(pow_tail(x, 2.5)[0]) == [0x7FC00001, 0xFFE00001, 0xFFC12345]
    assert _bits(pow_tail(x, 3.0)[0]) == [0x7FC00001, 0x7FE00001, 0x7FC12345]
    assert _bits(pow_tail(x, 4.0)[0]) == [0x7FC00001, 0xFFE00001, 0xFFC12345]


def test_pow_tail_leaves_a_boundary_it_cannot_prove_unproven() -> None:
    """(2**-128)**(75/64) = 2**-150 exactly halfway, but past the exact powers the impl takes (a
    denominator of 64): not proven where the proof answers (aarch64's glibc build); on x86 glibc's own
    steps (csrc/dmath.h glibc_pow_d) give 2**-150, to float ties to even: 0."""
    x = np.array([2.0**-128, 3.0], np.float32)
    assert pow_tail(x, 75 / 64, aarch64=True)[1].tolist() == [False, True]
    values, proven = pow_tail(x, 75 / 64)
    assert proven.all() and _bits(values)[0] == 0


def _host_pow() -> ctypes.CDLL | None:
    name, version = platform.libc_ver()
    if platform.system() != "Linux" or platform.machine() != "x86_64" or name != "glibc":
        return None
    if tuple(int(v) for v in version.split(".")[:2]) < (2, 28):
        return None
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.pow.restype = ctypes.c_double
    libm.pow.argtypes = [ctypes.c_double, ctypes.c_double]
    return libm


@pytest.mark.parametrize("y", [-1.5, 0.3, 1 / 3, 2.5, -0.75, 4.0, 7.0, -4.0, 1e-3, 40.0, 0.5 + 2**-20, 75 / 64])
@pytest.mark.parametrize("aarch64", [False, True])
def test_pow_tail_matches_the_hosts_glibc(y: float, aarch64: bool) -> None:
    """x86's glibc steps everywhere, the proof (aarch64's answer) wherever it proves a float."""
    libm = _host_pow()
    if libm is None:
        pytest.skip("needs x86_64 Linux with glibc 2.28 or later (its pow)")
    rng = np.random.default_rng(int(y * 1000) & 0xFFFF)
    x = np.exp(rng.uniform(-40, 40, 3000)).astype(np.float32)
    x[rng.random(x.size) < 0.2] *= np.float32(-1)
    spots = rng.random(x.size) < 0.3
    x[spots] = rng.integers(0, 2**32, x.size, dtype=np.uint64).astype(np.uint32).view(np.float32)[spots]
    x[:64] = np.arange(1, 65, dtype=np.float32) ** 2  # whole squares: exact half-integer powers
    x[64] = 2.0**-128
    values, proven = pow_tail(x, y, aarch64)
    with np.errstate(all="ignore"):
        expected = np.array([libm.pow(v, y) for v in x.tolist()]).astype(np.float32)
    assert aarch64 or proven.all()
    nan = np.isnan(expected) & ~np.isnan(x)  # the invalid answer: aarch64's default NaN there
    keep = proven & ~(nan if aarch64 else False)
    assert _bits(values[keep]) == _bits(expected[keep])


# 51.42625**0.3: SLEEF's powf of 0.3f in the vector lanes, glibc's pow of 0.3 rounded to float in the tail
_LANE, _TAIL = 0x4050B4CD, 0x4050B4CC


def test_pow_scalar_forward_tail_is_glibcs() -> None:
    from harness.impl.profiles import get_profile
    from harness.impl.unary import pow_scalar_forward

    out = pow_scalar_forward(np.full(23, 51.42625, np.float32), 0.3, get_profile("x86-avx2", 1))
    assert _bits(out) == [_LANE] * 16 + [_TAIL] * 7


def test_avx512_takes_vectors_of_16() -> None:
    """pow_tensor_scalar_stub is also registered for AVX-512: its object's two-vector steps take 32 elements,
    so all 23 of these fall in the scalar tail (7 at avx2)."""
    from harness.impl.profiles import get_profile
    from harness.impl.unary import pow_scalar_forward

    out = pow_scalar_forward(np.full(23, 51.42625, np.float32), 0.3, get_profile("x86-avx512", 1))
    assert _bits(out) == [_TAIL] * 23


def test_pow_scalar_forward_refusal_on_arm64_is_one_line() -> None:
    from harness.impl.profiles import get_profile
    from harness.impl.unary import pow_scalar_forward

    x = np.full(23, 3.0, np.float32)
    x[20] = 2.0**-128
    with pytest.raises(ParityError, match=r"^pow with exponent 1.171875: 1 of the 7 elements in ATen's scalar tail"):
        pow_scalar_forward(x, 75 / 64, get_profile("arm64-neon", 1))
