"""Layers of torch.nn that traces of real models reach and no fixture op records, torch-free, on every
profile (x86 and Linux arm64):
sigmoid and its backward (nn.GRU's gates), batch norm in training with its backward and running
statistics (batch_norm_kernel.cpp's kernels on contiguous and channels-last tensors, and
Normalization.cpp's TensorIterator path for every other layout: ``batch_norm_generic``), cumsum,
pow by the exponents nn.RMSNorm uses, add/sub/mul/div, div with a rounding mode and floor_divide
(``div_rounding``: floor on x86 only; a signalling NaN divisor of payload 1 or 2 in the avx2 object's
vector lanes refused), native_dropout, the antialiased bicubic resize and its backward
(``upsample_bicubic2d_aa``) and the antialiased bilinear one (``upsample_bilinear2d_aa``, x86), prelu and its
backward (where input and weight are both NaN, the AVX2 object's vector body keeps the weight's NaN when it
reads the weight as a scalar), and cdist's own kernel and its backward (p = 2: the AVX2 object contracts
the last m % 4 squares of each sum; measured on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads, 0
other bits).
Pooling is harness/impl/pool.py; the trace replays are harness/trace/impl_nn.py.

Shape legend: sigmoid x, out (any shape, flat in C order) with ``run`` the number of elements ATen's
element-wise loop takes in one inner call (the whole tensor when every operand is contiguous, a row
when one is a row-strided view, e.g. a column chunk of the GRU's gate matrix); batch_norm x, out,
grad_out, grad_input (N, C, ...) in logical order (the ``_generic`` functions take x and grad_out as
NumPy views of torch's strides, and give logical order), weight, bias, running stats and the saved
mean/invstd (C,); cumsum, pow, binary any shape (broadcast); native_dropout x, out, mask alike.
The C loops (csrc/nn.c) say which PyTorch kernel each reproduces and its order of operations.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import f32, load, ptr
from harness.impl.nans import arith, default_nans, nan_kinds
from harness.impl.profiles import KernelProfile
from harness.impl.scatter import GRAIN_SIZE
from harness.impl.strides import contiguous, iteration_order
from harness.impl.unary import pow_tail


def _ew(name: str, profile: KernelProfile, run: int, *arrays: np.ndarray) -> None:
    fn = getattr(load("nn"), name)
    fn.restype = None
    fn(profile.as_c(), *(ptr(a) for a in arrays), ctypes.c_int64(arrays[0].size), ctypes.c_int64(run))


def sigmoid(x: np.ndarray, profile: KernelProfile, run: int = 0) -> np.ndarray:
    """torch.sigmoid (and sigmoid_) of ``x``; ``run``: inner-loop length (0: the whole tensor)."""
    x = f32(x)
    out = np.empty_like(x)
    _ew("sigmoid_forward", profile, run, x, out)
    return out


def sigmoid_backward(grad: np.ndarray, y: np.ndarray, profile: KernelProfile, run: int = 0) -> np.ndarray:
    """aten.sigmoid_backward: ``grad * (1 - y) * y`` for the sigmoid's output ``y``."""
    grad, y = f32(grad), f32(y)
    if grad.shape != y.shape:
        raise ValueError(f"sigmoid_backward: grad {grad.shape} and output {y.shape} differ")
    grad_x = np.empty_like(grad)
    _ew("sigmoid_backward", profile, run, grad, y, grad_x)
    return grad_x


def _halves(x: np.ndarray, dim: int, profile: KernelProfile) -> tuple[np.ndarray, np.ndarray]:
    """glu's halves of ``x`` along ``dim``, each C-contiguous float32; refused where glu is not measured (NaN
    inputs on arm64, another torch release)."""
    if profile.torch != "2.13.0":
        raise ParityError(f"glu is measured under torch 2.13.0 only, not {profile.label}")
    x = f32(x)
    if profile.aarch64 and bool(np.isnan(x).any()):
        raise ParityError("glu of NaN inputs on Linux arm64 is not measured: refused")
    if x.ndim == 0 or not -x.ndim <= dim < x.ndim or x.shape[dim] % 2:
        raise ValueError(f"glu: dim {dim} of shape {x.shape} cannot be halved")
    a, b = np.split(x, 2, axis=dim)
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


