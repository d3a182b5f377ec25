"""Time of nanoGPT training steps without and with `parity trace` recording, and their ratio.

    python benchmarks/trace_overhead.py [--config tiny|shakespeare-char|gpt2-small] [--steps N] [--repeat N]

Both runs train the same steps from the same batches in this process, with this process's
configuration (pin it as `parity generate` does, e.g. ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=2).
The traced run records every ATen op of the forward, backward and optimizer (digests, sums,
shapes, call sites; harness.trace.recorder, through its dispatcher hook unless PARITY_TRACE_HOOK=0)
and makes the records into OpRecords, as writing the trace does (writing the file is not timed).
Model construction is outside the timed region; the two kinds run ``--repeat`` times,
alternating, and the medians of wall time and of this process's CPU time (the steadier on a
loaded machine) are kept.
``gpt2-small`` is GPT-2 small's size (124M parameters: 12 layers, 12 heads, 768 wide, the GPT-2
vocabulary) at batch 4 x 256, nanoGPT's training loop on the character data (a step takes seconds:
pass e.g. ``--steps 2 --repeat 3``).
Targets: ratio <= 3 at tiny, <= 1.5 at shakespeare-char, <= 1.25 at gpt2-small. Measured
(docs/trace.md, Cost): gpt2-small --steps 1 --repeat 3 at 2 threads, avx2, 1.24x CPU time (1.14x
wall) with the 2-core machine loaded, 1.27x to 1.44x CPU (1.25x to 1.46x wall) nearly idle in two
single-step runs, 1.232x CPU (1.246x wall) idle with --steps 2 --repeat 5; tiny 2.31x idle at 1 thread.
On a second, slower Zen 3 host, idle, --steps 2 --repeat 5: 1.32x wall, 1.28x CPU (1.25x not met there).
On an AMD Zen 5 with AVX-512, idle, --steps 2 --repeat 5 at avx2: 1.237x wall, 1.212x CPU; with traces
digested by mix256-v2, two runs: 1.197x and 1.197x wall (mix256-v1 alternating: 1.177x and 1.238x).
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
from harness.record.nanogpt_train import CONFIGS, TrainConfig, batches_for, get_lr
from harness.trace.recorder import recording

# sizes timed here only (no fixture is recorded at them)
BENCH_CONFIGS = {
    "gpt2-small": TrainConfig(
        name="gpt2-small", n_layer=12, n_head=12, n_embd=768, block_size=256, batch_size=4, dropout=0.0,
        bias=True, learning_rate=6e-4, beta2=0.95, warmup_iters=10, lr_decay_iters=50, min_lr=6e-5,
        full_steps=(), vocab_size=50304,
    ),
}  # fmt: skip
TARGETS = {"tiny": 3.0, "shakespeare-char": 1.5, "gpt2-small": 1.25}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny", choices=sorted(CONFIGS | BENCH_CONFIGS))
    parser.add_argument("--steps", type=int, default=10, help="training steps per timed run (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each kind; the median is kept")
    args = parser.parse_args()
    cfg = replace((CONFIGS | BENCH_CONFIGS)[args.config], steps=args.steps)
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
    report(times["plain"], times["traced"], cfg.steps, "step", "traced", TARGETS[cfg.name])


if __name__ == "__main__":
    main()
