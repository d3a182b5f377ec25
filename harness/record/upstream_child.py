"""Record karpathy/nanoGPT's own train.py, run unchanged, in this process's pinned configuration.

Run as ``python -m harness.record.upstream_child`` by ``parity generate --nanogpt-train``.
train.py runs through ``runpy`` from the checkout (its working directory, so that its
``exec(open('configurator.py').read())`` and config files resolve), with our data in nanoGPT's
format in a temporary directory. Nothing of upstream is edited or copied; everything is seen
from outside, installed at run time:

- the model: ``model.GPT.configure_optimizers`` is wrapped (train.py calls it once, on the
  model it trains); the wrapper records the initial weights and puts a forward hook on the
  model (batch, logits, loss; training or eval mode) and a step post-hook on the optimizer
  (gradients after clipping, new weights, AdamW moments, lr);
- ``torch.nn.utils.clip_grad_norm_`` is wrapped (gradients before clipping, the total norm
  and the coefficient, computed by the same tensor operations);
- dropout keep-masks through ``nanogpt_child.DropoutMasks`` (the autograd graph, or a dispatch mode).

What cannot be seen without editing train.py: estimate_loss's return value (a local), so
the recorder computes each split's mean from the recorded batch losses as estimate_loss does
(``torch.zeros(eval_iters)``, filled from ``loss.item()``, ``.mean()``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import os
import runpy
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import torch

from harness.core.digest import ALGORITHM, ALGORITHMS
from harness.core.errors import ParityError
from harness.formats.nanogpt import NanoGPTRun
from harness.formats.run_keep import UpstreamRecorder
from harness.formats.upstream import diff_evals, write_upstream_fixture
from harness.platform import provenance
from harness.platform.config import PlatformConfig, collect_facts
from harness.record.child import child_parser, progress_printer, run_child
from harness.record.nanogpt_child import DropoutMasks, StepViews, first_difference
from harness.workloads.upstream import UPSTREAM_CONFIGS, UPSTREAM_FILES, UpstreamConfig, write_dataset


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy()


def checkout_facts(checkout: Path, cfg: UpstreamConfig) -> dict[str, Any]:
    """The checkout's commit (where it is a git work tree) and the SHA-256 of the files run."""
    files = [*UPSTREAM_FILES, *([cfg.config_file] if cfg.config_file else [])]
    missing = [f for f in files if not (checkout / f).is_file()]
    if missing:
        raise ParityError(f"{checkout}: no {', '.join(missing)} here (expected a checkout of karpathy/nanoGPT)")
    facts: dict[str, Any] = {"sha256": {f: hashlib.sha256((checkout / f).read_bytes()).hexdigest() for f in files}}
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        git = ["git", "-C", str(checkout)]
        head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--", *files], capture_output=True, text=True, check=True
        )
        facts["commit"] = head.stdout.strip()
        facts["files_modified"] = bool(dirty.stdout.strip())
    return facts


