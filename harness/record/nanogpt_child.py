"""Record 50 nanoGPT training steps in this process's pinned configuration.

Run as ``python -m harness.record.nanogpt_child`` by ``parity generate --nanogpt``.
The run is recorded twice from the same start; the fixture says whether the two agree.
With ``--nanogpt-dir`` the model (GPT, GPTConfig, configure_optimizers) comes from a
checkout of nanoGPT instead of harness.record.nanogpt_model.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import operator
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from harness.core.digest import ALGORITHM, ALGORITHMS
from harness.core.errors import ParityError
from harness.formats.nanogpt import NanoGPTRun, write_nanogpt_fixture
from harness.formats.run_keep import RunRecorder, keep_mask
from harness.platform import provenance
from harness.platform.config import PlatformConfig, collect_facts
from harness.record.child import child_parser, progress_printer, run_child
from harness.record.nanogpt_train import CONFIGS, ModelSource, TrainConfig, batches_for, train

_DROPOUT_OPS = {torch.ops.aten.bernoulli_.float, torch.ops.aten.bernoulli_.Tensor}
_NATIVE_DROPOUT = torch.ops.aten.native_dropout.default


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy()


class _GraphMask(NamedTuple):
    """A dropout call's mask, still in its autograd graph: the call's output node and the nodes of
    its inputs, where the walk down from the output stops."""

    node: Any
    stop: set[Any]

    def noise(self) -> np.ndarray:
        return _np(_dropout_noise(self.node, self.stop))


class DropoutMasks(TorchDispatchMode):
    """Every dropout keep-mask drawn by F.dropout and F.scaled_dot_product_attention, in draw order.

    Where the call records an autograd graph, the mask is read from it: the ``mul`` that applied
    the scaled noise (``bernoulli_``'s draw divided by 1 - p) saved that noise, and it is non-zero
    exactly where the draw kept an element. Otherwise the call runs under this dispatch mode,
    which sees each ``bernoulli_`` (or ``native_dropout``) below autograd; a test checks that both
    see the same draws as watching every op.

    A call only notes where its graph is; ``take()`` reads the masks, all of a forward pass's
    together (cheaper than one by one between the forward's ops), as NumPy views of the saved
    noise that the backward pass frees: digest them before it runs. Under the dispatch mode the
    draw is copied as a keep-mask at once (the dropout then scales it in place).
    """

    def __init__(self) -> None:
        super().__init__()
        self._draws: list[np.ndarray | _GraphMask] = []

    def take(self) -> list[np.ndarray]:
        """The masks (keep-masks, or the noise they are the non-zeros of) drawn since the last
        ``take()``, in draw order."""
        draws, self._draws = self._draws, []
        return [d.noise() if isinstance(d, _GraphMask) else d for d in draws]

    @classmethod
    def _should_skip_dynamo(cls) -> bool:  # no torch.compile wrapper around every op
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in _DROPOUT_OPS:
            self._draws.append(keep_mask(_np(args[0])))
        elif func is _NATIVE_DROPOUT:
            self._draws.append(keep_mask(_np(out[1])))
        return out

    def _watched(self, call: Callable[[], torch.Tensor], inputs: tuple[Any, ...], readable: bool) -> torch.Tensor:
        """``call()``, its dropout mask kept: from its autograd graph when it records one and
        ``readable``, else under the dispatch mode."""
        if readable and torch.is_grad_enabled() and any(_requires_grad(t) for t in inputs):
            out = call()
            self._draws.append(_GraphMask(out.grad_fn, {t.grad_fn for t in inputs if _requires_grad(t)}))
            return out
        with self:
            return call()

    @contextlib.contextmanager
    def around_dropout(self) -> Iterator[None]:
        """Watch F.dropout and F.scaled_dot_product_attention calls that drop something.

        Only those calls are watched (a dispatch mode over the whole forward would cost a
        Python call for every op). Both are looked up through torch.nn.functional at call
        time, by nn.Dropout and by nanoGPT's attention alike.
        """
        dropout, sdpa = F.dropout, F.scaled_dot_product_attention

        def watched_dropout(input, p=0.5, training=True, inplace=False):
            if not training or p == 0:
                return dropout(input, p, training, inplace)
            # p == 1 multiplies by zeros, drawing nothing; in place, the noise is not saved apart
            return self._watched(lambda: dropout(input, p, training, inplace), (input,), p < 1 and not inplace)

        def watched_sdpa(*args, **kwargs):
            p = kwargs.get("dropout_p", args[4] if len(args) > 4 else 0.0)
            if not p:
                return sdpa(*args, **kwargs)
            qkv = (*args[:3], *(kwargs.get(k) for k in ("query", "key", "value")[len(args[:3]) :]))
            return self._watched(lambda: sdpa(*args, **kwargs), qkv, p < 1)

        F.dropout, F.scaled_dot_product_attention = watched_dropout, watched_sdpa
        try:
            yield
        finally:
            F.dropout, F.scaled_dot_product_attention = dropout, sdpa


def _requires_grad(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and t.requires_grad


def _dropout_noise(node: Any, stop: set[Any]) -> torch.Tensor:
    """The scaled dropout noise of the one dropout between the autograd nodes ``stop`` (of the
    call's inputs) and ``node`` (of its output): the ``MulBackward0`` node that saved a tensor
    needing no gradient as its ``other`` (the noise) and nothing as its ``self``."""
    seen: set[Any] = set()
    todo = [node]
    found: list[torch.Tensor] = []
    while todo:
        node = todo.pop()
        if node is None or node in stop or node in seen:
            continue
        seen.add(node)
        name = node.name()
        if name == "torch::autograd::AccumulateGrad":
            continue
        if name == "MulBackward0" and node._saved_self is None:
            other = node._saved_other
            if isinstance(other, torch.Tensor) and not other.requires_grad:
                found.append(other)
        todo.extend(fn for fn, _ in node.next_functions)
    if len(found) != 1:
        raise ParityError(
            f"expected one dropout mask in the autograd graph of a dropout call, found {len(found)} "
            f"(torch {torch.__version__} builds dropout otherwise: a case for the dispatch mode)"
        )
    return found[0]


class TensorViews:
    """NumPy views of a list of tensors, made again only where the tensors or their storage changed
    (parameters and AdamW moments keep theirs for the whole run; gradients are new each step)."""

    def __init__(self) -> None:
        self._tensors: list[torch.Tensor] = []
        self._ptrs: list[int] = []
        self._arrays: list[np.ndarray] = []

    def of(self, tensors: list[torch.Tensor]) -> list[np.ndarray]:
        ptrs = [t.data_ptr() for t in tensors]
        if ptrs != self._ptrs or not all(map(operator.is_, tensors, self._tensors)):
            self._tensors, self._ptrs, self._arrays = tensors, ptrs, [_np(t) for t in tensors]
        return self._arrays


class StepViews:
    """NumPy views, kept across steps (``TensorViews``), of what the recorders digest: the
    parameters, their gradients and AdamW's moments."""

    def __init__(self) -> None:
        self._views = {kind: TensorViews() for kind in ("grad", "value", "exp_avg", "exp_avg_sq")}

    def values(self, params: list[torch.Tensor]) -> list[np.ndarray]:
        return self._views["value"].of(params)

    def grads(self, params: list[torch.Tensor]) -> list[np.ndarray]:
        return self._views["grad"].of([p.grad for p in params])

    def after_step(self, params: list[torch.Tensor], optimizer: torch.optim.Optimizer) -> dict[str, list[np.ndarray]]:
        """RunRecorder.step's ``per_kind``: grad, value, exp_avg, exp_avg_sq in parameter order."""
        states = [optimizer.state[p] for p in params]
        return {
            "grad": self.grads(params),
            "value": self.values(params),
            "exp_avg": self._views["exp_avg"].of([s["exp_avg"] for s in states]),
            "exp_avg_sq": self._views["exp_avg_sq"].of([s["exp_avg_sq"] for s in states]),
        }


class Recorder:
    """A TrainObserver that hands torch's tensors, as NumPy arrays, to a RunRecorder."""

    def __init__(
        self, full_steps: set[int], batches: list[tuple[np.ndarray, np.ndarray]], algorithm: str = ALGORITHM
    ) -> None:
        self.record = RunRecorder(full_steps, batches, algorithm)
        self._masks = DropoutMasks()
        self.params: list[torch.Tensor] = []
        self._views = StepViews()

    def on_init(self, model: torch.nn.Module) -> None:
        params = list(model.named_parameters())
        self.params = [p for _, p in params]
        self.record.on_init([n for n, _ in params], self._views.values(self.params))

    @contextlib.contextmanager
    def forward_context(self) -> Iterator[None]:
        self._masks.take()
        with self._masks.around_dropout():
            yield

    def after_forward(self, logits: torch.Tensor, loss: torch.Tensor) -> None:
        self.record.forward(_np(logits), _np(loss), self._masks.take())

    def after_backward(self, model: torch.nn.Module) -> None:
        self.record.backward(self._views.grads(self.params))

    def after_clip(self, total_norm: torch.Tensor, clip_coef: torch.Tensor) -> None:
        self.record.clip(_np(total_norm), _np(clip_coef))

    def after_step(self, step: int, lr: float, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self.record.step(step, lr, self._views.after_step(self.params, optimizer))


def load_upstream(nanogpt_dir: Path) -> ModelSource:
    """GPT and GPTConfig from a nanoGPT checkout's model.py."""
    model_py = nanogpt_dir / "model.py"
    if not model_py.is_file():
        raise ParityError(f"{nanogpt_dir}: no model.py here (expected a checkout of nanoGPT)")
    spec = importlib.util.spec_from_file_location("nanogpt_upstream_model", model_py)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        raise ParityError(f"{model_py}: cannot be imported ({type(err).__name__}: {err})") from None
    for name in ("GPT", "GPTConfig"):
        if not hasattr(module, name):
            raise ParityError(f"{model_py}: defines no {name}")
    if not hasattr(module.GPT, "configure_optimizers"):
        raise ParityError(f"{model_py}: GPT has no configure_optimizers")
    sha = hashlib.sha256(model_py.read_bytes()).hexdigest()
    return ModelSource(module.GPT, module.GPTConfig, f"nanoGPT model.py at {model_py}", {"model_py_sha256": sha})


def record_run(
    cfg: TrainConfig, full_steps: set[int], source: ModelSource, label: str, quiet: bool, algorithm: str = ALGORITHM
) -> NanoGPTRun:
    batches = batches_for(cfg)
    recorder = Recorder(full_steps, batches, algorithm)
    show = None if quiet else progress_printer(label, "steps")
    progress = (lambda step, loss: show(step, cfg.steps, f"loss {loss:.4f}")) if show else None
    train(cfg, batches, recorder, source, progress)
    return recorder.record.run()


def first_difference(a: NanoGPTRun, b: NanoGPTRun) -> int:
    """The first step at which two runs differ in any recorded bit (0 when none)."""
    if a.param_names != b.param_names or any(a.init[n].tobytes() != b.init[n].tobytes() for n in a.param_names):
        return 1
    for ra, rb in zip(a.steps, b.steps, strict=True):
        if not ra.same_bits(rb):
            return ra.step
    return 0


def parse_full_steps(text: str | None, cfg: TrainConfig) -> set[int]:
    if text is None or text == "":
        return set(cfg.full_steps)
    if text == "all":
        return set(range(1, cfg.steps + 1))
    if text == "none":
        return set()
    steps = set()
    for part in text.split(","):
        if not part.strip().isdigit() or not 1 <= int(part) <= cfg.steps:
            raise ParityError(f"--full-steps takes step numbers 1..{cfg.steps}, 'all' or 'none', not '{part}'")
        steps.add(int(part))
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = child_parser("python -m harness.record.nanogpt_child")
    parser.add_argument("--config", default="tiny", choices=sorted(CONFIGS))
    parser.add_argument("--full-steps", default=None)
    parser.add_argument("--init", choices=("full", "digest"), default="full")
    parser.add_argument("--nanogpt-dir", type=Path, default=None)
    parser.add_argument("--digest", choices=ALGORITHMS, default=ALGORITHM)
    args = parser.parse_args(argv)

    def record(config: PlatformConfig) -> tuple[int, str, str]:
        cfg = CONFIGS[args.config]
        full_steps = parse_full_steps(args.full_steps, cfg)
        source = load_upstream(args.nanogpt_dir) if args.nanogpt_dir else ModelSource()
        label = f"{config.id} nanogpt-{cfg.name}"
        first = record_run(cfg, full_steps, source, f"{label} run 1/2", args.quiet, args.digest)
        second = record_run(cfg, full_steps, source, f"{label} run 2/2", args.quiet, args.digest)
        diverged = first_difference(first, second)
        prov = provenance.collect(config, collect_facts(), model_source=source.description, **source.extra)
        size = write_nanogpt_fixture(
            args.out, prov, cfg.as_dict() | {"full_steps": sorted(full_steps)}, first,
            deterministic=diverged == 0, first_nondeterministic_step=diverged,
            full_init=args.init == "full", force=args.force,
        )  # fmt: skip
        what = f"{cfg.steps} steps, final loss {float(first.steps[-1].loss):.4f}"
        return size, what, f"the two runs first differ at step {diverged}" if diverged else ""

    return run_child(args, record)


if __name__ == "__main__":
    sys.exit(main())
