"""Wall time of nanoGPT's 50 training steps in the impl and in torch, same thread count, and their ratio.

    python benchmarks/nanogpt_impl_vs_torch.py [--config tiny|shakespeare-char] [--steps N] [--repeat N]

torch trains in this process (``torch.set_num_threads(threads)``, its own capability); the impl
trains the same configuration and batches under the matching kernel profile and thread count.
Neither run records anything. Times are the best of ``--repeat`` runs. Target: ratio <= 2.
"""

from __future__ import annotations

import argparse
import platform
from dataclasses import replace

import torch
from timing import best_of

from harness.impl.nanogpt import train as impl_train
from harness.impl.profiles import profile_for_capability
from harness.record.nanogpt_train import CONFIGS, batches_for
from harness.record.nanogpt_train import train as torch_train

TARGET = 2.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny", choices=sorted(CONFIGS))
    parser.add_argument("--steps", type=int, default=None, help="fewer steps than the config's 50")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg = CONFIGS[args.config]
    if args.steps:
        cfg = replace(cfg, steps=args.steps)
    batches = batches_for(cfg)
    profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), args.threads, platform.machine())
    t_torch = best_of(lambda: torch_train(cfg, batches), args.repeat, warm_up=False)
    t_impl = best_of(lambda: impl_train(cfg, batches, profile), args.repeat, warm_up=False)
    ratio = t_impl / t_torch
    print(f"nanoGPT {cfg.name}, {cfg.steps} steps, {args.threads} threads, best of {args.repeat}")
    print(f"torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()}): {t_torch:.3f} s")
    print(f"impl {profile.label}: {t_impl:.3f} s")
    print(f"ratio impl/torch {ratio:.2f} (target <= {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
