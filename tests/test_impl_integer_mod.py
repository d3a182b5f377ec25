"""fmod and remainder of integer tensors (BinaryOpsKernel.cpp's integral kernels): TAPAS's cell indices
``torch.fmod(indices, 32)`` of int64 by a Python int stay int64 (the impl had cast them to float32), an
int64 tensor by an int32 one in the common dtype, C++'s truncating ``%`` for fmod and the floored remainder,
the dtype's minimum by -1 giving 0. Torch-free: the outputs are torch 2.13.0's, recorded on a Zen 5."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from harness.trace.impl_ops import replay

A64 = np.array([81, -61, 49, 0, 2047, -2048, 2**63 - 1, -(2**63), -(2**63), 33, -33, 7], np.int64)
B32 = np.array([12, 12, -5, 7, 32, 32, 1000, -1, 3, -32, -32, 2**31 - 1], np.int32)
I8 = np.array([-128, 127, -7, 5, 100, -100], np.int8)

# (op, self, other: an array or a Python int, torch's output)
CASES: list[tuple[str, np.ndarray, Any, list[int]]] = [
    ("aten.fmod.Tensor", A64, B32, [9, -1, 4, 0, 31, 0, 807, 0, -2, 1, -1, 7]),
    ("aten.remainder.Tensor", A64, B32, [9, 11, -1, 0, 31, 0, 807, 0, 1, -31, -1, 7]),
    ("aten.fmod.Scalar", A64, 32, [17, -29, 17, 0, 31, 0, 31, 0, 0, 1, -1, 7]),
    ("aten.fmod.Scalar", I8, -3, [-2, 1, -1, 2, 1, -1]),
    ("aten.fmod.Scalar", I8, -1, [0, 0, 0, 0, 0, 0]),
]


def _arg(name: str, x: np.ndarray) -> dict[str, Any]:
    strides = [s // x.itemsize for s in x.strides]
    return {"name": name, "tensor": name, "dtype": str(x.dtype), "shape": list(x.shape), "stride": strides}


def _replay(op: str, a: np.ndarray, b: Any, platform: str) -> np.ndarray:
    p = profile_for_platform(platform)
    if isinstance(b, np.ndarray):
        return replay(op, {"self": a, "other": b}, [_arg("self", a), _arg("other", b)], p)["out"]
    return replay(op, {"self": a}, [_arg("self", a), {"name": "other", "value": b}], p)["out"]


@pytest.mark.parametrize(
    "platform",
    ["linux-x86_64-avx2-mklgeneric-t8", "linux-x86_64-baseline-mklgeneric-t1", "linux-arm64-neoverse-n1-nvpl-t1"],
)
@pytest.mark.parametrize(("op", "a", "b", "want"), CASES)
def test_integer_fmod_and_remainder_give_torchs_integers(
    op: str, a: np.ndarray, b: Any, want: list[int], platform: str
):
    got = _replay(op, a, b, platform)
    assert got.dtype == a.dtype and got.tolist() == want, (op, got.dtype, got.tolist())


def test_integer_fmod_by_zero_is_refused():
    with pytest.raises(ParityError, match="fmod by an integer zero"):
        _replay("aten.fmod.Tensor", A64[:3], np.array([1, 0, 2], np.int64), "linux-x86_64-avx2-mklgeneric-t8")
