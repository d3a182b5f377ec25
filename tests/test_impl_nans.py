"""The refusal where a NaN result may be one of several NaNs the kernel could pass on
(harness.impl.nans): in MKL's sgemm model and in a traced convolution's replay."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.nans import nan_kinds, refuse_mixed_nans
from harness.impl.profiles import get_profile
from harness.trace.impl_ops import replay

X86 = get_profile("x86-avx2", 1)


def _conv_args() -> list[dict]:
    values = {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "transposed": False,
              "output_padding": [0, 0], "groups": 1}  # fmt: skip
    tensors = [{"name": k, "tensor": k} for k in ("input", "weight")]
    return tensors + [{"name": k, "value": v} for k, v in values.items()]


# ATen's slow_conv2d (MKL's sgemm) and oneDNN's jit:avx2 at x86-avx2
SHAPES = {"slow_conv2d": ((1, 3, 9, 9), (8, 3, 3, 3)), "onednn": ((4, 16, 12, 12), (16, 16, 3, 3))}


def _spiced(specials: str, kernel: str = "onednn") -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(SHAPES[kernel][0]).astype(np.float32)
    w = rng.standard_normal(SHAPES[kernel][1]).astype(np.float32)
    x.reshape(-1)[[5, 40]] = np.nan if specials != "inf" else np.inf
    if specials == "both":
        w.reshape(-1)[7] = np.inf
    return {"input": x, "weight": w}


def test_nan_kinds_are_the_quieted_patterns():
    a = np.array([np.nan, 1.0, -np.nan], np.float32)
    b = np.array([0x7F800001], np.uint32).view(np.float32)  # a signalling NaN, quieted by arithmetic
    assert nan_kinds(a, b) == {0x7FC00000, 0xFFC00000, 0x7FC00001}


@pytest.mark.parametrize("kernel", sorted(SHAPES))
@pytest.mark.parametrize("specials", ["nan", "inf"])
def test_one_kind_of_nan_in_a_convolution_is_replayed(specials, kernel):
    out = replay("convolution", _spiced(specials, kernel), _conv_args(), X86)["out"]
    assert np.isnan(out).any() or np.isinf(out).any()


@pytest.mark.parametrize(
    ("kernel", "where"), [("slow_conv2d", "cpublas_gemm 81x8x27"), ("onednn", "convolution's out")]
)
def test_an_operands_nan_meeting_an_infinitys_in_a_convolution_is_refused(kernel, where):
    with pytest.raises(ParityError, match=f"{where}: a NaN result where NaNs of 2 kinds may meet"):
        replay("convolution", _spiced("both", kernel), _conv_args(), X86)


def test_the_default_nan_is_the_architectures():
    out = np.array([np.nan], np.float32)
    positive = np.array([np.nan, np.inf], np.float32)  # 0x7fc00000 and an infinity
    with pytest.raises(ParityError):
        refuse_mixed_nans("x86", out, X86, set(), positive)
    refuse_mixed_nans("arm64", out, get_profile("arm64-neon", 1), set(), positive)  # the same NaN there
