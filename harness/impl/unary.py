"""Unary ops (exp, expm1, log, log1p, lgamma, digamma, atanh, tanh, sin, cos, erf, erfinv, log2, acos, rsqrt,
gelu, gelu_tanh, silu, softplus, log_sigmoid, leaky_relu, elu, hardswish, hardsigmoid, mish): forward ``out`` and
backward ``grad_x``; pow of a tensor to a number, and of a number or a tensor to a tensor (``pow_tensor_forward``);
minimum, maximum, clamp by tensors, fmod and remainder (``binary_kernel``).
gelu (erf) where oneDNN does not take it (a non-contiguous self) is ``gelu_aten``: ATen's GeluKernelImpl in
TensorIterator's rows, as gelu_tanh and silu take ``row``.

The loops are in csrc/unary.c; this module only passes arrays and the profile.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Mapping
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.core.op_ids import OP_IDS
from harness.impl._lib import f32, load, ptr
from harness.impl.profiles import MKL_AVX2, MKL_SSE42, MODELLED_BLAS, RSQRT_AMD, RSQRT_QEMU, KernelProfile

# op -> (forward C function, backward C function, what the backward reads besides grad_out)
_KERNELS: dict[str, tuple[str, str, str]] = {
    "exp": ("exp_forward", "exp_backward", "out"),
    "log": ("log_forward", "log_backward", "x"),
    "tanh": ("tanh_forward", "tanh_backward", "out"),
    "sin": ("sin_forward", "", "x"),  # its backward is grad * cos(x): autograd's cos and mul
    "cos": ("cos_forward", "", "x"),  # its backward is grad * -sin(x): autograd's sin, neg and mul
    "erf": ("erf_forward", "", "x"),  # its backward is grad * 2/sqrt(pi) * exp(-x*x): autograd's ops
    "erfinv": ("erfinv_forward", "", "x"),  # its backward is grad * sqrt(pi)/2 * exp(erfinv(x)^2): autograd's ops
    "log2": ("log2_forward", "", "x"),  # its backward is grad / (x * ln 2): autograd's mul and div
    "acos": ("acos_forward", "", "x"),  # its backward is grad * -rsqrt(1 - x*x): autograd's ops
    "rsqrt": ("rsqrt_forward", "rsqrt_backward", "out"),
    "gelu": ("gelu_forward", "gelu_backward", "x"),
    "gelu_tanh": ("gelu_tanh_forward", "gelu_tanh_backward", "x"),
    "gelu_aten": ("gelu_aten_forward", "gelu_aten_backward", "x"),  # gelu (erf) where oneDNN does not run it
    "silu": ("silu_forward", "silu_backward", "x"),
    "log1p": ("log1p_forward", "", "x"),  # its backward is grad / (x + 1): autograd's add and div
    "lgamma": ("lgamma_forward", "", "x"),  # its backward is grad * digamma(x): autograd's digamma and mul
    "digamma": ("digamma_forward", "", "x"),  # its backward is polygamma(1, x): not modelled
    "expm1": ("expm1_forward", "", "x"),  # its backward is grad * (out + 1): autograd's add and mul
    "atanh": ("atanh_forward", "", "x"),  # its backward is grad / (1 - x^2): autograd's pow, rsub and div
}
# kernels that also take TensorIterator's row length (csrc/unary.c run_unary)
_ROWS = {"silu", "gelu_tanh", "gelu_aten", "atanh", "erf", "sin", "cos"}
# backward kernels that also take the input ATen's vectorized loop reads as a scalar (its NaN bits)
_SCALAR_IN = {"silu_backward", "gelu_tanh_backward"}


def _call(op: str, name: str, profile: KernelProfile, row: int | None, *arrays: np.ndarray, scalar: int = 0) -> None:
    fn = getattr(load("unary"), name)
    fn.restype = None
    n = arrays[0].size
    if row is not None and op not in _ROWS:
        raise ValueError(f"{op}: rows are modelled for {', '.join(sorted(_ROWS))} only")
    rows = (ctypes.c_int64(max(1, row or n)),) if op in _ROWS else ()
    extra = (ctypes.c_int32(scalar),) if name in _SCALAR_IN else ()
    fn(profile.as_c(), *(ptr(a) for a in arrays), ctypes.c_int64(n), *rows, *extra)


def _scalar_nans(op: str, profile: KernelProfile, scalar: int, operand: np.ndarray) -> None:
    """Refuse, on aarch64, a NaN in the input ATen's vectorized loop reads as a scalar (``scalar``, 1 for the
    kernel's first input; 0 none): its NaN bits there are measured on x86 only."""
    if scalar and profile.aarch64 and np.isnan(operand).any():
        raise ParityError(
            f"{op}: the NaN bits of ATen's vectorized loop reading a NaN input {scalar} as a scalar (broadcast "
            "along the inner dim) are measured on x86 only"
        )


def forward(op: str, x: np.ndarray, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``out`` of ``op`` applied to ``x`` (any shape, float32). ``row``: the length of the runs
    ATen's loop takes one at a time (an operand whose rows are not contiguous with each other;
    default one flat run)."""
    _measured_build(op, profile)
    x = f32(x)
    _vml_modelled(op, profile)
    out = np.empty_like(x)
    _call(op, _KERNELS[op][0], profile, row, x, out)
    return out


def backward(
    op: str,
    grad_out: np.ndarray,
    x: np.ndarray,
    out: np.ndarray,
    profile: KernelProfile,
    row: int | None = None,
    scalar: int = 0,
) -> np.ndarray:
    """``grad_x`` of ``op`` for the upstream gradient ``grad_out`` (``row`` as ``forward``'s). ``scalar``
    (silu, gelu_tanh): the input ATen's vectorized loop reads as a scalar, 1 grad_out, 2 the saved
    tensor, 0 none (the operands materialized, in loop order)."""
    if not _KERNELS[op][1]:
        raise ValueError(f"{op}: no backward kernel of its own")
    saved = {"x": f32(x), "out": f32(out)}[_KERNELS[op][2]]
    grad_out = f32(grad_out)
    if scalar:
        if _KERNELS[op][1] not in _SCALAR_IN:
            raise ValueError(f"{op}: an input read as a scalar is modelled for {', '.join(sorted(_SCALAR_IN))} only")
        _scalar_nans(f"{op} backward", profile, scalar, (grad_out, saved)[scalar - 1])
    grad_x = np.empty_like(grad_out)
    _call(op, _KERNELS[op][1], profile, row, grad_out, saved, grad_x, scalar=scalar)
    return grad_x


def logit(x: np.ndarray, eps: float | None, profile: KernelProfile, row: int) -> np.ndarray:
    """``aten.logit(x, eps)`` where ATen's vectorized loop runs it (csrc/unary.c logit_forward: a non-contiguous
    input on x86, every input on aarch64): ``x`` in loop order, runs of ``row`` elements (1: the basic loop)."""
    x = f32(x)
    out = np.empty_like(x)
    fn = load("unary").logit_forward
    fn.restype = None
    e = ctypes.c_float(-1.0 if eps is None else eps)
    fn(profile.as_c(), ptr(x), ptr(out), ctypes.c_int64(x.size), ctypes.c_int64(max(1, row)), e)
    return out


def tanh_backward_rows(
    grad_out: np.ndarray, out: np.ndarray, profile: KernelProfile, row: int, scalar: int = 0
) -> np.ndarray:
    """``aten.tanh_backward(grad_out, out)`` over TensorIterator's loop (x86): rows of ``row`` elements, in
    loop order (1: the basic loop), ``scalar`` the input read as a scalar (1 grad_out, 2 out, whose vector
    body is unfused: csrc/unary.c tanh_backward_rows; 0 none). Where grad_out and 1 - out*out are both NaN
    the element's place in that loop decides which NaN comes out (avx2/avx512)."""
    grad_out, out = f32(grad_out), f32(out)
    grad_x = np.empty_like(grad_out)
    fn = load("unary").tanh_backward_rows
    fn.restype = None
    n = ctypes.c_int64(grad_out.size)
    fn(profile.as_c(), ptr(grad_out), ptr(out), ptr(grad_x), n, ctypes.c_int64(row), ctypes.c_int32(scalar))
    return grad_x


