"""The impl's own double exp/log/log1p/sin/cos (csrc/dmath.h) against the host's glibc.

torch calls glibc's double functions at four places the impl reproduces: normal_distribution<double>
(log1p, sin, cos; randn below 16 elements), flash attention's scalar-tail exp, and MKL VML's scalar
fallbacks (exp beyond |x| > 87.3365, log of subnormals). The impl evaluates them in double-double
and rounds once. These tests check the constants, the error before rounding, that the results are
correctly rounded wherever they differ from glibc, and that every call site's float32 result equals
glibc's bit for bit (uint32 equality) over the inputs that reach it: exhaustively where the input is
a float in a bounded range, on a seeded sweep of torch's 53-bit uniforms for the normal sampler.
The double-level difference counts are printed (pytest -s) for the record.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from decimal import Decimal, getcontext
from fractions import Fraction
from math import factorial
from pathlib import Path

import numpy as np
import pytest

from harness.impl._lib import load, ptr

EXP, LOG, LOG1P, SIN, COS = range(5)
NAMES = {EXP: "exp", LOG: "log", LOG1P: "log1p", SIN: "sin", COS: "cos"}


def _lib() -> ctypes.CDLL:
    lib = load("dmath")
    d, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
    lib.dmath_own.argtypes = lib.dmath_host.argtypes = [i32, d, d, i64]
    lib.dmath_own_dd.argtypes = [i32, d, d, d, i64]
    lib.dmath_sweep_f32.argtypes = [i32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, d]
    lib.dmath_sweep_f32.restype = i64
    lib.dmath_sweep_normal.argtypes = [d, d, i64, d, d, i64, d]
    lib.dmath_table.argtypes = [i32, d, d]
    lib.dmath_table.restype = i32
    return lib


def _own(fn: int, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    _lib().dmath_own(fn, ptr(x), ptr(out), x.size)
    return out


def _host(fn: int, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    _lib().dmath_host(fn, ptr(x), ptr(out), x.size)
    return out


def _sweep_f32(fn: int, first: int, last: int, stride: int = 1) -> tuple[int, int, int]:
    """(inputs, double-level differences, float32 differences) over float bit patterns."""
    counts = np.zeros(2, dtype=np.int64)
    n = _lib().dmath_sweep_f32(fn, first, last, stride, ptr(counts))
    return int(n), int(counts[0]), int(counts[1])


def _f32_bits(x: float) -> int:
    return int(np.array(x, dtype=np.float32).view(np.uint32))


# ----------------------------------------------------------------------------- the constants


def _pi() -> Fraction:
    """pi from Machin's formula, 16 atan(1/5) - 4 atan(1/239), to about 10^-190."""

    def atan_inv(n: int) -> Fraction:
        s, p = Fraction(0), Fraction(1, n)
        for i in range(140):
            s += (-1) ** i * p / (2 * i + 1)
            p /= n * n
        return s

    return 16 * atan_inv(5) - 4 * atan_inv(239)


def _dd(v: Fraction) -> tuple[float, float]:
    hi = float(v)  # Fraction -> float rounds to nearest
    return hi, float(v - Fraction(hi))


def _round_bits(v: Fraction, bits: int) -> float:
    e = int(np.floor(np.log2(abs(float(v)))))
    scale = Fraction(2) ** (bits - 1 - e)
    return float(Fraction(round(v * scale)) / scale)


def _expected_tables() -> dict[int, list[tuple[float, float]]]:
    getcontext().prec = 90
    ln2 = Fraction(Decimal(2).ln())
    pi = _pi()
    l64 = ln2 / 64
    l1 = _round_bits(l64, 36)
    l2 = float(l64 - Fraction(l1))
    n1 = _round_bits(ln2, 42)
    n2 = float(ln2 - Fraction(n1))
    parts, rest = [], pi / 2
    for _ in range(4):
        parts.append(float(rest))
        rest -= Fraction(parts[-1])
    scalars = [float(64 / ln2), l1, l2, float(l64 - Fraction(l1) - Fraction(l2))]
    scalars += [n1, n2, float(ln2 - Fraction(n1) - Fraction(n2)), float(2 / pi), *parts]
    return {
        0: [_dd(Fraction(Decimal(2) ** (Decimal(j) / 64))) for j in range(64)],
        1: [_dd(Fraction(1, factorial(n))) for n in range(2, 13)],
        2: [_dd(Fraction((Decimal(64 + j) / 64).ln())) if j else (0.0, 0.0) for j in range(-16, 33)],
        3: [_dd(Fraction(1, 2 * i + 1)) for i in range(1, 9)],
        4: [_dd(Fraction((-1) ** i, factorial(2 * i + 1))) for i in range(1, 15)],
        5: [_dd(Fraction((-1) ** i, factorial(2 * i))) for i in range(1, 16)],
        6: [(s, 0.0) for s in scalars],
    }


