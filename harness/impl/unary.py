"""Unary ops (exp, log, tanh, rsqrt, gelu, gelu_tanh, silu): forward ``out`` and backward ``grad_x``.

The loops are in csrc/unary.c; this module only passes arrays and the profile.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.core.op_ids import OP_IDS
from harness.impl._lib import f32, load, ptr
from harness.impl.profiles import KernelProfile

# op -> (forward C function, backward C function, what the backward reads besides grad_out)
_KERNELS: dict[str, tuple[str, str, str]] = {
    "exp": ("exp_forward", "exp_backward", "out"),
    "log": ("log_forward", "log_backward", "x"),
    "tanh": ("tanh_forward", "tanh_backward", "out"),
    "rsqrt": ("rsqrt_forward", "rsqrt_backward", "out"),
    "gelu": ("gelu_forward", "gelu_backward", "x"),
    "gelu_tanh": ("gelu_tanh_forward", "gelu_tanh_backward", "x"),
    "silu": ("silu_forward", "silu_backward", "x"),
}
_ROWS = {"silu"}  # kernels that also take TensorIterator's row length (csrc/unary.c run_unary)


def _call(op: str, name: str, profile: KernelProfile, row: int | None, *arrays: np.ndarray) -> None:
    fn = getattr(load("unary"), name)
    fn.restype = None
    n = arrays[0].size
    if row is not None and op not in _ROWS:
        raise ValueError(f"{op}: rows are modelled for {', '.join(sorted(_ROWS))} only")
    rows = (ctypes.c_int64(max(1, row or n)),) if op in _ROWS else ()
    fn(profile.as_c(), *(ptr(a) for a in arrays), ctypes.c_int64(n), *rows)


def forward(op: str, x: np.ndarray, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``out`` of ``op`` applied to ``x`` (any shape, float32). ``row``: the length of the runs
    ATen's loop takes one at a time (an operand whose rows are not contiguous with each other;
    default one flat run)."""
    x = f32(x)
    out = np.empty_like(x)
    _call(op, _KERNELS[op][0], profile, row, x, out)
    return out


def backward(
    op: str, grad_out: np.ndarray, x: np.ndarray, out: np.ndarray, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``grad_x`` of ``op`` for the upstream gradient ``grad_out`` (``row`` as ``forward``'s)."""
    saved = {"x": f32(x), "out": f32(out)}[_KERNELS[op][2]]
    grad_out = f32(grad_out)
    grad_x = np.empty_like(grad_out)
    _call(op, _KERNELS[op][1], profile, row, grad_out, saved, grad_x)
    return grad_x


Arrays = dict[str, np.ndarray]


def _runner(op: str):
    def run(params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile) -> Arrays:
        out = forward(op, inputs["x"], profile)
        return {"out": out, "grad_x": backward(op, inputs["grad_out"], inputs["x"], out, profile)}

    return run


RUNNERS = {op: _runner(op) for op in _KERNELS if op in OP_IDS}  # silu: traces only, no fixture op
