"""The model ops (harness.core.op_ids.MODEL_OP_IDS): torch calls that models make and the impl
reproduces, recorded only as seeded random cases (harness/workloads/random_cases.py MODEL_GROUPS).

Each op is an ``OpSpec`` as the fixture ops are, with no fixed cases. Where the impl follows an
ATen op's own arguments (the flash attention op, batch norm, pooling), the op is called directly,
so the recorded bits are those of that kernel; layouts (channels-last, transposed views) are made
here from the params, the stored tensors are always C-ordered. Random ops seed torch's generator
with ``torch_seed`` right before they draw. Boolean tensors (masks, conditions) are stored as bool.

Shapes: x (N, C, H, W) images, q (B, H, L, D) and k, v (B, Hk, S, D) for attention, (rows, D) for
rms_norm; each op's docstring in the draw (random_cases.py) names its params.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from harness.record.torch_ops import SEED_B, SEED_GRAD, SEED_W, SEED_X, SEED_Y, Arrays, OpSpec, Params, Tensors
from harness.workloads import inputs as gen

ATEN = torch.ops.aten


def _seeded(p: Params) -> None:
    torch.manual_seed(int(p["torch_seed"]))


def _drawn(name: str, call: str, draw: Callable[[torch.Tensor, Params], torch.Tensor]) -> OpSpec:
    """A random fill of a fresh (shape) float32 tensor: no inputs, one output."""

    def run(p: Params, t: Tensors) -> Tensors:
        _seeded(p)
        return {"out": draw(torch.empty(tuple(p["shape"])), p)}

    return OpSpec(name, call, (), lambda p: {}, run)


def _x(p: Params, scale: float = 1.0) -> Arrays:
    return {"x": gen.normal(tuple(p["shape"]), SEED_X, scale)}


def _native_dropout() -> OpSpec:
    def run(p: Params, t: Tensors) -> Tensors:
        _seeded(p)
        out, mask = torch.native_dropout(t["x"], float(p["p"]), True)
        return {"out": out, "mask": mask}

    return OpSpec("native_dropout", "torch.native_dropout(x, p, train=True)", (), _x, run)


def _activation(name: str, call: str, fn: Callable[[torch.Tensor], torch.Tensor]) -> OpSpec:
    """Forward and the backward autograd runs (silu_backward, sigmoid_backward) for a stored grad_out."""

    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        return {**_x(p, 4.0), "grad_out": gen.normal(shape, SEED_GRAD)}

    def run(p: Params, t: Tensors) -> Tensors:
        x = t["x"].requires_grad_(True)
        out = fn(x)
        out.backward(t["grad_out"])
        return {"out": out.detach(), "grad_x": x.grad}

    return OpSpec(name, call, (), make, run)


def _pow() -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        return {"x": gen.positive(shape, SEED_X) if p["exponent"] == -0.5 else gen.normal(shape, SEED_X, 3.0)}

    return OpSpec("pow", "torch.pow(x, exponent)", (), make, lambda p, t: {"out": torch.pow(t["x"], p["exponent"])})


def _cumsum() -> OpSpec:
    return OpSpec("cumsum", "torch.cumsum(x, dim)", (), lambda p: _x(p, 3.0),
                  lambda p, t: {"out": torch.cumsum(t["x"], int(p["dim"]))})  # fmt: skip


def _where() -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        cond = gen.normal(shape, SEED_Y) < np.float32(_normal_quantile(p["p_true"]))
        return {"condition": cond, "x": gen.normal(shape, SEED_X), "other": gen.normal(tuple(p["other_shape"]), SEED_W)}

    run = lambda p, t: {"out": torch.where(t["condition"], t["x"], t["other"])}
    return OpSpec("where", "torch.where(condition, x, other)", (), make, run)


_QUANTILES = {0.1: -1.2815516, 0.3: -0.5244005, 0.5: 0.0, 0.7: 0.5244005, 0.9: 1.2815516}


def _normal_quantile(q: float) -> float:
    """z with P(N(0, 1) < z) about q, for the draws' probabilities."""
    return _QUANTILES[float(q)]


