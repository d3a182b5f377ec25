"""The impl's matrix products on each of MKL's code paths: time per product, GFLOP/s, and the ratio to the generic path.

    python benchmarks/mkl_paths.py [--threads 1,2] [--repeat 3] [--scale 1.0]

The products are nanoGPT shakespeare-char's (batch 64 x block 256 = 16,384 rows, 384 wide, MLP 1,536)
forward and backward, at::mm as torch calls it: x @ W.T, the input's gradient dy @ W and the weight's
gradient dy.T @ x. ``--scale`` shrinks the 16,384 rows (0.25: 4,096). Each MKL path (the generic one that
AMD CPUs take, and the Intel AVX-512, AVX2 and SSE4.2 paths) runs under its profile at each thread
count; the impl's own pthreads are that count too (a product a path's model refuses there is shown
as refused, out of the ratio). Times are the best of ``--repeat`` runs. Target:
every path within 3x of the generic path on the same product and thread count (the generic path is
the impl's tiled kernel; the Intel paths reuse it for their chains).
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import best_of

from harness.core.errors import ParityError, positive_int
from harness.impl import linalg
from harness.impl.profiles import profile_for_platform

TARGET = 3.0
PATHS = {  # path: the platform id it runs under, {threads} filled in
    "generic": "linux-x86_64-avx2-mklgeneric-t{threads}",
    "avx512": "linux-x86_64-avx512-mklavx512-t{threads}",
    "avx2": "linux-x86_64-avx2-mklavx2-t{threads}",
    "sse42": "linux-x86_64-baseline-mklsse42-t{threads}",
}


def products(rows: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, A, B) of shakespeare-char's products, A and B as torch hands them to at::mm."""
    rng = np.random.default_rng(0)
    out = []
    for c_in, c_out in ((384, 1152), (384, 1536), (1536, 384)):
        x = rng.standard_normal((rows, c_in), dtype=np.float32)
        w = rng.standard_normal((c_out, c_in), dtype=np.float32)
        dy = rng.standard_normal((rows, c_out), dtype=np.float32)
        out.append((f"x@W.T {rows}x{c_out}x{c_in}", x, w.T))
        out.append((f"dy@W {rows}x{c_in}x{c_out}", dy, w))
        out.append((f"dy.T@x {c_out}x{c_in}x{rows}", dy.T, x))
    return out


def fraction(text: str) -> float:
    """An argparse type: a number above 0 and at most 1."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"takes a fraction above 0 and at most 1, not '{text}'")
    return value


def thread_counts(text: str) -> list[int]:
    """An argparse type: comma-separated positive thread counts."""
    return [positive_int(t) for t in text.split(",")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=thread_counts, default=[1, 2], help="comma-separated thread counts")
    parser.add_argument("--repeat", type=positive_int, default=3)
    parser.add_argument("--scale", type=fraction, default=1.0, help="fraction of the 16,384 rows")
    args = parser.parse_args()
    rows = max(16, int(16384 * args.scale))
    print(f"impl at::mm per MKL path, best of {args.repeat}; GFLOP/s and time / the generic path's")
    print(f"{'product':28} {'threads':>7} " + " ".join(f"{p + ' ms':>11} {'GF/s':>6} {'x':>5}" for p in PATHS))
    worst = 0.0
    for threads in args.threads:
        for name, a, b in products(rows):
            m, k = a.shape
            flops = 2.0 * m * k * b.shape[1]
            times: dict[str, float | None] = {}
            for path, pid in PATHS.items():
                profile = profile_for_platform(pid.format(threads=threads))
                try:
                    times[path] = best_of(lambda a=a, b=b, p=profile: linalg.mm(a, b, p), args.repeat)
                except ParityError:  # a product the path's model refuses at this thread count
                    times[path] = None
            cells = []
            for t in times.values():
                if t is None or times["generic"] is None:
                    cells.append(f"{'refused':>24}")
                    continue
                ratio = t / times["generic"]
                worst = max(worst, ratio)
                cells.append(f"{t * 1e3:11.1f} {flops / t / 1e9:6.1f} {ratio:5.2f}")
            print(f"{name:28} {threads:7d} " + " ".join(cells), flush=True)
    verdict = "meets" if worst <= TARGET else "misses"
    print(f"worst ratio to the generic path: {worst:.2f} ({verdict} the target of {TARGET:g})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
