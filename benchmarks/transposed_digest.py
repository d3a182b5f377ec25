"""What `parity trace` adds to an op that reads a transposed matrix: the time of its input's digest.

    python benchmarks/transposed_digest.py [--repeat N]

An op's non-contiguous input is fingerprinted in C order, the bytes ``.contiguous()`` would hold,
through the dispatcher hook's 4 MiB buffer (harness/trace/csrc/hook.cpp, ``stream_strided``). Per
view, at 1 thread: ``neg`` of the view untraced, traced, and traced on the same matrix
contiguous (its input and output digests with no copy); the difference of the last two is the
copy into C order, printed with the view's bytes over it. The views are those of a GPT-2 small
step: the tied embedding's transpose read by the logits' ``mm`` (768 x 50304, each of its rows a
column of the 50304 x 768 matrix: a page apart), the transposed gradient of the logits read by the
embedding's weight gradient (50304 x 1024), and a transposed activation (3072 x 1024).
Measured (docs/trace.md, Cost).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import best_of

from harness.trace.recorder import recording

VIEWS = {  # name: the matrix whose transpose is read (rows, cols of the matrix)
    "embedding.t() (768 x 50304)": (50304, 768),
    "logits grad.t() (50304 x 1024)": (1024, 50304),
    "activation.t() (3072 x 1024)": (1024, 3072),
}


def times(shape: tuple[int, int], repeat: int) -> tuple[float, float, float]:
    """Seconds of neg of the matrix's transpose untraced, traced, and traced on it made contiguous."""
    m = torch.randn(*shape)
    dense = m.t().contiguous()

    def traced(x: torch.Tensor) -> None:
        m.add_(0)  # a new version: the view's digest is not taken from the cache
        with recording():
            torch.neg(x)

    plain = best_of(lambda: torch.neg(m.t()), repeat)
    return plain, best_of(lambda: traced(m.t()), repeat), best_of(lambda: traced(dense), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed calls of each kind; the best is kept")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, best of {args.repeat}")
    for name, shape in VIEWS.items():
        plain, on_view, on_dense = times(shape, args.repeat)
        copy = on_view - on_dense
        gbs = shape[0] * shape[1] * 4 / copy / 1e9 if copy > 0 else float("inf")
        print(
            f"  {name:<32} neg {1e3 * plain:7.1f} ms, traced {1e3 * on_view:7.1f} ms, traced contiguous "
            f"{1e3 * on_dense:7.1f} ms: the copy into C order {1e3 * copy:6.1f} ms ({gbs:.2f} GB/s)"
        )


if __name__ == "__main__":
    main()
