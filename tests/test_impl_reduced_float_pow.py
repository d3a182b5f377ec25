"""pow.Tensor_Scalar and pow.Tensor_Tensor of bfloat16 and float16 on x86 (harness.impl.unary.pow_bf16_scalar,
pow_f16_scalar, pow_reduced_tensor, each case through the trace's replay as ``parity audit`` calls it: a bfloat16
tensor as its uint16 bits with its argument's dtype) against torch 2.13.0's bits recorded on an AMD EPYC Zen 5:
tests/reduced_float_pow_cases.py's 68 cases (56 to a number, 12 to a tensor), a digest per level and
thread count (the default build's alike on every thread count: each element rounds as c10's scalar types do; the
AVX2 and AVX-512 objects' vector bodies round a bfloat16 NaN to 0xFFFF and compute -0.5's rsqrt and powf otherwise
than the scalar tails, so the chunks and the 32- or 64-element bodies reach the bits). No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from harness.impl.unary import pow_bf16_scalar, pow_f16_scalar, pow_reduced_tensor
from tests import reduced_float_pow_cases
from tests.bit_digest import bits_sha256

DIGESTS = {
    ("x86-baseline", 1): "7964e674f92f2445e690aa065b630537a344187a04a1b0dc25e51e33b66b2714",
    ("x86-baseline", 2): "7964e674f92f2445e690aa065b630537a344187a04a1b0dc25e51e33b66b2714",
    ("x86-baseline", 4): "7964e674f92f2445e690aa065b630537a344187a04a1b0dc25e51e33b66b2714",
    ("x86-avx2", 1): "fa9e205802622e2fefde96035af4385cbe1828ce7e0eec99dc70b89ff24722c7",
    ("x86-avx2", 2): "b38e56e37474768d1dc90083cb956d34c0bdc465d87890462c635e2d1dc05795",
    ("x86-avx2", 4): "cc166c07eea56068898eb9c47656560723eee1b409c07a942e2ad65a70296268",
    ("x86-avx512", 1): "b44a43fe3e8eeb5c018871f621629bfaa6846ed7cc0da7c9f8008059b9c0d5bb",
    ("x86-avx512", 2): "9c657ec9d7a2a077f26c6ea84206d0a12c1331ffe4b8378e508d8d87c02871f0",
    ("x86-avx512", 4): "778ad6baf911d7e648a2655d69b853e52049e0ff9ea8cc62d8404f91fa82f2ea",
}


@pytest.mark.parametrize(
    ("name", "threads"), [("x86-baseline", 4), ("x86-avx2", 1), ("x86-avx2", 4), ("x86-avx512", 2)]
)
def test_reduced_float_pow_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = [reduced_float_pow_cases.replay(case, profile) for case in reduced_float_pow_cases.cases()]
    assert bits_sha256(np.concatenate(outs).astype(np.float32)) == DIGESTS[(name, threads)]


def test_reduced_float_pow_refuses_arm64_and_an_exponent_past_the_dtype() -> None:
    x = np.array([0x3F80, 0x4000], np.uint16)
    with pytest.raises(ParityError, match="aarch64"):
        pow_bf16_scalar(x, 1.5, get_profile("arm64-neon", 1))
    with pytest.raises(ParityError, match="does not fit bfloat16"):
        pow_bf16_scalar(x, 1e39, get_profile("x86-avx2", 1))
    with pytest.raises(ParityError, match="aarch64"):
        pow_f16_scalar(x, 1.5, get_profile("arm64-sve256", 1))
    with pytest.raises(ParityError, match="does not fit float16"):
        pow_f16_scalar(x, 70000.0, get_profile("x86-baseline", 1))
    with pytest.raises(ParityError, match="aarch64"):
        pow_reduced_tensor(x, x, "bfloat16", get_profile("arm64-neon", 2))


def test_a_number_to_a_reduced_float_power_and_mixed_dtypes_are_refused_by_name() -> None:
    """pow.Scalar of a bfloat16 exponent tensor says so; a float16 base to a bfloat16 exponent says the dtypes."""
    from harness.trace.impl_ops import replay

    e = np.array([0x3F80, 0x4000], np.uint16)
    args = [{"name": "self", "value": 2.0}, {"name": "exponent", "tensor": "exponent", "dtype": "bfloat16",
                                             "shape": [2], "stride": [1]}]  # fmt: skip
    with pytest.raises(ParityError, match=r"a number to a bfloat16 tensor's power \(pow.Scalar\)"):
        replay("aten.pow.Scalar", {"exponent": e}, args, get_profile("x86-avx2", 1))
    args[0] = {"name": "self", "tensor": "self", "dtype": "float16", "shape": [2], "stride": [1]}
    with pytest.raises(ParityError, match="float16 and bfloat16 operands"):
        replay("aten.pow.Tensor_Tensor", {"self": e.view(np.float16), "exponent": e}, args, get_profile("x86-avx2", 1))
