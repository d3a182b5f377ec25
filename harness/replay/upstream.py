"""karpathy/nanoGPT's train.py, replayed without torch: the same run as an upstream fixture records.

One generator serves everything, in train.py's order: ``torch.manual_seed(1337)``, the model's
initialisation (``harness.impl.nanogpt.init_params``), then ``get_batch`` (``torch.randint(len(data)
- block_size, (batch_size,))``) for the first training batch, and per iteration:

- the learning rate: ``get_lr(iter_num)`` when ``decay_lr``, else ``learning_rate``;
- at ``iter_num % eval_interval == 0``: estimate_loss: ``model.eval()``; for train, then val,
  ``eval_iters`` times get_batch and a forward without dropout (attention through the flash
  kernel); each split's mean of the float32 losses (``torch.mean``); ``model.train()``;
- ``gradient_accumulation_steps`` micro-steps: forward (dropout masks drawn), the loss divided by
  g, the *next* batch drawn (train.py fetches it before the backward), backward, gradients
  accumulated (``grad += new``);
- clip_grad_norm_, AdamW step, zero_grad; then ``iter_num += 1`` until it exceeds ``max_iters``.

``python -m harness.replay.upstream FIXTURE...`` replays each upstream fixture under its own
kernel profile and thread count and says, per fixture, how many steps are bit-identical.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from harness.compare.fixtures import NanoGPTDiff, diff_nanogpt
from harness.core.errors import ParityError
from harness.formats.run_keep import RecorderTee, UpstreamRecorder
from harness.formats.upstream import UpstreamFixture, diff_evals, read_upstream_fixture
from harness.impl import rng
from harness.impl.nanogpt import (
    clip_coef,
    gpt_backward,
    gpt_forward,
    moments,
    start_training,
)
from harness.impl.profiles import KernelProfile, profile_for_fixture
from harness.impl.reduce import clip_grad_norm, mean_dims
from harness.workloads.nanogpt import get_lr
from harness.workloads.upstream import SPLITS, dataset_splits, get_batch, train_config

# train.py settings the replay follows; any other value of these is refused
_REQUIRED = {"device": "cpu", "dtype": "float32", "compile": False, "init_from": "scratch", "eval_only": False}


def check_settings(settings: dict[str, Any]) -> None:
    for key, want in _REQUIRED.items():
        if settings.get(key) != want:
            raise ParityError(f"the impl replays train.py with {key}={want!r}, not {settings.get(key)!r}")
    if float(settings["grad_clip"]) == 0.0:
        raise ParityError("the impl replays train.py with gradient clipping (grad_clip > 0)")


def replay(
    settings: dict[str, Any],
    vocab_size: int,
    profile: KernelProfile,
    recorder: UpstreamRecorder,
    steps: int | None = None,
) -> None:
    """Run train.py's loop with ``settings`` (its ``config`` dict) for ``steps`` optimiser steps
    (default all: iterations 0..max_iters), feeding ``recorder`` as the torch recorder feeds it."""
    check_settings(settings)
    cfg = train_config(settings, vocab_size)
    data = dataset_splits()
    t, bsz = cfg.block_size, cfg.batch_size
    accum = int(settings["gradient_accumulation_steps"])
    eval_interval, eval_iters = int(settings["eval_interval"]), int(settings["eval_iters"])
    dloss = float(np.float32(1.0) / np.float32(accum))  # autograd's gradient of loss / accum
    n_steps = cfg.steps if steps is None else min(steps, cfg.steps)

    gen, shapes, names, p, params, opt, order, slot, ctx = start_training(cfg, profile)
    recorder.on_init(names, [q.copy() for q in params])

    def next_batch(split: str) -> tuple[np.ndarray, np.ndarray]:
        tokens = data[split]
        return get_batch(tokens, rng.randint(gen, 0, len(tokens) - t, bsz), t)

    x, y = next_batch("train")
    for it in range(n_steps):
        lr = get_lr(it, cfg) if settings["decay_lr"] else cfg.learning_rate
        opt.lr = lr
        if it % eval_interval == 0:
            ctx.training = False
            losses = []
            for split in SPLITS:
                for _ in range(eval_iters):
                    ex, ey = next_batch(split)
                    logits, loss, _ = gpt_forward(ctx, cfg, p, ex, ey)
                    recorder.eval_forward(it, ex, ey, logits, loss)
                    losses.append(loss)
            stacked = np.stack(losses).reshape(len(SPLITS), eval_iters)
            recorder.close_eval(it, np.stack([mean_dims(row, None, profile) for row in stacked]))
            ctx.training = True
        total_grads: list[np.ndarray] | None = None
        for _ in range(accum):
            ctx.masks = []
            logits, loss, caches = gpt_forward(ctx, cfg, p, x, y)
            recorder.train_forward(x, y, logits, loss, ctx.masks)
            del logits
            x, y = next_batch("train")
            grad_map = gpt_backward(ctx, cfg, caches, shapes, dloss)
            del caches
            grads = [grad_map[n] for n in names]
            total_grads = grads if total_grads is None else [a + b for a, b in zip(total_grads, grads, strict=True)]
        assert total_grads is not None
        recorder.backward(total_grads)
        total, clipped = clip_grad_norm(total_grads, cfg.grad_clip, profile)
        recorder.clip(total, clip_coef(total, cfg.grad_clip))
        opt.step([clipped[i] for i in order])
        exp_avg, exp_avg_sq = moments(opt, slot, len(params))
        recorder.step(it + 1, lr, {"grad": clipped, "value": params, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq})


def impl_upstream_fixture(
    expected: UpstreamFixture, profile: KernelProfile | None = None, steps: int | None = None
) -> UpstreamFixture:
    """Replay ``expected``'s run with the impl (its first ``steps`` steps, default all), digested as
    ``expected`` is."""
    return impl_upstream_runs(expected, [expected.run.digest], profile, steps)[0]


def impl_upstream_runs(
    expected: UpstreamFixture, algorithms: Sequence[str], profile: KernelProfile | None = None, steps: int | None = None
) -> list[UpstreamFixture]:
    """``impl_upstream_fixture`` in one replay, digested by each of ``algorithms``."""
    profile = profile or profile_for_fixture(expected.attrs)
    full_steps = {int(s) for s in expected.attrs.get("full_steps", [])}
    recorders = [UpstreamRecorder(full_steps, a) for a in algorithms]
    settings, vocab_size = dict(expected.attrs["train_config"]), int(expected.attrs["vocab_size"])
    replay(settings, vocab_size, profile, RecorderTee(recorders), steps)
    path = expected.path.with_name(f"impl:{profile.name}-t{profile.threads}")
    fixtures = []
    for r in recorders:
        run = r.run()
        attrs = {**expected.attrs, "platform_id": f"impl {profile.label}", "steps": len(run.steps)}
        fixtures.append(UpstreamFixture(path, attrs, run, r.evals))
    return fixtures


def check_fixture(
    expected: UpstreamFixture, profile: KernelProfile | None = None, steps: int | None = None
) -> tuple[NanoGPTDiff, list[str]]:
    """The impl's replay against ``expected``: the step-by-step diff, and one line per
    differing evaluation record (none when the evaluations are bit-identical)."""
    actual = impl_upstream_fixture(expected, profile, steps)
    if steps:
        expected.run.steps = expected.run.steps[:steps]
    return diff_nanogpt(expected, actual), diff_evals(expected.evals, actual.evals)


def main(argv: list[str] | None = None) -> int:
    from harness.core.errors import run_reporting_errors

    parser = argparse.ArgumentParser(prog="python -m harness.replay.upstream", description=__doc__.splitlines()[0])
    parser.add_argument("fixtures", nargs="+", type=Path)
    parser.add_argument("--steps", type=int, default=None, help="only the first STEPS steps")
    args = parser.parse_args(argv)

    def body() -> int:
        status = 0
        for path in args.fixtures:
            diff, evals = check_fixture(read_upstream_fixture(path), steps=args.steps)
            where = f"; first difference: step {diff.first.step} {diff.first.detail}" if diff.first else ""
            print(
                f"{path}: {diff.identical_steps} of {len(diff.steps)} steps bit-identical, "
                f"initial weights {'identical' if diff.init_identical else 'differ'}, "
                f"evaluation {'; '.join(evals) if evals else 'identical'}{where}"
            )
            status |= int(not diff.bit_identical or bool(evals))
        return status

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
