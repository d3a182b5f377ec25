"""Seeded random cases: shapes and values no committed fixture holds, per op group.

``python -m harness.record.ops_child --random N --seed S`` records N cases of every group
(each group's cases spread over its ops) instead of the fixed ones, and writes an ordinary op
fixture that `python -m harness.replay.check --fixture` checks like any other. Sizes are drawn
around what changes bits: multiples of every vector width (4, 8, 16 lanes) and one either side,
the element-wise grain size (32768) where ``at::parallel_for`` starts to split, and MKL/NVPL
blocking sizes for the matrix products. Values: the ops' own input makers, salted per case
(``inputs.salted``), so two cases never share a value stream.
"""

from __future__ import annotations

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
GROUPS: dict[str, tuple[str, ...]] = {
    "elementwise": ("exp", "log", "tanh", "rsqrt", "gelu", "gelu_tanh", "add", "mul", "div"),
    "rows": ("layer_norm", "softmax", "log_softmax", "cross_entropy"),
    "reductions": ("sum", "mean", "var", "vector_norm"),
    "linalg": ("linear", "matmul"),
    "attention": ("sdpa", "sdpa_dropout"),
    "rng": ("randn", "dropout", "embedding"),
    "training": ("clip_grad_norm", "adamw_step"),
}
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


_DRAW = {
    "elementwise": _elementwise,
    "rows": _rows,
    "reductions": _reductions,
    "linalg": _linalg,
    "attention": _attention,
    "rng": _rng_ops,
    "training": _training,
}


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
