"""The torch.nn layers of harness/impl/nn.py as ATen ops of a trace, for ``--verify-cause``. Torch-free.

harness/trace/impl_ops.py merges ``KERNEL_OPS`` and ``REPLAYS`` into its own tables; each replay
takes the captured inputs (by schema name), the non-tensor arguments (with ``<name>.stride`` and
``<name>.shape`` of each tensor) and a ``KernelProfile``, and returns the op's outputs under a
trace's names (``out``, or ``out0``, ``out1``, ... by position).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import pairwise
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile
from harness.impl.strides import (
    c_strides,
    channels_last_strides,
    contiguous,
    same_layout,
    strides_in_order,
    suggests_channels_last,
)
from harness.trace.loops import Loop, element_wise_loop, non_overlapping_and_dense

Arrays = Mapping[str, np.ndarray]
Args = Mapping[str, Any]
Replay = Callable[[Arrays, Args, KernelProfile], dict[str, np.ndarray]]

# ATen op (overload packet) -> (kernel index op, knobs that change its bits)
KERNEL_OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "sigmoid": ("sigmoid", ("capability",)),
    "sigmoid_": ("sigmoid", ("capability",)),
    "sigmoid_backward": ("sigmoid", ()),
    "glu": ("glu", ("capability", "threads")),
    "glu_backward": ("glu", ("capability", "threads")),
    "native_batch_norm": ("batch_norm", ("capability", "threads")),
    "_native_batch_norm_legit": ("batch_norm", ("capability", "threads")),
    "_batch_norm_with_update": ("batch_norm", ("capability", "threads")),
    "native_batch_norm_backward": ("batch_norm", ("capability", "threads")),
    "batch_norm_backward": ("batch_norm", ("capability", "threads")),
    "max_pool2d_with_indices": ("max_pool2d", ()),
    "max_pool2d_with_indices_backward": ("max_pool2d", ()),
    "_adaptive_avg_pool2d": ("adaptive_avg_pool2d", ("capability",)),
    "_adaptive_avg_pool2d_backward": ("adaptive_avg_pool2d", ("capability",)),
    "cumsum": ("cumsum", ()),
    # an exponent without a special case: SLEEF powf in the lanes, glibc double pow in each thread chunk's tail
    "pow": ("pow", ("capability", "threads")),
    "_to_copy": ("_to_copy", ("capability", "threads")),
    "copy_": ("_to_copy", ("capability", "threads")),
    "add_": ("add", ()),
    "sub": ("add", ()),
    "sub_": ("add", ()),
    "rsub": ("add", ()),
    "mul_": ("mul", ()),
    "div_": ("div", ()),
    # rounding_mode "floor": SLEEF's fmodf in the vector lanes (std::fmod at default), glibc's in each tail
    **{name: ("div", ("capability", "threads")) for name in ("floor_divide", "floor_divide_")},
    "native_dropout": ("dropout", ()),
    # NaNs only: which of two NaNs the product keeps (the AVX2 object's body with a broadcast weight)
    "_prelu_kernel": ("prelu", ("capability", "threads")),
    "_prelu_kernel_backward": ("prelu", ()),
    "_cdist_backward": ("cdist", ()),
    "mkldnn_rnn_layer": ("lstm", ("onednn_isa", "threads")),
    "native_group_norm": ("group_norm", ("capability", "threads")),  # channels-last from 1024 pixels
    "native_group_norm_backward": ("group_norm", ("capability", "threads")),
    "mkldnn_rnn_layer_backward": ("lstm", ("onednn_isa", "threads")),
    "grid_sampler_2d": ("grid_sample", ("capability",)),
    "grid_sampler_2d_backward": ("grid_sample", ("capability",)),
    "upsample_bicubic2d": ("upsample_bicubic2d", ("capability",)),
    "upsample_bicubic2d_backward": ("upsample_bicubic2d", ("capability",)),  # one build on x86, another on arm64
    # antialiased: the AVX2 object fuses the filter and each sum's scalar epilogue, the default object rounds
    "_upsample_bicubic2d_aa": ("upsample_bicubic2d", ("capability",)),
    "_upsample_bicubic2d_aa_backward": ("upsample_bicubic2d", ("capability",)),
    "_upsample_bilinear2d_aa": ("upsample_bilinear2d", ("capability",)),
    "_upsample_bilinear2d_aa_backward": ("upsample_bilinear2d", ("capability",)),
    "upsample_bilinear2d": ("upsample_bilinear2d", ("capability",)),
    "upsample_bilinear2d_backward": ("upsample_bilinear2d", ("capability",)),
    "upsample_linear1d": ("upsample_bilinear2d", ("capability",)),  # the generic kernel's row and knob
    "upsample_linear1d_backward": ("upsample_bilinear2d", ("capability",)),
    "upsample_trilinear3d": ("upsample_bilinear2d", ("capability",)),
    "upsample_trilinear3d_backward": ("upsample_bilinear2d", ("capability",)),
    **{f"avg_pool{d}d{b}": ("avg_pool2d", ()) for d in (2, 3) for b in ("", "_backward")},
    # nearest-exact's generic forward: its source index fused in the AVX2 object; the rest a gather, or
    # additions in the outputs' order
    **{f"upsample_nearest{d}d{b}": ("upsample_nearest2d", ()) for d in (1, 2, 3) for b in ("", "_backward")},
    **{f"_upsample_nearest_exact{d}d": ("upsample_nearest2d", ("capability",)) for d in (1, 2, 3)},
    **{f"_upsample_nearest_exact{d}d_backward": ("upsample_nearest2d", ()) for d in (1, 2, 3)},
    # index accumulation: each element's terms in index order (harness.impl.scatter), no knob moves them
    **{op: ("scatter_add", ()) for op in ("scatter_add", "scatter_add_")},
    # the expanded path's amax/amin of a NaN: all-ones at avx2, the NaN's own bits at default
    **{op: ("scatter_add", ("capability",)) for op in ("scatter_reduce", "scatter_reduce_")},
    "index_add": ("index_add", ()),  # alpha other than 1: the capability too (harness.trace.impl_ops.kernel_op)
    "index_add_": ("index_add", ()),
    **{op: ("index_reduce", ()) for op in ("index_reduce", "index_reduce_")},
    # copies: the last of repeats kept; at 2 or more threads past their grain, racing threads (refused)
    **{op: ("scatter", ()) for op in ("scatter", "scatter_", "index_fill", "index_fill_")},
    **{op: ("scatter", ()) for op in ("masked_scatter", "masked_scatter_", "masked_scatter_backward")},
    **{op: ("scatter", ("threads",)) for op in ("index_copy", "index_copy_", "put_", "put")},
    # at 2 or more threads from 32768 elements: racing atomic adds (refused where an element repeats)
    **{op: ("index_put", ("threads",)) for op in ("index_put", "index_put_", "_index_put_impl", "_index_put_impl_")},
    "im2col": ("im2col", ()),
    "col2im": ("im2col", ()),
    # additions onto zeros in the output's order (a plane or an image a thread): no knob moves them but, in the
    # 2-D and 3-D channels-last kernel, the NaN kept where two meet (the default object's or the AVX2 one's)
    **{f"{m}_pad1d_backward": ("padding_backward", ()) for m in ("reflection", "replication")},
    **{
        f"{m}_pad{d}d_backward": ("padding_backward", ("capability",))
        for m in ("reflection", "replication")
        for d in (2, 3)
    },
    "unfold_backward": ("padding_backward", ()),
}


def tensor_loop(a: Args, names: tuple[str, ...], shape: tuple[int, ...], like: str | None = None) -> Loop:
    """ATen's element-wise loop (harness.trace.loops) over the captured inputs ``names``, in the order the
    kernel adds them to its TensorIterator, broadcast to ``shape``: an output TensorIterator allocates, or
    where ``like`` names an input, the kernel's ``empty_like`` of it (its strides where it is dense, else
    the memory format it suggests). A number is a 0-dim tensor; a tensor whose strides were not captured
    is taken as contiguous."""
    inputs = []
    for name in names:
        captured = a.get(f"{name}.shape")
        own = tuple(shape if captured is None else captured)
        stride = a.get(f"{name}.stride")
        if stride is None and isinstance(a.get(name), (int, float, complex)):  # a number: ATen's wrapped 0-dim tensor
            own, stride = (), []
        elif stride is None:
            stride = c_strides(own)
        if len(stride) != len(own):
            raise ParityError(f"{name}: strides {stride} do not match the shape {list(own)}")
        inputs.append((own, stride))
    output = None
    if like is not None:
        own, stride = inputs[names.index(like)]
        if own != shape:
            raise ParityError(f"{like}: the impl reproduces an output laid out like an input of the op's shape only")
        if non_overlapping_and_dense(stride, own):
            output = stride
        else:
            output = channels_last_strides(own) if suggests_channels_last(own, stride) else c_strides(own)
    return element_wise_loop(shape, inputs, output)


def _c_order(loop: Loop, shape: tuple[int, ...]) -> bool:
    dims = [d for d in loop.order if shape[d] > 1]
    return dims == sorted(dims)


def inner_run(a: Args, names: tuple[str, ...], shape: tuple[int, ...]) -> int:
    """The elements ATen's element-wise loop takes in one inner call over operands ``names`` of
    ``shape`` (``tensor_loop``), for a kernel the impl runs over the operands in C order: the coalesced
    inner dim, or 1 where ATen runs its basic loop, the scalar op on every element (silu and sigmoid of a
    column of a wider tensor, every other element: default, avx2 and avx512 on an Intel Xeon, 60 random
    ones each, forward and backward; the vector body gave 110 to 597 elements other bits). Refused where
    TensorIterator walks the dims in another order (``in_loop_order`` lays the operands out in it)."""
    loop = tensor_loop(a, names, shape)
    if not loop.vector:
        return 1
    if not _c_order(loop, shape):
        strides = ", ".join(f"{n} {a.get(f'{n}.stride')}" for n in names)
        raise ParityError(
            f"the impl reproduces this element-wise op in C order only, not in TensorIterator's order "
            f"{list(loop.order)} of {strides}"
        )
    return loop.run


def loop_order(a: Args, names: tuple[str, ...], shape: tuple[int, ...]) -> list[int] | None:
    """The order of the dims (outermost first) in which ATen's element-wise loop walks operands ``names``
    where it is not C order (``tensor_loop``: a slice of the channels of a channels-last map, Mamba's
    gate, (4, 64, 16) of strides (2048, 1, 128), runs its rows along the channels); None in C order."""
    loop = tensor_loop(a, names, shape)
    return None if _c_order(loop, shape) else list(loop.order)


def in_loop_order(
    a: Args,
    names: tuple[str, ...],
    arrays: list[np.ndarray],
    compute: Callable[..., np.ndarray],
    operands: tuple[str, ...] | None = None,
    like: str | None = None,
    scalar_in: bool = False,
    buffered: bool = False,
) -> np.ndarray:
    """``compute(arrays, run)`` of an element-wise op whose result depends on where each element falls in
    ATen's inner loop (its vector body or scalar tail): the operands (``arrays``, captured as ``names``)
    broadcast to one shape and laid out in TensorIterator's order (``tensor_loop`` over ``operands``,
    the kernel's order of its inputs where it is not ``names``', and ``like``), ``run`` its inner dim (1 for
    the basic loop), the result put back in logical order. ``scalar_in``: ``compute(arrays, run, scalar)``
    also takes the input ATen's vectorized loop reads as a scalar (1 for the first of ``operands`` or
    ``names``; 0 none), for an op whose NaN bits differ there (silu_backward, gelu_backward (tanh),
    log_sigmoid_backward). ``buffered``: the kernel copies a strided run into a buffer and runs it as a contiguous
    one (UnaryOpsKernel.cpp's IMPLEMENT_ITERATOR_LAMBDA): ``run`` the inner dim there too, never 1."""
    shape = tuple(np.broadcast_shapes(*(x.shape for x in arrays)))
    loop = tensor_loop(a, operands or names, shape, like)
    run = loop.run if loop.vector or buffered else 1
    args = (run, loop.scalar if loop.vector else 0) if scalar_in else (run,)
    if _c_order(loop, shape):
        return compute([np.ascontiguousarray(np.broadcast_to(x, shape)) for x in arrays], *args)
    perm = list(loop.order)
    permuted = [np.ascontiguousarray(np.transpose(np.broadcast_to(x, shape), perm)) for x in arrays]
    out = compute(permuted, *args)
    return np.ascontiguousarray(np.transpose(out, np.argsort(perm)))


def stride_order(shape: tuple[int, ...], stride: list[int]) -> list[int]:
    """The dims as TensorIterator orders them by ``stride``, outermost first: those of size 1 (in order),
    then the others by falling stride."""
    ones = [d for d in range(len(shape)) if shape[d] == 1]
    return ones + sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: -stride[d])


