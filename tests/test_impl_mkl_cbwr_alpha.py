"""Where MKL_CBWR=COMPATIBLE's sgemm kernels apply alpha (csrc/mkl_sgemm.h, "MKL_CBWR=COMPATIBLE"), on
constructed products that name one kernel each: the main kernel scales B's element, the chains from
beta*C A's (B's down a single column), the dot, gemv and transposed chains their sums (the main
kernel's last columns each K block's sum), K = 1 A's element, 1 x 1 products a chain from beta*C, and
at::bmm's single-row or single-column items A's element (B row-major) or their sums. alpha is no
power of two here (0.3, 0.7, 1.5, -0.1), so each placement rounds differently. Each product's
operands come from a seeded NumPy generator; the digests are of torch 2.13.0's bits under
MKL_CBWR=COMPATIBLE (the AMD host, MKL 2024.2; torch.addmm, torch.baddbmm with beta = 0, torch.mm),
and ``before`` is the digest of the earlier model, alpha on B's element in every kernel (None where
it already agreed): so each check depends on the rule it names. No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import profile_for_platform
from tests.impl_intel_mkl import digest, stored_operands

PROFILE = profile_for_platform("linux-x86_64-avx2-mklgeneric-t1-cbwr-compatible")

# (layout: A / B stored transposed, batch items (0: torch.addmm), M, N, K, alpha, beta, threads,
#  torch's digest, the earlier model's)
PRODUCTS = (
    # the main kernel (B's element) and its last N % 8 columns: B row-major a chain from beta*C (A's)
    ("nn", 0, 40, 37, 300, 0.3, 1.0, 1, "0cad96b40cf7e51a", "46bda54d1541ac6d"),
    ("ta", 0, 40, 37, 300, 0.7, 0.0, 1, "e6c77840bfcc8817", "8403e59b5cf406e6"),
    # B stored transposed: each K block's dot times alpha; both transposed: each block's chain
    ("tb", 0, 40, 37, 300, 1.5, 1.0, 1, "1fda9240828bc2cd", "b45f4f13af0505d1"),
    ("tt", 0, 40, 37, 300, -0.1, 1.0, 1, "9553bb5fc5827fae", "ab617a85a08c5d6e"),
    ("nn", 0, 40, 40, 300, 0.3, 1.0, 1, "50826952ec7580d2", None),  # main kernel only: the earlier placement
    # no main kernel: the chain from beta*C (A's), the dot and the transposed chain (sums)
    ("nn", 0, 6, 20, 50, 0.3, 1.0, 1, "c62de58fa8f45231", "e839eea0d02323d4"),
    ("tb", 0, 6, 20, 50, 0.7, 1.0, 1, "3b1d613be6b5a595", "7226f4189c34b6ea"),
    ("tt", 0, 6, 20, 50, 1.5, 0.0, 1, "534a073c4e67d133", "f369e88b4b9df821"),
    # a single column: A transposed, the chain from beta*C with B's element; A row-major, the gemv
    # form down the column (its sum); a single row with B transposed, the gemv form along it
    ("ta", 0, 50, 1, 100, -0.1, 1.0, 1, "6fc5586da27c0eca", None),
    ("nn", 0, 50, 1, 100, 0.3, 1.0, 1, "3883ecc1a62fed99", "ad3679dbac05c553"),
    ("tb", 0, 1, 50, 100, 0.7, 0.0, 1, "27e3db8537a92c01", "bcfe1a0bf0824125"),
    # K = 1 (M, N > 1): A's element in every layout
    ("tb", 0, 20, 30, 1, 1.5, 1.0, 1, "294db578ead4f663", "ba39bfa111713eef"),
    ("tt", 0, 20, 30, 1, -0.1, 0.0, 1, "f5a02a7cdd5249a4", "f9c5323a55567702"),
    # 1 x 1: B row-major one chain from beta*C (A's element), B transposed the gemv form; K = 1 alpha*(a*b)
    ("nn", 0, 1, 1, 50, 0.3, 1.0, 1, "dcd82f9b1cf81bed", "d6998796b5cf3b4b"),
    ("ta", 0, 1, 1, 50, 0.7, 0.0, 1, "18b1de355e8155d2", "476f5213b3618fee"),
    ("tt", 0, 1, 1, 50, 1.5, 0.0, 1, "7dc3f2dbdccd468b", "78c6a7664356cf81"),
    ("nn", 0, 1, 1, 1, -0.1, 1.0, 1, "3c6ecdb16cf9acc3", None),
    # threads: chunks of rows, each a product of its own (its own last rows and columns)
    ("nn", 0, 166, 50, 200, 0.7, 1.0, 4, "12fb614975da8099", "2bca1937be23149f"),
    ("tb", 0, 30, 141, 150, 0.3, 0.0, 4, "3a23b0818fb8dbcb", "ae773336933774d1"),
    # at::bmm items of a single row or column: B row-major A's element, else the sum; K = 1 the sum
    ("nn", 3, 1, 50, 100, 0.3, 0.0, 1, "169fbc79481cd411", "15c0be57bd1955d9"),
    ("ta", 3, 50, 1, 100, 0.7, 0.0, 1, "d04c232bdf4fcd48", "c2f29ff5d2cee517"),
    ("tt", 3, 1, 50, 100, 1.5, 0.0, 1, "7e1708a5044a12a7", "7a7d8dc01876b986"),
    ("tb", 2, 30, 40, 1, -0.1, 0.0, 1, "7accaec8007276e7", "2b79a56d29694cb4"),
    # ATen's small loop (K*M*N < 400): alpha times each sum
    ("nn", 2, 3, 4, 5, 0.3, 0.0, 1, "4cc510b39a2c4c74", "5116be32832f5ee8"),
)
# torch.mm of a 1 x 1 output, B row-major, K >= 9: one chain in k order (alpha 1; the model gave the
# gemv form's lanes before)
MM_ONE = (
    ("nn", 1, 1, 37, "e85f987ec42f5670", "c565ec383a4e96ab"),
    ("nn", 1, 1, 300, "3c7df4a580c57bbd", "61c0561f2cf8a72e"),
)


def operands(layout: str, items: int, m: int, n: int, k: int, seed: int) -> tuple[np.ndarray, ...]:
    """A (M x K), B (K x N), each drawn in its stored shape and viewed transposed where the layout says,
    and C (M x N)."""
    rng = np.random.default_rng(seed)
    a, b = stored_operands(rng, layout, items, m, n, k)
    return a, b, rng.standard_normal((m, n)).astype(np.float32)


def product(index: int) -> np.ndarray:
    layout, items, m, n, k, alpha, beta, threads = PRODUCTS[index][:8]
    a, b, c = operands(layout, items, m, n, k, seed=500 + index)
    profile = PROFILE.with_threads(threads)
    if items:
        return linalg.bmm(a, b, profile, alpha=alpha)
    return linalg.addmm(c, a, b, profile, alpha=alpha, beta=beta)


def mm_one(index: int) -> np.ndarray:
    layout, m, n, k = MM_ONE[index][:4]
    a, b, _ = operands(layout, 0, m, n, k, seed=600 + index)
    return linalg.mm(a, b, PROFILE)


@pytest.mark.parametrize("index", range(len(PRODUCTS)), ids=[f"{p[0]}-{p[1]}x{p[2]}x{p[3]}x{p[4]}" for p in PRODUCTS])
def test_alpha_where_each_kernel_applies_it(index: int) -> None:
    *_, torch_bits, before = PRODUCTS[index]
    assert digest(product(index)) == torch_bits
    assert before != torch_bits


@pytest.mark.parametrize("index", range(len(MM_ONE)))
def test_a_one_by_one_mm_is_one_chain(index: int) -> None:
    *_, torch_bits, before = MM_ONE[index]
    assert digest(mm_one(index)) == torch_bits
    assert before != torch_bits


def test_the_rules_are_needed() -> None:
    """All but three differ before: the main kernel alone, the chain with B's element down a single
    column (A transposed), and a 1 x 1 product of K = 1."""
    same = [p[:5] for p in PRODUCTS if p[9] is None]
    assert same == [("nn", 0, 40, 40, 300), ("ta", 0, 50, 1, 100), ("nn", 0, 1, 1, 1)], same


def test_alpha_not_a_power_of_two_is_refused_where_unmeasured() -> None:
    """MKL's generic, AVX2 and SSE4.2 paths take a power of two only (exact wherever it is applied);
    NVPL alpha 1; beta 0 or 1."""
    a, b, c = operands("nn", 0, 4, 4, 4, seed=1)
    generic = profile_for_platform("linux-x86_64-avx2-mklgeneric-t1")
    assert np.array_equal(linalg.addmm(c, a, b, generic, alpha=0.125), linalg.addmm(c, a * 0.125, b, generic))
    for platform in (
        "linux-x86_64-avx2-mklgeneric-t1",
        "linux-x86_64-avx2-mklavx2-t1",
        "linux-arm64-neoverse-n1-nvpl-t1",
    ):
        with pytest.raises(ParityError):
            linalg.addmm(c, a, b, profile_for_platform(platform), alpha=0.3)
    with pytest.raises(ParityError):
        linalg.addmm(c, a, b, PROFILE, beta=0.5)
    with pytest.raises(ParityError):
        linalg.addmm(c, a, b, PROFILE, alpha=float("nan"))
