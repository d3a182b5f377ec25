"""What MKL_CBWR=COMPATIBLE costs natively: the 26 ops and a nanoGPT tiny training step, with and without it.

    python benchmarks/cbwr_cost.py [--isa avx2,avx512] [--threads 1] [--rounds 5] [--steps 8]

Each (ISA level, MKL_CBWR) configuration runs in a fresh process pinned the way `parity generate`
pins it (harness.platform.config.child_env: ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS,
ONEDNN_MAX_CPU_ISA, the thread variables, MKL_CBWR): MKL reads MKL_CBWR once, when it loads. A
process times, after an untimed warm-up, one pass over every fixed case of the 26 ops (forward
and every gradient, inputs made beforehand) three times and keeps the median, then trains nanoGPT
tiny for ``--steps`` steps and keeps the median step after the first. The configurations run in
turn, ``--rounds`` times, so that load from elsewhere hits them alike; printed are the medians
over the rounds (wall time: on a shared host, read the ratios, not the absolute numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def child(steps: int) -> None:
    import torch

    from harness.record.nanogpt_train import CONFIGS, batches_for, train
    from harness.record.torch_ops import OPS
    from harness.workloads.inputs import salted

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    cases = []
    for spec in OPS:
        for case in spec.cases:
            params = dict(case.params)
            with salted(int(params.get("salt", 0))):
                inputs = spec.make_inputs(params)
            cases.append((spec, params, inputs))

    def op_set() -> None:
        for spec, params, inputs in cases:
            spec.run(params, {name: torch.from_numpy(arr.copy()) for name, arr in inputs.items()})

    op_set()  # warm-up: libraries, allocations
    times = []
    for _ in range(3):
        start = time.perf_counter()
        op_set()
        times.append(time.perf_counter() - start)
    cfg = CONFIGS["tiny"]
    cfg = replace(cfg, steps=steps, full_steps=())
    step_times: list[float] = []
    last = [time.perf_counter()]

    def progress(_step: int, _loss: float) -> None:
        now = time.perf_counter()
        step_times.append(now - last[0])
        last[0] = now

    train(cfg, batches_for(cfg), progress=progress)
    out = {
        "ops_s": statistics.median(times),
        "step_s": statistics.median(step_times[1:]) if len(step_times) > 1 else float("nan"),
        "capability": torch.backends.cpu.get_cpu_capability(),
        "mkl_cbwr": os.environ.get("MKL_CBWR", ""),
    }
    print("RESULT " + json.dumps(out), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isa", default="avx2,avx512")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=8, help="nanoGPT tiny steps per process (the first untimed)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.steps)
        return 0
    from harness.platform.config import PlatformConfig, child_env

    configs = [
        PlatformConfig("linux", "x86_64", isa, int(t), cbwr)
        for isa in args.isa.split(",")
        for t in args.threads.split(",")
        for cbwr in ("", "COMPATIBLE")
    ]
    results: dict[str, list[dict]] = {c.id: [] for c in configs}
    for r in range(args.rounds):
        for config in configs:
            env = {**child_env(config), "PYTHONPATH": str(ROOT)}
            cmd = [sys.executable, __file__, "--child", "--steps", str(args.steps)]
            run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=ROOT)
            lines = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")]
            if run.returncode != 0 or not lines:
                print(f"{config.id}: failed: {(run.stderr.strip().splitlines() or ['no output'])[-1]}")
                return 1
            results[config.id].append(json.loads(lines[-1].removeprefix("RESULT ")))
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"medians of {args.rounds} rounds (wall time, shared host)")
    print(f"{'configuration':48} {'26 ops (s)':>11} {'ratio':>6} {'nanoGPT tiny step (ms)':>23} {'ratio':>6}")
    base: dict[str, tuple[float, float]] = {}
    for config in configs:
        ops = statistics.median(x["ops_s"] for x in results[config.id])
        step = statistics.median(x["step_s"] for x in results[config.id])
        key = f"{config.isa}-t{config.threads}"
        if not config.mkl_cbwr:
            base[key] = (ops, step)
        b_ops, b_step = base[key]
        print(f"{config.id:48} {ops:11.3f} {ops / b_ops:6.2f} {1000 * step:23.1f} {step / b_step:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
