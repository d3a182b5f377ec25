"""torch.optim's ops as a trace records them, for ``--verify-cause``. Torch-free.

On CPU every ``_foreach_*`` op is ForeachOpsKernels.cpp's slow path: per tensor of its lists, the
per-tensor op with the same scalars. The replays here run those per-tensor kernels
(harness/impl/optim.py ``elementwise``, ``reduce.vector_norm``) and the fused optimizer kernels
(``_fused_adam_``, ``_fused_adamw_``, ``_fused_sgd_``) on the captured tensors. harness/trace/impl_ops.py
merges ``KERNEL_OPS`` and ``REPLAYS`` into its own tables.

A list argument ``self`` arrives as ``self[0]``, ``self[1]``, ... (``self.count`` of them); an op
that returns a list gives ``out0``, ``out1``, ...; an in-place op that returns nothing gives what it
wrote under its inputs' names (``self[0]``, ``exp_avgs[1]``, ...; the fused kernels' ``grads``, which
their schemas mark written, unchanged without a grad_scale), which ``--verify-cause`` checks against
the digests of the later ops that read them. Captured list elements are taken as
contiguous (a trace keeps no strides for them): the optimizers' parameters and state are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile

Arrays = Mapping[str, np.ndarray]
Args = Mapping[str, Any]
Replay = Callable[[Arrays, Args, KernelProfile], dict[str, np.ndarray]]

_ELEMENTWISE = ("capability",)
_SQRT = ("mkl_code_path", "cpu_model")

# ATen op (overload packet) -> (kernel index op, knobs that change its bits)
KERNEL_OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "_foreach_lerp_": ("foreach", _ELEMENTWISE),
    "_foreach_addcmul_": ("foreach", _ELEMENTWISE),
    "_foreach_addcdiv_": ("foreach", ()),
    "_foreach_add": ("foreach", _ELEMENTWISE),
    "_foreach_add_": ("foreach", _ELEMENTWISE),
    "_foreach_mul": ("foreach", ()),
    "_foreach_mul_": ("foreach", ()),
    "_foreach_div_": ("foreach", ()),
    "_foreach_neg": ("foreach", ()),
    "_foreach_maximum_": ("foreach", _ELEMENTWISE),
    "_foreach_sqrt": ("foreach", _SQRT),
    "_foreach_norm": ("vector_norm", ("capability",)),
    "maximum": ("foreach", ()),
    "_fused_adam_": ("fused_optim", ("capability", "threads")),
    "_fused_adamw_": ("fused_optim", ("capability", "threads")),
    "_fused_sgd_": ("fused_optim", ("capability", "threads")),
}


def tensor_list(t: Arrays, a: Args, name: str, required: bool = True) -> list[np.ndarray]:
    """The captured float32 tensors of list argument ``name`` (its elements ``name[i]``)."""
    count = a.get(f"{name}.count")
    if count is None:
        if required:
            raise ParityError(f"the tensor list {name} was not captured")
        return []
    out = []
    for i in range(int(count)):
        x = t.get(f"{name}[{i}]")
        if x is None:
            raise ParityError(f"{name}[{i}] was not captured (unwritten memory or not a tensor)")
        if x.dtype != np.float32:
            raise ParityError(
                f"the impl reproduces the optimizers' ops on float32 tensors only, not {name}[{i}] {x.dtype}"
            )
        out.append(x)
    return out


def _scalars(a: Args, n: int) -> list[float]:
    """The op's number per tensor: ``scalars`` (a ScalarList) or ``scalar``/``value``/``weight``."""
    if "scalars" in a:
        values = [float(v) for v in a["scalars"]]
        if len(values) != n:
            raise ParityError(f"{len(values)} scalars for {n} tensors")
        return values
    for key in ("scalar", "value", "weight"):
        if key in a and not isinstance(a[key], (bool, list)) and a[key] is not None:
            return [float(a[key])] * n
    raise ParityError("the impl reproduces the foreach ops with Python numbers (not tensor scalars) only")


def _written(name: str, arrays: list[np.ndarray]) -> dict[str, np.ndarray]:
    return {f"{name}[{i}]": x for i, x in enumerate(arrays)}