# The ops whose lanes take SLEEF functions (softplus, log1p, lgamma, expm1, log_sigmoid, pow) are measured
# at every build the impl profiles: x86 default and avx2 (Zen 3), avx512 (an AMD EPYC Zen 5: their stubs
# are also registered for AVX-512, so 16-lane objects run there, SLEEF's _u10avx512f variants, whose
# vgetexp/vgetmant give the avx2 variants' bits but for log1p's NaN, x quieted), aarch64's NEON and SVE
# objects (emulated Neoverse N1, V1, V2). digamma is measured on x86 only (its Horner step contracted in
# the avx2 object, not in the default one; digamma_stub has no AVX-512 registration, so avx512 runs the
# avx2 object: none of 4,194,304 random bit patterns, 4,194,304 values in (-12, 40), every subnormal and
# every float in [1, 2) differs there); aarch64's objects are not.
_X86_MEASURED_OPS = ("digamma",)


def _measured_build(op: str, profile: KernelProfile) -> None:
    if op in _X86_MEASURED_OPS:
        profile.refuse_unmeasured(op, ("default", "avx2", "avx512"))


# MKL VML's kernels the impl reads (csrc/vmath.h), per op: its name and, per MKL code path reproduced, the CPU
# estimates (RCPPS/RSQRTPS) the path is modelled with (None: any). Off these paths (MKL's Intel AVX-512 path, never
# read) the op is refused. MKL_CBWR=COMPATIBLE gives the generic path's bits (measured).
# - vsSin/vsCos (mkl_vml_sinf/cosf, mkl_avx2_vml_sinf/cosf): the generic and Intel SSE4.2 paths run one kernel, the
#   Intel AVX2 path the same with fused multiply-adds (another N next to k*pi and (k + 1/2)*pi, other last bits);
#   past 10000 each its large-argument branch (mkl_vml_sincosf_large: a 96-bit multiple of 1/(2*pi), a 256-entry
#   table, float steps; the AVX2 kernel's fused), finite |x| of every size.
# - vsErf/vsErfInv (mkl_vml_erff/mkl_vml_erfinvf): the generic and Intel SSE4.2 paths compute alike (sErf_EXHAynn and
#   sErf_H8HAynn; vsErfInv has no H8 kernel, the SSE4.2 path runs sErfInv_EXHAynn), the Intel AVX2 path
#   (sErf/sErfInv_L9HAynn) the same tables with fused multiply-adds (erfinv's S split otherwise); no CPU estimate.
# - vsLog2/vsAcos (mkl_vml_log2f/mkl_vml_acosf): the generic path (sLog2/sAcos_EXHAynn, also the Intel SSE4.2 path's:
#   vsLog2 has no H8 kernel, sAcos_H8HAynn computes as EXHAynn) and the Intel AVX2 path (sLog2/sAcos_L9HAynn: the
#   same steps with fused multiply-adds, acos without truncating RSQRTPS), both from the CPU's RCPPS/RSQRTPS: AMD's
#   (measured) on the generic path, QEMU's (exact) on the Intel paths, whose bits are measured under QEMU only (an
#   Intel CPU's RCPPS is not measured; acos on its RSQRTPS table not checked on one).
# - vmdSin/vmdCos, float64 (sincos_f64_forward, csrc/dmath.h mkl_vml_sincos_d): the generic path only
#   (dSin/dCos_EXHAynn; the Intel paths' H8HAynn, L9HAynn and Z0HAynn kernels not read, refused there, as aarch64's
#   SLEEF double lanes are).
# aarch64 has no MKL and refuses none of them: sin/cos SLEEF's u10 lanes (csrc/unary.c vml_map of
# sleef_sin_vector/sleef_cos_vector, each vector's Cody-Waite or Payne-Hanek branch), erf ATen's NEON polynomial (N1,
# V2) or SLEEF's erff (V1), erfinv ATen's calc_erfinv (aten_calc_erfinvf_a64), log2/acos SLEEF's lanes
# (sleef_log2f_u10, sleef_acosf_u10).
_ESTIMATED = {MODELLED_BLAS: (RSQRT_AMD, RSQRT_QEMU), MKL_SSE42: (RSQRT_QEMU,), MKL_AVX2: (RSQRT_QEMU,)}
_ALL_PATHS = {MODELLED_BLAS: None, MKL_SSE42: None, MKL_AVX2: None}
_VML: dict[str, tuple[str, Mapping[str, tuple[str, ...] | None]]] = {
    "sin": ("vsSin", _ALL_PATHS),
    "cos": ("vsCos", _ALL_PATHS),
    "erf": ("vsErf", _ALL_PATHS),
    "erfinv": ("vsErfInv", _ALL_PATHS),
    "log2": ("vsLog2", _ESTIMATED),
    "acos": ("vsAcos", _ESTIMATED),
}
_PATH_NAMES = {MODELLED_BLAS: "generic", MKL_SSE42: "Intel SSE4.2", MKL_AVX2: "Intel AVX2"}


def _vml_modelled(op: str, profile: KernelProfile) -> None:
    """Refuse ``op`` where its MKL VML kernel is not modelled (``_VML``): off the MKL code paths read, or on one
    modelled with other CPU estimates than the profile's."""
    if profile.aarch64 or op not in _VML:
        return
    name, paths = _VML[op]
    if profile.blas not in paths:
        read = [_PATH_NAMES[b] for b in paths]
        where = f"{', '.join(read[:-1])} and {read[-1]} paths" if len(read) > 1 else f"{read[0]} path"
        raise ParityError(
            f"{op}: MKL VML's {name} is not modelled on {profile.name} (BLAS {profile.blas}): read from MKL's {where} "
            "only"
        )
    estimates = paths[profile.blas]
    if estimates is not None and profile.rsqrt_estimate not in estimates:
        raise ParityError(
            f"{op}: MKL VML's {name} starts from the CPU's RCPPS/RSQRTPS estimates, modelled on BLAS {profile.blas} "
            f"for {' and '.join(estimates)} only (the profile's: {profile.rsqrt_estimate})"
        )


