"""The 26 recorded ops: their cases, their inputs and the PyTorch calls that produce the bits.

Each op runs at several cases chosen for what changes bits on a CPU:
- sizes that are not multiples of 16, so a vector body and a scalar tail both run;
- rows of several lengths (reductions over a row change order with its length);
- at least one case of >= 32768 elements, the size from which ATen's CPU kernels split
  the work between threads (TensorIterator's GRAIN_SIZE), so 1 and 2 threads can differ.
Shapes follow nanoGPT where that fits: head dim 64, vocab 65, n_embd 384.

Differentiable ops record the forward output ``out`` and, for a stored upstream gradient
``grad_out``, the gradient of every differentiable input (``grad_<name>``). RNG-using ops
call ``torch.manual_seed(params["torch_seed"])`` right before the op.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from harness.core.op_ids import OP_IDS
from harness.workloads import inputs as gen
from harness.workloads.random_cases import Case

Params = Mapping[str, Any]
Arrays = dict[str, np.ndarray]
Tensors = dict[str, torch.Tensor]

# Seeds of the input roles; equal (shape, seed) pairs give equal arrays, stored once.
SEED_X = 1
SEED_Y = 2
SEED_GRAD = 7
SEED_W = 11
SEED_B = 12
TORCH_SEED = 1337

LARGE = (65, 509)  # 33,085 elements: parallel with 2 threads; rows of 509 = 31*16 + 13
VECTOR = (1001,)  # 62*16 + 9
TINY = (7,)  # below one vector: scalar path only


@dataclass(frozen=True)
class OpSpec:
    name: str
    call: str  # the PyTorch call recorded, for reports
    cases: tuple[Case, ...]
    make_inputs: Callable[[Params], Arrays]
    run: Callable[[Params, Tensors], Tensors]


def _shape_name(*shapes: tuple[int, ...]) -> str:
    return "_".join("x".join(str(d) for d in s) or "scalar" for s in shapes)


def _autograd(forward: Callable[[Params, Tensors], torch.Tensor], diff: tuple[str, ...]):
    """A run function: ``forward`` then backward of the stored ``grad_out``."""

    def run(p: Params, t: Tensors) -> Tensors:
        for name in diff:
            t[name].requires_grad_(True)
        out = forward(p, t)
        out.backward(t["grad_out"])
        result = {"out": out.detach()}
        for name in diff:
            grad = t[name].grad
            assert grad is not None, f"no gradient reached {name}"
            result[f"grad_{name}"] = grad
        return result

    return run


def _grad(shape: tuple[int, ...]) -> np.ndarray:
    return gen.normal(shape, SEED_GRAD)


# ----------------------------------------------------------------------------- elementwise


def _unary(name: str, call: str, fn: Callable[[torch.Tensor], torch.Tensor], domain: str) -> OpSpec:
    shapes = (TINY, VECTOR, LARGE)

    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        x = gen.positive(shape, SEED_X) if domain == "positive" else gen.normal(shape, SEED_X)
        return {"x": x, "grad_out": _grad(shape)}

    cases = tuple(Case(_shape_name(s), {"shape": list(s), "domain": domain}) for s in shapes)
    return OpSpec(name, call, cases, make, _autograd(lambda p, t: fn(t["x"]), ("x",)))


_BINARY_SHAPES = ((TINY, TINY), (VECTOR, VECTOR), (LARGE, LARGE[-1:]))  # the last broadcasts b


def _binary(name: str, call: str, fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> OpSpec:
    def make(p: Params) -> Arrays:
        a_shape, b_shape = tuple(p["a_shape"]), tuple(p["b_shape"])
        a = gen.normal(a_shape, SEED_X)
        b = gen.away_from_zero(b_shape, SEED_Y) if name == "div" else gen.normal(b_shape, SEED_Y)
        out_shape = np.broadcast_shapes(a_shape, b_shape)
        return {"a": a, "b": b, "grad_out": _grad(out_shape)}

    cases = tuple(Case(_shape_name(a, b), {"a_shape": list(a), "b_shape": list(b)}) for a, b in _BINARY_SHAPES)
    return OpSpec(name, call, cases, make, _autograd(lambda p, t: fn(t["a"], t["b"]), ("a", "b")))


# ----------------------------------------------------------------------------- RNG


def _randn() -> OpSpec:
    def run(p: Params, t: Tensors) -> Tensors:
        torch.manual_seed(p["torch_seed"])
        return {"out": torch.randn(p["n"])}

    sizes = (7, 15, 16, 33, 1001, 33001)
    cases = tuple(Case(f"n{n}", {"n": n, "torch_seed": TORCH_SEED}) for n in sizes)
    return OpSpec("randn", "torch.manual_seed(s); torch.randn(n)", cases, lambda p: {}, run)


def _dropout() -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        return {"x": gen.normal(shape, SEED_X), "grad_out": _grad(shape)}

    def forward(p: Params, t: Tensors) -> torch.Tensor:
        torch.manual_seed(p["torch_seed"])
        return F.dropout(t["x"], p=p["p"], training=True)

    cases = tuple(Case(_shape_name(s), {"shape": list(s), "p": 0.2, "torch_seed": TORCH_SEED}) for s in (VECTOR, LARGE))
    return OpSpec("dropout", "F.dropout(x, p=0.2, training=True)", cases, make, _autograd(forward, ("x",)))


# ----------------------------------------------------------------------------- layers


def _embedding() -> OpSpec:
    def make(p: Params) -> Arrays:
        vocab, dim = p["vocab"], p["dim"]
        idx_shape = tuple(p["idx_shape"])
        return {
            "weight": gen.normal((vocab, dim), SEED_X),
            "idx": gen.integers(idx_shape, SEED_Y, vocab),
            "grad_out": _grad((*idx_shape, dim)),
        }

    cases = (
        Case("65x64_idx4x7", {"vocab": 65, "dim": 64, "idx_shape": [4, 7]}),
        Case("65x509_idx65", {"vocab": 65, "dim": 509, "idx_shape": [65]}),
    )
    forward = lambda p, t: F.embedding(t["idx"], t["weight"])
    return OpSpec("embedding", "F.embedding(idx, weight)", cases, make, _autograd(forward, ("weight",)))


def _linear() -> OpSpec:
    def make(p: Params) -> Arrays:
        x_shape, n_out = tuple(p["x_shape"]), p["out_features"]
        k = x_shape[-1]
        arrays = {"x": gen.normal(x_shape, SEED_X), "weight": gen.normal((n_out, k), SEED_W, 0.02)}
        if p["bias"]:
            arrays["bias"] = gen.normal((n_out,), SEED_B, 0.02)
        arrays["grad_out"] = _grad((*x_shape[:-1], n_out))
        return arrays

    def run(p: Params, t: Tensors) -> Tensors:
        diff = ("x", "weight", "bias") if p["bias"] else ("x", "weight")
        forward = lambda p, t: F.linear(t["x"], t["weight"], t.get("bias"))
        return _autograd(forward, diff)(p, t)

    cases = (
        Case("3x5x48_to_17", {"x_shape": [3, 5, 48], "out_features": 17, "bias": True}),
        Case("4x32x64_to_65_nobias", {"x_shape": [4, 32, 64], "out_features": 65, "bias": False}),
        Case("64x512_to_65", {"x_shape": [64, 512], "out_features": 65, "bias": True}),
    )
    return OpSpec("linear", "F.linear(x, weight, bias)", cases, make, run)


def _matmul() -> OpSpec:
    def make(p: Params) -> Arrays:
        a_shape, b_shape = tuple(p["a_shape"]), tuple(p["b_shape"])
        out_shape = (*a_shape[:-1], b_shape[-1])
        return {
            "a": gen.normal(a_shape, SEED_X),
            "b": gen.normal(b_shape, SEED_Y),
            "grad_out": _grad(out_shape),
        }

    shapes = (((17, 48), (48, 33)), ((2, 2, 32, 64), (2, 2, 64, 32)), ((64, 512), (512, 65)))
    cases = tuple(Case(_shape_name(a, b), {"a_shape": list(a), "b_shape": list(b)}) for a, b in shapes)
    forward = lambda p, t: torch.matmul(t["a"], t["b"])
    return OpSpec("matmul", "torch.matmul(a, b)", cases, make, _autograd(forward, ("a", "b")))


def _layer_norm() -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        c = shape[-1]
        return {
            "x": gen.normal(shape, SEED_X),
            "weight": (1.0 + gen.normal((c,), SEED_W, 0.1)).astype(np.float32),
            "bias": gen.normal((c,), SEED_B, 0.1),
            "grad_out": _grad(shape),
        }

    def forward(p: Params, t: Tensors) -> torch.Tensor:
        return F.layer_norm(t["x"], (t["x"].shape[-1],), t["weight"], t["bias"], eps=p["eps"])

    shapes = ((4, 7, 64), (5, 384), LARGE)
    cases = tuple(Case(_shape_name(s), {"shape": list(s), "eps": 1e-5}) for s in shapes)
    return OpSpec(
        "layer_norm",
        "F.layer_norm(x, (C,), weight, bias, eps=1e-5)",
        cases,
        make,
        _autograd(forward, ("x", "weight", "bias")),
    )


def _rows_op(name: str, call: str, fn: Callable[[torch.Tensor], torch.Tensor]) -> OpSpec:
    """softmax-like ops over the last dim, at rows of several lengths."""

    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        return {"x": gen.normal(shape, SEED_X), "grad_out": _grad(shape)}

    shapes = ((13, 65), (7, 1000), LARGE)
    cases = tuple(Case(_shape_name(s), {"shape": list(s), "dim": -1}) for s in shapes)
    return OpSpec(name, call, cases, make, _autograd(lambda p, t: fn(t["x"]), ("x",)))


def _cross_entropy() -> OpSpec:
    def make(p: Params) -> Arrays:
        n, c = p["n"], p["classes"]
        return {
            "logits": gen.normal((n, c), SEED_X, 2.0),
            "targets": gen.targets((n,), SEED_Y, c, p["ignore_every"]),
            "grad_out": gen.normal((), SEED_GRAD),
        }

    def forward(p: Params, t: Tensors) -> torch.Tensor:
        return F.cross_entropy(t["logits"], t["targets"], ignore_index=-1)

    cases = (
        Case("7x65", {"n": 7, "classes": 65, "ignore_every": 0}),
        Case("128x65_ignore", {"n": 128, "classes": 65, "ignore_every": 9}),
        Case("512x65_ignore", {"n": 512, "classes": 65, "ignore_every": 9}),
    )
    return OpSpec(
        "cross_entropy",
        "F.cross_entropy(logits, targets, ignore_index=-1)",
        cases,
        make,
        _autograd(forward, ("logits",)),
    )


def _sdpa(name: str, dropout_p: float, shapes: tuple[tuple[int, ...], ...]) -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        return {
            "q": gen.normal(shape, SEED_X),
            "k": gen.normal(shape, SEED_Y),
            "v": gen.normal(shape, SEED_W),
            "grad_out": _grad(shape),
        }

    def forward(p: Params, t: Tensors) -> torch.Tensor:
        if p["dropout_p"]:
            torch.manual_seed(p["torch_seed"])
        return F.scaled_dot_product_attention(t["q"], t["k"], t["v"], dropout_p=p["dropout_p"], is_causal=True)

    params = {"dropout_p": dropout_p, "is_causal": True}
    if dropout_p:
        params["torch_seed"] = TORCH_SEED
    cases = tuple(Case(_shape_name(s), {"shape": list(s), **params}) for s in shapes)
    call = f"F.scaled_dot_product_attention(q, k, v, dropout_p={dropout_p}, is_causal=True)"
    return OpSpec(name, call, cases, make, _autograd(forward, ("q", "k", "v")))


# ----------------------------------------------------------------------------- reductions


_REDUCE_CASES = (
    Case("full_1001", {"shape": list(VECTOR), "dim": None}),
    Case("full_65x509", {"shape": list(LARGE), "dim": None}),
    Case("dim-1_65x509", {"shape": list(LARGE), "dim": -1}),
    Case("dim0_65x509", {"shape": list(LARGE), "dim": 0}),
)


def _reduction(
    name: str, call: str, fn: Callable[[torch.Tensor, int | None], torch.Tensor], cases: tuple[Case, ...]
) -> OpSpec:
    def make(p: Params) -> Arrays:
        shape = tuple(p["shape"])
        out_shape = () if p["dim"] is None else tuple(d for i, d in enumerate(shape) if i != p["dim"] % len(shape))
        return {"x": gen.normal(shape, SEED_X), "grad_out": _grad(out_shape)}

    return OpSpec(name, call, cases, make, _autograd(lambda p, t: fn(t["x"], p["dim"]), ("x",)))


def _sum(x: torch.Tensor, dim: int | None) -> torch.Tensor:
    return x.sum() if dim is None else x.sum(dim)


def _mean(x: torch.Tensor, dim: int | None) -> torch.Tensor:
    return x.mean() if dim is None else x.mean(dim)


def _var(x: torch.Tensor, dim: int | None) -> torch.Tensor:
    return x.var() if dim is None else x.var(dim)


def _vector_norm(x: torch.Tensor, dim: int | None) -> torch.Tensor:
    return torch.linalg.vector_norm(x, 2) if dim is None else torch.linalg.vector_norm(x, 2, dim)


# ----------------------------------------------------------------------------- training


_CLIP_SHAPES = ((65, 64), (384,), LARGE)  # 37,629 gradient elements in all


def _clip_grad_norm() -> OpSpec:
    def make(p: Params) -> Arrays:
        return {f"grad_{i}": gen.normal(s, SEED_GRAD, p["grad_scale"]) for i, s in enumerate(_CLIP_SHAPES)}

    def run(p: Params, t: Tensors) -> Tensors:
        params = []
        for i in range(len(_CLIP_SHAPES)):
            param = torch.zeros_like(t[f"grad_{i}"])
            param.grad = t[f"grad_{i}"]
            params.append(param)
        total = torch.nn.utils.clip_grad_norm_(params, max_norm=p["max_norm"])
        return {"total_norm": total, **{f"clipped_{i}": q.grad for i, q in enumerate(params)}}

    cases = (
        Case("norm_above_max", {"max_norm": 1.0, "grad_scale": 1.0}),
        Case("norm_below_max", {"max_norm": 1.0, "grad_scale": 0.001}),
    )
    return OpSpec("clip_grad_norm", "torch.nn.utils.clip_grad_norm_(params, 1.0)", cases, make, run)


def _adamw_step() -> OpSpec:
    """Params of 2-D (weight decay) and 1-D (none) shapes; the gradient of each step is stored."""

    def make(p: Params) -> Arrays:
        shapes = [tuple(s) for s in p["shapes"]]
        arrays = {f"param_{i}": gen.normal(s, SEED_W + i, 0.02) for i, s in enumerate(shapes)}
        grad_seeds = (SEED_GRAD, SEED_X)  # shared with other ops: stored once
        for step in range(1, p["steps"] + 1):
            for i, s in enumerate(shapes):
                arrays[f"grad_{i}_step{step}"] = gen.normal(s, grad_seeds[(step - 1) % len(grad_seeds)])
        return arrays

    def run(p: Params, t: Tensors) -> Tensors:
        params = [t[f"param_{i}"].clone().requires_grad_(True) for i in range(len(p["shapes"]))]
        decay = [q for q in params if q.dim() >= 2]
        no_decay = [q for q in params if q.dim() < 2]
        opt = torch.optim.AdamW(
            [{"params": decay, "weight_decay": p["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
            lr=p["lr"],
            betas=tuple(p["betas"]),
            eps=p["eps"],
        )
        out: Tensors = {}
        for step in range(1, p["steps"] + 1):
            for i, q in enumerate(params):
                q.grad = t[f"grad_{i}_step{step}"]
            opt.step()
            opt.zero_grad(set_to_none=True)
        for i, q in enumerate(params):
            out[f"param_{i}"] = q.detach().clone()
            out[f"exp_avg_{i}"] = opt.state[q]["exp_avg"]
            out[f"exp_avg_sq_{i}"] = opt.state[q]["exp_avg_sq"]
        return out

    shakespeare = {"lr": 1e-3, "betas": [0.9, 0.99], "eps": 1e-8, "weight_decay": 0.1}
    nanogpt_default = {"lr": 6e-4, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1}
    cases = (
        Case("3_steps_65x64_65x509_384", {**shakespeare, "steps": 3, "shapes": [[65, 64], list(LARGE), [384]]}),
        Case("2_steps_17x33_33_betas0.95", {**nanogpt_default, "steps": 2, "shapes": [[17, 33], [33]]}),
    )
    call = "torch.optim.AdamW([decay 2-D, no decay 1-D], lr, betas, eps, weight_decay).step() x steps"
    return OpSpec("adamw_step", call, cases, make, run)


# ----------------------------------------------------------------------------- registry


def _gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x, approximate="tanh")


OPS: tuple[OpSpec, ...] = (
    _randn(),
    _embedding(),
    _binary("add", "torch.add(a, b)", torch.add),
    _binary("mul", "torch.mul(a, b)", torch.mul),
    _binary("div", "torch.div(a, b)", torch.div),
    _unary("exp", "torch.exp(x)", torch.exp, "normal"),
    _unary("log", "torch.log(x)", torch.log, "positive"),
    _unary("tanh", "torch.tanh(x)", torch.tanh, "normal"),
    _unary("rsqrt", "torch.rsqrt(x)", torch.rsqrt, "positive"),
    _linear(),
    _matmul(),
    _layer_norm(),
    _unary("gelu", "F.gelu(x)", F.gelu, "normal"),
    _unary("gelu_tanh", "F.gelu(x, approximate='tanh')", _gelu_tanh, "normal"),
    _rows_op("softmax", "F.softmax(x, dim=-1)", lambda x: F.softmax(x, dim=-1)),
    _rows_op("log_softmax", "F.log_softmax(x, dim=-1)", lambda x: F.log_softmax(x, dim=-1)),
    _cross_entropy(),
    # T = 257: one past nanoGPT's block size, so a partial query/key block and > 32768 elements
    _sdpa("sdpa", 0.0, ((1, 2, 7, 64), (1, 1, 100, 64), (1, 2, 257, 64))),
    _sdpa("sdpa_dropout", 0.2, ((1, 2, 7, 64), (1, 2, 257, 64))),
    _dropout(),
    # sum and mean have constant-per-row gradients (stored small): all four cases; var and
    # vector_norm have dense gradients: three
    _reduction("sum", "x.sum(dim)", _sum, _REDUCE_CASES),
    _reduction("mean", "x.mean(dim)", _mean, _REDUCE_CASES),
    _reduction("var", "x.var(dim)", _var, _REDUCE_CASES[:3]),
    _reduction("vector_norm", "torch.linalg.vector_norm(x, 2, dim)", _vector_norm, _REDUCE_CASES[:3]),
    _clip_grad_norm(),
    _adamw_step(),
)
OPS_BY_NAME: dict[str, OpSpec] = {op.name: op for op in OPS}
if tuple(OPS_BY_NAME) != OP_IDS:  # the registry and the torch-free id list are one list
    raise RuntimeError("harness.record.torch_ops.OPS is out of step with harness.core.op_ids.OP_IDS")
