"""harness.impl.unary.log_sigmoid_forward and log_sigmoid_backward without torch: the special values'
bits torch 2.13.0 gave on an AMD EPYC (ATEN_CPU_CAPABILITY default and avx2 on a Zen 3, avx512 on a Zen 5,
1 thread; 23 elements: at avx2 a body of 16 and a tail of 7, at avx512, whose AVX-512 object runs 16 lanes,
a tail of 23), and where the place of a NaN pair in the backward's loop picks its NaN."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import profile_for_capability

X = np.array([
    0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x000116C2, 0x800116C2,
    0x42B00000, 0xC2B00000, 0x42C80000, 0xC2C80000, 0x41880000, 0xC1880000, 0x3FC00000, 0xBFC00000,
    0x7FA00001, 0xFFA00002, 0x7FC00003, 0xFFC00004, 0x7FC00000, 0xFFC00000, 0x7F800000,
], np.uint32)  # fmt: skip
# torch's out per capability (the buffer is the same at both but for x = +-17 and 100, SLEEF's vs glibc's exp)
OUT = {
    "DEFAULT": [0x7FC00000, 0xFFC00000, 0x0, 0xFF800000, 0xBF317218, 0xBF317218, 0xBF317218, 0xBF317218,
                0x8041EDC4, 0xC2B00000, 0x8000001B, 0xC2C80000, 0xB331CF19, 0xC1880000, 0xBE4E3F49, 0xBFD9C7E9,
                0x7FE00001, 0xFFE00002, 0x7FC00003, 0xFFC00004, 0x7FC00000, 0xFFC00000, 0x0],
    "AVX2": [0xFFFFFFFF, 0xFFFFFFFF, 0x0, 0xFF800000, 0xBF317218, 0xBF317218, 0xBF317218, 0xBF317218,
             0x8041EDC4, 0xC2B00000, 0x8000001C, 0xC2C80000, 0xB331CF18, 0xC1880000, 0xBE4E3F49, 0xBFD9C7E9,
             0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0x0],
}  # fmt: skip
OUT["AVX512"] = OUT["AVX2"]  # recorded on a Zen 5: SLEEF's AVX-512 expf and log1pf, the AVX-512 minimum's NaN mask
BUFFER_NAN = [0xFFC00000, 0xFFC00000, 0xFFE00001, 0xFFE00002, 0xFFC00003, 0xFFC00004, 0xFFC00000, 0xFFC00000]


@pytest.mark.parametrize("cap", sorted(OUT))
def test_special_values(cap: str) -> None:
    profile = profile_for_capability(cap, 1, "x86_64")
    out, buffer = unary.log_sigmoid_forward(X.view(np.float32), profile)
    assert out.view(np.uint32).tolist() == OUT[cap]
    assert buffer.view(np.uint32)[[0, 1, 16, 17, 18, 19, 20, 21]].tolist() == BUFFER_NAN
    # grad 1 everywhere: a NaN buffer passes on, x = +-inf gives 0 and 1
    grad_x = unary.log_sigmoid_backward(np.ones(23, np.float32), X.view(np.float32), buffer, profile)
    assert grad_x.view(np.uint32)[[0, 2, 3, 4, 16]].tolist() == [0xFFC00000, 0x0, 0x3F800000, 0x3F000000, 0xFFE00001]


@pytest.mark.parametrize(("cap", "grads"), [("AVX2", [*range(8, 16), *range(24, 32)]), ("AVX512", [*range(16, 32)])])
def test_the_nan_pairs_place_in_the_backward(cap: str, grads: list[int]) -> None:
    """A NaN buffer (x = 0xFFE1BF63) meeting a NaN grad (0x7FC00000) at place k of 40 elements: the second
    vector of each two-vector step gives grad's NaN, elsewhere the buffer's (as recorded from torch, 1 thread):
    8 lanes a vector at avx2, 16 in the AVX-512 object (log_sigmoid_backward_stub is also registered for it)."""
    profile = profile_for_capability(cap, 1, "x86_64")
    got = []
    for k in range(40):
        x, g = np.ones(40, np.float32), np.ones(40, np.float32)
        x.view(np.uint32)[k], g.view(np.uint32)[k] = 0xFFE1BF63, 0x7FC00000
        _, buffer = unary.log_sigmoid_forward(x, profile)
        if unary.log_sigmoid_backward(g, x, buffer, profile).view(np.uint32)[k] == 0x7FC00000:
            got.append(k)
    assert got == grads


def test_the_replay_refuses_other_dtypes_and_shapes_in_one_line() -> None:
    from harness.trace.impl_ops import replay

    def run(op: str, **tensors: np.ndarray) -> dict[str, np.ndarray]:
        args = [{"name": name, "tensor": name} for name in tensors]
        return replay(f"aten.{op}.default", tensors, args, profile_for_capability("AVX2", 1, "x86_64"))

    x, g = np.zeros(4, np.float32), np.zeros(4, np.float64)
    with pytest.raises(
        ParityError, match="log_sigmoid_backward of float32 tensors only, not float64, float32, float32"
    ):
        run("log_sigmoid_backward", grad_output=g, self=x, buffer=x)
    with pytest.raises(ParityError, match="log_sigmoid_backward of operands of one shape only"):
        run("log_sigmoid_backward", grad_output=x, self=x, buffer=x[:3])
    with pytest.raises(ParityError, match="log_sigmoid of float32 tensors only, not float64"):
        run("log_sigmoid_forward", self=g)
    with pytest.raises(ParityError, match="leaky_relu_backward of operands of one shape only"):
        run("leaky_relu_backward", grad_output=x, self=x[:2])
    assert run("leaky_relu", self=-np.ones(4, np.float32))["out"].tolist() == [np.float32(-0.01)] * 4


def test_bce_with_logits_replay_refuses_in_one_line() -> None:
    """binary_cross_entropy_with_logits (log_sigmoid's forward, then ATen's own ops): the builds and
    operands not measured are refused, and a mean over a NaN loss; a finite case gives the ops' bits."""
    from harness.trace.impl_ops import replay

    def run(cap: str, arch: str = "x86_64", reduction: int = 0, **tensors: np.ndarray) -> np.ndarray:
        args = [{"name": name, "tensor": name} for name in tensors] + [{"name": "reduction", "value": reduction}]
        op = "aten.binary_cross_entropy_with_logits.default"
        return replay(op, tensors, args, profile_for_capability(cap, 1, arch))["out"]

    x, t = np.array([-3.0, 0.0, 2.5, np.nan], np.float32), np.array([0.0, 1.0, 0.5, 1.0], np.float32)
    with pytest.raises(ParityError, match="not measured on aarch64"):
        run("SVE256", "aarch64", self=x, target=t)
    with pytest.raises(ParityError, match="float32 tensors only, not float32, float64"):
        run("AVX2", self=x, target=t.astype(np.float64))
    with pytest.raises(ParityError, match="a target or weight not finite is not measured"):
        run("AVX2", self=x, target=t, weight=np.array([1.0, np.inf, 1.0, 1.0], np.float32))
    with pytest.raises(ParityError, match="reduction 3 is none of 0, 1, 2"):
        run("AVX2", reduction=3, self=x, target=t)
    with pytest.raises(ParityError, match="which NaN the mean or sum of its loss keeps is not modelled"):
        run("AVX2", reduction=1, self=x, target=t)
    # x NaN: both operands of the subtraction are NaN, and ATen's sub_ keeps log_sigmoid's (AVX2: all ones)
    assert run("AVX2", self=x, target=t).view(np.uint32)[3] == 0xFFFFFFFF
    assert run("DEFAULT", self=x, target=t).view(np.uint32)[3] == 0x7FC00000
    out = run("AVX2", self=x[:3], target=t[:3])
    ls, _ = unary.log_sigmoid_forward(x[:3], profile_for_capability("AVX2", 1, "x86_64"))
    assert out.tolist() == ((np.float32(1) - t[:3]) * x[:3] - ls).tolist()
