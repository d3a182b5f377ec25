"""K = 1 products with B stored transposed (a (N, 1) tensor's ``t()``, SwiftFormer's attention backward) on MKL's
generic path: MKL's rank-1 update, ``c = beta*C + (alpha*a)*b`` per element (csrc/mkl_sgemm.h mkl_sgemm), which
keeps a product's -0 from beta 0 and C's -0 plus a -0 product, where the main kernel's ``c = 0 + t`` gave +0.
torch 2.13.0's outputs recorded on a Zen 5 (the same bits at default, avx2 and avx512 on 1 and 4 threads), held as
digests of their bits. No torch here."""

from __future__ import annotations

import numpy as np
import pytest
from bit_digest import bits_sha256

from harness.impl import linalg
from harness.impl.profiles import profile_for_platform

# (op, M, N, A transposed, seed): SwiftFormer's four shapes, and sides off the 4-, 8- and 16-wide tiles
CASES = (
    ("mm", 4, 32, False, 1),
    ("mm", 16, 24, False, 2),
    ("mm", 64, 16, True, 3),
    ("mm", 256, 8, False, 4),
    ("mm", 13, 37, True, 5),
    ("addmm", 4, 32, False, 6),
    ("addmm", 29, 101, True, 7),
    ("addmm", 130, 17, False, 8),
    ("addmm_alpha2", 12, 12, False, 9),
    ("addmm_alpha2", 33, 70, True, 10),
    ("bmm1", 20, 30, False, 11),
    ("bmm1", 65, 9, True, 12),
)

DIGESTS = {
    ("mm", 4, 32, False, 1): "98c544923971f6b560d173b130380079679542b8c8cb228c789d62f28332c1b8",
    ("mm", 16, 24, False, 2): "6dc6eac03eda3e94aeaaa66a1ad6593c1b76fe3ae78d673f1ac80a8bcbd8c6b4",
    ("mm", 64, 16, True, 3): "c10e4ca75d1e96ba89b357b3e60210c52cf868b730ea5a77769ce80d0553b735",
    ("mm", 256, 8, False, 4): "48d3d164ba552234f544dcc8a55090e81900da28255dcf25cc87024e9513efea",
    ("mm", 13, 37, True, 5): "d5f22731be313648337c20f6201ecfd5180b291851b8689810f52106d16969d3",
    ("addmm", 4, 32, False, 6): "b57f949fe6eae4a9a9cb7f6f7a77f24bebc33894e94ccaf01576b6dcdaa9eaf5",
    ("addmm", 29, 101, True, 7): "ddde3cca45b6c418dffe0a04a15f0c36d4d47ac12acc9285b149b3d51bb7479e",
    ("addmm", 130, 17, False, 8): "6adb6d200035b92db2769924ad08c98848150c8b5e40d9405cf971896b47aa14",
    ("addmm_alpha2", 12, 12, False, 9): "a141f199dc77ad9fe3a6c9d4986a8a20a5b23b10d63fce363fa049d82b36763f",
    ("addmm_alpha2", 33, 70, True, 10): "5ba13c10204501d622e1450edc56df34982680684ad3b714c8ca6910436283a6",
    ("bmm1", 20, 30, False, 11): "1321f588f66c9a60b19b520bb8e2bc349d29cd0a400c6e554535742c284e0830",
    ("bmm1", 65, 9, True, 12): "6f224b9b106a69efc57b8d9881c534f3aef244f77e975146446ae8b64607d2a2",
}


def operands(case: tuple) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """The case's A (M, 1; row-major or over transposed storage), B (1, N) over an (N, 1) tensor's storage and
    C (M, N): zeros of both signs against numbers of both signs, infinities, subnormals; C of +-0 and numbers."""
    op, m, n, a_t, seed = case
    rng = np.random.default_rng(seed)

    def draw(shape: tuple[int, int]) -> np.ndarray:
        pick = np.array([0.0, -0.0, 1.5, -2.0, -0.75, np.inf, -np.inf, 1e-42, -1e-42], np.float32)
        return rng.choice(pick, size=shape, p=[0.3, 0.3, 0.1, 0.1, 0.1, 0.025, 0.025, 0.025, 0.025])

    a = draw((1, m)).T if a_t else draw((m, 1))  # transposed: strides (1, M) in elements, as a (1, M) tensor's t()
    b = draw((n, 1)).T  # strides (1, 1), as an (N, 1) tensor's t()
    c = rng.choice(np.array([0.0, -0.0, 1.5, -2.0], np.float32), size=(m, n))
    if op == "addmm_alpha2":
        c = np.zeros((m, n), np.float32)
    return op, a, b, c


def _replay(op: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, threads: int) -> np.ndarray:
    profile = profile_for_platform(f"linux-x86_64-avx2-t{threads}")
    with np.errstate(all="ignore"):
        if op == "mm":
            return linalg.mm(a, b, profile)
        if op == "addmm":
            return linalg.addmm(c, a, b, profile)
        if op == "addmm_alpha2":
            return linalg.addmm(c, a, b, profile, alpha=2.0, beta=0.0)
        return linalg.bmm(a[None], b[None], profile)[0]


@pytest.mark.parametrize("threads", (1, 4))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}x{c[2]}{'-at' if c[3] else ''}")
def test_k1_transposed_b_replays_torch(case: tuple, threads: int) -> None:
    got = _replay(*operands(case), threads)
    assert bits_sha256(got) == DIGESTS[case]


def test_cases_hold_negative_zero_products() -> None:
    """Every case has a -0 product, the element the main kernel's +0 start got wrong."""
    for case in CASES:
        _, a, b, _ = operands(case)
        with np.errstate(invalid="ignore"):  # 0 * inf
            products = a * b
        assert np.any((products == 0) & np.signbit(products)), case
