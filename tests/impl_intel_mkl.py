"""Shared by the tests of MKL's sgemm models (test_impl_mkl_avx2*, test_impl_mkl_sse42,
test_impl_mkl_cbwr_alpha): a committed fixture's case replayed under the platform's own profile, or
under its ISA level's with MKL's generic path (to show that a check depends on the Intel path's
model); bits as uint32 and their short digest; operands drawn in their stored layout; a causal
sdpa's digests."""

from __future__ import annotations

import hashlib
from functools import cache

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.ops import OpFixture, read_op_fixture
from harness.impl.op_registry import run_case
from harness.impl.profiles import MODELLED_BLAS, get_profile, profile_for_platform
from harness.replay.check import check_profile, unmodelled_note
from harness.store.paths import DEFAULT_FIXTURES


@cache
def fixture(platform: str) -> OpFixture:
    return read_op_fixture(DEFAULT_FIXTURES / "torch-2.13.0" / f"{platform}.h5")


@cache
def run(platform: str, case: str, blas: str, level: str) -> dict[str, np.ndarray]:
    """The impl's outputs of ``case``: under the platform's profile when ``blas`` is its BLAS path, else
    under profile ``level`` (MKL's generic path) at the platform's thread count."""
    rec = fixture(platform).cases[case]
    profile = profile_for_platform(platform)
    if blas != profile.blas:
        profile = get_profile(level, profile.threads)
    return run_case(rec.op, rec.params, rec.inputs, profile)


def bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, np.float32).view(np.uint32)


def digest(x: np.ndarray, chars: int = 16) -> str:
    """The first ``chars`` hex digits of the SHA-256 of a float32 array's little-endian bits (the
    tests' recorded digests; 64: the whole)."""
    return hashlib.sha256(bits(x).astype("<u4").tobytes()).hexdigest()[:chars]


def stored_operands(
    rng: np.random.Generator, layout: str, items: int, m: int, n: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """A (M x K) and B (K x N), batches of ``items`` where it is not 0, each drawn from ``rng`` in its
    stored shape and viewed transposed where the layout ("nn", "ta", "tb", "tt") says."""
    ta, tb = layout in ("ta", "tt"), layout in ("tb", "tt")
    lead = (items,) if items else ()
    a = rng.standard_normal((*lead, *((k, m) if ta else (m, k)))).astype(np.float32)
    b = rng.standard_normal((*lead, *((n, k) if tb else (k, n)))).astype(np.float32)
    return (np.swapaxes(a, -1, -2) if ta else a), (np.swapaxes(b, -1, -2) if tb else b)


def causal_sdpa_digests(shape: tuple[int, int, int, int], seed: int, platform: str) -> tuple[str, ...]:
    """The digests of the impl's causal sdpa (B, H, L, D) out, grad_q, grad_k and grad_v under the
    profile of ``platform``, q, k, v and grad_out drawn from default_rng(seed) in that order."""
    rng = np.random.default_rng(seed)
    q, k, v, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(4))
    params = {"shape": list(shape), "dropout_p": 0.0, "is_causal": True}
    out = run_case("sdpa", params, {"q": q, "k": k, "v": v, "grad_out": g}, profile_for_platform(platform))
    return tuple(digest(out[n]) for n in ("out", "grad_q", "grad_k", "grad_v"))


def assert_model_reproduces(platform: str, case: str, output: str, blas: str, level: str) -> None:
    """The output's bits under the Intel path's model equal the fixture's, and MKL's generic path gives
    other bits (so the check depends on the model)."""
    expected = bits(fixture(platform).cases[case].outputs[output])
    got = bits(run(platform, case, blas, level)[output])
    assert got.shape == expected.shape
    assert np.array_equal(got, expected), f"{int((got != expected).sum())} of {got.size} elements differ"
    generic = bits(run(platform, case, MODELLED_BLAS, level)[output])
    assert not np.array_equal(generic, expected), "the generic path gives these bits too: not a check of the model"


def assert_own_profile(platform: str, blas: str, aten: str, generic: str, no_such: str) -> None:
    """``platform`` (one thread) has a profile of its own: ``blas`` at ATen level ``aten``, the one its
    fixtures are checked under, not modelled whole; ``generic`` (the same level's AMD id) keeps MKL's
    generic path; ``no_such`` (the path at another level) has no model and is refused."""
    profile = profile_for_platform(platform)
    assert profile.blas == blas and profile.aten == aten and profile.threads == 1
    assert check_profile(platform) == profile
    assert "not modelled whole" in unmodelled_note(platform)
    assert profile_for_platform(generic).blas == MODELLED_BLAS
    with pytest.raises(ParityError, match=blas):
        profile_for_platform(no_such)


def flash_digests(params: dict, seed: int, platform: str) -> tuple[str, ...]:
    """The digests of the impl's flash attention (aten._scaled_dot_product_flash_attention_for_cpu and its
    backward; ``params`` as the op's, no mask) out, lse, grad_q, grad_k and grad_v under the profile of
    ``platform``, q, k, v and grad_out drawn from default_rng(seed) in that order, (B, H, L, D) and
    (B, Hk, S, D)."""
    rng = np.random.default_rng(seed)
    b, h, hk, lq, s, d = (params[n] for n in ("b", "heads", "kv_heads", "l", "s", "d"))
    shapes = {"q": (b, h, lq, d), "k": (b, hk, s, d), "v": (b, hk, s, d), "grad_out": (b, h, lq, d)}
    arrays = {n: rng.standard_normal(shape).astype(np.float32) for n, shape in shapes.items()}
    out = run_case("flash_attention", {**params, "mask": "none"}, arrays, profile_for_platform(platform))
    return tuple(digest(out[n]) for n in ("out", "lse", "grad_q", "grad_k", "grad_v"))