def _masked_fill() -> OpSpec:
    def make(p: Params) -> Arrays:
        return {"x": gen.normal(tuple(p["shape"]), SEED_X), "mask": gen.normal(tuple(p["mask_shape"]), SEED_Y) > 0}

    run = lambda p, t: {"out": t["x"].masked_fill(t["mask"], float(p["value"]))}
    return OpSpec("masked_fill", "x.masked_fill(mask, value)", (), make, run)


def masked_rows(shape: tuple[int, ...], share: float) -> np.ndarray:
    """x with about ``share`` of its entries -inf and, where share > 0, every 5th row wholly -inf."""
    x = gen.normal(shape, SEED_X, 3.0)
    if share:
        x[gen.normal(shape, SEED_Y) < np.float32(_normal_quantile(share))] = -np.inf
        x[::5] = -np.inf
    return x


def _safe_softmax() -> OpSpec:
    def make(p: Params) -> Arrays:
        return {"x": masked_rows(tuple(p["shape"]), float(p["p_masked"]))}

    return OpSpec(
        "safe_softmax", "torch._safe_softmax(x, -1)", (), make, lambda p, t: {"out": ATEN._safe_softmax(t["x"], -1)}
    )


def _flash_mask(p: Params) -> np.ndarray | None:
    kind, b, lq, s = p["mask"], p["b"], p["l"], p["s"]
    if kind == "none":
        return None
    if kind == "where":  # F.sdpa's float form of a boolean mask; some rows wholly masked
        keep = gen.normal((lq, s), SEED_B) > -0.5
        keep[gen.normal((lq,), SEED_GRAD + 1) < -0.85] = False
        return np.where(keep, np.float32(0.0), np.float32(-np.inf)).astype(np.float32)
    shape = {"float": (lq, s), "batch": (b, 1, lq, s), "rows": (lq, 1), "cols": (1, s)}[kind]
    return gen.normal(shape, SEED_B)


def _flash_attention() -> OpSpec:
    def make(p: Params) -> Arrays:
        q_shape = (p["b"], p["heads"], p["l"], p["d"])
        kv_shape = (p["b"], p["kv_heads"], p["s"], p["d"])
        arrays = {
            "q": gen.normal(q_shape, SEED_X),
            "k": gen.normal(kv_shape, SEED_Y),
            "v": gen.normal(kv_shape, SEED_W),
            "grad_out": gen.normal(q_shape, SEED_GRAD),
        }
        mask = _flash_mask(p)
        return arrays if mask is None else {**arrays, "attn_mask": mask}

    def laid_out(x: torch.Tensor, layout: str) -> torch.Tensor:
        """bnhd: a transposed view of a contiguous (B, N, H, D) tensor, as models hand it."""
        return x if layout == "bhnd" else x.transpose(1, 2).contiguous().transpose(1, 2)

    def run(p: Params, t: Tensors) -> Tensors:
        q, k, v, g = (laid_out(t[n], p["layout"]) for n in ("q", "k", "v", "grad_out"))
        mask, causal, scale = t.get("attn_mask"), bool(p["causal"]), p["scale"]
        out, lse = ATEN._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, attn_mask=mask, scale=scale)
        gq, gk, gv = ATEN._scaled_dot_product_flash_attention_for_cpu_backward(
            g, q, k, v, out, lse, 0.0, causal, attn_mask=mask, scale=scale
        )
        return {"out": out, "lse": lse, "grad_q": gq, "grad_k": gk, "grad_v": gv}

    call = "aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, is_causal, attn_mask, scale) and _backward"
    return OpSpec("flash_attention", call, (), make, run)


def _channels_last(x: torch.Tensor, on: bool) -> torch.Tensor:
    return x.contiguous(memory_format=torch.channels_last) if on and x.dim() == 4 else x