def _glu_nans(out: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """On aarch64 (NaN inputs refused there) every NaN out of glu is an invalid product (`inf * 0`): the
    CPU's default NaN, positive there (0x7fc00000), where the impl's x86 arithmetic gives 0xffc00000."""
    if profile.aarch64:
        out[np.isnan(out)] = np.float32(np.nan)
    return out


def glu(x: np.ndarray, dim: int, profile: KernelProfile, run: int = 0) -> np.ndarray:
    """torch.nn.functional.glu: ``a * sigmoid(b)`` of ``x``'s halves along ``dim``; ``run``: the inner loop's
    length over the output (0: the whole tensor)."""
    a, b = _halves(x, dim, profile)
    if profile.aten == "default" and bool(np.any(np.isnan(a) & np.isnan(b))):
        raise ParityError(
            "glu at the default level with a NaN in both halves at one element is refused: the default build's"
            " vector body keeps either NaN, lane by lane"
        )
    out = np.empty_like(a)
    _ew("glu_forward", profile, run, a, b, out)
    return _glu_nans(out, profile)


def glu_backward(grad: np.ndarray, x: np.ndarray, dim: int, profile: KernelProfile, run: int = 0) -> np.ndarray:
    """aten.glu_backward (GatedLinearUnit.cpp glu_backward_cpu_out): ``s = sigmoid(b)`` by the sigmoid
    kernel into the first half, the second half ``(1 - s) * s * a * grad`` left to right (glu_backward_kernel,
    the same in vector body and scalar tail), then the first half ``s * grad`` (``mul_``); every rounding
    but the sigmoid's is one IEEE product or difference."""
    a, b = _halves(x, dim, profile)
    grad = f32(grad)
    if grad.shape != a.shape:
        raise ValueError(f"glu_backward: grad {grad.shape} is not the half {a.shape}")
    if profile.aten == "default" and bool(np.any(np.isnan(a).astype(int) + np.isnan(b) + np.isnan(grad) > 1)):
        raise ParityError(
            "glu_backward at the default level with two NaNs meeting at one element is refused: the default"
            " build's vector body keeps either, lane by lane"
        )
    s = sigmoid(b, profile, run)
    # two NaNs meeting: the first factor's, as x86's MULPS/MULSS (and ATen's operand order) give it
    back = arith("mul", arith("mul", arith("mul", np.float32(1) - s, s, 0), a, 0), grad, 0)  # inf * 0: ATen's NaN too
    # the first half, s * grad, is mul_'s kernel: its vector body keeps grad's NaN, its tail s's (a NaN b
    # makes s -qNaN at avx2 and avx512; measured on a Zen 5): two NaNs of other payloads refused
    first = arith("mul", s, grad, None, "glu_backward's sigmoid(b) * grad")
    return _glu_nans(np.concatenate([first, back], axis=dim), profile)


def _layout(x: np.ndarray, channels_last: bool) -> tuple[np.ndarray, int, int, int]:
    """(x in its memory order, B, C, HW): NCHW as (B, C, HW), channels-last as (B*HW, C)."""
    if x.ndim < 2:
        raise ValueError(f"batch_norm: input of {x.ndim} dims; needs (N, C, ...)")
    b, c = x.shape[0], x.shape[1]
    hw = int(np.prod(x.shape[2:], dtype=np.int64))
    if channels_last and c > 1 and hw > 1:  # else the memory is NCHW's too, and ATen takes its path
        return np.ascontiguousarray(np.moveaxis(x, 1, -1), dtype=np.float32), b, c, hw
    return f32(x), b, c, hw


def _from_layout(y: np.ndarray, shape: tuple[int, ...], channels_last: bool) -> np.ndarray:
    if not (channels_last and shape[1] > 1 and y.size // shape[0] // shape[1] > 1):
        return y.reshape(shape)
    return np.moveaxis(y.reshape((shape[0], *shape[2:], shape[1])), -1, 1)


def _opt(a: np.ndarray | None) -> np.ndarray | None:
    return None if a is None else f32(np.asarray(a))


def _p(a: np.ndarray | None) -> ctypes.c_void_p | None:
    return None if a is None else ptr(a)


def batch_norm(
    x: np.ndarray,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    running_mean: np.ndarray | None,
    running_var: np.ndarray | None,
    momentum: float,
    eps: float,
    profile: KernelProfile,
    channels_last: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """native_batch_norm in training mode: (out, save_mean, save_invstd, new running_mean, new running_var).

    ``x`` (N, C, ...) as NumPy holds it (logical NCHW order); ``channels_last``: the tensor torch ran
    it on was channels-last in memory (the kernels then reduce over rows of C)."""
    xs, b, c, hw = _layout(x, channels_last)
    w, bi = _opt(weight), _opt(bias)
    rm = None if running_mean is None else f32(np.asarray(running_mean)).copy()
    rv = None if running_var is None else f32(np.asarray(running_var)).copy()
    y = np.empty_like(xs)
    mean = np.empty(c, np.float32)
    invstd = np.empty(c, np.float32)
    buf = np.empty(max(2 * c, profile.threads * c), np.float32)
    fn = load("nn").batch_norm_forward
    fn.restype = None
    fn(
        profile.as_c(), ptr(xs), _p(w), _p(bi), _p(rm), _p(rv),
        ctypes.c_int64(b), ctypes.c_int64(c), ctypes.c_int64(hw), ctypes.c_int32(int(channels_last and c > 1)),
        ctypes.c_double(momentum), ctypes.c_double(eps), ptr(y), ptr(mean), ptr(invstd), ptr(buf),
    )  # fmt: skip
    return _from_layout(y, x.shape, channels_last), mean, invstd, rm, rv


def batch_norm_eval(
    x: np.ndarray,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    running_mean: np.ndarray,
    running_var: np.ndarray,
    eps: float,
    profile: KernelProfile,
    channels_last: bool = False,
) -> np.ndarray:
    """native_batch_norm with training=False (nn.BatchNorm in eval mode, running statistics): its output.

    ``x`` and ``channels_last`` as ``batch_norm``'s; the running statistics are only read."""
    xs, b, c, hw = _layout(x, channels_last)
    w, bi = _opt(weight), _opt(bias)
    rm, rv = f32(np.asarray(running_mean)), f32(np.asarray(running_var))
    if rm.shape != (c,) or rv.shape != (c,):
        raise ValueError(f"running statistics of shape {rm.shape}, {rv.shape} for {c} channels")
    y = np.empty_like(xs)
    invstd = np.empty(c, np.float32)
    buf = np.empty(2 * c, np.float32)
    fn = load("nn").batch_norm_eval_forward
    fn.restype = None
    fn(
        profile.as_c(), ptr(xs), _p(w), _p(bi), ptr(rm), ptr(rv),
        ctypes.c_int64(b), ctypes.c_int64(c), ctypes.c_int64(hw), ctypes.c_int32(int(channels_last and c > 1)),
        ctypes.c_double(eps), ptr(y), ptr(invstd), ptr(buf),
    )  # fmt: skip
    return _from_layout(y, x.shape, channels_last)


def batch_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    weight: np.ndarray | None,
    save_mean: np.ndarray,
    save_invstd: np.ndarray,
    profile: KernelProfile,
    channels_last: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """native_batch_norm_backward in training mode: (grad_input, grad_weight, grad_bias).

    Refused: a channel whose input holds an infinity or a NaN and whose grad_out a NaN, in the rows kernel
    (channels-last, or an image of one element) at every level and in the NCHW kernel past the default
    build: the NaN x - mean makes meets grad_out's in the sums, and which one they keep is not modelled
    (measured on a Zen 5, an infinity in the input and a NaN in grad_out in one channel, 1, 2 and 4 threads:
    the rows kernel 17 of 180 draws other bits at avx2 and at avx512, 10 of 180 at default; the NCHW
    kernel 17 of 180 at avx2 and at avx512, none of 180 at default)."""
    rows = channels_last or int(np.prod(x.shape[2:], dtype=np.int64)) == 1
    if rows or profile.aten != "default":
        axes = (0, *range(2, np.ndim(x)))
        if bool(np.any(~np.isfinite(x).all(axis=axes) & np.isnan(grad_out).any(axis=axes))):
            kernel = "rows" if rows else "NCHW"
            raise ParityError(
                f"batch norm backward ({kernel} kernel, {profile.aten}): a channel with a NaN or infinity in the input"
                " and a NaN in grad_out; which NaN its sums keep is not modelled"
            )
    xs, b, c, hw = _layout(x, channels_last)
    gs = _layout(grad_out, channels_last)[0]
    w = _opt(weight)
    gx = np.empty_like(xs)
    gw = np.empty(c, np.float32)
    gb = np.empty(c, np.float32)
    buf = np.empty(2 * profile.threads * c, np.float32)
    fn = load("nn").batch_norm_backward
    fn.restype = None
    fn(
        profile.as_c(), ptr(gs), ptr(xs), _p(w), ptr(f32(save_mean)), ptr(f32(save_invstd)),
        ctypes.c_int64(b), ctypes.c_int64(c), ctypes.c_int64(hw), ctypes.c_int32(int(channels_last and c > 1)),
        ptr(gx), ptr(gw), ptr(gb), ptr(buf),
    )  # fmt: skip
    return _from_layout(gx, x.shape, channels_last), gw, gb


# ATen's TensorIterator path of batch norm (Normalization.cpp, not the batch_norm_kernel.cpp stubs): for an input
# neither contiguous nor channels-last (is_contiguous in no memory format), and for a backward whose input and
# grad_out are not both so and of one suggested memory format. Measured on x86 (default, avx2, avx512 builds) and
# on the Linux arm64 builds (emulated Neoverse N1, V2, V1), whose one Normalization.cpp object is contracted.

_GENERIC = "batch norm over a layout neither contiguous nor channels-last (ATen's TensorIterator path)"


def _float_view(a: np.ndarray, what: str) -> np.ndarray:
    if a.dtype != np.float32 or a.ndim < 2 or any(st < 0 or st % 4 for st in a.strides):
        raise ParityError(f"{_GENERIC}: a float32 (N, C, ...) view of non-negative strides, not {what} {a.strides}")
    return a


def _generic_nans(profile: KernelProfile, *operands: np.ndarray) -> None:
    """Refuse operands whose NaNs are of more than one pattern (which one the path's float sums keep is not
    modelled: measured on the Zen 5 and emulated aarch64 alike), and on aarch64 an operand NaN of x86's
    default pattern 0xffc00000, which ``_arm_default_nans`` could not tell from one the arithmetic made."""
    kinds = nan_kinds(*operands)
    if len(kinds) > 1:
        named = ", ".join(f"{k:#010x}" for k in sorted(kinds))
        raise ParityError(f"{_GENERIC}: NaNs of more than one pattern among its operands ({named}): not modelled")
    if profile.aarch64 and 0xFFC00000 in kinds:
        raise ParityError(f"{_GENERIC}: an operand NaN 0xffc00000 on aarch64 (x86's default NaN): not modelled")


def _refuse_nan_beside_inf(what: str, *operands: np.ndarray) -> None:
    """Refuse a channel with a NaN and an infinity among ``operands`` (N, C, ...): which NaN the path's sums
    keep, the operand's or the one inf - inf makes, is not modelled (measured on the Zen 5: training forward
    2 of 24 draws, backward 2 of 16 gave the other NaN)."""
    axes = _channel_dims(operands[0])
    nan = np.logical_or.reduce([np.isnan(v).any(axis=axes) for v in operands])
    inf = np.logical_or.reduce([np.isinf(v).any(axis=axes) for v in operands])
    if bool(np.any(nan & inf)):
        raise ParityError(
            f"{_GENERIC}, {what}: a channel with a NaN beside an infinity (which NaN its sums keep): not modelled"
        )


def _arm_default_nans(profile: KernelProfile, *outs: np.ndarray | None) -> None:
    """On aarch64 a NaN the path's arithmetic makes of no NaN (inf - inf, inf * 0, in float and in double)
    is +qNaN 0x7fc00000, where the impl's x86 arithmetic made 0xffc00000 (operands of that pattern refused:
    ``_generic_nans``): rewritten in place."""
    if not profile.aarch64:
        return
    for out in outs:
        if out is not None:
            bits = out.view(np.uint32)
            bits[bits == np.uint32(0xFFC00000)] = np.uint32(0x7FC00000)


def _serial_rows(order: list[int], *views: np.ndarray) -> list[np.ndarray]:
    """Each view as (C, M) float32: channel f's elements in the order a serial loop over TensorIterator dims
    ``order`` (innermost first; the channel dim squashed) visits them."""
    outer_first = [d for d in reversed(order) if d != 1]
    return [np.ascontiguousarray(np.transpose(v, (1, *outer_first))).reshape(v.shape[1], -1) for v in views]


def _from_rows(rows: np.ndarray, order: list[int], shape: tuple[int, ...]) -> np.ndarray:
    """``_serial_rows``' inverse: (C, M) rows of that order back to a C-contiguous array of ``shape``."""
    outer_first = [d for d in reversed(order) if d != 1]
    permuted = rows.reshape(shape[1], *(shape[d] for d in outer_first))
    return np.ascontiguousarray(np.transpose(permuted, np.argsort((1, *outer_first))))


def _element_strides(a: np.ndarray) -> list[int]:
    return [st // 4 for st in a.strides]


def _channel_dims(x: np.ndarray) -> tuple[int, ...]:
    return (0, *range(2, x.ndim))


def batch_norm_generic(
    x: np.ndarray,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    running_mean: np.ndarray | None,
    running_var: np.ndarray | None,
    momentum: float,
    eps: float,
    profile: KernelProfile,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """native_batch_norm in training mode on ATen's TensorIterator path: (out, save_mean, save_invstd, new
    running_mean, new running_var), out in logical order.

    ``x``: the input as torch laid it out, a NumPy view of its strides (e.g. ``tensor.numpy()`` of a
    transposed tensor). save_mean is at::mean over all dims but C (``reduce.mean_view``: the float sum in
    TensorIterator's order and thread split, then / n); the rest is csrc/nn.c's batch_norm_generic_stats
    (a double sum of squares in the serial loop's order) and batch_norm_generic_transform, contracted on
    aarch64. Refused: NaNs of more than one pattern, a NaN beside an infinity in a channel, and on aarch64
    a NaN of x86's default pattern."""
    from harness.impl.reduce import mean_view

    x = _float_view(x, "input")
    _generic_nans(profile, x)
    _refuse_nan_beside_inf("training", x)
    c, order = x.shape[1], iteration_order(x.shape, [_element_strides(x)])
    mean = mean_view(x, _channel_dims(x), profile).reshape(c)
    (rows,) = _serial_rows(order, x)
    rm = None if running_mean is None else f32(np.asarray(running_mean)).copy()
    rv = None if running_var is None else f32(np.asarray(running_var)).copy()
    invstd = np.empty(c, np.float32)
    fn = load("nn").batch_norm_generic_stats
    fn.restype = None
    fn(ptr(rows), ptr(mean), ctypes.c_int64(c), ctypes.c_int64(rows.shape[1]), ctypes.c_double(momentum),
       ctypes.c_double(eps), ctypes.c_int32(profile.aarch64), ptr(invstd), _p(rm), _p(rv))  # fmt: skip
    y = _generic_transform(rows, mean, invstd, _opt(weight), _opt(bias), profile)
    _arm_default_nans(profile, y, mean, invstd, rm, rv)
    return _from_rows(y, order, x.shape), mean, invstd, rm, rv


def _generic_transform(
    rows: np.ndarray,
    mean: np.ndarray,
    invstd: np.ndarray,
    w: np.ndarray | None,
    b: np.ndarray | None,
    profile: KernelProfile,
) -> np.ndarray:
    y = np.empty_like(rows)
    fn = load("nn").batch_norm_generic_transform
    fn.restype = None
    fn(ptr(rows), ptr(mean), ptr(invstd), _p(w), _p(b), ctypes.c_int64(rows.shape[0]), ctypes.c_int64(rows.shape[1]),
       ctypes.c_int32(profile.aarch64), ptr(y))  # fmt: skip
    return y


def batch_norm_eval_generic(
    x: np.ndarray,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    running_mean: np.ndarray,
    running_var: np.ndarray,
    eps: float,
    profile: KernelProfile,
) -> np.ndarray:
    """native_batch_norm with training=False on ATen's TensorIterator path (``x`` as ``batch_norm_generic``'s):
    invstd = 1 / torch.sqrt(running_var + eps), float tensor ops (the sqrt MKL VML's on x86, not IEEE:
    ``optim.sqrt``; the batch_norm_kernel.cpp kernels take std::sqrt), then ((x - running_mean) * invstd) * w + b
    (the last step fused on aarch64, where a NaN running statistic or affine parameter is refused)."""
    from harness.impl.optim import sqrt

    x = _float_view(x, "input")
    rm, rv = f32(np.asarray(running_mean)), f32(np.asarray(running_var))
    if profile.aarch64 and any(np.isnan(v).any() for v in (rm, rv, _opt(weight), _opt(bias)) if v is not None):
        raise ParityError(f"{_GENERIC}, eval: a NaN running statistic or affine parameter on aarch64: not modelled")
    if rm.shape != (x.shape[1],) or rv.shape != (x.shape[1],):
        raise ValueError(f"running statistics of shape {rm.shape}, {rv.shape} for {x.shape[1]} channels")
    with np.errstate(all="ignore"):
        root = sqrt(np.add(rv, np.float32(eps), dtype=np.float32), profile)
        invstd = np.divide(np.float32(1), root, dtype=np.float32)
    order = list(range(x.ndim - 1, -1, -1))  # element-wise: any order gives the same bits
    (rows,) = _serial_rows(order, x)
    y = _generic_transform(rows, rm, invstd, _opt(weight), _opt(bias), profile)
    if profile.aarch64:  # element-wise: a NaN not the input's own is the default NaN of inf - inf or inf * 0
        y[np.isnan(y) & ~np.isnan(rows)] = np.uint32(0x7FC00000).view(np.float32)
    return _from_rows(y, order, x.shape)


def batch_norm_backward_generic(
    grad_out: np.ndarray,
    x: np.ndarray,
    weight: np.ndarray | None,
    save_mean: np.ndarray,
    save_invstd: np.ndarray,
    profile: KernelProfile,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """native_batch_norm_backward in training mode on ATen's TensorIterator path: (grad_input, grad_weight,
    grad_bias), grad_input in logical order. ``grad_out`` and ``x`` as torch laid them out (NumPy views of
    their strides, ``batch_norm_generic``'s ``x``); grad_bias is at::sum(grad_out) over all dims but C
    (``reduce.sum_view``), the rest csrc/nn.c's batch_norm_generic_backward over the reduce iterator's order
    (not contracted on aarch64 either: measured). Refused as ``batch_norm_generic``, a NaN beside an infinity
    in grad_out or the input alike."""
    from harness.impl.reduce import sum_view

    x, grad_out = _float_view(x, "input"), _float_view(grad_out, "grad_out")
    _generic_nans(profile, x, grad_out)
    if grad_out.shape != x.shape:
        raise ValueError(f"batch_norm_backward: grad_out {grad_out.shape} and input {x.shape} differ")
    _refuse_nan_beside_inf("backward", x, grad_out)
    c = x.shape[1]
    order = iteration_order(x.shape, [_element_strides(x), _element_strides(grad_out)])
    total = sum_view(grad_out, _channel_dims(x), profile).reshape(c)
    xs, gs = _serial_rows(order, x, grad_out)
    gx = np.empty_like(xs)
    gw = np.empty(c, np.float32)
    fn = load("nn").batch_norm_generic_backward
    fn.restype = None
    fn(ptr(xs), ptr(gs), ptr(f32(save_mean)), ptr(f32(save_invstd)), _p(_opt(weight)), ptr(total), ctypes.c_int64(c),
       ctypes.c_int64(xs.shape[1]), ptr(gx), ptr(gw))  # fmt: skip
    _arm_default_nans(profile, gx, gw, total)
    return _from_rows(gx, order, x.shape), gw, total


# -- cumsum, the element-wise steps of nn.RMSNorm, dropout ------------------------------------------


def cumsum(x: np.ndarray, dim: int, aarch64: bool = False) -> np.ndarray:
    """torch.cumsum of float32 (ReduceOpsKernel.cpp cumsum_cpu_kernel): along ``dim`` a double
    accumulator from +0.0, each partial sum rounded to float. The same on every profile and thread
    count (threads split the other dims only). ``+ 0.0`` makes a sum of zeros +0.0, as ATen's +0.0
    start does (NumPy starts from the first term).

    NaNs with ``aarch64`` named as that wheel's loop makes them (read in its three objects: ``fcvt d1, s1``
    widens each term, quieting a signalling NaN with its payload; ``fadd d0, d0, d1`` keeps the accumulator
    first; ``fcvt s1, d0`` narrows the payload back): from the first NaN running sum of a line on, every one
    is that NaN: its term's, quieted, or where the term is no NaN (``inf + -inf``) aarch64's default NaN
    +qNaN."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        raise ParityError(f"cumsum: float32 only, not {x.dtype}")
    if x.ndim == 0:
        return (x.astype(np.float64) + 0.0).astype(np.float32)
    out = (np.cumsum(x.astype(np.float64), axis=dim) + 0.0).astype(np.float32)
    bad = np.isnan(out)
    if aarch64 and bad.any():
        at = np.argmax(bad, axis=dim, keepdims=True)  # the running sum's first NaN: a term's, or inf + -inf's
        term = np.take_along_axis(x, at, axis=dim)
        named = np.where(np.isnan(term), term.view(np.uint32) | np.uint32(0x00400000), np.uint32(0x7FC00000))
        out.view(np.uint32)[bad] = np.broadcast_to(named, out.shape)[bad]
    return out


# pow(x, exponent) exponents that PowKernel.cpp's pow_tensor_scalar_kernel computes with products,
# quotients and square roots, one IEEE rounding each, in this order, for float32 and float64 alike: 2, 3
# and -2 in pow_tensor_scalar_optimized_kernel, -0.5 and -1 handed to rsqrt_kernel and reciprocal_kernel
# (UnaryOpsKernel.cpp: 1 / std::sqrt(x) and 1 / x, the Vectorized rsqrt and reciprocal the same two
# divisions on every level and architecture), 1 and 0 answered by pow_out (copy, ones); others take SLEEF's
# or glibc's pow (harness.impl.unary.pow_scalar_forward, pow_f64_forward). 0.5 is sqrt_kernel: MKL VML's
# sqrt on x86 (harness.impl.optim's ``sqrt`` and ``sqrt_f64``), IEEE on aarch64.
_POW: dict[float, Any] = {
    2.0: lambda x: x * x,
    3.0: lambda x: x * x * x,
    -0.5: lambda x: x.dtype.type(1) / np.sqrt(x),
    -1.0: lambda x: x.dtype.type(1) / x,
    -2.0: lambda x: x.dtype.type(1) / (x * x),
    1.0: lambda x: x.copy(),  # pow_out copies the base
    0.0: np.ones_like,  # ... and fills ones
}


POW_SPECIAL = frozenset((*_POW, 0.5))  # the exponents pow_scalar answers (0.5: float64 on aarch64 only)


def pow_scalar(x: np.ndarray, exponent: float, aarch64: bool = False) -> np.ndarray:
    """aten.pow.Tensor_Scalar of float32 or float64 ``x`` for the exponents of _POW (nn.RMSNorm: 2; its
    backward: 3, 1), and 0.5 of float64 on ``aarch64`` (vsqrtq_f64 and fsqrt: IEEE). Elementwise, so no level,
    thread count or layout reaches a bit; a NaN operand comes back quieted, a NaN made of none (the square root
    of a negative) is the architecture's default NaN (nans.default_nans). Float64's 0.5 on x86 is MKL VML's
    vdSqrt (harness.impl.optim.sqrt_f64): refused here."""
    if x.dtype not in (np.float32, np.float64):
        raise ParityError(f"pow: float32 and float64 only, not {x.dtype}")
    exponent = float(exponent)
    if exponent not in POW_SPECIAL:
        raise ParityError(f"pow_scalar answers the exponents {sorted(POW_SPECIAL)} only, not {exponent}")
    if exponent == 0.5 and not (aarch64 and x.dtype == np.float64):
        raise ParityError(
            "pow of float64 to 0.5 on x86 is MKL VML's vdSqrt: harness.impl.optim.sqrt_f64 answers it, not here"
            if x.dtype == np.float64
            else "the impl answers float32 pow with exponent 0.5 as sqrt (MKL VML's vsSqrt on x86), not here"
        )
    with np.errstate(all="ignore"):
        out = np.asarray(np.sqrt(x) if exponent == 0.5 else _POW[exponent](x), x.dtype)
    return default_nans(out, ~np.isnan(x), aarch64)


def binary(op: str, a: np.ndarray, b: np.ndarray | float, aarch64: bool = False) -> np.ndarray:
    """add, sub, mul, div of float32 tensors (broadcast) or a tensor and a Python number (cast to float
    first, as ATen wraps it): one IEEE rounding per element on every profile (alpha 1 only: ATen's
    AVX2 ``a + 1*b`` fused multiply-add is exact). Where both operands of an element are NaN with
    other payloads (quieted), which one ATen keeps is its kernel's operand order, not NumPy's (add and
    sub keep the second at default and avx2, mul either at default, by lane: measured): refused. A NaN
    made of no NaN is the architecture's default NaN (``aarch64``: +qNaN)."""
    a = np.asarray(a)
    b = np.float32(b) if np.ndim(b) == 0 and not isinstance(b, np.ndarray) else np.asarray(b)
    if a.dtype != np.float32 or b.dtype != np.float32:
        raise ParityError(f"{op}: float32 operands only, not {a.dtype} and {b.dtype}")
    return arith(op, a, b, None, op, aarch64)


def complex_mul(a: np.ndarray, b: np.ndarray, profile: KernelProfile, run: int, scalar: bool = False) -> np.ndarray:
    """aten.mul of complex64 tensors ``a`` and ``b`` (one shape, C order as ATen's loop visits them, its inner
    loop ``run`` elements long): mul_kernel's ``cpu_kernel_vec``. At default every element is
    (ac - bd, ad + bc), each product rounded (Vectorized's generic complex product). At avx2, and at avx512
    (mul_stub has no AVX-512 object: the AVX2 one runs), each run's vector body, 8 elements at a time, takes
    the same products (``_mm256_hsub_ps`` of ac, bd and ad, -bc); of the 1 to 7 left, each pair is the
    compiler's fused tail, fma(a, c, -fl(bd)) and fma(a, d, fl(bc)), and an odd last one the plain
    product again. Where an operand is one element broadcast along the loop (``scalar``: a number, a
    size-1 inner dim) the tail is another loop of the compiler's: of 5 to 7 left, the first plain, the
    next 4 fused, the rest plain; of 1 to 4, all plain. Measured on a Zen 5 at all three levels, the
    addresses of no account. On aarch64 every element fuses one of its products (``_complex_mul_aarch64``).
    A NaN operand (which payload the vector's horizontal subtraction or the fused tail keeps) is refused."""
    a, b = (np.ascontiguousarray(v, np.complex64) for v in np.broadcast_arrays(a, b))
    re, im = np.ascontiguousarray(a.real), np.ascontiguousarray(a.imag)
    c, d = np.ascontiguousarray(b.real), np.ascontiguousarray(b.imag)
    if any(np.isnan(v).any() for v in (re, im, c, d)):
        raise ParityError("the impl reproduces mul of complex tensors without NaN operands only")
    with np.errstate(all="ignore"):
        bd, bc = im * d, im * c
        out = np.empty(a.shape, np.complex64)
        out.real, out.imag = re * c - bd, re * d + bc
        if profile.aarch64:
            return _complex_mul_aarch64(out, (re, im, c, d), profile, run, scalar)
        if profile.aten in ("avx2", "avx512") and a.size:
            pos = np.arange(a.size, dtype=np.int64) % max(run, 1)
            n = max(run, 1)
            left = n % 8
            if scalar:  # the first of the tail plain, the next 4 fused, where 5 or more are left
                tail = (pos > n - left) & (pos <= n - left + 4) if left >= 5 else np.zeros(pos.shape, bool)
            else:  # pairs fused, an odd last one plain
                tail = (pos >= n - left) & (pos < n - left % 2)
            if tail.any():
                sel = tail.reshape(a.shape)
                real, imag = out.real, out.imag  # views of out
                real[sel], imag[sel] = _fma32(re[sel], c[sel], bd[sel], -1), _fma32(re[sel], d[sel], bc[sel], 1)
    return out


# Which product of each part of (ac - bd, ad + bc) the aarch64 objects fuse, 1 the first (a*c, a*d) or 2 the
# second (b*d, b*c), as (real, imag), by the element's place in its run: in the vector body by its place in
# the groups of 2 * Vectorized<complex<float>>::size() elements (the profile's float lanes) that ATen's
# vectorised loop takes at once; in the scalar tail (the last run % lanes) as (chunk, chunk's rule, the
# rest's rule): of a tail of at least ``chunk`` elements (chunk > 0) the first ``chunk`` one way, every other
# element the rest's; per build and per loop (an operand a broadcast scalar, or not). Measured on emulated
# Neoverse N1, V2 and V1, 1, 2 and 4 threads alike. V2's SVE128 tail of a loop without a scalar operand fuses
# by no rule of place found (None: refused).
_F = {11: (1, 1), 12: (1, 2), 21: (2, 1), 22: (2, 2)}
_ARM_COMPLEX_FUSED: dict[str, dict[str, Any]] = {
    "arm64-neon": {"body": [_F[21], *[_F[22]] * 3], "scalar body": [_F[22]] * 4, "tail": (0, None, _F[11]),
                   "scalar tail": (0, None, _F[11])},
    "arm64-sve128": {"body": [_F[21], *[_F[22]] * 3], "scalar body": [_F[22]] * 4, "tail": None,
                     "scalar tail": (0, None, _F[11])},
    "arm64-sve256": {"body": [*[_F[11]] * 4, _F[12], *[_F[11]] * 3], "scalar body": [_F[11]] * 8,
                     "tail": (0, None, _F[21]), "scalar tail": (4, _F[22], _F[11])},
}  # fmt: skip


def _complex_mul_aarch64(
    out: np.ndarray, parts: tuple[np.ndarray, ...], profile: KernelProfile, run: int, scalar: bool
) -> np.ndarray:
    """complex_mul on the aarch64 builds: GCC contracted each part of Vectorized's generic element-wise
    product (c10::complex's (ac - bd, ad + bc)) and of the scalar loop's, fusing one product and rounding
    the other, which one by the element's place in its run (``_ARM_COMPLEX_FUSED``); a NaN made of
    infinities is +qNaN 0x7fc00000."""
    re, im, c, d = parts
    rules = _ARM_COMPLEX_FUSED[profile.name]
    body, tail = rules["scalar body" if scalar else "body"], rules["scalar tail" if scalar else "tail"]
    n, group = max(run, 1), len(body)
    left = n % group
    if tail is None and left:
        raise ParityError(
            f"mul of complex tensors on {profile.name}: a run of {n} elements, whose last {left} (the scalar "
            "tail) are fused by no rule found"
        )
    chunk, chunk_rule, rest_rule = tail or (0, None, None)
    tail_rows = [chunk_rule] * chunk + [rest_rule] * (left - chunk) if chunk and left >= chunk else [rest_rule] * left
    pos = (np.arange(out.size, dtype=np.int64) % n).reshape(out.shape)
    start = n - left
    table = np.asarray([*body, *tail_rows], np.int64)  # rows: body lanes, then tail places
    row = np.where(pos < start, pos % group, group + pos - start)
    with np.errstate(all="ignore"):
        ac, bd, ad, bc = re * c, im * d, re * d, im * c
        choice = ((_fma32(re, c, bd, -1), _fma32(-im, d, ac, 1)), (_fma32(re, d, bc, 1), _fma32(im, c, ad, 1)))
    for k, part in enumerate(("real", "imag")):
        value = np.where(table[row, k] == 1, *choice[k])
        value[np.isnan(value)] = np.uint32(0x7FC00000).view(np.float32)
        setattr(out, part, value)
    return out


def complex_add(a: np.ndarray, b: np.ndarray, alpha: float, profile: KernelProfile) -> np.ndarray:
    """aten.add of complex64 tensors ``a`` and ``b`` (one shape; sub is add of -alpha): the ufunc's
    ``self + alpha * other`` with alpha as c10::complex<float>(alpha, 0), the product a whole complex one
    in every lane (the vector body's fmadd: ``_mm256_hsub_ps`` of alpha*c, 0*d and 0*c, -alpha*d; the
    scalar tail's c10::complex product, contracted in the AVX2 object): (alpha*c - 0*d, 0*c + alpha*d),
    each step rounded once, then self added. A product by 0 or by alpha alone is exact or rounded alike in
    the contraction, so vector body, tails and levels give the same bits (measured on a Zen 5 at default,
    avx2 and avx512, alpha 1, -1, 2 and 0.3, zeros of both signs, infinities and subnormals); an infinite
    component of ``b`` makes the other component of the sum NaN (0 * inf), as ATen's does. NaN operands
    (which payload survives the horizontal subtraction or the contracted tail) are refused; aarch64 is
    not measured."""
    if profile.aarch64:
        raise ParityError("add and sub of complex tensors are measured on x86 only")
    if not np.isfinite(np.float32(alpha)):
        raise ParityError(f"add of complex tensors with alpha {alpha} (not finite) is not modelled")
    a, b = (np.ascontiguousarray(v, np.complex64) for v in np.broadcast_arrays(a, b))
    re, im, c, d = (np.ascontiguousarray(v) for v in (a.real, a.imag, b.real, b.imag))
    if any(np.isnan(v).any() for v in (re, im, c, d)):
        raise ParityError("the impl reproduces add and sub of complex tensors without NaN operands only")
    al, zero = np.float32(alpha), np.float32(0.0)
    with np.errstate(all="ignore"):
        out = np.empty(a.shape, np.complex64)
        out.real, out.imag = re + (al * c - zero * d), im + (zero * c + al * d)
    return out


def complex_div(a: np.ndarray, b: np.ndarray, profile: KernelProfile, run: int, in_place: bool = False) -> np.ndarray:
    """aten.div of complex64 tensors ``a`` by ``b`` (one shape, C order as ATen's loop visits them, its
    inner loop ``run`` elements long): div_true_kernel's ``a / b``, whose Vectorized<c10::complex<float>>
    division (vec256/vec512_complex_float.h) stores both vectors and divides element by element with
    c10::complex's operator/ (torch/headeronly/util/complex.h, numpy's Smith ratio): where |c| >= |d|,
    rat = d/c, scl = 1/(c + d*rat), (a + b*rat)*scl and (b - a*rat)*scl; else rat = c/d, scl = 1/(d +
    c*rat), (a*rat + b)*scl and (b*rat - a)*scl; both zero: a/|c| and b/|d|; every step in float. The
    default object rounds each product; the AVX2 object (also at avx512) contracts the three sums with
    their products into FMAs in the vector body (steps of 8 elements) and in the tail's pairs (GCC's
    vectorized loop), but in the last element of an inner loop of odd length only the denominator's; and
    where the output is self (``in_place``: GCC's overlap check sends the tail to its scalar loop) only the
    denominator's in every tail element (measured on a Zen 5: 0 other over random values with zeros,
    infinities and subnormals at all three levels, the addresses of no account). NaN operands are refused;
    aarch64 is not measured."""
    if profile.aarch64:
        raise ParityError("div of complex tensors is measured on x86 only")
    a, b = (np.ascontiguousarray(v, np.complex64) for v in np.broadcast_arrays(a, b))
    x, y, c, d = (np.ascontiguousarray(v).ravel() for v in (a.real, a.imag, b.real, b.imag))
    if any(np.isnan(v).any() for v in (x, y, c, d)):
        raise ParityError("the impl reproduces div of complex tensors without NaN operands only")
    fused = profile.aten in ("avx2", "avx512")
    n = max(run, 1)
    pos = np.arange(x.size, dtype=np.int64) % n
    # the numerators not contracted: in place, the whole tail of each inner loop; else the last element
    # of an inner loop of odd length
    plain = fused & (pos >= n // 8 * 8) if in_place else fused & (pos == n - 1) & (n % 2 == 1)

    def mad(p: np.ndarray, q: np.ndarray, r: np.ndarray, contract: np.ndarray | bool) -> np.ndarray:
        rounded = p * q + r
        return np.where(contract, _fma32(p, q, r, 1), rounded) if fused else rounded

    with np.errstate(all="ignore"):
        by_c = np.abs(c) >= np.abs(d)
        rat = np.where(by_c, d / c, c / d)
        big, small = np.where(by_c, c, d), np.where(by_c, d, c)
        scl = np.float32(1.0) / mad(small, rat, big, True)
        keep = ~plain  # the numerators contracted
        real = np.where(by_c, mad(y, rat, x, keep), mad(x, rat, y, keep)) * scl
        imag = np.where(by_c, mad(-x, rat, y, keep), mad(y, rat, -x, keep)) * scl
        zeros = by_c & (c == 0) & (d == 0)
        real = np.where(zeros, x / np.abs(c), real)
        imag = np.where(zeros, y / np.abs(d), imag)
    out = np.empty(a.shape, np.complex64)
    out.real, out.imag = real.reshape(a.shape), imag.reshape(a.shape)
    return out


def _fma32(x: np.ndarray, y: np.ndarray, z: np.ndarray, sign: int) -> np.ndarray:
    """float32 ``x * y + z`` (``sign`` 1) or ``x * y - z`` (-1: VFMSUB, a NaN ``z`` kept as it is) rounded
    once: the product exact in float64, the sum rounded to odd in float64 (exact where it fits, else its
    last bit set), then to float32 (53 bits >= 24 + 2: one correct rounding)."""
    with np.errstate(all="ignore"):
        p, z64 = x.astype(np.float64) * y.astype(np.float64), z.astype(np.float64)
        s = p + z64 if sign > 0 else p - z64
        z64 = z64 if sign > 0 else -z64
        bb = s - p
        err = (p - (s - bb)) + (z64 - bb)
        bits = s.view(np.int64)
        fix = np.isfinite(s) & (err != 0) & ((bits & 1) == 0)
        toward = np.where(err > 0, np.inf, -np.inf)
        s = np.where(fix, np.nextafter(s, toward), s)
        return s.astype(np.float32)


def div_rounding(a: np.ndarray, b: np.ndarray, mode: str, profile: KernelProfile, run: int = 0) -> np.ndarray:
    """aten.div of float32 ``a`` by ``b`` (one shape, the smaller broadcast first) with ``rounding_mode``
    "trunc" (div_trunc_kernel: ``trunc(a / b)``, one division and an exact truncation in the vector lanes
    and the scalar tail alike) or "floor" (div_floor_kernel and floor_divide: csrc/nn.c div_floor_forward,
    c10::div_floor_floating in each run's tail, div_floor_floating_vec with SLEEF's fmodf in the vector
    lanes, 8 of them at every x86 level, its NaNs as SLEEF's steps leave them). ``run`` as ``sigmoid``'s."""
    if profile.aarch64:
        raise ParityError(f"div with rounding_mode {mode!r} is measured on x86 only")
    a, b = (np.ascontiguousarray(v, np.float32) for v in np.broadcast_arrays(f32(a), f32(b)))
    if mode == "trunc":  # two NaNs: the dividend's, as DIVSS/DIVPS (no compiler swaps a division) keep it
        with np.errstate(all="ignore"):
            return np.trunc(arith("div", a, b, 0))
    if mode != "floor":
        raise ParityError(f"div: rounding_mode {mode!r} is not ATen's")
    out, unproven = np.empty_like(a), np.empty_like(a)
    fn = load("nn").div_floor_forward
    fn.restype = ctypes.c_int64
    count = fn(profile.as_c(), ptr(a), ptr(b), ptr(out), ptr(unproven), ctypes.c_int64(a.size), ctypes.c_int64(run))
    if count:
        raise ParityError(
            f"div with rounding_mode 'floor': {count} signalling NaN divisors in ATen's vector lanes, whose payload "
            "less 2 (SLEEF's fmodf steps) leaves the NaNs: not modelled"
        )
    return out


def sinc(x: np.ndarray, profile: KernelProfile | None = None) -> np.ndarray:
    """torch.sinc of float32 ``x`` (csrc/nn.c sinc_forward: ``sin(pi * x) / (pi * x)`` in float, glibc's
    sinf, aarch64's under an arm64 ``profile``; 1 at ±0), element by element in any order."""
    x = np.ascontiguousarray(f32(x))
    out = np.empty_like(x)
    fn = load("nn").sinc_forward
    fn.restype = None
    fn(ptr(x), ptr(out), ctypes.c_int64(x.size), ctypes.c_int32(bool(profile and profile.aarch64)))
    return out


def polar(abs_: np.ndarray, angle: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """torch.polar of float32 ``abs_`` and ``angle`` (one shape) as float32 (re, im) pairs, one more dim of 2
    (csrc/nn.c polar_forward: glibc's sincosf, then ``(cos, sin) * abs``, the sincosf NaN first; aarch64: its
    glibc's sincosf, ``abs * (cos, sin)`` with FMUL's NaN order, an infinite angle's +qNaN), element by element
    in any order."""
    abs_, angle = np.ascontiguousarray(f32(abs_)), np.ascontiguousarray(f32(angle))
    out = np.empty((*abs_.shape, 2), np.float32)
    fn = load("nn").polar_forward
    fn.restype = None
    fn(profile.as_c(), ptr(abs_), ptr(angle), ptr(out), ctypes.c_int64(abs_.size))
    return out


def native_dropout(x: np.ndarray, p: float, gen: Any) -> tuple[np.ndarray, np.ndarray]:
    """aten.native_dropout in training (Dropout.cpp native_dropout_cpu): mask = bernoulli_(1 - p) drawn
    into a float tensor (serial, one double each), out = (x * mask) * float(1 / (1 - p)) (0 for p = 1);
    returns (out, mask as bool)."""
    from harness.impl.rng import bernoulli_mask

    x = f32(x)
    keep = 1.0 - p
    scale = 0.0 if keep == 0 else 1.0 / keep
    mask = bernoulli_mask(gen, x.shape, keep)
    return (x * mask) * np.float32(scale), mask.astype(bool)


def _grid_sample_operands(
    x: np.ndarray, grid: np.ndarray, profile: KernelProfile, extra: tuple[np.ndarray, ...] = ()
) -> tuple[np.ndarray, np.ndarray, int]:
    """x and the grid as the C loops take them, and the grid's points per image; refused where the
    impl does not reproduce ATen's kernel."""
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[0] != x.shape[0] or grid.shape[3] != 2:
        raise ParityError(
            f"grid_sampler_2d: input {list(x.shape)} and grid {list(grid.shape)}; needs (N,C,H,W), (N,h,w,2)"
        )
    for a in (x, grid, *extra):
        if a.dtype != np.float32:
            raise ParityError(f"grid_sampler_2d: float32 operands only, not {a.dtype}")
        if not np.isfinite(a).all():
            raise ParityError("grid_sampler_2d: a NaN or infinity among the operands (its propagation not modelled)")
    return f32(x), f32(grid), grid.shape[1] * grid.shape[2]


# grid_sampler_2d's interpolation_mode and padding_mode the impl reproduces (ATen's numbering)
GRID_MODES = {0: "bilinear", 1: "nearest"}
GRID_PADDINGS = {0: "zeros", 1: "border"}


def _grid_sample_modes(mode: int, padding: int) -> tuple[ctypes.c_int32, ctypes.c_int32]:
    if mode not in GRID_MODES or padding not in GRID_PADDINGS:
        raise ParityError(
            f"the impl reproduces grid_sampler_2d {'/'.join(GRID_MODES.values())} with "
            f"{'/'.join(GRID_PADDINGS.values())} padding only, not interpolation_mode {mode}, padding_mode {padding}"
        )
    return ctypes.c_int32(mode), ctypes.c_int32(padding)


def grid_sample(
    x: np.ndarray, grid: np.ndarray, align_corners: bool, profile: KernelProfile, mode: int = 0, padding: int = 0
) -> np.ndarray:
    """aten.grid_sampler_2d: (N, C, H, W) sampled at ``grid``'s (N, h, w, 2) points, (N, C, h, w);
    ``mode`` 0 bilinear, 1 nearest, ``padding`` 0 zeros, 1 border (ATen's numbering)."""
    modes = _grid_sample_modes(mode, padding)
    x, grid, points = _grid_sample_operands(x, grid, profile)
    n, c, h, w = x.shape
    out = np.empty((n, c, points), np.float32)
    fn = load("nn").grid_sample_forward
    fn.restype = None
    fn(profile.as_c(), ptr(x), ptr(grid), ptr(out), *(ctypes.c_int64(v) for v in (n, c, h, w, points)),
       ctypes.c_int32(bool(align_corners)), *modes)  # fmt: skip
    return out.reshape(n, c, grid.shape[1], grid.shape[2])


def grid_sample_row(grid_shape: tuple[int, ...], grid_stride: tuple[int, ...] | None) -> int:
    """The output points grid_sample_2d_grid_slice_iterator walks in one run of an image's grid slice
    (N, H, W, 2) of element strides ``grid_stride`` (None: contiguous): all H*W where the slice is
    contiguous, or its W dim is of stride 1 (or size 1) and (H, W) contiguous; else W, a run per row."""
    _, h, w, _ = grid_shape
    if grid_stride is None:
        return h * w
    s_h, s_w, s_c = grid_stride[1:]
    if contiguous((s_h, s_w, s_c), (h, w, 2)):
        return h * w
    if (s_w == 1 or w == 1) and contiguous((s_h, s_w), (h, w)):
        return h * w
    return w


def grid_sample_backward(
    grad_out: np.ndarray, x: np.ndarray, grid: np.ndarray, align_corners: bool, input_grad: bool,
    profile: KernelProfile, grid_stride: tuple[int, ...] | None = None, mode: int = 0, padding: int = 0,
) -> tuple[np.ndarray | None, np.ndarray]:  # fmt: skip
    """aten.grid_sampler_2d_backward, ``mode`` and ``padding`` as grid_sample: (grad_input, or None where
    ``input_grad`` is false, grad_grid); ``grid_stride``: the grid tensor's element strides, which set
    the runs ATen cuts its points into (grid_sample_row), and so grad_input's order of additions."""
    modes = _grid_sample_modes(mode, padding)
    row = max(1, grid_sample_row(grid.shape, grid_stride))
    x, grid, points = _grid_sample_operands(x, grid, profile, (grad_out,))
    n, c, h, w = x.shape
    if grad_out.shape != (n, c, grid.shape[1], grid.shape[2]):
        raise ParityError(f"grid_sampler_2d_backward: grad_output {list(grad_out.shape)} for input {list(x.shape)}")
    go = f32(grad_out)
    gx = np.zeros_like(x) if input_grad else None
    ggrid = np.empty_like(grid)
    fn = load("nn").grid_sample_backward
    fn.restype = None
    sizes = (ctypes.c_int64(v) for v in (n, c, h, w, points, row))
    fn(profile.as_c(), ptr(go), ptr(x), ptr(grid), None if gx is None else ptr(gx), ptr(ggrid), *sizes,
       ctypes.c_int32(bool(align_corners)), *modes)  # fmt: skip
    return gx, ggrid


def area_pixel_scale(size_in: int, size_out: int, align_corners: bool, scale: float | None) -> np.float32:
    """area_pixel_compute_scale in float: (in - 1)/(out - 1) with aligned corners (0 for one output),
    else 1/scale where a positive scale factor is given, else in/out."""
    if align_corners:
        return np.float32(np.float32(size_in - 1) / np.float32(size_out - 1)) if size_out > 1 else np.float32(0)
    if scale is not None and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(np.float32(size_in) / np.float32(size_out))


def _upsample_forward(
    name: str, taps: int, per_plane: bool, x: np.ndarray, output_size: tuple[int, int], align_corners: bool,
    profile: KernelProfile, scales: tuple[float | None, float | None],
) -> np.ndarray:  # fmt: skip
    """Run csrc/nn.c's forward ``name`` (``taps`` source indices per output index) on float32 (N, C, H, W):
    its planes as N*C (``per_plane``) or its images and channels as N and C."""
    op = {"upsample_bicubic": "upsample_bicubic2d", "upsample_bilinear": "upsample_bilinear2d"}[name]
    if x.dtype != np.float32 or x.ndim != 4:
        raise ParityError(f"{op}: float32 (N, C, H, W) only, not {x.dtype}{list(x.shape)}")
    if not np.isfinite(x).all():
        raise ParityError(f"{op}: a NaN or infinity in the input (its propagation not modelled)")
    n, c, h, w = x.shape
    oh, ow = (int(v) for v in output_size)
    sh = area_pixel_scale(h, oh, align_corners, scales[0])
    sw = area_pixel_scale(w, ow, align_corners, scales[1])
    out = np.empty((n, c, oh, ow), np.float32)
    hi, wi = np.empty(taps * oh, np.int64), np.empty(taps * ow, np.int64)
    hw, ww = np.empty(taps * oh, np.float32), np.empty(taps * ow, np.float32)
    fn = getattr(load("nn"), name)
    fn.restype = None
    lead = (n * c,) if per_plane else (n, c)
    fn(profile.as_c(), ptr(f32(x)), ptr(out), *(ctypes.c_int64(v) for v in (*lead, h, w, oh, ow)), ctypes.c_float(sh),
       ctypes.c_float(sw), ctypes.c_int32(bool(align_corners)), ptr(hi), ptr(hw), ptr(wi), ptr(ww))  # fmt: skip
    return out


def upsample_bicubic2d(
    x: np.ndarray, output_size: tuple[int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten.upsample_bicubic2d (not antialiased) of float32 (N, C, H, W) to (N, C, *output_size)."""
    return _upsample_forward("upsample_bicubic", 4, True, x, output_size, align_corners, profile, scales)


def _aa_taps(
    op: str, t: np.ndarray, sizes: tuple[int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None], cubic: bool,
) -> tuple[list[Any], list[np.ndarray]]:  # fmt: skip
    """The arguments csrc/nn.c's antialiased kernels share after their tensors: the sizes (planes, H, W, OH,
    OW), the float scales, the taps per output (2*ceil(support) + 1; the support ``interp_size/2`` times the
    scale where it is at least 1: 4 taps wide bicubic, 2 bilinear) and the scratch for each dim's taps
    (returned too, to outlive the call); refuses what the kernels do not model (``t``: the op's float32
    operand; the bilinear filter on aarch64, not measured there)."""
    if t.dtype != np.float32 or t.ndim != 4:
        raise ParityError(f"{op}: float32 (N, C, H, W) only, not {t.dtype}{list(t.shape)}")
    if not np.isfinite(t).all():
        raise ParityError(f"{op}: a NaN or infinity in its operand (its propagation not modelled)")
    if not cubic and profile.aarch64:
        raise ParityError(f"{op}: the arm64 builds' antialiased bilinear kernel (not measured)")
    n, c, h, w, oh, ow = (int(v) for v in (*sizes[:2], *sizes[2:]))
    sh = area_pixel_scale(h, oh, align_corners, scales[0])
    sw = area_pixel_scale(w, ow, align_corners, scales[1])
    half = 2 if cubic else 1
    kh, kw = (2 * int(np.ceil(np.float32(half * s) if s >= 1 else half)) + 1 for s in (sh, sw))
    taps = [np.empty(oh, np.int64), np.empty(oh, np.int64), np.zeros(kh * oh, np.float32)]
    taps += [np.empty(ow, np.int64), np.empty(ow, np.int64), np.zeros(kw * ow, np.float32)]
    dims = (ctypes.c_int64(v) for v in (n * c, h, w, oh, ow))
    scale_args = (ctypes.c_float(sh), ctypes.c_float(sw), ctypes.c_int64(kh), ctypes.c_int64(kw))
    return [*dims, *scale_args, *(ptr(a) for a in taps)], taps


def _upsample_aa(
    op: str, x: np.ndarray, output_size: tuple[int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None], cubic: bool,
) -> np.ndarray:  # fmt: skip
    """The antialiased forward of ``op`` (csrc/nn.c upsample_bicubic_aa or upsample_bilinear_aa)."""
    oh, ow = (int(v) for v in output_size)
    n, c, h = x.shape[:3] if x.ndim == 4 else (0, 0, 0)
    if ow == 1 and oh not in (1, h) and n * c * oh >= GRAIN_SIZE and profile.threads > 1:
        raise ParityError(
            f"{op}: a width of 1 over GRAIN_SIZE outputs on threads (the height pass's taps restart at each "
            "thread's chunk; not modelled)"
        )
    args, _scratch = _aa_taps(op, x, (*x.shape[:4], oh, ow), align_corners, profile, scales, cubic)
    out = np.empty((n, c, oh, ow), np.float32)
    tmp = np.empty((n, c, h, ow), np.float32)
    fn = getattr(load("nn"), "upsample_bicubic_aa" if cubic else "upsample_bilinear_aa")
    fn.restype = None
    fn(profile.as_c(), ptr(f32(x)), ptr(tmp), ptr(out), *args)
    return out


def _upsample_aa_backward(
    op: str, go: np.ndarray, input_size: tuple[int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None], cubic: bool,
) -> np.ndarray:  # fmt: skip
    """The antialiased backward of ``op`` (csrc/nn.c upsample_bicubic_aa_backward or
    upsample_bilinear_aa_backward)."""
    n, c, h, w = (int(v) for v in input_size)
    sizes = (n, c, h, w, *(go.shape[2:] if go.ndim == 4 else (0, 0)))
    args, _scratch = _aa_taps(op, go, sizes, align_corners, profile, scales, cubic)
    if go.shape[:2] != (n, c):
        raise ParityError(f"{op}: gradient {list(go.shape)} for input {[n, c, h, w]}")
    gx = np.zeros((n, c, h, w), np.float32)
    fn = getattr(load("nn"), "upsample_bicubic_aa_backward" if cubic else "upsample_bilinear_aa_backward")
    fn.restype = None
    fn(profile.as_c(), ptr(f32(go)), ptr(gx), *args)
    return gx


def upsample_bicubic2d_aa(
    x: np.ndarray, output_size: tuple[int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten._upsample_bicubic2d_aa of a C-contiguous float32 (N, C, H, W) to (N, C, *output_size): ATen's
    separable antialiased kernel (Keys' cubic with A = -0.5, each output's weights normalised by their
    float sum), the width pass then the height pass; finite inputs (measured on the x86 builds and on the
    Linux arm64 ones, emulated Neoverse N1, V2 and V1: csrc/nn.c ``aa_pass`` says how each sums)."""
    return _upsample_aa("_upsample_bicubic2d_aa", x, output_size, align_corners, profile, scales, True)


def upsample_bicubic2d_aa_backward(
    go: np.ndarray, input_size: tuple[int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten._upsample_bicubic2d_aa_backward of a float32 (N, C, OH, OW) gradient (ATen makes it
    contiguous) to the input's (N, C, H, W); finite gradients (x86 and Linux arm64, fused alike)."""
    return _upsample_aa_backward(
        "_upsample_bicubic2d_aa_backward", go, input_size, align_corners, profile, scales, True
    )


def upsample_bilinear2d_aa(
    x: np.ndarray, output_size: tuple[int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten._upsample_bilinear2d_aa of a C-contiguous float32 (N, C, H, W): the separable antialiased kernel
    of ``upsample_bicubic2d_aa`` with the triangle filter (``1 - |x|``, support the scale when downsampling),
    summed and fused alike; finite inputs, on x86 (measured on a Zen 5; aarch64 refused)."""
    return _upsample_aa("_upsample_bilinear2d_aa", x, output_size, align_corners, profile, scales, False)


def upsample_bilinear2d_aa_backward(
    go: np.ndarray, input_size: tuple[int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten._upsample_bilinear2d_aa_backward of a float32 (N, C, OH, OW) gradient to the input's (N, C, H,
    W): ``upsample_bicubic2d_aa_backward`` with the triangle filter; finite gradients, on x86."""
    return _upsample_aa_backward(
        "_upsample_bilinear2d_aa_backward", go, input_size, align_corners, profile, scales, False
    )


def upsample_bilinear2d(
    x: np.ndarray, output_size: tuple[int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten.upsample_bilinear2d (not antialiased) of float32 (N, C, H, W) to (N, C, *output_size) by
    ATen's channels-last kernel (the sizes and layouts that take its generic one are ``upsample_linear``'s:
    the caller picks); measured on x86 and the Linux arm64 builds."""
    return _upsample_forward("upsample_bilinear", 2, False, x, output_size, align_corners, profile, scales)


def upsample_bicubic2d_backward(
    go: np.ndarray, input_size: tuple[int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None),
) -> np.ndarray:  # fmt: skip
    """aten.upsample_bicubic2d_backward of a float32 (N, C, OH, OW) gradient (ATen makes it contiguous)
    to the input's (N, C, H, W): one build on x86 (the capability changes no bit), contracted on aarch64."""
    if go.dtype != np.float32 or go.ndim != 4:
        raise ParityError(f"upsample_bicubic2d_backward: float32 (N, C, OH, OW), not {go.dtype}{list(go.shape)}")
    if not np.isfinite(go).all():
        raise ParityError(
            "upsample_bicubic2d_backward: a NaN or infinity in the gradient (its propagation not modelled)"
        )
    return _upsample_backward("upsample_bicubic_backward", 4, go, input_size, align_corners, profile, scales)


def _upsample_backward(
    kernel: str, taps: int, go: np.ndarray, input_size: tuple[int, int, int, int], align_corners: bool,
    profile: KernelProfile, scales: tuple[float | None, float | None], *extra: int,
) -> np.ndarray:  # fmt: skip
    """Run csrc/nn.c's ``kernel`` (``taps`` source indices per output index) over the planes of ``go``,
    ``extra`` ints after align_corners."""
    n, c, oh, ow = go.shape
    h, w = int(input_size[2]), int(input_size[3])
    gx = np.zeros((n, c, h, w), np.float32)
    hi, wi = np.empty(taps * oh, np.int64), np.empty(taps * ow, np.int64)
    hw, ww = np.empty(taps * oh, np.float32), np.empty(taps * ow, np.float32)
    fn = getattr(load("nn"), kernel)
    fn.restype = None
    sh = area_pixel_scale(h, oh, align_corners, scales[0])
    sw = area_pixel_scale(w, ow, align_corners, scales[1])
    fn(profile.as_c(), ptr(f32(go)), ptr(gx), *(ctypes.c_int64(v) for v in (n * c, h, w, oh, ow)), ctypes.c_float(sh),
       ctypes.c_float(sw), ctypes.c_int32(bool(align_corners)), *(ctypes.c_int32(v) for v in extra), ptr(hi), ptr(hw),
       ptr(wi), ptr(ww))  # fmt: skip
    return gx


def upsample_bilinear2d_backward(
    go: np.ndarray, input_size: tuple[int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None] = (None, None), channels_last: bool = False,
) -> np.ndarray:  # fmt: skip
    """aten.upsample_bilinear2d_backward of a float32 (N, C, OH, OW) gradient to the input's (N, C, H, W):
    ATen's scalar kernel over a channels-first gradient. A channels-last one takes ATen's vectorised
    kernel (cpu_upsample_linear_backward_channels_last: per image, per output pixel, the four taps each
    updated over all channels, a vector body and a scalar tail), whose updates of each element come in
    the same order with the same fused or unfused arithmetic, so the same bits (measured: 900 random
    channels-last gradients at default, AVX2 and AVX-512 on 1, 2 and 4 threads, 1 to 64 channels, NaN,
    infinities and denormals among them, all bit for bit; 3-D alike, 600 of which 46 NaN refused at
    default as for channels-first). ``channels_last``: the gradient torch held was channels-last contiguous.
    On aarch64 (measured on emulated Neoverse N1, V2 and V1, 1, 2 and 4 threads) the NEON-typed objects (N1,
    V2) fuse every update of either kernel, with aarch64's NaNs; V1's SVE256 object rounds the product and
    the sum in the channels-last kernel's vector body (the first C - C % 8 channels), its tail fused."""
    if go.dtype != np.float32 or go.ndim != 4:
        raise ParityError(f"upsample_bilinear2d_backward: float32 (N, C, OH, OW), not {go.dtype}{list(go.shape)}")
    return _upsample_backward("upsample_bilinear_backward", 2, go, input_size, align_corners, profile, scales,
                              int(channels_last), go.shape[1])  # fmt: skip


X86_BUILDS = ("default", "avx2", "avx512")  # the builds the 3-D channels-last kernel was measured at
# the builds the generic linear kernels were measured at: x86's three and aarch64's (NEON: Neoverse N1; SVE:
# V2's SVE128 and V1's SVE256 objects, emulated)
LINEAR_BUILDS = (*X86_BUILDS, "neon", "sve")


def _linear_call(name: str, profile: KernelProfile, src: np.ndarray, dst: np.ndarray, lead: tuple[int, ...],
                 sizes: tuple[int, ...], out_sizes: tuple[int, ...], align: bool, scales: tuple[float | None, ...],
                 *extra: int) -> None:  # fmt: skip
    """csrc/nn.c's linear upsampling ``name`` from ``src`` into ``dst``: the ``lead`` counts, the input's
    and the output's sizes per dim (outermost first), each dim's area_pixel_scale, align_corners,
    ``extra`` ints, then the scratch for each output dim's two taps (index, weight)."""
    scratch = [a for o in out_sizes for a in (np.empty(2 * o, np.int64), np.empty(2 * o, np.float32))]
    fn = getattr(load("nn"), name)
    fn.restype = None
    fn(profile.as_c(), ptr(src), ptr(dst), *(ctypes.c_int64(v) for v in (*lead, *sizes, *out_sizes)),
       *(ctypes.c_float(area_pixel_scale(i, o, align, s)) for i, o, s in zip(sizes, out_sizes, scales, strict=True)),
       ctypes.c_int32(bool(align)), *(ctypes.c_int32(v) for v in extra), *map(ptr, scratch))  # fmt: skip


def _refuse_default_nans(op: str, a: np.ndarray, what: str, profile: KernelProfile) -> None:
    """ParityError for a NaN or infinity in ``a`` at the default level (its sums' NaN choice not modelled)."""
    if not profile.contract and not np.isfinite(a).all():
        raise ParityError(
            f"{op}: a NaN or infinity in the {what} at the default level (which NaN its sums keep) is not modelled"
        )


def upsample_linear(
    x: np.ndarray, output_size: tuple[int, ...], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, ...] = (None, None, None),
) -> np.ndarray:  # fmt: skip
    """ATen's generic linear kernel (csrc/nn.c ``upsample_linear_generic``, x86 and arm64): aten.upsample_linear1d of
    float32 (N, C, W) to (N, C, OW), or aten.upsample_bilinear2d of (N, C, H, W) and upsample_trilinear3d of
    (N, C, D, H, W) where ATen does not take its channels-last kernel (the caller decides:
    harness.trace.impl_nn). ``scales``: one per output dim, ATen's order (the last ones used)."""
    dims = len(output_size)
    op = {1: "upsample_linear1d", 2: "upsample_bilinear2d", 3: "upsample_trilinear3d"}.get(dims, "upsample_linear")
    if x.dtype != np.float32 or x.ndim != dims + 2 or dims not in (1, 2, 3):
        raise ParityError(f"{op}: float32 (N, C, ...) with a dim per output size, not {x.dtype}{list(x.shape)}")
    profile.refuse_unmeasured(f"{op} (ATen's generic linear kernel)", LINEAR_BUILDS)
    if dims == 3:
        _refuse_default_nans(op, x, "input", profile)
    n, c = x.shape[:2]
    sizes = (1,) * (3 - dims) + x.shape[2:]
    out_sizes = (1,) * (3 - dims) + tuple(int(v) for v in output_size)
    given = (None,) * (3 - dims) + tuple(scales[len(scales) - dims :])
    out = np.empty((n * c, *out_sizes), np.float32)
    _linear_call("upsample_linear_generic", profile, f32(x), out, (n * c,), sizes, out_sizes, align_corners, given,
                 dims)  # fmt: skip
    return out.reshape(n, c, *output_size)


def upsample_trilinear3d(
    x: np.ndarray, output_size: tuple[int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None, float | None] = (None, None, None),
) -> np.ndarray:  # fmt: skip
    """aten.upsample_trilinear3d of float32 (N, C, D, H, W) to (N, C, *output_size) by ATen's channels-last
    kernel (csrc/nn.c ``upsample_linear_channels_last``, x86), which it takes for a channels-last input of
    more than 3 channels, at any size (the caller decides: harness.trace.impl_nn)."""
    if x.dtype != np.float32 or x.ndim != 5:
        raise ParityError(f"upsample_trilinear3d: float32 (N, C, D, H, W), not {x.dtype}{list(x.shape)}")
    profile.refuse_unmeasured("upsample_trilinear3d (ATen's channels-last kernel)", X86_BUILDS)
    _refuse_default_nans("upsample_trilinear3d", x, "input", profile)
    out_sizes = tuple(int(v) for v in output_size)
    out = np.empty((*x.shape[:2], *out_sizes), np.float32)
    _linear_call("upsample_linear_channels_last", profile, f32(x), out, x.shape[:2], x.shape[2:], out_sizes,
                 align_corners, scales, 3)  # fmt: skip
    return out


def upsample_trilinear3d_backward(
    go: np.ndarray, input_size: tuple[int, int, int, int, int], align_corners: bool, profile: KernelProfile,
    scales: tuple[float | None, float | None, float | None] = (None, None, None), channels_last: bool = False,
) -> np.ndarray:  # fmt: skip
    """aten.upsample_trilinear3d_backward of a float32 (N, C, OD, OH, OW) gradient to the input's (N, C, D,
    H, W) (x86 and Linux arm64): ATen's scalar kernel, or over a channels-last contiguous gradient
    (``channels_last``) its vectorised one, as ``upsample_bilinear2d_backward`` says."""
    if go.dtype != np.float32 or go.ndim != 5:
        raise ParityError(f"upsample_trilinear3d_backward: float32 (N, C, OD, OH, OW), not {go.dtype}{list(go.shape)}")
    profile.refuse_unmeasured("upsample_trilinear3d_backward", LINEAR_BUILDS)
    _refuse_default_nans("upsample_trilinear3d_backward", go, "gradient", profile)
    n, c = go.shape[:2]
    sizes = tuple(int(v) for v in input_size[2:])
    gx = np.zeros((n * c, *sizes), np.float32)
    _linear_call("upsample_trilinear_backward", profile, f32(go), gx, (n * c,), sizes, go.shape[2:], align_corners,
                 scales, int(channels_last), c)  # fmt: skip
    return gx.reshape(n, c, *sizes)


def upsample_linear1d_backward(
    go: np.ndarray, input_size: tuple[int, int, int], align_corners: bool, profile: KernelProfile,
    scale: float | None = None,
) -> np.ndarray:  # fmt: skip
    """aten.upsample_linear1d_backward of a float32 (N, C, OW) gradient to the input's (N, C, W) (x86, arm64)."""
    if go.dtype != np.float32 or go.ndim != 3:
        raise ParityError(f"upsample_linear1d_backward: float32 (N, C, OW), not {go.dtype}{list(go.shape)}")
    profile.refuse_unmeasured("upsample_linear1d_backward", LINEAR_BUILDS)
    n, c, ow = go.shape
    w = int(input_size[2])
    gx = np.zeros((n * c, w), np.float32)
    _linear_call("upsample_linear1d_backward", profile, f32(go), gx, (n * c,), (w,), (ow,), align_corners, (scale,))
    return gx.reshape(n, c, w)


def prelu(x: np.ndarray, weight: np.ndarray, profile: KernelProfile, run: int = 0, scalar: int = 0) -> np.ndarray:
    """``aten._prelu_kernel`` (prelu_kernel, cpu_kernel_vec): ``x > 0 ? x : weight * x`` of float32 operands of
    one shape in ATen's loop order, ``run`` its inner run; ``scalar`` the input ATen's vectorized loop reads as
    a scalar (2: the weight, broadcast along the inner dim; where x and weight are both NaN the AVX2 object's
    vector body then keeps the weight's NaN: csrc/nn.c). A NaN out of it on aarch64 is measured on x86 only."""
    x, weight = f32(x), f32(weight)
    if x.shape != weight.shape:
        raise ValueError(f"prelu: input {x.shape} and weight {weight.shape} differ")
    if scalar == 1 and bool(np.any(np.isnan(x) & np.isnan(weight))):
        raise ParityError("prelu with its input read as a scalar (broadcast along the inner dim) and two NaNs met")
    out = np.empty_like(x)
    fn = load("nn").prelu_forward
    fn.restype = None
    fn(profile.as_c(), ptr(x), ptr(weight), ptr(out), ctypes.c_int64(x.size), ctypes.c_int64(run),
       ctypes.c_int32(scalar == 2))  # fmt: skip
    return out


def prelu_backward(
    grad: np.ndarray, x: np.ndarray, weight: np.ndarray, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray]:
    """``aten._prelu_kernel_backward`` (prelu_backward_kernel, cpu_kernel_multiple_outputs: the basic loop,
    one element at a time on every level and layout): ``grad_input = x > 0 ? grad : weight * grad`` and
    ``grad_weight = x > 0 ? 0 : x * grad``, both of the broadcast shape (the weight's own gradient is the
    ``sum`` autograd takes of it, an op of its own). Two NaNs meeting: the weight's, resp. x's (measured on a
    Zen 5 at default, avx2 and avx512); on aarch64 refused, its invalid products' NaN +qNaN."""
    shape = np.broadcast_shapes(grad.shape, x.shape, weight.shape)
    g, xb, w = (np.broadcast_to(f32(v), shape) for v in (grad, x, weight))
    keep = None if profile.aarch64 else 0
    kept = xb > 0
    grad_input = np.where(kept, g, arith("mul", w, g, keep, "prelu backward's weight * grad", profile.aarch64))
    grad_weight = np.where(kept, np.float32(0), arith("mul", xb, g, keep, "prelu backward's x * grad", profile.aarch64))
    return grad_input.astype(np.float32), grad_weight.astype(np.float32)


def cdist(x1: np.ndarray, x2: np.ndarray, p: float, profile: KernelProfile) -> np.ndarray:
    """``aten._cdist_forward``'s own kernel (cdist_kernel_impl) of x1 (d, r1, m) and x2 (d, r2, m), C-contiguous
    float32: out (d, r1, r2), each pair's sum in order (csrc/nn.c cdist_pair), the kernel's p the float nearest
    ``p``. Another p than 0, 1, 2 and inf sums glibc's ``powf`` of each term (vmath.h glibc_powf) and finishes
    with ``std::pow(agg, 1.0 / p)``, glibc's double pow rounded to float (unary.pow_tail: glibc's steps on
    x86; on aarch64 refused where the rounding is not proven). On aarch64 p = 2's squares are fused in N1's
    tail as in the AVX2 object's and nowhere on V2 and V1 (FADDA); another p's terms are aarch64 glibc's powf
    (the x86 FMA build's bits, measured); its NaNs by aarch64's operand orders as disassembled (csrc/nn.c
    cdist_pair_a64: FABD / FSUB x1, x2, the sum's first operand kept, N1's NEON lanes 1 and 2 the term's)."""
    x1, x2 = f32(x1), f32(x2)
    pnorm = float(np.float32(p))
    d, r1, m = x1.shape
    out = np.empty((d, r1, x2.shape[1]), np.float32)
    fn = load("nn").cdist_forward
    fn.restype = ctypes.c_int64
    dims = (ctypes.c_int64(v) for v in (d, r1, x2.shape[1], m))
    clashes = fn(profile.as_c(), ptr(x1), ptr(x2), *dims, ctypes.c_float(pnorm), ptr(out))
    if clashes:
        raise ParityError(f"cdist: {clashes} distances sum NaNs of other bits (which one the sum keeps): not modelled")
    if pnorm in (0.0, 1.0, 2.0, float("inf")):
        return out
    values, proven = pow_tail(out.reshape(-1), 1.0 / pnorm, profile.aarch64, fma_build=profile.libm_fma)
    if not proven.all():
        raise ParityError(
            f"cdist with p = {p}: {np.count_nonzero(~proven)} sums' std::pow(sum, 1.0 / p) lie within glibc "
            "double pow's error bound of a float rounding boundary: which float they give is not proven"
        )
    return values.reshape(out.shape)


def _cdist_backward_branch(p: float) -> str:
    """apply_backward_cdist's choice of backward by the double p."""
    if p == 0.0 or p == 1.0 or p == 2.0 or math.isinf(p):
        return str(p)
    return "lt2" if p < 2.0 else "pdist"


def cdist_backward(
    grad: np.ndarray, x1: np.ndarray, x2: np.ndarray, p: float, dist: np.ndarray, profile: KernelProfile
) -> np.ndarray:
    """``aten._cdist_backward``'s kernel (cdist_backward_kernel_impl) of grad and dist (d, r1, r2), x1 (d, r1, m),
    x2 (d, r2, m), C-contiguous float32: grad_x1 (d, r1, m) (csrc/nn.c cdist_backward). Any p: the branch the
    double p picks, run with the float nearest it (refused where the two disagree on the branch); on x86 the NaNs
    the C loop cannot name refused; on aarch64 every p's NaNs in the objects' operation orders."""
    grad, x1, x2, dist = (f32(v) for v in (grad, x1, x2, dist))
    pnorm = float(np.float32(p))
    if _cdist_backward_branch(float(p)) != _cdist_backward_branch(pnorm):
        raise ParityError(f"_cdist_backward with p = {p}: the double p and the kernel's float p take other branches")
    d, r1, m = x1.shape
    out = np.zeros_like(x1)
    if pnorm == 0.0:
        return out
    fn = load("nn").cdist_backward
    fn.restype = ctypes.c_int64
    dims = (ctypes.c_int64(v) for v in (d, r1, x2.shape[1], m))
    unproven = fn(profile.as_c(), ptr(grad), ptr(x1), ptr(x2), ptr(dist), *dims, ctypes.c_float(pnorm), ptr(out))
    if unproven:
        raise ParityError(f"_cdist_backward: {unproven} operations where two NaNs of other bits meet: not modelled")
    return out
