"""karpathy/nanoGPT's own train.py, run unchanged: its settings, its data, what a run keeps: torch-free.

Shared by the recorder (``harness.record.upstream_child``, which runs upstream's train.py
under torch) and the reference implementation (``harness.replay.upstream``, which replays the
same run without torch), so both feed one ``UpstreamRecorder`` (``harness.formats.run_keep``) in execution order.

Settings go to train.py through its own configurator (``--key=value`` arguments after an
optional config file). ``max_iters=49``: train.py runs iterations 0..max_iters, so 50 optimiser
steps. Evaluation happens at iteration 0 only (``eval_interval`` stays above 49) with a small
``eval_iters``; checkpoints go to a temporary ``out_dir``.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from harness.workloads.nanogpt import TrainConfig
from harness.workloads.nanogpt_data import VOCAB, encode, make_text

UPSTREAM_FILES = ("train.py", "model.py", "configurator.py")
SPLITS = ("train", "val")
TRAIN_FRACTION = 0.9  # nanoGPT's data/shakespeare_char/prepare.py

# every run: CPU, eager, float32, 50 iterations, a log line per iteration, no wandb
CPU_OVERRIDES: dict[str, Any] = {
    "device": "cpu",
    "compile": False,
    "dtype": "float32",
    "max_iters": 49,
    "log_interval": 1,
    "always_save_checkpoint": False,
    "wandb_log": False,
}


@dataclass(frozen=True)
class UpstreamConfig:
    """One way of running train.py: an optional config file of the checkout, then overrides."""

    name: str
    config_file: str  # relative to the checkout; "" for none
    overrides: dict[str, Any]
    full_steps: tuple[int, ...]
    full_init: bool

    def argv(self, data_dir: Path, out_dir: Path, extra: dict[str, Any] | None = None) -> list[str]:
        """train.py's command-line arguments (its sys.argv[1:]).

        ``dataset`` is an absolute path: train.py reads ``os.path.join('data', dataset)``,
        which is then that path itself, so nothing is read from or written to the checkout.
        """
        settings = {**CPU_OVERRIDES, **self.overrides, **(extra or {})}
        settings |= {"dataset": str(data_dir), "out_dir": str(out_dir)}
        return ([self.config_file] if self.config_file else []) + [
            f"--{key}={value}" for key, value in settings.items()
        ]


UPSTREAM_CONFIGS: dict[str, UpstreamConfig] = {
    # the tiny model of harness.workloads.nanogpt's "tiny", set through train.py's own keys
    "tiny": UpstreamConfig(
        name="tiny",
        config_file="",
        overrides={
            "eval_iters": 4, "gradient_accumulation_steps": 1, "batch_size": 4, "block_size": 32,
            "n_layer": 2, "n_head": 2, "n_embd": 64, "dropout": 0.2, "bias": True,
            "learning_rate": 1e-3, "beta2": 0.99, "warmup_iters": 10, "lr_decay_iters": 50, "min_lr": 1e-4,
        },
        full_steps=(1, 50),
        full_init=True,
    ),
    # upstream's config/train_shakespeare_char.py as it stands, with the CPU overrides
    "shakespeare-char": UpstreamConfig(
        name="shakespeare-char",
        config_file="config/train_shakespeare_char.py",
        overrides={"eval_iters": 2},
        full_steps=(),
        full_init=False,
    ),
}  # fmt: skip


# ----------------------------------------------------------------------------- data


def dataset_splits() -> dict[str, np.ndarray]:
    """Our synthetic text as nanoGPT's train.bin/val.bin tokens (uint16): the first 90% and the rest."""
    tokens = _tokens()
    n = int(len(tokens) * TRAIN_FRACTION)
    return {"train": tokens[:n].copy(), "val": tokens[n:].copy()}


@cache
def _tokens() -> np.ndarray:
    return encode(make_text())


def write_dataset(data_dir: Path) -> dict[str, str]:
    """train.bin, val.bin and meta.pkl in nanoGPT's own format; returns their SHA-256s.

    meta.pkl is written for train.py to read (it takes ``vocab_size`` from it); this project
    never reads it back.
    """
    import hashlib

    data_dir.mkdir(parents=True, exist_ok=True)
    for split, tokens in dataset_splits().items():
        tokens.astype("<u2").tofile(data_dir / f"{split}.bin")
    meta = {"vocab_size": len(VOCAB), "itos": dict(enumerate(VOCAB)), "stoi": {c: i for i, c in enumerate(VOCAB)}}
    (data_dir / "meta.pkl").write_bytes(pickle.dumps(meta))
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(data_dir.iterdir())}


def get_batch(tokens: np.ndarray, ix: np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """train.py's get_batch after its randint: x = data[i:i+T], y = data[i+1:i+1+T] (int64)."""
    x = np.stack([tokens[i : i + block_size] for i in ix]).astype(np.int64)
    y = np.stack([tokens[i + 1 : i + 1 + block_size] for i in ix]).astype(np.int64)
    return x, y


# ----------------------------------------------------------------------------- settings


def train_config(settings: dict[str, Any], vocab_size: int, name: str = "upstream") -> TrainConfig:
    """The model and optimiser settings of a train.py run (its ``config`` dict) as a TrainConfig.

    ``steps`` is the number of optimiser steps (iterations 0..max_iters); the learning rate
    follows nanoGPT's get_lr on these fields (``harness.workloads.nanogpt.get_lr``).
    """
    return TrainConfig(
        name=name, n_layer=int(settings["n_layer"]), n_head=int(settings["n_head"]),
        n_embd=int(settings["n_embd"]), block_size=int(settings["block_size"]),
        batch_size=int(settings["batch_size"]), dropout=float(settings["dropout"]), bias=bool(settings["bias"]),
        learning_rate=float(settings["learning_rate"]), beta2=float(settings["beta2"]),
        warmup_iters=int(settings["warmup_iters"]), lr_decay_iters=int(settings["lr_decay_iters"]),
        min_lr=float(settings["min_lr"]), full_steps=(), vocab_size=vocab_size, beta1=float(settings["beta1"]),
        weight_decay=float(settings["weight_decay"]), grad_clip=float(settings["grad_clip"]),
        steps=int(settings["max_iters"]) + 1, seed=1337,
    )  # fmt: skip


# ----------------------------------------------------------------------------- what a run keeps


@dataclass
class EvalRecord:
    """estimate_loss at one iteration: ``eval_iters`` train batches, then as many val batches."""

    iteration: int
    x: np.ndarray  # (2K, B, T) int64
    y: np.ndarray
    loss: np.ndarray  # (2K,) float32: each batch's loss
    logits_digest: np.ndarray  # (2K, 32) uint8
    mean: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))  # (2,): train, val

    def tensors(self) -> dict[str, np.ndarray]:
        return {"x": self.x, "y": self.y, "loss": self.loss, "logits_digest": self.logits_digest, "mean": self.mean}
