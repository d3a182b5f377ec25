"""harness.impl.linalg.solve_triangular against torch's recorded bits (torch 2.13.0, MKL 2024.2's strsm on
its generic path, recorded on an AMD EPYC Zen 5; no ATen level or thread count reaches a bit): the unit lower
solve of a C-contiguous A (Qwen3-Next's chunked delta rule: 64 rows, 8 columns) and autograd's upper solve on
its transpose, over blocks of 4 rows.

Each case's inputs come from ``trsm_inputs``: A's strict lower triangle standard normal times 0.5 with ones on
the diagonal (its upper triangle random too: strsm must not read it), B standard normal, a -0, a subnormal and
an infinity planted in B. The digests are SHA-256 of torch's output as uint32 (C order). No host is needed.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256


def trsm_inputs(batch: tuple[int, ...], n: int, k: int, upper: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The op's A (..., n, n): lower, or for ``upper`` its transpose, and B (..., n, k), float32."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((*batch, n, n)) * 0.5).astype(np.float32)
    a[..., np.arange(n), np.arange(n)] = 1.0
    b = rng.standard_normal((*batch, n, k)).astype(np.float32)
    b[..., 0, 0] = -0.0
    b[..., 1, -1] = np.float32(1e-41)
    if n > 8:
        b.reshape(-1, n, k)[-1, n // 2, 1] = np.inf
    return (np.swapaxes(a, -1, -2) if upper else a), b


def _strides(shape: tuple[int, ...], upper: bool) -> list[int]:
    """torch's strides of the op's A: C-contiguous, or for ``upper`` the transpose of a C-contiguous tensor."""
    n = shape[-1]
    batch = [int(np.prod(shape[d + 1 : -2], dtype=np.int64)) * n * n for d in range(len(shape) - 2)]
    return batch + ([1, n] if upper else [n, 1])


# (threads, batch, n, k, upper, seed, digest)
# fmt: off
CASES = (
    # Qwen3-Next's chunks (batch, heads, chunks, 64, 64) and its backward's solve on their transpose
    (1, (1, 2, 2), 64, 8, False, 0,
     "32cd2abb836155059f9529ebc3c8edcdee43e828818863266155cb5d44956c0e"),
    (2, (1, 2, 2), 64, 8, True, 0,
     "5aafbffd1102bce0efaa9d5f301712509c6beb1e203447ab626b6516c457e6de"),
    (4, (3,), 16, 5, False, 1,
     "77902a5ebe95ddb2ca6f532b706e23f90f2b2764709db48e14ef21b32733328b"),
    (1, (3,), 16, 5, True, 1,
     "ad2d680e60251575dbb9126de282cf452b894acf1dd480f9692b53c136b2bf3c"),
    (2, (), 4, 2, False, 2,
     "4da35be392b3339f3907af81d3ef41970d136c60958fca8f7d0573cc01e4813f"),
    (1, (2,), 36, 33, True, 3,
     "12bd06aaed30a26de757f71d3244fa9398b5a95c79e9be4b225514e0fed21ce1"),
    (1, (2,), 60, 3, False, 4,
     "c4b935ece392805240eb851d14a2f3ec22bdf60e1e3a2faea0318d1f7b16c5c5"),
)
# fmt: on


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"t{c[0]}-{c[2]}x{c[3]}-{'upper' if c[4] else 'lower'}")
def test_solve_triangular_replays_recorded_bits(case: tuple) -> None:
    threads, batch, n, k, upper, seed, digest = case
    a, b = trsm_inputs(batch, n, k, upper, seed)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    assert bits_sha256(linalg.solve_triangular(a, b, upper, True, _strides(a.shape, upper), 0, profile)) == digest


def test_solve_triangular_refuses_what_was_not_measured() -> None:
    """n off a multiple of 4 or past 64, one column, a non-unit diagonal, another layout or alignment, NaNs."""
    profile = profile_for_capability("AVX2", 1, "x86_64")
    a, b = trsm_inputs((), 8, 3, False, 5)
    c_order = _strides(a.shape, False)
    for args in (
        trsm_inputs((), 6, 3, False, 5),
        trsm_inputs((), 68, 3, False, 5),
        trsm_inputs((), 8, 1, False, 5),
    ):
        with pytest.raises(ParityError, match="measured for unit triangles"):
            linalg.solve_triangular(*args, False, True, _strides(args[0].shape, False), 0, profile)
    with pytest.raises(ParityError, match="measured for unit triangles"):
        linalg.solve_triangular(a, b, False, False, c_order, 0, profile)
    with pytest.raises(ParityError, match="C-contiguous operands aligned"):
        linalg.solve_triangular(a, b, False, True, [1, 8], 0, profile)
    with pytest.raises(ParityError, match="C-contiguous operands aligned"):
        linalg.solve_triangular(a, b, False, True, c_order, 4, profile)
    b[3, 1] = np.nan
    with pytest.raises(ParityError, match="NaN operands"):
        linalg.solve_triangular(a, b, False, True, c_order, 0, profile)
