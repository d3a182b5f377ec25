"""Runners of the model ops (harness.core.op_ids.MODEL_OP_IDS), the ops recorded as random cases only
(harness/workloads/random_cases.py MODEL_GROUPS; their torch calls: harness/record/model_ops.py),
over the impl's kernels: init and rng (torch's generator), nn (sigmoid, batch norm, cumsum, pow, the
element-wise ops), unary (silu, rsqrt), rows (softmax), reduce (mean, where, masked_fill), attention
(the flash kernel), pool, conv and linalg (embedding).

Each runner takes a case's params and stored inputs (C-ordered) and returns every output the
recorder stores, under its names. Layouts the recorder gave torch (channels-last images, transposed
(B, N, H, D) views for attention) are rebuilt from the params where the kernels depend on them.
A convolution gradient whose kernel the impl does not model is left out (the check reports it
missing, with the others still compared).

Shapes: x (N, C, H, W) images; q (B, H, L, D), k and v (B, Hk, S, D); (rows, D) for rms_norm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl.op_registry import Outputs
from harness.impl.profiles import KernelProfile

Params = Mapping[str, Any]
Arrays = Mapping[str, np.ndarray]


def _gen(p: Params) -> Any:
    from harness.impl.rng import CPUGenerator

    return CPUGenerator(int(p["torch_seed"]))


def _init(name: str, keys: tuple[str, ...]):
    def run(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
        from harness.impl import init

        kwargs = {k: p[k] for k in keys}
        return {"out": getattr(init, f"{name}_")(_gen(p), tuple(p["shape"]), profile, **kwargs)}

    return run


def _bernoulli(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rng import bernoulli_mask

    return {"out": bernoulli_mask(_gen(p), tuple(p["shape"]), float(p["p"]))}


def _native_dropout(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import native_dropout

    out, mask = native_dropout(t["x"], float(p["p"]), _gen(p))
    return {"out": out, "mask": mask}


def _silu(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.unary import backward, forward

    out = forward("silu", t["x"], profile)
    return {"out": out, "grad_x": backward("silu", t["grad_out"], t["x"], out, profile)}


def _sigmoid(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import sigmoid, sigmoid_backward

    out = sigmoid(t["x"], profile)
    return {"out": out, "grad_x": sigmoid_backward(t["grad_out"], out, profile)}


def _pow(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import pow_scalar

    return {"out": pow_scalar(t["x"], float(p["exponent"]), profile.aarch64)}


def _cumsum(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import cumsum

    return {"out": cumsum(t["x"], int(p["dim"]))}


def _where(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.reduce import where

    return {"out": where(t["condition"], t["x"], t["other"])}


def _masked_fill(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.reduce import masked_fill

    return {"out": masked_fill(t["x"], t["mask"], float(p["value"]))}


def _safe_softmax(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.rows import safe_softmax

    return {"out": safe_softmax(t["x"], profile)}


def _bnhd(x: np.ndarray) -> np.ndarray:
    """A (B, H, N, D) array laid out as torch's transposed view of a contiguous (B, N, H, D) tensor."""
    return np.ascontiguousarray(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)


