"""glibc's double pow as x86-64's libm computes it (csrc/dmath.h glibc_pow_d: glibc 2.28 and later, the FMA
build its ifunc picks on a CPU with FMA and AVX2) and as aarch64's does (glibc_pow_dd): random pairs against
digests of the host libm's pow (glibc 2.36, recorded through ctypes on a Zen 5) and of the emulated arm64
site's, the tables against a host libm's words where one is here, and ATen's uses of it replayed against torch
2.13.0's digests (recorded on a Zen 5 at each level named): float64 ``pow.Scalar``, ``pow.Tensor_Scalar`` and
``pow.Tensor_Tensor`` (each run's scalar tail, a strided operand's basic loop, every element of the default
build) and float32 ``pow.Tensor_Scalar``'s scalar tail (``std::pow(float, double)`` rounded to float). No torch here."""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from harness.impl.unary import glibc_pow
from harness.trace.impl_ops import replay

ROOT = Path(__file__).resolve().parents[1]

# NaNs of both signs (quiet and signalling), infinities, -0, 0, +-1, subnormals, 2, 0.5
SPECIAL = np.array(
    [
        *(0x7FF8000000000123, 0xFFF8000000000456, 0x7FF0000000000789, 0xFFF0000000000AB1, 0x7FF0000000000000),
        *(0xFFF0000000000000, 0x8000000000000000, 0, 0x3FF0000000000000, 0xBFF0000000000000, 0x800FFFFFFFFFFFFF),
        *(0x0000000000000001, 0x4000000000000000, 0x3FE0000000000000),
    ],
    np.uint64,
).view(np.float64)


def pairs(n: int = 200_000, seed: int = 2026) -> tuple[np.ndarray, np.ndarray]:
    """Random (x, y) in families: any bits; |x| spread over e^-10..e^10 (either sign), near 1 and subnormal;
    y in [-200, 200], whole and half numbers, [-4000, 4000] (overflow, underflow, the subnormal results),
    |y| < 1e-17, any bits; specials everywhere at 5%."""
    rng = np.random.default_rng(seed)
    fx, fy = rng.integers(0, 4, n), rng.integers(0, 5, n)
    bits = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * 2 + rng.integers(0, 2, n).astype(np.uint64)
    x = np.select(
        [fx == 0, fx == 1, fx == 2],
        [
            bits.view(np.float64),
            np.exp(rng.uniform(-10, 10, n)) * rng.choice([-1.0, 1.0], n),
            1 + rng.uniform(-1e-6, 1e-6, n),
        ],
        (bits & np.uint64(0x800FFFFFFFFFFFFF)).view(np.float64),
    )
    ybits = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64)
    y = np.select(
        [fy == 0, fy == 1, fy == 2, fy == 3],
        [
            rng.uniform(-200, 200, n),
            rng.integers(-2000, 2000, n) / 2.0,
            rng.uniform(-4000, 4000, n),
            rng.uniform(-1e-17, 1e-17, n),
        ],
        ybits.view(np.float64),
    )
    for v in (x, y):
        at = rng.random(n) < 0.05
        v[at] = SPECIAL[rng.integers(0, SPECIAL.size, at.sum())]
    return x, y


# SHA-256 of the host libm's pow over pairs() (glibc 2.36, x86_64, __pow_fma), and over pairs(200_000, 7)
LIBM_DIGESTS = {
    2026: "4803f94b9617a1504a6aeae23515a4c8fc132599fc4a52c99691c00581f6115c",
    7: "ae84cbea096208a684c61163d0a2681302d1fb23e39f41ca6e9e4c9243e5bd54",
}


# the same of aarch64 glibc's pow (2.36, the emulated arm64 site's libm.so.6 under qemu-aarch64, through numpy's
# power, which calls it: ctypes' pow agreed on the first 20,000 pairs of each)
AARCH64_LIBM_DIGESTS = {
    2026: "ce19d3843fbf0366397470a228225d9626c448f8451d86df5be01ee2ceb23483",
    7: "0174e88d66c232f10ace3bfc2f4260c73139c67c2fa16a4f8747d65a9b41155c",
}


@pytest.mark.parametrize("seed", sorted(LIBM_DIGESTS))
def test_glibc_pow_matches_libms_digest(seed: int) -> None:
    assert hashlib.sha256(glibc_pow(*pairs(seed=seed)).tobytes()).hexdigest() == LIBM_DIGESTS[seed]


@pytest.mark.parametrize("seed", sorted(AARCH64_LIBM_DIGESTS))
def test_aarch64_glibc_pow_matches_libms_digest(seed: int) -> None:
    out = glibc_pow(*pairs(seed=seed), aarch64=True)
    assert hashlib.sha256(out.tobytes()).hexdigest() == AARCH64_LIBM_DIGESTS[seed]


