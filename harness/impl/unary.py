"""Unary ops (exp, expm1, log, log1p, lgamma, tanh, rsqrt, gelu, gelu_tanh, silu, softplus, log_sigmoid,
leaky_relu): forward ``out`` and backward ``grad_x``.

The loops are in csrc/unary.c; this module only passes arrays and the profile.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
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
    "log1p": ("log1p_forward", "", "x"),  # its backward is grad / (x + 1): autograd's add and div
    "lgamma": ("lgamma_forward", "", "x"),  # its backward is grad * digamma(x): not modelled
    "expm1": ("expm1_forward", "", "x"),  # its backward is grad * (out + 1): autograd's add and mul
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
    _measured_build(op, profile)
    x = f32(x)
    out = np.empty_like(x)
    _call(op, _KERNELS[op][0], profile, row, x, out)
    return out


def backward(
    op: str, grad_out: np.ndarray, x: np.ndarray, out: np.ndarray, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``grad_x`` of ``op`` for the upstream gradient ``grad_out`` (``row`` as ``forward``'s)."""
    if not _KERNELS[op][1]:
        raise ValueError(f"{op}: no backward kernel of its own")
    saved = {"x": f32(x), "out": f32(out)}[_KERNELS[op][2]]
    grad_out = f32(grad_out)
    grad_x = np.empty_like(grad_out)
    _call(op, _KERNELS[op][1], profile, row, grad_out, saved, grad_x)
    return grad_x


# The builds whose kernels were measured (torch 2.13.0: x86 default and avx2; aarch64's NEON and SVE
# objects on emulated Neoverse N1, V1 and V2) for the ops whose lanes take SLEEF functions that ATen's
# other builds compute otherwise, refused elsewhere: softplus, log1p, lgamma, expm1 and log_sigmoid
# (SLEEF's expf, log1pf, lgammaf and expm1f in the avx2 object and in aarch64's advsimd and SVE ones,
# one algorithm with the same bits; glibc's in the x86 default build and in softplus's scalar tails,
# aarch64's contracted log1pf there). AVX-512 is not measured: whether 2.13.0 runs the AVX2 object at AVX-512
# (REGISTER_DISPATCH) or an AVX-512 one, 16 lanes with SLEEF's vgetexp/vgetmant log1p and a logk2f
# that takes vgetexp.
SLEEF_BUILDS = ("default", "avx2", "neon", "sve")
_SLEEF_OPS = ("softplus", "log1p", "lgamma", "expm1", "log_sigmoid")


def _measured_build(op: str, profile: KernelProfile) -> None:
    if op in _SLEEF_OPS and profile.aten not in SLEEF_BUILDS:
        raise ParityError(f"{op} is reproduced at the {', '.join(SLEEF_BUILDS)} builds only, not {profile.aten}")


def _softplus_call(name: str, profile: KernelProfile, row: int | None, beta: float, threshold: float, *arrays):
    _measured_build("softplus", profile)
    fn = getattr(load("unary"), name)
    fn.restype = None
    n = arrays[0].size
    fn(
        profile.as_c(),
        *(ptr(a) for a in arrays),
        ctypes.c_int64(n),
        ctypes.c_int64(max(1, row or n)),
        ctypes.c_float(beta),
        ctypes.c_float(threshold),
    )


