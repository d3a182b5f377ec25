"""Time of nanoGPT's own train.py (50 iterations) run plainly and recorded, and their ratio.

    python benchmarks/upstream_recording_overhead.py --nanogpt-train PATH [--config tiny|shakespeare-char]
        [--repeat N] [--set key=value ...]

Both run upstream's train.py unchanged through ``runpy`` in this process, with the same data and
settings, in this process's configuration (pin it the way ``parity generate`` does, e.g.
ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=2). The recorded run installs every hook of
``parity generate --nanogpt-train`` and keeps what a fixture stores (digests and float64 sums of
every gradient, weight and AdamW moment, logits and dropout-mask digests, the eval losses, full
tensors at the config's full steps); writing the fixture file is not timed. Each kind runs
``--repeat`` times, alternating; the median of each is kept, in wall time and in this process's
CPU time (all its threads: the measure that holds on a loaded machine). Target: ratio <= 1.25.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import alternated, report

from harness.record.upstream_child import Hooks, parse_set, run_train_py
from harness.workloads.upstream import UPSTREAM_CONFIGS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nanogpt-train", type=Path, required=True, help="a checkout of karpathy/nanoGPT")
    parser.add_argument("--config", default="tiny", choices=sorted(UPSTREAM_CONFIGS))
    parser.add_argument("--repeat", type=int, default=9, help="runs of each kind; the median is kept")
    parser.add_argument("--set", action="append", default=[], help="another train.py setting, key=value")
    args = parser.parse_args()
    cfg = UPSTREAM_CONFIGS[args.config]
    extra = parse_set(args.set)
    eval_iters = int({**cfg.overrides, **extra}["eval_iters"])
    checkout = args.nanogpt_train.resolve()
    hooks: list[Hooks] = []

    def recorded() -> None:
        hooks[:] = [Hooks(set(cfg.full_steps), eval_iters)]
        run_train_py(checkout, cfg, hooks[-1], extra)

    times = alternated({"plain": lambda: run_train_py(checkout, cfg, None, extra), "recorded": recorded}, args.repeat)
    steps = hooks[-1].steps
    print(
        f"nanoGPT train.py, config {cfg.name}: {steps} iterations, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, capability {torch.backends.cpu.get_cpu_capability()}, "
        f"median of {args.repeat}"
    )
    report(times["plain"], times["recorded"], steps, "iteration", "recorded", 1.25)


if __name__ == "__main__":
    main()