def _batch_norm() -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        c = shape[1]
        arrays = {
            "x": (gen.normal(shape, SEED_X, 2.0) + np.float32(0.5)).astype(np.float32),
            "grad_out": gen.normal(shape, SEED_GRAD),
            "running_mean": gen.normal((c,), SEED_B, 0.1),
            "running_var": (1 + np.abs(gen.normal((c,), SEED_Y, 0.1))).astype(np.float32),
        }
        if p["affine"]:
            arrays["weight"] = (1 + gen.normal((c,), SEED_W, 0.1)).astype(np.float32)
            arrays["bias"] = gen.normal((c,), SEED_B + 1, 0.1)
        return arrays

    def run(p: Params, t: Tensors) -> Tensors:
        cl = bool(p["channels_last"])
        x, g = _channels_last(t["x"], cl), _channels_last(t["grad_out"], cl)
        rm, rv, w, b = t["running_mean"], t["running_var"], t.get("weight"), t.get("bias")
        out, mean, invstd = ATEN.native_batch_norm(x, w, b, rm, rv, True, p["momentum"], p["eps"])
        affine = bool(p["affine"])
        gx, gw, gb = ATEN.native_batch_norm_backward(
            g, x, w, rm, rv, mean, invstd, True, p["eps"], [True, affine, affine]
        )
        result = {
            "out": out,
            "save_mean": mean,
            "save_invstd": invstd,
            "running_mean": rm,
            "running_var": rv,
            "grad_x": gx,
        }
        return {**result, "grad_weight": gw, "grad_bias": gb} if affine else result

    call = "aten.native_batch_norm(x, weight, bias, running_mean, running_var, True, momentum, eps) and _backward"
    return OpSpec("batch_norm", call, (), make, run)


def _pool_inputs(out_shape: Callable[[Params], tuple[int, ...]]) -> Callable[[Params], Arrays]:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        return {"x": gen.normal(shape, SEED_X, 3.0), "grad_out": gen.normal(tuple(out_shape(p)), SEED_GRAD)}

    return make


def _max_pool_args(p: Params) -> tuple:
    k, s, pad, d = p["kernel"], p["stride"], p["padding"], p["dilation"]
    return [k, k], [s, s], [pad, pad], [d, d], bool(p["ceil_mode"])


def _max_pool2d() -> OpSpec:
    def out_shape(p: Params) -> tuple[int, ...]:
        return tuple(ATEN.max_pool2d_with_indices(torch.empty(tuple(p["shape"])), *_max_pool_args(p))[0].shape)

    def run(p: Params, t: Tensors) -> Tensors:
        cl = bool(p["channels_last"])
        x = _channels_last(t["x"], cl)
        out, idx = ATEN.max_pool2d_with_indices(x, *_max_pool_args(p))
        gx = ATEN.max_pool2d_with_indices_backward(_channels_last(t["grad_out"], cl), x, *_max_pool_args(p), idx)
        return {"out": out, "indices": idx, "grad_x": gx}

    call = "aten.max_pool2d_with_indices(x, k, stride, padding, dilation, ceil_mode) and _backward"
    return OpSpec("max_pool2d", call, (), _pool_inputs(out_shape), run)


def _adaptive_avg_pool2d() -> OpSpec:
    def run(p: Params, t: Tensors) -> Tensors:
        x = _channels_last(t["x"], bool(p["channels_last"]))
        out = ATEN._adaptive_avg_pool2d(x, list(p["output_size"]))
        g = torch.empty_strided(out.shape, out.stride()).copy_(t["grad_out"])  # grad_output as the output lies
        return {"out": out, "grad_x": ATEN._adaptive_avg_pool2d_backward(g, x)}

    shape = lambda p: (*p["shape"][:2], *p["output_size"])
    return OpSpec("adaptive_avg_pool2d", "aten._adaptive_avg_pool2d(x, output_size) and _backward", (),
                  _pool_inputs(shape), run)  # fmt: skip


