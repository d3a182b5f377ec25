"""What a nanoGPT fixture keeps of a training run, from NumPy arrays: torch-free.

The torch recorder (harness.generators.record_nanogpt) and the reference implementation
(harness.impl.nanogpt_record) both feed a ``RunRecorder`` in execution order, so a fixture
and an impl run are digested by the same code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.nanogpt_fixture import DIGEST_KINDS, FULL_KINDS, NanoGPTRun, StepRecord, sha256_bytes

_PRECLIP, _GRAD = DIGEST_KINDS.index("grad_preclip"), DIGEST_KINDS.index("grad")


def array_digest(a: np.ndarray) -> np.ndarray:
    """SHA-256 of an array's raw bytes in C order."""
    return sha256_bytes(np.ascontiguousarray(a).reshape(-1).view(np.uint8))


def _c_order(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The arrays as C-contiguous buffers: the same arrays where they already are (no copy)."""
    return [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]


def digests_and_sums(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per array, the SHA-256 of its raw C-order bytes and its float64 sum (``a.sum(dtype=float64)``),
    as an (n, 32) uint8 and an (n,) float64 array: one join and one conversion for all of them."""
    arrays = _c_order(arrays)
    sha256, add, f64 = hashlib.sha256, np.add.reduce, np.float64
    digests = b"".join([sha256(a).digest() for a in arrays])
    sums = np.array([add(a, None, f64) for a in arrays], f64)
    return np.frombuffer(digests, np.uint8).reshape(len(arrays), 32), sums


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
        self._preclip: tuple[list[tuple[Any, tuple[int, ...]]], bytes] | None = None

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
        self._cur["digests"][:, k], self._cur["sums"][:, k] = digests_and_sums(arrays)

    def backward(self, grads: list[np.ndarray]) -> None:
        self._fill("grad_preclip", grads)
        self._preclip = _layout(grads), _raw_bytes(grads)

    def clip(self, total_norm: np.ndarray, clip_coef: np.ndarray) -> None:
        self._cur["grad_norm"] = np.array(total_norm, copy=True)
        self._cur["clip_coef"] = np.array(clip_coef, copy=True)

    def step(self, step: int, lr: float, per_kind: dict[str, list[np.ndarray]]) -> None:
        """``per_kind``: grad, value, exp_avg, exp_avg_sq, each a list in parameter order."""
        kinds = DIGEST_KINDS[1:]
        if self._unclipped(per_kind["grad"]):
            # clipping by 1 left every bit of the gradients as it was: so are their digests and sums
            for name in ("digests", "sums"):
                self._cur[name][:, _GRAD] = self._cur[name][:, _PRECLIP]
            kinds = tuple(k for k in kinds if k != "grad")
        self._preclip = None
        for kind in kinds:
            self._fill(kind, per_kind[kind])
        full = {}
        if step in self.full_steps:
            full = {
                kind: {n: np.array(t, copy=True) for n, t in zip(self.names, per_kind[kind], strict=True)}
                for kind in FULL_KINDS
            }
        x, y = self.batches[step - 1]
        self.steps.append(StepRecord(step=step, lr=lr, x=x, y=y, full=full, **self._cur))

    def _unclipped(self, grads: list[np.ndarray]) -> bool:
        """Whether ``grads`` (after clipping) hold the very bits of the gradients before clipping:
        compared only where the clip coefficient was 1."""
        coef = self._cur.get("clip_coef")
        if self._preclip is None or coef is None or float(coef) != 1.0:
            return False
        layout, bits = self._preclip
        return _layout(grads) == layout and _raw_bytes(grads) == bits

    def run(self) -> NanoGPTRun:
        return NanoGPTRun(self.names, self.init, self.steps)


def _layout(arrays: list[np.ndarray]) -> list[tuple[Any, tuple[int, ...]]]:
    return [(a.dtype, a.shape) for a in arrays]


def _raw_bytes(arrays: list[np.ndarray]) -> bytes:
    """The arrays' raw C-order bytes, one after another (a copy): equal exactly where every bit is."""
    return b"".join(_c_order(arrays))