def softplus_forward(
    x: np.ndarray, beta: float, threshold: float, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """F.softplus(x, beta, threshold) of float32 ``x`` (any shape); beta and threshold are rounded to
    float32 as ATen's ``Scalar::to<float>`` does. ``row`` as ``forward``'s."""
    x = f32(x)
    out = np.empty_like(x)
    _softplus_call("softplus_forward", profile, row, beta, threshold, x, out)
    return out


def softplus_backward(
    grad_out: np.ndarray, x: np.ndarray, beta: float, threshold: float, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``aten.softplus_backward(grad_out, x, beta, threshold)``: grad_x of softplus."""
    grad_out, x = f32(grad_out), f32(x)
    grad_x = np.empty_like(grad_out)
    _softplus_call("softplus_backward", profile, row, beta, threshold, grad_out, x, grad_x)
    return grad_x


def _log_sigmoid_arm64_places(profile: KernelProfile, n: int, row: int | None) -> None:
    """Refuse the places in ATen's loop where aarch64's choice of NaN (a NaN or infinite buffer) was not
    measured: a strided operand's basic loop (GCC's own loop over it decides), and on V2 rows shorter
    than the tensor (its scalar tails' first four elements and the rest choose differently; the impl
    counts them over one flat run only)."""
    where = ""
    if row == 1 and n > 1:
        where = "a strided operand"
    elif profile.aten == "sve" and profile.lanes == 4 and row is not None and row < n:
        where = "rows shorter than the tensor on Neoverse V2"
    if where:
        raise ParityError(
            f"log_sigmoid_backward on aarch64 with a NaN or infinite buffer is not reproduced for {where}"
        )


def log_sigmoid_forward(x: np.ndarray, profile: KernelProfile) -> tuple[np.ndarray, np.ndarray]:
    """``aten.log_sigmoid_forward(x)`` of float32 ``x`` (any shape): ``(out, buffer)``, buffer = exp(-|x|)."""
    _measured_build("log_sigmoid", profile)
    x = f32(x)
    out, buffer = np.empty_like(x), np.empty_like(x)
    fn = load("unary").log_sigmoid_forward
    fn.restype = None
    fn(profile.as_c(), ptr(x), ptr(out), ptr(buffer), ctypes.c_int64(x.size))
    return out, buffer


def log_sigmoid_backward(
    grad_out: np.ndarray, x: np.ndarray, buffer: np.ndarray, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``aten.log_sigmoid_backward(grad_out, x, buffer)``: grad_x of log_sigmoid, operands of one shape
    (``row`` as ``forward``'s: where a NaN grad meets a NaN buffer, the element's place in ATen's loop
    decides which NaN comes out)."""
    _measured_build("log_sigmoid", profile)
    grad_out, x, buffer = f32(grad_out), f32(x), f32(buffer)
    if not grad_out.shape == x.shape == buffer.shape:
        raise ParityError(
            f"the impl reproduces log_sigmoid_backward of operands of one shape only, not {grad_out.shape}, "
            f"{x.shape} and {buffer.shape}"
        )
    if profile.aarch64 and not np.isfinite(buffer).all():
        _log_sigmoid_arm64_places(profile, x.size, row)
    grad_x = np.empty_like(grad_out)
    fn = load("unary").log_sigmoid_backward
    fn.restype = None
    n = x.size
    fn(
        profile.as_c(),
        ptr(grad_out),
        ptr(x),
        ptr(buffer),
        ptr(grad_x),
        ctypes.c_int64(n),
        ctypes.c_int64(max(1, row or n)),
    )
    return grad_x


def _leaky_relu_call(name: str, profile: KernelProfile, row: int | None, negative_slope: float, *arrays) -> None:
    if np.isnan(np.float32(negative_slope)):
        raise ParityError("the impl reproduces leaky_relu with a number negative_slope only, not NaN")
    fn = getattr(load("unary"), name)
    fn.restype = None
    n = arrays[0].size
    fn(profile.as_c(), *(ptr(a) for a in arrays), ctypes.c_int64(n), ctypes.c_int64(max(1, row or n)),
       ctypes.c_float(negative_slope))  # fmt: skip


def leaky_relu_forward(
    x: np.ndarray, negative_slope: float, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """F.leaky_relu(x, negative_slope) of float32 ``x`` (any shape); negative_slope rounded to float32
    as ATen's ``Scalar::to<float>`` does. ``row`` as ``forward``'s."""
    x = f32(x)
    out = np.empty_like(x)
    _leaky_relu_call("leaky_relu_forward", profile, row, negative_slope, x, out)
    return out


def leaky_relu_backward(
    grad_out: np.ndarray, x: np.ndarray, negative_slope: float, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``aten.leaky_relu_backward(grad_out, x, negative_slope, self_is_result=False)``: grad_x, operands
    of one shape (``row`` as ``forward``'s: where x > 0 and grad is a signalling NaN, the vector body
    quiets it and the scalar loop does not)."""
    grad_out, x = f32(grad_out), f32(x)
    if grad_out.shape != x.shape:
        raise ParityError(
            f"the impl reproduces leaky_relu_backward of operands of one shape only, not {grad_out.shape} and {x.shape}"
        )
    grad_x = np.empty_like(grad_out)
    _leaky_relu_call("leaky_relu_backward", profile, row, negative_slope, grad_out, x, grad_x)
    return grad_x


# pow with an exponent PowKernel.cpp has no special case for: measured at x86's default and avx2 builds
# only (SLEEF's powf in the avx2 object, glibc's powf elsewhere); AVX-512 and aarch64 are not measured.
POW_BUILDS = ("default", "avx2")


def pow_scalar_forward(x: np.ndarray, exponent: float, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``aten.pow.Tensor_Scalar`` of float32 ``x`` (any shape) for a finite exponent without a special
    case of its own, where every element is a vector lane (the exponent cast to float32, as
    Vectorized's pow takes it); refused where ATen's loop leaves a scalar tail. ``row`` as
    ``forward``'s."""
    if profile.aten not in POW_BUILDS:
        builds = ", ".join(POW_BUILDS)
        raise ParityError(f"pow with exponent {exponent} is reproduced at the {builds} builds only, not {profile.aten}")
    if float(exponent) in (0.5, -0.5, -1.0, 2.0, 3.0, -2.0):
        raise ParityError(f"pow with exponent {exponent} takes a special case of PowKernel.cpp, not powf")
    if not np.isfinite(np.float32(exponent)):
        raise ParityError(f"the impl reproduces pow with a finite float32 exponent only, not {exponent}")
    x = f32(x)
    out = np.empty_like(x)
    fn = load("unary").pow_scalar_forward
    fn.restype = ctypes.c_int64
    tail = fn(profile.as_c(), ptr(x), ptr(out), ctypes.c_int64(x.size), ctypes.c_int64(max(1, row or x.size)),
              ctypes.c_float(exponent))  # fmt: skip
    if tail:
        raise ParityError(
            f"pow with exponent {exponent}: {tail} of {x.size} elements fall in ATen's scalar tail, whose "
            "std::pow(float, double) (glibc's double pow rounded to float) the impl does not reproduce"
        )
    return out


Arrays = dict[str, np.ndarray]


def _runner(op: str):
    def run(params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile) -> Arrays:
        out = forward(op, inputs["x"], profile)
        return {"out": out, "grad_x": backward(op, inputs["grad_out"], inputs["x"], out, profile)}

    return run


RUNNERS = {op: _runner(op) for op in _KERNELS if op in OP_IDS}  # silu: traces only, no fixture op
