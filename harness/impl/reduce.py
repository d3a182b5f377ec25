"""Reductions and broadcasting binary ops: add, mul, div, sum, mean, var, vector_norm, clip_grad_norm;
the element-wise selections where and masked_fill.

C kernels in csrc/reduce.c reproduce torch 2.13.0's CPU float32 reductions and their backwards
bit for bit under a ``KernelProfile`` (its thread count included). The broadcasting binary ops'
elementwise add/mul/div/neg of float32 are single IEEE roundings on every profile and run in
NumPy; their broadcast gradients are reduced by ``sum_dims``. ``sum_dims`` is the shared entry point other
groups use for bias/weight gradients. ``RUNNERS`` maps the op ids to fixture runners.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.nans import arith
from harness.impl.op_registry import Runner
from harness.impl.profiles import KernelProfile

_I64 = ctypes.c_int64
_I32 = ctypes.c_int32
_P = ctypes.c_void_p

# kernels of signature (profile, in, out, ndim, shape, reduced-dim mask)
_REDUCERS = (
    "sum_forward",
    "mean_forward",
    "var_forward",
    "std_forward",
    "vector_norm_forward",
    "vector_norm1_forward",
    "sum_backward",
    "mean_backward",
)


def _lib() -> ctypes.CDLL:
    lib = load("reduce")
    if not getattr(lib, "_typed", False):
        for name in _REDUCERS:
            getattr(lib, name).argtypes = [Profile, _P, _P, _I32, _P, _P]
        lib.sum_forward_strided.argtypes = [Profile, _P, _P, _I32, _P, _P, _P]
        lib.std_var_forward.argtypes = [Profile, _P, _P, _I32, _P, _P, ctypes.c_double, _I32]
        lib.var_backward.argtypes = [Profile, _P, _P, _P, _P, _I32, _P, _P, _I32]
        lib.vector_norm_backward.argtypes = [Profile, _P, _P, _P, _P, _I32, _P, _P]
        lib.sum_nan_pick_unread.argtypes, lib.sum_nan_pick_unread.restype = [], _I32
        lib._typed = True
    return lib


def _c32(a: np.ndarray) -> np.ndarray:
    """f32 keeping 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return f32(a).reshape(np.shape(a))


def _norm_dims(ndim: int, dims: tuple[int, ...] | int | None) -> tuple[int, ...]:
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, int):
        dims = (dims,)
    if not dims:  # torch: an empty dim list reduces everything
        return tuple(range(ndim))
    return tuple(sorted({d % ndim for d in dims})) if ndim else ()


def _geometry(shape: tuple[int, ...], dims: tuple[int, ...] | int | None) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(shape as int64, reduced-dim mask as int32, output shape) for the C kernels."""
    red = _norm_dims(len(shape), dims)
    out_shape = tuple(s for i, s in enumerate(shape) if i not in red)
    return np.array(shape, np.int64), np.array([i in red for i in range(len(shape))], np.int32), out_shape


def _reduce(kernel: str, x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile) -> np.ndarray:
    x = _c32(x)
    shape, mask, out_shape = _geometry(x.shape, dims)
    out = np.empty(out_shape, np.float32)
    getattr(_lib(), kernel)(profile.as_c(), ptr(x), ptr(out), x.ndim, ptr(shape), ptr(mask))
    if kernel in ("sum_forward", "mean_forward"):
        _refuse_unread_nan_pick(kernel.removesuffix("_forward"), x, profile)
    return out


def _refuse_unread_nan_pick(op: str, x: np.ndarray, profile: KernelProfile) -> None:
    """ParityError where the last cascade_sum over ``x`` met, under an arm64 profile, two NaNs whose pick is an
    FADD's operand order the impl did not read (its outer and strided loops: csrc/reduce.c add_nans_unread), or
    where ``x`` holds a signalling NaN beside NaNs of other patterns: where it is quieted (by an add of a number
    first, or meeting a quiet NaN raw) decides which comes out, and a traced mean on emulated V1 at 2 threads
    kept the quiet one where the modelled order gives the signalling one's."""
    if not profile.aarch64:
        return
    if _lib().sum_nan_pick_unread():
        raise ParityError(
            f"{op}: two NaNs of other payloads meet in cascade_sum's outer or strided loops, whose FADD operand "
            "order on aarch64 is not modelled: refused"
        )
    bits = x.reshape(-1).view(np.uint32)[np.isnan(x.reshape(-1))]
    if (bits & np.uint32(0x00400000) == 0).any() and np.unique(bits | np.uint32(0x00400000)).size > 1:
        raise ParityError(f"{op}: a signalling NaN beside NaNs of other patterns: where aarch64 quiets it is not "
                          "modelled: refused")  # fmt: skip


