"""How fast each fingerprint format runs: GB/s of float32 data, digest and sum in one pass.

    python benchmarks/digest_speed.py [--repeat N] [--threads 1,2]

Per format (harness.core.digest: mix256-v1, what nanoGPT fixtures carry, and mix256-v2, what traces
carry) and size (in L2, in L3, in memory), the best of N passes at one thread; then the way the
dispatcher hook takes one long contiguous tensor (csrc/hook.cpp ``fingerprint_split``: v2's
segments shared among ATen's threads), traced through ``neg`` of the tensor into a buffer against
the same ``neg`` untraced, at each thread count asked for. Measured (docs/trace.md, Cost).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import best_of

from harness.core.digest import ALGORITHM, TRACE_ALGORITHM, fingerprint_at

SIZES = {"in L2 (512 KiB)": 1 << 19, "in L3 (16 MiB)": 1 << 24, "in memory (512 MiB)": 1 << 29}


def format_speeds(repeat: int) -> None:
    for label, nbytes in SIZES.items():
        x = np.random.default_rng(0).standard_normal(nbytes // 4).astype(np.float32)
        cells = []
        for algorithm in (ALGORITHM, TRACE_ALGORITHM):
            seconds = best_of(lambda a=algorithm, x=x: fingerprint_at(x.ctypes.data, x.nbytes, True, a), repeat)
            cells.append(f"{algorithm} {nbytes / seconds / 1e9:6.1f} GB/s")
        print(f"{label:22s} " + "   ".join(cells), flush=True)


def split_speeds(threads: list[int], repeat: int) -> None:
    import torch

    from harness.trace.recorder import recording

    x = torch.randn(1 << 26)  # 256 MiB: GPT-2 small's embedding is 154 MB
    y = torch.empty_like(x)  # written in place: no fresh pages in either run
    for n in threads:
        torch.set_num_threads(n)
        plain = best_of(lambda: torch.neg(x, out=y), repeat)

        def traced() -> None:
            with recording():
                torch.neg(x, out=y)

        seconds = best_of(traced, repeat)
        # the traced neg digests its input and its output: 2 x 256 MiB
        rate = 2 * x.nbytes / max(seconds - plain, 1e-9) / 1e9
        print(
            f"neg of 256 MiB traced at {n} thread(s): {seconds * 1e3:7.1f} ms against {plain * 1e3:6.1f} ms "
            f"untraced, the fingerprints at {rate:5.1f} GB/s",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    format_speeds(args.repeat)
    split_speeds([int(t) for t in args.threads.split(",")], args.repeat)


if __name__ == "__main__":
    main()
