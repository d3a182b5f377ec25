"""nanoGPT training as in nanoGPT's train.py, with hooks for a recorder.

Per iteration ``it`` (0-based; step = it + 1):
  lr = get_lr(it) set on every param group;
  logits, loss = model(x, y);  loss.backward();
  clip_grad_norm_(model.parameters(), grad_clip);  optimizer.step();
  optimizer.zero_grad(set_to_none=True).
AdamW from the model's configure_optimizers: weight decay on tensors of dim >= 2 only, betas
(0.9, beta2), not fused, not foreach (PyTorch's CPU default). torch.manual_seed(seed) comes
right before the model is built, so torch's generator serves the initialisation and then
the dropout masks; batches come from NumPy (see nanogpt_data).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from harness.generators.nanogpt_data import VOCAB, encode, make_batches, make_text
from harness.generators.nanogpt_model import GPT, GPTConfig


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


class TrainObserver(Protocol):
    """What a recorder sees of a training run, in execution order."""

    def on_init(self, model: torch.nn.Module) -> None: ...
    def forward_context(self) -> contextlib.AbstractContextManager[Any]: ...
    def after_forward(self, logits: torch.Tensor, loss: torch.Tensor) -> None: ...
    def after_backward(self, model: torch.nn.Module) -> None: ...
    def after_clip(self, total_norm: torch.Tensor, clip_coef: torch.Tensor) -> None: ...
    def after_step(self, step: int, lr: float, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None: ...


@dataclass
class ModelSource:
    """Where GPT, GPTConfig (and so configure_optimizers) come from."""

    gpt: Callable[[Any], torch.nn.Module] = GPT
    config: Callable[..., Any] = GPTConfig
    description: str = "harness.generators.nanogpt_model"
    extra: dict[str, str] = field(default_factory=dict)


def train(
    cfg: TrainConfig,
    batches: list[tuple[np.ndarray, np.ndarray]],
    observer: TrainObserver | None = None,
    source: ModelSource | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> torch.nn.Module:
    source = source or ModelSource()
    torch.manual_seed(cfg.seed)
    model = source.gpt(source.config(**cfg.model_args()))
    model.train()
    optimizer = model.configure_optimizers(cfg.weight_decay, cfg.learning_rate, (cfg.beta1, cfg.beta2), "cpu")
    if observer:
        observer.on_init(model)
    for it, (x_np, y_np) in zip(range(cfg.steps), _tensors(batches), strict=False):
        lr = get_lr(it, cfg)
        for group in optimizer.param_groups:
            group["lr"] = lr
        with observer.forward_context() if observer else contextlib.nullcontext():
            logits, loss = model(x_np, y_np)
        if observer:
            observer.after_forward(logits, loss)
        loss.backward()
        if observer:
            observer.after_backward(model)
        total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        if observer:
            # the coefficient clip_grad_norm_ applied, by the same tensor operations
            clip_coef = torch.clamp(cfg.grad_clip / (total_norm + 1e-6), max=1.0)
            observer.after_clip(total_norm, clip_coef)
        optimizer.step()
        if observer:
            observer.after_step(it + 1, lr, model, optimizer)
        optimizer.zero_grad(set_to_none=True)
        if progress:
            progress(it + 1, float(loss.item()))
    return model


def _tensors(batches: list[tuple[np.ndarray, np.ndarray]]) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    for x, y in batches:
        yield torch.from_numpy(x), torch.from_numpy(y)
