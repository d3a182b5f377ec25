"""Row ops over the last dim: layer_norm, softmax (and _safe_softmax), log_softmax, cross_entropy; softmax and
log_softmax over another dim (ATen's column kernels); group_norm; torch._weight_norm_interface (weight_norm
over the first or the last dim); and nll_loss2d with its backward (class weights, ignore_index, reductions
none / mean / sum: the same bits at every x86 level and thread count, measured on a Zen 5) (C kernels in
csrc/rows.c).

The public functions (``layer_norm``, ``softmax``, ...) take and return float32 NumPy arrays of
any leading shape and reproduce torch 2.13.0's CPU kernels bit for bit under a ``KernelProfile``
(its thread count included). ``RUNNERS`` maps the op ids to fixture runners.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.nans import fmax_nan_a64
from harness.impl.op_registry import Runner
from harness.impl.profiles import KernelProfile
from harness.impl.reduce import where

_I64 = ctypes.c_int64
_P = ctypes.c_void_p


def _lib() -> ctypes.CDLL:
    lib = load("rows")
    if not getattr(lib, "_typed", False):
        lib.layer_norm_forward.argtypes = [Profile, _P, _P, _P, _I64, _I64, ctypes.c_float, _P, _P, _P]
        lib.layer_norm_backward.argtypes = [Profile, _P, _P, _P, _P, _P, _I64, _I64, _P, _P, _P, _P]
        lib.softmax_forward.argtypes = [Profile, _P, _I64, _I64, _P]
        lib.softmax_dim_forward.argtypes = [Profile, _P, _I64, _I64, _I64, _P]
        lib.softmax_dim_backward.argtypes = [Profile, _P, _P, _I64, _I64, _I64, _P, _P]
        lib.log_softmax_forward.argtypes = [Profile, _P, _I64, _I64, _P, _P]
        lib.log_softmax_dim_forward.argtypes = [Profile, _P, _I64, _I64, _I64, _P, _P]
        lib.log_softmax_dim_backward.argtypes = [Profile, _P, _P, _I64, _I64, _I64, _P, _P]
        lib.softmax_backward.argtypes = [Profile, _P, _P, _I64, _I64, _P]
        lib.log_softmax_backward.argtypes = [Profile, _P, _P, _I64, _I64, _P, _P]
        lib.nll_loss_forward.argtypes = [Profile, _P, _P, _I64, _I64, _I64, _P]
        lib.nll_loss_forward.restype = ctypes.c_float
        lib.nll_loss_backward.argtypes = [ctypes.c_float, ctypes.c_float, _P, _I64, _I64, _I64, _P]
        lib.nll_loss2d_forward.argtypes = [Profile, _P, _P, _P, _I64, _I64, _I64, _I64, ctypes.c_int32, _P]
        lib.nll_loss2d_forward.restype = ctypes.c_float
        lib.weight_norm_forward.argtypes = [Profile, _P, _P, _I64, _I64, ctypes.c_int, _P, _P, _P]
        lib.weight_norm_backward.argtypes = [Profile, _P, _P, _P, _P, _I64, _I64, ctypes.c_int, _P, _P, _P]
        lib.group_norm_forward.argtypes = [Profile, _P, _P, _P, _I64, _I64, _I64, _I64, ctypes.c_double, _P, _P, _P]
        lib.group_norm_backward.argtypes = [
            Profile, _P, _P, _P, _P, _P, _I64, _I64, _I64, _I64, _P, _P, _P, _P, _P
        ]  # fmt: skip
        lib.group_norm_cl_forward.argtypes = [
            Profile, _P, _P, _P, _I64, _I64, _I64, _I64, ctypes.c_double, _P, _P, _P, _P
        ]  # fmt: skip
        lib.group_norm_cl_backward.argtypes = [
            Profile, _P, _P, _P, _P, _P, _I64, _I64, _I64, _I64, _P, _P, _P, _P, _P, _P
        ]  # fmt: skip
        lib._typed = True
    return lib


def _rows(x: np.ndarray) -> tuple[int, int]:
    n = x.shape[-1] if x.ndim else 1
    return (x.size // n if n else 0), n


def layer_norm(
    x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, eps: float, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``F.layer_norm(x, (C,), weight, bias, eps)`` over the last dim; weight or bias None as
    ``nn.LayerNorm(bias=False)`` or ``elementwise_affine=False`` passes them (ATen's scalar loop).

    Returns ``(y, mean, rstd)``; mean and rstd have shape ``x.shape[:-1]`` and are what
    ``layer_norm_backward`` needs (torch saves the same two tensors).
    """
    x = f32(x)
    weight, bias = (None if v is None else f32(v) for v in (weight, bias))
    m, n = _rows(x)
    y = np.empty_like(x)
    mean = np.empty(x.shape[:-1], np.float32)
    rstd = np.empty(x.shape[:-1], np.float32)
    w, b = (None if v is None else ptr(v) for v in (weight, bias))
    _lib().layer_norm_forward(profile.as_c(), ptr(x), w, b, m, n, ctypes.c_float(eps), ptr(y), ptr(mean), ptr(rstd))
    return y, mean, rstd


