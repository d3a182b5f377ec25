"""The torch-free nanoGPT (harness.impl.nanogpt) against the committed tiny fixtures: initial
weights in full, then the first steps' masks, logits, loss, gradients, clip and AdamW state, bit for bit,
for every x86 profile and thread count a fixture was recorded with.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.core.digest import digest
from harness.formats.nanogpt import DIGEST_KINDS, NanoGPTRun, read_nanogpt_fixture
from harness.impl import nanogpt
from harness.impl.profiles import profile_for_platform
from harness.platform.config import parse_platform_id
from harness.replay.check import UNMODELLED_BLAS
from harness.workloads.nanogpt import CONFIGS, batches_for

FIXTURES = Path(__file__).resolve().parent.parent / "harness" / "fixtures" / "torch-2.13.0"
# the runs of MKL's Intel paths are known gaps, held by tests/test_impl_fixtures.py's strict xfails
PLATFORMS = sorted(
    p.name.split(".nanogpt-")[0]
    for p in FIXTURES.glob("linux-x86_64-*.nanogpt-tiny.h5")
    if parse_platform_id(p.name.split(".nanogpt-")[0]).blas not in UNMODELLED_BLAS
)
STEPS = 3


class Checker:
    """An ImplObserver that collects every difference from a fixture's run, by step and tensor."""

    def __init__(self, run: NanoGPTRun) -> None:
        self.run = run
        self.diffs: list[str] = []
        self.step = 0

    def _expect(self, what: str, actual: bytes, expected: np.ndarray | bytes) -> None:
        if actual != bytes(expected):
            self.diffs.append(f"step {self.step}: {what}")

    def _kind(self, kind: str, arrays: list[np.ndarray]) -> None:
        k = DIGEST_KINDS.index(kind)
        for i, (name, a) in enumerate(zip(self.run.param_names, arrays, strict=True)):
            self._expect(f"{kind} {name}", digest(a, self.run.digest), self.rec.digests[i, k])

    def on_init(self, names: list[str], params: list[np.ndarray]) -> None:
        assert names == self.run.param_names
        for name, p in zip(names, params, strict=True):
            self._expect(f"init {name}", p.tobytes(), self.run.init[name].tobytes())

    def after_forward(self, logits: np.ndarray, loss: np.ndarray, masks: list[np.ndarray]) -> None:
        self.rec = self.run.steps[self.step]
        self.step += 1
        masks_digest = b"".join(digest(m != 0, self.run.digest) for m in masks)
        self._expect("masks", masks_digest, self.rec.dropout_mask_digests.tobytes())
        self._expect("logits", digest(logits, self.run.digest), self.rec.logits_digest)
        self._expect("loss", loss.tobytes(), self.rec.loss.tobytes())

    def after_backward(self, grads: list[np.ndarray]) -> None:
        self._kind("grad_preclip", grads)

    def after_clip(self, total_norm: np.ndarray, clip_coef: np.ndarray) -> None:
        self._expect("grad_norm", total_norm.tobytes(), self.rec.grad_norm.tobytes())
        self._expect("clip_coef", clip_coef.tobytes(), self.rec.clip_coef.tobytes())

    def after_step(
        self,
        step: int,
        lr: float,
        params: list[np.ndarray],
        grads: list[np.ndarray],
        exp_avg: list[np.ndarray],
        exp_avg_sq: list[np.ndarray],
    ) -> None:
        assert step == self.rec.step and lr == self.rec.lr
        for kind, arrays in (("grad", grads), ("value", params), ("exp_avg", exp_avg), ("exp_avg_sq", exp_avg_sq)):
            self._kind(kind, arrays)


@pytest.mark.parametrize("platform_id", PLATFORMS)
def test_tiny_first_steps_bit_exact(platform_id: str) -> None:
    fx = read_nanogpt_fixture(FIXTURES / f"{platform_id}.nanogpt-tiny.h5")
    cfg = CONFIGS["tiny"]
    batches = batches_for(cfg)
    for rec, (x, y) in zip(fx.run.steps[:STEPS], batches, strict=False):
        assert np.array_equal(rec.x, x) and np.array_equal(rec.y, y)
    checker = Checker(fx.run)
    nanogpt.train(cfg, batches, profile_for_platform(platform_id), checker, steps=STEPS)
    assert checker.step == STEPS
    assert not checker.diffs, "\n".join(checker.diffs[:20])


def test_param_shapes_match_fixture() -> None:
    fx = read_nanogpt_fixture(FIXTURES / "linux-x86_64-avx2-mklgeneric-t1.nanogpt-tiny.h5")
    shapes = nanogpt.param_shapes(CONFIGS["tiny"])
    assert list(shapes) == fx.run.param_names
    assert all(shapes[n] == fx.run.init[n].shape for n in shapes)