def conv_out_shape(p: Params) -> tuple[int, ...]:
    (n, _, h, w), (oc, _, kh, kw) = p["x_shape"], p["w_shape"]
    s, pad = p["stride"], p["padding"]
    return (n, oc, (h + 2 * pad - kh) // s + 1, (w + 2 * pad - kw) // s + 1)


def _conv2d() -> OpSpec:
    def make(p: Params) -> Arrays:
        oc = p["w_shape"][0]
        arrays = {"x": gen.normal(tuple(p["x_shape"]), SEED_X), "weight": gen.normal(tuple(p["w_shape"]), SEED_W, 0.2)}
        if p["bias"]:
            arrays["bias"] = gen.normal((oc,), SEED_B)
        return {**arrays, "grad_out": gen.normal(conv_out_shape(p), SEED_GRAD)}

    def run(p: Params, t: Tensors) -> Tensors:
        names = ("x", "weight", "bias") if p["bias"] else ("x", "weight")
        for name in names:
            t[name].requires_grad_(True)
        out = F.conv2d(t["x"], t["weight"], t.get("bias"), stride=p["stride"], padding=p["padding"])
        out.backward(t["grad_out"])
        return {"out": out.detach(), **{f"grad_{n}": t[n].grad for n in names}}

    return OpSpec("conv2d", "F.conv2d(x, weight, bias, stride, padding)", (), make, run)


def _rms_norm() -> OpSpec:
    def make(p: Params) -> Arrays:
        d = p["shape"][-1]
        return {
            "x": gen.normal(tuple(p["shape"]), SEED_X),
            "weight": (1 + gen.normal((d,), SEED_W, 0.1)).astype(np.float32),
        }

    def run(p: Params, t: Tensors) -> Tensors:
        return {"out": F.rms_norm(t["x"], (t["x"].shape[-1],), t["weight"], eps=p["eps"])}

    return OpSpec("rms_norm", "F.rms_norm(x, (D,), weight, eps)", (), make, run)


def _embedding_padded() -> OpSpec:
    def make(p: Params) -> Arrays:
        idx_shape, vocab, dim = tuple(p["idx_shape"]), p["vocab"], p["dim"]
        idx = gen.integers(idx_shape, SEED_Y, vocab)
        idx.reshape(-1)[::3] = p["padding_idx"]  # every third position the padding row
        return {
            "weight": gen.normal((vocab, dim), SEED_X),
            "idx": idx,
            "grad_out": gen.normal((*idx_shape, dim), SEED_GRAD),
        }

    def run(p: Params, t: Tensors) -> Tensors:
        w = t["weight"].requires_grad_(True)
        out = F.embedding(t["idx"], w, padding_idx=p["padding_idx"])
        out.backward(t["grad_out"])
        return {"out": out.detach(), "grad_weight": w.grad}

    return OpSpec("embedding_padded", "F.embedding(idx, weight, padding_idx)", (), make, run)


MODEL_OPS: tuple[OpSpec, ...] = (
    _drawn("uniform", "torch.nn.init.uniform_(t, a, b)", lambda t, p: torch.nn.init.uniform_(t, p["a"], p["b"])),
    _drawn("normal", "torch.nn.init.normal_(t, mean, std)", lambda t, p: torch.nn.init.normal_(t, p["mean"], p["std"])),
    _drawn(
        "trunc_normal",
        "torch.nn.init.trunc_normal_(t, mean, std, a, b)",
        lambda t, p: torch.nn.init.trunc_normal_(t, p["mean"], p["std"], p["a"], p["b"]),
    ),
    _drawn(
        "kaiming_uniform",
        "torch.nn.init.kaiming_uniform_(t, a, mode)",
        lambda t, p: torch.nn.init.kaiming_uniform_(t, a=p["a"], mode=p["mode"]),
    ),
    _drawn("bernoulli", "torch.empty(shape).bernoulli_(p)", lambda t, p: t.bernoulli_(p["p"])),
    _native_dropout(),
    _activation("silu", "F.silu(x)", F.silu),
    _activation("sigmoid", "torch.sigmoid(x)", torch.sigmoid),
    _pow(),
    _cumsum(),
    _where(),
    _masked_fill(),
    _safe_softmax(),
    _flash_attention(),
    _batch_norm(),
    _max_pool2d(),
    _adaptive_avg_pool2d(),
    _conv2d(),
    _rms_norm(),
    _embedding_padded(),
)
MODEL_OPS_BY_NAME: dict[str, OpSpec] = {op.name: op for op in MODEL_OPS}