def test_constants_are_the_recomputed_values() -> None:
    """Every table and constant of dmath.h equals its value recomputed here (bits)."""
    hi, lo = np.zeros(64), np.zeros(64)
    for t, want in _expected_tables().items():
        n = _lib().dmath_table(t, ptr(hi), ptr(lo))
        got = list(zip(hi[:n].tolist(), lo[:n].tolist(), strict=True))
        assert [(a.hex(), b.hex()) for a, b in got] == [(a.hex(), b.hex()) for a, b in want], t


def test_no_double_is_near_a_multiple_of_pi_over_2() -> None:
    """dm_reduce_pio2's premise: for |x| <= 64 (k <= 41), every double is more than 2^-61 away from
    k*pi/2, k != 0 (the doubles on both sides of each k*pi/2 measured exactly; the closest is near
    29 pi/2, 2^-60.5; in normal_'s [0, 2 pi), near pi/2, 2^-53.9)."""
    half_pi = _pi() / 2
    closest = min(
        abs(Fraction(d) - k * half_pi)
        for k in range(1, 42)
        for d in (float(k * half_pi), np.nextafter(float(k * half_pi), 0.0), np.nextafter(float(k * half_pi), 99.0))
    )
    assert closest > Fraction(1, 2**61)


# ----------------------------------------------------------------------------- accuracy


