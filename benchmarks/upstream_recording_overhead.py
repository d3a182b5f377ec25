"""Wall time of nanoGPT's own train.py (50 iterations) run plainly and recorded, and their ratio.

    python benchmarks/upstream_recording_overhead.py --nanogpt-train PATH [--config tiny|shakespeare-char]
        [--repeat N] [--set key=value ...]

Both run upstream's train.py unchanged through ``runpy`` in this process, with the same data and
settings, in this process's configuration (pin it the way ``parity generate`` does, e.g.
ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=2). The recorded run installs every hook of
``parity generate --nanogpt-train`` and keeps what a fixture stores (digests and float64 sums of
every gradient, weight and AdamW moment, logits and dropout-mask digests, the eval losses, full
tensors at the config's full steps); writing the fixture file is not timed. Each kind runs
``--repeat`` times, alternating; the best of each is kept, in wall time and in this process's
CPU time (all its threads: the measure that holds on a loaded machine). Target: ratio <= 1.25.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch

from harness.generators.record_upstream import Hooks, parse_set, run_train_py
from harness.upstream_run import UPSTREAM_CONFIGS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nanogpt-train", type=Path, required=True, help="a checkout of karpathy/nanoGPT")
    parser.add_argument("--config", default="tiny", choices=sorted(UPSTREAM_CONFIGS))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind; the best is kept")
    parser.add_argument("--set", action="append", default=[], help="another train.py setting, key=value")
    args = parser.parse_args()
    cfg = UPSTREAM_CONFIGS[args.config]
    extra = parse_set(args.set)
    eval_iters = int({**cfg.overrides, **extra}["eval_iters"])
    checkout = args.nanogpt_train.resolve()
    plain: list[tuple[float, float]] = []  # (wall, process CPU) seconds
    recorded: list[tuple[float, float]] = []
    steps = 0
    for _ in range(args.repeat):
        plain.append(timed(partial(run_train_py, checkout, cfg, None, extra)))
        hooks = Hooks(set(cfg.full_steps), eval_iters)
        recorded.append(timed(partial(run_train_py, checkout, cfg, hooks, extra)))
        hooks.record.run()
        steps = hooks.steps
    print(
        f"nanoGPT train.py, config {cfg.name}: {steps} iterations, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, capability {torch.backends.cpu.get_cpu_capability()}, "
        f"best of {args.repeat}"
    )
    for i, what in enumerate(("wall time", "CPU time")):
        p, r = min(t[i] for t in plain), min(t[i] for t in recorded)
        print(f"  {what:<10} plain {p:7.2f} s ({1000 * p / steps:6.1f} ms/iteration), recorded {r:7.2f} s "
              f"({1000 * r / steps:6.1f} ms/iteration), ratio {r / p:.3f} (target <= 1.25)")  # fmt: skip


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


if __name__ == "__main__":
    main()