def _sigmoid(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import sigmoid

    return {"out": in_loop_order(a, ("self",), [t["self"]], lambda xs, run: sigmoid(xs[0], p, run))}


def _sigmoid_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import sigmoid_backward

    g, y = t["grad_output"], t["output"]
    if g.shape != y.shape:
        raise ParityError(f"sigmoid_backward: the impl reproduces equal shapes only, not {g.shape} and {y.shape}")
    names = ("grad_output", "output")
    return {"out": in_loop_order(a, names, [g, y], lambda xs, run: sigmoid_backward(xs[0], xs[1], p, run))}


def _glu_run(a: Args, x: np.ndarray, dim: int) -> int:
    """The inner loop's length of glu's TensorIterator: the output (contiguous) and the input's two halves,
    views with the input's strides, coalesced together (a (B, 2C, T) input halved on dim 1: runs of C*T)."""
    half = tuple(n // 2 if d == dim else n for d, n in enumerate(x.shape))
    stride = a.get("self.stride") or c_strides(x.shape)
    return inner_run({"half.stride": stride, "out.stride": c_strides(half)}, ("half", "out"), half)


def _glu_dim(a: Args, x: np.ndarray) -> int:
    dim = int(a.get("dim", -1))
    if x.dtype != np.float32 or x.ndim == 0 or not -x.ndim <= dim < x.ndim:
        raise ParityError(
            f"glu: the impl reproduces float32 inputs halved on one of their dims, not dim {dim} of {x.dtype} {x.shape}"
        )
    return dim % x.ndim


def _glu(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import glu

    x = t["self"]
    dim = _glu_dim(a, x)
    return {"out": glu(x, dim, p, _glu_run(a, x, dim))}


def _glu_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """The sigmoid of the second half runs over the first half of grad_input (a view of the contiguous
    result: the input's layout where that is contiguous) and the second half of the input. grad_output
    enters only the element-wise products after it, so its strides (Wav2Vec2-BERT's adapter: a transposed
    gradient) move no bit; two NaNs meeting there are refused whatever the layout."""
    from harness.impl.nn import glu_backward

    x, g = t["self"], t["grad_output"]
    dim = _glu_dim(a, x)
    stride = a.get("self.stride")
    if stride is not None and stride != c_strides(x.shape):
        raise ParityError("glu_backward: the impl reproduces a contiguous self only")
    g_stride = a.get("grad_output.stride")
    if g_stride is not None and g_stride != c_strides(g.shape):
        # its loop's products meet two NaNs in another order than the contiguous one's (measured other at
        # avx2 and avx512): an element with a NaN and another NaN or an infinity among a, b and grad refused
        operands = [*np.split(np.asarray(x, np.float32), 2, axis=dim), np.asarray(g, np.float32)]
        nans = sum(np.isnan(v).astype(int) for v in operands)
        specials = nans + sum(np.isinf(v).astype(int) for v in operands)
        if ((nans > 0) & (specials > 1)).any():
            raise ParityError("glu_backward of a strided grad_output: a NaN meeting another NaN is not modelled")
    return {"out": glu_backward(g, x, dim, p, _glu_run(a, x, dim))}


def laid_out(x: np.ndarray, stride: list[int] | None, align: int = 0) -> np.ndarray:
    """A captured tensor (C order) laid out again with the strides torch gave it (in elements), its first
    element ``align`` bytes past a 64-byte boundary as in torch's memory (the trace's ``align``): kernels
    that read their operands as they lie (MKL's sgemm, which peels its sums by the operands' addresses;
    flash attention) see torch's rows at torch's offsets."""
    if stride is None or len(stride) != x.ndim:
        stride = c_strides(x.shape) if align else None
    if stride is None:
        return x
    span = 1 + sum((n - 1) * st for n, st in zip(x.shape, stride, strict=True)) if x.size else 1
    raw = np.empty(span * x.itemsize + 128, np.uint8)
    start = (align - raw.ctypes.data) % 64
    buf = raw[start : start + span * x.itemsize].view(x.dtype)
    view = np.lib.stride_tricks.as_strided(buf, x.shape, [st * x.itemsize for st in stride])
    view[...] = x
    return view


def as_traced(t: Arrays, a: Args, name: str) -> np.ndarray:
    """Captured tensor ``name`` laid out as torch had it: its strides and its address past 64 bytes."""
    return laid_out(t[name], a.get(f"{name}.stride"), int(a.get(f"{name}.align", 0) or 0))


def in_memory_order(
    x: np.ndarray, dims: tuple[int, ...], stride: list[int] | None, reduce: Callable[[np.ndarray, tuple[int, ...]], Any]
) -> np.ndarray:
    """``reduce(x, dims)`` (kept dims in order) as ATen reduces a tensor of strides ``stride``:
    TensorIterator orders the dims by stride, so a permuted dense layout (channels-last: ResNet's
    ``mean`` over H and W) reduces as the contiguous tensor of that permutation. Refused for a layout
    with gaps (its dims would not coalesce as the impl's contiguous copy does)."""
    if stride is None or x.ndim < 2:
        return reduce(x, dims)
    dense = [d for d in range(x.ndim) if x.shape[d] > 1]
    perm = stride_order(x.shape, stride)
    step = 1
    for d in reversed(perm):
        if x.shape[d] > 1 and stride[d] != step:
            raise ParityError(f"the impl reproduces reductions of dense tensors only, not strides {stride}")
        step *= x.shape[d]
    if [d for d in perm if d in dense] == dense:  # C order already
        return reduce(x, dims)
    out = reduce(np.ascontiguousarray(np.transpose(x, perm)), tuple(perm.index(d) for d in dims))
    kept = [d for d in perm if d not in dims]
    return np.transpose(out, np.argsort(kept)) if out.ndim == len(kept) else out


def channels_last(a: Args, name: str, shape: tuple[int, ...], what: str = "batch norm") -> bool:
    """Whether ATen's batch norm kernels (and the pooling kernels, ``_nhwc``) see tensor ``name`` as
    channels-last (NHWC, NDHWC) rather than contiguous (NCHW); refused when it is neither (batch norm
    sends such tensors to ATen's TensorIterator path before asking: ``_bn_dense``), naming ``what``."""
    stride = a.get(f"{name}.stride")
    if stride is None or contiguous(stride, shape):
        return False
    if len(shape) in (4, 5) and same_layout(stride, strides_in_order(shape, (0, *range(2, len(shape)), 1)), shape):
        return True
    raise ParityError(f"the impl reproduces {what} on contiguous or channels-last tensors, not {name} {stride}")


def _training(a: Args, op: str) -> None:
    if not a.get("training", a.get("train", True)):
        raise ParityError(f"the impl reproduces {op} in training mode only")


def _bn_dense(a: Args, name: str, shape: tuple[int, ...]) -> bool:
    """Normalization.cpp's ``is_contiguous``: tensor ``name`` is contiguous in some memory format (C order,
    channels-last, channels-last 3d), so batch norm runs batch_norm_kernel.cpp's kernels on it; otherwise
    ATen's TensorIterator path (harness.impl.nn ``batch_norm_generic``) runs."""
    stride = a.get(f"{name}.stride")
    if stride is None or contiguous(stride, shape):
        return True
    order = (0, *range(2, len(shape)), 1)
    return len(shape) in (4, 5) and same_layout(stride, strides_in_order(shape, order), shape)


def _batch_norm_generic(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import batch_norm_eval_generic, batch_norm_generic

    x = laid_out(t["input"], a["input.stride"])
    if not a.get("training", True):
        if "running_mean" not in t or "running_var" not in t:
            raise ParityError("batch_norm in eval mode: its running statistics were not captured")
        y = batch_norm_eval_generic(x, t.get("weight"), t.get("bias"), t["running_mean"], t["running_var"],
                                    float(a["eps"]), p)  # fmt: skip
        return {"out0": y, "out1": np.empty(0, np.float32), "out2": np.empty(0, np.float32)}
    y, mean, invstd, _, _ = batch_norm_generic(
        x, t.get("weight"), t.get("bias"), t.get("running_mean"), t.get("running_var"),
        float(a.get("momentum", 0.1)), float(a["eps"]), p,
    )  # fmt: skip
    return {"out0": y, "out1": mean, "out2": invstd}


def _batch_norm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import batch_norm, batch_norm_eval

    x = t["input"]
    if not _bn_dense(a, "input", x.shape):
        return _batch_norm_generic(t, a, p)
    cl = channels_last(a, "input", x.shape)
    if not a.get("training", True):  # eval: the running statistics; save_mean/save_invstd are empty
        if "running_mean" not in t or "running_var" not in t:
            raise ParityError("batch_norm in eval mode: its running statistics were not captured")
        y = batch_norm_eval(
            x, t.get("weight"), t.get("bias"), t["running_mean"], t["running_var"], float(a["eps"]), p, cl
        )
        return {"out0": y, "out1": np.empty(0, np.float32), "out2": np.empty(0, np.float32)}
    y, mean, invstd, _, _ = batch_norm(
        x, t.get("weight"), t.get("bias"), t.get("running_mean"), t.get("running_var"),
        float(a.get("momentum", 0.1)), float(a["eps"]), p, cl,
    )  # fmt: skip
    return {"out0": y, "out1": mean, "out2": invstd}


def _batch_norm_with_update(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    out = _batch_norm(t, a, p)
    return {**out, "out3": np.empty(0, np.uint8)}  # the reserve, empty on CPU


def _batch_norm_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import batch_norm_backward, batch_norm_backward_generic

    _training(a, "batch_norm backward")
    if not a.get("update", True):
        raise ParityError("the impl reproduces batch_norm_backward in training mode only")
    x, g = t["input"], t["grad_out"]
    mean, invstd = t.get("save_mean"), t.get("save_invstd", t.get("save_var"))
    if mean is None or invstd is None:
        raise ParityError("batch norm backward: the saved mean and invstd were not captured")
    if _bn_backward_generic(a, x.shape):
        # UperNet's pyramid pooling: (2, 16, 1, 1) of strides (16, 1, 16, 16), which suggest channels-last,
        # grad_out contiguous: the TensorIterator path, as for any layouts not both dense of one format
        gx, gw, gb = batch_norm_backward_generic(
            laid_out(g, a.get("grad_out.stride")), laid_out(x, a.get("input.stride")), t.get("weight"), mean, invstd, p
        )
    else:
        g = _read_in_layout_of(g, a.get("grad_out.stride"), a.get("input.stride"))
        gx, gw, gb = batch_norm_backward(g, x, t.get("weight"), mean, invstd, p, channels_last(a, "input", x.shape))
    mask = a.get("output_mask", [True, True, True])
    return {name: v for name, v, keep in zip(("out0", "out1", "out2"), (gx, gw, gb), mask, strict=True) if keep}


def _read_in_layout_of(x: np.ndarray, stride: list[int] | None, other: list[int] | None) -> np.ndarray:
    """A dense tensor ``x`` of ``stride`` as a kernel sees it that reads its memory with a dense tensor's
    ``other`` strides (None: contiguous). batch_norm_kernel.cpp's backward reads grad_out's memory in the
    input's layout, and Normalization.cpp asks only that both be dense and suggest one memory format: a
    channels-last (N, C, 1, W) or (1, C, H, W) suggests contiguous, so against a contiguous grad_out
    the kernel takes its elements from other places (measured: other bits than either layout's model)."""
    stride, other = stride or c_strides(x.shape), other or c_strides(x.shape)
    if same_layout(stride, other, x.shape):
        return x
    memory = laid_out(x, stride)  # its first element at the buffer's start (strides not negative)
    return np.ascontiguousarray(np.lib.stride_tricks.as_strided(memory, x.shape, [st * x.itemsize for st in other]))


def _bn_backward_generic(a: Args, shape: tuple[int, ...]) -> bool:
    """Whether batch_norm_backward_cpu_template takes its TensorIterator path: input or grad_out not dense
    (``_bn_dense``), or the two of other suggested memory formats."""
    if not (_bn_dense(a, "input", shape) and _bn_dense(a, "grad_out", shape)):
        return True
    layouts = {_suggests_cl(a, name, shape) for name in ("input", "grad_out")}
    return len(layouts) > 1


def _nhwc(a: Args, name: str, shape: tuple[int, ...]) -> bool:
    """Whether a pooling operand ran channels-last (4-D NHWC in memory, not also contiguous; or a view with
    gaps whose suggested memory format is channels-last, which the max-pooling kernels copy into dense NHWC
    first, ``input.contiguous(memory_format)``: Hiera's query pooling of q sliced from its fused qkv)."""
    stride = a.get(f"{name}.stride")
    if len(shape) == 4 and stride is not None and not contiguous(stride, shape) and _suggests_cl(a, name, shape):
        return True
    return len(shape) == 4 and channels_last(a, name, shape, "pooling")


def _suggests_cl(a: Args, name: str, shape: tuple[int, ...]) -> bool:
    """The adaptive average pooling kernels' switch: suggest_memory_format of the captured strides."""

    stride = a.get(f"{name}.stride")
    return stride is not None and suggests_channels_last(tuple(shape), stride)


def _max_pool_args(a: Args) -> tuple[Any, ...]:
    return (
        a["kernel_size"],
        a.get("stride") or None,
        a.get("padding", 0),
        a.get("dilation", 1),
        bool(a.get("ceil_mode")),
    )


def _max_pool(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.pool import max_pool2d_with_indices

    x = t["self"]
    _nhwc(a, "self", x.shape)  # refuses a layout neither contiguous nor channels-last
    out, idx = max_pool2d_with_indices(x, *_max_pool_args(a))
    return {"out0": out, "out1": idx}


def _max_pool_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.pool import max_pool2d_backward

    x = t["self"]
    _nhwc(a, "self", x.shape)
    return {"out": max_pool2d_backward(t["grad_output"], t["indices"], x.shape)}


def _adaptive_avg_pool(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.pool import adaptive_avg_pool2d

    x = t["self"]
    return {"out": adaptive_avg_pool2d(x, tuple(a["output_size"]), _suggests_cl(a, "self", x.shape), p.lanes, p)}


def _adaptive_avg_pool_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.pool import adaptive_avg_pool2d_backward

    g, x = t["grad_output"], t["self"]
    # the backward kernel follows grad_output's layout (suggest_memory_format)
    return {"out": adaptive_avg_pool2d_backward(g, x.shape, _suggests_cl(a, "grad_output", g.shape), p.lanes, p)}


def _cumsum(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import cumsum

    if a.get("dtype") not in (None, "torch.float32"):
        raise ParityError(f"the impl reproduces float32 cumsum only, not {a['dtype']}")
    x = t["self"]
    return {"out": cumsum(x, int(a["dim"]) % max(x.ndim, 1), p.aarch64)}


def _pow(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import POW_SPECIAL, pow_scalar
    from harness.impl.unary import pow_scalar_forward

    reduced = _reduced_float_dtypes(t, a)
    if reduced:
        return {"out": _pow_reduced_float(t, a, p, reduced)}
    if "exponent" in t:
        return _pow_of_tensor(t, a, p)
    if "self" not in t or "exponent" not in a:
        raise ParityError("pow: neither its base nor its exponent was captured as a tensor")
    exponent = float(a["exponent"])
    if t["self"].dtype.kind in "biu" and not isinstance(a["exponent"], float):
        return {"out": _pow_integer(t["self"], a["exponent"])}
    if t["self"].dtype.kind in "biu":
        # an integer tensor to a float's power (LightGlue's int64 hidden size ** 0.25): the common dtype is
        # float32, the base cast to it by TensorIterator, then the float kernel
        x, a = _cast_to(a, "self", t["self"], np.dtype(np.float32), "pow.Tensor_Scalar")
        t = {**t, "self": x}
    if exponent == 0.5 and t["self"].dtype == np.float32:
        # PowKernel.cpp's pow_tensor_scalar_kernel hands 0.5 to sqrt_kernel: MKL VML's vsSqrt as ``sqrt``
        # (bit-equal to torch.sqrt at default, avx2 and avx512 on 1, 2 and 4 threads, NaNs, -0 and
        # negatives among them)
        from harness.impl.optim import elementwise

        return {"out": elementwise("sqrt", t["self"], None, None, 0.0, p)}
    x = t["self"]
    if exponent == 0.5 and x.dtype == np.float64 and not p.aarch64:
        # sqrt_kernel again: MKL VML's vdSqrt (its generic path; element-wise, the layout of no account)
        from harness.impl.optim import sqrt_f64

        return {"out": sqrt_f64(x, p)}
    if x.dtype == np.float64 and exponent not in POW_SPECIAL:
        # pow_tensor_scalar_optimized_kernel's generic exponent: std::pow(base, exp) and Vectorized's pow
        return {"out": _pow_f64_loop(a, ("self",), [x], p, exponent)}
    if exponent in POW_SPECIAL:
        return {"out": pow_scalar(x, exponent, p.aarch64)}
    if x.dtype != np.float32:
        raise ParityError(f"pow: float32 and float64 only, not {x.dtype}")
    return {"out": in_loop_order(a, ("self",), [x], lambda xs, run: pow_scalar_forward(xs[0], exponent, p, run))}


_REDUCED_FLOATS = ("bfloat16", "float16")
_FLOAT_WIDE = ("float32", "float64")


def _reduced_float_dtypes(t: Arrays, a: Args) -> tuple[str, ...]:
    """The dtypes of pow's tensor operands where any of them is bfloat16 or float16 (a capture holds a bfloat16
    tensor's bits as uint16: its argument's dtype tells it apart from an integer one); () where none is."""
    dtypes = tuple(
        a.get(f"{n}.dtype") or ("float16" if t[n].dtype == np.float16 else str(t[n].dtype))
        for n in ("self", "exponent")
        if n in t
    )
    return dtypes if any(d in _REDUCED_FLOATS for d in dtypes) else ()


def _pow_reduced_float(t: Arrays, a: Args, p: KernelProfile, dtypes: tuple[str, ...]) -> np.ndarray:
    """pow of bfloat16 and float16 tensors (their bits, uint16 or float16, in TensorIterator's loop order):
    ``pow.Tensor_Scalar`` of one to a number (harness.impl.unary.pow_bf16_scalar, pow_f16_scalar) and
    ``pow.Tensor_Tensor`` of two of one dtype, broadcast (pow_reduced_tensor); the result in the operands' dtype
    (bfloat16 as its uint16 bits). A number to a reduced-float tensor's power and mixed dtypes (TensorIterator's
    casts to the common dtype) refused."""
    from harness.impl.unary import pow_bf16_scalar, pow_f16_scalar, pow_reduced_tensor

    dtype = dtypes[0]
    if "self" not in t:  # pow.Scalar: the exponent is the tensor
        raise ParityError(f"pow of a number to a {dtype} tensor's power (pow.Scalar): not modelled")
    if dtype not in _REDUCED_FLOATS or any(d != dtype for d in dtypes):
        raise ParityError(f"pow of {' and '.join(dtypes)} operands: one bfloat16 or float16 dtype only")
    like = np.float16 if dtype == "float16" else np.uint16
    x = t["self"].view(np.uint16)
    if "exponent" in t:
        names, arrays = ("self", "exponent"), [x, t["exponent"].view(np.uint16)]

        def compute(xs: list[np.ndarray], run: int) -> np.ndarray:
            return pow_reduced_tensor(xs[0], xs[1], dtype, p, run).reshape(xs[0].shape)
    else:
        value = a.get("exponent")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParityError(f"pow of {dtype}: a real number exponent only, not {value!r}")
        scalar = pow_bf16_scalar if dtype == "bfloat16" else pow_f16_scalar
        names, arrays = ("self",), [x]

        def compute(xs: list[np.ndarray], run: int) -> np.ndarray:
            return scalar(xs[0], float(value), p, run)

    return in_loop_order(a, names, arrays, compute).view(like)


def _pow_integer(x: np.ndarray, exponent: int) -> np.ndarray:
    """``pow.Tensor_Scalar`` of an integer or bool tensor to an integer (or bool) number: the common dtype is
    the tensor's (int64 for bool), the base cast to it; Pow.cpp answers 0 (False) with ones and 1 (True)
    with the base, pow_tensor_scalar_kernel's integral branch the rest by ``native::powi`` of the exponent
    converted to that dtype (harness.impl.unary.powi: exact, wrapping products, no level, thread count or
    layout reaches a bit). A negative exponent (the meta function raises "Integers to negative integer
    powers are not allowed") and one outside the dtype (Scalar's checked conversion raises) refused."""
    from harness.impl.promote import result_type
    from harness.impl.unary import powi

    dtype = result_type(x, exponent)
    if exponent < 0:
        raise ParityError(f"pow of an integer tensor to {exponent}: torch raises (integers to negative powers)")
    base = np.asarray(x).astype(dtype)
    if int(exponent) in (0, 1):
        return np.ones_like(base) if int(exponent) == 0 else base
    if dtype == np.bool_ or not int(exponent) <= np.iinfo(dtype).max:
        raise ParityError(f"pow: the exponent {exponent} does not fit {dtype} (torch raises)")
    return powi(base, np.asarray(exponent, dtype))


def _common_float32(a: Args, names: tuple[str, str], x: np.ndarray, y: np.ndarray, what: str) -> list[np.ndarray]:
    """Two operands of a binary float kernel as float32, where their common dtype (harness.impl.promote's
    ``result_type``, TensorIterator's) is float32: float32 ones as they are, an integer or bool tensor cast
    to float32 (TensorIterator's cast to the common dtype, rounding to nearest; BLOOM's ALiBi slopes
    ``pow(base, int32 arange)``, an ``int64 // float``) where it is C-contiguous (a strided one is cast into
    another layout); other floating operands and other common dtypes refused."""
    from harness.impl.promote import result_type

    if result_type(x, y) != np.float32 or any(v.dtype.kind not in "biu" and v.dtype != np.float32 for v in (x, y)):
        raise ParityError(f"{what}: float32 operands (or an integer one beside them) only, not {x.dtype} and {y.dtype}")
    return [_as_float32(a, name, v, what) for name, v in zip(names, (x, y), strict=True)]


def _common_float(
    a: Args, names: tuple[str, str], x: np.ndarray, y: np.ndarray, what: str
) -> tuple[list[np.ndarray], Args]:
    """pow's two operands in their common float dtype (harness.impl.promote's ``result_type``, TensorIterator's:
    float32 ** float64 and int64 ** float64 are float64, int32 ** float32 and float32 ** a zero-dim float64
    float32), each other one cast by ``_cast_to``; the args with the cast operands' strides. Other common
    dtypes (float16, bfloat16) and operands refused."""
    from harness.impl.promote import result_type

    dtype = result_type(x, y)
    if dtype not in (np.float32, np.float64) or any(v.dtype.kind not in "biuf" for v in (x, y)):
        raise ParityError(f"{what}: a float32 or float64 common dtype only, not that of {x.dtype} and {y.dtype}")
    out = []
    for name, v in zip(names, (x, y), strict=True):
        v, a = _cast_to(a, name, v, dtype, what)
        out.append(v)
    return out, a


def _cast_to(a: Args, name: str, v: np.ndarray, dtype: np.dtype, what: str) -> tuple[np.ndarray, Args]:
    """TensorIterator's cast of operand ``name`` to the common ``dtype`` (``Tensor.to``, ``_to_copy``'s preserve
    format): one rounding to nearest (an integer to float, float64 to float32; float32 to float64 exact, a
    signalling NaN quieted by the conversion, as torch's own cast quiets it), its strides kept where it is
    non-overlapping and dense, else C-contiguous (channels-last where a 4-D one suggests it; a 5-D one
    refused), which the loop order then follows: the args with that operand's strides."""
    if v.dtype == dtype:
        return v, a
    stride = a.get(f"{name}.stride")
    if stride is not None and any(stride) and not non_overlapping_and_dense(stride, v.shape):
        if len(v.shape) == 5 and suggests_channels_last(v.shape, stride):
            raise ParityError(f"{what}: a {v.dtype} {name} of strides {stride} cast channels-last-3d: not modelled")
        cl = len(v.shape) == 4 and suggests_channels_last(v.shape, stride)
        a = {**a, f"{name}.stride": channels_last_strides(v.shape) if cl else c_strides(v.shape)}
    with np.errstate(invalid="ignore"):
        return v.astype(dtype), a


_NP_OF = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8, "int16": np.int16,
          "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "bool": np.bool_}  # fmt: skip


def _to_copy(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_to_copy`` (``Tensor.to``, ``.half()``, ``.float()``): an output laid out by its memory format
    (``_cast_strides``) filled by ``copy_``. The same dtype: the bits. float32 or float64 to float16 or bfloat16:
    harness.impl.unary.cast_to_f16 / cast_to_bf16 (a NaN's bits by level and path); float16 or bfloat16 to
    float32 or float64: exact, a signalling float16 quieted (cast_from_f16: FBGEMM's tails make a NaN
    0x7FFFFFFF), a bfloat16 shifted; between float32, float64, the integers and bool: ``_convert``. Other memory
    formats of a reduced float, other pairs with a reduced float (an integer to float16, float16 to bfloat16)
    refused."""
    x = t["self"]
    src = a.get("self.dtype") or str(x.dtype)
    dst = str(a.get("dtype") or src).removeprefix("torch.")
    if src == dst:
        return {"out": x.copy()}
    if (src in _REDUCED_FLOATS and dst not in _FLOAT_WIDE) or (dst in _REDUCED_FLOATS and src not in _FLOAT_WIDE):
        raise ParityError(f"_to_copy from {src} to {dst}: not modelled")
    if src not in _REDUCED_FLOATS and dst not in _REDUCED_FLOATS:
        return {"out": _convert(x, src, dst)}  # one conversion per element: the layouts of no account
    shape = tuple(x.shape)
    stride = list(a.get("self.stride") or c_strides(shape))
    out_stride = _cast_strides(a.get("memory_format"), shape, stride, src)
    fbgemm = _fbgemm_path(shape, stride, shape, out_stride)
    return {"out": _reduced_cast(x, src, dst, (shape, stride), out_stride, fbgemm, p)}


def _fbgemm_path(src_shape: tuple[int, ...], stride: list[int], shape: tuple[int, ...], out_stride: list[int]) -> bool:
    """Whether Copy.cpp takes its FBGEMM path (float32 <-> float16) from a source of ``src_shape`` and ``stride``
    into an output of ``shape`` and ``out_stride``: equal sizes, and both contiguous or the output non-overlapping
    and dense in the source's very strides."""
    return src_shape == shape and (
        (contiguous(stride, shape) and contiguous(out_stride, shape))
        or (non_overlapping_and_dense(out_stride, shape) and out_stride == stride)
    )


def _reduced_cast(
    x: np.ndarray,
    src: str,
    dst: str,
    source: tuple[tuple[int, ...], list[int]],
    out_stride: list[int],
    fbgemm: bool,
    p: KernelProfile,
) -> np.ndarray:
    """``x`` (of the output's shape: a broadcast source broadcast) cast to or from float16 or bfloat16 into an
    output of strides ``out_stride``, the source's own shape and strides ``source``: to float16
    cast_to_f16, to bfloat16 cast_to_bf16 (CopyKernel.cpp's vectors where TensorIterator's inner dim is
    unit-stride in both), from float16 to float32 on Copy.cpp's FBGEMM path (``fbgemm``) its blocks and tails
    in memory order, else widened exactly."""
    from harness.impl.unary import bf16_widen, cast_from_f16, cast_to_bf16, cast_to_f16

    shape = tuple(x.shape)
    if dst == "float16":
        return cast_to_f16(x, p, fbgemm).view(np.float16)
    if dst == "bfloat16":  # CopyKernel.cpp's float-to-bfloat16 vectors where the inner dim is unit-stride in both
        loop = element_wise_loop(shape, [source], out_stride)
        return cast_to_bf16(x, p, loop.vector and loop.scalar == 0)
    if src == "float16" and dst == "float32" and fbgemm:
        # FBGEMM walks the memory: its blocks of 8 and tails in the output's (the source's) stride order
        perm = sorted(range(len(shape)), key=lambda d: (-out_stride[d], d))
        in_memory = np.ascontiguousarray(np.transpose(x.view(np.uint16), perm))
        return np.ascontiguousarray(np.transpose(cast_from_f16(in_memory, p, True), np.argsort(perm)))
    bits = x.view(np.uint16)
    wide = cast_from_f16(bits, p, False) if src == "float16" else bf16_widen(bits)
    if p.aarch64 and np.isnan(wide).any():  # cast_from_f16 refuses a float16 one; a bfloat16 one likewise
        raise ParityError("a bfloat16 NaN cast to float on aarch64 is not modelled (its conversions not measured)")
    return wide.astype(_NP_OF[dst])


def _copy_(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``copy_`` (Copy.cpp's copy_impl): ``src`` broadcast to ``self``'s shape and written in ``self``'s strides.
    The same dtype: the bits (a complex tensor's pairs too). float32 <-> float16 of equal sizes, both contiguous
    or ``self`` non-overlapping and dense with ``src``'s very strides: FBGEMM's path; else CopyKernel.cpp's
    loop over TensorIterator's order (``_reduced_cast``: a NaN's bits by level, path and thread count); between
    float32, float64, the integers and bool: ``_convert``. Other pairs with a reduced float or a complex
    tensor refused."""
    x = np.asarray(t["src"])  # self is written whole: a capture holds its metadata only
    shape = tuple(int(n) for n in a["self.shape"])
    dst = str(a.get("self.dtype") or x.dtype).removeprefix("torch.")
    src = str(a.get("src.dtype") or x.dtype).removeprefix("torch.")
    if src == dst:  # a complex tensor held as its (re, im) pairs: one more dim
        return {"out": np.broadcast_to(x, shape + ((2,) if "complex" in dst else ())).copy()}
    if "complex" in src or "complex" in dst:
        raise ParityError(f"copy_ from {src} to {dst}: not modelled")
    if (src in _REDUCED_FLOATS and dst not in _FLOAT_WIDE) or (dst in _REDUCED_FLOATS and src not in _FLOAT_WIDE):
        raise ParityError(f"copy_ from {src} to {dst}: not modelled")
    if src not in _REDUCED_FLOATS and dst not in _REDUCED_FLOATS:
        return {"out": _convert(np.broadcast_to(x, shape), src, dst)}  # one conversion per element
    out_stride = list(a.get("self.stride") or c_strides(shape))
    src_shape = tuple(a.get("src.shape") or x.shape)
    stride = list(a.get("src.stride") or c_strides(src_shape))
    fbgemm = _fbgemm_path(src_shape, stride, shape, out_stride)
    return {"out": _reduced_cast(np.broadcast_to(x, shape), src, dst, (src_shape, stride), out_stride, fbgemm, p)}


def _cast_strides(memory_format: str | None, shape: tuple[int, ...], stride: list[int], src: str) -> list[int]:
    """The strides of ``_to_copy``'s output: preserve_format's (the source's where it is non-overlapping and
    dense, else the memory format it suggests), contiguous_format's or channels_last's; others refused."""
    if memory_format in (None, "torch.preserve_format"):
        if non_overlapping_and_dense(stride, shape):
            return stride
        if len(shape) == 5 and suggests_channels_last(shape, stride):
            raise ParityError(f"_to_copy of a {src} tensor of strides {stride}: its channels-last-3d copy not modelled")
        cl = len(shape) == 4 and suggests_channels_last(shape, stride)
        return channels_last_strides(shape) if cl else c_strides(shape)
    if memory_format == "torch.contiguous_format":
        return c_strides(shape)
    if memory_format == "torch.channels_last" and len(shape) == 4:
        return channels_last_strides(shape)
    raise ParityError(f"_to_copy of a {src} tensor to {memory_format}: not modelled")


def _convert(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """One conversion per element between float32, float64, the integers and bool, as C++'s ``static_cast`` and
    ATen's vectorized converts give it (to nearest; integers wrapping; to bool nonzero); a float to an integer
    only where every element is finite and fits (else C++'s undefined: refused)."""
    if dst not in _NP_OF or x.dtype.kind not in "biuf":
        raise ParityError(f"_to_copy from {src} to {dst}: not modelled")
    target = np.dtype(_NP_OF[dst])
    if x.dtype.kind == "f" and target.kind in "iu":
        info = np.iinfo(target)
        whole = np.trunc(x[np.isfinite(x)])
        if whole.size < x.size or (x.size and (whole.min() < float(info.min) or whole.max() >= float(info.max + 1))):
            raise ParityError(f"_to_copy of {src} to {dst}: a NaN, an infinity or a value past {dst} (C++'s undefined)")
    if target == np.bool_:
        return x != 0
    with np.errstate(invalid="ignore"):
        return x.astype(target)


def _as_float32(a: Args, name: str, v: np.ndarray, what: str) -> np.ndarray:
    """A float32 operand as it is, an integer or bool one cast to float32 (TensorIterator's cast to the common
    dtype, rounding to nearest) where it is C-contiguous (a strided one is cast into another layout: refused)."""
    if v.dtype == np.float32:
        return v
    stride = a.get(f"{name}.stride")
    if stride is not None and any(stride) and not contiguous(stride, v.shape):
        raise ParityError(f"{what}: an integer {name} of strides {stride} (cast into another layout) is not modelled")
    return v.astype(np.float32)


def _pow_of_tensor(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``pow.Tensor_Tensor`` and ``pow.Scalar`` (a number to a tensor's power: Llama's rotary
    frequencies, ``base ** (arange(0, dim, 2).float() / dim)``): Pow.cpp answers a base of 1 with ones
    (any exponent, NaN too), else pow_tensor_tensor_kernel over the number cast to float and broadcast
    (harness.impl.unary.pow_tensor_forward). Float32 exponents (an integer tensor to a float's power:
    cast to float32 first, as TensorIterator does); a tensor base of one shape with the exponent, or of
    one element."""
    from harness.impl.promote import result_type
    from harness.impl.unary import pow_tensor_forward

    e = t["exponent"]
    if "self" in t:
        names = ("self", "exponent")
        common = result_type(t["self"], e)
        if common.kind in "biu":
            return {"out": _powi_tensors(t["self"], e, common)}
        (base, e), a = _common_float(a, names, t["self"], e, "pow.Tensor_Tensor")
        if base.shape != e.shape:
            shape = np.broadcast_shapes(base.shape, e.shape)
            if (base.size != 1 and e.size != 1) or shape not in (base.shape, e.shape):
                raise ParityError(f"pow.Tensor_Tensor: broadcast shapes {base.shape} and {e.shape} are not modelled")
            base, e = np.broadcast_to(base, shape), np.broadcast_to(e, shape)
        if e.dtype == np.float64:
            return {"out": _pow_f64_loop(a, names, [base, e], p)}
    else:
        number = a.get("self")
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise ParityError(f"pow.Scalar: the impl reproduces a real number base only, not {number!r}")
        if e.dtype.kind in "biu" and isinstance(number, int):
            if number == 1:  # Pow.cpp's base of 1: ones, before any kernel
                return {"out": np.ones(e.shape, result_type(e, number))}
            return {"out": _powi_tensors(np.asarray(number), e, result_type(e, number))}
        if e.dtype == np.float64:
            return {"out": _pow_float64(a, number, e, p)}
        if e.dtype != np.float32 and e.dtype.kind not in "biu":
            raise ParityError(f"pow.Scalar: float32, float64 (or integer) exponents only, not {e.dtype}")
        e = e.astype(np.float32)
        if float(number) == 1.0:
            return {"out": np.ones(e.shape, np.float32)}
        base, names = np.full(e.shape, np.float32(number)), ("base", "exponent")
        # pow.Scalar's meta allocates a C-contiguous out, which its TensorIterator asks first (C order: an
        # exponent not unit-stride along the last dim is walked by the basic loop), then the base wrapped as a
        # 0-dim tensor and the exponent
        wrapped = {"out.stride": c_strides(e.shape), "out.shape": list(e.shape), "base.stride": [], "base.shape": []}
        compute = lambda xs, run: pow_tensor_forward(xs[0], xs[1], p, run)
        return {"out": in_loop_order({**a, **wrapped}, names, [base, e], compute, operands=("out", *names))}
    return {"out": in_loop_order(a, names, [base, e], lambda xs, run: pow_tensor_forward(xs[0], xs[1], p, run))}


def _powi_tensors(base: np.ndarray, exponent: np.ndarray, common: np.dtype) -> np.ndarray:
    """pow_tensor_tensor_kernel's integral branch (``native::powi``, harness.impl.unary.powi) of two integer or
    bool operands cast to their common integer dtype (int32 ** int64: int64; a zero-dim int64 or a wrapped
    number beside int32 converted to int32, wrapping), broadcast; exact, so no level, thread count or layout
    reaches a bit. bool ** bool (no integral kernel for bool: torch raises) refused."""
    from harness.impl.unary import powi

    if common == np.bool_:
        raise ParityError("pow of two bool operands: torch has no bool kernel (it raises)")
    return powi(np.asarray(base).astype(common), np.asarray(exponent).astype(common))


def _pow_float64(a: Args, number: float, e: np.ndarray, p: KernelProfile) -> np.ndarray:
    """``pow.Scalar`` of a number to a float64 exponent tensor: a base of 1 answered with ones (Pow.cpp);
    2 to whole exponents (I-BERT's requantisation, ``2.0**e`` of ``frexp``'s exponents): double
    ``std::pow`` at default and SLEEF ``powd4_u10`` / ``powd8_u10`` give 2^e exactly (rounded once below
    2^-1074, 0 from -1075 down, inf from 1024 up, 0 and inf at -inf and inf: every exponent of
    [-1100, 1100] measured on 1, 2 and 4 threads), so ldexp's; any other base or exponent (RT-DETR's
    ``10000 ** (arange(d) / d)``): ``_pow_f64_loop``."""
    if float(number) == 1.0:
        return np.ones(e.shape, np.float64)
    finite = np.isfinite(e)
    if float(number) == 2.0 and not np.isnan(e).any() and np.array_equal(e[finite], np.trunc(e[finite])):
        n = np.where(finite, np.clip(np.where(finite, e, 0), -1100, 1100), np.where(e > 0, 1100, -1100))
        with np.errstate(over="ignore"):
            return np.ldexp(np.ones(e.shape), n.astype(np.int64))
    # pow.Scalar's meta allocates a C-contiguous out, which its TensorIterator asks first, then the base
    # wrapped as a 0-dim tensor and the exponent
    wrapped = {"out.stride": c_strides(e.shape), "out.shape": list(e.shape), "base.stride": [], "base.shape": []}
    names = ("base", "exponent")
    return _pow_f64_loop({**a, **wrapped}, names, [np.full(e.shape, np.float64(number)), e], p, None, ("out", *names))


def _pow_f64_loop(
    a: Args,
    names: tuple[str, ...],
    arrays: list[np.ndarray],
    p: KernelProfile,
    exponent: float | None = None,
    operands: tuple[str, ...] | None = None,
) -> np.ndarray:
    """float64 ``arrays`` (base and exponent, or the base alone to the number ``exponent``) in TensorIterator's
    order (``names``, ``operands``: as ``in_loop_order``'s): pow_tensor_tensor_kernel's or
    pow_tensor_scalar_optimized_kernel's vector lanes, SLEEF's double pow, at avx2 / avx512 and on aarch64
    (NEON's powd2, SVE's powdx), glibc's double pow (x86-64's FMA build, or aarch64's) in each run's scalar tail
    and every element of x86's default build (harness.impl.unary.pow_f64_forward)."""
    from harness.impl.unary import pow_f64_forward

    compute = lambda xs, run: pow_f64_forward(xs[0], xs[1] if exponent is None else exponent, p, run)[0]
    return in_loop_order(a, names, arrays, compute, operands=operands)


def _div_rounding(t: Arrays, a: Args, p: KernelProfile, mode: str, other: Any) -> dict[str, np.ndarray]:
    """``div`` with a rounding mode and ``floor_divide`` of a float32 tensor by a float32 tensor of its
    shape, by one of a single element, or by a number (cast to float, as TensorIterator casts the wrapped
    number): harness.impl.nn.div_rounding, in ATen's loop order."""
    from harness.impl.nn import div_rounding

    names = ("self", "other")
    y = np.asarray(other)
    if isinstance(other, (int, float)) and (t["self"].dtype == np.float32 or isinstance(other, float)):
        y = np.float32(other)  # a number, wrapped: cast to the common float32
    if t["self"].dtype.kind in "iu" and y.dtype.kind in "iu":
        return {"out": _div_rounding_integer(t["self"], y, mode, isinstance(other, int))}
    x, y = _common_float32(a, names, t["self"], y, f"div with rounding_mode {mode!r}")
    if x.shape != y.shape:
        shape = np.broadcast_shapes(x.shape, y.shape)
        if (x.size != 1 and y.size != 1) or shape not in (x.shape, y.shape):
            raise ParityError(
                f"div with rounding_mode {mode!r}: broadcast shapes {x.shape} and {y.shape} are not modelled"
            )
        names = ("self",) if x.shape == shape else ("other",)  # the operand the loop walks
        x, y = np.broadcast_to(x, shape), np.broadcast_to(y, shape)
    return {"out": in_loop_order(a, names, [x, y], lambda xs, run: div_rounding(xs[0], xs[1], mode, p, run))}


def _div_rounding_integer(x: np.ndarray, y: np.ndarray, mode: str, number: bool) -> np.ndarray:
    """Integer ``div`` with a rounding mode (SEW's ``int64 // int``): div_floor_kernel's and div_trunc_kernel's
    integer loops, c10::div_floor_integer (truncation less 1 where the signs differ and a remainder is left)
    and C's truncating division, exact in the operands' common dtype (harness.impl.promote's
    ``result_type``: a Python int or a zero-dim tensor keeps the tensor's; an int32 tensor by a zero-dim int64
    one had been taken to int64), the same on every platform; a zero divisor (ATen raises) refused."""
    from harness.impl.promote import result_type

    dtype = result_type(x, int(y) if number else y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    if not np.all(y):
        raise ParityError(f"div with rounding_mode {mode!r}: an integer division by zero (ATen raises)")
    quot = np.floor_divide(x, y)
    if mode == "trunc":  # toward zero: the floor plus 1 where a remainder is left and the signs differ
        quot = quot + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(dtype)
    return np.asarray(quot)  # an array where the operands are 0-dim (NumPy's ufuncs give a scalar, digested otherwise)


def _python_ints(*values: object) -> bool:
    """Whether every value is a Python int of int64's range (not a bool): ``torch.div(16, 4,
    rounding_mode="trunc")`` of two numbers (Longformer's chunk count), both wrapped as 0-dim int64 tensors,
    so an exact int64 quotient, the same on every platform."""
    return all(isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in values)


def _floor_divide(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``floor_divide`` of a tensor by a tensor or a number, or of a number by a float32 tensor (``1.0 // s``,
    I-BERT's GELU: ``Tensor.__rfloordiv__``, the number wrapped as a 0-dim float32 first operand, broadcast)."""
    other = t["other"] if "other" in t else a.get("other")
    number = a.get("self")
    if "self" not in t and isinstance(number, (int, float)) and not isinstance(number, bool):
        if not isinstance(other, np.ndarray) or other.dtype != np.float32:
            raise ParityError("floor_divide of a number by a tensor: a float32 divisor only")
        t = {**t, "self": np.float32(number)}
    if other is None or isinstance(other, bool) or "self" not in t:
        raise ParityError("floor_divide: its operands were not captured as float32 tensors or a number")
    return _div_rounding(t, a, p, "floor", other)


def _complex_operand(t: Arrays, a: Args) -> tuple[str, list[int]] | None:
    """(name, shape) of the first operand captured as a complex tensor's float32 (re, im) pairs (one more
    dim than its shape); None where both are real."""
    for name in ("self", "other"):
        shape = a.get(f"{name}.shape")
        if name in t and shape is not None and np.ndim(t[name]) == len(shape) + 1:
            return name, list(shape)
    return None


def _complex_binary(op: str, t: Arrays, a: Args, p: KernelProfile, other: object, in_place: bool) -> np.ndarray:
    """``mul``, ``add``, ``sub`` or ``div`` (``op``) where an operand is complex (captured as float32 (re, im)
    pairs; a real tensor or number taken as complex with +0 imaginary parts, as ATen promotes it) over the
    elements in TensorIterator's loop (``tensor_loop``: its order, its inner run, an input read as a
    scalar): harness.impl.nn.complex_mul, complex_add (sub: alpha negated) or complex_div (``in_place``: the
    op's output is self). Above ATen's grain (32768 elements) on more than one thread the split moves the
    loop's tails: refused (mul, div). ATen's basic loop (an operand with no unit stride inside: the scalar
    op on each element): plain at default; at avx2 and avx512, where the AVX2 object's scalar loop fuses
    some elements (measured for mul, not modelled), and on aarch64 (not measured), mul and div refused; add
    and sub take the same bits everywhere."""
    from harness.impl.nn import complex_add, complex_div, complex_mul

    def as_complex(name: str, value: object) -> np.ndarray:
        if isinstance(value, np.ndarray) and np.ndim(value) == len(a.get(f"{name}.shape") or []) + 1:
            return np.ascontiguousarray(value, np.float32).view(np.complex64)[..., 0]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return np.asarray(complex(float(value), 0.0), np.complex64)
        if isinstance(value, complex):  # a complex number: each part rounded to float, as c10::complex<float>'s cast
            return np.asarray(value, np.complex64)
        if isinstance(value, np.ndarray) and value.dtype == np.float32:
            return value.astype(np.complex64)
        raise ParityError(f"{op} of a complex tensor: {name} was captured as neither complex, float32 nor a number")

    x, y = as_complex("self", t["self"]), as_complex("other", other)
    shape = np.broadcast_shapes(x.shape, y.shape)
    if op in ("add", "sub"):
        alpha = a.get("alpha", 1)
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
            raise ParityError(f"{op} of complex tensors with alpha {alpha!r} (not a real number) is not modelled")
        out = complex_add(np.broadcast_to(x, shape), np.broadcast_to(y, shape), -alpha if op == "sub" else alpha, p)
        return np.stack([out.real, out.imag], axis=-1).astype(np.float32)
    if len(shape) and np.prod(shape, dtype=np.int64) >= 32768 and p.threads > 1:
        raise ParityError(f"{op} of complex tensors of {int(np.prod(shape))} elements on {p.threads} threads")
    loop = tensor_loop(a, ("self", "other"), shape)
    if not loop.vector and p.aten != "default":  # the AVX2 object's scalar loop: fused at places not measured alike
        strides = [a.get(f"{name}.stride") for name in ("self", "other")]
        raise ParityError(f"{op} of complex tensors of strides {strides[0]} and {strides[1]} at {p.aten}")
    run = loop.run if loop.vector else 1  # the basic loop: the plain product on every element
    xs, ys = (np.transpose(np.broadcast_to(v, shape), loop.order) for v in (x, y))
    out = complex_mul(xs, ys, p, run, loop.scalar != 0) if op == "mul" else complex_div(xs, ys, p, run, in_place)
    out = np.ascontiguousarray(np.transpose(out, np.argsort(loop.order)))
    return np.stack([out.real, out.imag], axis=-1).astype(np.float32)


def _binary(name: str) -> Replay:
    """add, sub, mul, div (``name``, or its in-place form): float32 operands (a float32 tensor and a float32
    tensor or a number) through ATen's float kernels (harness.impl.nn.binary; div with a rounding mode
    ``_div_rounding``); an integer, bool or mixed pair through harness.impl.promote (torch's type promotion,
    then one exact operation, cast into an in-place op's own dtype)."""
    op = name.rstrip("_")

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.nn import binary
        from harness.impl.promote import binary_promoted

        x, other = t.get("self"), t["other"] if "other" in t else a.get("other")
        if x is not None and other is not None and a.get("rounding_mode") is None and not _complex_operand(t, a):
            number = isinstance(other, (int, float)) and not isinstance(other, bool)
            if x.dtype != np.float32 or not (number or (isinstance(other, np.ndarray) and other.dtype == np.float32)):
                out_dtype = x.dtype if name.endswith("_") else None
                return {"out": binary_promoted(op, x, other, a.get("alpha", 1), out_dtype, p.aarch64)}
        # torch.add(number, tensor) of an integer or bool tensor: the number wrapped as a scalar, the first
        # operand (PhiMoE's router)
        number_self = isinstance(a.get("self"), (int, float)) and not isinstance(a.get("self"), bool)
        real = isinstance(other, np.ndarray) and other.dtype != np.float32 and not _complex_operand(t, a)
        if x is None and number_self and real and a.get("rounding_mode") is None:
            return {"out": binary_promoted(op, a["self"], other, a.get("alpha", 1), None, p.aarch64)}
        if x is None and a.get("rounding_mode") is not None and _python_ints(a.get("self"), other):
            n, d = np.asarray(a["self"], np.int64), np.asarray(other, np.int64)
            return {"out": _div_rounding_integer(n, d, str(a["rounding_mode"]), True)}
        if other is None or isinstance(other, bool) or x is None:
            raise ParityError(f"{op}: its operands were not captured as float32 tensors or a number")
        found = _complex_operand(t, a)  # a complex tensor is captured as float32 (re, im) pairs: one more dim
        if found and a.get("rounding_mode") is None:
            return {"out": _complex_binary(op, t, a, p, other, name.endswith("_"))}
        if a.get("alpha", 1) != 1:
            raise ParityError(f"the impl reproduces {op} with alpha 1 only (else a fused multiply-add on AVX2)")
        if a.get("rounding_mode") is not None:
            return _div_rounding(t, a, p, str(a["rounding_mode"]), other)
        return {"out": binary(op, x, other, p.aarch64)}

    return run


def _rsub(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``rsub(self, other, alpha)`` (BLOOM's ``1 - mask``): ATen's ``sub(other, self, alpha)``, rsub.Scalar's
    number wrapped as a scalar, so the operands swapped through harness.impl.promote (the common dtype,
    one rounding per element, two NaNs at one element in sub's operand order)."""
    from harness.impl.promote import binary_promoted

    x, other = t.get("self"), t["other"] if "other" in t else a.get("other")
    if x is None or other is None or _complex_operand(t, a):
        raise ParityError("rsub: its operands were not captured as real tensors or a number")
    return {"out": binary_promoted("sub", other, x, a.get("alpha", 1), None, p.aarch64)}


def _rsqrt(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import forward

    return {"out": forward("rsqrt", t["self"], p)}


def _embedding_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """embedding_dense_backward_cpu: zeros, each grad row added to its index's row in index order,
    positions at padding_idx skipped (a skipped row stays +0.0, as adding nothing)."""
    from harness.impl.linalg import embedding_backward

    if a.get("scale_grad_by_freq"):
        raise ParityError("the impl reproduces embedding_dense_backward without scale_grad_by_freq only")
    g, idx = t["grad_output"], np.asarray(t["indices"]).reshape(-1)
    rows = g.reshape(-1, g.shape[-1]) if g.ndim else g.reshape(1, 1)
    keep = idx != int(a.get("padding_idx", -1))
    return {"out": embedding_backward(rows[keep], idx[keep], int(a["num_weights"]))}


def _scatter(reduce_arg: bool) -> Replay:
    """``scatter_add`` (reduce_arg False) and ``scatter_reduce.two`` (harness.impl.scatter): the terms of
    each element in index order whatever the layouts, so the captured values in C order suffice; the
    layouts choose the expanded-index path (amax/amin: its NaN and -0.0 refused)."""

    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.scatter import arm64_finite, scatter_reduce

        if "src" not in t:
            raise ParityError("the impl reproduces scatter_add and scatter_reduce of a src tensor only")
        reduce, include_self = (str(a["reduce"]), bool(a.get("include_self", True))) if reduce_arg else ("sum", True)
        dense = all(
            contiguous(a.get(f"{n}.stride") or c_strides(np.shape(t[n])), np.shape(t[n])) for n in ("self", "src")
        )
        out = scatter_reduce(
            t["self"], int(a["dim"]), t["index"], t["src"], reduce, include_self, a.get("index.stride"), dense, p
        )
        return {"out": arm64_finite(p, f"scatter_reduce {reduce}", out, t["self"], t["src"])}

    return run


def _index_add(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import arm64_finite, index_add

    alpha = a.get("alpha", 1)
    out = index_add(t["self"], int(a["dim"]), t["index"], t["source"], alpha, p)
    return {"out": arm64_finite(p, "index_add" if alpha == 1 else "index_add alpha", out, t["self"], t["source"])}


def _index_reduce(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import arm64_finite, index_reduce

    reduce, include_self = str(a["reduce"]), bool(a.get("include_self", True))
    out = index_reduce(t["self"], int(a["dim"]), t["index"], t["source"], reduce, include_self)
    return {"out": arm64_finite(p, "index_reduce", out, t["self"], t["source"])}


def _captured(op: str, run: Replay) -> Replay:
    """``run`` with a tensor or argument the trace did not capture (unwritten memory, as torch.empty's
    ``self`` of an ``index_put_``) refused in one line."""

    def checked(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        try:
            return run(t, a, p)
        except KeyError as err:
            raise ParityError(f"{op}: its {err.args[0]} was not captured") from err

    return checked


def _scalar(t: Arrays, a: Args, name: str, op: str) -> float:
    """A Scalar argument (``value``), or the one element of the 0-D tensor passed for it: an integer kept
    whole (a float would round those past 2**53), else a float."""
    if name in t:
        value = np.asarray(t[name]).reshape(-1)[0].item()
    elif a.get(name) is None:
        raise ParityError(f"{op}: its {name} was not captured")
    else:
        value = a[name]
    return value if isinstance(value, int) and not isinstance(value, bool) else float(value)


def _scatter_copy(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``scatter`` (.src, .value, and with ``reduce=`` "add" / "multiply"): harness.impl.scatter.scatter. A
    ``scatter_`` into memory nothing had written (torch.empty's: Reformer's un-sort of its hash buckets,
    ``empty(...).scatter_(-1, sorted_idx, arange)``) as ``_written_over``'s index_put_: where it writes every
    element, zeros stand in for that memory; refused where it reduces into it or leaves elements unwritten."""
    from harness.impl.scatter import arm64_finite, scatter

    src = t["src"] if "src" in t else _scalar(t, a, "value", "scatter")
    reduce = a.get("reduce")
    if "self" not in t:
        shape = a.get("self.shape")
        if reduce is not None or shape is None or "src" not in t:
            raise ParityError("scatter_: its self was not captured (unwritten memory), and it reduces or fills a value")
        marks = np.ones(np.shape(src), np.float32)
        written = scatter(np.zeros(shape, np.float32), int(a["dim"]), t["index"], marks) != 0
        t = {**t, "self": _zeros_where_all_written("scatter_", "scatter", written, np.asarray(src).dtype)}
    out = scatter(t["self"], int(a["dim"]), t["index"], src, None if reduce is None else str(reduce))
    product = "scatter_reduce prod" if reduce == "multiply" else "scatter"
    return {"out": arm64_finite(p, product, out, t["self"], np.asarray(src, np.float32))}


def _index_copy(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import index_copy

    return {"out": index_copy(t["self"], int(a["dim"]), t["index"], t["source"], p.threads)}


def _index_fill(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import index_fill

    return {"out": index_fill(t["self"], int(a["dim"]), t["index"], _scalar(t, a, "value", "index_fill"))}


def _masked_scatter(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import masked_scatter

    return {"out": masked_scatter(t["self"], t["mask"], t["source"])}


def _masked_scatter_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import masked_scatter_backward

    return {"out": masked_scatter_backward(t["grad_output"], t["mask"], [int(v) for v in a["sizes"]])}


def _put(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``put_``: index and source taken in C order, as TensorIterator takes them where their strides
    (dims over 1) decrease (another order: refused, its order of the repeats not modelled)."""
    from harness.impl.scatter import put

    for name in ("index", "source"):
        stride = a.get(f"{name}.stride")
        steps = [st for st, n in zip(stride or [], np.shape(t[name]), strict=True) if n > 1]
        if min(steps, default=1) < 1 or any(x <= y for x, y in pairwise(steps)):
            raise ParityError(f"put_: {name} of strides {stride} (not C order) is not modelled")
    return {"out": put(t["self"], t["index"], t["source"], p.threads, bool(a.get("accumulate", False)), p.aten)}


def _index_put(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``index_put`` / ``_index_put_impl_`` (with accumulate: index's backward; without: ``x[idx] = v``):
    the repeats of an element taken in the C order of the indexed positions, which ATen's
    TensorIterator keeps unless the values' strides increase over the indexed dims (refused)."""
    from harness.impl.scatter import index_put

    indices = [t.get(f"indices[{i}]") for i in range(int(a.get("indices.count", 0)))]
    lost = [i for i, ix in enumerate(indices) if ix is None and i not in a.get("indices.none", [])]
    if lost:
        raise ParityError(f"index_put: its index tensor {lost[0]} was not captured")
    accumulate, stride = bool(a.get("accumulate", False)), a.get("values.stride")
    self_ = t["self"] if "self" in t else _written_over(a, t["values"], indices, accumulate, p)
    return {"out": index_put(self_, indices, t["values"], p.threads, accumulate, stride, aten=p.aten)}


def _written_over(
    a: Args, values: np.ndarray, indices: list[np.ndarray | None], accumulate: bool, p: KernelProfile
) -> np.ndarray:
    """The self of an ``index_put_`` into memory nothing had written (torch.empty's, whose bytes the trace
    does not hold, being no data): where the put writes every element of it (the mixture-of-experts
    layers' un-sort of their tokens by a permutation), the result does not depend on those bytes, and
    zeros of the values' dtype stand in (ATen's index_put_ takes values of self's dtype only). Refused
    where the put adds to it, or leaves elements of it unwritten."""
    from harness.impl.scatter import index_put

    shape = a.get("self.shape")
    if accumulate or shape is None:
        raise ParityError("index_put_: its self was not captured (unwritten memory), and the put adds to it")
    ones = np.ones(values.shape, np.bool_)
    written = index_put(np.zeros(shape, np.bool_), indices, ones, p.threads, False, a.get("values.stride"))
    return _zeros_where_all_written("index_put_", "put", written, values.dtype)


def _zeros_where_all_written(op: str, what: str, written: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Zeros of ``dtype`` standing in for an ``op``'s self of unwritten memory, where ``written`` (a mask of
    self's shape: the elements the ``what`` writes) holds every element; else refused."""
    if not written.all():
        raise ParityError(
            f"{op}: its self was unwritten memory (not captured), and the {what} writes {int(written.sum())} "
            f"of its {written.size} elements: the rest were never data"
        )
    return np.zeros(written.shape, dtype)


def _fold_args(a: Args) -> tuple[list[int], ...]:
    """kernel_size, dilation, padding, stride of im2col / col2im (two values each)."""
    found = tuple([int(v) for v in a.get(k) or []] for k in ("kernel_size", "dilation", "padding", "stride"))
    if any(len(v) != 2 for v in found):
        raise ParityError("im2col/col2im: kernel_size, dilation, padding and stride of two values each")
    return found


def _im2col(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import im2col

    return {"out": im2col(t["self"], *_fold_args(a))}


def _col2im(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.scatter import col2im

    return {"out": col2im(t["self"], a["output_size"], *_fold_args(a))}


def _padding_backward(mode: str) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.nans import summed_nans
        from harness.impl.scatter import padding_backward

        shape = t["self"].shape if "self" in t else a.get("self.shape")
        if shape is None:
            raise ParityError(f"{mode} padding backward: its self's shape was not captured")
        g = t["grad_output"]
        # the channels-last kernel for a ChannelsLast(3d) grad_output: 2-D pads of 4-D, 3-D pads of 5-D tensors
        dims = len(a["padding"]) // 2
        cl = dims in (2, 3) and g.ndim == dims + 2 and _suggests_cl(a, "grad_output", g.shape)
        out = padding_backward(g, shape, a["padding"], mode, cl, p.aten)
        linear = lambda m: padding_backward(m, shape, a["padding"], mode, cl, p.aten)
        return {"out": summed_nans(f"{mode} padding backward", out, g, linear, p.aarch64)}

    return run


def _unfold_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nans import summed_nans
    from harness.impl.scatter import unfold_backward

    args = (a["input_sizes"], a["dim"], a["size"], a["step"])
    out = unfold_backward(t["grad_in"], *args)
    linear = lambda m: unfold_backward(m, *args)
    return {"out": summed_nans("unfold_backward", out, t["grad_in"], linear, p.aarch64)}


def not_contiguous(t: Arrays, a: Args, names: tuple[str, ...]) -> tuple[str, list[int]] | None:
    """The first captured tensor of ``names`` (and its strides) that was not C-contiguous in torch (dims
    of size 1 aside); None when all were."""
    for name in names:
        stride, x = a.get(f"{name}.stride"), t.get(name)
        if stride is None or x is None:
            continue
        if not contiguous(stride, x.shape):
            return name, stride
    return None


def _lstm_args(t: Arrays, a: Args, names: tuple[str, ...]) -> tuple[np.ndarray | None, ...]:
    """The layer's input, weights, biases (None without), h0 and c0 as (B, H), from a captured
    ``mkldnn_rnn_layer`` or its backward (``names``: their schema's names for the six tensors);
    ParityError unless an LSTM (mode 2) whose tensors were contiguous (oneDNN reads them as they lie)."""
    if int(a.get("mode", -1)) != 2:
        raise ParityError("the impl reproduces mkldnn_rnn_layer for LSTMs (mode 2) only")
    found = not_contiguous(t, a, (names[0], names[1], names[2], names[5], names[6]))
    if found:
        raise ParityError(f"the impl reproduces mkldnn_rnn_layer on contiguous tensors only, not {found[0]} {found[1]}")
    x, batch = t[names[0]], t[names[0]].shape[1]
    bias = bool(a.get("has_biases", True))
    return (
        x, t[names[1]], t[names[2]], t[names[3]] if bias else None, t[names[4]] if bias else None,
        t[names[5]].reshape(batch, -1), t[names[6]].reshape(batch, -1),
    )  # fmt: skip


def _lstm_layer(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``mkldnn_rnn_layer``: its output, hy and cy (its workspace, scratch, is not compared)."""
    from harness.impl.rnn import lstm_layer

    names = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")
    out = lstm_layer(*_lstm_args(t, a, names), bool(a.get("reverse", False)), bool(a.get("train", True)), p)
    return {"out0": out.out, "out1": out.hy.reshape(t["hx_"].shape), "out2": out.cy.reshape(t["cx_"].shape)}


def _lstm_layer_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``mkldnn_rnn_layer_backward``: grad_input, grad_weight_ih, grad_weight_hh, the bias gradient
    twice, grad_hx, grad_cx (a gradient torch was not given counts as zeros)."""
    from harness.impl.rnn import lstm_layer_backward

    names = ("input", "weight1", "weight2", "weight3", "weight4", "hx_", "cx_tmp")
    x, w_ih, w_hh, b_ih, b_hh, h0, c0 = _lstm_args(t, a, names)
    grads = [t.get(n, np.zeros(like.shape, np.float32)) for n, like in zip(
        ("grad_output", "grad_hy", "grad_cy"), (t["output"], h0, c0), strict=True)]  # fmt: skip
    g = lstm_layer_backward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, *grads, bool(a.get("reverse", False)), p)
    shapes = (x.shape, w_ih.shape, w_hh.shape, g.grad_b.shape, g.grad_b.shape, t["hx_"].shape, t["cx_tmp"].shape)
    values = (g.grad_x, g.grad_w_ih, g.grad_w_hh, g.grad_b, g.grad_b, g.grad_h0, g.grad_c0)
    return {f"out{i}": v.reshape(shape) for i, (v, shape) in enumerate(zip(values, shapes, strict=True))}


def _group_norm_channels_last(t: Arrays, a: Args, names: tuple[str, ...]) -> bool:
    """Which kernel ATen's group norm runs: the input's ``suggest_memory_format()``, ChannelsLast or
    ChannelsLast3d (True) or Contiguous (False). torch 2.13.0 reads the input and grad_out as they lie in
    memory, as if in that format (native_group_norm refuses an input not contiguous in it; the backward
    checks neither, and a grad_out of another layout gives other values), so each tensor of ``names``
    must be dense in that format (dims of size 1 aside): a ParityError names the one that is not."""

    x = t["input"]
    stride = a.get("input.stride")
    cl = stride is not None and suggests_channels_last(x.shape, stride)
    order = (0, *range(2, x.ndim), 1) if cl else range(x.ndim)
    for name in names:
        stride, shape = a.get(f"{name}.stride"), t[name].shape
        expected = strides_in_order(shape, order)
        if stride is not None and (len(stride) != len(shape) or not same_layout(list(stride), expected, shape)):
            layout = "channels-last" if cl else "contiguous (NCHW)"
            raise ParityError(
                f"group norm ran its {layout} kernel, which reads {name} as it lies in memory: the impl "
                f"reproduces it on {layout} tensors only, not {name} {stride}"
            )
    return cl


def _group_norm_dims(a: Args, x: np.ndarray) -> tuple[int, int, int, int]:
    n, c, hxw, group = (int(a[k]) for k in ("N", "C", "HxW", "group"))
    if n * c * hxw != x.size or x.ndim < 2 or x.shape[:2] != (n, c):
        raise ParityError("group norm: N, C, HxW do not match the input")
    if x.dtype != np.float32:
        raise ParityError("the impl reproduces group norm in float32 only")
    return n, c, hxw, group


def _group_norm_profile(p: KernelProfile) -> None:
    """Measured under torch 2.13.0 only: on x86 (default, AVX2) and on the Linux arm64 profiles (emulated N1,
    V1, V2 at 1 and 2 threads), NCHW and channels-last."""
    if p.torch != "2.13.0":
        raise ParityError(f"group norm is measured under torch 2.13.0 only (x86 and Linux arm64), not {p.label}")


def _group_norm(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import group_norm

    x = t["input"]
    _group_norm_profile(p)
    n, _, _, group = _group_norm_dims(a, x)
    cl = _group_norm_channels_last(t, a, ("input",))
    y, mean, rstd = group_norm(x, t.get("weight"), t.get("bias"), group, float(a["eps"]), p, cl)
    return {"out0": y, "out1": mean.reshape(n, group), "out2": rstd.reshape(n, group)}


def _group_norm_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import group_norm_backward

    x, g = t["input"], t["grad_out"]
    _group_norm_profile(p)
    _, _, _, group = _group_norm_dims(a, x)
    cl = _group_norm_channels_last(t, a, ("input", "grad_out"))
    gx, gw, gb = group_norm_backward(g, x, t["mean"], t["rstd"], t.get("weight"), group, p, cl)
    mask = a.get("output_mask", [True, True, True])
    return {name: v for name, v, keep in zip(("out0", "out1", "out2"), (gx, gw, gb), mask, strict=True) if keep}


def _grid_sample_args(t: Arrays, a: Args) -> tuple[bool, int, int]:
    """(align_corners, interpolation_mode, padding_mode) of a grid_sampler_2d on ATen's vectorised
    kernel; refused where ATen takes its scalar fallback (a gather offset past int32; the modes the impl
    does not take are refused by harness.impl.nn)."""
    x, grid = t["input"], t["grid"]
    sx = a.get("input.stride") or c_strides(x.shape)
    sg = a.get("grid.stride") or c_strides(grid.shape)
    if max((x.shape[2] - 1) * sx[2] + (x.shape[3] - 1) * sx[3], sg[2] * 7) > 2**31 - 1:
        raise ParityError("grid_sampler_2d: a gather offset past int32 (ATen's scalar fallback, not modelled)")
    return bool(a["align_corners"]), int(a["interpolation_mode"]), int(a["padding_mode"])


def _grid_sample(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import grid_sample

    align, mode, padding = _grid_sample_args(t, a)
    return {"out": grid_sample(t["input"], t["grid"], align, p, mode, padding)}


def _grid_sample_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import grid_sample_backward

    input_grad = bool(a.get("output_mask", [True, True])[0])
    align, mode, padding = _grid_sample_args(t, a)
    stride = a.get("grid.stride")
    gx, ggrid = grid_sample_backward(
        t["grad_output"], t["input"], t["grid"], align, input_grad, p,
        None if stride is None else tuple(stride), mode, padding,
    )  # fmt: skip
    return {"out1": ggrid} if gx is None else {"out0": gx, "out1": ggrid}


def _upsample_bicubic(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_bicubic2d

    if a.get("antialias"):
        raise ParityError("the impl reproduces upsample_bicubic2d without antialiasing only")
    scales = (a.get("scales_h"), a.get("scales_w"))
    return {"out": upsample_bicubic2d(t["self"], tuple(a["output_size"]), bool(a["align_corners"]), p, scales)}


def _upsample_bicubic_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_bicubic2d_backward

    scales = (a.get("scales_h"), a.get("scales_w"))
    go = t["grad_output"]
    return {"out": upsample_bicubic2d_backward(go, tuple(a["input_size"]), bool(a["align_corners"]), p, scales)}


def _upsample_aa(bilinear: bool) -> Replay:
    """The antialiased resize's replay (``bilinear``: _upsample_bilinear2d_aa, else the bicubic one)."""
    op = "_upsample_bilinear2d_aa" if bilinear else "_upsample_bicubic2d_aa"

    def replay(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.nn import upsample_bicubic2d_aa, upsample_bilinear2d_aa

        x = t["self"]
        stride = a.get("self.stride")
        if stride is not None and list(stride) != c_strides(x.shape) and int(a["output_size"][1]) == 1:
            raise ParityError(f"{op}: an output width of 1 from a non-contiguous input (not modelled)")
        scales = (a.get("scales_h"), a.get("scales_w"))
        fn = upsample_bilinear2d_aa if bilinear else upsample_bicubic2d_aa
        return {"out": fn(x, tuple(a["output_size"]), bool(a["align_corners"]), p, scales)}

    return replay


def _upsample_aa_backward(bilinear: bool) -> Replay:
    """The antialiased resize's backward replay (``bilinear`` as for _upsample_aa)."""

    def replay(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.nn import upsample_bicubic2d_aa_backward, upsample_bilinear2d_aa_backward

        scales = (a.get("scales_h"), a.get("scales_w"))
        fn = upsample_bilinear2d_aa_backward if bilinear else upsample_bicubic2d_aa_backward
        return {"out": fn(t["grad_output"], tuple(a["input_size"]), bool(a["align_corners"]), p, scales)}

    return replay


def _channels_last_contiguous(x: np.ndarray, stride: list[int] | None) -> bool:
    """ATen's is_contiguous(ChannelsLast) of a 4-d tensor (ChannelsLast3d of a 5-d one): dims of size 1
    aside, so one channel or one pixel counts."""
    stride = stride or c_strides(x.shape)
    order = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}.get(x.ndim)
    return order is not None and same_layout(list(stride), strides_in_order(x.shape, order), x.shape)


def _upsample_bilinear(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_bilinear2d, upsample_linear

    x = t["self"]
    oh, ow = (int(v) for v in a["output_size"])
    channels = x.shape[1] if x.ndim == 4 else 0
    scales = (a.get("scales_h"), a.get("scales_w"))
    # ATen's switch: its channels-last kernel for OH + OW <= 128, a channels-last input of more than 3
    # channels, or 3 channels at one thread; else its generic (non-separable) kernel
    if (
        oh + ow <= 128
        or (channels > 3 and _channels_last_contiguous(x, a.get("self.stride")))
        or (p.threads == 1 and channels == 3)
    ):
        return {"out": upsample_bilinear2d(x, (oh, ow), bool(a["align_corners"]), p, scales)}
    return {"out": upsample_linear(x, (oh, ow), bool(a["align_corners"]), p, scales)}


def _upsample_trilinear(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_linear, upsample_trilinear3d

    x = t["self"]
    size = tuple(int(v) for v in a["output_size"])
    channels = x.shape[1] if x.ndim == 5 else 0
    scales = (a.get("scales_d"), a.get("scales_h"), a.get("scales_w"))
    # ATen's switch: its channels-last kernel for a channels-last input of more than 3 channels (no output
    # size threshold in 3-D); else its generic kernel
    if channels > 3 and _channels_last_contiguous(x, a.get("self.stride")):
        return {"out": upsample_trilinear3d(x, size, bool(a["align_corners"]), p, scales)}
    return {"out": upsample_linear(x, size, bool(a["align_corners"]), p, scales)}


def _linear_backward_gradient(t: Arrays, a: Args) -> tuple[np.ndarray, bool]:
    """The captured grad_output of a linear upsampling's backward and whether it is channels-last
    contiguous (ATen's vectorised kernel then runs: harness.impl.nn ``upsample_bilinear2d_backward``)."""
    go = t["grad_output"]
    return go, _channels_last_contiguous(go, a.get("grad_output.stride"))


def _upsample_trilinear_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_trilinear3d_backward

    go, cl = _linear_backward_gradient(t, a)
    scales = (a.get("scales_d"), a.get("scales_h"), a.get("scales_w"))
    return {"out": upsample_trilinear3d_backward(go, tuple(a["input_size"]), bool(a["align_corners"]), p, scales, cl)}


def _upsample_linear1d(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_linear

    out = upsample_linear(t["self"], tuple(a["output_size"]), bool(a["align_corners"]), p, (a.get("scales"),))
    return {"out": out}


def _upsample_linear1d_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_linear1d_backward

    go = t["grad_output"]
    return {"out": upsample_linear1d_backward(go, tuple(a["input_size"]), bool(a["align_corners"]), p, a.get("scales"))}


def _upsample_bilinear_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import upsample_bilinear2d_backward

    go, cl = _linear_backward_gradient(t, a)
    scales = (a.get("scales_h"), a.get("scales_w"))
    return {"out": upsample_bilinear2d_backward(go, tuple(a["input_size"]), bool(a["align_corners"]), p, scales, cl)}


def _avg_pool_args(a: Args, dims: int) -> tuple[Any, ...]:
    divisor = a.get("divisor_override")
    return (
        a["kernel_size"], a.get("stride") or None, a.get("padding", 0), bool(a.get("ceil_mode")),
        bool(a.get("count_include_pad", True)), None if divisor is None else int(divisor), dims,
    )  # fmt: skip


def _avg_pool(dims: int) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.pool import avg_pool

        x = t["self"]
        # the kernel follows the input's suggest_memory_format (channels-last: no `0 +` before the quotient)
        return {"out": avg_pool(x, *_avg_pool_args(a, dims), _suggests_cl(a, "self", x.shape), p)}

    return run


def _avg_pool_backward(dims: int) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.pool import avg_pool_backward

        g = t["grad_output"]
        cl = _suggests_cl(a, "grad_output", g.shape)
        return {"out": avg_pool_backward(g, t["self"].shape, *_avg_pool_args(a, dims), cl, p)}

    return run


def _nearest_scales(a: Args, dims: int) -> tuple[float | None, ...]:
    names = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}[dims]
    return tuple(None if a.get(n) is None else float(a[n]) for n in names)


def _nearest_channels_last_kernel(a: Args, x: np.ndarray, output_size: tuple[int, ...]) -> bool:
    """Which forward kernel ATen's nearest upsampling ran: the channels-last one for an input contiguous
    in ChannelsLast (dims of size 1 aside) of more than 3 channels, and in 2-D also for any output with
    OH + OW <= 128; else the generic TensorIterator one (1-D always)."""
    if x.ndim == 3:
        return False
    stride = a.get("self.stride") or c_strides(x.shape)
    order = (0, 2, 3, 1) if x.ndim == 4 else (0, 2, 3, 4, 1)
    cl = same_layout(list(stride), strides_in_order(x.shape, order), x.shape) and x.shape[1] > 3
    return cl or (x.ndim == 4 and output_size[0] + output_size[1] <= 128)


def _upsample_nearest(dims: int, exact: bool) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.pool import upsample_nearest

        x = t["self"]
        size = tuple(int(v) for v in a["output_size"])
        cl = _nearest_channels_last_kernel(a, x, size)
        return {"out": upsample_nearest(x, size, _nearest_scales(a, dims), exact, cl, p)}

    return run


def _upsample_nearest_backward(dims: int, exact: bool) -> Replay:
    def run(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl.pool import upsample_nearest_backward

        g = t["grad_output"]
        if [int(v) for v in a["output_size"]] != list(g.shape[2:]):
            raise ParityError(f"nearest upsampling backward: output_size {a['output_size']} vs {list(g.shape)}")
        sizes = tuple(int(v) for v in a["input_size"])
        return {"out": upsample_nearest_backward(g, sizes, _nearest_scales(a, dims), exact, p)}

    return run


def _prelu(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_prelu_kernel`` (prelu's weight viewed to broadcast along the input's channels): harness.impl.nn.prelu
    in TensorIterator's loop (the weight read as a scalar where it is broadcast along the inner dim)."""
    from harness.impl.nn import prelu

    names = ("self", "weight")
    x, w = (float32_operand(t[n], "_prelu_kernel", n) for n in names)
    return {"out": in_loop_order(a, names, [x, w], lambda xs, run, scalar: prelu(*xs, p, run, scalar), scalar_in=True)}


def _prelu_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_prelu_kernel_backward``: harness.impl.nn.prelu_backward (the basic loop: no layout reaches a bit)."""
    from harness.impl.nn import prelu_backward

    g, x, w = (float32_operand(t[n], "_prelu_kernel_backward", n) for n in ("grad_output", "self", "weight"))
    grad_input, grad_weight = prelu_backward(g, x, w, p)
    return {"out0": grad_input, "out1": grad_weight}


def float32_operand(x: np.ndarray, op: str, name: str = "") -> np.ndarray:
    """A float32 operand (``name`` of ``op``) as it is, or refused: an op whose result keeps its operands' type."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        of = f"{name} of " if name else ""
        raise ParityError(f"the impl reproduces {op} of float32 tensors only, not {of}{x.dtype}")
    return x


def cdist_batches(x1: np.ndarray, x2: np.ndarray) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
    """cdist_impl's operands: the batch dims of x1 and x2 broadcast together, each expanded and made
    contiguous as (d, r, m) (``x.expand(...).contiguous().view(...)``); the broadcast batch shape first."""
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise ParityError(f"cdist of shapes {x1.shape} and {x2.shape}: not cdist's operands")
    batch = tuple(np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    d = int(np.prod(batch, dtype=np.int64))
    flat = [np.ascontiguousarray(np.broadcast_to(x, batch + x.shape[-2:])).reshape(d, *x.shape[-2:]) for x in (x1, x2)]
    return batch, flat[0], flat[1]


def _cdist_backward(t: Arrays, a: Args, p: KernelProfile) -> dict[str, np.ndarray]:
    """``_cdist_backward`` (x1's gradient; autograd asks for x2's with the operands swapped and transposed):
    harness.impl.nn.cdist_backward over the operands broadcast as _cdist_backward expands them, the result
    of x1's expanded shape; zeros for empty operands."""
    from harness.impl.nn import cdist_backward

    names = ("grad", "x1", "x2", "cdist")
    grad, x1, x2, dist = (float32_operand(t[n], "_cdist_backward", n) for n in names)
    batch, f1, f2 = cdist_batches(x1, x2)
    d, r1, m = f1.shape
    if 0 in (d, r1, m, f2.shape[1]):
        return {"out": np.zeros(x1.shape, np.float32)}
    g, dist = (np.ascontiguousarray(v).reshape(d, r1, f2.shape[1]) for v in (grad, dist))
    out = cdist_backward(g, f1, f2, float(a.get("p", 2.0)), dist, p)
    return {"out": out.reshape(*batch, r1, m)}


REPLAYS: dict[str, Replay] = {
    "native_group_norm": _group_norm,
    "native_group_norm_backward": _group_norm_backward,
    "mkldnn_rnn_layer": _lstm_layer,
    "mkldnn_rnn_layer_backward": _lstm_layer_backward,
    "cumsum": _cumsum,
    "pow": _pow,
    "_to_copy": _to_copy,
    "copy_": _copy_,
    **{name: _binary(name) for name in ("add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_")},
    **{name: _floor_divide for name in ("floor_divide", "floor_divide_")},
    "rsqrt": _rsqrt,
    "rsub": _rsub,
    "embedding_dense_backward": _embedding_backward,
    "max_pool2d_with_indices": _max_pool,
    "max_pool2d_with_indices_backward": _max_pool_backward,
    "_adaptive_avg_pool2d": _adaptive_avg_pool,
    "_adaptive_avg_pool2d_backward": _adaptive_avg_pool_backward,
    "native_batch_norm": _batch_norm,
    "_native_batch_norm_legit": _batch_norm,
    "_batch_norm_with_update": _batch_norm_with_update,
    "native_batch_norm_backward": _batch_norm_backward,
    "batch_norm_backward": _batch_norm_backward,
    "sigmoid": _sigmoid,
    "sigmoid_": _sigmoid,
    "sigmoid_backward": _sigmoid_backward,
    "glu": _glu,
    "glu_backward": _glu_backward,
    "grid_sampler_2d": _grid_sample,
    "grid_sampler_2d_backward": _grid_sample_backward,
    "upsample_bicubic2d": _upsample_bicubic,
    "upsample_bicubic2d_backward": _upsample_bicubic_backward,
    "_upsample_bicubic2d_aa": _upsample_aa(bilinear=False),
    "_upsample_bicubic2d_aa_backward": _upsample_aa_backward(bilinear=False),
    "_upsample_bilinear2d_aa": _upsample_aa(bilinear=True),
    "_upsample_bilinear2d_aa_backward": _upsample_aa_backward(bilinear=True),
    "upsample_bilinear2d": _upsample_bilinear,
    "upsample_bilinear2d_backward": _upsample_bilinear_backward,
    "upsample_linear1d": _upsample_linear1d,
    "upsample_trilinear3d": _upsample_trilinear,
    "upsample_trilinear3d_backward": _upsample_trilinear_backward,
    "upsample_linear1d_backward": _upsample_linear1d_backward,
    **{f"avg_pool{d}d": _avg_pool(d) for d in (2, 3)},
    **{f"avg_pool{d}d_backward": _avg_pool_backward(d) for d in (2, 3)},
    **{f"upsample_nearest{d}d": _upsample_nearest(d, False) for d in (1, 2, 3)},
    **{f"upsample_nearest{d}d_backward": _upsample_nearest_backward(d, False) for d in (1, 2, 3)},
    **{f"_upsample_nearest_exact{d}d": _upsample_nearest(d, True) for d in (1, 2, 3)},
    **{f"_upsample_nearest_exact{d}d_backward": _upsample_nearest_backward(d, True) for d in (1, 2, 3)},
    **{
        op: _captured(op, run)
        for ops, run in (
            (("scatter_add", "scatter_add_"), _scatter(False)),
            (("scatter_reduce", "scatter_reduce_"), _scatter(True)),
            (("index_add", "index_add_"), _index_add),
            (("index_reduce", "index_reduce_"), _index_reduce),
            (("scatter", "scatter_"), _scatter_copy),
            (("index_copy", "index_copy_"), _index_copy),
            (("index_fill", "index_fill_"), _index_fill),
            (("masked_scatter", "masked_scatter_"), _masked_scatter),
            (("masked_scatter_backward",), _masked_scatter_backward),
            (("put_", "put"), _put),
            (("index_put", "index_put_", "_index_put_impl", "_index_put_impl_"), _index_put),
        )
        for op in ops
    },
    "im2col": _im2col,
    "col2im": _col2im,
    **{f"reflection_pad{d}d_backward": _padding_backward("reflect") for d in (1, 2, 3)},
    **{f"replication_pad{d}d_backward": _padding_backward("replicate") for d in (1, 2, 3)},
    "unfold_backward": _unfold_backward,
    "_prelu_kernel": _prelu,
    "_prelu_kernel_backward": _prelu_backward,
    "_cdist_backward": _cdist_backward,
}
