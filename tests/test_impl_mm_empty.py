"""Products with a dimension of 0 (JetMoE's experts that receive no tokens: ``mm`` of a (0, K) slice and its
backward's (0, N) gradients): addmm_impl_cpu_ returns an output of no elements before any gemm, and for K = 0
copies ``self`` and multiplies it by beta (``mul_``: a signalling NaN comes back quiet). ATen's own loop of
small ``bmm`` products keeps, where two NaNs of other payloads meet, the one its compiled operand order
keeps: refused. The bits are torch 2.13.0's on a Zen 5 (default, avx2 and avx512 on 1, 2 and 4 threads).
No torch here."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from harness.trace.impl_ops import replay

PLATFORMS = ("linux-x86_64-avx2-t8", "linux-x86_64-baseline-t1", "linux-x86_64-avx512-t4")


def _arg(name: str, x: np.ndarray) -> dict[str, object]:
    return {"name": name, "tensor": name, "stride": [s // 4 for s in x.strides], "shape": list(x.shape)}


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize(("m", "k", "n"), [(0, 16, 64), (0, 64, 32), (5, 16, 0), (0, 0, 3)])
def test_mm_of_no_elements(platform: str, m: int, k: int, n: int) -> None:
    a, b = np.ones((m, k), np.float32), np.ones((k, n), np.float32)
    out = replay(
        "aten.mm.default", {"self": a, "mat2": b}, [_arg("self", a), _arg("mat2", b)], profile_for_platform(platform)
    )
    assert out["out"].shape == (m, n) and out["out"].dtype == np.float32


@pytest.mark.parametrize("platform", PLATFORMS)
def test_mm_and_addmm_of_k_0(platform: str) -> None:
    """torch.mm of (2, 0) @ (0, 3): +0 everywhere; torch.addmm of a bias with signalling NaNs: quieted."""
    a, b = np.ones((2, 0), np.float32), np.ones((0, 3), np.float32)
    bias = np.array([0x7F800001, 0xFF800005, 0x7FC00003], np.uint32).view(np.float32)
    profile = profile_for_platform(platform)
    mm = replay("aten.mm.default", {"self": a, "mat2": b}, [_arg("self", a), _arg("mat2", b)], profile)["out"]
    assert mm.view(np.uint32).tolist() == [[0] * 3] * 2
    args = [_arg("self", bias), _arg("mat1", a), _arg("mat2", b)]
    out = replay("aten.addmm.default", {"self": bias, "mat1": a, "mat2": b}, args, profile)["out"]
    assert out.view(np.uint32).tolist() == [[0x7FC00001, 0xFFC00005, 0x7FC00003]] * 2


def test_small_bmm_where_two_nans_meet_is_refused() -> None:
    """(1, 1, 2) @ (1, 2, 16), a's first element 0x7fc00001 and NaNs of other payloads in b: torch gave
    0x7fc00001 in all 16 outputs at avx2 on 1 thread; the impl's own loop had kept b's in 4."""
    a = np.array([[[np.nan, 1.0]]], np.float32)
    a.view(np.uint32)[0, 0, 0] = 0x7FC00001
    b = np.ones((1, 2, 16), np.float32)
    b.view(np.uint32)[0, 0, :4] = 0x7F800003
    profile = profile_for_platform("linux-x86_64-avx2-t1")
    with pytest.raises(ParityError, match="NaNs of 2 kinds"):
        replay("aten.bmm.default", {"self": a, "mat2": b}, [_arg("self", a), _arg("mat2", b)], profile)
    b.view(np.uint32)[0, 0, :4] = 0x3F800000  # one NaN kind: its payload wherever it goes
    out = replay("aten.bmm.default", {"self": a, "mat2": b}, [_arg("self", a), _arg("mat2", b)], profile)["out"]
    assert (out.view(np.uint32) == 0x7FC00001).all()
