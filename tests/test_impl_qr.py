"""harness.impl.qr against torch.linalg.qr's recorded bits (torch 2.13.0 on an AMD EPYC Zen 3: MKL's
generic path). One case per sgeqrf path MKL takes by shape (its small routine below 21 rows, sgeqr2,
sgeqrf_pfnr) and the 2-thread row split of sgeqrf_pfnr, which alone changes the bits with the thread
count (the 96x32 case: RWKV's output projection under ``orthogonal_``). Digests: SHA-256 of Q and R as
uint32. The refusals: what MKL runs otherwise, which the impl does not model."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import qr as qr_module
from harness.impl.profiles import MKL_AVX2, profile_for_capability
from tests.bit_digest import bits_sha256

# (name, M, N, seed, scale, threads, Q digest, R digest)
CASES = (
    ("small", 17, 9, 21, 1.0, 1, "d99b829ce49c1836b3fba8bb6a88d3364bcd275f475f9276b05453201efcaabd",
     "9af1841053fd6ab6532bb4240a02251f7d16dfc555637f26677e0d0570ff9162"),
    ("geqr2", 32, 32, 22, 1.0, 1, "5884e07618a3a5610cdaa8f76474d1c5b41bbf75e81e0ec4eca188ef8cd22bf5",
     "3da6a978aab0fa09bdc319cbf11c2ecfb3a2ac80825ecd31853e7ba1aabd92cf"),
    ("geqr2_rows", 60, 24, 23, 3.0, 2, "c18b113ae5f87f67b182427b524559cfef55173e13fc22ea5c3e4e712f9d9292",
     "5f814e8ce529d44b18b3a81031d5d9b7f98788a0ed425af762b2c90cb517fb9e"),
    ("pfnr", 96, 32, 24, 0.02, 1, "7f92fb0940a5d761b77d492915923788bef597da1645c98c7c598f62a85843a4",
     "65421e60a7327c5e4a06c428230ea6cdc04fbaeec45abad0e616b17737e162f9"),
    ("pfnr", 96, 32, 24, 0.02, 2, "7917d0bd19cebee30192a4085d9001bfde76ea28fcbea7a02574f0f730ab68c2",
     "552a1b8a04c4f8249e3c677fb4a0972cd4e24c9d66c1126d8ce008b88683b1e5"),
    ("pfnr_narrow", 300, 7, 25, 1.0, 2, "725503830594950880e3bdde182a750bece6496015c2a6ecbb1ffeae73cd796d",
     "01f3916b6b6b7a49a9dc93c7132b890b4f4166082d259d77619bc9bc606fc829"),
    ("pfnr_long", 700, 20, 26, 1.0, 1, "7fcfc929d4a1fb532b87a5cad2a97775c49519bb02ff7737705cd042412bb55f",
     "18ad3c77031fc1376d8dbebb5328a055b527314ff66f95dd7e2d68b0a6d1effc"),
)  # fmt: skip


def _matrix(m: int, n: int, seed: int, scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal((m, n)) * scale).astype(np.float32)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-t{c[5]}" for c in CASES])
def test_recorded_bits(case: tuple) -> None:
    _, m, n, seed, scale, threads, q_digest, r_digest = case
    a = _matrix(m, n, seed, scale)
    q, r = qr_module.qr(a, profile_for_capability("AVX2", threads, "x86_64"))
    assert (q.shape, r.shape) == ((m, n), (n, n))
    assert (bits_sha256(q), bits_sha256(r)) == (q_digest, r_digest)
    assert np.array_equal(a, _matrix(m, n, seed, scale))  # the input is left as it was


def test_the_path_follows_the_shape() -> None:
    path = qr_module.geqrf_path
    assert [path(17, 9), path(32, 32), path(60, 24), path(96, 32), path(300, 7), path(45, 24)] == [
        qr_module.SMALL, qr_module.GEQR2, qr_module.GEQR2, qr_module.PFNR, qr_module.PFNR, qr_module.PFNR
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "threads", "why"),
    [
        ((64, 33), 1, "more than 32 columns"),
        ((1000, 31), 1, "panel path"),
        ((190, 24), 2, "another path there"),
        ((96, 32), 3, "1 and 2 threads only"),
        ((8, 9), 1, "M >= N"),
    ],
)
def test_what_mkl_runs_otherwise_is_refused(shape: tuple[int, int], threads: int, why: str) -> None:
    with pytest.raises(ParityError, match=why):
        qr_module.qr(_matrix(*shape, 1), profile_for_capability("AVX2", threads, "x86_64"))


def test_other_code_paths_and_special_values_are_refused() -> None:
    a = _matrix(32, 32, 1)
    with pytest.raises(ParityError, match="generic code path"):
        qr_module.qr(a, profile_for_capability("AVX2", 1, "x86_64").with_blas(MKL_AVX2))
    with pytest.raises(ParityError, match="generic code path"):
        qr_module.qr(a, profile_for_capability("DEFAULT", 1, "aarch64"))
    a[1:, 0] = 0.0  # a first column already reduced: MKL's zero-norm branch
    with pytest.raises(ParityError, match="rescaling"):
        qr_module.qr(a, profile_for_capability("AVX2", 1, "x86_64"))
    a[0, 0] = np.inf
    with pytest.raises(ParityError, match="NaN or infinity"):
        qr_module.qr(a, profile_for_capability("AVX2", 1, "x86_64"))
