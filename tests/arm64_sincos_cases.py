"""Seeded random cases of sin and cos for tests/test_impl_arm64_sincos.py; imports only NumPy and the impl (torch
where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_sincos_cases.py
[OUT.npz]`` records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits
over that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs.

Operands of 1 to 100 elements (off the 4- and 8-lane vectors), of 2,047 to 70,000 (either side of the vml kernels'
2,048-element grain, whose thread chunks start off the vectors, and of 32,768) and strided ones (every other
element, a transposed matrix, which ATen walks in memory order); values of |x| < 125 of three scales and bit
patterns uniform below 125 (SLEEF's Cody-Waite branch), and, from case 24 on, values that send vectors to its
Payne-Hanek branch: rotary-embedding angles (positions below 8,192 times 10000^-u), bit patterns uniform over the
finite floats, magnitudes log-uniform over 2^-10 to 2^40, small values with one in sixteen large; +-0, subnormals,
+-124.99 and the multiples of pi/2 nearest floats at the front; every fourth case also carries NaNs (quiet and
signalling, both signs, payloads), infinities or |x| >= 125.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import unary
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import place_specials, record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import place_specials, record_digests

OPS = ("sin", "cos")
COUNT = 36
THREADS = (1, 2, 4)
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 64, 65, 100)
LARGE = (2047, 2049, 4100, 32767, 32769, 70000)
EDGES = np.array([0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x42F9FFFF, 0xC2F9FFFF,
                  0x3FC90FDB, 0xBFC90FDB, 0x40490FDB, 0xC0490FDB, 0x4096CBE4, 0x40C90FDB, 0x42F7EEAE],
                 np.uint32).view(np.float32)  # fmt: skip
OUTSIDE = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001, 0x7F800000, 0xFF800000,
                    0x42FA0000, 0xC2FA0000, 0x4479C000, 0x7F7FFFFF], np.uint32).view(np.float32)  # fmt: skip


def _values(r: np.random.Generator, n: int, k: int) -> np.ndarray:
    if k >= 24:  # SLEEF's Payne-Hanek branch
        kind = k % 4
        if kind == 0:  # rotary embeddings' angles: position * 10000^-u
            return (r.integers(0, 8192, n) * 10000.0 ** -r.uniform(0, 1, n)).astype(np.float32)
        if kind == 1:  # bit patterns uniform over the finite floats, both signs
            bits = r.integers(0, 0x7F800000, n, dtype=np.uint32) | (r.integers(0, 2, n, dtype=np.uint32) << 31)
            return bits.view(np.float32)
        if kind == 2:  # magnitudes log-uniform over [2^-10, 2^40], both signs
            return (np.exp2(r.uniform(-10, 40, n)) * r.choice([-1.0, 1.0], n)).astype(np.float32)
        x = np.clip(r.standard_normal(n) * 30.0, -124.99, 124.99)  # small, one in sixteen large
        big = r.integers(0, 16, n) == 0
        x[big] = np.exp2(r.uniform(7, 24, int(big.sum()))) * r.choice([-1.0, 1.0], int(big.sum()))
        return x.astype(np.float32)
    if k % 3 == 0:  # bit patterns uniform below 125, both signs
        bits = r.integers(0, 0x42FA0000, n, dtype=np.uint32) | (r.integers(0, 2, n, dtype=np.uint32) << 31)
        return bits.view(np.float32)
    scale = (1.0, 10.0, 124.9)[k % 3] if k % 2 else 3.0
    return np.clip(r.standard_normal(n) * scale, -124.99, 124.99).astype(np.float32)


def cases(op: str) -> Iterator[dict[str, Any]]:
    """The op's cases in order: the operand and its layout (0 contiguous, 1 every other element of twice as
    many, 2 a transposed (m, n // m) matrix)."""
    r = np.random.default_rng({"sin": 11, "cos": 12}[op])
    for k in range(COUNT):
        n = int(r.choice(LARGE)) if k % 4 == 1 else int(r.choice(SIZES))
        layout = k % 5 if k % 5 < 3 else 0
        x = _values(r, 2 * n if layout == 1 else n, k)
        place_specials(x, EDGES, r, max(1, x.size // 50))
        if k % 4 == 3:
            place_specials(x[x.size // 2 :], OUTSIDE, r, 1)
        yield {"x": x, "layout": layout}


def _view(case: dict[str, Any], x: Any) -> Any:
    """The case's operand as the op reads it (NumPy or torch alike)."""
    if case["layout"] == 1:
        return x[::2]
    if case["layout"] == 2 and x.shape[0] % 4 == 0:
        return x.reshape(4, -1).T
    return x


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's output in logical order: a transposed operand (layout 2) goes in memory order, as ATen's
    loop walks it and lays out the output (SLEEF's branch is taken per vector)."""
    x = case["x"]
    if case["layout"] == 2 and x.shape[0] % 4 == 0:
        return np.ascontiguousarray(unary.forward(op, x, profile).reshape(4, -1).T)
    return unary.forward(op, np.ascontiguousarray(_view(case, x)), profile)


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    return getattr(torch, op)(_view(case, torch.from_numpy(case["x"].copy())))


CASES = {op: (lambda op=op: cases(op)) for op in OPS}

if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
