"""Inputs of MKL VML's vmdSin/vmdCos (torch.sin/cos of float64 on x86) for tests/test_impl_vml_sincos_f64.py, which
holds the digests of torch's outputs over them; imports only NumPy (torch where it records): ``python
tests/vml_sincos_f64_cases.py`` prints them for the MKL code path it runs on (the generic path on any AMD CPU).

``cases()``: float64 bit patterns, made from integers and exact products only (the same doubles on every machine):
- 40,000 seeded random bit patterns of every finite |x| up to 65536.0035 (MKL_VML_SINCOS_D_MAX), both signs;
- 40,000 seeded random doubles of [-64, 64] (a 53-bit integer over 2^53, scaled), where 0.015% to 0.024% of the
  results are one ULP off the correctly rounded ones: the kernel's own steps decide them;
- the doubles next to k*pi/256 and (k + 1/2)*pi/256 (the table's nodes and the index's rounding boundary), k up
  to 2^21 and its negatives; integers and halves up to 65536; the position embeddings' angles of RT-DETR v2 and
  D-FINE (x / 10000^(2j/d) with 2pi-scaled grid coordinates, as exact products of their doubles);
- signed zeros, subnormals, the smallest normal, 65536.0035's neighbours on both sides;
- past 65536.0035 (the kernel's Payne-Hanek branch): 20,000 seeded random bit patterns of every finite |x| there,
  both signs, each binade's first and last double up to the largest, and the doubles next to k*pi/2 for k to 2^40.
``SPECIAL``: infinities and NaNs, with torch's bits.
"""

from __future__ import annotations

import hashlib

import numpy as np

MAX_BITS = 0x40F000000E4DB24C  # 65536.0035: past it (finite) the kernel's Payne-Hanek branch
LARGEST = 0x7FEFFFFFFFFFFFFF

# infinities and NaN payloads of both signs, quiet and signalling: (input bits, sin bits, cos bits) as torch gives
SPECIAL = (
    (0x7FF0000000000000, 0xFFF8000000000000, 0xFFF8000000000000),
    (0xFFF0000000000000, 0xFFF8000000000000, 0xFFF8000000000000),
    (0x7FF8000000000000, 0x7FF8000000000000, 0x7FF8000000000000),
    (0xFFF8000000000000, 0xFFF8000000000000, 0xFFF8000000000000),
    (0x7FF0000000000001, 0x7FF8000000000001, 0x7FF8000000000001),
    (0xFFF0000000ABCDEF, 0xFFF8000000ABCDEF, 0xFFF8000000ABCDEF),
    (0x7FF4000000000000, 0x7FFC000000000000, 0x7FFC000000000000),
    (0x7FF8000000000123, 0x7FF8000000000123, 0x7FF8000000000123),
    (0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF),
)


def cases() -> np.ndarray:
    """The float64 inputs (both ops take the same)."""
    rng = np.random.default_rng(20261207)
    u = rng.integers(0, MAX_BITS, 40_000, dtype=np.uint64, endpoint=True)
    u |= rng.integers(0, 2, u.size, dtype=np.uint64) << np.uint64(63)
    uniform = rng.integers(-(2**53), 2**53, 40_000).astype(np.float64) * (64.0 / 2**53)
    k = np.concatenate([np.arange(-1024, 1025), rng.integers(-(2**21), 2**21, 6_000)]).astype(np.float64)
    nodes = np.concatenate([k * (np.pi / 256), (k + 0.5) * (np.pi / 256)])
    nodes = np.concatenate([nodes, np.nextafter(nodes, np.inf), np.nextafter(nodes, -np.inf)])
    halves = rng.integers(-131072, 131073, 4_000) / 2.0
    grid = (np.arange(1, 65, dtype=np.float64) / 64.0) * (2 * np.pi)
    scale = np.array([10000.0 ** (j / 64) for j in range(0, 64, 2)])  # Python's pow: the exact doubles fixed below
    embed = (grid[:, None] / np.round(scale, 9)[None, :]).ravel()
    tiny = np.array(
        [0, 1, 2, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x3E40000000000000, 0x3E4FFFFFFFFFFFFF, 0x3F1FFFFFFFFFFFFF],
        np.uint64,
    )
    tiny = np.concatenate([tiny, tiny | np.uint64(1 << 63), np.arange(MAX_BITS - 64, MAX_BITS + 65, dtype=np.uint64)])
    big = rng.integers(MAX_BITS + 1, LARGEST, 20_000, dtype=np.uint64, endpoint=True)
    big |= rng.integers(0, 2, big.size, dtype=np.uint64) << np.uint64(63)
    first = np.arange(1040, 2047, dtype=np.uint64) << np.uint64(52)
    ends = np.concatenate([first, first - np.uint64(1), [LARGEST]]).astype(np.uint64)
    ends = np.concatenate([ends, ends | np.uint64(1 << 63)])
    turns = rng.integers(2**16, 2**40, 1_000).astype(np.float64) * (np.pi / 2)
    turns = np.concatenate([turns, np.nextafter(turns, np.inf), np.nextafter(turns, -np.inf)])
    large = np.concatenate([big.view(np.float64), ends.view(np.float64), turns])
    return np.concatenate([u.view(np.float64), uniform, nodes, halves, embed, tiny.view(np.float64), large])


def special_inputs() -> np.ndarray:
    return np.array([s[0] for s in SPECIAL], np.uint64).view(np.float64)


def digest(out: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(out, np.float64).tobytes()).hexdigest()


if __name__ == "__main__":
    import torch

    torch.set_num_threads(1)
    x = torch.from_numpy(cases())
    for name, fn in (("sin", torch.sin), ("cos", torch.cos)):
        print(name, digest(fn(x).numpy()))
        got = fn(torch.from_numpy(special_inputs())).numpy().view(np.uint64)
        want = [s[1 if name == "sin" else 2] for s in SPECIAL]
        print(name, "special", "equal" if list(map(int, got)) == want else [hex(v) for v in got])
