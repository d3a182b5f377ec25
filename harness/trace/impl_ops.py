"""ATen ops the reference implementation reproduces, called with a captured op's tensors. Torch-free.

Each entry takes the captured inputs (by schema name), the non-tensor arguments and a
``KernelProfile`` (its thread count included) and returns the op's outputs under the names a
trace gives them (``out``, or ``out0``, ``out1``, ... by position). ``KERNEL_OPS`` maps every
ATen op a platform knob can change to the row of the kernel index (harness/impl/kernel_index.py)
that says why, and to the provenance knobs that reach its bits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl import strides
from harness.impl.nans import (
    arith_a64,
    default_nans,
    nan_kinds,
    refuse_mixed_nans,
    refuse_nans_under_qemu_x86,
    x86_nans,
)
from harness.impl.profiles import KernelProfile
from harness.trace import impl_nn, impl_optim
from harness.trace.loops import non_overlapping_and_dense

Arrays = Mapping[str, np.ndarray]
Args = Mapping[str, Any]
Replay = Callable[[Arrays, Args, KernelProfile], dict[str, np.ndarray]]

# ATen op (overload packet) -> (kernel index op, knobs that change its bits)
KERNEL_OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "native_layer_norm": ("layer_norm", ("capability",)),
    "native_layer_norm_backward": ("layer_norm", ("threads", "capability", "torch_version")),
    "_softmax": ("softmax", ("capability", "threads")),  # threads: over a dim that is not the last
    "_softmax_backward_data": ("softmax", ("capability", "threads", "torch_version")),
    "_safe_softmax": ("softmax", ("capability",)),
    "_log_softmax": ("log_softmax", ("capability",)),
    "_log_softmax_backward_data": ("log_softmax", ("capability", "threads")),
    "nll_loss_forward": ("cross_entropy", ()),
    "nll_loss_backward": ("cross_entropy", ()),
    "nll_loss2d_forward": ("cross_entropy", ()),  # serial, outside the per-capability objects
    "nll_loss2d_backward": ("cross_entropy", ()),
    # x.pow(2).sum(-1), mm / bmm, clamp_min_, sqrt_ inside one op: the sum's and the matrix product's knobs
    "_euclidean_dist": ("cdist", ("mkl_code_path", "cpu_model", "threads")),
    "_cdist_forward": ("cdist", ("capability",)),  # p = 2: the AVX2 object contracts the last m % 4 squares
    "mse_loss": ("mse_loss", ("threads",)),  # the elements no knob moves; the mean's (and sum's) cascade does
    "mse_loss_backward": ("mse_loss", ()),  # the same bits everywhere (norm * diff * grad)
    "binary_cross_entropy": ("binary_cross_entropy", ("threads",)),  # the elements no knob moves; the mean does
    "binary_cross_entropy_backward": ("binary_cross_entropy", ()),  # the same bits everywhere
    "smooth_l1_loss": ("smooth_l1_loss", ("threads",)),  # elements alike everywhere; the mean's cascade
    "smooth_l1_loss_backward": ("smooth_l1_loss", ("threads",)),  # vector body or scalar tail: the split
    "huber_loss": ("smooth_l1_loss", ("threads",)),
    "huber_loss_backward": ("smooth_l1_loss", ("threads",)),
    "_ctc_loss": ("ctc_loss", ()),  # scalar, one thread per batch element: the same bits everywhere
    "_ctc_loss_backward": ("ctc_loss", ()),
    "gelu": ("gelu", ("onednn_isa",)),
    "gelu_backward": ("gelu", ("onednn_isa",)),
    "tanh": ("tanh", ("mkl_code_path",)),
    "tanh_": ("tanh", ("mkl_code_path",)),  # nn.GRU's cell, on the rows of its gate matrix
    "tanh_backward": ("tanh", ("capability",)),
    "exp": ("exp", ("mkl_code_path",)),
    "exp_": ("exp", ("mkl_code_path",)),
    "log": ("log", ("mkl_code_path",)),
    "log_": ("log", ("mkl_code_path",)),
    "logit": ("log", ("mkl_code_path", "capability", "threads")),  # contiguous: vsLn; else ATen's vectorized loop
    "sin": ("sin", ("mkl_code_path",)),  # MKL VML on x86 (no level, no threads: measured identical)
    "sin_": ("sin", ("mkl_code_path",)),
    "cos": ("cos", ("mkl_code_path",)),
    "cos_": ("cos", ("mkl_code_path",)),
    "erf": ("erf", ("mkl_code_path",)),  # MKL VML on x86, as sin/cos
    "erf_": ("erf", ("mkl_code_path",)),
    "erfinv": ("erfinv", ("mkl_code_path",)),  # MKL VML on x86, as sin: no level, no threads (measured)
    "erfinv_": ("erfinv", ("mkl_code_path",)),
    "log2": ("log2", ("mkl_code_path",)),  # MKL VML on x86, as sin/cos
    "log2_": ("log2", ("mkl_code_path",)),
    "acos": ("acos", ("mkl_code_path",)),
    "acos_": ("acos", ("mkl_code_path",)),
    "log1p": ("log1p", ("capability",)),
    "log1p_": ("log1p", ("capability",)),
    "lgamma": ("lgamma", ("capability",)),
    "lgamma_": ("lgamma", ("capability",)),
    "digamma": ("digamma", ("capability",)),
    "digamma_": ("digamma", ("capability",)),
    "expm1": ("expm1", ("capability",)),
    "expm1_": ("expm1", ("capability",)),
    "rsqrt": ("rsqrt", ()),
    "mm": ("matmul", ("mkl_code_path", "cpu_model", "threads")),
    "linalg_qr": ("qr", ("mkl_code_path", "threads", "torch_version")),
    "linalg_solve_triangular": ("solve_triangular", ("mkl_code_path", "threads")),  # past 64 rows: k // t columns
    "bmm": ("matmul", ("mkl_code_path", "cpu_model", "threads")),
    "baddbmm": ("matmul", ("mkl_code_path", "cpu_model", "threads")),
    "mv": ("matmul", ("mkl_code_path", "cpu_model", "threads")),
    "addmv": ("linear", ("mkl_code_path", "cpu_model", "threads")),
    "addmm": ("linear", ("mkl_code_path", "cpu_model", "threads")),
    "_grouped_mm": ("matmul", ("mkl_code_path", "cpu_model", "threads")),
    "sum": ("sum", ("threads",)),
    "mean": ("mean", ("threads",)),
    "var": ("var", ("threads",)),
    "std": ("var", ("threads",)),
    "max": ("max", ("capability", "threads")),  # full, with a NaN (refused)
    "min": ("max", ()),
    "amax": ("max", ()),
    "amin": ("max", ()),
    "aminmax": ("max", ()),
    "topk": ("topk", ()),
    "sort": ("topk", ()),
    "histc": ("histc", ()),
    "logsumexp": ("logsumexp", ("mkl_code_path", "threads")),
    "linalg_vector_norm": ("vector_norm", ("capability", "threads")),  # threads: a 1-norm of one large output
    "norm": ("vector_norm", ("capability", "threads")),
    "normal_": ("randn", ("capability",)),
    "randn": ("randn", ("capability",)),
    "normal": ("randn", ("capability",)),
    "randn_like": ("randn", ("capability",)),
    "uniform_": ("uniform", ("capability",)),
    "sinc": ("sinc", ()),  # cpu_kernel with glibc's sinf: the same bits at every level and thread count
    "atanh": ("atanh", ("capability", "threads")),  # SLEEF's vector body, glibc's tail: the chunks place it
    "atanh_": ("atanh", ("capability", "threads")),
    "polar": ("polar", ()),  # cpu_kernel with glibc's sincosf: the same bits at every level and thread count
    "hann_window": ("hann_window", ("mkl_code_path",)),  # arange, products and a sum, MKL VML's cos
    "kaiser_window": ("kaiser_window", ("capability",)),  # the AVX2 object contracts its multiply-adds
    "exponential_": ("exponential", ()),  # serial double draws: the same bits at every level and thread count
    "arange": ("arange", ("threads",)),
    "linspace": ("linspace", ("capability",)),
    "rand": ("uniform", ("capability",)),
    "rand_like": ("uniform", ("capability",)),
    "bernoulli_": ("dropout", ()),
    "bernoulli": ("dropout", ()),
    "embedding": ("embedding", ()),
    "embedding_dense_backward": ("embedding", ()),
    "_scaled_dot_product_flash_attention_for_cpu": ("sdpa", ("capability", "threads")),
    "_scaled_dot_product_flash_attention_for_cpu_backward": ("sdpa", ("capability", "threads")),
    "lerp_": ("adamw_step", ("capability",)),
    "addcmul_": ("adamw_step", ("capability",)),
    "addcdiv_": ("adamw_step", ("capability",)),
    "sqrt": ("adamw_step", ("mkl_code_path", "cpu_model")),
    "convolution": ("conv2d", ("onednn_isa", "threads")),
    "convolution_backward": ("conv2d", ("onednn_isa", "threads")),
    "_weight_norm_interface": ("weight_norm", ("capability", "threads")),
    "_weight_norm_interface_backward": ("weight_norm", ("capability", "threads")),
    "add": ("add", ()),
    "mul": ("mul", ("capability",)),  # of complex tensors: the AVX2 object fuses its tails
    "div": ("div", ()),
    "where": ("where", ()),
    "masked_fill": ("where", ()),
    "masked_fill_": ("where", ()),
    "silu": ("silu", ("capability", "threads")),
    "silu_": ("silu", ("capability", "threads")),
    "silu_backward": ("silu", ("capability", "threads")),
    "softplus": ("softplus", ("capability", "threads")),
    "softplus_backward": ("softplus", ("capability", "threads")),
    "log_sigmoid_forward": ("log_sigmoid", ("capability",)),
    "log_sigmoid_backward": ("log_sigmoid", ("capability", "threads")),
    "binary_cross_entropy_with_logits": ("binary_cross_entropy_with_logits", ("capability", "threads")),
    "leaky_relu": ("leaky_relu", ()),
    "leaky_relu_": ("leaky_relu", ()),
    "leaky_relu_backward": ("leaky_relu", ("threads",)),
    "elu": ("elu", ("capability", "threads")),  # selu and celu too: Vectorized expm1 in the body, glibc's in tails
    "elu_": ("elu", ("capability", "threads")),
    "elu_backward": ("elu", ("capability", "threads")),  # Vectorized exp in the body, glibc's expf in tails
    # SLEEF's exp, log1p and tanh in the vector body, glibc's in tails; backward contracted in the FMA objects
    **{name: ("mish", ("capability", "threads")) for name in ("mish", "mish_", "mish_backward")},
    # NaNs: the AVX2 / AVX-512 objects' vec::maximum and minimum give the all-ones NaN (16 lanes for hardswish)
    **{
        f"{op}{tail}": ("hardswish", ("capability", "threads"))
        for op in ("hardswish", "hardsigmoid")
        for tail in ("", "_", "_backward")
    },
    # NaNs and equal zeros of either sign: vec::maximum / minimum in the vector body, std::max / min in tails
    **{
        f"{op}{tail}": ("minimum", ("capability", "threads"))
        for op in ("maximum", "minimum", "clamp", "clamp_min", "clamp_max")
        for tail in ("", "_")
    },
    # NaNs: SLEEF's fmodf in the vector body, glibc's in the tails (the div row's floor division's fmod)
    # SLEEF's atan2f in the vector body (16 lanes at avx512), glibc's in the tails and the default build
    **{f"atan2{tail}": ("atan2", ("capability", "threads")) for tail in ("", "_")},
    **{f"{op}{tail}": ("remainder", ("capability", "threads")) for op in ("fmod", "remainder") for tail in ("", "_")},
    "_fft_c2c": ("fft", ()),  # no knob measured moves its bits (the kernel index's row)
    "_fft_r2c": ("fft", ("threads",)),
    "_fft_c2r": ("fft", ("threads",)),
}


def packet(op: str) -> str:
    """'aten.native_layer_norm.default' -> 'native_layer_norm'."""
    parts = op.split(".")
    return parts[1] if len(parts) >= 3 else parts[-1]


def kernel_op(op: str, args_text: str = "") -> tuple[str, tuple[str, ...]] | None:
    """The kernel index row and knobs of an ATen op (gelu's tanh form is a row of its own)."""
    found = KERNEL_OPS.get(packet(op))
    if found and found[0] == "gelu" and "approximate='tanh'" in args_text:
        return ("gelu_tanh", ("capability", "threads"))
    if found and packet(op) in ("div", "div_") and "rounding_mode='floor'" in args_text:
        return ("div", ("capability", "threads"))  # NaN lanes: SLEEF's fmodf steps vs glibc's, by lane
    alpha = re.search(r"\balpha=([^,]+)", args_text)
    if found and found[0] == "index_add" and alpha and alpha.group(1).strip() not in ("1", "1.0"):
        return ("index_add", ("capability",))  # a multiply-add, fused at avx2 (harness.impl.scatter.index_add)
    return found


def _last_dim(x: np.ndarray, dim: int) -> None:
    if dim not in (-1, x.ndim - 1):
        raise ParityError(f"the impl reproduces this op over the last dim only, not dim {dim}")


def _layer_norm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import layer_norm

    x = t["input"]
    if len(a["normalized_shape"]) != 1:
        raise ParityError("the impl reproduces layer_norm over the last dim only")
    if not a["normalized_shape"][0]:
        raise ParityError("layer_norm over an empty dim (its mean 0 and rstd NaN) is not modelled")
    y, mean, rstd = layer_norm(x, t.get("weight"), t.get("bias"), a["eps"], p)  # a tensor not passed: None
    if np.isinf(x).any() and np.isnan(y).any():  # measured on a Zen 5: +qNaN in such a row, the impl's -qNaN
        raise ParityError(
            "layer_norm of a row holding an infinity: the NaN its moments pass to the output is not modelled"
        )
    stat_shape = (*x.shape[:-1], 1)
    return {"out0": y, "out1": mean.reshape(stat_shape), "out2": rstd.reshape(stat_shape)}


def _layer_norm_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import layer_norm_backward

    x = t["input"]
    if len(a["normalized_shape"]) != 1:
        raise ParityError("the impl reproduces layer_norm over the last dim only")
    gx, gw, gb = layer_norm_backward(
        t["grad_out"], x, t["mean"].reshape(x.shape[:-1]), t["rstd"].reshape(x.shape[:-1]), t.get("weight"), p
    )  # a weight not passed: None
    mask = a.get("output_mask", [True, True, True])
    return {name: v for name, v, keep in zip(("out0", "out1", "out2"), (gx, gw, gb), mask, strict=True) if keep}


def _log_softmax(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """log_softmax over any dim: the last by ATen's row kernel, another by its column kernel."""
    from harness.impl.rows import log_softmax_dim, log_softmax_nans_a64

    if a.get("half_to_float"):
        raise ParityError("the impl reproduces float32 _log_softmax only (not half_to_float)")
    x, dim = t["self"], int(a["dim"])
    nan = np.isnan(x)
    if not nan.any():
        return {"out": log_softmax_dim(x, dim, p)}
    if not p.aarch64:  # x - max of a NaN max (x86's all-ones vec::maximum)
        raise ParityError("log_softmax of NaN inputs: the NaN its vectorized max passes on is not modelled on x86")
    return {"out": log_softmax_nans_a64(x, dim % max(x.ndim, 1), nan, p)}


def _softmax(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """softmax over any dim: the last by ATen's row kernel, another by its column kernel."""
    from harness.impl.rows import softmax_dim

    if a.get("half_to_float"):
        raise ParityError("the impl reproduces float32 _softmax only (not half_to_float)")
    if np.isnan(t["self"]).any():  # exp(x - max) of a NaN max (x86's all-ones vec::maximum, aarch64's FMAX)
        raise ParityError("softmax of NaN inputs: the NaN its vectorized max passes on is not modelled")
    return {"out": softmax_dim(t["self"], int(a["dim"]), p)}


def _softmax_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import softmax_dim_backward

    return {"out": softmax_dim_backward(t["grad_output"], t["output"], int(a["dim"]), p)}


def _safe_softmax(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import safe_softmax

    _last_dim(t["self"], a["dim"])
    if a.get("dtype") not in (None, "torch.float32"):
        raise ParityError(f"the impl reproduces float32 _safe_softmax only, not {a['dtype']}")
    return {"out": safe_softmax(t["self"], p)}


def _where(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.reduce import where

    def operand(name: str) -> np.ndarray | float:  # a tensor, or the Python number of where.Scalar*
        if name in t:
            return t[name]
        if a.get(name) is None:
            raise ParityError(f"where: its {name} was not captured")
        return a[name]

    return {"out": where(t["condition"], operand("self"), operand("other"))}


def _masked_fill(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.reduce import masked_fill

    value = t["value"] if "value" in t else a.get("value")
    if value is None:
        raise ParityError("masked_fill: its value was not captured")
    return {"out": masked_fill(t["self"], t["mask"], np.asarray(value).item())}


def _log_softmax_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import log_softmax_dim_backward

    return {"out": log_softmax_dim_backward(t["grad_output"], t["output"], int(a["dim"]), p)}


def _gelu_op(a: Args) -> str:
    return "gelu_tanh" if a.get("approximate") == "tanh" else "gelu"


def _gelu_flat(a: Args, names: tuple[str, ...]) -> bool:
    """Whether gelu (tanh)'s operands ``names`` are one flat run (``_flat``); otherwise ATen's
    GeluKernelImpl runs them in TensorIterator's runs (``_gelu_rows``)."""
    try:
        _flat(a, *names)
    except ParityError:
        return False
    return True


def _gelu_onednn(a: Args, x: np.ndarray) -> bool:
    """Whether gelu (erf) and its backward run as harness.impl.unary's gelu: oneDNN's eltwise (element by
    element, whatever grad_output's layout) where Activation.cpp ``use_mkldnn(self)`` holds, a contiguous
    self of more than one element, and ATen's scalar lambda for one element. Otherwise (an expanded self
    too: a (17,) of stride 0 gave 32 and 33 of 33 other bits when taken as oneDNN's), as gelu (tanh)
    always on x86, ATen's GeluKernelImpl (its Vectorized erf or tanh in each run's vector body, the
    scalar lambda in its tail)."""
    stride = a.get("self.stride")
    return x.size <= 1 or stride is None or strides.contiguous(stride, x.shape)


def _gelu_rows(
    a: Args,
    p: KernelProfile,
    names: tuple[str, ...],
    arrays: list[np.ndarray],
    compute: Callable,
    scalar_in: bool = False,
) -> np.ndarray:
    """GeluKernelImpl / GeluBackwardKernelImpl over operands that are not one flat run, in TensorIterator's
    runs (wav2vec2's positional convolution cut by a column: rows of 39; its backward's grad_output
    transposed against self: the basic loop, the scalar lambda throughout); x86 only. ``scalar_in`` as
    ``impl_nn.in_loop_order``'s."""
    if p.aarch64:
        strides = ", ".join(f"{n} {a.get(f'{n}.stride')}" for n in names)
        raise ParityError(f"{_gelu_op(a)} over a non-contiguous operand ({strides}) is modelled on x86 only")
    return impl_nn.in_loop_order(a, names, arrays, compute, scalar_in=scalar_in)


def _gelu(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import forward

    op = _gelu_op(a)
    if _gelu_onednn(a, t["self"]) if op == "gelu" else _gelu_flat(a, ("self",)):
        out = forward(op, t["self"], p)
        # gelu(-inf) is -inf * 0: the CPU's default NaN (aarch64's +qNaN; the C here gives x86's)
        return {"out": default_nans(out, ~np.isnan(t["self"]), p.aarch64) if p.aarch64 else out}
    kernel = "gelu_aten" if op == "gelu" else op
    return {"out": _gelu_rows(a, p, ("self",), [t["self"]], lambda xs, run: forward(kernel, xs[0], p, run))}


def _gelu_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import backward

    op, names = _gelu_op(a), ("grad_output", "self")
    if _gelu_onednn(a, t["self"]) if op == "gelu" else _gelu_flat(a, names):
        return {"out": backward(op, t["grad_output"], t["self"], t["self"], p)}
    kernel = "gelu_aten" if op == "gelu" else op
    arrays = [t["grad_output"], t["self"]]
    if kernel == "gelu_tanh":  # its NaN bits where an input is read as a scalar (gelu (erf)'s are its body's)
        compute = lambda xs, run, scalar: backward(kernel, xs[0], xs[1], xs[1], p, run, scalar)
        return {"out": _gelu_rows(a, p, names, arrays, compute, scalar_in=True)}
    return {"out": _gelu_rows(a, p, names, arrays, lambda xs, run: backward(kernel, xs[0], xs[1], xs[1], p, run))}


def _as_float(x: np.ndarray, op: str) -> np.ndarray:
    """A captured input as the float32 operand ATen's floating unary kernels take: float32 as it is; an
    integer or bool tensor cast to float32 first (TensorIterator promotes it to the result's float32;
    measured: log, exp, tanh, sqrt, rsqrt and sigmoid of int64 ramps up to 70,000 elements give the
    float32 ramp's bits). Other floating types are refused."""
    if x.dtype == np.float32:
        return x
    if x.dtype.kind in "biu":
        return x.astype(np.float32)
    raise ParityError(f"the impl reproduces {op} of float32 (or integer) tensors only, not {x.dtype}")


def _unary(op: str) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.unary import forward

        return {"out": forward(op, _as_float(t["self"], op), p)}

    return run


def _vec_mapped(op: str) -> Replay:
    """sin, cos, erf: MKL VML on x86 (element-wise); on aarch64 vml.h's vec::map over each run of ATen's loop,
    whose vectors take one branch together (csrc/unary.c: sin/cos SLEEF's Cody-Waite or Payne-Hanek branch per
    vector, erf's 4-lane NEON vectors (N1, V2) SLEEF's exp), so the operand goes in TensorIterator's order and
    inner dim there (a strided run copied into a buffer: ``buffered``). sin, cos of float64: MKL VML's
    vmdSin/vmdCos on x86 (elementwise), SLEEF's double sin/cos over vec::map's vectors on aarch64
    (unary.sincos_f64_forward)."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.unary import forward, sincos_f64_forward

        if op in ("sin", "cos") and t["self"].dtype == np.float64:
            if not p.aarch64:
                return {"out": sincos_f64_forward(op, t["self"], p)}
            compute64 = lambda xs, run: sincos_f64_forward(op, xs[0], p, run)
            return {"out": impl_nn.in_loop_order(a, ("self",), [t["self"]], compute64, buffered=True)}
        x = _as_float(t["self"], op)
        if not p.aarch64:
            return {"out": forward(op, x, p)}
        compute = lambda xs, run: forward(op, xs[0], p, run)
        return {"out": impl_nn.in_loop_order(a, ("self",), [x], compute, buffered=True)}

    return run


def _logit(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """aten.logit (torch.special.logit). x86, a TensorIterator that coalesces to one contiguous dim (a
    contiguous or non-overlapping and dense input): ATen's MKL path (LogitMKLKernel, at every level), per
    element ``x`` clamped to [eps, 1 - eps] in float where eps >= 0 is given (``x < lo ? lo : (x > hi ? hi :
    x)``: a NaN kept), ``x == 1 ? inf : x / (1 - x)``, then MKL VML's ``vsLn`` over the ratios (torch.log's
    kernel, element by element). Any other layout on x86, and every layout on aarch64 (no MKL): ATen's
    vectorized loop in TensorIterator's order (csrc/unary.c logit_forward: SLEEF's log in the vector body,
    glibc's in the scalar tail and the basic loop). An integer input whose layout TensorIterator's cast copy
    would change refused."""
    from harness.impl.unary import forward, logit

    x = _as_float(t["self"], "logit")
    eps = a.get("eps")
    stride = a.get("self.stride")
    loop = impl_nn.tensor_loop(a, ("self",), x.shape)
    if not p.aarch64 and (x.size <= 1 or (loop.vector and not loop.scalar and loop.run == x.size)):
        if eps is not None and np.float32(eps) >= 0:
            lo = np.float32(eps)
            hi = np.float32(1) - lo
            x = np.where(x < lo, lo, np.where(x > hi, hi, x)).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.where(x == 1, np.float32(np.inf), x / (np.float32(1) - x)).astype(np.float32)
        return {"out": forward("log", ratio, p)}
    if t["self"].dtype != np.float32 and stride is not None and not non_overlapping_and_dense(stride, x.shape):
        raise ParityError(f"logit of a {t['self'].dtype} input of strides {stride} (TensorIterator's cast copy)")
    return {"out": impl_nn.in_loop_order(a, ("self",), [x], lambda xs, run: logit(xs[0], eps, p, run))}


def _flat(a: Args, *names: str) -> None:
    """Refuse a captured operand that ATen's element-wise loop would not see as one flat run: only a
    C-contiguous tensor, or one broadcast along every dim (all strides 0), gives the impl's order of
    vector body and scalar tail (other layouts split into rows, or follow memory order)."""
    for name in names:
        stride, shape = a.get(f"{name}.stride"), a.get(f"{name}.shape")
        if stride is None or shape is None or all(s == 0 for s in stride):
            continue
        expected, step = [], 1
        for size in reversed(shape):
            expected.append(step)
            step *= size
        if any(size > 1 and s != e for s, e, size in zip(stride, reversed(expected), shape, strict=True)):
            raise ParityError(f"the impl reproduces this op on contiguous tensors only, not {name} of strides {stride}")


def _silu(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import forward

    return {"out": impl_nn.in_loop_order(a, ("self",), [t["self"]], lambda xs, run: forward("silu", xs[0], p, run))}


def _silu_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import backward

    names = ("grad_output", "self")
    arrays = [t[n] for n in names]
    out = impl_nn.in_loop_order(
        a, names, arrays, lambda xs, run, scalar: backward("silu", *xs, xs[1], p, run, scalar), scalar_in=True
    )
    return {"out": out}


def _float32_operands(t: Arrays, op: str, names: tuple[str, ...]) -> list[np.ndarray]:
    """The operands ``names`` of an op: float32 tensors of one shape, or refused."""
    xs = [t[n] for n in names]
    dtypes = ", ".join(str(x.dtype) for x in xs)
    if any(x.dtype != np.float32 for x in xs):
        raise ParityError(f"the impl reproduces {op} of float32 tensors only, not {dtypes}")
    if len({x.shape for x in xs}) > 1:
        raise ParityError(f"the impl reproduces {op} of operands of one shape only")
    return xs


def _grad_and_input(t: Arrays, op: str) -> tuple[np.ndarray, np.ndarray]:
    """grad_output and self of an element-wise backward: float32 tensors of one shape, or refused."""
    g, x = _float32_operands(t, op, ("grad_output", "self"))
    return g, x


def _softplus_args(a: Args) -> tuple[float, float]:
    """beta and threshold (the schema's defaults 1 and 20 where a trace leaves them out)."""
    beta, threshold = a.get("beta", 1), a.get("threshold", 20)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (beta, threshold)):
        raise ParityError("the impl reproduces softplus with number beta and threshold only")
    return float(beta), float(threshold)


def _softplus(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import softplus_forward

    (x,) = _float32_operands(t, "softplus", ("self",))
    beta, threshold = _softplus_args(a)
    out = impl_nn.in_loop_order(a, ("self",), [x], lambda xs, run: softplus_forward(xs[0], beta, threshold, p, run))
    return {"out": out}


def _softplus_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import softplus_backward

    g, x = _grad_and_input(t, "softplus_backward")
    beta, threshold = _softplus_args(a)
    names = ("grad_output", "self")
    compute = lambda xs, run, scalar: softplus_backward(*xs, beta, threshold, p, run, scalar)
    out = impl_nn.in_loop_order(a, names, [g, x], compute, scalar_in=True)
    return {"out": out}


def _leaky_relu_slope(a: Args) -> float:
    """negative_slope (the schema's default 0.01 where a trace leaves it out)."""
    slope = a.get("negative_slope", 0.01)
    if not isinstance(slope, (int, float)) or isinstance(slope, bool):
        raise ParityError("the impl reproduces leaky_relu with a number negative_slope only")
    return float(slope)


def _leaky_relu(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import leaky_relu_forward

    (x,) = _float32_operands(t, "leaky_relu", ("self",))
    slope = _leaky_relu_slope(a)
    out = impl_nn.in_loop_order(a, ("self",), [x], lambda xs, run: leaky_relu_forward(xs[0], slope, p, run))
    return {"out": out}


def _leaky_relu_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import leaky_relu_backward

    g, x = _grad_and_input(t, "leaky_relu_backward")
    slope = _leaky_relu_slope(a)
    # self_is_result (an in-place leaky_relu_'s backward): the same kernel on the result, whose sign is the
    # input's for a slope ATen lets through (its meta function raises for a negative one)
    if a.get("self_is_result", False) and slope < 0:
        raise ParityError(f"leaky_relu_backward of the result with negative_slope {slope} (ATen raises)")
    names = ("grad_output", "self")
    out = impl_nn.in_loop_order(  # its TensorIterator takes self before grad_output
        a, names, [g, x], lambda xs, run: leaky_relu_backward(*xs, slope, p, run), operands=("self", "grad_output")
    )
    return {"out": out}


def _elu_params(a: Args) -> tuple[float, float, float]:
    """(alpha, scale, input_scale), the schema's defaults 1 where a trace leaves them out; each rounded to
    float as ATen's ``Scalar::to<float>``."""
    params = tuple(a.get(name, 1) for name in ("alpha", "scale", "input_scale"))
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in params):
        raise ParityError("the impl reproduces elu with number alpha, scale and input_scale only")
    return tuple(float(np.float32(v)) for v in params)  # type: ignore[return-value]


def _elu(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``elu`` / ``elu_`` (selu and celu reach it): harness.impl.unary's elu_forward in TensorIterator's runs."""
    from harness.impl.unary import elu_forward

    (x,) = _float32_operands(t, "elu", ("self",))
    params = _elu_params(a)
    return {"out": impl_nn.in_loop_order(a, ("self",), [x], lambda xs, run: elu_forward(xs[0], params, p, run))}


def _elu_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``elu_backward(grad_output, ..., is_result, self_or_result)``: its TensorIterator takes grad_output
    first (``at::elu_backward_out``'s binary op)."""
    from harness.impl.unary import elu_backward

    g, b = _float32_operands(t, "elu_backward", ("grad_output", "self_or_result"))
    params, is_result = _elu_params(a), bool(a.get("is_result", False))
    names = ("grad_output", "self_or_result")
    out = impl_nn.in_loop_order(a, names, [g, b], lambda xs, run: elu_backward(*xs, params, is_result, p, run))
    return {"out": out}


def _mish(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``mish`` / ``mish_`` and ``mish_backward(grad_output, self)``: harness.impl.unary's mish in
    TensorIterator's runs."""
    from harness.impl.unary import mish

    if "grad_output" not in t:
        xs = _float32_operands(t, "mish", ("self",))
        return {"out": impl_nn.in_loop_order(a, ("self",), xs, lambda ys, r: mish(ys[0], None, p, r))}
    names = ("grad_output", "self")
    xs = _float32_operands(t, "mish_backward", names)
    out = impl_nn.in_loop_order(a, names, xs, lambda ys, r, scalar: mish(ys[1], ys[0], p, r, scalar), scalar_in=True)
    return {"out": out}


def _pointwise(name: str) -> Replay:
    """``lerp`` (``.Scalar`` and ``.Tensor`` weight), ``addcmul`` and ``addcdiv`` (and in place) of float32
    operands of any layout: harness.impl.optim's pointwise in TensorIterator's runs, the inputs in the order
    the kernels add them (self, end, weight; self, tensor1, tensor2), an in-place op's output self itself
    (refused where self is not dense: its own strides, not modelled). aarch64: the optimizers' replay of
    the in-place ops over one contiguous run."""
    op = name.rstrip("_")
    in_place = name.endswith("_")
    number = "weight" if op == "lerp" else "value"
    names = ("self", "end", "weight") if op == "lerp" else ("self", "tensor1", "tensor2")

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.optim import pointwise

        if p.aarch64 and in_place:
            return impl_optim.REPLAYS[name](t, a, p)
        given = tuple(n for n in names if n in t)
        if given not in (names, names[:2]) or (op != "lerp" and given != names):
            raise ParityError(f"{name}: its operands were not captured as tensors")
        xs = [np.asarray(t[n]) for n in given]
        if any(x.dtype != np.float32 for x in xs):
            raise ParityError(
                f"the impl reproduces {name} of float32 tensors only, not {', '.join(str(x.dtype) for x in xs)}"
            )
        w = 0.0
        if len(given) == 2 or op != "lerp":
            value = a.get(number, 1)  # addcmul / addcdiv's value defaults to 1
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ParityError(f"{name}: the impl reproduces it with a number {number} only, not {value!r}")
            w = float(value)
        shape = tuple(np.broadcast_shapes(*(x.shape for x in xs)))
        like = None
        if in_place:
            if xs[0].shape != shape or not non_overlapping_and_dense(
                a.get("self.stride") or strides.c_strides(shape), shape
            ):
                raise ParityError(f"{name}: the impl reproduces it in place on a dense self of the result's shape only")
            like = "self"

        def compute(ys: list[np.ndarray], r: int) -> np.ndarray:
            return pointwise(op, ys[0], ys[1], ys[2] if len(ys) > 2 else None, w, p, r)

        return {"out": impl_nn.in_loop_order(a, given, xs, compute, like=like)}

    return run


def _hard(name: str) -> Replay:
    """``hardswish``, ``hardsigmoid`` (and in place) and their backwards (grad_output, self):
    harness.impl.unary's hard_activation in TensorIterator's runs."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.unary import hard_activation

        names = ("grad_output", "self") if name.endswith("_backward") else ("self",)
        xs = _float32_operands(t, name, names)
        return {"out": impl_nn.in_loop_order(a, names, xs, lambda ys, r: hard_activation(name, tuple(ys), p, r))}

    return run


def _min_max(op: str) -> Replay:
    """``maximum``, ``minimum``, ``clamp`` / ``clamp_min`` / ``clamp_max`` by tensors, ``fmod`` and
    ``remainder`` (by a tensor or a number), ``atan2`` (all in place too) into float32: harness.impl.unary's
    binary_kernel in TensorIterator's runs. clamp with one bound is ATen's maximum (min) or minimum (max)
    kernel (``clamp_Tensor_out``), as clamp_min and clamp_max are; an integer or bool operand is cast to
    float32 first (the common dtype), a number other rounded to float32; maximum and minimum of integer
    tensors of one dtype in that dtype (exact); clamp's bounds given as numbers (whose bits no knob moves:
    ``knob_free``) by ``_clamp_by_numbers``."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.unary import binary_kernel

        if op in ("maximum", "minimum", "fmod", "remainder", "atan2"):
            kernel, names = op, ("self", "other")
            number = a.get("other")
            if op in ("fmod", "remainder") and "other" not in t and isinstance(number, (int, float)):
                # an int by a Python int stays in the tensor's integer dtype (the LSTM zoo's token ids % 12,
                # TAPAS's cell indices fmod 32)
                dtype = np.asarray(t["self"]).dtype
                whole = isinstance(number, int) and dtype.kind in "iu"
                if whole and not np.iinfo(dtype).min <= number <= np.iinfo(dtype).max:
                    raise ParityError(
                        f"{op} of a {dtype} tensor by {number}: the impl reproduces ints within the dtype only"
                    )
                t = {**t, "other": np.asarray(number, dtype if whole else np.float32)}
        elif op == "clamp_min":
            kernel, names = "maximum", ("self", "min")
        elif op == "clamp_max":
            kernel, names = "minimum", ("self", "max")
        else:
            given = tuple(n for n in ("min", "max") if n in t)
            kernel = {("min", "max"): "clamp", ("min",): "maximum", ("max",): "minimum"}.get(given, "")
            names = ("self", *given)
        if not kernel or any(n not in t for n in names):
            return {"out": _clamp_by_numbers(op, t, a)}
        xs = [np.asarray(t[n]) for n in names]
        if op in ("fmod", "remainder") and all(x.dtype.kind in "iu" for x in xs):  # NeuCodec's frame positions
            from harness.impl.promote import integer_mod

            return {"out": integer_mod(op, xs[0], xs[1])}
        if (
            kernel in ("maximum", "minimum")
            and all(x.dtype.kind in "iu" for x in xs)
            and len({x.dtype for x in xs}) == 1
        ):
            # T5's relative position buckets (int64): integers of one dtype, exact in any order or layout
            return {"out": (np.maximum if kernel == "maximum" else np.minimum)(*xs)}
        if any(x.dtype.kind == "f" and x.dtype != np.float32 for x in xs) or all(x.dtype.kind != "f" for x in xs):
            raise ParityError(f"the impl reproduces {op} into float32 only, not {', '.join(str(x.dtype) for x in xs)}")
        xs = [x.astype(np.float32) if x.dtype != np.float32 else x for x in xs]
        return {"out": impl_nn.in_loop_order(a, names, xs, lambda ys, r: binary_kernel(kernel, tuple(ys), p, r))}

    return run


def _clamp_integers(op: str, x: np.ndarray, lo: object, hi: object) -> np.ndarray:
    """``clamp`` of an integer tensor by Python ints (Wav2Vec2-BERT's relative distances clipped to the
    window): ``std::min(std::max(x, lo), hi)`` in x's dtype, exact (the upper bound where they cross).
    Float bounds (a float result) and bounds outside the dtype are refused."""
    bounds = [v for v in (lo, hi) if v is not None]
    info = np.iinfo(x.dtype)
    if any(not isinstance(v, int) or isinstance(v, bool) or not info.min <= v <= info.max for v in bounds):
        raise ParityError(
            f"{op} of a {x.dtype} tensor by {lo!r}, {hi!r}: the impl reproduces ints within the dtype only"
        )
    out = np.maximum(x, x.dtype.type(lo)) if lo is not None else x
    return np.minimum(out, x.dtype.type(hi)).astype(x.dtype) if hi is not None else np.array(out, x.dtype)


def _clamp_by_numbers(op: str, t: Arrays, a: Args) -> np.ndarray:
    """``clamp`` / ``clamp_min`` / ``clamp_max`` of float32 by numbers (clip_grad_norm_'s ``clamp(coef,
    max=1.0)``): ``std::min(std::max(x, lo), hi)`` and ``vec::clamp``'s min_ps(hi, max_ps(lo, x)) give the
    same bits, x's own where it is NaN or equal to a bound (a -0 against a +0 bound kept), the bound
    rounded to float32 past it, the upper bound where the bounds cross; no knob moves them (measured at
    default, avx2 and avx512 on 1 and 4 threads with NaN payloads, infinities, signed zeros and
    subnormals)."""
    x = t.get("self")
    lo = a.get("min") if op != "clamp_max" else None
    hi = a.get("max") if op != "clamp_min" else None
    if x is None:  # a trace recorded before unfingerprinted inputs were captured (ctc_loss's mean)
        raise ParityError(f"{op}: its self tensor is missing from the capture")
    if np.asarray(x).dtype.kind in "iu":
        return _clamp_integers(op, np.asarray(x), lo, hi)
    if np.asarray(x).dtype != np.float32:
        raise ParityError(f"the impl reproduces {op} by numbers of float32 tensors only")
    bounds = [v for v in (lo, hi) if v is not None]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) or v != v for v in bounds):
        raise ParityError(f"{op}: bounds {lo!r}, {hi!r} are not the numbers the impl reproduces")
    out = np.array(x, np.float32, copy=True)
    if lo is not None:
        out = np.where(out < np.float32(lo), np.float32(lo), out).astype(np.float32)
    if hi is not None:
        out = np.where(out > np.float32(hi), np.float32(hi), out).astype(np.float32)
    return out


def _log_sigmoid_forward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """Every element is a vector lane (no scalar tail): the layout and the thread split change no bit."""
    from harness.impl.unary import log_sigmoid_forward

    (x,) = _float32_operands(t, "log_sigmoid", ("self",))
    out, buffer = log_sigmoid_forward(x, p)
    return {"out0": out, "out1": buffer}


def _log_sigmoid_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import log_sigmoid_backward

    names = ("grad_output", "self", "buffer")
    g, x, buffer = _float32_operands(t, "log_sigmoid_backward", names)
    order = ("self", "buffer", "grad_output")  # log_sigmoid_backward_cpu's inputs, into empty_like(grad_output)
    compute = lambda xs, run, scalar: log_sigmoid_backward(*xs, p, run, scalar)
    out = impl_nn.in_loop_order(a, names, [g, x, buffer], compute, order, "grad_output", scalar_in=True)
    return {"out": out}


def _binary_cross_entropy_with_logits(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``binary_cross_entropy_with_logits`` (Loss.cpp), ATen's own ops in turn: ``ls = log_sigmoid(x)``
    (its forward kernel), ``ls *= (pos_weight - 1) * target + 1`` where pos_weight is given, ``loss =
    (1 - target) * x - ls``, ``loss *= weight`` where given, then ``mean()`` or ``sum()`` of the whole
    (reduction 1, 2) or none (0). Each step one IEEE rounding per element, broadcast as ATen's; where x
    is NaN both operands of the subtraction are, and ATen's ``sub_`` (``a + -1*b``, a fused multiply-add
    on AVX2) gives log_sigmoid's NaN (measured at default and avx2). Targets and weights not finite are
    refused (not measured), and a mean or sum over a NaN loss (which NaN it keeps is not modelled)."""
    from harness.impl.nn import binary
    from harness.impl.reduce import mean_dims, sum_dims
    from harness.impl.unary import log_sigmoid_forward

    x, target = _float32_operands(t, "binary_cross_entropy_with_logits", ("self", "target"))
    reduction = a.get("reduction", 1)  # the schema's default, Mean
    if reduction not in (0, 1, 2):
        raise ParityError(f"binary_cross_entropy_with_logits: reduction {reduction!r} is none of 0, 1, 2")
    extra = [t[name] for name in ("weight", "pos_weight") if name in t]
    if any(w.dtype != np.float32 for w in extra):
        raise ParityError("the impl reproduces binary_cross_entropy_with_logits of float32 weights only")
    if not all(np.isfinite(v).all() for v in (target, *extra)):
        raise ParityError("binary_cross_entropy_with_logits with a target or weight not finite is not measured")
    if p.aarch64:  # the same ATen ops there, but never measured
        raise ParityError("binary_cross_entropy_with_logits is not measured on aarch64: refused")
    one = np.float32(1)
    log_sig, _ = log_sigmoid_forward(x, p)
    if "pos_weight" in t:
        log_weight = binary("add", binary("mul", binary("sub", t["pos_weight"], one), target), one)
        log_sig = binary("mul", log_sig, log_weight)
    kept = binary("mul", binary("sub", np.ones_like(target), target), x)
    both = np.isnan(kept) & np.isnan(log_sig)
    zero = np.float32(0)
    loss = np.where(both, log_sig, binary("sub", np.where(both, zero, kept), np.where(both, zero, log_sig)))
    if "weight" in t:
        loss = binary("mul", loss, t["weight"])
    if reduction == 0:
        return {"out": loss}
    if np.isnan(loss).any():
        raise ParityError(
            "binary_cross_entropy_with_logits: which NaN the mean or sum of its loss keeps is not modelled"
        )
    total = (mean_dims if reduction == 1 else sum_dims)(np.ascontiguousarray(loss), (), p)
    return {"out": np.asarray(total, np.float32)}


def _tanh_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """tanh_backward_kernel: on aarch64 the same bits in the vector body and the scalar tail, so the
    captured operands in C order, one run. On x86 in TensorIterator's loop (harness.impl.unary.tanh_backward_rows):
    where ATen's vectorized loop reads the output as a scalar (broadcast along the inner dim) the vector
    body is unfused (measured on an AMD EPYC Zen 5: of 39 and 29 random such draws at avx2 and avx512, 17
    and 10 gave other bits with contracted lanes; 0 now), and where grad and 1 - out*out are both NaN the
    element's place in the loop picks the NaN."""
    from harness.impl.unary import backward, tanh_backward_rows

    g, y = t["grad_output"], t["output"]
    names = ("grad_output", "output")
    if p.aarch64:
        if impl_nn.tensor_loop(a, names, np.broadcast_shapes(g.shape, y.shape)).scalar != 2:
            return {"out": backward("tanh", g, y, y, p)}
        raise ParityError("tanh_backward of an output broadcast along the inner dim is modelled on x86 only")
    compute = lambda xs, run, scalar: tanh_backward_rows(*xs, p, run, scalar)
    return {"out": impl_nn.in_loop_order(a, names, [g, y], compute, scalar_in=True)}


def _reduced_dims(a: Args, ndim: int) -> tuple[int, ...]:
    """A reduction's ``dim`` argument as dims in [0, ndim): every dim where it is left out or empty."""
    dims = a.get("dim")
    return tuple(range(ndim)) if dims in (None, []) else tuple(d % ndim for d in dims)


def _kept_dims(out: np.ndarray, a: Args, shape: tuple[int, ...], dims: tuple[int, ...]) -> np.ndarray:
    """A reduction's result with its reduced dims kept as size 1 where ``keepdim`` says so."""
    return out.reshape([1 if i in dims else s for i, s in enumerate(shape)]) if a.get("keepdim") else out


def _reduction(kind: str) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl import reduce

        x = t["self"]
        if a.get("dtype") not in (None, "torch.float32"):
            raise ParityError("the impl reproduces float32 reductions only")
        # var/std's correction (the divisor n - correction; ``unbiased=False``: 0, Gemma 3n's activation sparsity)
        correction = a.get("correction", 0 if a.get("unbiased") is False else 1)
        correction = 1 if correction is None else correction
        if kind in ("var", "std") and (isinstance(correction, bool) or not isinstance(correction, (int, float))):
            raise ParityError(f"the impl reproduces {kind} with a number correction only, not {correction!r}")
        if kind in ("var", "std") and x.dtype == np.float32 and np.isnan(x).any():
            nans = np.unique(x[np.isnan(x)].view(np.uint32))
            if nans.size > 1 or np.isinf(x).any():  # measured on a Zen 5: 9 of 60 such draws other bits
                raise ParityError(f"{kind} of NaNs of several patterns or a NaN beside an infinity, not modelled")
        dims = _reduced_dims(a, x.ndim)
        stride = a.get("self.stride")
        if kind in ("sum", "mean") and stride is not None and not strides.contiguous(stride, x.shape):
            # torch's iterator over the view it read: the output's (contiguous) order for the kept dims
            out = getattr(reduce, f"{kind}_view")(impl_nn.laid_out(x, stride), dims, p)
        else:
            extra = {"correction": float(correction)} if kind in ("var", "std") else {}
            compute = lambda y, d: getattr(reduce, f"{kind}_dims")(y, d, p, **extra)
            out = impl_nn.in_memory_order(x, dims, stride, compute)
        if kind in ("sum", "mean") and x.dtype == np.float32 and not p.aarch64:
            # which NaN cascade_sum's adds keep on x86: not modelled (aarch64's FADDs: reduce.c add_nans)
            refuse_mixed_nans(kind, out, p, set(), x)
        return {"out": _kept_dims(out, a, x.shape, dims)}

    return run


def _extreme(kind: str) -> Replay:
    """``max``/``min`` (``kind``): full (``.default``: one value) or over a dim (``.dim``: values and int64
    indices, compare_base_kernel's scan), harness.impl.select; ``max.other`` is ``maximum``'s."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl import select

        if "other" in t:  # max.other / min.other: maximum's / minimum's replay
            return REPLAYS["maximum" if kind == "max" else "minimum"](t, a, p)
        x = np.asarray(t["self"])
        if a.get("dim") is None:
            return {"out": np.asarray(select.full_extreme(x, kind == "max", kind, p), x.dtype)}
        dim = int(a["dim"]) % max(x.ndim, 1)
        if x.ndim == 0:
            return {"out0": x.copy(), "out1": np.zeros((), np.int64)}
        values, index = select.extreme_dim(x, dim, kind == "max")
        if a.get("keepdim"):
            values, index = np.expand_dims(values, dim), np.expand_dims(index, dim)
        return {"out0": values, "out1": index}

    return run


def _extreme_values(kind: str) -> Replay:
    """``amax``/``amin`` (``kind``) over ``dim`` (all where empty), harness.impl.select."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl import select

        x = np.asarray(t["self"])
        if x.ndim == 0:
            return {"out": x.copy()}
        dims = tuple(sorted(set(_reduced_dims(a, x.ndim))))
        stride = a.get("self.stride")
        contiguous = stride is None or strides.contiguous(stride, x.shape)
        inner = contiguous and dims == tuple(range(x.ndim - len(dims), x.ndim))
        out = np.asarray(select.extreme_values(x, dims, kind == "amax", kind, inner), x.dtype)
        return {"out": _kept_dims(out, a, x.shape, dims)}

    return run


def _aminmax(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``aminmax``: over ``dim`` one scan for both (select.aminmax_dim), else the full extremes."""
    from harness.impl import select

    x = np.asarray(t["self"])
    if a.get("dim") is None or x.ndim == 0:
        flat = x.reshape(-1)
        lo, hi = (np.asarray(select.full_extreme(flat, big, "aminmax", p), x.dtype) for big in (False, True))
        if a.get("keepdim") and x.ndim:
            lo, hi = lo.reshape([1] * x.ndim), hi.reshape([1] * x.ndim)
        return {"out0": lo, "out1": hi}
    dim = int(a["dim"]) % x.ndim
    lo, hi = select.aminmax_dim(x, dim)
    if a.get("keepdim"):
        lo, hi = np.expand_dims(lo, dim), np.expand_dims(hi, dim)
    return {"out0": lo, "out1": hi}


def _topk(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``topk`` (TopKImpl.h), harness.impl.select.topk."""
    from harness.impl import select

    x = np.asarray(t["self"])
    dim = int(a.get("dim", -1)) % max(x.ndim, 1)
    largest, sorted_ = a.get("largest", True), a.get("sorted", True)
    values, index = select.topk(x, int(a["k"]), dim, bool(largest), bool(sorted_))
    if x.ndim == 0:  # a 0-d tensor's top element is 0-d
        values, index = values.reshape(()), index.reshape(())
    return {"out0": values, "out1": index}


def _sort(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``sort`` and ``sort.stable`` (SortingKernel.cpp), harness.impl.select.sort."""
    from harness.impl import select

    x = np.asarray(t["self"])
    dim = int(a.get("dim", -1)) % max(x.ndim, 1)
    values, index = select.sort(x, dim, bool(a.get("descending", False)), bool(a.get("stable") or False))
    return {"out0": values, "out1": index}


def _histc(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``histc`` (HistogramKernel.cpp), harness.impl.select.histc."""
    from harness.impl import select

    low, high = a.get("min", 0), a.get("max", 0)
    return {"out": select.histc(t["self"], int(a.get("bins", 100)), float(low), float(high), p)}


def _logsumexp(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``aten.logsumexp`` of a C-contiguous float32 tensor (``x - amax`` is then a contiguous temporary,
    summed in ``sum_dims``' order); another layout is refused."""
    from harness.impl.reduce import logsumexp

    (x,) = _float32_operands(t, "logsumexp", ("self",))
    stride = a.get("self.stride")
    if stride is not None and not strides.contiguous(stride, x.shape):
        raise ParityError(f"the impl reproduces logsumexp of C-contiguous tensors only, not strides {stride}")
    dims = _reduced_dims(a, x.ndim)
    return {"out": _kept_dims(logsumexp(x, dims, p), a, x.shape, dims)}


def _norm(order: str) -> Replay:
    """``aten.norm`` (p) and ``aten.linalg_vector_norm`` (ord) of 2 or 1, float32: the vector_norm kernel
    (``norm`` calls ``linalg_vector_norm``; ATen's composite weight_norm over a middle dim or the whole
    tensor reaches it so; DBRX's router normalises its top-k weights by their 1-norm)."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.reduce import vector_norm

        x = t["self"]
        value = float(a.get(order) if a.get(order) is not None else 2)
        if value not in (1.0, 2.0):
            raise ParityError(f"the impl reproduces the 1- and 2-norm only, not {order}={a[order]}")
        if a.get("dtype") not in (None, "torch.float32"):
            raise ParityError("the impl reproduces float32 norms only")
        dims = tuple(sorted(set(_reduced_dims(a, x.ndim))))
        out = impl_nn.in_memory_order(x, dims, a.get("self.stride"), lambda y, d: vector_norm(y, d, p, int(value)))
        # which NaN its sums keep on x86: not modelled (aarch64's FADDs and FMADDs: reduce.c add_nans, nan3; the
        # 1-norm's std::abs clears the NaNs' signs first, and its sums of non-negative terms make no NaN of
        # infinities)
        if not p.aarch64:
            refuse_mixed_nans("vector_norm", out, p, *((nan_kinds(np.abs(x)),) if value == 1.0 else (set(), x)))
        return {"out": np.asarray(_kept_dims(out, a, x.shape, dims), np.float32)}

    return run


def _matrix(t: Arrays, name: str, a: Args) -> np.ndarray:
    """A captured 2-D operand with the layout it had (row- or column-major, its leading dimension, its
    address past 64 bytes): MKL's kernel depends on all three (linalg._operand keeps it as ATen's addmm
    does, or copies it)."""
    return impl_nn.as_traced(t, a, name)


def _linalg_qr(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.qr import qr

    if a.get("mode", "reduced") != "reduced":
        raise ParityError(f"the impl reproduces torch.linalg.qr's mode 'reduced' only, not {a['mode']!r}")
    q, r = qr(t["A"], p)
    return {"out0": q, "out1": r}


def _linalg_solve_triangular(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``linalg_solve_triangular`` (linalg.solve_triangular: MKL strsm's order for the calls it measured, by A's
    strides and address, either side)."""
    from harness.impl.linalg import solve_triangular

    upper, unit, left = bool(a["upper"]), bool(a.get("unitriangular", False)), bool(a.get("left", True))
    align = int(a.get("self.align", 0) or 0)
    out = solve_triangular(t["self"], t["B"], upper, unit, a.get("self.stride"), align, p, left=left)
    return {"out": out}


def _mm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.linalg import mm

    return {"out": mm(_matrix(t, "self", a), _matrix(t, "mat2", a), p)}


def _addmm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.linalg import addmm

    beta, alpha = float(a.get("beta", 1)), float(a.get("alpha", 1))
    mat1, mat2 = _matrix(t, "mat1", a), _matrix(t, "mat2", a)
    if (beta != 1 or alpha != 1) and mat1.shape[1] and mat1.shape[0] * mat2.shape[1]:
        raise ParityError("the impl reproduces addmm with beta = alpha = 1 only (but for K = 0 or no output)")
    return {"out": addmm(t["self"], mat1, mat2, p, beta=beta, alpha=alpha)}


def _bmm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``at::bmm`` (linalg.bmm: ATen's own loop below 400 products, else MKL's batched sgemm), its operands
    laid out as torch had them (a transposed key, an expanded batch): MKL's kernel follows the layout."""
    from harness.impl.linalg import bmm

    x, y = (impl_nn.as_traced({k: impl_nn.float32_operand(t[k], "bmm")}, a, k) for k in ("self", "mat2"))
    return {"out": bmm(x, y, p)}


def _baddbmm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``at::baddbmm`` (linalg.baddbmm: BLOOM's ALiBi scores, ``baddbmm(alibi, q, k^T, beta=1, alpha=1/sqrt(D))``),
    its products' operands laid out as torch had them, as ``_bmm``'s; ``self`` broadcast as ATen expands it."""
    from harness.impl.linalg import baddbmm

    x, y = (impl_nn.as_traced({k: impl_nn.float32_operand(t[k], "baddbmm")}, a, k) for k in ("batch1", "batch2"))
    beta, alpha = (float(a.get(k, 1)) for k in ("beta", "alpha"))
    return {"out": baddbmm(impl_nn.float32_operand(t["self"], "baddbmm"), x, y, p, beta=beta, alpha=alpha)}


def _addmv(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``at::mv`` and ``at::addmv`` (linalg.addmv: MKL's sgemv as at::addmm's one-row product), the matrix
    laid out as torch had it."""
    from harness.impl.linalg import addmv

    name = "mat" if "mat" in t else "self"  # addmv's matrix, or mv's self
    mat, vec = (impl_nn.as_traced({k: impl_nn.float32_operand(t[k], "addmv")}, a, k) for k in (name, "vec"))
    c = impl_nn.float32_operand(t["self"], "addmv") if "mat" in t else None
    beta, alpha = (float(a.get(k, 1)) for k in ("beta", "alpha"))
    return {"out": addmv(c, mat, vec, p, beta=beta, alpha=alpha)}


def _grouped_mm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``torch._grouped_mm`` on the CPU (transformers' mixture-of-experts layers), its operands laid
    out as torch had them (linalg.grouped_mm)."""
    from harness.impl.linalg import grouped_mm

    if t.get("bias") is not None or a.get("out_dtype") not in (None, "torch.float32"):
        raise ParityError("the impl reproduces _grouped_mm without bias or another out_dtype only")
    x, w = (impl_nn.as_traced(t, a, k) for k in ("self", "mat2"))
    offs = [int(e) for e in t["offs"]] if "offs" in t else None
    return {"out": grouped_mm(x, w, offs, p)}


def _conv_geometry(
    a: Args, spatial: int
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], int, tuple[int, int]]:
    """stride, padding, output_padding, groups and dilation of a convolution over ``spatial`` dims as
    the 2-D one that runs it; ParityError else. A one-element stride, padding, output_padding or
    dilation stands for every spatial dim (ATen's ``expand_param_if_needed``: ``padding="valid"``
    reaches ``convolution`` as ``[0]``). A 1-D convolution, transposed too, runs as 2-D over rows of
    height 1 (ATen's ``_convolution`` and ``convolution_backward`` view (N, C, W) as (N, C, 1, W)
    before choosing a backend): stride (1, s), padding (0, p), output_padding (0, op), dilation
    (1, d). A dilation other than 1: ``_dilation_modelled`` and ``_dilated_channels_last``."""
    names, start = ("stride", "padding", "output_padding", "dilation"), {"stride": 1, "dilation": 1}
    stride, padding, output_padding, dilation = ([int(x) for x in (a.get(k) or [start.get(k, 0)])] for k in names)
    stride, padding, output_padding, dilation = (
        v * spatial if len(v) == 1 else v for v in (stride, padding, output_padding, dilation)
    )
    every = (stride, padding, output_padding, dilation)
    if spatial not in (1, 2) or any(len(v) != spatial for v in every):
        raise ParityError("the impl reproduces 1-D and 2-D convolutions only")
    if spatial == 1:
        stride, padding, output_padding, dilation = [1, *stride], [0, *padding], [0, *output_padding], [1, *dilation]
    groups = int(a.get("groups", 1) or 1)
    pairs = tuple((v[0], v[1]) for v in (stride, padding, output_padding, dilation))
    return pairs[0], pairs[1], pairs[2], groups, pairs[3]


def _dilation_modelled(t: Arrays, a: Args, dilation: tuple[int, int]) -> bool:
    """Whether the convolution is dilated, untransposed and NCHW (harness.impl.conv's dilated kernels,
    harness.impl.conv_grouped's with groups; a transposed one goes to harness.impl.conv_transpose with
    its dilation, a channels-last one to harness.impl.conv_nhwc_dilated: ``_dilated_channels_last``);
    ParityError where it is dilated, transposed and channels-last (not modelled dilated)."""
    if dilation == (1, 1):
        return False
    if _channels_last(t, a):
        if a.get("transposed"):
            raise ParityError("the impl reproduces dilated transposed convolutions on NCHW tensors only")
        return False
    return not a.get("transposed")  # a transposed one: harness.impl.conv_transpose with its dilation


def _dilated_channels_last(t: Arrays, a: Args, dilation: tuple[int, int]) -> bool:
    """Whether the convolution is dilated, untransposed and run channels-last (``_channels_last``; WavLM's
    TDNN): harness.impl.conv_nhwc_dilated, grad_output's strides aside (ATen's kernels take a
    channels-last copy of it)."""
    return dilation != (1, 1) and not a.get("transposed") and _channels_last(t, a)


def _transposed(a: Args, groups: int, t: Arrays) -> str:
    """ "nchw" or "nhwc" where this is a transposed convolution (harness.impl.conv_transpose, groups
    too), by the layout ATen suggests for its input and weight; "" where it is not. Refused where it
    has channels-last operands and groups. Operands of any other strides ATen copies to NCHW first
    (``contiguous(backend_memory_format)`` for oneDNN's deconvolution and slow_conv_transpose2d alike;
    measured: EnCodec's LSTM states permuted into its upsampling convolutions, SAM-HQ's channels-last
    gradients into its NCHW upscaling, weights of permuted layouts), but for slow_conv_transpose2d's
    grad_bias, which sums grad_output as it lies (``_slow_transposed_grad_bias``)."""
    if not a.get("transposed"):
        return ""
    if _channels_last(t, a):
        if groups != 1:
            raise ParityError("the impl reproduces channels-last transposed convolutions of one group only")
        return "nhwc"
    return "nchw"


def _as_2d(x: np.ndarray) -> np.ndarray:
    """A 1-D convolution's (N, C, W) tensor as the (N, C, 1, W) one ATen hands its backend."""
    return x[:, :, None, :] if x.ndim == 3 else x


def _conv3d_geometry(a: Args) -> tuple[list[int], list[int]]:
    """stride and padding of an untransposed, undilated, ungrouped 3-D convolution; ParityError else."""
    stride, padding, dilation = (
        [int(x) for x in (a.get(k) or [1 if k != "padding" else 0])] for k in ("stride", "padding", "dilation")
    )
    stride, padding, dilation = (v * 3 if len(v) == 1 else v for v in (stride, padding, dilation))
    if any(len(v) != 3 for v in (stride, padding, dilation)) or set(dilation) != {1}:
        raise ParityError("the impl reproduces 3-D convolutions without dilation only")
    if a.get("transposed"):
        raise ParityError("the impl reproduces untransposed convolutions only")
    if int(a.get("groups", 1) or 1) != 1:
        raise ParityError("the impl reproduces 3-D convolutions of one group only")
    return stride, padding


def _ncdhw(t: Arrays, a: Args, names: tuple[str, ...]) -> None:
    """ParityError where a 5-D operand was channels-last (ATen's mkldnn_conv_use_channels_last: oneDNN's
    ndhwc kernels); any other layout ATen makes contiguous (NCDHW) before oneDNN sees it, the values
    unchanged. The layout is the input's and the weight's: a grad_output of other strides (VideoMAE's
    and ViViT's patch embeddings, their tokens transposed back) oneDNN's backward takes as an NCDHW copy
    (measured); slow_conv3d's is refused."""

    for name in names:
        stride, x = a.get(f"{name}.stride"), t.get(name)
        cl = stride is not None and x is not None and strides.suggests_channels_last(x.shape, stride)
        if cl and impl_nn.not_contiguous(t, a, (name,)):
            raise ParityError(f"the impl reproduces 3-D convolutions of NCDHW tensors only, not {name} {stride}")


def _view4d_stride(
    shape: tuple[int, ...], stride: list[int], made_contiguous: bool = True
) -> tuple[tuple[int, ...], list[int]]:
    """A 1-D convolution's (N, C, W) tensor as its backend sees it: ATen makes the input contiguous
    (``made_contiguous``; a tensor torch already calls contiguous keeps its strides, those of size-1
    dims included; grad_output it leaves as it is), then views it as (N, C, 1, W) (``unsqueeze(2)``).
    One channel of stride 1 so looks channels-last (measured: oneDNN's acdb), any other layout does
    not."""
    s = list(stride) if not made_contiguous or strides.contiguous(stride, shape) else strides.c_strides(shape)
    return (shape[0], shape[1], 1, shape[2]), [s[0], s[1], s[2] * shape[2], s[2]]


def _channels_last(t: Arrays, a: Args) -> bool:
    """Whether ATen ran this convolution channels-last: its input's or weight's suggested memory format
    (mkldnn_conv_use_channels_last, thnn_conv_use_channels_last), a 1-D one's of its 2-D view: the input
    made contiguous first, the weight viewed as it lies (ATen's ``view4d``, an ``unsqueeze(2)``), so a
    weight transposed from (O, K, I) (WavLM's TDNN) runs the convolution channels-last."""
    return any(_suggests_channels_last(t, a, name, made_contiguous=name == "input") for name in ("input", "weight"))


def _lies_channels_last(t: Arrays, a: Args, name: str) -> bool:
    """Whether captured tensor ``name`` lay channels-last (its 4-D view's suggested memory format, a
    1-D convolution's as ATen views it, not made contiguous); True where its strides were not captured."""
    found = _suggests_channels_last(t, a, name, made_contiguous=False)
    return True if found is None else found


def _suggests_channels_last(t: Arrays, a: Args, name: str, made_contiguous: bool) -> bool | None:
    """The suggested memory format of captured tensor ``name`` as ATen asks it of a convolution's operand
    (a 1-D one's 2-D view, ``made_contiguous`` first or as it lies): channels-last or not; None where its
    strides were not captured."""
    stride, shape = a.get(f"{name}.stride"), t[name].shape
    if stride is None:
        return None
    if len(shape) == 3:
        shape, stride = _view4d_stride(shape, stride, made_contiguous)
    return strides.suggests_channels_last(shape, stride)


def _convolution(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    return _nan_checked("convolution", _convolution_out(t, a, p), t, ("input", "weight", "bias"), p)


def _convolution_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    operands = ("grad_output", "input", "weight")
    return _nan_checked("convolution_backward", _convolution_backward_out(t, a, p), t, operands, p)


def _nan_checked(
    op: str, out: dict[str, np.ndarray], t: Arrays, operands: tuple[str, ...], p: KernelProfile
) -> dict[str, np.ndarray]:
    """``out``, refused where a NaN in it may be one of several the convolution's kernels could pass on."""
    from harness.impl.nans import refuse_mixed_nans

    for name, arr in out.items():
        refuse_mixed_nans(f"{op}'s {name}", arr, p, set(), *(t[k] for k in operands if k in t))
    return out


def _convolution_out(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl import conv3d, conv_grouped, conv_nhwc, conv_nhwc_dilated, conv_transpose

    if t["input"].ndim == 5:
        stride3, padding3 = _conv3d_geometry(a)
        _ncdhw(t, a, ("input", "weight"))
        return {"out": conv3d.conv3d(t["input"], t["weight"], t.get("bias"), stride3, padding3, p)}
    stride, padding, output_padding, groups, dilation = _conv_geometry(a, t["input"].ndim - 2)
    if _dilated_channels_last(t, a, dilation):
        x, w = _as_2d(t["input"]), _as_2d(t["weight"])
        out = conv_nhwc_dilated.conv2d(x, w, t.get("bias"), stride, padding, dilation, groups, p)
        return {"out": out[:, :, 0, :] if t["input"].ndim == 3 else out}
    if _dilation_modelled(t, a, dilation):
        x, w = _as_2d(t["input"]), _as_2d(t["weight"])
        out = conv_grouped.conv2d(x, w, t.get("bias"), stride, padding, groups, p, dilation=dilation)
        return {"out": out[:, :, 0, :] if t["input"].ndim == 3 else out}
    layout = _transposed(a, groups, t)
    if layout:
        x, w = _as_2d(t["input"]), _as_2d(t["weight"])
        if layout == "nhwc":
            out = conv_transpose.conv_transpose2d_nhwc(x, w, t.get("bias"), stride, padding, output_padding, p)
        else:
            out = conv_transpose.conv_transpose2d(
                x, w, t.get("bias"), stride, padding, output_padding, p, groups, dilation
            )
        return {"out": out[:, :, 0, :] if t["input"].ndim == 3 else out}
    # input and weight of any other strides ATen makes contiguous (NCHW) for every backend (measured)
    conv2d = conv_nhwc.conv2d if _channels_last(t, a) else conv_grouped.conv2d
    out = conv2d(_as_2d(t["input"]), _as_2d(t["weight"]), t.get("bias"), stride, padding, groups, p)
    return {"out": out[:, :, 0, :] if t["input"].ndim == 3 else out}


def _runs_thnn(x_shape, w_shape, stride, padding, groups: int, p: KernelProfile) -> bool:
    """Whether ATen's slow_conv2d runs this 2-D convolution (per group where ``groups`` > 1)."""
    from harness.impl import conv, conv_grouped

    if groups > 1:
        return conv_grouped.path(x_shape, w_shape, stride, padding, groups, p)[0] == conv_grouped.THNN_GROUPS
    return conv.path(x_shape, w_shape, stride, padding, p) == conv.THNN


def _thnn_grad_bias(t: Arrays, a: Args, groups: int, p: KernelProfile) -> np.ndarray:
    """slow_conv2d's grad_bias of a grad_output that was not contiguous: the sum over (N, H, W) as the
    tensor lies (one group), or, per group, as ATen's ``subtensor`` copy of it lies (contiguous in the
    suggested memory format of the 4-D view: channels-last for a 1-D convolution's transposed
    grad_output), the groups' sums concatenated."""
    from harness.impl.reduce import sum_dims

    go, stride = t["grad_output"], a.get("grad_output.stride")
    dims = (0, 2) if go.ndim == 3 else (0, 2, 3)
    if groups == 1:
        return impl_nn.in_memory_order(go, dims, stride, lambda y, d: sum_dims(y, d, p))
    shape4, stride4 = (go.shape, stride) if go.ndim == 4 else _view4d_stride(go.shape, stride, made_contiguous=False)
    cl = strides.suggests_channels_last(shape4, stride4)
    parts = []
    for part in np.split(go, groups, axis=1):
        order = (0, 2, 3, 1) if go.ndim == 4 else (0, 2, 1)  # channels-last: C innermost
        layout = strides.c_strides(part.shape) if not cl else strides.strides_in_order(part.shape, order)
        parts.append(impl_nn.in_memory_order(np.ascontiguousarray(part), dims, layout, lambda y, d: sum_dims(y, d, p)))
    return np.concatenate(parts)


def _slow_transposed_grad_bias(
    t: Arrays, a: Args, geometry: tuple, p: KernelProfile, modelled: np.ndarray | None
) -> np.ndarray | None:
    """grad_bias of a transposed convolution whose grad_output was not contiguous: oneDNN's deconvolution
    sums ATen's NCHW copy of it (``modelled``, the impl's NCHW model), ATen's slow_conv_transpose2d
    sums it as it lies (``at::sum_out`` over (N, OH, OW) of the tensor it was given; measured over
    transposed outputs at 1, 2 and 4 threads, where the copy's sum gave other bits). ``geometry``:
    the 2-D view's input and weight shapes, stride and groups."""
    from harness.impl.conv_transpose import runs_slow

    x_shape, w_shape, stride, groups = geometry
    if not runs_slow(x_shape, w_shape, stride, p, groups):
        return modelled
    if groups > 1:
        raise ParityError(
            "slow_conv_transpose2d per group over a grad_output that was not contiguous (each group's copy) "
            "is not measured"
        )
    return _thnn_grad_bias(t, a, 1, p)


def _convolution_backward_out(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl import conv3d, conv_grouped, conv_nhwc_backward, conv_nhwc_dilated, conv_transpose

    mask = tuple(bool(m) for m in a.get("output_mask", [True, True, True]))
    has_bias = a.get("bias_sizes") is not None
    if t["input"].ndim == 5:
        stride3, padding3 = _conv3d_geometry(a)
        _ncdhw(t, a, ("input", "weight"))
        go, x, w = (t[k] for k in ("grad_output", "input", "weight"))
        if conv3d.kernels(conv3d.geometry(x.shape, w.shape, stride3, padding3), p)[0] == conv3d.SLOW3D:
            _ncdhw(t, a, ("grad_output",))  # slow_conv3d's grad_bias over other strides: not measured
        grads3 = conv3d.conv3d_backward(go, x, w, stride3, padding3, has_bias, p, mask)  # type: ignore[arg-type]
        return {f"out{i}": g for i, g in enumerate(grads3) if g is not None and mask[i]}
    stride, padding, output_padding, groups, dilation = _conv_geometry(a, t["input"].ndim - 2)
    go, x, w = (_as_2d(t[k]) for k in ("grad_output", "input", "weight"))
    if _dilated_channels_last(t, a, dilation):
        grads = conv_nhwc_dilated.conv2d_backward(go, x, w, stride, padding, dilation, groups, has_bias, p, mask)
        return _conv_grads(t, grads, mask)
    if _dilation_modelled(t, a, dilation):  # ATen and oneDNN run on NCHW copies of the operands
        grads = conv_grouped.conv2d_backward(go, x, w, stride, padding, groups, has_bias, p, mask, dilation=dilation)  # type: ignore[arg-type]
        return _conv_grads(t, grads, mask)
    layout = _transposed(a, groups, t)
    if layout == "nhwc":
        grads = conv_transpose.conv_transpose2d_nhwc_backward(
            go, x, w, stride, padding, output_padding, has_bias, p, mask
        )
    elif layout:
        grads = conv_transpose.conv_transpose2d_backward(
            go, x, w, stride, padding, output_padding, has_bias, p, mask, groups, dilation
        )
    if layout == "nchw" and has_bias and mask[2] and impl_nn.not_contiguous(t, a, ("grad_output",)):
        grads = (*grads[:2], _slow_transposed_grad_bias(t, a, (x.shape, w.shape, stride, groups), p, grads[2]))
    if layout:
        return _conv_grads(t, grads, mask)
    channels_last = _channels_last(t, a)
    go_copied = not channels_last and bool(impl_nn.not_contiguous(t, a, ("grad_output",)))
    go_other = channels_last and not _lies_channels_last(t, a, "grad_output")
    if channels_last:
        grads = conv_nhwc_backward.conv2d_backward(go, x, w, stride, padding, groups, has_bias, p, mask)  # type: ignore[arg-type]
    else:
        # ATen copies grad_output and input of any other strides to NCHW for the kernels (measured);
        # slow_conv2d sums grad_bias from grad_output as it lies, or per group as each group's copy
        # lies (``_thnn_grad_bias``)
        grads = conv_grouped.conv2d_backward(go, x, w, stride, padding, groups, has_bias, p, mask, go_copied)  # type: ignore[arg-type]
    if (go_copied or go_other) and has_bias and mask[2] and _runs_thnn(x.shape, w.shape, stride, padding, groups, p):
        grads = (*grads[:2], _thnn_grad_bias(t, a, groups, p))
    return _conv_grads(t, grads, mask)


def _conv_grads(t: Arrays, grads: tuple, mask: tuple[bool, ...]) -> dict[str, np.ndarray]:
    """convolution_backward's outputs in the captured shapes (a 1-D convolution's from its 2-D view)."""
    shapes = (t["input"].shape, t["weight"].shape, None)
    return {
        f"out{i}": g if shape is None else g.reshape(shape)
        for i, (g, shape) in enumerate(zip(grads, shapes, strict=True))
        if g is not None and mask[i]
    }


def _weight_norm_dim(t: Arrays, a: Args, names: tuple[str, ...]) -> int:
    """The dim of a captured _weight_norm_interface (or its backward), refused unless its tensors were
    contiguous: WeightNormKernel.cpp reads them as they lie in memory."""
    found = impl_nn.not_contiguous(t, a, names)
    if found:
        raise ParityError(
            f"the impl reproduces _weight_norm_interface on contiguous tensors only, not {found[0]} {found[1]}"
        )
    return int(a.get("dim", 0))  # the schema's default, left out of a trace's arguments


def _weight_norm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import weight_norm

    dim = _weight_norm_dim(t, a, ("v", "g"))
    w, norm = weight_norm(t["v"], t["g"], dim, p)
    return {"out0": w, "out1": norm}


def _weight_norm_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import weight_norm_backward

    names = ("grad_w", "saved_v", "saved_g", "saved_norms")
    dim = _weight_norm_dim(t, a, names)
    grad_v, grad_g = weight_norm_backward(*(t[n] for n in names), dim, p)
    return {"out0": grad_v, "out1": grad_g}


# torch's CPUGeneratorImplState, as Generator.get_state() gives it (5056 bytes)
_TORCH_GEN_STATE = np.dtype(
    [("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"), ("state", "<u8", 624),
     ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("pad", "<i4"),
     ("next_float_normal", "<f4"), ("next_float_normal_valid", "u1"), ("pad2", "u1", 3)]
)  # fmt: skip


def generator_from_state(data: np.ndarray) -> Any:
    """The impl's CPUGenerator in the state torch's generator was in (its get_state() bytes)."""
    from harness.impl.rng import CPUGenerator

    raw = np.frombuffer(np.ascontiguousarray(data, np.uint8).tobytes(), _TORCH_GEN_STATE)
    if raw.size != 1:
        raise ParityError(f"a CPU generator state is {_TORCH_GEN_STATE.itemsize} bytes, not {data.size}")
    st = raw[0]
    gen = CPUGenerator(int(st["seed"]))
    g = gen._state
    for i, word in enumerate(st["state"]):
        g.state[i] = int(word) & 0xFFFFFFFF
    g.left, g.next, g.seed = int(st["left"]), int(st["next"]) & 0xFFFFFFFF, int(st["seed"])
    g.next_double_normal, g.has_next_double_normal = float(st["normal_y"]), int(st["normal_is_valid"])
    g.next_float_normal, g.has_next_float_normal = float(st["next_float_normal"]), int(st["next_float_normal_valid"])
    return gen


def _generator(t: Arrays, op: str) -> Any:
    if "generator_state" not in t:
        raise ParityError(f"{op} needs its generator's state captured")
    return generator_from_state(t["generator_state"])


def _drawn_shape(a: Args, op: str) -> tuple[int, ...]:
    """The shape of a random op's output, refused unless it is contiguous: ATen fills any other layout
    element by element in TensorIterator's order (normal_: with the scalar sampler)."""
    shape = a.get("self.shape")
    if shape is None:
        raise ParityError(f"{op}: the output's shape was not captured")
    if a.get("self.dtype") not in (None, "float32"):
        raise ParityError(f"the impl reproduces {op} into float32 tensors only, not {a['self.dtype']}")
    _flat(a, "self")
    return tuple(shape)


def _randn(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rng import randn

    if a.get("dtype") not in (None, "torch.float32"):
        raise ParityError(f"the impl reproduces float32 randn only, not {a['dtype']}")
    shape = tuple(a["size"])
    return {"out": randn(_generator(t, "randn"), int(np.prod(shape, dtype=np.int64)), p).reshape(shape)}


def _factory_shape(a: Args, op: str) -> tuple[int, ...]:
    """The shape of a random factory's float32 output: ``size`` (rand, normal.float_float), or the shape of
    the tensor a ``*_like`` op copies (``_factory_layout`` says in which layout it is filled)."""
    like = "size" not in a  # a *_like op: self's dtype unless one is given (a trace without dtypes: float32)
    dtype = a.get("dtype") or (f"torch.{a.get('self.dtype') or 'float32'}" if like else "torch.float32")
    if dtype != "torch.float32":
        raise ParityError(f"the impl reproduces float32 {op} only, not {dtype}")
    if not like:
        return tuple(int(n) for n in a["size"])
    shape = a.get("self.shape")
    if shape is None:
        raise ParityError(f"{op}: the shape of the tensor it copies was not captured")
    return tuple(shape)


def _factory_layout(a: Args, shape: tuple[int, ...]) -> list[int] | None:
    """The strides of a ``*_like`` op's output where they are not C-contiguous: empty_like keeps self's dense
    layout (a transposed one: VITS's ``randn_like``), which ATen's samplers fill through their serial
    branch in TensorIterator's order, memory order; None where the output is contiguous (or of a ``size``).
    Another layout (a gap, an overlap) is refused."""
    stride = a.get("self.stride") if "size" not in a else None
    if stride is None or strides.contiguous(stride, shape):
        return None
    if not non_overlapping_and_dense(stride, shape):
        raise ParityError(f"a random *_like op of self of strides {stride} (not dense): not modelled")
    return list(stride)


def _draws(op: str, factory: bool) -> Replay:
    """``normal_`` / ``uniform_`` (``op``) into a captured tensor, or (``factory``) into the new float32
    tensor of a factory that is one of them: ``rand``/``rand_like`` (uniform_ from 0 to 1), ``normal`` of
    numbers and ``randn_like`` (normal_, by default 0 and 1). The parameters are the call's, else the
    samplers' defaults; normal's overloads of tensor means or deviations are refused."""
    keys = ("mean", "std") if op == "normal_" else ("from", "to")

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl import rng

        if any(name in t for name in keys):
            raise ParityError(f"the impl reproduces {op} of number {keys[0]} and {keys[1]} only, not of tensors")
        shape = _factory_shape(a, op) if factory else _drawn_shape(a, op)
        stride = _factory_layout(a, shape) if factory else None
        n = int(np.prod(shape, dtype=np.int64))
        sampler = rng.normal_ if op == "normal_" else rng.uniform_
        if stride is not None and op == "normal_":
            sampler = rng.normal_serial  # normal_kernel's serial branch: the tensor is not contiguous
        low, high = float(a.get(keys[0], 0.0)), float(a.get(keys[1], 1.0))
        drawn = sampler(_generator(t, op), n, low, high, p)
        if stride is None:
            return {"out": drawn.reshape(shape)}
        # the draws in memory order, read through the layout's strides
        view = np.lib.stride_tricks.as_strided(drawn, shape, [s * drawn.itemsize for s in stride])
        return {"out": np.ascontiguousarray(view)}

    return run


def _exponential(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``exponential_`` (PhiMoE's router jitter) into a contiguous float32 tensor: harness.impl.rng's
    default-template draws. MKL's VSL path (``vsRngExponential`` of an MCG31 stream) that an Intel CPU may
    take is not modelled; aarch64 runs the same template (the same draws, measured under emulation)."""
    from harness.impl import rng

    if p.mkl_intel:
        raise ParityError("exponential_ under MKL's Intel paths (its VSL draws) is not modelled")
    lambd = float(a.get("lambd", 1.0))
    if not lambd > 0 or not np.isfinite(lambd):
        raise ParityError(f"exponential_ with lambd {lambd!r} is not modelled")
    shape = _drawn_shape(a, "exponential_")
    n = int(np.prod(shape, dtype=np.int64))
    return {"out": rng.exponential_(_generator(t, "exponential_"), n, lambd).reshape(shape)}


def _sinc(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``sinc`` (NeuCodec) of a float32 tensor: harness.impl.nn.sinc, element-wise and the same at every x86
    level and thread count (glibc's sinf; aarch64's, its own reduction, on the arm64 profiles)."""
    from harness.impl.nn import sinc

    return {"out": sinc(impl_nn.float32_operand(t["self"], "sinc"), p)}


def _atanh(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``atanh`` and ``atanh_`` of a float32 tensor: cpu_kernel_vec, SLEEF's atanhf in the vector body and
    glibc's in each inner loop's tail and in the basic loop, so laid out in TensorIterator's order and
    runs (aarch64: SLEEF's advsimd/SVE atanhf in the body, an aarch64 build of glibc's in the tails)."""
    from harness.impl.unary import forward

    x = impl_nn.float32_operand(t["self"], "atanh")
    return {"out": impl_nn.in_loop_order(a, ("self",), [x], lambda xs, run: forward("atanh", xs[0], p, run))}


def _polar(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``polar(abs, angle)`` of float32 tensors (broadcast to one shape): harness.impl.nn.polar, element-wise
    and the same at every x86 level and thread count; the complex result as (re, im) pairs."""
    from harness.impl.nn import polar

    abs_, angle = impl_nn.float32_operand(t["abs"], "polar"), impl_nn.float32_operand(t["angle"], "polar")
    shape = np.broadcast_shapes(abs_.shape, angle.shape)
    return {"out": polar(np.broadcast_to(abs_, shape), np.broadcast_to(angle, shape), p)}


def _window(name: str) -> Replay:
    """``hann_window`` and ``kaiser_window`` (their overloads: length; length, periodic; kaiser's beta) of
    float32, by harness.impl.factories."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.factories import hann_window, kaiser_window

        if a.get("dtype") not in (None, "torch.float32"):
            raise ParityError(f"the impl reproduces float32 {name} only, not {a['dtype']}")
        n, periodic = a.get("window_length"), bool(a.get("periodic", True))
        if not isinstance(n, int):
            raise ParityError(f"{name} of a window_length {n!r}: an integer only")
        if name == "hann_window":
            return {"out": hann_window(n, periodic, p)}
        return {"out": kaiser_window(n, periodic, float(a.get("beta", 12.0)), p)}

    return run


def _arange(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``arange`` (its overloads: end; start, end; start, end, step): float32 by harness.impl.factories
    (its positions in double, vector bases and scalar tails per thread chunk); integers into a signed
    integer dtype exact, as NumPy's (a whole float step too: Funnel's ``arange(0, n, 1.0, dtype=long)``);
    float64 of whole numbers below 2**53 (RT-DETR's and D-FINE's position embeddings), where every
    ``start + step * idx``, in any lane or chunk, is exact."""
    from harness.impl.factories import arange

    start, end, step = a.get("start", 0), a.get("end"), a.get("step", 1)
    numbers = (start, end, step)
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in numbers):
        raise ParityError(f"arange of {start!r}, {end!r}, {step!r}: numbers only")
    dtype = a.get("dtype") or ("torch.float32" if any(isinstance(v, float) for v in numbers) else "torch.int64")
    if dtype == "torch.float32":
        return {"out": arange(float(start), float(end), float(step), p)}
    whole = all(np.isfinite(v) and float(v).is_integer() and abs(v) <= 2**52 for v in numbers)
    integers = {"torch.int64": np.int64, "torch.int32": np.int32, "torch.int16": np.int16, "torch.int8": np.int8}
    if dtype in integers and whole:  # BLOOM's int32 positions: exact
        return {"out": np.arange(int(start), int(end), int(step), dtype=np.int64).astype(integers[dtype])}
    if dtype == "torch.float64" and whole and step != 0:
        # ATen's count ceil((end - start) / step) in double; start + step * idx as each path forms it (a -0
        # start with a negative step stays -0, as there)
        n = max(0, int(np.ceil((float(end) - float(start)) / float(step))))
        return {"out": np.float64(start) + np.float64(step) * np.arange(n, dtype=np.float64)}
    raise ParityError(
        "the impl reproduces arange of float32, of integers into a signed integer and of float64 whole numbers "
        f"only, not {dtype} of {start!r}, {end!r}, {step!r}"
    )


def _linspace(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``linspace(start, end, steps)`` of float32 numbers: harness.impl.factories."""
    from harness.impl.factories import linspace

    start, end, steps = a.get("start"), a.get("end"), a.get("steps")
    if any(name in t for name in ("start", "end")) or not isinstance(steps, int):
        raise ParityError("the impl reproduces linspace of numbers only, not of tensors")
    if a.get("dtype") not in (None, "torch.float32"):
        raise ParityError(f"the impl reproduces float32 linspace only, not {a['dtype']}")
    return {"out": linspace(float(start), float(end), steps, p)}


def _flash_inputs(t: Arrays, a: Args) -> tuple[list[np.ndarray], Any]:
    """q, k, v of a flash attention op in torch's layouts, and how it was called (attention.FlashCall)."""
    from harness.impl.attention import FlashCall

    if a.get("dropout_p", 0.0):
        raise ParityError("the impl reproduces the CPU flash attention kernel with dropout_p = 0 only")
    qkv = [impl_nn.as_traced(t, a, name) for name in ("query", "key", "value")]
    mask = t.get("attn_mask")
    return qkv, FlashCall(bool(a.get("is_causal", False)), mask, a.get("scale"))


def _flash_attention(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.attention import sdpa_forward

    (q, k, v), call = _flash_inputs(t, a)
    saved = sdpa_forward(q, k, v, p, call)
    return {"out0": saved.out, "out1": saved.lse}


def _flash_attention_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.attention import FlashSaved, sdpa_backward

    (q, k, v), call = _flash_inputs(t, a)
    grad_out = impl_nn.as_traced(t, a, "grad_out")
    saved = FlashSaved(t["out"], t["logsumexp"])
    return dict(zip(("out0", "out1", "out2"), sdpa_backward(grad_out, q, k, v, saved, p, call), strict=True))


def _fft(kind: str) -> Replay:
    """``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r`` (harness/impl/fft.py: MKL DFTI's kernels for the lengths
    modelled; on arm64 pocketfft's, harness/impl/pocketfft.py); complex operands and results as (re, im)
    pairs, as a trace captures them."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.fft import fft

        if "self" not in t:
            raise ParityError(f"_fft_{kind}: its input was not captured")
        if kind == "r2c" and not a.get("onesided", True):
            raise ParityError("_fft_r2c with onesided=False (ATen's conjugate fill): not modelled")
        out = fft(
            kind, t["self"], list(a.get("dim") or []), int(a.get("normalization", 0)), p,
            forward=bool(a.get("forward", True)), last_dim_size=int(a.get("last_dim_size", 0)),
            stride=a.get("self.stride"),
        )  # fmt: skip
        return {"out": out}

    return run


REPLAYS: dict[str, Replay] = {
    "normal_": _draws("normal_", False),
    "normal": _draws("normal_", True),
    "randn_like": _draws("normal_", True),
    "uniform_": _draws("uniform_", False),
    "exponential_": _exponential,
    "sinc": _sinc,
    "atanh": _atanh,
    "atanh_": _atanh,
    "polar": _polar,
    "hann_window": _window("hann_window"),
    "kaiser_window": _window("kaiser_window"),
    "arange": _arange,
    "linspace": _linspace,
    "rand": _draws("uniform_", True),
    "rand_like": _draws("uniform_", True),
    "randn": _randn,
    "native_layer_norm": _layer_norm,
    "native_layer_norm_backward": _layer_norm_backward,
    "_softmax": _softmax,
    "_softmax_backward_data": _softmax_backward,
    "_safe_softmax": _safe_softmax,
    "where": _where,
    "masked_fill": _masked_fill,
    "masked_fill_": _masked_fill,
    "_log_softmax": _log_softmax,
    "_log_softmax_backward_data": _log_softmax_backward,
    "gelu": _gelu,
    "gelu_backward": _gelu_backward,
    # element by element on every path (VML, or vec::map's SLEEF with partial vectors), so a strided
    # view (an in-place op on a column chunk, which ATen hands VML a row at a time) takes the same bits
    "tanh": _unary("tanh"),
    "tanh_": _unary("tanh"),
    "exp": _unary("exp"),
    "exp_": _unary("exp"),
    "log": _unary("log"),
    "log_": _unary("log"),
    "logit": _logit,
    "sin": _vec_mapped("sin"),
    "sin_": _vec_mapped("sin"),
    "cos": _vec_mapped("cos"),
    "cos_": _vec_mapped("cos"),
    "erf": _vec_mapped("erf"),
    "erf_": _vec_mapped("erf"),
    "erfinv": _unary("erfinv"),
    "erfinv_": _unary("erfinv"),
    "log2": _unary("log2"),
    "log2_": _unary("log2"),
    "acos": _unary("acos"),
    "acos_": _unary("acos"),
    "log1p": _unary("log1p"),
    "log1p_": _unary("log1p"),
    "lgamma": _unary("lgamma"),
    "lgamma_": _unary("lgamma"),
    "digamma": _unary("digamma"),
    "digamma_": _unary("digamma"),
    "expm1": _unary("expm1"),
    "expm1_": _unary("expm1"),
    "tanh_backward": _tanh_backward,
    "silu": _silu,
    "silu_": _silu,
    "silu_backward": _silu_backward,
    "softplus": _softplus,
    "softplus_backward": _softplus_backward,
    "log_sigmoid_forward": _log_sigmoid_forward,
    "log_sigmoid_backward": _log_sigmoid_backward,
    "binary_cross_entropy_with_logits": _binary_cross_entropy_with_logits,
    "leaky_relu": _leaky_relu,
    "leaky_relu_": _leaky_relu,
    "leaky_relu_backward": _leaky_relu_backward,
    "elu": _elu,
    "elu_": _elu,
    "elu_backward": _elu_backward,
    **{f"{op}{tail}": _hard(op) for op in ("hardswish", "hardsigmoid") for tail in ("", "_")},
    **{name: _mish for name in ("mish", "mish_", "mish_backward")},
    **{f"{op}_backward": _hard(f"{op}_backward") for op in ("hardswish", "hardsigmoid")},
    **{
        f"{op}{tail}": _min_max(op)
        for op in ("maximum", "minimum", "clamp", "clamp_min", "clamp_max", "fmod", "remainder", "atan2")
        for tail in ("", "_")
    },
    "sum": _reduction("sum"),
    "mean": _reduction("mean"),
    "var": _reduction("var"),
    "std": _reduction("std"),
    "max": _extreme("max"),
    "min": _extreme("min"),
    "amax": _extreme_values("amax"),
    "amin": _extreme_values("amin"),
    "aminmax": _aminmax,
    "topk": _topk,
    "sort": _sort,
    "histc": _histc,
    "logsumexp": _logsumexp,
    "mm": _mm,
    "bmm": _bmm,
    "baddbmm": _baddbmm,
    "mv": _addmv,
    "addmv": _addmv,
    "linalg_qr": _linalg_qr,
    "addmm": _addmm,
    "_grouped_mm": _grouped_mm,
    "_scaled_dot_product_flash_attention_for_cpu": _flash_attention,
    "_scaled_dot_product_flash_attention_for_cpu_backward": _flash_attention_backward,
    "convolution": _convolution,
    "convolution_backward": _convolution_backward,
    "_weight_norm_interface": _weight_norm,
    "_weight_norm_interface_backward": _weight_norm_backward,
    "norm": _norm("p"),
    "linalg_vector_norm": _norm("ord"),
}


def _embedding(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``embedding``: the weight's rows gathered by index (index_select): copies, any level."""
    from harness.impl.linalg import embedding

    return {"out": embedding(np.asarray(t["indices"]), impl_nn.float32_operand(t["weight"], "embedding"))}


_MEAN = 1  # at::Reduction::Mean


def _nll_loss_call(t: Arrays, a: Args, op: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(log-probabilities (B, C), targets (B,), ignore_index) of an nll_loss op the impl reproduces: the
    mean over a batch without class weights, what ``F.cross_entropy`` runs."""
    lsm = impl_nn.float32_operand(t["self"], op)
    if t.get("weight") is not None or a.get("reduction", _MEAN) != _MEAN or lsm.ndim != 2:
        raise ParityError(f"the impl reproduces {op} over a batch (B, C), mean, without class weights only")
    return lsm, np.asarray(t["target"]), int(a.get("ignore_index", -100))


def _nll_loss_unreduced(t: Arrays, a: Args, op: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int] | None:
    """(input (B, C, 1, 1), target (B, 1, 1), weight or None, ignore_index) of an nll_loss op of a batch
    (B, C) with reduction none (LXMERT's per-region losses), else None: LossNLL.cpp's per-row
    ``-input[i][t] * weight[t]`` (1 without weights; 0 where ignored, total_weight 0) and its backward's
    ``-weight[t] * grad[i]``, what nll_loss2d's reduction none computes per element."""
    x = t.get("self")
    if a.get("reduction", _MEAN) != 0 or x is None or np.asarray(x).ndim != 2:
        return None
    lsm = impl_nn.float32_operand(x, op)
    weight = t.get("weight")
    weight = None if weight is None else impl_nn.float32_operand(weight, op)
    target = np.asarray(t["target"]).reshape(-1, 1, 1)
    return lsm.reshape(*lsm.shape, 1, 1), target, weight, int(a.get("ignore_index", -100))


def _nll_loss_forward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``nll_loss_forward``: rows.nll_loss (ATen's 8-level cascade over the batch, divided by its count);
    reduction none per row (``_nll_loss_unreduced``)."""
    from harness.impl.rows import nll_loss, nll_loss2d

    unreduced = _nll_loss_unreduced(t, a, "nll_loss_forward")
    if unreduced is not None:
        x, target, weight, ignore = unreduced
        loss, total_weight = nll_loss2d(x, target, weight, "none", ignore, p)
        return {"out0": loss.reshape(-1), "out1": total_weight}
    lsm, target, ignore = _nll_loss_call(t, a, "nll_loss_forward")
    loss, total_weight = nll_loss(lsm, target, p, ignore)
    return {"out0": loss, "out1": np.array(total_weight, np.float32)}


def _nll_loss_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``nll_loss_backward``: rows.nll_loss_backward (-(grad / total weight) at each kept target); reduction
    none per row (``_nll_loss_unreduced``)."""
    from harness.impl.rows import nll_loss2d_backward, nll_loss_backward

    unreduced = _nll_loss_unreduced(t, a, "nll_loss_backward")
    if unreduced is not None:
        x, target, weight, ignore = unreduced
        g = impl_nn.float32_operand(t["grad_output"], "nll_loss_backward").reshape(-1, 1, 1)
        total = impl_nn.float32_operand(t["total_weight"], "nll_loss_backward")
        out = nll_loss2d_backward(g, x.shape, target, weight, "none", ignore, total, p)
        return {"out": out.reshape(x.shape[:2])}
    lsm, target, ignore = _nll_loss_call(t, a, "nll_loss_backward")
    total_weight = float(np.asarray(t["total_weight"], np.float32))
    return {"out": nll_loss_backward(t["grad_output"], lsm.shape, target, total_weight, ignore)}


def _nll_loss2d_call(t: Arrays, a: Args, op: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int, int]:
    """(input (N, C, H, W), target (N, H, W), weight (C,) or None, reduction, ignore_index) of nll_loss2d_forward
    or its backward, float32 (F.nll_loss and F.cross_entropy of an input of 3 or more dims: ATen views any
    but 4 dims as (N, C, 1, -1) first)."""
    x = impl_nn.float32_operand(t["self"], op)
    weight = t.get("weight")
    if weight is not None:
        weight = impl_nn.float32_operand(weight, op)
    reduction = int(a.get("reduction", _MEAN))
    if x.ndim != 4 or reduction not in _REDUCTIONS:
        raise ParityError(f"{op}: input of shape {x.shape}, reduction {reduction}: not nll_loss2d's")
    return x, np.asarray(t["target"]), weight, reduction, int(a.get("ignore_index", -100))


def _nll_loss2d_forward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``nll_loss2d_forward``: rows.nll_loss2d (LossNLL2d.cpp: per element for reduction none, else its
    8-level cascade over the N*H*W elements, divided by the total weight for mean)."""
    from harness.impl.rows import nll_loss2d

    x, target, weight, reduction, ignore = _nll_loss2d_call(t, a, "nll_loss2d_forward")
    loss, total_weight = nll_loss2d(x, target, weight, _REDUCTIONS[reduction], ignore, p)
    return {"out0": loss, "out1": total_weight}


def _nll_loss2d_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``nll_loss2d_backward``: rows.nll_loss2d_backward (zeros, and at each kept element's target
    ``-weight * grad`` (none), ``weight * -(grad / total_weight)`` (mean) or ``weight * -grad`` (sum))."""
    from harness.impl.rows import nll_loss2d_backward

    x, target, weight, reduction, ignore = _nll_loss2d_call(t, a, "nll_loss2d_backward")
    g = impl_nn.float32_operand(t["grad_output"], "nll_loss2d_backward")
    total = impl_nn.float32_operand(t["total_weight"], "nll_loss2d_backward")
    return {"out": nll_loss2d_backward(g, x.shape, target, weight, _REDUCTIONS[reduction], ignore, total, p)}


def _euclidean_dist(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_euclidean_dist`` (Distance.cpp, a composite recorded as one op): the replays of the ops it runs, in
    its order: ``x.pow(2).sum(-1, keepdim)`` of each side (the sum over x's own layout), ``cat`` of
    ``[x1 * -2, |x1|^2, 1]`` and ``[x2, 1, |x2|^2]``, ``matmul`` of the first by the second transposed (mm,
    or bmm over the batch dims flattened), ``clamp_min_(0)``, ``sqrt_``."""
    from harness.impl.nans import arith

    xs = [impl_nn.float32_operand(t[name], "_euclidean_dist") for name in ("x1", "x2")]
    if xs[0].ndim < 2 or xs[0].ndim != xs[1].ndim or xs[0].shape[-1] != xs[1].shape[-1]:
        raise ParityError(f"_euclidean_dist of shapes {xs[0].shape} and {xs[1].shape}: not modelled")
    norms = []
    for name, x in zip(("x1", "x2"), xs, strict=True):
        stride = a.get(f"{name}.stride") or strides.c_strides(x.shape)
        stride = strides.strides_in_order(x.shape, impl_nn.stride_order(x.shape, stride))  # pow's output: dense
        layout = {"self.stride": list(stride), "self.shape": list(x.shape)}
        square = REPLAYS["pow"]({"self": x}, {**layout, "exponent": 2}, p)["out"]
        norms.append(REPLAYS["sum"]({"self": square}, {**layout, "dim": [-1], "keepdim": True}, p)["out"])
    ones = [np.ones_like(n) for n in norms]
    left = np.concatenate([arith("mul", xs[0], np.float32(-2), 0), norms[0], ones[0]], axis=-1)
    right = np.concatenate([xs[1], ones[1], norms[1]], axis=-1)
    batch, (r1, k), r2 = left.shape[:-2], left.shape[-2:], right.shape[-2]
    mat2 = np.swapaxes(right, -1, -2)
    if left.ndim == 2:
        layout = {"self.stride": [k, 1], "mat2.stride": [1, k]}
        product = REPLAYS["mm"]({"self": left, "mat2": mat2}, layout, p)["out"]
    else:
        d = int(np.prod(batch, dtype=np.int64))
        mats = {"self": left.reshape(d, r1, k), "mat2": np.swapaxes(right.reshape(d, r2, k), -1, -2)}
        layout = {"self.stride": [r1 * k, k, 1], "mat2.stride": [r2 * k, 1, k]}
        product = REPLAYS["bmm"](mats, layout, p)["out"].reshape(*batch, r1, r2)
    product = np.ascontiguousarray(product, np.float32)
    clamped = REPLAYS["clamp_min_"]({"self": product}, {"min": 0}, p)["out"]
    return {"out": REPLAYS["sqrt"]({"self": np.ascontiguousarray(clamped)}, {}, p)["out"]}


def _euclid_by_mm(p: float, mode: int | None, r1: int, r2: int) -> bool:
    """cdist_impl's choice of ``_euclidean_dist`` (the matrix product) over its own kernel: p = 2 and
    compute_mode 1, or the default mode with more than 25 rows on either side."""
    mode = 0 if mode is None else int(mode)
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


def _cdist_forward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_cdist_forward``: the operands' batch dims broadcast and each made contiguous as (d, r, m), as
    cdist_impl does; empty operands give an empty or zero result; then its matrix-product path
    (``_euclidean_dist`` of the operands, expanded where the batch dims broadcast to more than one) or its
    own kernel (harness.impl.nn.cdist)."""
    from harness.impl.nn import cdist

    x1, x2 = (impl_nn.float32_operand(t[name], "_cdist_forward") for name in ("x1", "x2"))
    pnorm = float(a.get("p", 2.0))
    batch, f1, f2 = impl_nn.cdist_batches(x1, x2)
    r1, r2, m = f1.shape[1], f2.shape[1], f1.shape[2]
    shape = (*batch, r1, r2)
    if 0 in shape or m == 0:
        return {"out": np.zeros(shape, np.float32)}
    if not _euclid_by_mm(pnorm, a.get("compute_mode"), r1, r2):
        return {"out": cdist(f1, f2, pnorm, p).reshape(shape)}
    one = int(np.prod(batch, dtype=np.int64)) == 1
    operands = {"x1": x1, "x2": x2} if one else {"x1": f1, "x2": f2}
    layout = {k: v for k, v in a.items() if k.endswith(".stride")} if one else {}
    return {"out": _euclidean_dist(operands, layout, p)["out"].reshape(shape)}


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}  # at::Reduction


def _mse_operands(t: Arrays, a: Args, op: str) -> tuple[np.ndarray, np.ndarray, str]:
    """(self, target, reduction) of mse_loss or its backward: float32 tensors (broadcast together)."""
    x, target = impl_nn.float32_operand(t["self"], op), impl_nn.float32_operand(t["target"], op)
    reduction = _REDUCTIONS.get(int(a.get("reduction", 1)))
    if reduction is None:
        raise ParityError(f"{op}: reduction {a.get('reduction')} is not at::Reduction's")
    return x, target, reduction


def _mse_loss(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``mse_loss`` (Loss.cpp ``mse_loss_out``): mse_kernel's ``diff * diff`` of ``diff = self - target``
    (BinaryOpsKernel.cpp, cpu_kernel_vec: one subtraction and one product per element in the vector body
    and the scalar tail alike, so no knob reaches them: measured at default, avx2 and avx512 on 1 and 4
    threads), into the borrowing binary op's output; for ``mean`` and ``sum`` that output, laid out in
    TensorIterator's order of the operands' strides, reduced whole by ``mean_out`` / ``sum_out``: the
    ``sum`` / ``mean`` rows' cascade over its memory order (``reduce.mean_dims`` of it flattened), whose
    thread split moves the bits. On aarch64 the subtraction's NaN is FSUB's (measured under emulation on
    N1, V2 and V1)."""
    from harness.impl.nans import arith

    x, target, reduction = _mse_operands(t, a, "mse_loss")
    shape = tuple(np.broadcast_shapes(x.shape, target.shape))
    x, target = np.broadcast_to(x, shape), np.broadcast_to(target, shape)
    if p.aarch64:  # FSUB's NaN: the operand's (two of other payloads refused), else inf - inf's +qNaN
        diff = arith("sub", x, target, None, "mse_loss's self - target", True)
    else:
        with np.errstate(all="ignore"):
            diff = np.subtract(x, target, dtype=np.float32)
    with np.errstate(all="ignore"):
        loss = np.multiply(diff, diff, dtype=np.float32)
    return _loss_reduced(loss, reduction, a, p, "mse_loss")


def _loss_reduced(
    loss: np.ndarray, reduction: str, a: Args, p: KernelProfile, op: str, like: str | None = None
) -> dict[str, np.ndarray]:
    """A loss's elements (``loss``: the borrowing binary op's output over ``self`` and ``target``, or where
    ``like`` names one, the kernel's ``empty_like`` of it) as Loss.cpp hands them on: as they are
    (``none``), else that output, laid out in TensorIterator's order of the operands' strides, reduced whole
    by ``mean_out`` / ``sum_out``: the ``sum`` / ``mean`` rows' cascade over its memory order
    (``reduce.mean_dims`` of it flattened), whose thread split moves the bits."""
    from harness.impl import reduce

    if reduction == "none":
        return {"out": loss}
    if len(np.unique(loss[np.isnan(loss)].view(np.uint32))) > 1:
        raise ParityError(
            f"{op} ({reduction}) over NaNs of more than one bit pattern: which one the cascade's order keeps is "
            "not modelled"
        )
    order = impl_nn.tensor_loop(a, ("self", "target"), loss.shape, like=like).order
    flat = np.ascontiguousarray(np.transpose(loss, order)).reshape(-1)
    kernel = reduce.mean_dims if reduction == "mean" else reduce.sum_dims
    return {"out": np.asarray(kernel(flat, (0,), p), np.float32).reshape(())}


def _mse_loss_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``mse_loss_backward`` (Loss.cpp ``mse_loss_backward_out``): PointwiseOpsKernel.cpp's
    mse_backward_cpu_kernel, ``norm * (self - target) * grad_output`` with ``norm`` = 2 / numel (mean)
    or 2 (none, sum) rounded to float (``Scalar::to<float>``), left to right in the vector body and the
    scalar tail alike: the same bits at every level and thread count."""
    x, target, reduction = _mse_operands(t, a, "mse_loss_backward")
    g = impl_nn.float32_operand(t["grad_output"], "mse_loss_backward")
    norm = np.float32(2.0 / x.size if reduction == "mean" else 2.0)
    shape = tuple(np.broadcast_shapes(x.shape, target.shape, g.shape))
    with np.errstate(all="ignore"):
        diff = np.subtract(np.broadcast_to(x, shape), np.broadcast_to(target, shape), dtype=np.float32)
        out = np.multiply(np.multiply(norm, diff, dtype=np.float32), np.broadcast_to(g, shape), dtype=np.float32)
    x86_nans("mse_loss_backward", out, p.aarch64)
    return {"out": out}


def _bce_operands(t: Arrays, a: Args, op: str) -> tuple[np.ndarray, np.ndarray, str]:
    """(self, target, reduction) of binary_cross_entropy or its backward: float32 tensors of one shape; a
    weight refused."""
    if t.get("weight") is not None:
        raise ParityError(f"{op} with a weight (loss.mul_(weight) after the elements): not modelled")
    x, target, reduction = _mse_operands(t, a, op)
    if x.shape != target.shape:
        raise ParityError(f"{op} of self {x.shape} and target {target.shape}: ATen requires one shape")
    return x, target, reduction


def _binary_cross_entropy(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``binary_cross_entropy`` (Loss.cpp ``binary_cross_entropy_out_cpu``): ``cpu_kernel``'s scalar lambda
    per element into ``empty_like(self)`` (``unary.binary_cross_entropy``: Loss.cpp's one x86 object, no
    level reaches it), then for ``mean`` and ``sum`` that tensor reduced whole (``apply_loss_reduction``:
    the ``mean`` / ``sum`` rows' cascade over its memory order, whose thread split moves the bits)."""
    from harness.impl.unary import binary_cross_entropy

    x, target, reduction = _bce_operands(t, a, "binary_cross_entropy")
    loss = binary_cross_entropy(x, target, p)
    return _loss_reduced(loss, reduction, a, p, "binary_cross_entropy", like="self")


def _binary_cross_entropy_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``binary_cross_entropy_backward`` (Loss.cpp ``binary_cross_entropy_backward_out_cpu``): ``cpu_kernel``'s
    scalar lambda ``grad * (x - t) / max((1 - x) * x, float(1e-12))``, left to right in float (nothing to
    contract, the same object at every level), then for ``mean`` ``grad_input.div_(numel)``: each element
    divided by the count as a float. The same bits at every level and thread count; on aarch64 the wheel's
    object's operand orders and NaNs (``_bce_backward_a64``)."""
    x, target, reduction = _bce_operands(t, a, "binary_cross_entropy_backward")
    g = impl_nn.float32_operand(t["grad_output"], "binary_cross_entropy_backward")
    if p.aarch64:
        return {"out": _bce_backward_a64(np.broadcast_to(g, x.shape), x, target, reduction)}
    with np.errstate(all="ignore"):
        den = np.multiply(np.subtract(np.float32(1), x, dtype=np.float32), x, dtype=np.float32)
        den = np.where(den < np.float32(1e-12), np.float32(1e-12), den).astype(np.float32)
        diff = np.subtract(x, target, dtype=np.float32)
        out = np.divide(np.multiply(np.broadcast_to(g, x.shape), diff, dtype=np.float32), den, dtype=np.float32)
        if reduction == "mean":
            out = np.divide(out, np.float32(x.size), dtype=np.float32)
    return {"out": out}


def _bce_backward_a64(g: np.ndarray, x: np.ndarray, target: np.ndarray, reduction: str) -> np.ndarray:
    """binary_cross_entropy_backward's lambda as the aarch64 wheel's Loss.cpp object runs it (read: the 4-lane
    loop and the scalar one alike): ``fsub 1, x``, ``fmul (1 - x), x``, ``fsub x, t``, ``fmul (x - t), g``, the
    denominator below 1e-12 replaced by it (``fcmgt``/``bsl``, ``fcmpe``: a NaN one kept), ``fdiv num, den``;
    NaNs by FPProcessNaNs in those operand orders, ``inf - inf``, ``0 * inf``, ``inf / inf`` +qNaN; ``mean``'s
    ``div_(numel)`` one more FDIV."""
    one = np.float32(1)
    den = arith_a64("mul", arith_a64("sub", one, x), x)
    den = np.where(den < np.float32(1e-12), np.float32(1e-12), den).astype(np.float32)
    out = arith_a64("div", arith_a64("mul", arith_a64("sub", x, target), g), den)
    return arith_a64("div", out, np.float32(x.size)) if reduction == "mean" else out


def _beta(a: Args, name: str, op: str) -> float:
    """smooth_l1's ``beta`` / huber's ``delta`` (a double): refused where ``0.5 * float(beta)`` is inexact
    (a subnormal float), as a contraction of ``z - 0.5 * beta`` into one FMA would then show."""
    beta = float(a.get(name, 1.0))
    half = np.float32(0.5) * np.float32(beta)
    if np.isfinite(beta) and beta != 0 and float(half) * 2 != float(np.float32(beta)):
        raise ParityError(f"{op} with {name} {beta!r}: 0.5 * {name} is inexact in float, a contraction not measured")
    return beta


def _smooth_l1_elements(op: str, x: np.ndarray, target: np.ndarray, beta: float, aarch64: bool) -> np.ndarray:
    """BinaryOpsKernel.cpp's smooth_l1_kernel / huber_kernel on float32 ``z = |self - target|``:
    ``z < beta ? 0.5 * z * z / beta : z - 0.5 * beta`` (huber: ``z < delta ? 0.5 * z * z :
    delta * (z - 0.5 * delta)``), beta rounded to float, left to right. The vector lambda's blendv on
    ``z >= beta`` takes the same branch as the scalar one but for a NaN ``z``, where both give z's NaN
    (quieted): the same bits in the vector body and the scalar tail, at every level and thread count. On
    aarch64 (``aarch64``) the same but the subtraction's NaN, FSUB's (two NaNs of other payloads refused);
    ``z - 0.5 * beta``, fused in the NEON-typed objects, is the same number (0.5 * beta exact: ``_beta``)."""
    from harness.impl.nans import arith

    b, half = np.float32(beta), np.float32(0.5)
    with np.errstate(all="ignore"):
        if aarch64:
            z = np.abs(arith("sub", x, target, None, f"{op}'s self - target", True))
        else:
            z = np.abs(np.subtract(x, target, dtype=np.float32))
        square = np.multiply(np.multiply(half, z, dtype=np.float32), z, dtype=np.float32)
        shifted = np.subtract(z, np.multiply(half, b, dtype=np.float32), dtype=np.float32)
        if op == "smooth_l1_loss":
            return np.where(z >= b, shifted, np.divide(square, b, dtype=np.float32))
        return np.where(z >= b, np.multiply(b, shifted, dtype=np.float32), square)


def _smooth_l1_like(op: str) -> Replay:
    """``smooth_l1_loss`` / ``huber_loss`` (Loss.cpp: the borrowing binary op's kernel, ``_smooth_l1_elements``,
    then for ``mean`` and ``sum`` ``mean_out`` / ``sum_out`` of its output, ``_loss_reduced``)."""
    name = "beta" if op == "smooth_l1_loss" else "delta"

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        x, target, reduction = _mse_operands(t, a, op)
        shape = tuple(np.broadcast_shapes(x.shape, target.shape))
        x, target = np.broadcast_to(x, shape), np.broadcast_to(target, shape)
        loss = _smooth_l1_elements(op, x, target, _beta(a, name, op), p.aarch64)
        return _loss_reduced(loss, reduction, a, p, op)

    return run


def _tail_masks(n: int, run: int, threads: int, vector: bool, block: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``n`` elements (TensorIterator's flat order, inner calls of ``run`` elements) cpu_kernel_vec's
    scalar lambda takes: every element of the basic loop (``vector`` False), else each inner call's elements
    past its last whole block of two 8-float vectors (the AVX2 object's, which the AVX-512 level runs too,
    and the default object's generic 8 lanes), the inner calls cut further by ``at::parallel_for``'s chunks
    (the grain, 32768, and ``divup(n, threads)`` per thread); and which of those fall in the whole blocks
    of 4 at the start of each tail (each basic loop's call), which GCC vectorizes (SSE) in every object:
    measured on a Zen 5, a tail of 16 + k elements at default, avx2 and avx512, k = 1 to 15, and
    transposed operands. ``block``: the two vectors' floats (16 on x86; on aarch64 twice the profile's lanes)."""
    from harness.impl.scatter import GRAIN_SIZE

    idx = np.arange(n, dtype=np.int64)
    lo, hi = np.zeros(n, np.int64), np.full(n, n, np.int64)
    if n >= GRAIN_SIZE and threads > 1:
        num = min(threads, -(-n // GRAIN_SIZE))
        chunk = -(-n // num)
        lo, hi = idx // chunk * chunk, np.minimum(idx // chunk * chunk + chunk, n)
    begin = np.maximum(lo, idx // run * run)
    end = np.minimum(hi, (idx // run + 1) * run)
    start = begin + (end - begin) // block * block if vector else begin
    return idx >= start, (idx >= start) & (idx < start + (end - start) // 4 * 4)


def _smooth_l1_backward_like(op: str) -> Replay:
    """``smooth_l1_loss_backward`` / ``huber_loss_backward`` (Loss.cpp ``*_backward_out``: a TensorIterator
    over a C-contiguous ``zeros_like(self)``, self, target and grad_output; PointwiseOpsKernel.cpp's
    smooth_l1_backward_cpu_kernel / huber_backward_cpu_kernel, float32). ``x = self - target``; the vector
    lambda: ``norm * out * grad`` left to right, ``out`` = ``|x| >= beta ? (x > 0 ? 1 : -1) : x / beta``
    (huber: ``? ±1 * delta : x``), beta and norm (1 / numel for mean, else 1) rounded to float; the scalar
    lambda compares ``x`` with the double beta and takes ``-norm * grad``, ``norm * grad`` or
    ``norm * x * grad / beta`` with the division in double (huber: ``(∓norm * grad) * delta`` in double,
    else ``norm * x * grad``); in the tail's SSE blocks (``_tail_masks``) ``norm * grad`` is GCC's
    ``-(-norm * grad)``, which flips a NaN grad's sign. Which elements the scalar lambda takes moves the
    bits with the thread count and the operands' layout. aarch64: blocks of two of the profile's vectors, and
    GCC's code there keeps ``norm * grad`` as it is; an invalid product (0 * inf) is aarch64's default NaN
    +qNaN 0x7fc00000, and NaNs in both self - target and grad_output anywhere are refused (FMUL prefers a
    signalling grad's NaN)."""
    name = "beta" if op == "smooth_l1_loss_backward" else "delta"

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.strides import c_strides
        from harness.trace.loops import element_wise_loop

        x, target, reduction = _mse_operands(t, a, op)
        g = impl_nn.float32_operand(t["grad_output"], op)
        beta = _beta(a, name, op)
        if beta <= 0:
            raise ParityError(f"{op} with {name} {beta!r} (l1_loss_backward's path) is not modelled")
        shape = tuple(np.broadcast_shapes(x.shape, target.shape, g.shape))
        if shape != x.shape:
            raise ParityError(f"{op}: self {x.shape} broadcast to {shape} (TensorIterator refuses it) is not modelled")
        names = ("self", "target", "grad_output")
        inputs = []
        for key, value in zip(names, (x, target, g), strict=True):
            stride = a.get(f"{key}.stride")
            inputs.append((value.shape, c_strides(value.shape) if stride is None else stride))
        loop = element_wise_loop(shape, inputs, c_strides(shape))
        ordered = [np.ascontiguousarray(np.transpose(np.broadcast_to(v, shape), loop.order)).reshape(-1)
                   for v in (x, target, g)]  # fmt: skip
        xs, ts, gs = ordered
        tail, sse = _tail_masks(xs.size, loop.run, p.threads, loop.vector, 2 * p.lanes if p.aarch64 else 16)
        if p.aarch64:
            sse = np.zeros_like(sse)
        norm = np.float32(1.0 / x.size if reduction == "mean" else 1.0)
        b, one = np.float32(beta), np.float32(1)
        with np.errstate(all="ignore"):
            d = np.subtract(xs, ts, dtype=np.float32)
            sign = np.where(d > 0, one, -one)
            big = np.abs(d) >= b
            if op == "smooth_l1_loss_backward":
                out = np.where(big, sign, np.divide(d, b, dtype=np.float32))
            else:
                out = np.where(big, np.multiply(sign, b, dtype=np.float32), d)
            vec = np.multiply(np.multiply(norm, out, dtype=np.float32), gs, dtype=np.float32)
            dd = d.astype(np.float64)
            low, high = dd <= -beta, dd >= beta
            ng = np.multiply(-norm, gs, dtype=np.float32)
            pg = np.multiply(norm, gs, dtype=np.float32)
            mid = np.multiply(np.multiply(norm, d, dtype=np.float32), gs, dtype=np.float32)
            if op == "smooth_l1_loss_backward":
                mid = (mid.astype(np.float64) / beta).astype(np.float32)
            else:
                ng = (ng.astype(np.float64) * beta).astype(np.float32)
                pg = (pg.astype(np.float64) * beta).astype(np.float32)
            # GCC's SSE blocks of the tail take norm * grad as -(-norm * grad): a NaN grad's sign flipped
            flip = sse & high & ~low & np.isnan(pg)
            pg = np.where(flip, np.negative(pg), pg)
            scalar = np.where(low, ng, np.where(high, pg, mid))
        if p.aarch64 and (np.isnan(d) & np.isnan(gs)).any():
            raise ParityError(f"{op}: NaNs in both self - target and grad_output: aarch64's NaN order is not measured")
        if p.aarch64:  # an invalid product gives aarch64's default NaN
            valid = ~np.isnan(d) & ~np.isnan(gs)
            vec, scalar = default_nans(vec, valid, True), default_nans(scalar, valid, True)
        if (tail & np.isnan(d) & np.isnan(gs)).any():  # measured: grad's NaN in one of 4 such draws
            raise ParityError(
                f"{op}: NaNs in both self - target and grad_output in the scalar tail: which one GCC's code "
                "keeps is not modelled"
            )
        result = np.where(tail, scalar, vec).reshape(tuple(shape[i] for i in loop.order))
        return {"out": np.ascontiguousarray(np.transpose(result, np.argsort(loop.order)))}

    return run


def _ctc_lengths(t: Arrays, a: Args, name: str) -> list[int]:
    """A CTC length list: the int[] overload's values, or the .Tensor overload's captured tensor."""
    found = t[name] if name in t else a.get(name)
    if found is None:
        raise ParityError(f"_ctc_loss: its {name} were not captured")
    return [int(n) for n in np.asarray(found).reshape(-1)]


def _ctc_loss(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_ctc_loss`` (LossCTC.cpp ``ctc_loss_cpu_template``; harness/impl/ctc.py): the negative
    log-likelihood (out0). Its log_alpha (out1) is scratch, neither fingerprinted nor captured in a
    trace (``ctc_loss`` gives it, within the lengths)."""
    from harness.impl.ctc import ctc_loss

    il, tl = _ctc_lengths(t, a, "input_lengths"), _ctc_lengths(t, a, "target_lengths")
    nll, _ = ctc_loss(t["log_probs"], t["targets"], il, tl, int(a.get("blank", 0)), p)
    return {"out0": nll}


def _ctc_loss_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_ctc_loss_backward`` (LossCTC.cpp ``ctc_loss_backward_cpu_template``): the gradient by
    log_probs. Its log_alpha (scratch, not captured) is the forward's, recomputed from the same
    operands."""
    from harness.impl.ctc import ctc_loss_backward

    il, tl = _ctc_lengths(t, a, "input_lengths"), _ctc_lengths(t, a, "target_lengths")
    out = ctc_loss_backward(
        t["grad"], t["log_probs"], t["targets"], il, tl, t["neg_log_likelihood"], int(a.get("blank", 0)),
        bool(a.get("zero_infinity", False)), p,
    )  # fmt: skip
    return {"out": out}


def _bernoulli(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """bernoulli_(p) with a number p into a tensor (0 and 1 of its dtype): serial draws
    (``templates::cpu::bernoulli_kernel``, ``cpu_serial_kernel`` over
    ``TensorIterator::borrowing_nullary_op(self)``), so in self's iteration order (harness.trace.loops:
    memory order for a dense self, its dims sorted by stride for a view)."""
    from harness.impl.rng import bernoulli_mask
    from harness.trace.loops import element_wise_loop

    if "generator_state" not in t:
        raise ParityError("bernoulli_ needs its generator's state captured")
    prob = a.get("p", 0.5)  # the schema's default, left out of a trace's arguments
    if "p" in t or not isinstance(prob, (int, float)):
        raise ParityError("the impl reproduces bernoulli_ with a number p only")
    shape = a.get("self.shape")
    if shape is None:
        raise ParityError("bernoulli_: its tensor's shape was not captured")
    shape, stride = tuple(shape), a.get("self.stride")
    order = element_wise_loop(shape, [], stride).order if stride is not None else tuple(range(len(shape)))
    draws = bernoulli_mask(generator_from_state(t["generator_state"]), tuple(shape[d] for d in order), float(prob))
    try:  # 0 or 1 cast to self's dtype (bool too); a trace recorded before dtypes were kept: float32
        dtype = np.dtype(a.get("self.dtype") or "float32")
    except TypeError as err:
        raise ParityError(f"bernoulli_ into a {a.get('self.dtype')} tensor is not modelled") from err
    return {"out": np.ascontiguousarray(np.transpose(draws, np.argsort(order))).astype(dtype)}


def _bernoulli_p(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``bernoulli.p(self, p)`` (SpeechT5's functional draw): ``bernoulli_(p)`` into
    ``empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT)``, a contiguous tensor of self's shape and dtype.
    ``bernoulli(self)``, self the probabilities, is refused."""
    if "p" not in a:
        raise ParityError("the impl reproduces bernoulli with a number p only, not a tensor of probabilities")
    return _bernoulli(t, {k: v for k, v in a.items() if k != "self.stride"}, p)


def _native_dropout(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import native_dropout

    if "generator_state" not in t:
        raise ParityError("native_dropout needs its generator's state captured")
    if a.get("train") is False:
        raise ParityError("the impl reproduces native_dropout in training only")
    out, mask = native_dropout(t["input"], float(a["p"]), generator_from_state(t["generator_state"]))
    return {"out0": out, "out1": mask}


def _integral(name: str, floating: Replay) -> Replay:
    """``sum`` and ``cumsum`` (``name``) where an integer or bool tensor or an integer dtype is involved; a
    float tensor summed as float through ``floating``, the replay of ATen's float kernels. ATen first casts
    the tensor to the result's dtype (``self.to(dtype)``: a float to an integer truncated toward zero):

    - into an integer dtype (int64 by default): exact sums, wrapping as the CPU's adds (integer addition
      is associative, so ATen's order and threads do not reach the bits);
    - an integer or bool tensor into a float dtype (a mask's running count, ``cumsum(1, dtype=float32)``):
      cumsum accumulates in double (``acc_type``), each running sum rounded to the dtype; sum in the
      float dtype's own cascade, exact where the magnitudes' sum is below 2**24 (float32) or 2**53, refused
      beyond."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        x, want = t.get("self"), a.get("dtype")
        if x is None or (x.dtype.kind == "f" and want in (None, "torch.float32")):
            return floating(t, a, p)
        try:
            dtype = np.dtype(np.int64) if want is None else np.dtype(str(want).removeprefix("torch."))
        except TypeError:
            raise ParityError(
                f"the impl reproduces {name} into integer, float32 and float64 only, not {want}"
            ) from None
        if x.dtype.kind not in "biuf" or dtype.kind not in "iuf" or (x.dtype.kind == "f" and dtype.kind == "f"):
            raise ParityError(f"the impl reproduces {name} of {x.dtype} into {dtype} only as a float32 or integer sum")
        if x.dtype.kind == "f":  # a float tensor into an integer dtype: C's truncating cast first
            if not np.isfinite(x).all() or np.abs(x).max(initial=0) >= 2.0 ** (8 * dtype.itemsize - 1):
                raise ParityError(f"{name} of {x.dtype} into {dtype}: a value out of the integer's range (UB in C)")
            x = np.trunc(x).astype(dtype)
        axis = (int(a["dim"]) % x.ndim if x.ndim else None) if name == "cumsum" else None
        dims = _reduced_dims(a, x.ndim) if name == "sum" else ()
        if dtype.kind == "f":
            if name == "cumsum":
                ones = x.astype(dtype).astype(np.float64)
                return {"out": np.cumsum(ones, axis=axis).astype(dtype).reshape(x.shape)}
            if np.abs(x.astype(np.float64)).sum() > 2.0 ** (np.finfo(dtype).nmant + 1):
                raise ParityError(f"sum of {x.dtype} into {dtype}: partial sums past the float's integers not modelled")
            out = np.asarray(np.sum(x.astype(np.int64), axis=dims)).astype(dtype)
            return {"out": _kept_dims(out, a, x.shape, dims)}
        with np.errstate(over="ignore"):
            if name == "cumsum":
                return {"out": np.cumsum(x.astype(dtype), axis=axis, dtype=dtype).reshape(x.shape)}
            out = np.asarray(np.sum(x.astype(dtype), axis=dims, dtype=dtype))
        return {"out": _kept_dims(out, a, x.shape, dims)}

    return run


# ATen ops (overload packets) whose floating outputs no platform knob changes, so that neither ``parity diff``
# nor ``parity audit`` needs a replay of them: their inputs' bits moved, selected, filled or padded (views,
# copies, casts to float64, concatenations, indexing, padding by a constant, random draws' integer and bool
# companions), or one operation per element that every build computes alike. Measured on a Zen 5 at default,
# avx2 and avx512 on 1 and 4 threads over 7 to 70,001 elements with NaN of both signs and a payload,
# infinities, signed zeros and subnormals, the same bits everywhere: relu, neg, abs, floor, ceil, trunc, round,
# sgn, sign, reciprocal, clamp / clamp_min / clamp_max by numbers, hardtanh, threshold_backward, masked_fill,
# nan_to_num (of float32 and float64; of float16 and bfloat16 only sign, sgn, nan_to_num and masked_fill:
# ``_REDUCED_VIA_FLOAT``), casts from float16 and between float32 and float64. Not here, for they differ (the
# same measurement): a cast to bfloat16, or to float16 from float32 or float64 (a NaN's bits by level and path:
# F16C's payload or c10's 0x7E00, 0xFFFF or 0x7FC0: ``_to_copy`` and ``copy_`` replayed), clamp and
# minimum / maximum by tensors, remainder, fmod, max / min / aminmax reductions (NaN), elu, selu, hardswish,
# hardsigmoid, mish, atan2, lerp, addcmul (the AVX2 object's contractions), linspace (default), arange and
# mse_loss's mean (4 threads), std, cdist, ctc_loss (its ``log_alpha`` beyond the lengths only: scratch, never
# written). Each of those has a replay (REPLAYS) and a kernel-index row that gives its measurement; a bfloat16
# operand is refused but by BFLOAT16_REPLAYS.
BITS_KEPT = frozenset((
    "_conj", "_reshape_alias", "_to_copy", "_unsafe_view", "alias", "as_strided", "as_strided_", "cat", "clone",
    "constant_pad_nd", "copy_", "detach", "diagonal_copy", "empty", "empty_like", "empty_strided", "expand", "eye",
    "fill_", "flip", "full", "full_like", "gather", "index", "index_select", "lift_fresh", "masked_select",
    "new_empty", "new_empty_strided", "new_full", "new_ones", "new_zeros", "ones", "ones_like", "permute",
    "pixel_shuffle", "pixel_unshuffle", "reflection_pad1d", "reflection_pad2d", "repeat", "replication_pad1d",
    "replication_pad2d", "roll", "scalar_tensor", "select", "select_backward", "slice", "slice_backward", "split",
    "split_with_sizes", "squeeze", "stack", "t", "t_", "transpose", "transpose_", "tril", "triu", "unbind",
    "unfold", "unsafe_split", "unsqueeze", "unsqueeze_", "view", "view_as_complex", "view_as_real", "zero_",
    "zeros", "zeros_like", "relu", "relu_", "neg", "neg_", "abs", "abs_", "floor", "ceil", "trunc", "round",
    "sgn", "sign", "reciprocal", "hardtanh", "hardtanh_", "hardtanh_backward", "threshold_backward",
    "masked_fill", "masked_fill_", "nan_to_num", "nan_to_num_", "_local_scalar_dense",
))  # fmt: skip
# clamp, clamp_min and clamp_max keep their bits only by numbers (their .Tensor overloads differ)
_BY_NUMBERS = frozenset(("clamp", "clamp_", "clamp_min", "clamp_min_", "clamp_max", "clamp_max_"))
_FLOATING = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
_CASTS = frozenset(("_to_copy", "copy_"))
# BITS_KEPT's element-wise ops that Vectorized<Half> / Vectorized<BFloat16> compute through float: a float16 or
# bfloat16 NaN comes back by the level's conversion (F16C's payload or c10's 0x7E00; 0xFFFF or 0x7FC0), so their
# reduced-float outputs are not knob-free (measured on a Zen 5, 1,000 elements of NaN payloads: other bits at
# default than at avx2 and avx512 for each of these; sign, sgn, nan_to_num and masked_fill the same)
_REDUCED_VIA_FLOAT = frozenset((
    "relu", "relu_", "neg", "neg_", "abs", "abs_", "floor", "ceil", "trunc", "round", "reciprocal", "hardtanh",
    "hardtanh_", "hardtanh_backward", "threshold_backward", *_BY_NUMBERS,
))  # fmt: skip


def knob_free(op: str, inputs: Sequence[str], outputs: Sequence[str]) -> bool:
    """Whether no platform knob changes the bits of ``op`` (ATen's name with its overload) whose inputs and
    outputs have the dtypes given: an op without a floating output, one of ``BITS_KEPT`` (a cast to
    bfloat16 from another dtype, a cast to float16 from float32 or float64, and a float16 or bfloat16 output of
    ``_REDUCED_VIA_FLOAT`` excepted), or clamp by numbers (but of a reduced float)."""
    if not any(d in _FLOATING for d in outputs):
        return True
    name = packet(op)
    if name in _REDUCED_VIA_FLOAT and any(d in ("float16", "bfloat16") for d in outputs):
        return False
    if name in _BY_NUMBERS:
        return not op.endswith(".Tensor")
    if name not in BITS_KEPT:
        return False
    if "bfloat16" in outputs and any(d != "bfloat16" for d in inputs):
        return False
    return not (name in _CASTS and "float16" in outputs and any(d in ("float32", "float64") for d in inputs))


# the torch.nn layers traces reach (harness/trace/impl_nn.py), torch.optim's foreach and fused ops
# (harness/trace/impl_optim.py), and the random ops of dropout
KERNEL_OPS.update(impl_nn.KERNEL_OPS)
KERNEL_OPS.update(impl_optim.KERNEL_OPS)
REPLAYS.update(impl_nn.REPLAYS)
REPLAYS.update(impl_optim.REPLAYS)
REPLAYS.update({"bernoulli_": _bernoulli, "bernoulli": _bernoulli_p, "native_dropout": _native_dropout})
REPLAYS.update({"embedding": _embedding, "nll_loss_forward": _nll_loss_forward})
REPLAYS.update({"nll_loss_backward": _nll_loss_backward})
REPLAYS.update({"nll_loss2d_forward": _nll_loss2d_forward, "nll_loss2d_backward": _nll_loss2d_backward})
REPLAYS.update({"_euclidean_dist": _euclidean_dist, "_cdist_forward": _cdist_forward})
REPLAYS.update({"linalg_solve_triangular": _linalg_solve_triangular})
REPLAYS.update({"mse_loss": _mse_loss, "mse_loss_backward": _mse_loss_backward})
REPLAYS.update(
    {"binary_cross_entropy": _binary_cross_entropy, "binary_cross_entropy_backward": _binary_cross_entropy_backward}
)
REPLAYS.update({op: _smooth_l1_like(op) for op in ("smooth_l1_loss", "huber_loss")})
REPLAYS.update(
    {f"{op}_backward": _smooth_l1_backward_like(f"{op}_backward") for op in ("smooth_l1_loss", "huber_loss")}
)
REPLAYS.update({"_ctc_loss": _ctc_loss, "_ctc_loss_backward": _ctc_loss_backward})
# maximum of any layout (the optimizers' one flat run included)
REPLAYS["maximum"], KERNEL_OPS["maximum"] = _min_max("maximum"), ("minimum", ("capability", "threads"))
# lerp, addcmul and addcdiv of any layout (the optimizers' in-place ones over one run included)
REPLAYS.update(
    {f"{op}{tail}": _pointwise(f"{op}{tail}") for op in ("lerp", "addcmul", "addcdiv") for tail in ("", "_")}
)
KERNEL_OPS.update({op: ("lerp", ("capability", "threads")) for op in ("lerp", "addcmul", "addcdiv")})
REPLAYS.update({f"_fft_{kind}": _fft(kind) for kind in ("c2c", "r2c", "c2r")})
REPLAYS.update({name: _integral(name, REPLAYS[name]) for name in ("sum", "cumsum")})


def _zero_dim_as_one(run: Replay) -> Replay:
    """A reduction's replay that also takes a zero-dim self (``x.sum(0)`` of a 0-d tensor, which ATen
    reduces as one element over dim 0 or -1): run over it as a (1,) tensor, its outputs zero-dim again."""

    def wrapped(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        x = t.get("self")
        if x is None or x.ndim:
            return run(t, a, p)
        one = {**a, "self.shape": [1], "self.stride": [1], "keepdim": False}
        if a.get("dim") not in (None, []):
            one["dim"] = [0]
        out = run({**t, "self": x.reshape(1)}, one, p)
        return {name: np.asarray(v).reshape(()) for name, v in out.items()}

    return wrapped


REPLAYS.update(
    {n: _zero_dim_as_one(REPLAYS[n]) for n in ("sum", "mean", "var", "logsumexp", "norm", "linalg_vector_norm")}
)


def refusal(op: str) -> str | None:
    """The line ``replay`` refuses ``op`` with whatever its operands (an op with no replay); None where
    the impl has a replay for it."""
    if packet(op) in REPLAYS:
        return None
    return f"the reference implementation does not reproduce {op}"


# tensor dtypes no replay reproduces: a capture holds a bfloat16 tensor's bits as uint16 (NumPy has no
# bfloat16), which a replay would otherwise take for integers
UNMODELLED_DTYPES = frozenset(("bfloat16",))
# the replays that tell a bfloat16 operand by its argument's dtype and reproduce it (harness.trace.impl_nn's pow
# and casts)
BFLOAT16_REPLAYS = frozenset(("pow", "_to_copy", "copy_"))
# a complex tensor is captured as its float32 (re, im) pairs, one more dim: only these replays know it
# (the others had taken the pairs for real numbers: exp, tanh, sum, mean, embedding of complex64 other)
COMPLEX_REPLAYS = frozenset(
    ("add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "_fft_c2c", "_fft_r2c", "_fft_c2r", "polar", "copy_")
)


def _refuse_unmodelled_dtypes(op: str, args: list[dict[str, Any]]) -> None:
    """Refuse an op any of whose tensor arguments has a dtype of ``UNMODELLED_DTYPES`` (bfloat16 where the replay
    is not one of ``BFLOAT16_REPLAYS``), or is complex where the replay is not one of ``COMPLEX_REPLAYS`` (the
    dtypes as the capture recorded them; a capture recorded before dtypes were kept is not checked)."""
    for arg in args:
        dtypes = [arg.get("dtype")] if "tensor" in arg else arg.get("dtypes") or []
        found = next((d for d in dtypes if d in UNMODELLED_DTYPES), None)
        if found and not (found == "bfloat16" and packet(op) in BFLOAT16_REPLAYS):
            raise ParityError(f"the impl does not reproduce {found} arithmetic: {op}'s {arg['name']} is {found}")
        found = next((d for d in dtypes if d and d.startswith("complex")), None)
        if found and packet(op) not in COMPLEX_REPLAYS:
            raise ParityError(f"the impl reproduces {packet(op)} of real tensors only: its {arg['name']} is {found}")


def replay(op: str, inputs: Arrays, args: list[dict[str, Any]], profile: KernelProfile) -> dict[str, np.ndarray]:
    """Run a captured op through the impl under ``profile``; ParityError where it cannot."""
    run = REPLAYS.get(packet(op))
    if run is None:
        raise ParityError(refusal(op) or op)
    _refuse_unmodelled_dtypes(op, args)
    values: dict[str, Any] = {}
    for arg in args:
        if "value" in arg:
            value = arg["value"]
            complex_number = isinstance(value, dict) and list(value) == ["complex"]  # recorder._jsonable's
            values[arg["name"]] = complex(*value["complex"]) if complex_number else value
        elif "stride" in arg:
            values[f"{arg['name']}.stride"] = arg["stride"]
            values[f"{arg['name']}.shape"] = arg.get("shape")
            values[f"{arg['name']}.align"] = int(arg.get("align", 0))
            values[f"{arg['name']}.dtype"] = arg.get("dtype")
    # a tensor by its argument's name; one passed twice (maximum(a, b, out=a), addcmul_(v, g, g)) is
    # named after its last argument in ``tensor``, and captured under each argument's name
    tensors = {arg["name"]: inputs[arg["tensor"]] for arg in args if arg.get("tensor") in inputs}
    tensors.update({arg["name"]: inputs[arg["name"]] for arg in args if "tensor" in arg and arg["name"] in inputs})
    for arg in args:  # a list of tensors: name[i], name.count, and name.none (the positions holding None)
        if "tensors" in arg:
            values[f"{arg['name']}.count"] = len(arg["tensors"])
            values[f"{arg['name']}.none"] = [i for i, name in enumerate(arg["tensors"]) if name is None]
            for i, name in enumerate(arg["tensors"]):
                key = f"{arg['name']}[{i}]"
                if key in inputs or name in inputs:
                    tensors[key] = inputs[key] if key in inputs else inputs[name]
    if "generator_state" in inputs:
        tensors["generator_state"] = inputs["generator_state"]
    refuse_nans_under_qemu_x86(packet(op), profile, [np.asarray(v) for v in tensors.values()])
    try:
        return run(tensors, values, profile)
    except (TypeError, ValueError) as err:  # operands the impl's kernels do not take (dtype, shape)
        raise ParityError(f"the impl does not reproduce {op} on these operands: {err}") from err