def _samples(fn: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(23 + fn)
    if fn == EXP:
        return rng.uniform(-600.0, 600.0, n)
    if fn == LOG:
        return np.exp(rng.uniform(-700.0, 700.0, n))
    if fn == LOG1P:
        return -(rng.integers(1, 2**53, n) * 2.0**-53)
    return rng.uniform(0.0, 2 * np.pi, n)


@pytest.mark.parametrize("fn", list(NAMES), ids=list(NAMES.values()))
def test_double_double_error_is_below_2_to_minus_100(fn: int) -> None:
    """hi + lo before rounding is within 2^-100 relative of the exact value (mpmath, 200 bits),
    and the rounded result equals the correctly rounded one."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 200
    ref = {EXP: mpmath.exp, LOG: mpmath.log, LOG1P: mpmath.log1p, SIN: mpmath.sin, COS: mpmath.cos}[fn]
    x = _samples(fn, 3000)
    hi, lo = np.empty_like(x), np.empty_like(x)
    _lib().dmath_own_dd(fn, ptr(x), ptr(hi), ptr(lo), x.size)
    rounded = _own(fn, x)
    worst = mpmath.mpf(0)
    for xi, h, low, r in zip(x.tolist(), hi.tolist(), lo.tolist(), rounded.tolist(), strict=True):
        exact = ref(mpmath.mpf(xi))
        worst = max(worst, abs((mpmath.mpf(h) + mpmath.mpf(low) - exact) / exact))
        assert r == float(exact), (NAMES[fn], xi)
    assert worst < mpmath.mpf(2) ** -100


def _assert_correctly_rounded(fn: int, x: np.ndarray, limit: int = 400) -> None:
    """Where the impl and glibc differ, the impl's is the correctly rounded one (first `limit`)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 200
    ref = {EXP: mpmath.exp, LOG: mpmath.log, LOG1P: mpmath.log1p, SIN: mpmath.sin, COS: mpmath.cos}[fn]
    for xi, r in zip(x[:limit].tolist(), _own(fn, x[:limit]).tolist(), strict=True):
        assert r == float(ref(mpmath.mpf(xi))), (NAMES[fn], xi)


# ----------------------------------------------------------------------------- the call sites


def _report(site: str, n: int, doubles: int, floats: int) -> None:
    print(f"{site}: {n} inputs, {doubles} double-level differences from glibc, {floats} float32 differences")


def test_attention_tail_exp_equals_glibc_as_float32() -> None:
    """attention.c's (float)exp((double)(x - max)), x - max a float <= 0: every float of [-104, 0]
    in a stride of 97 (11.6M; all 1.1G are beyond a unit test; below -103.98 both give 0), plus
    -0, -inf and NaN; float32 bits identical."""
    n, doubles, floats = _sweep_f32(EXP, 0x80000000, _f32_bits(-104.0), 97)
    _report("attention exp tail [-104, 0] / 97", n, doubles, floats)
    assert floats == 0
    for special in (-0.0, -np.inf, np.nan):
        x = np.array([special])
        assert _own(EXP, x).view(np.uint64)[0] == _host(EXP, x).view(np.uint64)[0]


def test_vml_exp_fallback_equals_glibc_as_float32() -> None:
    """vmath.h's mkl_vml_expf fallback, (float)exp((double)x) for |x| > 87.3365: every float of
    (87.3365, 89] and [-104, -87.3365) (beyond, both round to inf or 0: checked on a stride up to
    +-746), float32 bits identical."""
    total = [0, 0, 0]
    for first, last, stride in (
        (0x42AEAC50, _f32_bits(89.0), 1),
        (0xC2AEAC50, _f32_bits(-104.0), 1),
        (_f32_bits(89.0), _f32_bits(746.0), 97),
        (_f32_bits(-104.0), _f32_bits(-746.0), 97),
    ):
        for i, v in enumerate(_sweep_f32(EXP, first, last, stride)):
            total[i] += v
    _report("VML exp fallback", *total)
    assert total[2] == 0


def test_vml_log_subnormal_fallback_equals_glibc_as_float32() -> None:
    """vmath.h's mkl_vml_logf fallback, (float)log((double)x), on every positive subnormal float."""
    n, doubles, floats = _sweep_f32(LOG, 1, 0x007FFFFF)
    _report("VML log subnormals", n, doubles, floats)
    assert n == 0x007FFFFF
    assert floats == 0


def _uniform53(rng: np.random.Generator, n: int) -> np.ndarray:
    """torch's uniform_real_distribution<double>(0, 1): a 53-bit integer times 2^-53."""
    return rng.integers(0, 2**53, n, dtype=np.int64) * 2.0**-53


def test_normal_double_equals_glibc_as_float32() -> None:
    """rng.c's normal_double: r = sqrt(-2 log1p(-u2)), r*cos(2 pi u1), r*sin(2 pi u1), then
    *std + mean unfused and fused, cast to float, for (mean, std) in (0, 1), (0, 0.02), (1, 0.5):
    2M seeded pairs of torch's uniforms plus u2 near 0 and near 1 and u1 near the quarter turns;
    every float32 output identical; the double-level differences are glibc's misroundings."""
    rng = np.random.default_rng(2024)
    n = 2_000_000
    u1, u2 = _uniform53(rng, n), _uniform53(rng, n)
    k = rng.integers(1, 2**24, 100_000, dtype=np.int64)
    u2 = np.concatenate([u2, k * 2.0**-53, 1.0 - k * 2.0**-53, _uniform53(rng, 400_000)])
    quarters = np.repeat(np.array([0.25, 0.5, 0.75]) * 2**53, 400_000 // 3 + 1)[:400_000].astype(np.int64)
    near = quarters + rng.integers(-(2**20), 2**20, quarters.size, dtype=np.int64)
    u1 = np.concatenate([u1, _uniform53(rng, 200_000), near * 2.0**-53])
    assert u1.size == u2.size
    mean, std = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.02, 0.5])
    counts = np.zeros(4, dtype=np.int64)
    _lib().dmath_sweep_normal(ptr(u1), ptr(u2), u1.size, ptr(mean), ptr(std), mean.size, ptr(counts))
    for name, c in zip(("log1p(-u)", "sin(2 pi u)", "cos(2 pi u)"), counts[:3].tolist(), strict=True):
        print(f"normal_double {name}: {u1.size} inputs, {c} double-level differences from glibc")
    print(f"normal_double float32 outputs: {u1.size * 4 * mean.size}, {counts[3]} differences")
    assert counts[3] == 0
    for fn, x in ((LOG1P, -u2), (SIN, 2 * np.pi * u1), (COS, 2 * np.pi * u1)):
        diff = x[_own(fn, x).view(np.uint64) != _host(fn, x).view(np.uint64)]
        _assert_correctly_rounded(fn, diff)


def test_kernel_libraries_call_no_host_transcendental() -> None:
    """No kernel library (all but dmath's test library) imports exp/log/log1p/sin/cos/sincos or a
    float transcendental from the C library (sqrt and rounding are exact everywhere)."""
    if not sys.platform.startswith("linux") or shutil.which("nm") is None:
        pytest.skip("needs ELF libraries and nm")
    banned = {"exp", "log", "log1p", "sin", "cos", "sincos", "expf", "logf", "sinf", "cosf", "sincosf"}
    banned |= {"tanh", "tanhf", "erf", "erff", "expm1", "expm1f", "pow", "powf", "log1pf"}
    package = Path(__file__).resolve().parents[1] / "harness"
    libs = [p for p in package.glob("*/_*.so") if not p.name.startswith("_dmath")]
    assert libs
    for path in libs:
        out = subprocess.run(["nm", "-D", "--undefined-only", str(path)], capture_output=True, text=True, check=True)
        names = {line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.strip()}
        assert not names & banned, (path.name, sorted(names & banned))
