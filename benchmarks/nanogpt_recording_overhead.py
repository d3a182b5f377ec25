"""Time of 50 nanoGPT training steps without and with recording, and their ratio.

    python benchmarks/nanogpt_recording_overhead.py [--config tiny|shakespeare-char] [--repeat N] [--steps N]

Both runs train the same steps from the same batches in this process, with this process's
configuration (pin it the way `parity generate` does, e.g. ATEN_CPU_CAPABILITY=avx2
OMP_NUM_THREADS=2). Recording keeps what a fixture stores: digests and float64 sums of every
gradient, weight and AdamW moment, the logits digest, the dropout-mask digests, and full
tensors at the config's full steps. The two kinds run ``--repeat`` times, alternating; the
medians of wall time and of this process's CPU time (the steadier on a loaded machine) are
kept. Target: ratio <= 1.25.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import alternated, report

from harness.record.nanogpt_child import Recorder, parse_full_steps
from harness.record.nanogpt_train import CONFIGS, batches_for, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny", choices=sorted(CONFIGS))
    parser.add_argument("--repeat", type=int, default=9, help="runs of each kind; the median is kept")
    parser.add_argument("--steps", type=int, default=None, help="fewer steps than the config's 50")
    args = parser.parse_args()
    cfg = CONFIGS[args.config]
    if args.steps:
        cfg = replace(cfg, steps=args.steps, full_steps=tuple(s for s in cfg.full_steps if s <= args.steps))
    batches = batches_for(cfg)
    full = parse_full_steps(None, cfg)
    times = alternated(
        {"plain": lambda: train(cfg, batches), "recorded": lambda: train(cfg, batches, Recorder(full, batches))},
        args.repeat,
    )
    print(
        f"config {cfg.name}: {cfg.steps} steps, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, "
        f"capability {torch.backends.cpu.get_cpu_capability()}, median of {args.repeat}"
    )
    report(times["plain"], times["recorded"], cfg.steps, "step", "recorded", 1.25)


if __name__ == "__main__":
    main()