def sum_dims(x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile) -> np.ndarray:
    """``torch.sum(x, dims)`` (keepdim=False) of a float32 array, bit for bit.

    ``dims``: a dim, a tuple of dims (negative allowed, any subset), or ``None``/``()`` for all dims
    (a 0-d result). The array is made C-contiguous first: the bits are torch's for a contiguous
    input of that shape. Reproduces SumKernel.cpp cascade_sum under TensorIterator's dim order
    and coalescing and its parallel_reduce split for ``profile.threads`` (two-pass per-thread
    buffers for a full reduction of >= 32768 elements; output-column split otherwise).
    Use it for gradients of broadcast operands, e.g. a linear bias gradient is
    ``sum_dims(grad_out, tuple(range(grad_out.ndim - 1)), profile)``.
    """
    return _reduce("sum_forward", x, dims, profile)


def sum_view(x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile) -> np.ndarray:
    """``sum_dims`` of a float32 view as torch laid it out (positive strides, any order, gaps allowed:
    a permuted tensor, ViT's patch tokens past the class token, one expert's rows of a wider buffer).
    TensorIterator orders the kept dims as the contiguous output's and the reduced ones by the input's
    strides, and merges two neighbours only where no gap lies between them; cascade_sum's 2-d loops run
    over those spans, each adding its sums into the output: other bits than a contiguous copy's."""
    spans = [st for n, st in zip(x.shape, x.strides, strict=True) if n > 1]
    if x.dtype != np.float32 or any(st <= 0 or st % 4 for st in spans):
        raise ParityError(f"sum of a view: float32 with positive strides only, not {x.dtype} {x.strides}")
    shape, mask, out_shape = _geometry(x.shape, dims)
    strides = np.array([st // 4 for st in x.strides], np.int64)
    out = np.empty(out_shape, np.float32)
    _lib().sum_forward_strided(profile.as_c(), x.ctypes.data, ptr(out), x.ndim, ptr(shape), ptr(strides), ptr(mask))
    _refuse_unread_nan_pick("sum", x, profile)
    return out


def mean_view(x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile) -> np.ndarray:
    """``mean_dims`` of a view (``sum_view``): the sum, then a true division by the count as a float."""
    count = int(np.prod([x.shape[d] for d in _norm_dims(x.ndim, dims)], dtype=np.int64))
    return np.divide(sum_view(x, dims, profile), np.float32(count), dtype=np.float32)


def logsumexp(x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile) -> np.ndarray:
    """``torch.logsumexp(x, dims)`` (keepdim=False) of a float32 array, bit for bit, as ATen composes it
    (ReduceOps.cpp ``logsumexp_out_impl``): ``m = amax(x, dims, keepdim)`` (exact); an infinite ``m``
    set to 0 (``masked_fill_`` on the squeezed view, so the kept ``m`` too); ``t = x - m`` (one
    rounding); ``exp_(t)`` (the ``exp`` kernel, ``unary.forward``); ``sum_dims(t, dims)``; ``log_`` of
    the sums (the ``log`` kernel) and ``+ m``. The array is taken C-contiguous (``x - m`` is then a
    contiguous temporary, the sum's order ``sum_dims``'). NaN inputs (whose payload the steps pass
    on) and empty arrays are refused."""
    from harness.impl.unary import forward

    x = _c32(x)
    red = _norm_dims(x.ndim, dims)
    if x.size == 0:
        raise ParityError("the impl reproduces logsumexp of non-empty tensors only")
    if np.isnan(x).any():
        raise ParityError("the impl reproduces logsumexp of NaN-free tensors only")
    maxes = x.max(axis=red, keepdims=True) if red else x.copy()
    maxes[np.isinf(maxes)] = np.float32(0)
    shifted = forward("exp", np.subtract(x, maxes, dtype=np.float32), profile)
    total = sum_dims(shifted, red, profile)
    return np.add(forward("log", total, profile), maxes.reshape(total.shape), dtype=np.float32)


def mean_dims(x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile) -> np.ndarray:
    """``torch.mean(x, dims)``: ``sum_dims`` then a true division by the reduced count (as torch's CPU mean_out)."""
    return _reduce("mean_forward", x, dims, profile)


def var_dims(
    x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile, correction: float = 1.0
) -> np.ndarray:
    """``torch.var(x, dims, correction=correction)`` (1 unbiased, 0 the population's: the divisor
    n - correction): a single output takes std_var_all_cpu (float mean, then a threaded double sum of
    squared deviations), several take double Welford per output."""
    return _std_var(x, dims, profile, correction, False)


def std_dims(
    x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile, correction: float = 1.0
) -> np.ndarray:
    """``torch.std(x, dims, correction=correction)``: ``var_dims``' kernels with std_var_out's take_sqrt, the
    square root taken of the double variance before it is rounded to float (so not ``sqrt(var)``)."""
    return _std_var(x, dims, profile, correction, True)


def _std_var(
    x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile, correction: float, take_sqrt: bool
) -> np.ndarray:
    x = _c32(x)
    shape, mask, out_shape = _geometry(x.shape, dims)
    out = np.empty(out_shape, np.float32)
    _lib().std_var_forward(profile.as_c(), ptr(x), ptr(out), x.ndim, ptr(shape), ptr(mask), correction, take_sqrt)
    return out


def vector_norm(
    x: np.ndarray, dims: tuple[int, ...] | int | None, profile: KernelProfile, order: int = 2
) -> np.ndarray:
    """``torch.linalg.vector_norm(x, order, dims)``, ``order`` 2 or 1. The 2-norm: the 8-lane last-dim
    kernel when one contiguous dim is reduced (any full reduction), NormTwoOps per output otherwise. The
    1-norm: NormOneOps (``acc + |x|``) per output, one output of at least 32768 elements split over the
    threads. Where every reduced dim has extent 1 (a one-element tensor, a 0-d one) ATen's
    ``linalg_vector_norm_out`` takes ``abs`` of the elements instead (``is_reduce_over_1D_vector``): no
    square, so a tiny element (below about 1e-19, whose square is denormal or 0) and a huge one (whose
    square overflows) keep their magnitude; ``_foreach_norm`` and ``norm`` run through it too."""
    if order not in (1, 2):
        raise ParityError(f"the impl reproduces the 1- and 2-norm only, not ord={order}")
    x = _c32(x)
    if all(x.shape[d] == 1 for d in _norm_dims(x.ndim, dims)):
        return np.abs(x).reshape(_geometry(x.shape, dims)[2])
    return _reduce("vector_norm_forward" if order == 2 else "vector_norm1_forward", x, dims, profile)


# ----------------------------------------------------------------------------- runners

Params = Mapping[str, Any]
Arrays = Mapping[str, np.ndarray]


def _dim(params: Params) -> tuple[int, ...] | None:
    return None if params["dim"] is None else (int(params["dim"]),)


def _expand_grad(
    kernel: str, g: np.ndarray, shape: tuple[int, ...], dims: tuple[int, ...] | None, profile: KernelProfile
) -> np.ndarray:
    """sum_backward / mean_backward: the output gradient broadcast back to x's shape (/ count)."""
    shape_a, mask, _ = _geometry(shape, dims)
    g, grad_x = _c32(g), np.empty(shape, np.float32)
    getattr(_lib(), kernel)(profile.as_c(), ptr(g), ptr(grad_x), len(shape), ptr(shape_a), ptr(mask))
    return grad_x


def _run_sum(params: Params, inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    x, dims = _c32(inputs["x"]), _dim(params)
    return {
        "out": sum_dims(x, dims, profile),
        "grad_x": _expand_grad("sum_backward", inputs["grad_out"], x.shape, dims, profile),
    }


def _run_mean(params: Params, inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    x, dims = _c32(inputs["x"]), _dim(params)
    grad_x = _expand_grad("mean_backward", inputs["grad_out"], x.shape, dims, profile)
    return {"out": mean_dims(x, dims, profile), "grad_x": grad_x}


def _grad_with_stat(
    kernel: str, x: np.ndarray, g: np.ndarray, stat: np.ndarray, dims: tuple[int, ...] | None, profile: KernelProfile
) -> np.ndarray:
    """var_backward / vector_norm_backward: grad_x from x, the output gradient and a forward
    statistic of the output's shape (the mean, the norm)."""
    shape, mask, _ = _geometry(x.shape, dims)
    grad_x = np.empty_like(x)
    extra = (int(dims is None),) if kernel == "var_backward" else ()
    args = (ptr(x), ptr(_c32(g)), ptr(stat), ptr(grad_x), x.ndim, ptr(shape), ptr(mask), *extra)
    getattr(_lib(), kernel)(profile.as_c(), *args)
    return grad_x


def _run_var(params: Params, inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    """var_backward: (2 / (N - 1)) * grad * (x - x.mean(dims, keepdim))."""
    x, dims = _c32(inputs["x"]), _dim(params)
    mean = mean_dims(x, dims, profile)
    grad_x = _grad_with_stat("var_backward", x, inputs["grad_out"], mean, dims, profile)
    return {"out": var_dims(x, dims, profile), "grad_x": grad_x}


def _run_vector_norm(params: Params, inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    """norm_backward (p = 2): grad * (x / norm).masked_fill_(norm == 0, 0)."""
    x, dims = _c32(inputs["x"]), _dim(params)
    out = vector_norm(x, dims, profile)
    return {"out": out, "grad_x": _grad_with_stat("vector_norm_backward", x, inputs["grad_out"], out, dims, profile)}


def clip_grad_norm(
    grads: list[np.ndarray], max_norm: float, profile: KernelProfile
) -> tuple[np.ndarray, list[np.ndarray]]:
    """``torch.nn.utils.clip_grad_norm_`` (norm 2, CPU foreach path): per-tensor norms
    (_foreach_norm = vector_norm of each), the norm of their stack, clip_coef =
    reciprocal(total + 1e-6) * max_norm (Python's float / tensor), clamp(max=1), grads * coef: a NaN
    coef meeting a grad's NaN of another payload is refused (nans.arith: which one ATen's mul keeps is
    not modelled). Returns (total_norm as a 0-d array, clipped grads)."""
    norms = np.array([vector_norm(g, None, profile) for g in grads], np.float32)
    total = vector_norm(norms, None, profile)
    one = np.float32(1.0)
    coef = (one / (total + np.float32(1e-6))) * np.float32(max_norm)
    coef = np.minimum(coef, one)
    return total, [arith("mul", _c32(g), coef, None, "clip_grad_norm's grad * clip_coef") for g in grads]


def _run_clip_grad_norm(params: Params, inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    n = sum(1 for k in inputs if k.startswith("grad_"))
    total, clipped = clip_grad_norm([inputs[f"grad_{i}"] for i in range(n)], float(params["max_norm"]), profile)
    return {"total_norm": total, **{f"clipped_{i}": c for i, c in enumerate(clipped)}}


def _sum_to(grad: np.ndarray, shape: tuple[int, ...], profile: KernelProfile) -> np.ndarray:
    """at::sum_to: the gradient of a broadcast operand, summed over its broadcast dims."""
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1)
    if not dims:
        return grad
    return sum_dims(grad, dims, profile).reshape(shape)


def where(condition: np.ndarray, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
    """``torch.where(condition, x, y)``, broadcast: each element's bits copied from ``x`` or ``y`` (ATen's
    ``where_kernel``: a selection, no arithmetic; NaN payloads kept), both first cast to their common
    dtype (harness.impl.promote: a Python number as torch wraps it; an integer to float32 rounded to
    nearest, as ATen's cast)."""
    from harness.impl.promote import result_type

    dtype = result_type(*(v if isinstance(v, (bool, int, float)) else np.asarray(v) for v in (x, y)))
    _selectable(dtype, "where")
    x, y = (np.asarray(v).astype(dtype) for v in (x, y))
    return np.ascontiguousarray(np.where(np.asarray(condition, np.bool_), x, y))


def _selectable(dtype: np.dtype, op: str) -> None:
    """Refuse a dtype whose values the impl does not hold as torch does (float16, bfloat16, complex)."""
    if dtype.kind not in "biu" and dtype not in (np.float32, np.float64):
        raise ParityError(f"the impl reproduces {op} of bool, integer, float32 and float64 tensors only, not {dtype}")


def masked_fill(x: np.ndarray, mask: np.ndarray, value: float) -> np.ndarray:
    """``x.masked_fill(mask, value)`` (``mask`` broadcast to its shape): ``value`` cast to ``x``'s dtype
    where the mask is set (a float into an integer tensor truncated, as C++'s cast), ``x``'s bits elsewhere."""
    x = np.asarray(x)
    if np.broadcast_shapes(x.shape, np.shape(mask)) != x.shape:
        raise ParityError(f"masked_fill: a mask of shape {np.shape(mask)} does not broadcast to {x.shape}")
    _selectable(x.dtype, "masked_fill")
    fill = np.full(x.shape, np.asarray(value).astype(x.dtype))
    return np.ascontiguousarray(np.where(np.broadcast_to(np.asarray(mask, np.bool_), x.shape), fill, x))


def _binary(op: str) -> Runner:
    """Runner of add/mul/div and their backwards (derivatives.yaml: add grad, mul grad*other,
    div grad/other and -grad*((self/other)/other)), each gradient summed to its operand's shape. Two
    NaNs of other payloads meeting in a step are refused (nans.arith, as harness.impl.nn.binary)."""

    def run(params: Params, inputs: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
        a, b, g = _c32(inputs["a"]), _c32(inputs["b"]), _c32(inputs["grad_out"])

        def step(kind: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return arith(kind, x, y, None, f"{op}'s {kind}")

        out = step(op, a, b)
        if op == "add":
            grad_a, grad_b = g, g
        elif op == "mul":
            grad_a, grad_b = step("mul", g, b), step("mul", g, a)
        else:
            grad_a, grad_b = step("div", g, b), step("mul", -g, step("div", out, b))
        return {"out": out, "grad_a": _sum_to(grad_a, a.shape, profile), "grad_b": _sum_to(grad_b, b.shape, profile)}

    return run


RUNNERS: dict[str, Runner] = {
    "add": _binary("add"),
    "mul": _binary("mul"),
    "div": _binary("div"),
    "sum": _run_sum,
    "mean": _run_mean,
    "var": _run_var,
    "vector_norm": _run_vector_norm,
    "clip_grad_norm": _run_clip_grad_norm,
}