def layer_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    mean: np.ndarray,
    rstd: np.ndarray,
    weight: np.ndarray | None,
    profile: KernelProfile,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of ``layer_norm`` for ``grad_out``: ``(grad_x, grad_weight, grad_bias)``.

    ``mean`` and ``rstd`` are the forward's; grad_weight/grad_bias depend on ``profile.threads``.
    ``weight`` None: ATen's branch without a weight (grad_weight/grad_bias are computed all the same;
    torch gives only those its output_mask asks for).
    """
    grad_out, x, mean, rstd = f32(grad_out), f32(x), f32(mean), f32(rstd)
    weight = None if weight is None else f32(weight)
    m, n = _rows(x)
    grad_x = np.empty_like(x)
    grad_w = np.empty(n, np.float32)
    grad_b = np.empty(n, np.float32)
    buffer = np.zeros((2 * max(profile.threads, 1) + 1) * n, np.float32)  # per-thread dgamma/dbeta, scratch
    _lib().layer_norm_backward(
        profile.as_c(),
        ptr(grad_out),
        ptr(x),
        ptr(mean),
        ptr(rstd),
        None if weight is None else ptr(weight),
        m,
        n,
        ptr(grad_x),
        ptr(grad_w),
        ptr(grad_b),
        ptr(buffer),
    )
    return grad_x, grad_w, grad_b


def _group_shape(x: np.ndarray, groups: int, channels_last: bool) -> tuple[int, int, int]:
    if x.ndim < 2:
        raise ParityError("group_norm needs an input of at least 2 dims (N, C, ...)")
    if channels_last and x.ndim not in (4, 5):
        raise ParityError(f"group_norm: channels-last is a layout of 4-D and 5-D tensors, not of {x.ndim}-D ones")
    n, c = x.shape[0], x.shape[1]
    if groups < 1 or c % groups:
        raise ParityError(f"group_norm: {c} channels do not split into {groups} groups")
    return n, c, (x.size // (n * c) if n * c else 0)


def _group_layout(a: np.ndarray, channels_last: bool) -> np.ndarray:
    """``a`` (N, C, *) in the memory order of the kernel that runs: as it is, or channels-last (N, *, C)."""
    a = f32(a)
    return np.ascontiguousarray(np.moveaxis(a, 1, -1)) if channels_last else a


def group_norm(
    x: np.ndarray,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    groups: int,
    eps: float,
    profile: KernelProfile,
    channels_last: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``aten.native_group_norm`` on a float32 input ``x`` (N, C, *), logical order: ``(y, mean, rstd)``, y
    shaped as x, mean and rstd (N, groups). ``weight``/``bias`` (C,) or None (``nn.GroupNorm(affine=False)``).
    ``eps`` is used as a double, as ATen does.

    ``channels_last``: the memory format ATen's kernel takes, the input's ``suggest_memory_format()``:
    False Contiguous (``GroupNormKernelImplInternal``), True ChannelsLast or ChannelsLast3d, a 4-D or 5-D
    input (``GroupNormKernelImplChannelsLastInternal``: column sums of x and x*x; below 1024 pixels a
    group at a time, else per-thread sums of every pixel, so y, mean and rstd then depend on
    ``profile.threads``), on the x86 and the Linux arm64 profiles."""
    n, c, hxw = _group_shape(x, groups, channels_last)
    weight, bias = (None if v is None else np.ascontiguousarray(f32(v)) for v in (weight, bias))
    if x.size == 0:  # native_group_norm returns before any kernel runs
        return np.empty_like(f32(x)), np.zeros((n, groups), np.float32), np.full((n, groups), np.nan, np.float32)
    xs = _group_layout(x, channels_last)
    y = np.empty_like(xs)
    mean = np.empty((n, groups), np.float32)
    rstd = np.empty((n, groups), np.float32)
    w, b = (None if v is None else ptr(v) for v in (weight, bias))
    args = (profile.as_c(), ptr(xs), w, b, n, c, hxw, groups, ctypes.c_double(eps), ptr(y), ptr(mean), ptr(rstd))
    if channels_last:
        buffer = np.empty(max(profile.threads, 1) * n * 2 * c, np.float32)
        _lib().group_norm_cl_forward(*args, ptr(buffer))
        return np.ascontiguousarray(np.moveaxis(y, -1, 1)), mean, rstd
    _lib().group_norm_forward(*args)
    return y, mean, rstd