def _returned(arrays: list[np.ndarray]) -> dict[str, np.ndarray]:
    return {f"out{i}": x for i, x in enumerate(arrays)}


def _shaped(op: str, x: np.ndarray, *others: np.ndarray) -> None:
    for y in others:
        if y.shape != x.shape:
            raise ParityError(f"{op}: the impl reproduces same-shaped operands only, not {y.shape} with {x.shape}")


def _lerp(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.optim import elementwise

    selfs, ends = tensor_list(t, a, "self"), tensor_list(t, a, "tensors1")
    if "weight" not in a or isinstance(a["weight"], list):
        raise ParityError("the impl reproduces _foreach_lerp_ with a number weight (.Scalar) only")
    for x, y in zip(selfs, ends, strict=True):
        _shaped("_foreach_lerp_", x, y)
    return _written(
        "self", [elementwise("lerp", x, y, None, float(a["weight"]), p) for x, y in zip(selfs, ends, strict=True)]
    )


def _pointwise(kind: str) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.optim import elementwise

        selfs, ones, twos = tensor_list(t, a, "self"), tensor_list(t, a, "tensor1"), tensor_list(t, a, "tensor2")
        values = _scalars(a, len(selfs))
        out = []
        for x, y, z, w in zip(selfs, ones, twos, values, strict=True):
            _shaped(f"_foreach_{kind}_", x, y, z)
            out.append(elementwise(kind, x, y, z, w, p))
        return _written("self", out)

    return run


def _other_list(t: Arrays, a: Args, n: int) -> list[np.ndarray | float]:
    """``other`` of a binary foreach op: a list of tensors, one tensor for all, or a number (a scalar
    or ScalarList)."""
    if "other.count" in a:
        return list(tensor_list(t, a, "other"))
    if "other" in t:
        return [t["other"]] * n
    return list(_scalars(a, n))


def _binary(kind: str, in_place: bool) -> Replay:
    """_foreach_add(_), _foreach_mul(_), _foreach_div_: add with alpha is add_kernel's multiply-add;
    a number, or a 0-d tensor, is one IEEE rounding per element; two NaNs of other payloads meeting
    there are refused (harness.impl.nans.arith: which one ATen keeps is not modelled, NumPy's own
    choice is its CPU dispatch's)."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.nans import arith
        from harness.impl.optim import elementwise

        selfs = tensor_list(t, a, "self")
        alpha = float(a.get("alpha", 1.0))
        out = []
        for x, y in zip(selfs, _other_list(t, a, len(selfs)), strict=True):
            if isinstance(y, np.ndarray) and y.shape == x.shape:
                if kind == "add":
                    out.append(elementwise("add", x, y, None, alpha, p))
                    continue
                out.append(arith(kind, x, y, None, f"_foreach_{kind}"))
                continue
            y32 = np.float32(np.asarray(y).reshape(-1)[0]) if isinstance(y, np.ndarray) else np.float32(y)
            if isinstance(y, np.ndarray) and y.size != 1:
                raise ParityError(f"_foreach_{kind}: the impl reproduces same-shaped or one-element operands only")
            if kind == "add" and alpha != 1.0:
                raise ParityError("_foreach_add with a number and alpha != 1 is not reproduced")
            out.append(arith(kind, x, y32, None, f"_foreach_{kind}"))
        out = [np.asarray(v, dtype=np.float32) for v in out]
        return _written("self", out) if in_place else _returned(out)

    return run


def _maximum(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.optim import elementwise

    selfs, others = tensor_list(t, a, "self"), tensor_list(t, a, "other")
    for x, y in zip(selfs, others, strict=True):
        _shaped("_foreach_maximum_", x, y)
    return _written("self", [elementwise("maximum", x, y, None, 0.0, p) for x, y in zip(selfs, others, strict=True)])


def _sqrt(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.optim import elementwise

    return _returned([elementwise("sqrt", x, None, None, 0.0, p) for x in tensor_list(t, a, "self")])


def _sqrt_tensor(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``sqrt`` of a float32 tensor of any layout (a transposed or sliced view too): element-wise whatever ATen's
    loop does with the layout, so the values in logical order go through ``elementwise``'s sqrt. On x86 MKL VML's
    vsSqrt refines each element's own RSQRTPS estimate, over each contiguous run or over the buffer a strided run
    is copied into (UnaryOpsKernel.cpp's IMPLEMENT_ITERATOR_LAMBDA), its rare inputs (0, subnormals, inf, NaN,
    negatives) IEEE's; on aarch64 (no MKL) FSQRT in the vector body and the tail alike: no thread count or run
    split moves a bit (measured: transposed, column-sliced and every-other-row views at default, avx2 and avx512
    on 1, 2 and 4 threads on a Zen 5, on MKL's Intel AVX2 and SSE4.2 paths under QEMU's Haswell-v4, and on
    emulated Neoverse N1, V2 and V1). Float64 likewise element by element: MKL VML's vdSqrt on MKL's generic path
    (``sqrt_f64``; its Intel paths refused), IEEE on aarch64."""
    from harness.impl.optim import elementwise, sqrt_f64

    x = t.get("self")
    if x is not None and x.dtype == np.float64:
        return {"out": sqrt_f64(x, p)}
    if x is None or x.dtype != np.float32:
        raise ParityError("sqrt: the impl reproduces it on captured float32 and float64 tensors only")
    return {"out": elementwise("sqrt", np.ascontiguousarray(x), None, None, 0.0, p)}


def _neg(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    return _returned([np.negative(x) for x in tensor_list(t, a, "self")])


def _norm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """_foreach_norm (ord 2): at::linalg_vector_norm of each tensor, over all its elements."""
    from harness.impl.reduce import vector_norm

    if float(a.get("ord", 2)) != 2.0 or a.get("dtype") not in (None, "torch.float32"):
        raise ParityError("the impl reproduces _foreach_norm of ord 2 in float32 only")
    return _returned(
        [np.asarray(vector_norm(x, None, p), dtype=np.float32).reshape(()) for x in tensor_list(t, a, "self")]
    )


def _number(a: Args, name: str) -> float:
    value = a.get(name)
    if value is None or isinstance(value, (bool, list)):
        raise ParityError(
            f"the impl reproduces the fused optimizers with a number {name} only (a tensor lr: run it with a number)"
        )
    return float(value)


def _fused_adam(decoupled: bool) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.optim import AdamConfig, adam_step

        if "grad_scale" in t or "found_inf" in t:
            raise ParityError("the impl reproduces the fused Adam kernels without grad_scale/found_inf only")
        amsgrad, maximize = bool(a.get("amsgrad")), bool(a.get("maximize"))
        params = [x.copy() for x in tensor_list(t, a, "self")]
        grads = tensor_list(t, a, "grads")
        exp_avgs = [x.copy() for x in tensor_list(t, a, "exp_avgs")]
        exp_avg_sqs = [x.copy() for x in tensor_list(t, a, "exp_avg_sqs")]
        maxes = [x.copy() for x in tensor_list(t, a, "max_exp_avg_sqs")] if amsgrad else [None] * len(params)
        steps = tensor_list(t, a, "state_steps")
        cfg = AdamConfig(
            _number(a, "lr"), (_number(a, "beta1"), _number(a, "beta2")), _number(a, "eps"),
            _number(a, "weight_decay"), decoupled, amsgrad, maximize, "fused",
        )  # fmt: skip
        for q, g, m, v, mx, s in zip(params, grads, exp_avgs, exp_avg_sqs, maxes, steps, strict=True):
            adam_step(q, g, m, v, float(np.asarray(s).reshape(-1)[0]), cfg, p, max_exp_avg_sq=mx)
        out = {
            **_written("self", params), **_written("grads", grads), **_written("exp_avgs", exp_avgs),
            **_written("exp_avg_sqs", exp_avg_sqs),
        }  # fmt: skip
        if amsgrad:
            out.update(_written("max_exp_avg_sqs", [m for m in maxes if m is not None]))
        return out

    return run


def _fused_sgd(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.optim import SgdConfig, sgd_step

    if "grad_scale" in t or "found_inf" in t:
        raise ParityError("the impl reproduces _fused_sgd_ without grad_scale/found_inf only")
    momentum, first = _number(a, "momentum"), bool(a.get("is_first_step"))
    params = [x.copy() for x in tensor_list(t, a, "self")]
    grads = tensor_list(t, a, "grads")
    if momentum == 0:
        bufs: list[np.ndarray | None] = [None] * len(params)
    elif first:  # torch's buffers are fresh empty_like memory, filled by the kernel
        bufs = [np.zeros_like(q) for q in params]
    else:
        bufs = [x.copy() for x in tensor_list(t, a, "momentum_buffer_list")]
    cfg = SgdConfig(
        _number(a, "lr"), momentum, _number(a, "dampening"), _number(a, "weight_decay"),
        bool(a.get("nesterov")), bool(a.get("maximize")), "fused",
    )  # fmt: skip
    for q, g, b in zip(params, grads, bufs, strict=True):
        sgd_step(q, g, b, first, cfg, p)
    out = {**_written("self", params), **_written("grads", grads)}
    if momentum != 0:
        out.update(_written("momentum_buffer_list", [b for b in bufs if b is not None]))
    return out


def _one_run(a: Args, names: tuple[str, ...], shape: tuple[int, ...]) -> None:
    """Refuse operands ATen's loop would not take as one flat run (the impl's vector/tail split)."""
    from harness.trace.impl_nn import inner_run

    if inner_run(a, names, shape) != int(np.prod(shape, dtype=np.int64)):
        raise ParityError(f"the impl reproduces {', '.join(names)} as one contiguous run only")


def _single(kind: str, operands: tuple[str, ...], number: str) -> Replay:
    """The for-loop path's per-tensor ops (lerp_, addcmul_, addcdiv_, maximum) on same-shaped
    contiguous float32 tensors."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.optim import elementwise

        arrays = [t.get(name) for name in operands]
        if any(x is None or x.dtype != np.float32 for x in arrays):
            raise ParityError(f"{kind}: the impl reproduces it on captured float32 tensors only")
        x = arrays[0]
        if kind == "maximum" and arrays[1].ndim == 0:  # type: ignore[union-attr]
            # a zero-dim other (a floor as torch.max(w, torch.tensor(min))): ATen's loop broadcasts it into
            # every lane of the same vector body and tails, so the element-wise kernel over it spread out
            arrays[1] = np.ascontiguousarray(np.broadcast_to(arrays[1], x.shape))  # type: ignore[arg-type, union-attr]
            _one_run(a, operands[:1], x.shape)  # type: ignore[union-attr]
        else:
            _shaped(kind, x, *arrays[1:])  # type: ignore[arg-type]
            _one_run(a, operands, x.shape)  # type: ignore[union-attr]
        w = 0.0
        if number:
            value = a.get(number, 1.0)  # addcmul/addcdiv's value defaults to 1
            if value is None or isinstance(value, (bool, list)) or number in t:
                raise ParityError(f"{kind}: the impl reproduces it with a number {number} only")
            w = float(value)
        rest = [*arrays[1:], None, None][:2]
        return {"out": elementwise(kind, x, rest[0], rest[1], w, p)}  # type: ignore[arg-type]

    return run


REPLAYS: dict[str, Replay] = {
    "lerp_": _single("lerp", ("self", "end"), "weight"),
    "addcmul_": _single("addcmul", ("self", "tensor1", "tensor2"), "value"),
    "addcdiv_": _single("addcdiv", ("self", "tensor1", "tensor2"), "value"),
    "sqrt": _sqrt_tensor,
    "maximum": _single("maximum", ("self", "other"), ""),
    "_foreach_lerp_": _lerp,
    "_foreach_addcmul_": _pointwise("addcmul"),
    "_foreach_addcdiv_": _pointwise("addcdiv"),
    "_foreach_add": _binary("add", False),
    "_foreach_add_": _binary("add", True),
    "_foreach_mul": _binary("mul", False),
    "_foreach_mul_": _binary("mul", True),
    "_foreach_div_": _binary("div", True),
    "_foreach_neg": _neg,
    "_foreach_maximum_": _maximum,
    "_foreach_sqrt": _sqrt,
    "_foreach_norm": _norm,
    "_fused_adam_": _fused_adam(False),
    "_fused_adamw_": _fused_adam(True),
    "_fused_sgd_": _fused_sgd,
}
