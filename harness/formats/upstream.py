"""Fixtures of karpathy/nanoGPT's own train.py, run unchanged (kind "nanogpt-upstream").

The layout is a nanoGPT fixture's (``harness.formats.nanogpt``: initial weights, then per
optimiser step the batch, loss, logits and dropout-mask digests, gradients before and after
clipping, clip norm and coefficient, AdamW moments and new weights), plus::

    /                         attrs: kind "nanogpt-upstream", config (our name, train.py's
                                     arguments), train_config (train.py's own ``config`` dict
                                     after its configurator ran), vocab_size, upstream (the
                                     checkout's commit and the SHA-256 of train.py, model.py,
                                     configurator.py and the config file), dataset (SHA-256 of
                                     train.bin, val.bin, meta.pkl), runs, deterministic, ...
    /evals/<NNNN>             estimate_loss at iteration NNNN (0-based): attrs iteration
        x, y                  (2K, B, T) int64: eval_iters train batches, then eval_iters val batches
        loss                  (2K,) float32: each batch's loss (eval mode, no dropout)
        logits_digest         (2K, 32) uint8 (``logits_sha256`` in a fixture of SHA-256 digests)
        mean                  (2,) float32: estimate_loss's train and val means

With gradient accumulation (g > 1 micro-steps per step) a step's x and y are (g, B, T), its loss
(g,) and its logits digests (g, 32) (see ``harness.formats.run_keep.UpstreamRecorder``). Steps are
numbered from 1: step s is train.py's iteration s - 1. This module never imports torch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from harness.core.errors import FixtureError
from harness.formats.nanogpt import (
    DIGEST_KINDS,
    NanoGPTFixture,
    NanoGPTRun,
    digest_attr,
    fixture_digest,
    input_digest,
    put_run,
    read_run,
    step_group,
    stored_name,
)
from harness.store import FixtureReader, FixtureWriter, json_attr, spec, tensor_digest
from harness.workloads.upstream import EvalRecord

KIND = "nanogpt-upstream"


@dataclass
class UpstreamFixture(NanoGPTFixture):
    kind: ClassVar[str] = KIND
    evals: list[EvalRecord] = field(default_factory=list)


def eval_group(iteration: int) -> str:
    return f"evals/{iteration:04d}"


def upstream_input_digest(config: dict[str, Any], run: NanoGPTRun, evals: list[EvalRecord]) -> str:
    """The nanoGPT input digest (config and every step's batch) extended by the eval batches."""
    h = hashlib.sha256(input_digest(config, run.steps).encode())
    for ev in evals:
        h.update(json_attr(ev.iteration).encode())
        h.update(tensor_digest(ev.x).encode())
        h.update(tensor_digest(ev.y).encode())
    return h.hexdigest()


def write_upstream_fixture(
    path: str | Path, attrs: dict[str, Any], run: NanoGPTRun, evals: list[EvalRecord], *, force: bool = False
) -> int:
    """Write an upstream fixture atomically; ``attrs`` are the root attributes beyond those
    derived from the run. Returns the bytes of distinct tensor data."""
    full_init = bool(attrs.get("full_init", True))
    with FixtureWriter(path, KIND, force=force) as writer:
        writer.set_attrs(
            "/",
            {
                **attrs,
                "input_digest": upstream_input_digest(attrs["config"], run, evals),
                "param_names": run.param_names,
                "param_shapes": attrs["param_shapes"],
                "full_init": full_init,
                **digest_attr(run.digest),
                "digest_kinds": list(DIGEST_KINDS),
                "full_steps": [r.step for r in run.steps if r.full],
                "steps": len(run.steps),
                "eval_iterations": [ev.iteration for ev in evals],
            },
        )
        put_run(writer, run, full_init=full_init)
        for ev in evals:
            group = eval_group(ev.iteration)
            for name, arr in ev.tensors().items():
                writer.put(group, stored_name(name, run.digest), arr)
            writer.set_attrs(group, {"iteration": ev.iteration})
        return writer.bytes_written


_ROOT_TYPES: dict[str, type] = {
    "provenance": dict, "config": dict, "train_config": dict, "upstream": dict, "dataset": dict,
    "torch_version": str, "platform_id": str, "input_digest": str, "param_names": list, "param_shapes": list,
    "vocab_size": int, "full_init": bool, "digest_kinds": list, "full_steps": list, "steps": int,
    "eval_iterations": list, "runs": int, "deterministic": bool, "first_nondeterministic_step": int,
}  # fmt: skip


def _damaged(reader: FixtureReader, problem: str) -> FixtureError:
    return FixtureError(reader.path, f"damaged fixture: {problem}")


def _expect(reader: FixtureReader, path: str, dtype: str, shape: tuple[int, ...]) -> None:
    if not reader.has(path):
        raise FixtureError(reader.path, f"incomplete fixture: {path} is missing")
    key = reader.key(path)
    if (key.dtype, key.shape) != (dtype, shape):
        raise _damaged(reader, f"{path} is {key.dtype}{list(key.shape)}, expected {dtype}{list(shape)}")


def check_upstream_fixture(reader: FixtureReader) -> None:
    """Structure and completeness of an upstream fixture before any tensor is read: every step
    from 1 to ``steps`` and every evaluation with each record, of shapes that agree with the
    parameters, train.py's settings (micro-steps, batch, block, eval_iters) and each other."""
    attrs = reader.require_attrs("/", _ROOT_TYPES)
    spec.check_identity(reader.path, attrs)
    settings, names, shapes, steps = attrs["train_config"], attrs["param_names"], attrs["param_shapes"], attrs["steps"]
    try:
        micro, batch, block = (int(settings[k]) for k in ("gradient_accumulation_steps", "batch_size", "block_size"))
        eval_iters, n_layer, dropout = int(settings["eval_iters"]), int(settings["n_layer"]), float(settings["dropout"])
    except (KeyError, TypeError, ValueError):
        raise _damaged(reader, "its train_config lacks train.py's settings") from None
    if list(attrs["digest_kinds"]) != list(DIGEST_KINDS) or len(names) != len(shapes) or not names:
        raise _damaged(reader, "its digest kinds, parameter names or shapes are not consistent")
    if not 1 <= steps <= int(settings.get("max_iters", -1)) + 1:
        raise _damaged(reader, f"its step count {steps} does not fit train.py's max_iters")
    n = len(names)
    algorithm = fixture_digest(reader)
    logits, masks = stored_name("logits_digest", algorithm), stored_name("dropout_mask_digests", algorithm)
    stacked = (micro,) if micro > 1 else ()
    n_masks = micro * (1 + 3 * n_layer) if dropout else 0
    _expect(reader, stored_name("init_digests", algorithm), "uint8", (n, 32))
    _expect(reader, "init_sums", "float64", (n,))
    for step in range(1, steps + 1):
        group = step_group(step)
        _expect(reader, f"{group}/x", "int64", (*stacked, batch, block))
        _expect(reader, f"{group}/y", "int64", (*stacked, batch, block))
        _expect(reader, f"{group}/loss", "float32", stacked)
        _expect(reader, f"{group}/{logits}", "uint8", (*stacked, 32))
        _expect(reader, f"{group}/{masks}", "uint8", (n_masks, 32))
        for name in ("grad_norm", "clip_coef"):
            _expect(reader, f"{group}/{name}", "float32", ())
        _expect(reader, f"{group}/digests", "uint8", (n, len(DIGEST_KINDS), 32))
        _expect(reader, f"{group}/sums", "float64", (n, len(DIGEST_KINDS)))
        if (step in attrs["full_steps"]) != reader.has(f"{group}/full"):
            raise _damaged(reader, f"{group}: its full tensors do not agree with full_steps")
    _check_groups(reader, attrs, steps)
    for iteration in attrs["eval_iterations"]:
        group = eval_group(int(iteration))
        _expect(reader, f"{group}/x", "int64", (2 * eval_iters, batch, block))
        _expect(reader, f"{group}/y", "int64", (2 * eval_iters, batch, block))
        _expect(reader, f"{group}/loss", "float32", (2 * eval_iters,))
        _expect(reader, f"{group}/{logits}", "uint8", (2 * eval_iters, 32))
        _expect(reader, f"{group}/mean", "float32", (2,))


def _check_groups(reader: FixtureReader, attrs: dict[str, Any], steps: int) -> None:
    """The root holds steps, evals (where it evaluated) and init (where it keeps them in full), and
    steps and evals hold exactly the steps and the evaluations it records: nothing else."""
    iterations = attrs["eval_iterations"]
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= 100_000 for i in iterations):
        raise _damaged(reader, f"its eval_iterations {str(iterations)[:80]} are not iterations")
    roots = ["steps"] + (["evals"] if iterations else []) + (["init"] if attrs["full_init"] else [])
    if sorted(reader.groups("/")) != sorted(roots):
        raise _damaged(reader, f"its root holds groups {reader.groups('/')}, an upstream run {roots}")
    if reader.groups("steps") != [step_group(s).split("/")[1] for s in range(1, steps + 1)]:
        raise _damaged(reader, f"its steps are not steps 1 to {steps}")
    if iterations and reader.groups("evals") != [eval_group(i).split("/")[1] for i in iterations]:
        raise _damaged(reader, "its evaluations are not the iterations it lists")


