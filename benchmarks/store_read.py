"""What reading the committed fixture store costs: every configuration loaded (``parity matrix``'s
and the fixture tests' first step), then the matrix computed from them.

    python benchmarks/store_read.py [--repeat 3] [ROOT]

Per step the best wall time of ``--repeat`` runs (each in this process, the store's files in the OS
cache after the first), the tensors read and the ``stat`` calls made (a pool lists and stats its files
only where its index lacks a key). Prints numbers, asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import best_of

from harness.core.errors import run_reporting_errors
from harness.report.matrix import load_configs, matrix_dict
from harness.store.paths import DEFAULT_FIXTURES
from harness.store.pool import Pool

REFERENCE = "linux-x86_64-avx2-mklgeneric-t2 torch-2.13.0"  # as tox -e matrix


def counted_load(root: Path) -> tuple[int, int]:
    """(tensors read, stat calls) of one load of every configuration under ``root``."""
    stat, read = os.stat, Pool.read
    counts = {"stat": 0, "read": 0}

    def counting_stat(*args, **kwargs):
        counts["stat"] += 1
        return stat(*args, **kwargs)

    def counting_read(self, *args, **kwargs):
        counts["read"] += 1
        return read(self, *args, **kwargs)

    with mock.patch("os.stat", counting_stat), mock.patch.object(Pool, "read", counting_read):
        load_configs([root])
    return counts["read"], counts["stat"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=DEFAULT_FIXTURES, help="a fixture store")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per step (default 3)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    tensors, stats = counted_load(args.root)
    configs = load_configs([args.root])
    load = best_of(lambda: load_configs([args.root]), args.repeat, warm_up=False)
    matrix = best_of(lambda: matrix_dict(load_configs([args.root]), REFERENCE), args.repeat, warm_up=False)
    print(f"store {args.root}: {len(configs)} configurations, {tensors} tensors read, {stats} stat calls")
    print(f"  load every configuration  {load:7.2f} s (best of {args.repeat})")
    print(f"  load and compute matrix   {matrix:7.2f} s (best of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main))
