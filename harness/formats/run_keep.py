"""What a nanoGPT fixture keeps of a training run, from NumPy arrays: torch-free.

The torch recorder (harness.record.nanogpt_child) and the reference implementation
(harness.replay.nanogpt) both feed a ``RunRecorder`` in execution order, so a fixture
and an impl run are digested by the same code (and the impl, replaying a fixture, by the
fixture's own digest algorithm).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.core.digest import ALGORITHM, Batch, check_algorithm, digest, fingerprints
from harness.formats.nanogpt import DIGEST_KINDS, FULL_KINDS, NanoGPTRun, StepRecord
from harness.workloads.upstream import EvalRecord


def array_digest(a: np.ndarray, algorithm: str = ALGORITHM) -> np.ndarray:
    """The (32,) uint8 digest of an array's raw bytes in C order."""
    return np.frombuffer(digest(a, algorithm), np.uint8)


def keep_mask(noise: np.ndarray) -> np.ndarray:
    """A dropout keep-mask (bool) from the draw or scaled noise: where it is non-zero."""
    return np.asarray(noise) != 0


class RunRecorder:
    """Per step: loss, norms, logits and mask digests, and per parameter the digest and float64
    sum of each digest kind, by ``algorithm`` (``harness.core.digest``); full tensors at ``full_steps``.

    The arrays of a kind are fingerprinted in one call; the same array objects handed in again
    (parameters and AdamW moments, updated in place) reuse their addresses.
    """

    def __init__(
        self, full_steps: set[int], batches: list[tuple[np.ndarray, np.ndarray]], algorithm: str = ALGORITHM
    ) -> None:
        self.full_steps = full_steps
        self.batches = batches
        self.algorithm = check_algorithm(algorithm)
        self.names: list[str] = []
        self.init: dict[str, np.ndarray] = {}
        self.steps: list[StepRecord] = []
        self._cur: dict[str, Any] = {}
        self._batches: dict[str, Batch] = {}

    def digest(self, a: np.ndarray) -> np.ndarray:
        return array_digest(a, self.algorithm)

    def mask_digests(self, masks: Sequence[np.ndarray]) -> np.ndarray:
        """(k, 32) digests of dropout keep-masks (bool arrays, or the noise they come from)."""
        return fingerprints([keep_mask(m) for m in masks], self.algorithm)[0]

    def on_init(self, names: list[str], params: list[np.ndarray]) -> None:
        self.names = list(names)
        self.init = {n: np.array(p, copy=True) for n, p in zip(names, params, strict=True)}

    def forward(self, logits: np.ndarray, loss: np.ndarray, masks: Sequence[np.ndarray]) -> None:
        """``masks``: the step's dropout keep-masks (or their noise) in draw order."""
        self.open_step(self.digest(logits), loss, self.mask_digests(masks))

    def open_step(self, logits_digest: np.ndarray, loss: np.ndarray, mask_digests: np.ndarray) -> None:
        """A step's forward records, its logits and masks already digested."""
        self._cur = {
            "logits_digest": logits_digest,
            "loss": np.array(loss, copy=True),
            "dropout_mask_digests": mask_digests,
            "digests": np.zeros((len(self.names), len(DIGEST_KINDS), 32), np.uint8),
            "sums": np.zeros((len(self.names), len(DIGEST_KINDS)), np.float64),
        }

    def _fill(self, kind: str, arrays: list[np.ndarray]) -> None:
        batch = self._batches.get(kind)
        if batch is None or not batch.holds(arrays):  # another kind's (gradients before and after clipping)?
            batch = next((b for b in self._batches.values() if b.holds(arrays)), None) or Batch(arrays)
            self._batches[kind] = batch
        k = DIGEST_KINDS.index(kind)
        self._cur["digests"][:, k], self._cur["sums"][:, k] = fingerprints(batch, self.algorithm)

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
        return NanoGPTRun(self.names, self.init, self.steps, digest=self.algorithm)


class RecorderTee:
    """Feeds every call to several recorders in turn: one run digested by several algorithms (a
    fixture's digests converted from one algorithm to another after a replay checked them)."""

    def __init__(self, recorders: Sequence[Any]) -> None:
        self.recorders = list(recorders)

    def __getattr__(self, name: str) -> Any:
        calls = [getattr(r, name) for r in self.recorders]

        def call(*args: Any, **kwargs: Any) -> None:
            for c in calls:
                c(*args, **kwargs)

        return call


class UpstreamRecorder(RunRecorder):
    """A RunRecorder for train.py's loop: micro-steps (gradient accumulation) and evaluations.

    A step with one micro-step keeps x, y (B, T), a 0-d loss and one logits digest, as a nanoGPT
    fixture does; with g > 1 they are stacked (g, B, T), (g,) and (g, 32), and the dropout-mask
    digests of all micro-steps follow each other in draw order. The loss is the model's, before
    train.py divides it by ``gradient_accumulation_steps``.
    """

    def __init__(self, full_steps: set[int], algorithm: str = ALGORITHM) -> None:
        super().__init__(full_steps, [], algorithm)
        self._micro: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._eval: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.evals: list[EvalRecord] = []

    def train_forward(
        self, x: np.ndarray, y: np.ndarray, logits: np.ndarray, loss: np.ndarray, masks: list[np.ndarray]
    ) -> None:
        """A micro-step's forward pass; ``masks``: its dropout keep-masks (or their noise) in draw order."""
        self._micro.append((np.array(x), np.array(y), self.digest(logits), np.array(loss), self.mask_digests(masks)))

    def eval_forward(self, iteration: int, x: np.ndarray, y: np.ndarray, logits: np.ndarray, loss: np.ndarray) -> None:
        if self.evals and self.evals[-1].iteration == iteration:
            raise ValueError(f"evaluation at iteration {iteration} seen twice")
        self._eval.append((np.array(x), np.array(y), self.digest(logits), np.array(loss)))

    def close_eval(self, iteration: int, means: np.ndarray) -> None:
        """The evaluation at ``iteration`` is complete; ``means`` are estimate_loss's (train, val)."""
        xs, ys, digests, losses = zip(*self._eval, strict=True)
        self.evals.append(EvalRecord(iteration, np.stack(xs), np.stack(ys), np.stack(losses), np.stack(digests), means))
        self._eval = []

    def backward(self, grads: list[np.ndarray]) -> None:
        """The accumulated gradients before clipping: closes the step's micro-steps."""
        if not self._micro:
            raise ValueError("gradients before any forward pass of the step")
        xs, ys, digests, losses, masks = zip(*self._micro, strict=True)
        self._micro = []
        one = len(xs) == 1
        logits = digests[0] if one else np.stack(digests)
        self.open_step(logits, losses[0] if one else np.stack(losses), np.concatenate(masks))
        self.batches.append((xs[0], ys[0]) if one else (np.stack(xs), np.stack(ys)))
        super().backward(grads)

    def step(self, step: int, lr: float, per_kind: dict[str, list[np.ndarray]]) -> None:
        if step != len(self.batches):
            raise ValueError(f"optimiser step {step} without its own backward pass")
        super().step(step, lr, per_kind)
