"""Small training programs to trace: ``python -m harness.trace.demo --model NAME [--steps N]``.

Models: ``mlp`` (Linear, LayerNorm, GELU), ``transformer`` (``nn.TransformerEncoder``), ``lstm``
(``nn.LSTM`` with a linear head), ``convnet`` (two convolutions, batch norm, pooling) and
``nanogpt`` (harness/record/nanogpt_model.py, nanoGPT's architecture and AdamW setup, tiny
config). Each trains ``--steps`` steps (default 2) with AdamW from ``torch.manual_seed(0)``, on
inputs made by NumPy (torch's own generator serves initialisation and dropout only), and
prints the loss of each step. ``--extra-op`` adds a copy of the inputs that changes no bits, a
code path only one run takes.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, d: int = 64) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.ln = nn.LayerNorm(4 * d)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * d, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.ln(self.fc1(x))))


class Encoder(nn.Module):
    def __init__(self, d: int = 64) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=4 * d, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x).mean(dim=1))


class Recurrent(nn.Module):
    def __init__(self, d: int = 32) -> None:
        super().__init__()
        self.lstm = nn.LSTM(d, 64, num_layers=2, batch_first=True)
        self.head = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )  # fmt: skip
        self.head = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).flatten(1))


SHAPES = {"mlp": (64, 64), "transformer": (8, 24, 64), "lstm": (8, 16, 32), "convnet": (8, 3, 16, 16)}
MODELS = {"mlp": MLP, "transformer": Encoder, "lstm": Recurrent, "convnet": ConvNet}


def train_classifier(name: str, steps: int, extra_op: bool = False) -> list[float]:
    torch.manual_seed(0)
    model = MODELS[name]()
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = torch.from_numpy(rng.standard_normal(SHAPES[name]).astype(np.float32))
        y = torch.from_numpy(rng.integers(0, 10, SHAPES[name][0]))
        if extra_op:
            x = x.clone()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses


def train_nanogpt(steps: int) -> list[float]:
    from dataclasses import replace

    from harness.record.nanogpt_train import CONFIGS, batches_for, train

    cfg = replace(CONFIGS["tiny"], steps=steps)
    losses: list[float] = []
    train(cfg, batches_for(cfg), progress=lambda step, loss: losses.append(loss))
    return losses


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.trace.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=(*MODELS, "nanogpt"), default="mlp")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument(
        "--extra-op", action="store_true", help="copy the inputs first (a code path that changes no bits)"
    )
    args = parser.parse_args(argv)
    losses = (
        train_nanogpt(args.steps)
        if args.model == "nanogpt"
        else train_classifier(args.model, args.steps, args.extra_op)
    )
    for step, loss in enumerate(losses, 1):
        print(f"step {step}: loss {loss!r}")


if __name__ == "__main__":
    main()
