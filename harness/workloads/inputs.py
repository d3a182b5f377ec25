"""Op inputs drawn from NumPy's PCG64 with fixed seeds, never from torch's RNG.

torch.randn itself gives different bits under different ISA levels, so inputs made with
it would differ between the configurations being compared. Every array made here is also
stored in the fixture, so a consumer replays the stored bits, not this code.

The same (kind, shape, seed) always gives the same array; ops that share an input shape
and seed share the stored tensor too (the store keeps one copy of equal contents).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

Shape = tuple[int, ...]
_SALT: ContextVar[int] = ContextVar("input_salt", default=0)


@contextmanager
def salted(salt: int) -> Iterator[None]:
    """Inside, every maker draws another stream for the same (kind, shape, seed): random cases
    (``harness.workloads.random_cases``) use it; salt 0 is the fixed cases' stream."""
    token = _SALT.set(salt)
    try:
        yield
    finally:
        _SALT.reset(token)


def _rng(seed: int) -> np.random.Generator:
    salt = _SALT.get()
    return np.random.Generator(np.random.PCG64([seed, salt] if salt else seed))


def normal(shape: Shape, seed: int, scale: float = 1.0) -> np.ndarray:
    """float32 N(0, scale^2)."""
    x = np.asarray(_rng(seed).standard_normal(shape, dtype=np.float32))
    return np.asarray(x * np.float32(scale), dtype=np.float32)


def positive(shape: Shape, seed: int, low: float = 0.05, high: float = 20.0) -> np.ndarray:
    """float32 log-uniform on [low, high): inputs for log and rsqrt."""
    u = _rng(seed).uniform(np.log(low), np.log(high), shape)
    return np.exp(u).astype(np.float32)


def away_from_zero(shape: Shape, seed: int) -> np.ndarray:
    """float32 with magnitude in [0.5, 2) and random sign: divisors."""
    rng = _rng(seed)
    mag = rng.uniform(0.5, 2.0, shape)
    sign = np.where(rng.integers(0, 2, shape) == 1, 1.0, -1.0)
    return (mag * sign).astype(np.float32)


def integers(shape: Shape, seed: int, high: int, low: int = 0) -> np.ndarray:
    """int64 uniform on [low, high)."""
    return _rng(seed).integers(low, high, shape, dtype=np.int64)


def targets(shape: Shape, seed: int, classes: int, ignore_every: int = 0) -> np.ndarray:
    """int64 class indices; every ``ignore_every``-th is -1 (ignore_index) when non-zero."""
    t = integers(shape, seed, classes)
    if ignore_every:
        t.reshape(-1)[::ignore_every] = -1
    return t
