"""What a nanoGPT fixture keeps of a training run, from NumPy arrays: torch-free.

The torch recorder (harness.generators.record_nanogpt) and the reference implementation
(harness.impl.nanogpt_record) both feed a ``RunRecorder`` in execution order, so a fixture
and an impl run are digested by the same code.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from harness.nanogpt_fixture import DIGEST_KINDS, FULL_KINDS, NanoGPTRun, StepRecord, sha256_bytes


def array_digest(a: np.ndarray) -> np.ndarray:
    """SHA-256 of an array's raw bytes in C order."""
    return sha256_bytes(np.ascontiguousarray(a).reshape(-1).view(np.uint8))


def mask_digest(noise: np.ndarray) -> np.ndarray:
    """SHA-256 of a dropout keep-mask: where the noise is non-zero, as bool bytes."""
    return array_digest(np.asarray(noise) != 0)


class RunRecorder:
    """Per step: loss, norms, logits and mask digests, and per parameter the SHA-256 and
    float64 sum of each digest kind; full tensors at ``full_steps``."""

    def __init__(self, full_steps: set[int], batches: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.full_steps = full_steps
        self.batches = batches
        self.names: list[str] = []
        self.init: dict[str, np.ndarray] = {}
        self.steps: list[StepRecord] = []
        self._cur: dict[str, Any] = {}

    def on_init(self, names: list[str], params: list[np.ndarray]) -> None:
        self.names = list(names)
        self.init = {n: np.array(p, copy=True) for n, p in zip(names, params, strict=True)}

    def forward(self, logits: np.ndarray, loss: np.ndarray, mask_digests: list[np.ndarray]) -> None:
        self._cur = {
            "logits_sha256": array_digest(logits),
            "loss": np.array(loss, copy=True),
            "dropout_mask_sha256": np.stack(mask_digests) if mask_digests else np.zeros((0, 32), np.uint8),
            "digests": np.zeros((len(self.names), len(DIGEST_KINDS), 32), np.uint8),
            "sums": np.zeros((len(self.names), len(DIGEST_KINDS)), np.float64),
        }

    def _fill(self, kind: str, arrays: list[np.ndarray]) -> None:
        k = DIGEST_KINDS.index(kind)
        for i, arr in enumerate(arrays):
            arr = np.ascontiguousarray(arr)
            self._cur["digests"][i, k] = np.frombuffer(hashlib.sha256(arr).digest(), np.uint8)
            self._cur["sums"][i, k] = arr.sum(dtype=np.float64)

    def backward(self, grads: list[np.ndarray]) -> None:
        self._fill("grad_preclip", grads)

    def clip(self, total_norm: np.ndarray, clip_coef: np.ndarray) -> None:
        self._cur["grad_norm"] = np.array(total_norm, copy=True)
        self._cur["clip_coef"] = np.array(clip_coef, copy=True)

    def step(self, step: int, lr: float, per_kind: dict[str, list[np.ndarray]]) -> None:
        """``per_kind``: grad, value, exp_avg, exp_avg_sq, each a list in parameter order."""
        for kind in DIGEST_KINDS[1:]:
            self._fill(kind, per_kind[kind])
        full = {}
        if step in self.full_steps:
            full = {
                kind: {n: np.array(t, copy=True) for n, t in zip(self.names, per_kind[kind], strict=True)}
                for kind in FULL_KINDS
            }
        x, y = self.batches[step - 1]
        self.steps.append(StepRecord(step=step, lr=lr, x=x, y=y, full=full, **self._cur))

    def run(self) -> NanoGPTRun:
        return NanoGPTRun(self.names, self.init, self.steps)