class Hooks:
    """Everything installed around one run of train.py, feeding an UpstreamRecorder.

    Digests and sums are taken where the hooks run, from NumPy views of torch's tensors (no
    copies): the gradients before clipping scales them in place, the weights and AdamW moments
    before the next step writes them again.
    """

    def __init__(self, full_steps: set[int], eval_iters: int, algorithm: str = ALGORITHM) -> None:
        self.record = UpstreamRecorder(full_steps, algorithm)
        self.eval_iters = eval_iters
        self.masks = DropoutMasks()
        self.params: list[torch.Tensor] = []
        self.optimizer: torch.optim.Optimizer | None = None
        self.vocab_size = 0
        self.shapes: list[list[int]] = []
        self.steps = 0
        self._clipped = False
        self._eval_losses: list[float] = []
        self._views = StepViews()

    # --- installed on the model and optimizer train.py builds
    def on_optimizer(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
        if self.optimizer is not None:
            raise ParityError("train.py built a second optimizer: not a run this recorder understands")
        named = list(model.named_parameters())
        self.params = [p for _, p in named]
        self.shapes = [list(p.shape) for p in self.params]
        self.vocab_size = int(model.config.vocab_size)
        self.record.on_init([n for n, _ in named], self._views.values(self.params))
        model.register_forward_hook(self.after_forward)
        optimizer.register_step_post_hook(self.after_step)
        self.optimizer = optimizer

    def after_forward(self, module: torch.nn.Module, args: tuple, output: Any) -> None:
        # logits and loss are new tensors, the batch is not written to: no copies needed
        x, y = _np(args[0]), _np(args[1])
        logits, loss = (_np(t) for t in output)
        if module.training:
            self.record.train_forward(x, y, logits, loss, self.masks.take())
        else:
            self.record.eval_forward(self.steps, x, y, logits, loss)
            self._eval_losses.append(float(loss))
            if len(self._eval_losses) == 2 * self.eval_iters:
                # estimate_loss: losses = torch.zeros(eval_iters); losses[k] = loss.item(); losses.mean()
                means = []
                for split in range(2):
                    t = torch.zeros(self.eval_iters)
                    for k in range(self.eval_iters):
                        t[k] = self._eval_losses[split * self.eval_iters + k]
                    means.append(_np(t.mean()))
                self.record.close_eval(self.steps, np.stack(means))
                self._eval_losses = []
        self.masks.take()

    def clip_grad_norm_(self, original: Any) -> Any:
        def wrapped(parameters: Any, max_norm: float, *args: Any, **kwargs: Any) -> torch.Tensor:
            params = list(parameters) if not isinstance(parameters, torch.Tensor) else [parameters]
            if [id(p) for p in params] != [id(p) for p in self.params]:
                raise ParityError("clip_grad_norm_ was called on other tensors than the model's parameters")
            self.record.backward(self._views.grads(params))  # before clipping scales them
            total_norm = original(params, max_norm, *args, **kwargs)
            # the coefficient clip_grad_norm_ applied, by the same tensor operations
            coef = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
            self.record.clip(_np(total_norm), _np(coef))
            self._clipped = True
            return total_norm

        return wrapped

    def after_step(self, optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
        self.steps += 1
        if not self._clipped:
            raise ParityError("train.py stepped without clip_grad_norm_ (grad_clip 0 is not recorded)")
        self._clipped = False
        lrs = {float(g["lr"]) for g in optimizer.param_groups}
        self.record.step(self.steps, lrs.pop(), self._views.after_step(self.params, optimizer))


@contextlib.contextmanager
def upstream_process(checkout: Path, argv: list[str], log: TextIO) -> Iterator[Any]:
    """train.py's process state: its working directory, sys.argv, ``model`` importable from the
    checkout (no bytecode written there), its prints to ``log`` (and its FutureWarnings too, unless
    ``log`` is stderr); restored afterwards.
    Yields the checkout's ``model`` module."""
    saved = (os.getcwd(), sys.argv, list(sys.path), sys.dont_write_bytecode, sys.modules.get("model"))
    spec = importlib.util.spec_from_file_location("model", checkout / "model.py")
    assert spec and spec.loader
    model = importlib.util.module_from_spec(spec)
    try:
        os.chdir(checkout)
        sys.argv = [str(checkout / "train.py"), *argv]
        sys.path.insert(0, str(checkout))
        sys.dont_write_bytecode = True
        sys.modules["model"] = model
        spec.loader.exec_module(model)
        with contextlib.redirect_stdout(log), warnings.catch_warnings():
            if log is not sys.stderr:  # train.py's own deprecation warnings (torch.cuda.amp.GradScaler)
                warnings.simplefilter("ignore", FutureWarning)
            yield model
    finally:
        os.chdir(saved[0])
        sys.argv, sys.path[:], sys.dont_write_bytecode = saved[1], saved[2], saved[3]
        if saved[4] is None:
            sys.modules.pop("model", None)
        else:
            sys.modules["model"] = saved[4]


@contextlib.contextmanager
def installed(model_module: Any, hooks: Hooks | None) -> Iterator[None]:
    """The run-time wrappers around configure_optimizers and clip_grad_norm_, and the mask capture."""
    if hooks is None:
        yield
        return
    gpt = model_module.GPT
    configure, clip = gpt.configure_optimizers, torch.nn.utils.clip_grad_norm_

    def configure_optimizers(self: Any, *args: Any, **kwargs: Any) -> Any:
        optimizer = configure(self, *args, **kwargs)
        hooks.on_optimizer(self, optimizer)
        return optimizer

    gpt.configure_optimizers = configure_optimizers
    torch.nn.utils.clip_grad_norm_ = hooks.clip_grad_norm_(clip)
    try:
        with hooks.masks.around_dropout():
            yield
    finally:
        gpt.configure_optimizers = configure
        torch.nn.utils.clip_grad_norm_ = clip


def run_train_py(
    checkout: Path, cfg: UpstreamConfig, hooks: Hooks | None, extra: dict[str, Any] | None = None, quiet: bool = True
) -> tuple[dict[str, Any], dict[str, str], str]:
    """Run train.py once (recorded when ``hooks`` is given); returns (train.py's ``config`` dict,
    the dataset's SHA-256s, train.py's printed log)."""
    log = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="parity-nanogpt-") as tmp:
        data = write_dataset(Path(tmp) / "data")
        argv = cfg.argv(Path(tmp) / "data", Path(tmp) / "out", extra)
        out = log if quiet else sys.stderr
        with upstream_process(checkout, argv, out) as model_module, installed(model_module, hooks):
            try:
                namespace = runpy.run_path(str(checkout / "train.py"), run_name="__main__")
            except Exception as err:
                raise ParityError(f"{checkout / 'train.py'} failed: {type(err).__name__}: {err}") from None
    return dict(namespace["config"]), data, log.getvalue()


def record_run(
    checkout: Path, cfg: UpstreamConfig, full_steps: set[int], extra: dict[str, Any], label: str, quiet: bool,
    algorithm: str = ALGORITHM,
) -> tuple[Hooks, dict[str, Any], dict[str, str]]:  # fmt: skip
    eval_iters = int({**cfg.overrides, **extra}.get("eval_iters", 0))
    if not eval_iters:
        raise ParityError(f"config {cfg.name}: eval_iters must be set")
    hooks = Hooks(full_steps, eval_iters, algorithm)
    show = None if quiet else progress_printer(label, "runs")
    settings, data, _ = run_train_py(checkout, cfg, hooks, extra, quiet)
    if show:
        show(1, 1, f"{hooks.steps} steps")
    return hooks, settings, data


def parse_set(items: list[str]) -> dict[str, Any]:
    """``--set key=value`` pairs as train.py's configurator would read them."""
    from ast import literal_eval

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParityError(f"--set takes key=value, not '{item}'")
        try:
            out[key] = literal_eval(value)
        except (SyntaxError, ValueError):
            out[key] = value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = child_parser("python -m harness.record.upstream_child")
    parser.add_argument("--nanogpt-train", type=Path, required=True, help="a checkout of karpathy/nanoGPT")
    parser.add_argument("--config", default="tiny", choices=sorted(UPSTREAM_CONFIGS))
    parser.add_argument("--runs", type=int, choices=(1, 2), default=2, help="2: record twice and compare")
    parser.add_argument("--set", action="append", default=[], help="another train.py setting, key=value")
    parser.add_argument("--digest", choices=ALGORITHMS, default=ALGORITHM)
    args = parser.parse_args(argv)

    def record(config: PlatformConfig) -> tuple[int, str, str]:
        checkout = args.nanogpt_train.resolve()
        cfg = UPSTREAM_CONFIGS[args.config]
        upstream = checkout_facts(checkout, cfg)
        extra = parse_set(args.set)
        label = f"{config.id} nanogpt-upstream-{cfg.name}"
        runs = [
            record_run(
                checkout, cfg, set(cfg.full_steps), extra, f"{label} run {i + 1}/{args.runs}", args.quiet, args.digest
            )
            for i in range(args.runs)
        ]
        hooks, settings, data = runs[0]
        first: NanoGPTRun = hooks.record.run()
        diverged = 0
        if len(runs) == 2:
            second = runs[1][0].record
            diverged = first_difference(first, second.run())
            if not diverged and diff_evals(hooks.record.evals, second.evals):
                diverged = 1  # the evaluation at iteration 0 comes before step 1
        prov = provenance.collect(config, collect_facts(), model_source=f"nanoGPT train.py at {checkout}")
        attrs = {
            "provenance": prov,
            "torch_version": prov.get("torch_version", ""),
            "platform_id": prov.get("platform_id", ""),
            "config": {
                "name": cfg.name,
                "config_file": cfg.config_file,
                "argv": cfg.argv(Path("DATA"), Path("OUT"), extra),
            },
            "train_config": settings,
            "vocab_size": hooks.vocab_size,
            "param_shapes": hooks.shapes,
            "full_init": cfg.full_init,
            "upstream": upstream,
            "dataset": data,
            "runs": len(runs),
            "deterministic": len(runs) == 2 and diverged == 0,
            "first_nondeterministic_step": diverged,
        }
        size = write_upstream_fixture(args.out, attrs, first, hooks.record.evals, force=args.force)
        what = f"{len(first.steps)} steps, loss {float(np.mean(first.steps[-1].loss)):.4f} at the last"
        return size, what, f"the two runs first differ at step {diverged}" if diverged else ""

    return run_child(args, record)


if __name__ == "__main__":
    sys.exit(main())
