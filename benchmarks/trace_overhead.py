"""Time of nanoGPT training steps without and with `parity trace` recording, and their ratio.

    python benchmarks/trace_overhead.py [--config tiny|shakespeare-char] [--steps N] [--repeat N]

Both runs train the same steps from the same batches in this process, with this process's
configuration (pin it as `parity generate` does, e.g. ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=2).
The traced run records every ATen op of the forward, backward and optimizer (digests, sums,
shapes, call sites; harness.trace.recorder, through its dispatcher hook unless PARITY_TRACE_HOOK=0)
and makes the records into OpRecords, as writing the trace does (writing the file is not timed).
Model construction is outside the timed region; the two kinds run ``--repeat`` times,
alternating, and the medians of wall time and of this process's CPU time (the steadier on a
loaded machine) are kept.
Targets: ratio <= 3 at tiny, <= 1.5 at shakespeare-char.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import alternated, report

from harness.record.nanogpt_model import GPT, GPTConfig
from harness.record.nanogpt_train import CONFIGS, batches_for, get_lr
from harness.trace.recorder import recording


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny", choices=sorted(CONFIGS))
    parser.add_argument("--steps", type=int, default=10, help="training steps per timed run (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each kind; the median is kept")
    args = parser.parse_args()
    cfg = replace(CONFIGS[args.config], steps=args.steps)
    batches = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches_for(cfg)]
    torch.manual_seed(cfg.seed)
    model = GPT(GPTConfig(**cfg.model_args()))
    model.train()
    optimizer = model.configure_optimizers(cfg.weight_decay, cfg.learning_rate, (cfg.beta1, cfg.beta2), "cpu")

    def steps() -> None:
        for it, (x, y) in enumerate(batches):
            for group in optimizer.param_groups:
                group["lr"] = get_lr(it, cfg)
            _, loss = model(x, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

    counted: list[int] = []
    backends: list[str] = []

    def traced() -> None:
        with recording() as tracer:
            steps()
        counted.append(len(tracer.ops))  # the records made into OpRecords, as writing the trace does
        backends.append(tracer.backend)

    times = alternated({"plain": steps, "traced": traced}, args.repeat)
    per_step = counted[-1] / cfg.steps
    print(
        f"config {cfg.name}: {cfg.steps} steps, torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"capability {torch.backends.cpu.get_cpu_capability()}, median of {args.repeat}, {per_step:.0f} ops/step, "
        f"recorded through the {'/'.join(sorted(set(backends)))}"
    )
    report(times["plain"], times["traced"], cfg.steps, "step", "traced", 3.0 if cfg.name == "tiny" else 1.5)


if __name__ == "__main__":
    main()
