"""The torch.nn layers of harness/impl/nn.py as ATen ops of a trace, for ``--verify-cause``. Torch-free.

harness/trace/impl_ops.py merges ``KERNEL_OPS`` and ``REPLAYS`` into its own tables; each replay
takes the captured inputs (by schema name), the non-tensor arguments (with ``<name>.stride`` and
``<name>.shape`` of each tensor) and a ``KernelProfile``, and returns the op's outputs under a
trace's names (``out``, or ``out0``, ``out1``, ... by position).
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

# ATen op (overload packet) -> (kernel index op, knobs that change its bits)
KERNEL_OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "sigmoid": ("sigmoid", ("capability",)),
    "sigmoid_": ("sigmoid", ("capability",)),
    "sigmoid_backward": ("sigmoid", ()),
    "native_batch_norm": ("batch_norm", ("capability", "threads")),
    "_native_batch_norm_legit": ("batch_norm", ("capability", "threads")),
    "_batch_norm_with_update": ("batch_norm", ("capability", "threads")),
    "native_batch_norm_backward": ("batch_norm", ("capability", "threads")),
    "batch_norm_backward": ("batch_norm", ("capability", "threads")),
}


def inner_run(a: Args, names: tuple[str, ...], shape: tuple[int, ...]) -> int:
    """The elements ATen's element-wise loop takes in one inner call over operands ``names`` of
    ``shape``: the innermost dims that every operand holds contiguously (stride 1 innermost, each
    next dim's stride the product of those inside it), coalesced as TensorIterator does. The other
    dims must run in C order (strides falling outwards), else ATen's iteration order is not the
    flat order the impl keeps; refused then."""
    dims = [d for d, size in enumerate(shape) if size > 1]
    if not dims:
        return 1
    layouts = []
    for name in names:
        stride = a.get(f"{name}.stride")
        if stride is None:  # not captured: taken as contiguous
            stride, step = [0] * len(shape), 1
            for d in reversed(range(len(shape))):
                stride[d], step = step, step * shape[d]
        if len(stride) != len(shape):
            raise ParityError(f"{name}: strides {stride} do not match the shape {list(shape)}")
        kept = [stride[d] for d in dims]
        if kept[-1] != 1:
            raise ParityError(
                f"the impl reproduces element-wise ops with a last dim of stride 1 only, not {name} {stride}"
            )
        if any(kept[i] < kept[i + 1] * shape[dims[i + 1]] for i in range(len(kept) - 1)):
            raise ParityError(f"the impl reproduces element-wise ops in C order only, not {name} of strides {stride}")
        layouts.append(kept)
    run = shape[dims[-1]]
    for i in range(len(dims) - 2, -1, -1):
        if all(k[i] == k[i + 1] * shape[dims[i + 1]] for k in layouts):
            run *= shape[dims[i]]
        else:
            break
    return run


def _sigmoid(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import sigmoid

    x = t["self"]
    return {"out": sigmoid(x, p, inner_run(a, ("self",), x.shape))}


def _sigmoid_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import sigmoid_backward

    g, y = t["grad_output"], t["output"]
    if g.shape != y.shape:
        raise ParityError(f"sigmoid_backward: the impl reproduces equal shapes only, not {g.shape} and {y.shape}")
    return {"out": sigmoid_backward(g, y, p, inner_run(a, ("grad_output", "output"), g.shape))}


def _c_strides(shape: tuple[int, ...]) -> list[int]:
    out, step = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        out[d], step = step, step * shape[d]
    return out


def _same_layout(stride: list[int], expected: list[int], shape: tuple[int, ...]) -> bool:
    return all(s == e for s, e, n in zip(stride, expected, shape, strict=True) if n > 1)


def channels_last(a: Args, name: str, shape: tuple[int, ...]) -> bool:
    """Whether ATen's batch norm kernels see tensor ``name`` as channels-last (NHWC, NDHWC) rather than
    contiguous (NCHW); refused when it is neither (ATen's TensorIterator path, not modelled)."""
    stride = a.get(f"{name}.stride")
    if stride is None or _same_layout(stride, _c_strides(shape), shape):
        return False
    if len(shape) in (4, 5):
        perm = (0, *range(2, len(shape)), 1)
        cl = _c_strides(tuple(shape[d] for d in perm))
        expected = [0] * len(shape)
        for i, d in enumerate(perm):
            expected[d] = cl[i]
        if _same_layout(stride, expected, shape):
            return True
    raise ParityError(f"the impl reproduces batch norm on contiguous or channels-last tensors, not {name} {stride}")


def _training(a: Args, op: str) -> None:
    if not a.get("training", a.get("train", True)):
        raise ParityError(f"the impl reproduces {op} in training mode only")


def _batch_norm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import batch_norm

    _training(a, "batch_norm")
    x = t["input"]
    cl = channels_last(a, "input", x.shape)
    y, mean, invstd, _, _ = batch_norm(
        x, t.get("weight"), t.get("bias"), t.get("running_mean"), t.get("running_var"),
        float(a.get("momentum", 0.1)), float(a["eps"]), p, cl,
    )  # fmt: skip
    return {"out0": y, "out1": mean, "out2": invstd}


def _batch_norm_with_update(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    out = _batch_norm(t, a, p)
    return {**out, "out3": np.empty(0, np.uint8)}  # the reserve, empty on CPU


def _batch_norm_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import batch_norm_backward

    _training(a, "batch_norm backward")
    if not a.get("update", True):
        raise ParityError("the impl reproduces batch_norm_backward in training mode only")
    x, g = t["input"], t["grad_out"]
    cl = channels_last(a, "input", x.shape)
    if channels_last(a, "grad_out", g.shape) != cl:
        raise ParityError("batch norm backward: input and grad_out in different layouts (ATen's generic path)")
    mean, invstd = t.get("save_mean"), t.get("save_invstd", t.get("save_var"))
    if mean is None or invstd is None:
        raise ParityError("batch norm backward: the saved mean and invstd were not captured")
    gx, gw, gb = batch_norm_backward(g, x, t.get("weight"), mean, invstd, p, cl)
    mask = a.get("output_mask", [True, True, True])
    return {name: v for name, v, keep in zip(("out0", "out1", "out2"), (gx, gw, gb), mask, strict=True) if keep}


REPLAYS: dict[str, Replay] = {
    "native_batch_norm": _batch_norm,
    "_native_batch_norm_legit": _batch_norm,
    "_batch_norm_with_update": _batch_norm_with_update,
    "native_batch_norm_backward": _batch_norm_backward,
    "batch_norm_backward": _batch_norm_backward,
    "sigmoid": _sigmoid,
    "sigmoid_": _sigmoid,
    "sigmoid_backward": _sigmoid_backward,
}