def group_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    mean: np.ndarray,
    rstd: np.ndarray,
    weight: np.ndarray | None,
    groups: int,
    profile: KernelProfile,
    channels_last: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``aten.native_group_norm_backward`` on float32 operands in logical (N, C, *) order: ``(grad_x,
    grad_weight, grad_bias)`` (the last two computed all the same; torch returns those its output_mask
    asks for). ``channels_last``: the memory format of the kernel that runs, the input's
    ``suggest_memory_format()``, as ``group_norm`` says; torch 2.13.0 reads grad_out as it lies in memory,
    as if in that format (autograd passes it so), and so does the impl.

    NCHW: grad_x depends on ``profile.threads`` on x86 AVX2 and the arm64 SVE builds (which compiled
    copy of the per-group weighted sums runs). Channels-last: below 2048 pixels a group at a time, else
    per-thread sums of every pixel, so every output then depends on ``profile.threads``."""
    mean, rstd = np.ascontiguousarray(f32(mean)), np.ascontiguousarray(f32(rstd))
    weight = None if weight is None else np.ascontiguousarray(f32(weight))
    if grad_out.shape != x.shape:
        raise ParityError("group_norm backward: grad_out and input differ in shape")
    n, c, hxw = _group_shape(x, groups, channels_last)
    if mean.size != n * groups or rstd.size != n * groups:
        raise ParityError("group_norm backward: mean and rstd must hold N*groups values")
    grad_w = np.zeros(c, np.float32)
    grad_b = np.zeros(c, np.float32)
    if x.size == 0:  # native_group_norm_backward returns zeros before any kernel runs
        return np.zeros_like(f32(x)), grad_w, grad_b
    gs, xs = _group_layout(grad_out, channels_last), _group_layout(x, channels_last)
    grad_x = np.empty_like(xs)
    ds = np.empty(n * c, np.float32)
    db = np.empty(n * c, np.float32)
    args = (
        profile.as_c(), ptr(gs), ptr(xs), ptr(mean), ptr(rstd), None if weight is None else ptr(weight),
        n, c, hxw, groups, ptr(grad_x), ptr(grad_w), ptr(grad_b), ptr(ds), ptr(db),
    )  # fmt: skip
    if channels_last:
        buffer = np.empty(max(profile.threads, 1) * n * 2 * c + 2 * n * groups, np.float32)
        _lib().group_norm_cl_backward(*args, ptr(buffer))
        return np.ascontiguousarray(np.moveaxis(grad_x, -1, 1)), grad_w, grad_b
    _lib().group_norm_backward(*args)
    return grad_x, grad_w, grad_b


def softmax(x: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """``torch.softmax(x, dim=-1)``."""
    x = f32(x)
    m, n = _rows(x)
    y = np.empty_like(x)
    _lib().softmax_forward(profile.as_c(), ptr(x), m, n, ptr(y))
    return y


def softmax_dim(x: np.ndarray, dim: int, profile: KernelProfile) -> np.ndarray:
    """``torch.softmax(x, dim)``: the last dim by ``softmax``, another by ATen's ``_vec_softmax`` (measured
    at x86's default, avx2 and avx512 builds, the last in its AVX-512 object's vectors of 16 columns, and on
    the arm64 ones)."""
    if x.ndim == 0 or dim % x.ndim == x.ndim - 1:
        return softmax(x, profile)
    dim = dim % x.ndim
    x = f32(x)
    if np.isnan(x).any():
        raise ParityError("softmax over a dim other than the last of NaN inputs is not measured: refused")
    outer, inner = int(np.prod(x.shape[:dim])), int(np.prod(x.shape[dim + 1 :]))
    y = np.empty_like(x)
    _lib().softmax_dim_forward(profile.as_c(), ptr(x), outer, x.shape[dim], inner, ptr(y))
    return y


def softmax_dim_backward(grad: np.ndarray, y: np.ndarray, dim: int, profile: KernelProfile) -> np.ndarray:
    """Gradient of ``softmax_dim`` (output ``y``) for ``grad``: the last dim by ``softmax_backward``,
    another by ATen's ``_vec_softmax_backward`` (measured at x86's default, avx2 and avx512 builds and on the
    arm64 ones)."""
    if y.ndim == 0 or dim % y.ndim == y.ndim - 1:
        return softmax_backward(grad, y, profile)
    dim = dim % y.ndim
    grad, y = f32(grad), f32(y)
    if np.isnan(grad).any() or np.isnan(y).any():
        raise ParityError("softmax's backward over a dim other than the last of NaN inputs is not measured: refused")
    outer, inner = int(np.prod(y.shape[:dim])), int(np.prod(y.shape[dim + 1 :]))
    gx = np.empty_like(y)
    scratch = np.empty(max(inner, 1), np.float32)
    _lib().softmax_dim_backward(profile.as_c(), ptr(grad), ptr(y), outer, y.shape[dim], inner, ptr(gx), ptr(scratch))
    return gx


def safe_softmax(x: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """``torch._safe_softmax(x, -1)``, the softmax of SDPA's math path: ``softmax``, then 0 in every row
    that is entirely ``-inf`` (where ``softmax`` gives NaN), as ATen composes it (SoftMax.cpp:
    ``where(all(x == -inf, dim, keepdim), 0, softmax(x))``). Its backward is ``softmax_backward``."""
    x = f32(x)
    masked_rows = np.all(x == -np.inf, axis=-1, keepdims=True)
    return where(masked_rows, np.float32(0.0), softmax(x, profile))


def softmax_backward(grad: np.ndarray, y: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """Gradient of ``softmax`` (output ``y``) for ``grad``: ``(grad - sum(grad*y)) * y`` per row."""
    return _backward("softmax_backward", grad, y, profile)


def log_softmax(x: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """``torch.log_softmax(x, dim=-1)``."""
    x = f32(x)
    m, n = _rows(x)
    y = np.empty_like(x)
    tmp = np.empty(max(n, 1), np.float32)
    _lib().log_softmax_forward(profile.as_c(), ptr(x), m, n, ptr(y), ptr(tmp))
    return y


def log_softmax_backward(grad: np.ndarray, y: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """Gradient of ``log_softmax`` (output ``y``) for ``grad``: ``grad - exp(y) * sum(grad)`` per row."""
    return _backward("log_softmax_backward", grad, y, profile)


def log_softmax_dim(x: np.ndarray, dim: int, profile: KernelProfile) -> np.ndarray:
    """``torch.log_softmax(x, dim)``: the last dim by ``log_softmax``, another by ATen's ``_vec_log_softmax``
    (``serial_vec_logsoftmax_range``: per column max, ``sum exp(x - max)``, ``log``, ``(x - max) - log``;
    measured at x86's default, avx2 and avx512 builds and on the arm64 ones, where NaN inputs are answered
    too: the column max never takes a NaN, SLEEF's logf of a NaN sum is +qNaN, so a column meeting a NaN
    gives each NaN its own quieted and every other element +qNaN, csrc/rows.c)."""
    if x.ndim == 0 or dim % x.ndim == x.ndim - 1:
        return log_softmax(x, profile)
    x, dim = f32(x), dim % x.ndim
    if not profile.aarch64 and np.isnan(x).any():
        raise ParityError("log_softmax over a dim other than the last of NaN inputs is not measured: refused")
    outer, size, inner = int(np.prod(x.shape[:dim])), x.shape[dim], int(np.prod(x.shape[dim + 1 :]))
    y = np.empty_like(x)
    scratch = np.empty(2 * max(inner, 1), np.float32)
    _lib().log_softmax_dim_forward(profile.as_c(), ptr(x), outer, size, inner, ptr(y), ptr(scratch))
    return y


def log_softmax_nans_a64(x: np.ndarray, dim: int, nan: np.ndarray, p: KernelProfile) -> np.ndarray:
    """log_softmax under an arm64 profile of ``x`` whose lines along ``dim`` hold NaNs (``nan``). A line's max is
    then a NaN (FMAX passes one on, quieted), so ``x - max`` is NaN throughout, and ``(x - max) - log(sum)``
    keeps it (FSUB's first operand; its sum's NaN never shows): an element is its own NaN quieted where NaN,
    else the max's. The last dim's max is reduce_all(vec::maximum) as the aarch64 objects run it (read:
    _row_max_nan_a64); another dim's column kernel, whose max never takes a NaN, as ``log_softmax_dim`` gives
    it. The other lines as the kernel computes them (each line's arithmetic its own)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
    quiet = np.where(nan, bits | np.uint32(0x00400000), np.uint32(0))
    if x.ndim == 0:
        return quiet.view(np.float32)
    if dim == x.ndim - 1:
        kind = _row_max_nan_a64(np.where(nan, bits, np.uint32(0)).reshape(-1, x.shape[-1]), p.lanes)
        kind = kind.reshape((*x.shape[:-1], 1))
    else:  # the column kernel's NaNs: csrc/rows.c log_softmax_dim_forward
        return log_softmax_dim(x, dim, p)
    out = log_softmax_dim(np.where(nan, np.float32(0), x), dim, p)
    line = np.broadcast_to(kind != 0, x.shape)
    out.view(np.uint32)[line] = np.where(nan, quiet, np.broadcast_to(kind, x.shape))[line]
    return out


def _row_max_nan_a64(v: np.ndarray, lanes: int) -> np.ndarray:
    """The NaN (0: none) reduce_all(vec::maximum) gives each row of ``v`` (rows of NaN bit patterns, 0 a number)
    in torch 2.13.0's aarch64 serial_vec_log_softmax_lastdim_range, read in its objects. NEON (DEFAULT and
    SVE128, 4 lanes): n < 4 folds lane 0 as FMAX(acc, x[i]); else acc = the first vector, FMAX(acc, v) over the
    whole vectors and the partial last one's lanes, then FMAX(v, ext #8) and FMAX(v, rev64): lane 0 is
    FMAX(FMAX(a0, a2), FMAX(a1, a3)). SVE256 (8 lanes): n < 8 folds x[1] and, at n = 7, x[6] as FMAX(x[i], acc),
    the others FMAX(acc, x[i]); the partial last vector FMAX(v, acc); the tbl tree pairs lane i with i^4, i^2,
    i^1, each FMAX(v, v')."""
    n = v.shape[1]
    if n == 1:
        return v[:, 0]
    if n < lanes:
        acc = v[:, 0]
        for i in range(1, n):
            first = lanes == 8 and (i == 1 or i == 6)
            acc = fmax_nan_a64(v[:, i], acc) if first else fmax_nan_a64(acc, v[:, i])
        return acc
    acc = v[:, :lanes].copy()
    whole = n - n % lanes
    for d in range(lanes, whole, lanes):
        acc = fmax_nan_a64(acc, v[:, d : d + lanes])
    if n > whole:
        r = n - whole
        part = v[:, whole:]
        acc[:, :r] = fmax_nan_a64(part, acc[:, :r]) if lanes == 8 else fmax_nan_a64(acc[:, :r], part)
    step = lanes // 2
    while step:
        acc = fmax_nan_a64(acc, acc[:, np.arange(lanes) ^ step])
        step //= 2
    return acc[:, 0]


def log_softmax_dim_backward(grad: np.ndarray, y: np.ndarray, dim: int, profile: KernelProfile) -> np.ndarray:
    """Gradient of ``log_softmax_dim`` (output ``y``) for ``grad``: the last dim by ``log_softmax_backward``,
    another by ATen's ``_vec_log_softmax_backward`` (per column ``sum = 0 + g`` over the dim, then
    ``g - exp(y) * sum``; measured at x86's default, avx2 and avx512 builds and on the arm64 ones, where NaN
    inputs are answered too: the FADD and FMLS/FMSUB operand orders read in the aarch64 objects, csrc/rows.c)."""
    if y.ndim == 0 or dim % y.ndim == y.ndim - 1:
        return log_softmax_backward(grad, y, profile)
    grad, y, dim = f32(grad), f32(y), dim % y.ndim
    if not profile.aarch64 and (np.isnan(grad).any() or np.isnan(y).any()):
        raise ParityError(
            "log_softmax's backward over a dim other than the last of NaN inputs is not measured: refused"
        )
    outer, size, inner = int(np.prod(y.shape[:dim])), y.shape[dim], int(np.prod(y.shape[dim + 1 :]))
    gx = np.empty_like(y)
    scratch = np.empty(max(inner, 1), np.float32)
    _lib().log_softmax_dim_backward(profile.as_c(), ptr(grad), ptr(y), outer, size, inner, ptr(gx), ptr(scratch))
    return gx


def _backward(kernel: str, grad: np.ndarray, y: np.ndarray, profile: KernelProfile) -> np.ndarray:
    grad, y = f32(grad), f32(y)
    m, n = _rows(y)
    gx = np.empty_like(y)
    tmp = np.empty(max(n, 1), np.float32)
    scratch = (ptr(tmp),) if kernel == "log_softmax_backward" else ()
    getattr(_lib(), kernel)(profile.as_c(), ptr(grad), ptr(y), m, n, ptr(gx), *scratch)
    return gx


def _targets(targets: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(targets, dtype=np.int64)


def cross_entropy(
    logits: np.ndarray, targets: np.ndarray, profile: KernelProfile, ignore_index: int = -100
) -> tuple[np.ndarray, np.ndarray, float]:
    """``F.cross_entropy(logits, targets, ignore_index=...)`` (mean) for logits (B, C), targets (B,).

    Returns ``(loss, log_probs, total_weight)``: a float32 0-d loss, and what
    ``cross_entropy_backward`` needs (the log_softmax output and the count of non-ignored rows).
    """
    lsm = log_softmax(logits, profile)
    loss, total_weight = nll_loss(lsm, targets, profile, ignore_index)
    return loss, lsm, total_weight


def nll_loss(
    log_probs: np.ndarray, targets: np.ndarray, profile: KernelProfile, ignore_index: int = -100
) -> tuple[np.ndarray, float]:
    """ATen's ``nll_loss_forward`` (mean, no class weights) of log-probabilities (B, C) and targets (B,):
    the float32 0-d loss and the total weight (the count of rows not ignored)."""
    lsm = np.ascontiguousarray(log_probs, np.float32)
    b, c = _rows(lsm)
    tw = ctypes.c_float()
    t = _targets(targets)
    loss = _lib().nll_loss_forward(profile.as_c(), ptr(lsm), ptr(t), b, c, ignore_index, ctypes.byref(tw))
    return np.array(loss, np.float32), tw.value


def nll_loss_backward(
    grad_loss: float | np.ndarray,
    shape: tuple[int, int],
    targets: np.ndarray,
    total_weight: float,
    ignore_index: int = -100,
) -> np.ndarray:
    """ATen's ``nll_loss_backward`` (mean, no class weights): the gradient (B, C) of the log-probabilities,
    ``-(grad_loss / total_weight)`` at each kept row's target, +0.0 elsewhere."""
    b, c = shape
    grad_lsm = np.empty((b, c), np.float32)
    g = np.float32(np.asarray(grad_loss, np.float32))
    _lib().nll_loss_backward(float(g), total_weight, ptr(_targets(targets)), b, c, ignore_index, ptr(grad_lsm))
    return grad_lsm


def _nll_loss2d_nans(op: str, values: np.ndarray, profile: KernelProfile) -> None:
    """Refuse what nll_loss2d's reduction cannot be said to give: NaNs of more than one pattern among the
    values it sums (which one its sums keep is not modelled), a NaN beside infinities of both signs or sums
    past float's range (the NaN inf - inf makes, or the operand's), and on aarch64 a non-finite value (its
    default NaN: not measured)."""
    from harness.impl.nans import nan_kinds

    nan = bool(np.isnan(values).any())
    both_infs = bool((values == np.inf).any() and (values == -np.inf).any())
    overflow = float(np.abs(values[np.isfinite(values)].astype(np.float64)).sum()) > float(np.finfo(np.float32).max)
    if len(nan_kinds(values)) > 1 or (nan and (both_infs or overflow)):
        raise ParityError(
            f"{op}: NaNs of several patterns, or a NaN beside infinities of both signs (or sums past float's range), "
            "among its sums: which NaN the cascade keeps is not modelled"
        )
    if profile.aarch64 and not np.isfinite(values).all():
        raise ParityError(f"{op} of non-finite values on aarch64: not measured")


def _kept_targets(
    op: str, target: np.ndarray, shape: tuple[int, ...], ignore_index: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """nll_loss2d's targets for an input of ``shape`` (N, C, H, W): (the targets as (N, H*W) int64, which
    are kept (not ignore_index), the class each reads: the target, 0 where ignored); a kept target out of
    [0, C) refused (torch raises)."""
    n, c, h, w = shape
    t = np.asarray(target, np.int64).reshape(n, h * w)
    kept = t != ignore_index
    if ((t < 0) | (t >= c))[kept].any():
        raise ParityError(f"{op}: a target out of [0, C) (torch raises)")
    return t, kept, np.where(kept, t, 0)


def nll_loss2d(
    x: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None,
    reduction: str,
    ignore_index: int,
    profile: KernelProfile,
) -> tuple[np.ndarray, np.ndarray]:
    """ATen's ``nll_loss2d_forward`` (LossNLL2d.cpp) of input (N, C, H, W) and target (N, H, W): ``(output,
    total_weight)``. ``none``: ``-x[n, t, h, w] * weight[t]`` (1 without weights) per element, 0 where
    ignored; ``sum`` / ``mean``: csrc/rows.c's cascade (nll_loss2d_forward), float32 0-d. Targets out of
    [0, C) other than ignore_index are torch's IndexError."""
    from harness.impl.nans import arith

    x = f32(x)
    n, c, h, w = x.shape
    t, kept, cols = _kept_targets("nll_loss2d", target, x.shape, ignore_index)
    picked = np.take_along_axis(x.reshape(n, c, h * w), cols[:, None, :], axis=1)[:, 0, :]
    wt = np.ones(c, np.float32) if weight is None else f32(weight).reshape(c)
    if reduction == "none":
        out = arith("mul", -picked, wt[cols], None, "nll_loss2d's -x * weight", profile.aarch64)
        return np.where(kept, out, np.float32(0)).astype(np.float32).reshape(n, h, w), np.zeros((), np.float32)
    _nll_loss2d_nans("nll_loss2d_forward", np.concatenate([picked[kept], wt[cols[kept]]]), profile)
    lsm = np.ascontiguousarray(x)
    tw = ctypes.c_float()
    weights = None if weight is None else np.ascontiguousarray(wt)
    loss = _lib().nll_loss2d_forward(
        profile.as_c(), ptr(lsm), ptr(_targets(t)), None if weights is None else ptr(weights), n, c, h * w,
        ignore_index, int(reduction == "mean"), ctypes.byref(tw),
    )  # fmt: skip
    return np.array(loss, np.float32), np.array(tw.value, np.float32)


def nll_loss2d_backward(
    grad: np.ndarray,
    shape: tuple[int, ...],
    target: np.ndarray,
    weight: np.ndarray | None,
    reduction: str,
    ignore_index: int,
    total_weight: np.ndarray,
    profile: KernelProfile,
) -> np.ndarray:
    """ATen's ``nll_loss2d_backward`` (LossNLL2d.cpp): grad_input (N, C, H, W), zeros but at each kept
    element's target: ``-weight[t] * grad[n, h, w]`` (none; ``-1 *`` without weights); for sum and mean one
    value ``-grad`` or ``-(grad / total_weight)`` times ``weight[t]`` (the value itself without weights)."""
    from harness.impl.nans import arith

    n, c, h, w = shape
    _, kept, cols = _kept_targets("nll_loss2d_backward", target, shape, ignore_index)
    wt = None if weight is None else f32(weight).reshape(c)
    g = f32(grad)
    arm = profile.aarch64
    if reduction == "none":
        minus = np.float32(-1) if wt is None else -wt[cols]
        value = arith("mul", minus, g.reshape(n, h * w), None, "nll_loss2d_backward's -weight * grad", arm)
    else:
        scalar = g.reshape(-1)[:1]
        if reduction == "mean":  # DIVSS keeps its dividend's NaN where both are
            scalar = arith("div", scalar, f32(total_weight).reshape(-1)[:1], None if arm else 0, "grad / total", arm)
        scalar = -scalar
        value = (
            np.broadcast_to(scalar, (n, h * w))
            if wt is None
            else arith("mul", wt[cols], scalar, None, "nll_loss2d_backward's weight * grad", arm)
        )
    out = np.zeros((n, c, h * w), np.float32)
    b_idx, e_idx = np.nonzero(kept)
    out[b_idx, cols[b_idx, e_idx], e_idx] = np.broadcast_to(value, (n, h * w))[b_idx, e_idx]
    return out.reshape(n, c, h, w)


def cross_entropy_backward(
    grad_loss: float | np.ndarray,
    log_probs: np.ndarray,
    targets: np.ndarray,
    total_weight: float,
    profile: KernelProfile,
    ignore_index: int = -100,
) -> np.ndarray:
    """Gradient of ``cross_entropy`` for the loss gradient ``grad_loss``: nll_loss backward then
    log_softmax backward."""
    grad_lsm = nll_loss_backward(grad_loss, _rows(log_probs), targets, total_weight, ignore_index)
    return log_softmax_backward(grad_lsm, log_probs, profile)


def _weight_norm_view(v: np.ndarray, g: np.ndarray, dim: int, *more: np.ndarray) -> tuple[int, int, bool]:
    """(M, N, last) of WeightNormKernel.cpp for ``v`` normed over all dims but ``dim``; ParityError where
    torch runs no fused kernel or the impl does not reproduce it: a NaN among the inputs (which NaN comes
    out depends on each instruction's operand order: not reproduced; the NaNs of zero slices are)."""
    if any(np.isnan(x).any() for x in (v, g, *more)):
        raise ParityError("_weight_norm_interface: the impl does not reproduce inputs holding NaNs")
    if v.ndim == 0 or dim not in (0, v.ndim - 1):
        raise ParityError(
            f"_weight_norm_interface runs for dim 0 or the last dim only, not dim {dim} of a {v.ndim}-D tensor "
            "(ATen's _weight_norm composes other dims from norm_except_dim, div and mul)"
        )
    if g.size != v.shape[dim]:
        raise ParityError(f"_weight_norm_interface: g has {g.size} values, v.shape[{dim}] is {v.shape[dim]}")
    if dim == 0:  # the first-dim kernel, also for a 1-D v
        m = v.shape[0]
        return m, (v.size // m if m else 0), False
    n = v.shape[-1]
    return (v.size // n if n else 0), n, True


def weight_norm(v: np.ndarray, g: np.ndarray, dim: int, profile: KernelProfile) -> tuple[np.ndarray, np.ndarray]:
    """``torch._weight_norm_interface(v, g, dim)`` (float32, dim 0 or the last): ``(w, norm)``,
    ``w = v * (g / norm)`` with ``norm`` the 2-norm of each slice of ``v`` at ``dim`` (shaped as ``g``)."""
    v, g = f32(v), f32(g)
    m, n, last = _weight_norm_view(v, g, dim)
    w = np.empty_like(v)
    norm = np.zeros(g.shape, np.float32)
    if v.size:
        buffer = np.empty(max(profile.threads, 1) * n, np.float32)
        _lib().weight_norm_forward(profile.as_c(), ptr(v), ptr(g), m, n, int(last), ptr(w), ptr(norm), ptr(buffer))
    return w, norm


def weight_norm_backward(
    grad_w: np.ndarray, v: np.ndarray, g: np.ndarray, norm: np.ndarray, dim: int, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray]:
    """``torch._weight_norm_interface_backward(grad_w, v, g, norm, dim)``: ``(grad_v, grad_g)``, ``norm``
    the forward's."""
    grad_w, v, g, norm = f32(grad_w), f32(v), f32(g), f32(norm)
    m, n, last = _weight_norm_view(v, g, dim, grad_w, norm)
    if grad_w.shape != v.shape or norm.size != g.size:
        raise ParityError("_weight_norm_interface_backward: grad_w must have v's shape and norm g's size")
    grad_v = np.empty_like(v)
    grad_g = np.zeros(g.shape, np.float32)
    if v.size:
        buffer = np.empty(max(profile.threads, 3) * n, np.float32)
        _lib().weight_norm_backward(
            profile.as_c(),
            ptr(grad_w),
            ptr(v),
            ptr(g),
            ptr(norm),
            m,
            n,
            int(last),
            ptr(grad_v),
            ptr(grad_g),
            ptr(buffer),
        )
    return grad_v, grad_g


Arrays = Mapping[str, np.ndarray]


def _run_layer_norm(params: Mapping[str, Any], inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    y, mean, rstd = layer_norm(inputs["x"], inputs["weight"], inputs["bias"], params["eps"], profile)
    gx, gw, gb = layer_norm_backward(inputs["grad_out"], inputs["x"], mean, rstd, inputs["weight"], profile)
    return {"out": y, "grad_x": gx, "grad_weight": gw, "grad_bias": gb}


def _run_rows(
    forward: Callable[[np.ndarray, KernelProfile], np.ndarray],
    backward: Callable[[np.ndarray, np.ndarray, KernelProfile], np.ndarray],
) -> Runner:
    def run(params: Mapping[str, Any], inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
        if params.get("dim", -1) not in (-1, inputs["x"].ndim - 1):
            raise ParityError("harness.impl.rows: softmax-like ops over the last dim only")
        y = forward(inputs["x"], profile)
        return {"out": y, "grad_x": backward(inputs["grad_out"], y, profile)}

    return run


def _run_cross_entropy(params: Mapping[str, Any], inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    loss, lsm, tw = cross_entropy(inputs["logits"], inputs["targets"], profile, ignore_index=-1)
    grad = cross_entropy_backward(inputs["grad_out"], lsm, inputs["targets"], tw, profile, ignore_index=-1)
    return {"out": loss, "grad_logits": grad}


RUNNERS: dict[str, Runner] = {
    "layer_norm": _run_layer_norm,
    "softmax": _run_rows(softmax, softmax_backward),
    "log_softmax": _run_rows(log_softmax, log_softmax_backward),
    "cross_entropy": _run_cross_entropy,
}
