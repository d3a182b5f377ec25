"""nanoGPT training configurations, learning-rate schedule and batches: torch-free.

Shared by the recorder (harness.record.nanogpt_train, which trains with torch) and the
reference implementation (harness.impl, which never imports torch).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from harness.workloads.nanogpt_data import VOCAB, encode, make_batches, make_text


@dataclass(frozen=True)
class TrainConfig:
    name: str
    n_layer: int
    n_head: int
    n_embd: int
    block_size: int
    batch_size: int
    dropout: float
    bias: bool
    learning_rate: float
    beta2: float
    warmup_iters: int
    lr_decay_iters: int
    min_lr: float
    full_steps: tuple[int, ...]  # steps whose tensors are stored in full (others: digests)
    vocab_size: int = len(VOCAB)
    beta1: float = 0.9
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    steps: int = 50
    seed: int = 1337
    data_seed: int = 1337

    def model_args(self) -> dict[str, Any]:
        return {
            "n_layer": self.n_layer,
            "n_head": self.n_head,
            "n_embd": self.n_embd,
            "block_size": self.block_size,
            "vocab_size": self.vocab_size,
            "dropout": self.dropout,
            "bias": self.bias,
        }

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["full_steps"] = list(self.full_steps)
        return d


CONFIGS: dict[str, TrainConfig] = {
    # small enough for tests; bias on, so the bias paths are covered too. Full tensors at the
    # first and last step by default (1.7 MiB a step): --full-steps all stores every step.
    "tiny": TrainConfig(
        name="tiny", n_layer=2, n_head=2, n_embd=64, block_size=32, batch_size=4, dropout=0.2,
        bias=True, learning_rate=1e-3, beta2=0.99, warmup_iters=10, lr_decay_iters=50, min_lr=1e-4,
        full_steps=(1, 50),
    ),
    # nanoGPT's config/train_shakespeare_char.py (gradient_accumulation_steps 1)
    "shakespeare-char": TrainConfig(
        name="shakespeare-char", n_layer=6, n_head=6, n_embd=384, block_size=256, batch_size=64,
        dropout=0.2, bias=False, learning_rate=1e-3, beta2=0.99, warmup_iters=100,
        lr_decay_iters=5000, min_lr=1e-4, full_steps=(1, 2, 25, 50),
    ),
}  # fmt: skip


def get_lr(it: int, cfg: TrainConfig) -> float:
    """Linear warmup, then cosine decay to min_lr (nanoGPT's get_lr), in Python floats."""
    if it < cfg.warmup_iters:
        return cfg.learning_rate * (it + 1) / (cfg.warmup_iters + 1)
    if it > cfg.lr_decay_iters:
        return cfg.min_lr
    decay_ratio = (it - cfg.warmup_iters) / (cfg.lr_decay_iters - cfg.warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return cfg.min_lr + coeff * (cfg.learning_rate - cfg.min_lr)


def batches_for(cfg: TrainConfig) -> list[tuple[np.ndarray, np.ndarray]]:
    return make_batches(encode(make_text()), cfg.steps, cfg.batch_size, cfg.block_size, cfg.data_seed)