def _softplus_call(
    name: str, profile: KernelProfile, row: int | None, beta: float, threshold: float, *arrays, scalar: int = 0
):
    fn = getattr(load("unary"), name)
    fn.restype = None
    n = arrays[0].size
    extra = (ctypes.c_int32(scalar),) if name == "softplus_backward" else ()
    fn(
        profile.as_c(),
        *(ptr(a) for a in arrays),
        ctypes.c_int64(n),
        ctypes.c_int64(max(1, row or n)),
        ctypes.c_float(beta),
        ctypes.c_float(threshold),
        *extra,
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
    grad_out: np.ndarray,
    x: np.ndarray,
    beta: float,
    threshold: float,
    profile: KernelProfile,
    row: int | None = None,
    scalar: int = 0,
) -> np.ndarray:
    """``aten.softplus_backward(grad_out, x, beta, threshold)``: grad_x of softplus (``scalar``: the input
    ATen's vectorized loop reads as a scalar, 1 grad_out, 2 x, 0 none)."""
    grad_out, x = f32(grad_out), f32(x)
    if scalar:
        _scalar_nans("softplus_backward", profile, scalar, (grad_out, x)[scalar - 1])
    grad_x = np.empty_like(grad_out)
    _softplus_call("softplus_backward", profile, row, beta, threshold, grad_out, x, grad_x, scalar=scalar)
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
    x = f32(x)
    out, buffer = np.empty_like(x), np.empty_like(x)
    fn = load("unary").log_sigmoid_forward
    fn.restype = None
    fn(profile.as_c(), ptr(x), ptr(out), ptr(buffer), ctypes.c_int64(x.size))
    return out, buffer


def log_sigmoid_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    buffer: np.ndarray,
    profile: KernelProfile,
    row: int | None = None,
    scalar: int = 0,
) -> np.ndarray:
    """``aten.log_sigmoid_backward(grad_out, x, buffer)``: grad_x of log_sigmoid, operands of one shape
    (``row`` as ``forward``'s: where a NaN grad meets a NaN buffer, the element's place in ATen's loop
    decides which NaN comes out; ``scalar``: the input ATen's vectorized loop reads as a scalar, in the
    kernel's order 1 x, 2 buffer, 3 grad_out, 0 none)."""
    grad_out, x, buffer = f32(grad_out), f32(x), f32(buffer)
    if scalar:
        _scalar_nans("log_sigmoid_backward", profile, scalar, (x, buffer, grad_out)[scalar - 1])
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
        ctypes.c_int32(scalar),
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


def _elu_call(name: str, profile: KernelProfile, row: int | None, params: tuple[float, float, float], *arrays) -> None:
    if not all(math.isfinite(v) for v in params):
        raise ParityError(f"the impl reproduces elu with finite alpha, scale and input_scale only, not {params}")
    fn = getattr(load("unary"), name)
    fn.restype = None
    n = arrays[0].size
    extra = arrays[-1] if isinstance(arrays[-1], int) else None
    tensors = arrays[:-1] if extra is not None else arrays
    fn(profile.as_c(), *(ptr(a) for a in tensors), ctypes.c_int64(n), ctypes.c_int64(max(1, row or n)),
       ctypes.c_int64(profile.lanes_wide), *(ctypes.c_float(v) for v in params),
       *(() if extra is None else (ctypes.c_int32(extra),)))  # fmt: skip


