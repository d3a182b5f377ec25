"""nanoGPT fixtures: 50 training steps with everything needed to prove or disprove parity.

Layout inside the store (see ``harness.store``)::

    /                         attrs: kind "nanogpt", config, param_names, param_shapes,
                                     digest_kinds, full_steps, deterministic, input_digest, ...
    /init/<param>             initial weights, in full (when full_init)
    /init_sha256, /init_sums  (P, 32) uint8 and (P,) float64: their digests and float64 sums
    /steps/<NNNN>             attrs: lr (float64), loss_value, full
        x, y                  the batch (int64, batch x block)
        loss, grad_norm, clip_coef   0-d float32: the loss, the pre-clip total gradient norm,
                              and the clip coefficient applied
        logits_sha256         (32,) uint8: SHA-256 of the logits
        dropout_mask_sha256   (k, 32) uint8: SHA-256 of each dropout keep-mask (bool), in the
                              order torch drew them (embedding, then per block attention
                              weights, attention output, MLP output)
        digests               (P, 5, 32) uint8: per parameter and digest kind, SHA-256 of the
                              tensor's raw bytes
        sums                  (P, 5) float64: per parameter and kind, the float64 sum
        full/<kind>/<param>   the tensors themselves, at the steps in ``full_steps``

Digest kinds, in execution order: grad_preclip (after backward), grad (after clipping),
value (the parameter after the optimiser step), exp_avg and exp_avg_sq (AdamW's moments).
This module never imports torch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import FixtureError
from harness.store import FixtureReader, FixtureWriter, json_attr, tensor_digest

KIND = "nanogpt"
DIGEST_KINDS = ("grad_preclip", "grad", "value", "exp_avg", "exp_avg_sq")
FULL_KINDS = ("grad", "value", "exp_avg", "exp_avg_sq")
_STEP_TENSORS = (
    "x",
    "y",
    "loss",
    "grad_norm",
    "clip_coef",
    "logits_sha256",
    "dropout_mask_sha256",
    "digests",
    "sums",
)


@dataclass
class StepRecord:
    step: int
    lr: float
    x: np.ndarray
    y: np.ndarray
    loss: np.ndarray
    grad_norm: np.ndarray
    clip_coef: np.ndarray
    logits_sha256: np.ndarray
    dropout_mask_sha256: np.ndarray
    digests: np.ndarray
    sums: np.ndarray
    full: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def tensors(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in _STEP_TENSORS}

    def same_bits(self, other: StepRecord) -> bool:
        """Every recorded digest, scalar and batch of the two steps is bit-identical."""
        return self.lr == other.lr and all(
            tensor_digest(a) == tensor_digest(b)
            for a, b in zip(self.tensors().values(), other.tensors().values(), strict=True)
        )


@dataclass
class NanoGPTRun:
    param_names: list[str]
    init: dict[str, np.ndarray]  # empty when a fixture was written without full initial weights
    steps: list[StepRecord]
    init_sha256: np.ndarray = field(default_factory=lambda: np.zeros((0, 32), np.uint8))
    init_sums: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))

    def __post_init__(self) -> None:
        if self.init and not len(self.init_sha256):
            arrays = [self.init[n] for n in self.param_names]
            self.init_sha256 = np.stack([sha256_bytes(np.ascontiguousarray(a).tobytes()) for a in arrays])
            self.init_sums = np.array([a.sum(dtype=np.float64) for a in arrays])


@dataclass
class NanoGPTFixture:
    path: Path
    attrs: dict[str, Any]
    run: NanoGPTRun

    @property
    def provenance(self) -> dict[str, Any]:
        return self.attrs.get("provenance", {})

    @property
    def config(self) -> dict[str, Any]:
        return self.attrs.get("config", {})


def step_group(step: int) -> str:
    return f"steps/{step:04d}"


def sha256_bytes(data: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(hashlib.sha256(data).digest(), dtype=np.uint8)


def hex_digest(digest: np.ndarray) -> str:
    return bytes(np.asarray(digest, dtype=np.uint8)).hex()


def input_digest(config: dict[str, Any], steps: list[StepRecord]) -> str:
    """SHA-256 over the training config and every step's batch: what the run was given."""
    h = hashlib.sha256(json_attr(config).encode())
    for rec in steps:
        h.update(tensor_digest(rec.x).encode())
        h.update(tensor_digest(rec.y).encode())
    return h.hexdigest()


def write_nanogpt_fixture(
    path: str | Path, provenance: dict[str, Any], config: dict[str, Any], run: NanoGPTRun,
    *, deterministic: bool, first_nondeterministic_step: int = 0, full_init: bool = True,
    force: bool = False,
) -> int:  # fmt: skip
    """Write a nanoGPT fixture atomically; returns the bytes of distinct tensor data."""
    with FixtureWriter(path, KIND, force=force) as writer:
        writer.set_attrs(
            "/",
            {
                "provenance": provenance,
                "config": config,
                "torch_version": provenance.get("torch_version", ""),
                "platform_id": provenance.get("platform_id", ""),
                "input_digest": input_digest(config, run.steps),
                "param_names": run.param_names,
                "param_shapes": [list(run.init[n].shape) for n in run.param_names],
                "full_init": full_init,
                "digest_kinds": list(DIGEST_KINDS),
                "full_steps": [r.step for r in run.steps if r.full],
                "steps": len(run.steps),
                "deterministic": deterministic,
                "first_nondeterministic_step": first_nondeterministic_step,
            },
        )
        writer.put("/", "init_sha256", run.init_sha256)
        writer.put("/", "init_sums", run.init_sums)
        if full_init:
            for name in run.param_names:
                writer.put("init", name, run.init[name])
        for rec in run.steps:
            group = step_group(rec.step)
            for name, arr in rec.tensors().items():
                writer.put(group, name, arr)
            for kind, tensors in rec.full.items():
                for name, arr in tensors.items():
                    writer.put(f"{group}/full/{kind}", name, arr)
            writer.set_attrs(group, {"lr": float(rec.lr), "loss_value": float(rec.loss), "full": bool(rec.full)})
        return writer.bytes_written


def read_nanogpt_fixture(path: str | Path, *, full: bool = True) -> NanoGPTFixture:
    """Read (and verify the digests of) a nanoGPT fixture; ``full=False`` skips full tensors."""
    with FixtureReader(path, kind=KIND) as reader:
        attrs = reader.attrs("/")
        for key in ("provenance", "config", "param_names", "input_digest", "steps", "deterministic"):
            if key not in attrs:
                raise FixtureError(reader.path, f"damaged fixture: root attribute '{key}' is missing")
        names = list(attrs["param_names"])
        init = {name: reader.tensor(f"init/{name}") for name in names} if attrs.get("full_init") else {}
        steps = []
        for step in range(1, int(attrs["steps"]) + 1):
            group = step_group(step)
            step_attrs = reader.attrs(group)
            tensors = {name: reader.tensor(f"{group}/{name}") for name in _STEP_TENSORS}
            rec = StepRecord(step, float(step_attrs["lr"]), **tensors)
            if full and reader.has(f"{group}/full"):
                rec.full = {
                    kind: dict(reader.iter_tensors(f"{group}/full/{kind}")) for kind in reader.children(f"{group}/full")
                }
            if rec.digests.shape != (len(names), len(DIGEST_KINDS), 32):
                raise FixtureError(reader.path, f"damaged fixture: {group}/digests has shape {rec.digests.shape}")
            steps.append(rec)
        run = NanoGPTRun(names, init, steps, reader.tensor("init_sha256"), reader.tensor("init_sums"))
        return NanoGPTFixture(Path(path), attrs, run)