def read_upstream_fixture(path: str | Path, *, full: bool = True) -> UpstreamFixture:
    """Read (and verify the digests of) an upstream fixture; ``full=False`` skips full tensors."""
    with FixtureReader(path, kind=KIND) as reader:
        check_upstream_fixture(reader)
        attrs = reader.attrs("/")
        run = read_run(reader, attrs, full=full)
        evals = []
        stored = {
            name: stored_name(name, run.digest) for name in EvalRecord.__dataclass_fields__ if name != "iteration"
        }
        for iteration in attrs.get("eval_iterations", []):
            group = eval_group(int(iteration))
            tensors = {name: reader.tensor(f"{group}/{dataset}") for name, dataset in stored.items()}
            evals.append(EvalRecord(int(iteration), **tensors))
        return UpstreamFixture(Path(path), attrs, run, evals)


def diff_evals(a: list[EvalRecord], b: list[EvalRecord]) -> list[str]:
    """One line per differing eval record (batches, logits, losses, means); empty when identical."""
    if [e.iteration for e in a] != [e.iteration for e in b]:
        return [f"evaluated at iterations {[e.iteration for e in a]} vs {[e.iteration for e in b]}"]
    lines = []
    for ea, eb in zip(a, b, strict=True):
        for name, ta in ea.tensors().items():
            tb = eb.tensors()[name]
            if ta.shape != tb.shape or ta.dtype != tb.dtype or ta.tobytes() != tb.tobytes():
                lines.append(f"evaluation at iteration {ea.iteration}: {name} differs")
    return lines