def elu_forward(
    x: np.ndarray, params: tuple[float, float, float], profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``aten.elu(x, alpha, scale, input_scale)`` (``params``) of float32 ``x`` (any shape; selu and celu
    are elu), each parameter rounded to float as ``Scalar::to<float>``; ``row`` as ``forward``'s (the
    vector body's lanes take Vectorized's expm1, the scalar tail glibc's expm1f: aarch64's contracted one on
    the arm64 profiles, whose products give aarch64's NaNs)."""
    x = f32(x)
    out = np.empty_like(x)
    _elu_call("elu_forward", profile, row, params, x, out)
    return out


def elu_backward(
    grad_out: np.ndarray,
    b: np.ndarray,
    params: tuple[float, float, float],
    is_result: bool,
    profile: KernelProfile,
    row: int | None = None,
) -> np.ndarray:
    """``aten.elu_backward(grad_out, alpha, scale, input_scale, is_result, b)``: grad_x, ``b`` the input
    (or with ``is_result`` the output), operands of one shape; ``row`` as ``forward``'s (a NaN b gives a
    NaN in the vector body and grad * scale in the scalar tail)."""
    grad_out, b = f32(grad_out), f32(b)
    if grad_out.shape != b.shape:
        raise ParityError(
            f"the impl reproduces elu_backward of operands of one shape only, not {grad_out.shape} and {b.shape}"
        )
    grad_x = np.empty_like(grad_out)
    _elu_call("elu_backward", profile, row, params, grad_out, b, grad_x, int(is_result))
    return grad_x


def mish(
    x: np.ndarray, grad_out: np.ndarray | None, profile: KernelProfile, row: int | None = None, scalar: int = 0
) -> np.ndarray:
    """``aten.mish(x)`` of float32 ``x`` (any shape), or with ``grad_out`` ``aten.mish_backward(grad_out, x)``
    (operands of one shape): csrc/unary.c mish_forward / mish_backward, the vector body's lanes with
    Vectorized exp, log1p and tanh (SLEEF's at avx2 and avx512, 16 lanes there; glibc's per lane at
    default), the scalar tails glibc's; ``row`` as ``forward``'s; ``scalar`` the backward's input ATen's
    vectorized loop reads as a scalar (1 grad_out, 2 x, 0 none: a NaN x's sign in the default body)."""
    xs = [f32(x)] if grad_out is None else [f32(grad_out), f32(x)]
    if len({v.shape for v in xs}) > 1:
        raise ParityError("the impl reproduces mish_backward of operands of one shape only")
    out = np.empty_like(xs[0])
    fn = load("unary").mish_forward if grad_out is None else load("unary").mish_backward
    fn.restype = None
    n = out.size
    extra = () if grad_out is None else (ctypes.c_int32(scalar),)
    fn(profile.as_c(), *(ptr(v) for v in xs), ptr(out), ctypes.c_int64(n), ctypes.c_int64(max(1, row or n)),
       ctypes.c_int64(profile.lanes_wide), *extra)  # fmt: skip
    return out


def hard_activation(
    name: str, arrays: tuple[np.ndarray, ...], profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``name`` (hardswish, hardsigmoid, hardswish_backward, hardsigmoid_backward) of float32 ``arrays``
    (x, or grad and x, of one shape); ``row`` as ``forward``'s (a NaN x: every bit set in hardsigmoid's
    vector lanes at avx2 and avx512, x's quieted NaN on aarch64 (FMAX and FMIN pass it on), a NaN in
    hardswish_backward's vector lanes and grad in its tail)."""
    xs = [f32(x) for x in arrays]
    if len({x.shape for x in xs}) > 1:
        raise ParityError(f"the impl reproduces {name} of operands of one shape only")
    out = np.empty_like(xs[0])
    kernel = f"{name}_forward" if not name.endswith("_backward") else name
    fn = getattr(load("unary"), kernel)
    fn.restype = None
    n = out.size
    fn(profile.as_c(), *(ptr(x) for x in xs), ptr(out), ctypes.c_int64(n), ctypes.c_int64(max(1, row or n)),
       ctypes.c_int64(profile.lanes_wide if name.startswith("hardswish") else profile.lanes))  # fmt: skip
    return out


def binary_kernel(
    name: str, arrays: tuple[np.ndarray, ...], profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``name`` (maximum, minimum, fmod, remainder, atan2 of two float32 arrays; clamp of self, min, max) of one
    shape; ``row`` as ``forward``'s (a NaN and equal zeros of either sign are where minimum's and
    maximum's vector body and scalar tail differ, on aarch64 the vector body's FMAX and FMIN; fmod's and
    remainder's NaN lanes of SLEEF's fmodf in the avx2, avx512 and aarch64 vector bodies are refused; atan2:
    SLEEF's atan2f in the vector body, 16 lanes at avx512, glibc's atan2f in the tails and the default build's
    lanes, not measured on aarch64)."""
    xs = [f32(x) for x in arrays]
    if len({x.shape for x in xs}) > 1:
        raise ParityError(f"the impl reproduces {name} of operands of one shape only")
    out = np.empty_like(xs[0])
    fn = getattr(load("unary"), f"{name}_forward")
    fn.restype = ctypes.c_int64 if name in ("fmod", "remainder") else None
    n = out.size
    unproven = fn(profile.as_c(), *(ptr(x) for x in xs), ptr(out), ctypes.c_int64(n), ctypes.c_int64(max(1, row or n)),
                  ctypes.c_int64(profile.lanes_wide if name == "atan2" else profile.lanes))  # fmt: skip
    if unproven:
        raise ParityError(
            f"{name}: {unproven} vector lanes of SLEEF's fmodf give a NaN (a NaN or infinite a, a NaN or zero b, a "
            "quotient past float's range), whose bits are not modelled"
        )
    return out


def binary_cross_entropy(x: np.ndarray, target: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """binary_cross_entropy's elements (Loss.cpp's scalar lambda, csrc/unary.c ``bce_forward``) of ``x`` and
    ``target`` (float32, one shape, every value in [0, 1], as ATen requires): ``(t - 1) * max(log1p(-x), -100)
    - t * max(log(x), -100)`` through glibc's log1pf and logf, in the x86 default object every level shares;
    on aarch64 the wheel's object fuses ``t * b`` into the difference, over aarch64 glibc's contracted log1pf;
    refused where x86 glibc's logf is not its FMA build."""
    if not profile.aarch64 and not profile.libm_fma:
        raise ParityError("binary_cross_entropy where glibc's logf is not its FMA build: not measured")
    xs = [f32(v) for v in (x, target)]
    if xs[0].shape != xs[1].shape:
        raise ParityError("the impl reproduces binary_cross_entropy of self and target of one shape only")
    if not all(bool(((v >= 0) & (v <= 1)).all()) for v in xs):
        raise ParityError("binary_cross_entropy of values outside [0, 1] (NaN included): ATen raises instead")
    out = np.empty_like(xs[0])
    fn = load("unary").bce_forward
    fn.restype = None
    fn(*(ptr(v) for v in xs), ptr(out), ctypes.c_int64(out.size), ctypes.c_int32(profile.aarch64))
    return out


# pow with an exponent PowKernel.cpp has no special case for: measured at x86's default and avx2 builds
# (SLEEF's powf in the avx2 object, glibc's powf in the default one), at avx512 (its AVX-512 object:
# SLEEF's 16-lane powf, the avx2 bits, in steps of 32 elements, so other scalar tails) and in aarch64's
# NEON and SVE objects (SLEEF's advsimd and SVE powf, the avx2 object's bits) on emulated Neoverse N1, V1
# and V2.


def pow_scalar_forward(x: np.ndarray, exponent: float, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``aten.pow.Tensor_Scalar`` of float32 ``x`` (any shape) for a finite exponent without a special
    case of its own: vector lanes take powf of the exponent cast to float32 (as Vectorized's pow takes
    it); ATen's scalar tails take std::pow(float, double), glibc's double pow rounded to float, given
    by ``pow_tail`` and refused where it cannot prove the rounding. ``row`` as ``forward``'s."""
    if float(exponent) in (0.5, -0.5, -1.0, 2.0, 3.0, -2.0):
        raise ParityError(f"pow with exponent {exponent} takes a special case of PowKernel.cpp, not powf")
    if not np.isfinite(np.float32(exponent)):
        raise ParityError(f"the impl reproduces pow with a finite float32 exponent only, not {exponent}")
    x = f32(x)
    out = np.empty_like(x)
    mask = np.zeros_like(x)
    fn = load("unary").pow_scalar_forward
    fn.restype = ctypes.c_int64
    tail = fn(profile.as_c(), ptr(x), ptr(out), ptr(mask), ctypes.c_int64(x.size),
              ctypes.c_int64(max(1, row or x.size)), ctypes.c_float(exponent))  # fmt: skip
    if tail:
        at = mask != 0
        values, proven = pow_tail(x[at], float(exponent), profile.aarch64, fma_build=profile.libm_fma)
        if not proven.all():
            raise ParityError(
                f"pow with exponent {exponent}: {np.count_nonzero(~proven)} of the {tail} elements in ATen's "
                f"scalar tail (first x = {float(x[at][~proven][0])!r}) lie within glibc double pow's error bound of a "
                "float rounding boundary: which float std::pow(float, double) gives is not proven"
            )
        out[at] = values
    return out


def pow_tensor_forward(
    base: np.ndarray, exponent: np.ndarray, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``aten.pow.Tensor_Tensor`` of float32 ``base`` and ``exponent`` (one shape, or one of them a
    single element broadcast), and ``aten.pow.Scalar`` of a number other than 1 (pass it cast to
    float32, as TensorIterator casts the wrapped number): vector lanes SLEEF powf (glibc powf at
    default; aarch64 SLEEF's advsimd/SVE powf, the same bits), each run's scalar tail glibc powf
    (std::pow(float, float); aarch64 glibc's own build: k rounded ties away, FADD's NaNs, +qNaN for a
    negative base to a fractional power), csrc/unary.c pow_tensor_forward. ``row`` as ``forward``'s."""
    b, e = (np.ascontiguousarray(v, np.float32) for v in np.broadcast_arrays(f32(base), f32(exponent)))
    out = np.empty_like(e)
    fn = load("unary").pow_tensor_forward
    fn.restype = None
    fn(profile.as_c(), ptr(b), ptr(e), ptr(out), ctypes.c_int64(e.size), ctypes.c_int64(max(1, row or e.size)))
    return out


def pow_f64_forward(
    base: np.ndarray, exponent: np.ndarray, profile: KernelProfile, row: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """float64 ``base`` to float64 ``exponent`` (one shape, or one of them broadcast) as pow_tensor_tensor_kernel
    and pow_tensor_scalar_optimized_kernel's generic exponent compute it (``aten.pow.Scalar`` of a number to a
    float64 tensor, ``pow.Tensor_Tensor`` and ``pow.Tensor_Scalar`` of float64): SLEEF's double pow
    (Sleef_powd4_u10 / powd8_u10) in the vector lanes at avx2 / avx512, on aarch64 in blocks of 2 vectors
    (NEON's Sleef_powd2_u10: 4 elements on N1 and V2; SVE256's powdx: 8 on V1), csrc/unary.c pow_f64_forward,
    and glibc's double pow (csrc/dmath.h glibc_pow_dd: x86-64's FMA build, or aarch64's) in each run's scalar
    tail and every element at x86's default. Returns the powers and a mask of the elements glibc's pow
    computes. ``row`` as ``forward``'s."""
    b, e = (np.ascontiguousarray(v, np.float64) for v in np.broadcast_arrays(base, exponent))
    out, tail = np.empty_like(e), np.empty(e.shape, np.uint8)
    fn = load("unary").pow_f64_forward
    fn.restype = ctypes.c_int64
    fn(
        profile.as_c(),
        ptr(b),
        ptr(e),
        ptr(out),
        ptr(tail),
        ctypes.c_int64(e.size),
        ctypes.c_int64(max(1, row or e.size)),
    )
    if not (profile.libm_fma or profile.aarch64) and tail.any():
        raise ParityError(
            f"pow of float64 on {profile.name}: {np.count_nonzero(tail)} elements in glibc's double pow, whose "
            "build on a CPU without FMA (__pow_sse2) is not modelled, only its FMA build"
        )
    return out, tail.astype(bool)


def powi(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """``pow.Tensor_Tensor`` of two signed integer tensors of one dtype (ATen's ``native::powi``,
    pow_tensor_tensor_kernel's integral branch; exact, so no level, thread count or layout reaches a bit): a
    negative exponent gives 1 for a base of 1, -1 or 1 for -1 (odd or even), else 0; otherwise square-and-multiply
    over the exponent's bits, the products wrapping as the C++ loop's do."""
    a, b = (np.array(v, copy=True) for v in np.broadcast_arrays(base, exponent))
    result, bits = np.ones_like(a), np.where(b < 0, 0, b)
    sign = np.where((-b) & 1, -1, 1).astype(a.dtype)  # (-b) % 2 of a negative b: its parity (INT_MIN even)
    while (bits != 0).any():
        result = np.where(bits & 1, result * a, result)
        bits, a = bits // 2, a * a
    return np.where(b < 0, np.where(base == 1, 1, np.where(base == -1, sign, 0)).astype(result.dtype), result)


def glibc_pow(x: np.ndarray, y: np.ndarray, aarch64: bool = False) -> np.ndarray:
    """``std::pow(double, double)`` of float64 ``x`` and ``y`` (one shape) as x86-64's glibc computes it
    (csrc/dmath.h glibc_pow_d: 2.28 and later, its FMA build, bit for bit), or with ``aarch64`` aarch64's
    (glibc_pow_dd: k ties away from the rounded product, FADD's NaN pick, +qNaN for an invalid power)."""
    a, b = (np.ascontiguousarray(v, np.float64) for v in np.broadcast_arrays(x, y))
    out = np.empty_like(a)
    fn = load("unary").glibc_pow_f64
    fn.restype = None
    fn(ptr(a), ptr(b), ptr(out), ctypes.c_int64(a.size), ctypes.c_int32(int(aarch64)))
    return out


def sincos_f64_forward(op: str, x: np.ndarray, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``sin``/``cos`` of a float64 ``x`` on x86: MKL VML's vmdSin/vmdCos (VML_HA) on MKL's generic path, read from
    its kernel (csrc/dmath.h mkl_vml_sincos_d), elementwise (no ATen level, thread count or layout reaches a bit).
    On aarch64 SLEEF's Sleef_sind2_u10 / cosd2_u10 (SVE256: sindx / cosdx_u10sve) over vec::map's vectors (csrc/
    unary.c sincos_f64_a64_forward: ``x`` in ATen's loop order, runs of ``row``), each vector's Cody-Waite branch as
    its lanes' magnitudes pick it. Refused in one line: a vector holding |x| >= 1e14, an infinity or a NaN on
    aarch64 (SLEEF's Payne-Hanek branch, not ported) and MKL's Intel paths (their kernels not read)."""
    a = np.ascontiguousarray(x, np.float64)
    out = np.empty_like(a)
    if profile.aarch64:
        fn = load("unary").sincos_f64_a64_forward
        fn.restype = ctypes.c_int64
        rows = ctypes.c_int64(max(1, row or a.size))
        refused = fn(profile.as_c(), ptr(a), ptr(out), ctypes.c_int64(a.size), rows, ctypes.c_int32(op == "cos"))
        if refused:
            raise ParityError(
                f"{op} of float64 on {profile.name}: {refused} elements in SLEEF vectors holding |x| >= 1e14, an "
                "infinity or a NaN (its Payne-Hanek branch, not modelled)"
            )
        return out
    if profile.blas != MODELLED_BLAS:
        raise ParityError(
            f"{op} of float64: MKL VML's vmd{op.capitalize()} is not modelled on {profile.name} (BLAS "
            f"{profile.blas}): read from MKL's generic path only"
        )
    fn = load("unary").sincos_f64_forward
    fn.restype = None
    fn(ptr(a), ptr(out), ctypes.c_int64(a.size), ctypes.c_int32(op == "cos"))
    return out


# glibc's double pow (2.28 and later; x86_64 and aarch64 2.36 measured, one generic algorithm): documented
# worst error 0.52 ULP of double, bounded here by 1 ULP, i.e. 2**-52 of the exact value where it is a
# normal double and 2**-1074 below.
_GLIBC_POW_REL = Decimal(2) ** -52
_GLIBC_POW_ABS = Decimal(2) ** -1074
_TAIL_DIGITS = 60  # the reference power's precision; its error is counted as 10**-(60 - 5) relative
_TAIL_REF_REL = Decimal(10) ** -(_TAIL_DIGITS - 5)
_HALF_FLT_MAX_ULP = Decimal(2) ** 103  # FLT_MAX + 2**103 is the midpoint to "2**128", where float overflows


def _odd_integer(y: float) -> bool:
    return y.is_integer() and abs(y) < 2.0**53 and int(y) % 2 == 1


def _pow_special(x: float, y: float, aarch64: bool) -> float | None:
    """C99's pow (Annex F.10.4.4) for a finite non-zero ``y`` where x is NaN, 1, 0, infinite or negative
    with a non-integer y, as glibc answers it (NaN x: x quieted, its sign cleared where y is an odd
    integer, as glibc's x*x negated for a negative x and an odd y; invalid: glibc's (x - x) / (x - x),
    the CPU's default NaN: negative on x86, positive on ``aarch64``); None where the power is a finite
    non-zero number."""
    odd = _odd_integer(y)
    if math.isnan(x):
        return x
    if x == 1.0:
        return 1.0
    if x == 0.0:
        return (math.copysign(math.inf, x) if odd else math.inf) if y < 0 else (x if odd else 0.0)
    if math.isinf(x):
        magnitude = 0.0 if y < 0 else math.inf
        return -magnitude if x < 0 and odd else magnitude
    if x < 0 and not y.is_integer():
        return math.nan if aarch64 else -math.nan
    return None


def _float_neighbour_midpoints(f: np.float32) -> tuple[Decimal, Decimal]:
    """The rounding boundaries around a non-negative float32 ``f`` (inf: the overflow threshold and beyond)."""
    if np.isinf(f):
        return Decimal(float(np.finfo(np.float32).max)) + _HALF_FLT_MAX_ULP, Decimal("Infinity")
    value = Decimal(float(f))
    below = Decimal(float(np.nextafter(f, np.float32(0)))) if f > 0 else -value - 1
    above = np.nextafter(f, np.float32(np.inf))
    if np.isinf(above):
        return (value + below) / 2, value + _HALF_FLT_MAX_ULP
    return (value + below) / 2, (value + Decimal(float(above))) / 2


def _exact_double_power(a: float, y: float) -> float | None:
    """``a``**y exactly where the power is a normal double, which glibc's pow, off by less than 1 ULP,
    returns itself: y (a double) is p / 2**j, and for j <= 4 and |p| <= 256 the root of a**p is
    taken while it is exact; None otherwise."""
    ratio = Fraction(y)
    if ratio.denominator > 16 or abs(ratio.numerator) > 256:
        return None
    power = Fraction(a) ** ratio.numerator
    for _ in range(ratio.denominator.bit_length() - 1):  # square roots while both terms are squares
        top, bottom = math.isqrt(power.numerator), math.isqrt(power.denominator)
        if top * top != power.numerator or bottom * bottom != power.denominator:
            return None
        power = Fraction(top, bottom)
    value = float(power) if power < 2**1024 else math.inf
    return value if 2.0**-1022 <= value < math.inf and Fraction(value) == power else None


def pow_tail(
    x: np.ndarray, y: float, aarch64: bool = False, *, fma_build: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """std::pow(float, double) rounded to float (ATen's scalar tail of pow.Tensor_Scalar) for float32 ``x``
    and a finite double ``y`` not 0: ``(values, proven)``. The special values by C99's rules
    (``_pow_special``); otherwise |x|**y to 60 significant digits (Python's decimal, exact operands),
    whose float rounding glibc's double pow rounded to float equals where the exact power's interval,
    widened by glibc's bound and the reference's, lies strictly between the float's two rounding
    boundaries, or where the power is exactly a double (``_exact_double_power``); proven False
    elsewhere: its value is not to be used. ``aarch64``: that build's glibc, whose invalid answer is
    the aarch64 default NaN. On x86 every element is glibc's own steps (csrc/dmath.h glibc_pow_d, x86-64's
    FMA build) rounded to float: all proven; without that build (``fma_build`` False: KernelProfile.libm_fma)
    the proof as on aarch64."""
    x = f32(x)
    if not aarch64 and fma_build:
        out = np.empty(x.shape, np.float32)
        fn = load("unary").glibc_pow_f32
        fn.restype = None
        fn(ptr(np.ascontiguousarray(x)), ctypes.c_double(y), ptr(out), ctypes.c_int64(x.size))
        return out, np.ones(x.shape, bool)
    values = np.zeros(x.shape, np.float32)
    proven = np.ones(x.shape, bool)
    with localcontext() as ctx, np.errstate(all="ignore"):
        ctx.prec = _TAIL_DIGITS
        for i, xi in enumerate(x.tolist()):
            special = _pow_special(xi, y, aarch64)
            if special is not None:
                values[i] = np.float32(special)
                if math.isnan(xi):  # float -> double -> float keeps the payload: quieted, sign cleared for an odd y
                    bits = int(x[i : i + 1].view(np.uint32)[0]) | 0x00400000
                    values[i : i + 1].view(np.uint32)[0] = bits & 0x7FFFFFFF if _odd_integer(y) else bits
                continue
            sign = -1.0 if xi < 0 and _odd_integer(y) else 1.0
            size = y * math.log2(abs(xi))  # far past float's range either way: glibc's double rounds there too
            if size > 300 or size < -1200:
                values[i] = np.float32(sign * (math.inf if size > 0 else 0.0))
                continue
            exact = Decimal(abs(xi)) ** Decimal(y)
            f = np.float32(float(exact))
            low, high = _float_neighbour_midpoints(f)
            slack = exact * (_GLIBC_POW_REL + _TAIL_REF_REL) + _GLIBC_POW_ABS
            proven[i] = low < exact - slack and exact + slack < high
            if not proven[i] and (double := _exact_double_power(abs(xi), y)) is not None:
                f, proven[i] = np.float32(double), True  # that double's float rounding (ties to even)
            values[i] = np.float32(sign) * f
    return values, proven


Arrays = dict[str, np.ndarray]


def _runner(op: str):
    def run(params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile) -> Arrays:
        out = forward(op, inputs["x"], profile)
        return {"out": out, "grad_x": backward(op, inputs["grad_out"], inputs["x"], out, profile)}

    return run


RUNNERS = {op: _runner(op) for op in _KERNELS if op in OP_IDS}  # silu: traces only, no fixture op


# bfloat16 pow on x86 (PowKernel.cpp): the exponent converted to bfloat16 (Scalar::to<BFloat16>, through float)
# and each step of pow_tensor_scalar_optimized_kernel computed in float and rounded back to bfloat16 (c10's
# BFloat16 operators; Vectorized<BFloat16>'s binary_op_as_fp32 the same per vector). A NaN rounds to 0x7FC0 in
# c10::BFloat16's conversion (scalar code, and every element of the default build's generic Vectorized) but to
# 0xFFFF in the AVX2 / AVX-512 objects' cvtfp32_bf16, so where an element falls in ATen's loop decides its bits.
BF16_NAN_SCALAR = 0x7FC0
BF16_NAN_VECTOR = 0xFFFF


def bf16_widen(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) as the float32s they are (the 16 bits on top, a NaN's payload kept)."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16_round(x: np.ndarray, vector: np.ndarray | bool) -> np.ndarray:
    """float32 ``x`` rounded to bfloat16 bits to nearest, ties to even; a NaN 0x7FC0 (c10::BFloat16) or, where
    ``vector``, 0xFFFF (the AVX2 / AVX-512 cvtfp32_bf16)."""
    u = np.asarray(x, np.float32).view(np.uint32)
    out = ((u + np.uint32(0x7FFF) + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    return np.where(nan, np.where(vector, np.uint16(BF16_NAN_VECTOR), np.uint16(BF16_NAN_SCALAR)), out)


def bf16_vector_mask(profile: KernelProfile, n: int, row: int | None) -> np.ndarray:
    """Whether each of ``n`` elements (loop order, runs of ``row``) falls in cpu_kernel_vec's vector body over
    bfloat16 (blocks of 2 x Vectorized<BFloat16>::size(): 32 at avx2, 64 at avx512); none in the default build,
    whose generic Vectorized computes each element as the scalar code does."""
    if profile.aten in ("avx2", "avx512") and n:
        return _block_mask(profile, 2 * profile.lanes_wide, n, row)
    return np.zeros(n, bool)


def _block_mask(profile: KernelProfile, half: int, n: int, row: int | None) -> np.ndarray:
    """Whether each of ``n`` elements (loop order, runs of ``row``) falls in a whole block of 2 x ``half`` of its
    run within its at::parallel_for chunk (GRAIN_SIZE over the profile's threads: csrc/unary.c vector_body_mask)."""
    vec = np.zeros(n, np.uint8)
    fn = load("unary").vector_body_mask
    fn.restype = None
    fn(profile.as_c(), ctypes.c_int64(half), ptr(vec), ctypes.c_int64(n), ctypes.c_int64(max(1, row or n)))
    return vec.astype(bool)


def _bf16_steps(x: np.ndarray, exponent: float, vec: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """pow_tensor_scalar_kernel's bfloat16 cases for widened ``x`` (flat, loop order) and its path mask."""

    def r(v: np.ndarray) -> np.ndarray:  # a step's rounding (an intermediate NaN's bits never reach the output)
        return bf16_widen(bf16_round(v, vec))

    with np.errstate(all="ignore"):
        if exponent == 0.5:  # sqrt_kernel: vml's map, every element through Vectorized (default: per element)
            return bf16_round(np.sqrt(x), profile.aten != "default")
        if exponent == -0.5:  # rsqrt_kernel: vector 1 / sqrt in float, scalar 1 / BFloat16(sqrt)
            one = np.float32(1)
            return bf16_round(np.where(vec, one / np.sqrt(x), one / r(np.sqrt(x))), vec)
        if exponent == -1.0:  # reciprocal_kernel
            return bf16_round(np.float32(1) / x, vec)
        e = np.float32(bf16_widen(bf16_round(np.float32(exponent), False)))
        if not np.isfinite(e):
            raise ParityError(f"pow of bfloat16: the exponent {exponent} does not fit bfloat16 (torch raises)")
        if e == 2:
            return bf16_round(x * x, vec)
        if e == 3:
            return bf16_round(r(x * x) * x, vec)
        if e == -2:
            return bf16_round(np.float32(1) / r(x * x), vec)
    return bf16_round(_powf_lanes(x, np.full_like(x, e), vec, profile), vec)


def _powf_lanes(x: np.ndarray, e: np.ndarray, vec: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """powf of float32 ``x`` and ``e`` (flat, one size): SLEEF's (the vector lanes' vec_powf) where ``vec``,
    glibc's elsewhere (csrc/unary.c pow_lanes_f32)."""
    out = np.empty_like(x)
    fn = load("unary").pow_lanes_f32
    fn.restype = None
    lanes = vec.astype(np.uint8)
    fn(profile.as_c(), ptr(x), ptr(e), ptr(lanes), ptr(out), ctypes.c_int64(x.size))
    return out


def f16_widen(bits: np.ndarray) -> np.ndarray:
    """float16 bit patterns (uint16) as float32s: a NaN's sign and payload kept, a signalling one quieted (F16C's
    vcvtph2ps in the AVX2 / AVX-512 objects; the default build's fp16_ieee_to_fp32_value scales by a multiply,
    which quiets it too)."""
    bits = np.asarray(bits, np.uint16)
    u = bits.astype(np.uint32)
    nan = (u & 0x7C00) == 0x7C00
    nan &= (u & 0x3FF) != 0
    with np.errstate(all="ignore"):
        wide = bits.view(np.float16).astype(np.float32).view(np.uint32)
    nan_bits = ((u & 0x8000) << 16) | np.uint32(0x7F800000) | ((u & 0x3FF) << 13) | np.uint32(0x400000)
    return np.where(nan, nan_bits, wide).astype(np.uint32).view(np.float32)


def f16_round(x: np.ndarray, f16c: bool) -> np.ndarray:
    """float32 ``x`` rounded to float16 bits to nearest, ties to even; a NaN its sign and 0x7E00 (the default
    build's fp16_ieee_from_fp32_value) or, where ``f16c``, quiet with the top 9 bits of its payload kept (F16C's
    vcvtps2ph: the AVX2 / AVX-512 objects' c10::Half and cvtfp32_fp16 alike)."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32)
    with np.errstate(all="ignore"):
        out = x.astype(np.float16).view(np.uint16)
    sign = ((u >> 16) & 0x8000).astype(np.uint16)
    payload = ((u >> 13) & 0x1FF).astype(np.uint16) if f16c else np.zeros(x.shape, np.uint16)
    return np.where(np.isnan(x), sign | np.uint16(0x7E00) | payload, out)


def _refuse_arm64_cast(x: np.ndarray, x32: np.ndarray, profile: KernelProfile, dtype: str) -> None:
    """On aarch64 a NaN cast to ``dtype`` and a float64 one (c10's aarch64 conversions, NEON's ``fcvt``: not
    measured) refused."""
    if profile.aarch64 and (np.isnan(x32).any() or np.asarray(x).dtype != np.float32):
        raise ParityError(f"a NaN or float64 cast to {dtype} on aarch64 is not modelled (its conversions not measured)")


def cast_to_f16(x: np.ndarray, profile: KernelProfile, fbgemm: bool) -> np.ndarray:
    """float32 or float64 ``x`` cast to float16 (``Tensor.to``, ``copy_``) on x86: its bits. Rounded to nearest
    even (float64 through float32 first: ``c10::convert<Half>(double)`` and the vectorized convert alike); a NaN
    quiet with its sign and the top 9 bits of its payload (F16C's ``vcvtps2ph``) in the AVX2 / AVX-512 objects'
    copy kernels, scalar and vector code alike, and in Copy.cpp's FBGEMM fast path of float32 (``fbgemm``: both
    tensors contiguous, or the output non-overlapping and dense with the source's strides:
    ``FloatToFloat16_simd``, dispatched on the CPU, not on ATen's level); else, in the default build's copy
    kernel, ``fp16_ieee_from_fp32_value``'s sign|0x7E00. A NaN on aarch64 refused (its conversions not
    measured)."""
    x32 = np.asarray(x).astype(np.float32) if np.asarray(x).dtype != np.float32 else np.asarray(x)
    _refuse_arm64_cast(x, x32, profile, "float16")
    f16c = profile.aten != "default" or (fbgemm and np.asarray(x).dtype == np.float32)
    return f16_round(x32, f16c)


def cast_from_f16(bits: np.ndarray, profile: KernelProfile, fbgemm: bool) -> np.ndarray:
    """float16 bits (uint16) cast to float32 (``Tensor.to``, ``copy_``) on x86: exact, a signalling NaN quieted
    with its sign and payload kept (f16_widen: F16C's ``vcvtph2ps``, c10's multiply), but in Copy.cpp's FBGEMM path
    (``fbgemm``: both tensors contiguous, or the output non-overlapping and dense with the source's strides; every
    level): ``Float16ToFloat_simd`` widens each parallel chunk (at::parallel_for over GRAIN_SIZE) in blocks of 8 by
    ``vcvtph2ps`` and its last ``len % 8`` elements by FBGEMM's reference code, which makes every NaN there
    0x7FFFFFFF. A NaN on aarch64 refused (its conversions not measured)."""
    bits = np.asarray(bits, np.uint16)
    wide = f16_widen(bits)
    nan = np.isnan(wide)
    if profile.aarch64 and nan.any():
        raise ParityError("a float16 NaN cast to float on aarch64 is not modelled (its conversions not measured)")
    if not fbgemm or not nan.any():
        return wide
    flat = nan.reshape(-1)
    tail = (flat & ~_block_mask(profile, 4, flat.size, None)).reshape(bits.shape)
    return np.where(tail, np.uint32(0x7FFFFFFF).view(np.float32), wide)


def cast_to_bf16(x: np.ndarray, profile: KernelProfile, vector: bool) -> np.ndarray:
    """float32 or float64 ``x`` cast to bfloat16 (``Tensor.to``, ``copy_``) on x86: its bits (uint16). Rounded to
    nearest even (float64 through float32 first; a float64 NaN refused); a NaN 0xFFFF in the AVX2 / AVX-512
    objects' float-to-bfloat16 copy kernel (``vector``: TensorIterator's inner dim unit-stride in both tensors:
    ``cvtfp32_bf16`` over vectors and the masked last one), else 0x7FC0 (c10::BFloat16: a broadcast source,
    strided runs, the default build). A NaN on aarch64 refused (its conversions not measured)."""
    x32 = np.asarray(x).astype(np.float32) if np.asarray(x).dtype != np.float32 else np.asarray(x)
    _refuse_arm64_cast(x, x32, profile, "bfloat16")
    if np.asarray(x).dtype != np.float32 and np.isnan(x32).any():
        raise ParityError("a float64 NaN cast to bfloat16 is not modelled (its copy loops not measured)")
    return bf16_round(x32, vector and profile.aten != "default")


def pow_f16_scalar(bits: np.ndarray, exponent: float, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``aten.pow.Tensor_Scalar`` of a float16 tensor (its bits as uint16, flat in ATen's loop order, runs of
    ``row``) on x86: Pow.cpp answers 0 with ones and 1 with a copy; pow_tensor_scalar_kernel's Half branch has no
    special exponent: every element powf of the widened base and the exponent converted to float16 (through
    float), SLEEF's in the AVX2 / AVX-512 vector bodies, glibc's in the scalar tails and the default build,
    rounded once. Returns the bits."""
    if profile.aarch64:
        raise ParityError("pow of float16 on aarch64 is not modelled (its reduced-float Vectorized forms)")
    bits = np.asarray(bits, np.uint16)
    if exponent == 0:
        return np.full(bits.shape, 0x3C00, np.uint16)
    if exponent == 1:
        return bits.copy()
    e = np.float32(np.float32(exponent).astype(np.float16))
    if not np.isfinite(e):
        raise ParityError(f"pow of float16: the exponent {exponent} does not fit float16 (torch raises)")
    flat = bits.reshape(-1)
    vec = bf16_vector_mask(profile, flat.size, row)
    x = f16_widen(flat)
    return f16_round(_powf_lanes(x, np.full_like(x, e), vec, profile), profile.aten != "default").reshape(bits.shape)


def pow_bf16_scalar(bits: np.ndarray, exponent: float, profile: KernelProfile, row: int | None = None) -> np.ndarray:
    """``aten.pow.Tensor_Scalar`` of a bfloat16 tensor (its bits as uint16, flat in ATen's loop order, runs of
    ``row``; 1 for a strided operand's basic loop) on x86: Pow.cpp answers 0 with ones and 1 with a copy;
    0.5, -0.5 and -1 go to sqrt_kernel, rsqrt_kernel and reciprocal_kernel; else the exponent converted to
    bfloat16 and pow_tensor_scalar_optimized_kernel: 2, 3 and -2 as ``x*x``, ``x*x*x``, ``1/(x*x)`` with each
    step rounded to bfloat16, any other through powf of the widened operands (SLEEF's in the AVX2 / AVX-512
    vector bodies, glibc's in the scalar tails and the default build) rounded once. Returns the bits."""
    if profile.aarch64:
        raise ParityError("pow of bfloat16 on aarch64 is not modelled (its reduced-float Vectorized forms)")
    bits = np.asarray(bits, np.uint16)
    if exponent == 0:
        return np.full(bits.shape, 0x3F80, np.uint16)
    if exponent == 1:
        return bits.copy()
    flat = bits.reshape(-1)
    vec = bf16_vector_mask(profile, flat.size, row)
    return _bf16_steps(bf16_widen(flat), float(exponent), vec, profile).reshape(bits.shape)


def pow_reduced_tensor(
    base: np.ndarray, exponent: np.ndarray, dtype: str, profile: KernelProfile, row: int | None = None
) -> np.ndarray:
    """``aten.pow.Tensor_Tensor`` of two ``dtype`` ("bfloat16" or "float16") tensors (their bits as uint16, one
    shape, flat in ATen's loop order, runs of ``row``) on x86: pow_tensor_tensor_kernel, every element powf of
    the widened operands (SLEEF's in the AVX2 / AVX-512 vector bodies, glibc's in the scalar tails and the default
    build) rounded once, as pow_bf16_scalar / pow_f16_scalar round. Returns the bits."""
    if profile.aarch64:
        raise ParityError(f"pow of {dtype} on aarch64 is not modelled (its reduced-float Vectorized forms)")
    b, e = (np.asarray(v, np.uint16).reshape(-1) for v in np.broadcast_arrays(base, exponent))
    vec = bf16_vector_mask(profile, b.size, row)
    f16c = profile.aten != "default"
    if dtype == "bfloat16":
        return bf16_round(_powf_lanes(bf16_widen(b), bf16_widen(e), vec, profile), vec)
    if dtype == "float16":
        return f16_round(_powf_lanes(f16_widen(b), f16_widen(e), vec, profile), f16c)
    raise ParityError(f"pow_reduced_tensor: bfloat16 or float16, not {dtype}")