def _host_fma_libm() -> ctypes.CDLL | None:
    """The host's libm where it is glibc's on an x86-64 CPU with FMA and AVX2 (its pow then __pow_fma)."""
    if platform.machine() != "x86_64" or not sys.platform.startswith("linux"):
        return None
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace").split()
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        glibc = ctypes.CDLL(None).gnu_get_libc_version
    except (OSError, AttributeError):
        return None
    glibc.restype = ctypes.c_char_p
    major, minor = (int(v) for v in glibc().decode().split(".")[:2])
    return libm if "fma" in flags and "avx2" in flags and (major, minor) >= (2, 28) else None


def test_glibc_pow_matches_the_host_libm() -> None:
    libm = _host_fma_libm()
    if libm is None:
        pytest.skip("no glibc >= 2.28 libm on an x86-64 CPU with FMA and AVX2 here")
    libm.pow.restype, libm.pow.argtypes = ctypes.c_double, (ctypes.c_double, ctypes.c_double)
    x, y = pairs(20_000, seed=11)
    want = np.array([libm.pow(a, b) for a, b in zip(x.tolist(), y.tolist(), strict=True)])
    assert np.array_equal(glibc_pow(x, y).view(np.uint64), want.view(np.uint64))


def test_glibc_pow_tables_are_the_host_libms() -> None:
    """csrc/glibc_pow_table.h holds the words tools/gen_glibc_pow_table.py reads from a glibc libm.so.6."""
    libm = Path("/lib/x86_64-linux-gnu/libm.so.6")
    if not libm.exists():
        pytest.skip("no x86_64 libm.so.6 here")
    tool = ROOT / "tools" / "gen_glibc_pow_table.py"
    rc = subprocess.run([sys.executable, str(tool), "--check", "--libm", str(libm)], check=False).returncode
    if rc == 2:
        pytest.skip("this libm.so.6 holds no glibc 2.28+ pow tables")
    assert rc == 0


def f64_case(kind: str) -> tuple[str, dict[str, np.ndarray], list[dict]]:
    """A replayed op, its inputs and its arguments: ``scalar`` pow.Scalar of 10000 to 1,003 exponents (a tail of
    3 at avx2 and 11 at avx512); ``strided`` pow.Scalar of 2.5 to every second of 2,002 (the basic loop: all
    glibc's); ``tensor`` pow.Tensor_Tensor of 4,099 random bases and exponents; ``tscalar`` pow.Tensor_Scalar
    of a transposed 37 x 29 base to 1.7; ``f32tail`` float32 pow.Tensor_Scalar of 1,003 to 0.3 (its tails in
    std::pow(float, double)). Specials throughout."""
    rng = np.random.default_rng(5)
    e = np.concatenate([rng.uniform(-30, 30, 1003 - SPECIAL.size), SPECIAL])
    if kind == "scalar":
        args = [
            {"name": "self", "value": 10000.0},
            {"name": "exponent", "tensor": "exponent", "stride": [1], "shape": [1003]},
        ]
        return "aten.pow.Scalar", {"exponent": e}, args
    if kind == "strided":
        args = [
            {"name": "self", "value": 2.5},
            {"name": "exponent", "tensor": "exponent", "stride": [2], "shape": [1003]},
        ]
        return "aten.pow.Scalar", {"exponent": e}, args
    if kind == "tensor":
        b = np.concatenate(
            [
                np.exp(rng.uniform(-20, 20, 4099 - 2 * SPECIAL.size)) * rng.choice([-1, 1], 4099 - 2 * SPECIAL.size),
                SPECIAL,
                SPECIAL,
            ]
        )
        y = np.concatenate([rng.integers(-40, 40, 2000) / 2.0, rng.uniform(-9, 9, 4099 - 2000)])
        y[::41] = np.resize(SPECIAL, y[::41].size)
        spec = {"stride": [1], "shape": [4099]}
        args = [{"name": "self", "tensor": "self", **spec}, {"name": "exponent", "tensor": "exponent", **spec}]
        return "aten.pow.Tensor_Tensor", {"self": b, "exponent": y}, args
    if kind == "tscalar":
        b = np.abs(rng.normal(0, 3, (37, 29)))
        b.flat[::17] = np.resize(SPECIAL, b.flat[::17].size)
        args = [
            {"name": "self", "tensor": "self", "stride": [1, 37], "shape": [37, 29]},
            {"name": "exponent", "value": 1.7},
        ]
        return "aten.pow.Tensor_Scalar", {"self": b}, args
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.concatenate([rng.uniform(0, 5, 1003 - SPECIAL.size), SPECIAL]).astype(np.float32)
    args = [{"name": "self", "tensor": "self", "stride": [1], "shape": [1003]}, {"name": "exponent", "value": 0.3}]
    return "aten.pow.Tensor_Scalar", {"self": x}, args


