"""Per op and case: the impl's time vs torch's on the same inputs and thread count, and their ratio.

    python benchmarks/impl_vs_torch.py [--ops exp,sum] [--threads 2] [--repeat 5] [--profile arm64-neon]

Both sides compute what a fixture records for the case (forward and every gradient). torch
runs in this process with ``torch.set_num_threads(threads)`` at its own capability; the impl
runs under the matching kernel profile with the same thread count, or under ``--profile``
(an arm64 profile on an x86 machine: what checking an ARM fixture costs here, with no ARM
machine). Times are the best of ``--repeat`` runs. Target: ratio (impl / torch) <= 3 on every
op at the committed shapes.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
import torch
from timing import best_of

from harness.core.op_ids import parse_op_list
from harness.impl.op_registry import NotImplementedInImpl, run_case
from harness.impl.profiles import get_profile, profile_for_capability
from harness.record.torch_ops import OPS_BY_NAME

TARGET = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", default="", help="comma-separated op ids (default: all)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", default="", help="the impl's kernel profile (default: this machine's)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), args.threads, platform.machine())
    profile = get_profile(args.profile, args.threads) if args.profile else profile
    print(f"torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()}, {args.threads} threads) "
          f"vs impl {profile.label}; best of {args.repeat}")  # fmt: skip
    print(f"{'op/case':48} {'torch ms':>10} {'impl ms':>10} {'ratio':>7}")
    worst, missing = 0.0, []
    for name in parse_op_list(args.ops):
        spec = OPS_BY_NAME[name]
        for case in spec.cases:
            arrays = spec.make_inputs(case.params)

            def run_torch(spec=spec, case=case, arrays=arrays) -> None:
                spec.run(case.params, {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()})

            try:
                run_case(name, case.params, arrays, profile)
            except NotImplementedInImpl:
                missing.append(name)
                break
            t_torch = best_of(run_torch, args.repeat)
            t_impl = best_of(lambda name=name, case=case, arrays=arrays: run_case(name, case.params, arrays, profile),
                             args.repeat)  # fmt: skip
            ratio = t_impl / t_torch
            worst = max(worst, ratio)
            flag = "" if ratio <= TARGET else "  > target"
            print(f"{name + '/' + case.name:48} {t_torch * 1e3:10.3f} {t_impl * 1e3:10.3f} {ratio:7.2f}{flag}")
    print(f"worst ratio {worst:.2f} (target <= {TARGET})" + (f"; no kernel: {', '.join(missing)}" if missing else ""))
    return 0 if worst <= TARGET and not missing else 1


if __name__ == "__main__":
    raise SystemExit(main())
