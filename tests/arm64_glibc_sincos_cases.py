"""Inputs of tests/test_glibc_sincos_a64.py (csrc/dmath.h's glibc_sincos_a64) and, run under emulation
(``python tools/emulate_arm64.py run --cores neoverse-n1 -- tests/arm64_glibc_sincos_cases.py``), aarch64
glibc's double ``sincos`` of them called through ctypes (the emulation root's libm.so.6, Debian 12's glibc 2.36):
one JSON line, set -> the SHA-256 of the (sin, cos) bit pairs in order. Imports only NumPy and the impl's
pocketfft (for the twiddles' angle).

Sets, every input below 2.426265 in magnitude (the port's domain):
  random   20,000 doubles uniform in (-2.426265, 2.426265) (53 random bits) and 20,000 of random sign, exponent
           -30 to 1 and mantissa (halved where past 2.426265)
  bounds   400 doubles either side (and on) each branch bound, 2^-27, 2^-26, 0.126, 0.855469 and 2.426265 (the
           last's upper side left out), and 40 either side of each table midpoint (k + 1/2)/128, k = 0..310
           (where 1.5*2^45 + |x| rounds to the next table entry), both signs
  twiddles every angle pocketfft's sincos_2pibyn(n) hands sincos for n = 1..1,024 (calc(i), i = 1..mask, and
           calc(j (mask + 1)), j = 1..n2 - 1: 8x reduced to the first octant against n, times the angle
           0.25 pi / n, harness/impl/pocketfft.py's ``angle``), then every multiple m * angle(n), m = 0..n, of
           n = 1..300 (the angles of any plan of those lengths)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import sys

import numpy as np

from harness.impl.pocketfft import angle

SETS = ("random", "bounds", "twiddles")
TOP = 0x400368FD << 32  # 2.426265's high word: the first double past the port's domain


def _bits(x: float) -> int:
    return int(np.array([x]).view(np.uint64)[0])


def _around(x: float, below: int, above: int) -> np.ndarray:
    """The doubles from ``below`` ulps under the positive x to ``above`` ulps over it, and their negatives."""
    u = np.arange(_bits(x) - below, _bits(x) + above + 1, dtype=np.uint64)
    v = u.view(np.float64)
    return np.concatenate([v, -v])


def inputs(name: str) -> np.ndarray:
    """The inputs of set ``name`` (float64, in order)."""
    if name == "random":
        r = np.random.default_rng(2026)
        uniform = (r.integers(0, 1 << 53, 20_000, dtype=np.int64) * 2.0**-53 * 2 - 1) * 2.426265
        mag = (1 + r.integers(0, 1 << 52, 20_000, dtype=np.int64) * 2.0**-52) * 2.0 ** r.integers(-30, 2, 20_000)
        mag = np.where(mag < 2.426265, mag, mag / 2) * np.where(r.random(20_000) < 0.5, -1.0, 1.0)
        return np.concatenate([uniform, mag])
    if name == "bounds":
        parts = [_around(b, 400, 400) for b in (2.0**-27, 2.0**-26, 0.126, 0.85546875)]
        parts.append(_around(np.array([TOP], np.uint64).view(np.float64)[0], 400, -1))
        parts += [_around((k + 0.5) / 128, 40, 40) for k in range(311)]
        return np.concatenate(parts)
    if name == "twiddles":
        return np.concatenate(
            [_twiddle_arguments(n) for n in range(1, 1025)] + [np.arange(n + 1) * angle(n) for n in range(1, 301)]
        )
    raise KeyError(name)


def _twiddle_arguments(n: int) -> np.ndarray:
    """The arguments sincos_2pibyn(n)'s calc passes to sincos, in its order (v1's, then v2's)."""
    nval, shift = (n + 2) // 2, 1
    while (1 << shift) * (1 << shift) < nval:
        shift += 1
    mask = (1 << shift) - 1
    n2 = (nval + mask) // (mask + 1)
    out = []
    for x in [*range(1, mask + 1), *(j * (mask + 1) for j in range(1, n2))]:
        x <<= 3
        if x >= 4 * n:
            x = 8 * n - x
        if x >= 2 * n:
            x -= 2 * n
        out.append(x if x < n else 2 * n - x)
    return np.array(out, dtype=np.float64) * angle(n)


def digest(s: np.ndarray, c: np.ndarray) -> str:
    """SHA-256 of the (sin, cos) bit pairs in order."""
    return hashlib.sha256(np.stack([s, c], axis=1).astype(np.float64).view(np.uint64).tobytes()).hexdigest()


def glibc_sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The C library's sincos of each x (under emulation: aarch64 glibc's)."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.sincos.restype = None
    libm.sincos.argtypes = (ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double))
    s, c = np.empty_like(x), np.empty_like(x)
    a, b = ctypes.c_double(), ctypes.c_double()
    for i, v in enumerate(x.tolist()):
        libm.sincos(v, ctypes.byref(a), ctypes.byref(b))
        s[i], c[i] = a.value, b.value
    return s, c


if __name__ == "__main__":
    print(json.dumps({name: digest(*glibc_sincos(inputs(name))) for name in SETS}))
    sys.exit(0)