# (case, platform, torch's output digest)
TORCH = (
    ("scalar", "linux-x86_64-avx2-t1", "6a3a06d6ece8aa1ab028f267b28bc3aa5e1b3ab5598b807038352ab9f514dba8"),
    ("scalar", "linux-x86_64-avx512-t4", "11b2d54b74a2cb16240200d0b6f2a3520fbd3b5f82599a52069b8e35adc00550"),
    ("scalar", "linux-x86_64-baseline-t1", "9f2da1d6c770c0bbc10cd211a71c91a554a98d6332a6bc971e8dfc3b68a6e60e"),
    ("strided", "linux-x86_64-avx2-t2", "9cbef6b3a64a288dd3750cf020211be181cd3d36ab83568cb3801c6dd551e7af"),
    ("tensor", "linux-x86_64-avx2-t1", "8b1c5784a63effbe9c503728ecabd2aea318a406f937a365403a4ff2d7757cc2"),
    ("tensor", "linux-x86_64-baseline-t4", "4cc6ed497081ff3aaa0682b9ad5dad55b35eb4694bf400b8488f7d903b6be347"),
    ("tscalar", "linux-x86_64-avx512-t1", "cf8d89f78ed787a3493f62a61b09ada775f03cca9874dcfc9cd57e4c51ad4264"),
    ("f32tail", "linux-x86_64-avx2-t1", "ed8029d8c31027e8b95148033e46e24505d4677d51e8725aca832aab337081f4"),
    ("f32tail", "linux-x86_64-avx512-t2", "ed8029d8c31027e8b95148033e46e24505d4677d51e8725aca832aab337081f4"),
)


@pytest.mark.parametrize("i", range(len(TORCH)))
def test_aten_pow_in_glibc_matches_torch(i: int) -> None:
    kind, plat, digest = TORCH[i]
    op, inputs, args = f64_case(kind)
    out = replay(op, inputs, args, profile_for_platform(plat))["out"]
    assert hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest() == digest


def test_integer_pow_tensor_tensor_is_powi() -> None:
    """BLT's int64 ``pow.Tensor_Tensor``: ATen's ``native::powi`` (square-and-multiply, wrapping; a negative exponent
    1, +-1 or 0 by the base), not glibc's pow."""
    b = np.array([3, 2, -2, 5, -1, -1, 1, 0, 7, 3, -1], np.int64)
    e = np.array([4, 63, 3, -1, -3, -4, -5, 0, 0, 41, np.iinfo(np.int64).min], np.int64)
    spec = {"stride": [1], "shape": [b.size]}
    args = [{"name": "self", "tensor": "self", **spec}, {"name": "exponent", "tensor": "exponent", **spec}]
    out = replay(
        "aten.pow.Tensor_Tensor", {"self": b, "exponent": e}, args, profile_for_platform("linux-x86_64-avx2-t1")
    )["out"]
    wrapped = np.int64(3**41 % 2**64 - 2**64)  # 3**41 wraps past 2**63
    assert out.tolist() == [81, np.iinfo(np.int64).min, -8, 0, -1, 1, 1, 1, 1, int(wrapped), 1]


def test_a_cpu_without_fma_refuses_glibcs_double_pow_and_proves_the_float_tail() -> None:
    """MKL's SSE4.2 path runs on CPUs without AVX2 (the emulated Nehalem), where libm's ifunc takes __pow_sse2,
    not the FMA build glibc_pow_d ports (633 of 2,000,000 random pairs give other bits): float64 pow's glibc
    elements are refused there in one line, and float32 pow's scalar tail falls back to the proof, whose
    floats are those of any glibc pow within 1 ULP."""
    from dataclasses import replace

    from harness.impl.profiles import MKL_SSE42, PROFILES
    from harness.impl.unary import pow_f64_forward, pow_scalar_forward

    fma = PROFILES["x86-baseline"]
    sse2 = replace(fma, blas=MKL_SSE42)
    assert fma.libm_fma and not sse2.libm_fma and not PROFILES["arm64-neon"].libm_fma
    base, exponent = np.full(13, 10000.0), np.linspace(0.0, 1.0, 13)
    assert np.isfinite(pow_f64_forward(base, exponent, fma)[0]).all()
    with pytest.raises(ParityError, match="without FMA"):
        pow_f64_forward(base, exponent, sse2)
    x = np.linspace(0.5, 3.0, 11, dtype=np.float32)  # 11 elements: 3 in the avx2 build's scalar tail
    avx2 = PROFILES["x86-avx2"]
    proven = pow_scalar_forward(x, 1.3, replace(avx2, blas=MKL_SSE42))
    assert np.array_equal(proven.view(np.uint32), pow_scalar_forward(x, 1.3, avx2).view(np.uint32))


def test_the_table_tool_answers_a_table_cut_short_in_one_line(tmp_path: Path) -> None:
    """A library whose pow tables are cut short by its end: one line and exit 2 (not a traceback read as
    'differs')."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_glibc_pow_table as tool
    finally:
        sys.path.remove(str(ROOT / "tools"))
    libm = tmp_path / "libm.so.6"
    libm.write_bytes(bytes(64) + tool.LOG_KEY + bytes(8) + bytes(64) + tool.EXP_KEY)
    command = [sys.executable, str(ROOT / "tools" / "gen_glibc_pow_table.py"), "--check", "--libm", str(libm)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    assert run.returncode == 2 and len(run.stdout.splitlines()) == 1 and not run.stderr
