"""Seeded random cases: shapes and values no committed fixture holds, per op group.

The groups of the 26 fixture ops (``FIXTURE_GROUPS``) come first, then those of the model ops
(``MODEL_GROUPS``, ``harness.core.op_ids.MODEL_OP_IDS``): ops that models run and the impl
reproduces, recorded only as random cases (their torch calls: harness/record/model_ops.py; the
impl's runners: harness/impl/model_ops.py).

``python -m harness.record.ops_child --random N --seed S`` records N cases of every group
(each group's cases spread over its ops) instead of the fixed ones, and writes an ordinary op
fixture that `python -m harness.replay.check --fixture` checks like any other. Sizes are drawn
around what changes bits: multiples of every vector width (4, 8, 16 lanes) and one either side,
the element-wise grain size (32768) where ``at::parallel_for`` starts to split, and MKL/NVPL
blocking sizes for the matrix products. Values: the ops' own input makers, salted per case
(``inputs.salted``), so two cases never share a value stream.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Case:
    """One recorded case of an op: its name and the params its inputs and call follow (the fixed
    cases of ``harness.record.torch_ops`` and the random ones here; torch-free, so readers check
    random fixtures without it)."""

    name: str
    params: Mapping[str, Any]


GRAIN = 32768  # at::internal::GRAIN_SIZE
MAX_PER_GROUP = 2000  # cases per group a draw may have: a reader redraws it, so a larger one is refused
MAX_SEED = 1 << 63
# The groups of the 26 fixture ops, then those of the model ops (MODEL_OPS: recorded as random cases
# only). Groups are only ever appended: each group's cases depend on the seed and the ops before it
# (its offset), so a new group leaves every earlier group's draw as it was.
FIXTURE_GROUPS: dict[str, tuple[str, ...]] = {
    "elementwise": ("exp", "log", "tanh", "rsqrt", "gelu", "gelu_tanh", "add", "mul", "div"),
    "rows": ("layer_norm", "softmax", "log_softmax", "cross_entropy"),
    "reductions": ("sum", "mean", "var", "vector_norm"),
    "linalg": ("linear", "matmul"),
    "attention": ("sdpa", "sdpa_dropout"),
    "rng": ("randn", "dropout", "embedding"),
    "training": ("clip_grad_norm", "adamw_step"),
}
MODEL_GROUPS: dict[str, tuple[str, ...]] = {
    "init": ("uniform", "normal", "trunc_normal", "kaiming_uniform", "bernoulli", "native_dropout"),
    "activations": ("silu", "sigmoid", "pow", "cumsum"),
    "masking": ("where", "masked_fill", "safe_softmax"),
    "flash": ("flash_attention",),
    "batch_norm": ("batch_norm",),
    "pooling": ("max_pool2d", "adaptive_avg_pool2d"),
    "conv": ("conv2d",),
    "norms": ("rms_norm", "embedding_padded"),
}
GROUPS: dict[str, tuple[str, ...]] = {**FIXTURE_GROUPS, **MODEL_GROUPS}
_DOMAIN = {"log": "positive", "rsqrt": "positive"}


def _near_width(rng: np.random.Generator, high: int) -> int:
    """A size at, just below or just above a multiple of 4, 8 or 16 lanes (>= 1)."""
    width = int(rng.choice((4, 8, 16)))
    base = width * int(rng.integers(0, max(1, high // width) + 1))
    return max(1, base + int(rng.integers(-1, 2)))


def _length(rng: np.random.Generator, high: int, grain: bool = False) -> int:
    """A length: small (scalar tails), around vector widths, or around the thread-split grain."""
    kind = rng.integers(0, 4 if grain else 3)
    if kind == 0:
        return int(rng.integers(1, 40))
    if kind == 1:
        return _near_width(rng, high)
    if kind == 2:
        return int(rng.integers(1, high + 1))
    return int(GRAIN * rng.integers(1, 3) + rng.integers(-17, 18))


def _elementwise(op: str, rng: np.random.Generator) -> dict:
    if op in ("add", "mul", "div"):
        if rng.integers(0, 2):
            n = _length(rng, 4096, grain=True)
            return {"a_shape": [n], "b_shape": [n]}
        rows, cols = int(rng.integers(1, 80)), _length(rng, 700)
        return {"a_shape": [rows, cols], "b_shape": [cols]}  # b broadcasts: its grad is a sum
    n = _length(rng, 4096, grain=True)
    shape = [n] if rng.integers(0, 2) else [int(rng.integers(1, 9)), max(1, n // 8)]
    return {"shape": shape, "domain": _DOMAIN.get(op, "normal")}


def _rows(op: str, rng: np.random.Generator) -> dict:
    rows, cols = int(rng.integers(1, 70)), _length(rng, 1100)
    if op == "cross_entropy":
        return {"n": rows * int(rng.integers(1, 9)), "classes": max(2, cols), "ignore_every": int(rng.integers(0, 12))}
    if op == "layer_norm":
        return {"shape": [rows, cols], "eps": 1e-5}
    return {"shape": [rows, cols], "dim": -1}


def _reductions(op: str, rng: np.random.Generator) -> dict:
    kind = int(rng.integers(0, 3))
    if kind == 0:
        return {"shape": [_length(rng, 4096, grain=True)], "dim": None}
    shape = [int(rng.integers(1, 90)), _length(rng, 700)]
    return {"shape": shape, "dim": None if kind == 1 else int(rng.choice((0, -1)))}


def _linalg(op: str, rng: np.random.Generator) -> dict:
    m, k, n = (_length(rng, 300) for _ in range(3))
    if op == "linear":
        lead = [m] if rng.integers(0, 2) else [int(rng.integers(1, 5)), max(1, m // 4)]
        return {"x_shape": [*lead, k], "out_features": n, "bias": bool(rng.integers(0, 2))}
    batch = [int(rng.integers(1, 4))] * int(rng.integers(0, 2))
    return {"a_shape": [*batch, m, k], "b_shape": [*batch, k, n]}


def _attention(op: str, rng: np.random.Generator) -> dict:
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), _length(rng, 300), int(rng.choice((8, 16, 32, 64)))]
    params: dict = {"shape": shape, "dropout_p": 0.0, "is_causal": True}
    if op == "sdpa_dropout":
        params.update(dropout_p=float(rng.choice((0.1, 0.2, 0.5))), torch_seed=int(rng.integers(0, 2**31)))
    return params


def _rng_ops(op: str, rng: np.random.Generator) -> dict:
    if op == "randn":
        return {"n": _length(rng, 4096, grain=True), "torch_seed": int(rng.integers(0, 2**31))}
    if op == "dropout":
        shape = [_length(rng, 4096, grain=True)]
        return {"shape": shape, "p": float(rng.choice((0.1, 0.2, 0.5))), "torch_seed": int(rng.integers(0, 2**31))}
    return {"vocab": int(rng.integers(2, 100)), "dim": _length(rng, 600), "idx_shape": [int(rng.integers(1, 70))]}


def _training(op: str, rng: np.random.Generator) -> dict:
    if op == "clip_grad_norm":
        return {"max_norm": float(rng.choice((0.5, 1.0, 5.0))), "grad_scale": float(rng.choice((1e-3, 0.1, 1.0, 3.0)))}
    shapes = [[int(rng.integers(1, 80)), _length(rng, 600)] for _ in range(int(rng.integers(1, 3)))]
    shapes += [[_length(rng, 600)] for _ in range(int(rng.integers(0, 2)))]
    return {
        "lr": float(rng.choice((1e-3, 6e-4, 3e-2))),
        "betas": [0.9, float(rng.choice((0.95, 0.99, 0.999)))],
        "eps": 1e-8,
        "weight_decay": float(rng.choice((0.0, 0.1))),
        "steps": int(rng.integers(1, 4)),
        "shapes": shapes,
    }


# ----------------------------------------------------------------------------- the model ops' groups


def _torch_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31))


def _flat_or_rows(rng: np.random.Generator) -> list[int]:
    """A 1-D length or (rows, length / 8): the element-wise loops see one flat run either way."""
    n = _length(rng, 4096, grain=True)
    return [n] if rng.integers(0, 2) else [int(rng.integers(1, 9)), max(1, n // 8)]


def _init(op: str, rng: np.random.Generator) -> dict:
    if op == "kaiming_uniform":  # a Linear's (out, in) or a Conv2d's (out, in, k, k) weight
        if rng.integers(0, 2):
            shape = [_length(rng, 300), _length(rng, 300)]
        else:
            k = int(rng.choice((1, 3, 7)))
            shape = [int(rng.integers(1, 65)), int(rng.integers(1, 33)), k, k]
        mode = str(rng.choice(("fan_in", "fan_out")))
        return {
            "shape": shape,
            "a": float(rng.choice((0.0, math.sqrt(5.0)))),
            "mode": mode,
            "torch_seed": _torch_seed(rng),
        }
    shape = _flat_or_rows(rng)
    if op == "uniform":
        a, b = float(rng.choice((-2.0, -1.0, -0.1))), float(rng.choice((0.1, 1.0, 2.0)))
        return {"shape": shape, "a": a, "b": b, "torch_seed": _torch_seed(rng)}
    if op == "normal":
        mean, std = float(rng.choice((0.0, 0.5, -1.0))), float(rng.choice((0.02, 0.5, 1.0)))
        return {"shape": shape, "mean": mean, "std": std, "torch_seed": _torch_seed(rng)}
    if op == "trunc_normal":
        if rng.integers(0, 4) == 0:  # far in the tail (mass <= 0.3): uniform candidates, log through MKL VML
            a = float(rng.choice((1.0, 1.5, 2.0)))
            bounds = {"mean": 0.0, "std": 1.0, "a": a, "b": a + float(rng.choice((0.25, 1.0)))}
        else:  # normal candidates, redrawn where outside [a, b]
            bounds = {
                "mean": 0.0,
                "std": float(rng.choice((0.02, 0.7, 1.0))),
                "a": float(rng.choice((-2.0, -1.0, -0.5))),
                "b": 2.0,
            }
        return {"shape": shape, **bounds, "torch_seed": _torch_seed(rng)}
    probabilities = (0.1, 0.5, 0.9) if op == "bernoulli" else (0.1, 0.2, 0.5)
    return {"shape": shape, "p": float(rng.choice(probabilities)), "torch_seed": _torch_seed(rng)}


POW_EXPONENTS = (2.0, 3.0, -0.5, -1.0, -2.0, 1.0, 0.0)  # what nn.RMSNorm and its backward raise to


def _activations(op: str, rng: np.random.Generator) -> dict:
    if op == "cumsum":
        if rng.integers(0, 4) == 0:  # one long dim past the grain
            shape = [int(rng.integers(1, 4)), _length(rng, 4096, grain=True)]
        else:
            shape = [int(rng.integers(1, 41)) for _ in range(int(rng.integers(1, 4)))]
        return {"shape": shape, "dim": int(rng.integers(0, len(shape)))}
    shape = _flat_or_rows(rng)
    if op == "pow":
        return {"shape": shape, "exponent": float(rng.choice(POW_EXPONENTS))}
    return {"shape": shape}


FILL_VALUES = ("-inf", "0.0", "-1e9", "-10000.0")  # masked_fill's value, as text: JSON has no infinity


def _masking(op: str, rng: np.random.Generator) -> dict:
    rows, cols = int(rng.integers(1, 70)), _length(rng, 1100)
    if op == "where":  # torch.where(condition, x, other), other broadcast along rows or not
        other = [cols] if rng.integers(0, 2) else [rows, cols]
        return {"shape": [rows, cols], "other_shape": other, "p_true": float(rng.choice((0.1, 0.5, 0.9)))}
    if op == "masked_fill":
        mask = [1, cols] if rng.integers(0, 2) else [rows, cols]
        return {"shape": [rows, cols], "mask_shape": mask, "value": str(rng.choice(FILL_VALUES))}
    return {"shape": [rows, cols], "p_masked": float(rng.choice((0.0, 0.3, 0.7)))}  # -inf entries, whole rows too


FLASH_MASKS = ("none", "none", "float", "where", "batch", "rows", "cols")
FLASH_WORK = 4_000_000  # B * H * L * S * D at most: each case a fraction of a second


def _flash(op: str, rng: np.random.Generator) -> dict:
    """``_scaled_dot_product_flash_attention_for_cpu`` and its backward: grouped key/value heads, float
    masks of each shape it takes (0/-inf with whole rows masked: "where"), a given scale, and q, k, v,
    grad_out contiguous ("bhnd") or transposed views of (B, N, H, D) ("bnhd")."""
    kv_heads, group = int(rng.integers(1, 4)), int(rng.choice((1, 1, 2, 4)))
    lq = _length(rng, 300)
    s = lq if rng.integers(0, 2) else _length(rng, 300)
    d = int(rng.choice((8, 16, 64, 80))) if rng.integers(0, 2) else int(rng.integers(2, 130))
    b = int(rng.integers(1, 3))
    while b * kv_heads * group * lq * s * d > FLASH_WORK:
        lq, s = max(1, lq // 2), max(1, s // 2)
    scale = None if rng.integers(0, 2) else float(rng.choice((0.25, 0.3, 1.7)))
    return {
        "b": b, "heads": kv_heads * group, "kv_heads": kv_heads, "l": lq, "s": s, "d": d,
        "causal": bool(rng.integers(0, 2)), "mask": str(rng.choice(FLASH_MASKS)), "scale": scale,
        "layout": str(rng.choice(("bhnd", "bnhd"))),
    }  # fmt: skip


def _batch_norm(op: str, rng: np.random.Generator) -> dict:
    """Training-mode batch norm (running stats updated) and its backward: NCHW or channels-last images,
    (N, C) (BatchNorm1d), (N, C, 1, 1), (N, C, L) up to past the grain."""
    kind = int(rng.integers(0, 5))
    if kind == 0:
        shape = [int(rng.integers(1, 7)), int(rng.integers(1, 21)), int(rng.integers(1, 14)), int(rng.integers(1, 14))]
    elif kind == 1:
        shape = [int(rng.integers(2, 71)), _length(rng, 64)]
    elif kind == 2:
        shape = [int(rng.integers(2, 6)), _length(rng, 64), 1, 1]
    elif kind == 3:
        shape = [int(rng.integers(1, 4)), int(rng.integers(1, 21)), _length(rng, 300)]
    else:
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 5)), GRAIN // 2 + int(rng.integers(-17, 18))]
    if math.prod(shape) // shape[1] < 2:  # training needs two values a channel
        shape[0] += 1
    return {
        "shape": shape, "channels_last": bool(len(shape) == 4 and rng.integers(0, 2)),
        "affine": bool(rng.integers(0, 4)), "momentum": float(rng.choice((0.1, 0.01, 0.3))), "eps": 1e-5,
    }  # fmt: skip


def _pooling(op: str, rng: np.random.Generator) -> dict:
    shape = [int(rng.integers(1, 4)), _length(rng, 24), int(rng.integers(1, 20)), int(rng.integers(1, 20))]
    cl = bool(rng.integers(0, 2))
    if op == "max_pool2d":
        k, s, d = int(rng.integers(1, 5)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        span = (k - 1) * d + 1  # every window then holds an element of the input (none of padding only)
        shape[2], shape[3] = max(shape[2], span), max(shape[3], span)
        return {
            "shape": shape, "kernel": k, "stride": s, "padding": min(k // 2, 1), "dilation": d,
            "ceil_mode": bool(rng.integers(0, 2)), "channels_last": cl,
        }  # fmt: skip
    return {"shape": shape, "output_size": [int(rng.integers(1, 19)), int(rng.integers(1, 19))], "channels_last": cl}


def _conv(op: str, rng: np.random.Generator) -> dict:
    """2-D convolutions around the kernels' switches: 1x1 with stride 1 and fewer than 16 images (ATen's
    own kernel at 1 thread), one small image, channel blocks of 8 and 16 (and C = 3), strides that
    divide the width or not. Kernel sides are odd or 2, and outputs narrower than 32 (the impl modelled
    neither an even side of 2 * padding > 4 nor oneDNN gemm:jit's bias rows of 32 or more when the
    draw was fixed; it does now, and the draw stays the committed one)."""
    n = int(rng.choice((1, 1, 2, 3, 4, 16, 17)))
    c = 3 if rng.integers(0, 5) == 0 else _near_width(rng, 40)
    oc = _near_width(rng, 40)
    kh = int(rng.choice((1, 1, 2, 3, 3, 5, 7)))
    kw = kh if rng.integers(0, 4) else int(rng.choice((1, 3, 5)))
    stride, padding = int(rng.choice((1, 1, 2, 3))), int(rng.integers(0, min(kh, kw) // 2 + 1))
    h, w = int(rng.integers(kh, 20)), int(rng.integers(kw, 20))
    while (w + 2 * padding - kw) // stride + 1 >= 32:
        w -= 1
    return {
        "x_shape": [n, c, h, w], "w_shape": [oc, c, kh, kw], "stride": stride, "padding": padding,
        "bias": bool(rng.integers(0, 2)),
    }  # fmt: skip


def _norms(op: str, rng: np.random.Generator) -> dict:
    if op == "rms_norm":  # F.rms_norm(x, (D,), weight, eps): torch 2.13 runs pow, mean, add, rsqrt, mul, mul
        d = _length(rng, 1100)
        lead = [int(rng.integers(1, 70))] if rng.integers(0, 2) else [int(rng.integers(1, 4)), int(rng.integers(1, 20))]
        return {"shape": [*lead, d], "eps": float(rng.choice((1e-6, 1e-5, RMS_DEFAULT_EPS)))}
    vocab = int(rng.integers(2, 100))
    idx = [int(rng.integers(1, 70))] if rng.integers(0, 2) else [int(rng.integers(1, 5)), int(rng.integers(1, 20))]
    return {"vocab": vocab, "dim": _length(rng, 600), "idx_shape": idx, "padding_idx": int(rng.integers(0, vocab))}


RMS_DEFAULT_EPS = float(np.finfo(np.float32).eps)  # F.rms_norm's eps=None


_DRAW = {
    "elementwise": _elementwise,
    "rows": _rows,
    "reductions": _reductions,
    "linalg": _linalg,
    "attention": _attention,
    "rng": _rng_ops,
    "training": _training,
    "init": _init,
    "activations": _activations,
    "masking": _masking,
    "flash": _flash,
    "batch_norm": _batch_norm,
    "pooling": _pooling,
    "conv": _conv,
    "norms": _norms,
}


def model_tensor_names(op: str, params: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """The input and output names a random case of model op ``op`` (``MODEL_GROUPS``) records."""
    if op in ("uniform", "normal", "trunc_normal", "kaiming_uniform", "bernoulli"):
        return set(), {"out"}
    fixed: dict[str, tuple[set[str], set[str]]] = {
        "native_dropout": ({"x"}, {"out", "mask"}),
        "silu": ({"x", "grad_out"}, {"out", "grad_x"}),
        "sigmoid": ({"x", "grad_out"}, {"out", "grad_x"}),
        "pow": ({"x"}, {"out"}),
        "cumsum": ({"x"}, {"out"}),
        "where": ({"condition", "x", "other"}, {"out"}),
        "masked_fill": ({"x", "mask"}, {"out"}),
        "safe_softmax": ({"x"}, {"out"}),
        "max_pool2d": ({"x", "grad_out"}, {"out", "indices", "grad_x"}),
        "adaptive_avg_pool2d": ({"x", "grad_out"}, {"out", "grad_x"}),
        "rms_norm": ({"x", "weight"}, {"out"}),
        "embedding_padded": ({"weight", "idx", "grad_out"}, {"out", "grad_weight"}),
    }
    if op in fixed:
        return fixed[op]
    if op == "flash_attention":
        inputs = {"q", "k", "v", "grad_out"} | ({"attn_mask"} if params.get("mask") != "none" else set())
        return inputs, {"out", "lse", "grad_q", "grad_k", "grad_v"}
    if op == "batch_norm":
        affine = {"weight", "bias"} if params.get("affine") else set()
        inputs = {"x", "grad_out", "running_mean", "running_var"} | affine
        outputs = {"out", "save_mean", "save_invstd", "running_mean", "running_var", "grad_x"}
        return inputs, outputs | {f"grad_{n}" for n in affine}
    if op == "conv2d":
        bias = {"bias"} if params.get("bias") else set()
        return {"x", "weight", "grad_out"} | bias, {"out", "grad_x", "grad_weight"} | {f"grad_{n}" for n in bias}
    raise KeyError(op)


def draw_problem(per_group: object, seed: object) -> str:
    """Why (per_group, seed) is no draw this module makes ("" if it is one), before any is drawn."""
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (per_group, seed))
    if not whole or not 1 <= per_group <= MAX_PER_GROUP or not 0 <= seed < MAX_SEED:  # type: ignore[operator]
        return f"per_group {per_group!r} and seed {seed!r} are no draw (1..{MAX_PER_GROUP} cases a group, a seed >= 0)"
    return ""


@cache
def expected_params(per_group: int, seed: int) -> dict[tuple[str, str], dict]:
    """(op, case) -> params of every random case of a draw, in the draw's order: what a reader
    checks a random fixture's cases against."""
    return {(op, c.name): dict(c.params) for op, cases in random_cases(per_group, seed).items() for c in cases}


def random_cases(per_group: int, seed: int, ops: list[str] | None = None) -> dict[str, list[Case]]:
    """op -> its random cases; every group gets ``per_group`` cases spread round-robin over its
    ops. With ``ops``, only those ops' cases of the same draw: a restricted recording holds a part
    of the full draw, case for case, so a reader checks it against the full draw. Case names say
    the draw: ``r<seed>-<group>-<index>``; the salt that makes their values is in their params."""
    out: dict[str, list[Case]] = {}
    offset = 0  # ops in the groups before this one: seeds each group's stream and salts
    for group, members in GROUPS.items():
        rng = np.random.Generator(np.random.PCG64([seed, offset]))
        for i in range(per_group):
            op = members[i % len(members)]
            params = {**_DRAW[group](op, rng), "salt": seed * 100_000 + offset * 1000 + i + 1}
            if ops is None or op in ops:
                out.setdefault(op, []).append(Case(f"r{seed}-{group}-{i:03d}", params))
        offset += len(members)
    return out
