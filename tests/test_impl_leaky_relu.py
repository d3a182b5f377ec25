"""harness.impl.unary.leaky_relu_forward and leaky_relu_backward without torch: the NaN places measured
against torch 2.13.0 (x86 default and avx2; aarch64 N1, V1, V2 under QEMU, the same bits) and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import get_profile

SNAN = 0x7F800001


@pytest.mark.parametrize("profile_name", ["x86-avx2", "x86-baseline", "arm64-neon", "arm64-sve256"])
def test_a_signalling_grad_is_quieted_in_the_vector_body_only(profile_name: str) -> None:
    profile = get_profile(profile_name, 1)
    n = 4 * profile.lanes + 3  # two two-vector steps, then a scalar tail of 3
    x, g = np.ones(n, np.float32), np.ones(n, np.float32)
    g.view(np.uint32)[:] = SNAN
    body = np.full(n - 3, SNAN | 0x00400000, np.uint32).tolist()
    assert unary.leaky_relu_backward(g, x, 0.01, profile).view(np.uint32).tolist() == body + [SNAN] * 3
    strided = unary.leaky_relu_backward(g, x, 0.01, profile, 1)  # the basic loop: the scalar lambda
    assert strided.view(np.uint32).tolist() == [SNAN] * n
    # x <= 0 or NaN: the product, which quiets
    x[:] = -1.0
    assert unary.leaky_relu_backward(g, x, 0.01, profile, 1).view(np.uint32).tolist() == [SNAN | 0x00400000] * n


@pytest.mark.parametrize(("profile_name", "nan"), [("x86-avx2", 0xFFC00000), ("arm64-sve128", 0x7FC00000)])
def test_inf_times_a_zero_slope_is_the_default_nan(profile_name: str, nan: int) -> None:
    profile = get_profile(profile_name, 1)
    x = np.float32([-np.inf, -2.0, np.inf, np.uint32(0xFF800001).view(np.float32)])
    out = unary.leaky_relu_forward(x, 0.0, profile).view(np.uint32).tolist()
    assert out == [nan, 0x80000000, 0x7F800000, 0xFFC00001]


def test_bad_inputs_are_refused() -> None:
    profile = get_profile("x86-avx2", 1)
    x = np.zeros(4, np.float32)
    with pytest.raises(ParityError, match="negative_slope"):
        unary.leaky_relu_forward(x, float("nan"), profile)
    with pytest.raises(ParityError, match="one shape"):
        unary.leaky_relu_backward(np.zeros(3, np.float32), x, 0.01, profile)