def _flash_attention(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.attention import FlashCall, sdpa_backward, sdpa_forward

    lay = _bnhd if p["layout"] == "bnhd" else np.ascontiguousarray
    q, k, v, g = (lay(np.asarray(t[n], np.float32)) for n in ("q", "k", "v", "grad_out"))
    call = FlashCall(bool(p["causal"]), t.get("attn_mask"), p["scale"])
    saved = sdpa_forward(q, k, v, profile, call)
    gq, gk, gv = sdpa_backward(g, q, k, v, saved, profile, call)
    return {"out": saved.out, "lse": saved.lse, "grad_q": gq, "grad_k": gk, "grad_v": gv}


def _batch_norm(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.nn import batch_norm, batch_norm_backward

    cl = bool(p["channels_last"]) and t["x"].ndim == 4
    w, b = t.get("weight"), t.get("bias")
    y, mean, invstd, rm, rv = batch_norm(
        t["x"], w, b, t["running_mean"], t["running_var"], float(p["momentum"]), float(p["eps"]), profile, cl
    )
    gx, gw, gb = batch_norm_backward(t["grad_out"], t["x"], w, mean, invstd, profile, cl)
    out = {"out": y, "save_mean": mean, "save_invstd": invstd, "running_mean": rm, "running_var": rv, "grad_x": gx}
    return {**out, "grad_weight": gw, "grad_bias": gb} if p["affine"] else out


def _max_pool2d(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    from harness.impl.pool import max_pool2d_backward, max_pool2d_with_indices

    x = t["x"]
    k, s, pad, d = (p[n] for n in ("kernel", "stride", "padding", "dilation"))
    out, idx = max_pool2d_with_indices(x, [k, k], [s, s], [pad, pad], [d, d], bool(p["ceil_mode"]))
    return {"out": out, "indices": idx, "grad_x": max_pool2d_backward(t["grad_out"], idx, x.shape)}


def _adaptive_avg_pool2d(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    """The forward switches on the input's suggested layout; its output (and the recorder's
    grad_output, made with the output's strides) takes that layout, which the backward switches on."""
    from harness.impl.pool import adaptive_avg_pool2d, adaptive_avg_pool2d_backward
    from harness.impl.strides import channels_last_strides, suggests_channels_last

    x, g = t["x"], t["grad_out"]
    x_cl = bool(p["channels_last"]) and suggests_channels_last(x.shape, channels_last_strides(x.shape))
    g_cl = x_cl and suggests_channels_last(g.shape, channels_last_strides(g.shape))
    out = adaptive_avg_pool2d(x, tuple(p["output_size"]), x_cl, profile.lanes, profile)
    return {"out": out, "grad_x": adaptive_avg_pool2d_backward(g, x.shape, g_cl, profile.lanes, profile)}


def _conv2d(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    """Forward, then each gradient on its own (output_mask), so that one the impl does not model
    (ParityError) leaves out that gradient only."""
    from harness.impl.conv import conv2d, conv2d_backward

    stride, padding = (p["stride"],) * 2, (p["padding"],) * 2
    x, w, b = t["x"], t["weight"], t.get("bias")
    out: dict[str, np.ndarray] = {}
    refused: dict[str, str] = {}
    try:
        out["out"] = conv2d(x, w, b, stride, padding, profile)
    except ParityError as exc:
        refused["out"] = str(exc)
    names = ("grad_x", "grad_weight", "grad_bias") if p["bias"] else ("grad_x", "grad_weight")
    for i, name in enumerate(names):
        mask = tuple(j == i for j in range(3))
        try:
            grads = conv2d_backward(t["grad_out"], x, w, stride, padding, bool(p["bias"]), profile, mask)  # type: ignore[arg-type]
        except ParityError as exc:
            refused[name] = str(exc)
            continue
        out[name] = grads[i]  # type: ignore[assignment]
    if not out:
        raise ParityError("; ".join(dict.fromkeys(refused.values())))
    return Outputs(out, refused)


def _rms_norm(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    """F.rms_norm as torch 2.13 composes it on CPU: ``x * rsqrt(mean(x ** 2, -1, keepdim) + eps)``, then
    ``* weight``, each an ATen op of its own (pow, mean, add, rsqrt, mul, mul)."""
    from harness.impl.nn import binary, pow_scalar
    from harness.impl.reduce import mean_dims
    from harness.impl.unary import forward

    x = t["x"]
    mean = mean_dims(pow_scalar(x, 2.0), (x.ndim - 1,), profile).reshape(*x.shape[:-1], 1)
    inv = forward("rsqrt", binary("add", mean, float(p["eps"])), profile)
    return {"out": binary("mul", binary("mul", x, inv), t["weight"])}


def _embedding_padded(p: Params, t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    """Forward: rows gathered; backward: ``embedding_dense_backward`` skipping padding_idx positions."""
    from harness.impl.linalg import embedding, embedding_backward

    idx, g = np.asarray(t["idx"]), t["grad_out"]
    keep = idx.reshape(-1) != int(p["padding_idx"])
    rows = g.reshape(-1, g.shape[-1])[keep]
    return {
        "out": embedding(idx, t["weight"]),
        "grad_weight": embedding_backward(rows, idx.reshape(-1)[keep], int(p["vocab"])),
    }


RUNNERS = {
    "uniform": _init("uniform", ("a", "b")),
    "normal": _init("normal", ("mean", "std")),
    "trunc_normal": _init("trunc_normal", ("mean", "std", "a", "b")),
    "kaiming_uniform": _init("kaiming_uniform", ("a", "mode")),
    "bernoulli": _bernoulli,
    "native_dropout": _native_dropout,
    "silu": _silu,
    "sigmoid": _sigmoid,
    "pow": _pow,
    "cumsum": _cumsum,
    "where": _where,
    "masked_fill": _masked_fill,
    "safe_softmax": _safe_softmax,
    "flash_attention": _flash_attention,
    "batch_norm": _batch_norm,
    "max_pool2d": _max_pool2d,
    "adaptive_avg_pool2d": _adaptive_avg_pool2d,
    "conv2d": _conv2d,
    "rms_norm": _rms_norm,
    "embedding_padded": _embedding_padded,
}
