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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from harness.record.nanogpt_model import GPT, GPTConfig
from harness.workloads.nanogpt import CONFIGS, TrainConfig, batches_for, get_lr

__all__ = ["CONFIGS", "ModelSource", "TrainConfig", "TrainObserver", "batches_for", "get_lr", "train"]


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
    description: str = "harness.record.nanogpt_model"
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
