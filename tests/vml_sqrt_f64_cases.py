"""The operands of tests/test_impl_vml_sqrt_f64.py, built without torch (the recorder hands torch the same
doubles): random bit patterns of every positive binade, magnitudes spread over e^-745 to e^709, subnormals,
doubles from 2^1022 up (MKL's rare path), whole numbers, negatives, infinities and NaN payloads of both signs."""

from __future__ import annotations

import numpy as np

SPECIALS = np.array(
    [
        *(0x7FF8000000000123, 0xFFF8000000000456, 0x7FF0000000000789, 0xFFF0000000000AB1, 0x7FF0000000000000),
        *(0xFFF0000000000000, 0x8000000000000000, 0, 1, 0x000FFFFFFFFFFFFF, 0x800FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF),
        *(0x7FD0000000000000, 0x7FCFFFFFFFFFFFFF, 0x0010000000000000, 0x3FF0000000000000, 0xBFF0000000000000),
    ],
    np.uint64,
).view(np.float64)


def operands(n: int = 12_000) -> np.ndarray:
    """``6 * n`` doubles and the specials, shuffled (exact constructions only: the same on every host)."""
    rng = np.random.default_rng(20261207)
    parts = [
        rng.integers(0x0010000000000000, 0x7FF0000000000000, 2 * n, dtype=np.uint64),  # every positive binade
        rng.integers(0x3FE0000000000000, 0x4010000000000000, n, dtype=np.uint64),  # [0.5, 4): both parities
        rng.integers(1, 1 << 52, n // 2, dtype=np.uint64),  # subnormals
        rng.integers(0x7FD0000000000000, 0x7FF0000000000000, n // 2, dtype=np.uint64),  # 2^1022 and up
        rng.integers(0, 1 << 64, n, dtype=np.uint64),  # any bits: negatives, NaNs
        rng.integers(1, 1 << 40, n, dtype=np.uint64).astype(np.float64).view(np.uint64),  # whole numbers
    ]
    x = np.concatenate([*parts, SPECIALS.view(np.uint64)])
    rng.shuffle(x)
    return x.view(np.float64)
