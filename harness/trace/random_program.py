"""A seeded random program to trace: ``python -m harness.trace.random_program --seed S [--ops N]``.

Each seed draws ``--ops`` calls (default 24) from ``CALLS``, element-wise, reductions, normalisations,
products, convolutions, pooling, losses, on shapes off every vector width (1 to 70 per dim, up to
three dims) and, one call in six, past ATen's 32,768-element grain (up to 70,000 elements), some of
them strided (a transposed or sliced view) or expanded; values from NumPy, normals over four decades
with NaNs of both signs (quiet and signalling, random payloads), infinities, subnormals and -0
sprinkled in. Then one training step of a small MLP (Linear, LayerNorm, GELU, Linear, cross
entropy, AdamW). Only torch and NumPy are imported, so it runs wherever torch does: on an emulated
arm64 core (``python tools/emulate_arm64.py trace ... -- -m harness.trace.random_program --seed S``)
and under ``qemu-x86_64`` (``parity trace --emulate x86:MODEL``) alike, for ``parity audit --per-op 0``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

GRAIN = 32768  # ATen's grain: a tensor past it is cut between threads
SPECIALS = np.array(
    [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FC12345, 0x7F800000, 0xFF800000, 0x00000001, 0x807FFFFF,
     0x80000000, 0x00400000],
    dtype=np.uint32,
)  # fmt: skip


class Draw:
    """Shapes and values from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def shape(self, dims: int = 0, large: bool | None = None) -> tuple[int, ...]:
        rng = self.rng
        dims = dims or int(rng.integers(1, 4))
        if large if large is not None else rng.random() < 1 / 6:
            n = int(rng.integers(GRAIN - 40, 70_001))
            if dims == 1:
                return (n,)
            rows = int(rng.integers(2, 9))
            return (*[1] * (dims - 2), rows, n // rows)
        return tuple(int(rng.integers(1, 71)) for _ in range(dims))

    def values(self, shape: tuple[int, ...], scale: float | None = None, specials: float = 0.05) -> torch.Tensor:
        rng = self.rng
        scale = scale if scale is not None else float(10.0 ** rng.integers(-2, 3))
        x = (rng.standard_normal(shape) * scale).astype(np.float32)
        at = rng.random(shape) < specials
        bits = x.view(np.uint32)
        bits[at] = SPECIALS[rng.integers(0, len(SPECIALS), int(at.sum()))]
        return torch.from_numpy(x)

    def tensor(self, shape: tuple[int, ...] | None = None, **kw) -> torch.Tensor:
        """A tensor of ``shape`` (drawn where None): contiguous, transposed, a slice or an expansion."""
        shape = shape or self.shape()
        how = self.rng.random()
        if len(shape) >= 2 and how < 0.15:
            return self.values((*shape[:-2], shape[-1], shape[-2]), **kw).transpose(-1, -2)
        if how < 0.3:
            return self.values((*shape[:-1], shape[-1] + 3), **kw)[..., : shape[-1]]
        if how < 0.4:
            return self.values((*shape[:-1], 1), **kw).expand(shape)
        return self.values(shape, **kw)


def _unary(fn: Callable[[torch.Tensor], torch.Tensor], scale: float | None = None) -> Callable[[Draw], object]:
    return lambda d: fn(d.tensor(scale=scale))


def _binary(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> Callable[[Draw], object]:
    def call(d: Draw) -> object:
        shape = d.shape()
        other = shape[-1:] if d.rng.random() < 0.3 else shape  # broadcast along the leading dims
        return fn(d.tensor(shape), d.tensor(other))

    return call


def _dim(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> Callable[[Draw], object]:
    def call(d: Draw) -> object:
        x = d.tensor()
        return fn(x, int(d.rng.integers(0, x.dim())))

    return call


def _layer_norm(d: Draw) -> object:
    shape = d.shape(dims=int(d.rng.integers(2, 4)))
    n = shape[-1]
    return F.layer_norm(d.tensor(shape, specials=0.01), (n,), d.values((n,), 1.0, 0), d.values((n,), 1.0, 0))


def _linear(d: Draw) -> object:
    m, k, n = (int(v) for v in d.rng.integers(1, 71, 3))
    bias = d.values((n,), 1.0, 0) if d.rng.random() < 0.7 else None
    return F.linear(d.tensor((m, k), specials=0), d.values((n, k), 0.1, 0), bias)


def _bmm(d: Draw) -> object:
    b, m, k, n = (int(v) for v in d.rng.integers(1, 40, 4))
    return torch.bmm(d.values((b, m, k), 1.0, 0), d.values((b, k, n), 1.0, 0))


def _conv2d(d: Draw) -> object:
    c, o, h = (int(v) for v in d.rng.integers(1, 9, 3))
    k = int(d.rng.choice([1, 3]))
    return F.conv2d(d.values((2, c, h + 4, h + 5), 1.0, 0), d.values((o, c, k, k), 0.3, 0), d.values((o,), 1.0, 0))


def _group_norm(d: Draw) -> object:
    g = int(d.rng.integers(1, 4))
    c = g * int(d.rng.integers(1, 5))
    x = d.values((2, c, int(d.rng.integers(1, 20)), int(d.rng.integers(1, 20))), specials=0)
    return F.group_norm(x, g, d.values((c,), 1.0, 0), d.values((c,), 1.0, 0))


def _pool(d: Draw) -> object:
    x = d.values((2, int(d.rng.integers(1, 6)), int(d.rng.integers(4, 30)), int(d.rng.integers(4, 30))))
    return F.avg_pool2d(x, 2), F.max_pool2d(x, 3, stride=2), F.adaptive_avg_pool2d(x, 3)


def _upsample(d: Draw) -> object:
    x = d.values((1, int(d.rng.integers(1, 4)), int(d.rng.integers(2, 20)), int(d.rng.integers(2, 20))), specials=0)
    return F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)


def _cross_entropy(d: Draw) -> object:
    b, c = int(d.rng.integers(1, 40)), int(d.rng.integers(2, 70))
    target = torch.from_numpy(d.rng.integers(0, c, b))
    return F.cross_entropy(d.values((b, c), specials=0.01), target)


def _mse(d: Draw) -> object:
    shape = d.shape()
    return F.mse_loss(d.tensor(shape), d.tensor(shape))


CALLS: dict[str, Callable[[Draw], object]] = {
    "exp": _unary(torch.exp, 3.0),
    "log": _unary(lambda x: torch.log(x.abs())),
    "tanh": _unary(torch.tanh),
    "sigmoid": _unary(torch.sigmoid),
    "sqrt": _unary(lambda x: torch.sqrt(x.abs())),
    "rsqrt": _unary(torch.rsqrt),
    "sin": _unary(torch.sin, 10.0),
    "cos": _unary(torch.cos, 10.0),
    "gelu": _unary(F.gelu),
    "gelu_tanh": _unary(lambda x: F.gelu(x, approximate="tanh")),
    "silu": _unary(F.silu),
    "relu": _unary(F.relu),
    "log1p": _unary(lambda x: torch.log1p(x.abs())),
    "expm1": _unary(torch.expm1, 3.0),
    "softplus": _unary(F.softplus),
    "mish": _unary(F.mish),
    "elu": _unary(F.elu),
    "hardswish": _unary(F.hardswish),
    "leaky_relu": _unary(F.leaky_relu),
    "pow_scalar": _unary(lambda x: torch.pow(x.abs(), 0.3)),
    "add": _binary(lambda a, b: torch.add(a, b, alpha=2.0)),
    "mul": _binary(torch.mul),
    "div": _binary(torch.div),
    "sub": _binary(torch.sub),
    "minimum": _binary(torch.minimum),
    "atan2": _binary(torch.atan2),
    "lerp": _binary(lambda a, b: torch.lerp(a, b, 0.3)),
    "where": _binary(lambda a, b: torch.where(a > 0, a, b)),
    "sum": _dim(torch.sum),
    "mean": _dim(torch.mean),
    "var": _dim(torch.var),
    "norm": _dim(lambda x, dim: torch.linalg.vector_norm(x, dim=dim)),
    "logsumexp": _dim(torch.logsumexp),
    "softmax": _dim(torch.softmax),
    "log_softmax": _dim(torch.log_softmax),
    "cumsum": _dim(torch.cumsum),
    "layer_norm": _layer_norm,
    "linear": _linear,
    "bmm": _bmm,
    "conv2d": _conv2d,
    "group_norm": _group_norm,
    "pool": _pool,
    "upsample": _upsample,
    "cross_entropy": _cross_entropy,
    "mse_loss": _mse,
}


def train_step(d: Draw) -> float:
    """One AdamW step of Linear, LayerNorm, GELU, Linear and cross entropy, weights from NumPy."""
    din, hidden, classes, batch = (int(v) for v in d.rng.integers(3, 40, 4))
    model = torch.nn.Sequential(
        torch.nn.Linear(din, hidden), torch.nn.LayerNorm(hidden), torch.nn.GELU(), torch.nn.Linear(hidden, classes)
    )
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(d.values(tuple(p.shape), 0.3, 0))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loss = F.cross_entropy(model(d.values((batch, din), 1.0, 0)), torch.from_numpy(d.rng.integers(0, classes, batch)))
    loss.backward()
    opt.step()
    return float(loss.detach())


def run(seed: int, ops: int) -> list[str]:
    """Program ``seed``: the calls it made, by name."""
    d = Draw(seed)
    names = sorted(CALLS)
    made = [names[int(i)] for i in d.rng.integers(0, len(names), ops)]
    for name in made:
        CALLS[name](d)
    train_step(d)
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.trace.random_program", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ops", type=int, default=24, help="calls drawn before the training step")
    args = parser.parse_args(argv)
    print(" ".join(run(args.seed, args.ops)))


if __name__ == "__main__":
    main()
