"""The impl's nanoGPT run, kept as a nanoGPT fixture keeps a torch run, to compare the two.

``impl_nanogpt_fixture(expected)`` trains the impl on the fixture's configuration and batches,
under the fixture's kernel profile and thread count, and returns an in-memory fixture that
``harness.compare.fixtures.diff_nanogpt`` compares step by step and tensor by tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from harness.formats.nanogpt import NanoGPTFixture
from harness.formats.run_keep import RecorderTee, RunRecorder
from harness.impl.op_registry import NotImplementedInImpl
from harness.impl.profiles import KernelProfile, profile_for_fixture
from harness.workloads.nanogpt import CONFIGS, TrainConfig, batches_for


class ImplRecorder:
    """The impl's training observer (``harness.impl.nanogpt.ImplObserver``) feeding a RunRecorder per
    digest algorithm."""

    def __init__(
        self, full_steps: set[int], batches: list[tuple[np.ndarray, np.ndarray]], algorithms: Sequence[str]
    ) -> None:
        self.records = [RunRecorder(full_steps, batches, a) for a in algorithms]
        self.record = RecorderTee(self.records)

    def on_init(self, names: list[str], params: list[np.ndarray]) -> None:
        self.record.on_init(names, params)

    def after_forward(self, logits: np.ndarray, loss: np.ndarray, masks: list[np.ndarray]) -> None:
        self.record.forward(logits, loss, masks)

    def after_backward(self, grads: list[np.ndarray]) -> None:
        self.record.backward(grads)

    def after_clip(self, total_norm: np.ndarray, clip_coef: np.ndarray) -> None:
        self.record.clip(total_norm, clip_coef)

    def after_step(self, step: int, lr: float, params, grads, exp_avg, exp_avg_sq) -> None:
        kinds = {"grad": grads, "value": params, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}
        self.record.step(step, lr, kinds)


def nanogpt_trainer():
    """The impl's ``train``; NotImplementedInImpl while the impl has no nanoGPT training."""
    try:
        from harness.impl.nanogpt import train
    except ModuleNotFoundError as exc:
        if exc.name != "harness.impl.nanogpt":
            raise
        raise NotImplementedInImpl("the reference implementation does not train nanoGPT yet") from None
    return train


def train_config(expected: NanoGPTFixture, steps: int | None = None) -> TrainConfig:
    """The fixture's training configuration (the named config, with the fixture's own values)."""
    stored = dict(expected.config)
    base = CONFIGS[str(stored["name"])]
    fields = {k: v for k, v in stored.items() if k in base.__dataclass_fields__ and k != "full_steps"}
    cfg = replace(base, **fields)
    return replace(cfg, steps=steps) if steps else cfg


def impl_nanogpt_fixture(
    expected: NanoGPTFixture, profile: KernelProfile | None = None, steps: int | None = None
) -> NanoGPTFixture:
    """Train the impl like ``expected`` was trained (its first ``steps`` steps, default all), digested
    as ``expected`` is."""
    return impl_nanogpt_runs(expected, [expected.run.digest], profile, steps)[0]


def impl_nanogpt_runs(
    expected: NanoGPTFixture, algorithms: Sequence[str], profile: KernelProfile | None = None, steps: int | None = None
) -> list[NanoGPTFixture]:
    """``impl_nanogpt_fixture`` in one training, digested by each of ``algorithms``."""
    train = nanogpt_trainer()
    profile = profile or profile_for_fixture(expected.attrs)
    cfg = train_config(expected, steps)
    batches = batches_for(cfg)
    recorder = ImplRecorder({int(s) for s in expected.attrs.get("full_steps", [])}, batches, algorithms)
    train(cfg, batches, profile, recorder, cfg.steps)
    attrs = {**expected.attrs, "platform_id": f"impl {profile.label}", "steps": cfg.steps}
    path = expected.path.with_name(f"impl:{profile.name}-t{profile.threads}")
    return [NanoGPTFixture(path, attrs, r.run()) for r in recorder.records]
