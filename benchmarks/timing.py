"""Shared by the benchmark scripts: best-of-N wall time, and plain vs recorded runs in alternation."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int, warm_up: bool = True) -> float:
    """The shortest of ``repeat`` timed calls, after one untimed call when ``warm_up``."""
    if warm_up:
        fn()  # first calls load libraries and allocate
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def alternated(kinds: dict[str, Callable[[], object]], repeat: int) -> dict[str, tuple[float, float]]:
    """Per kind, the median (wall, process CPU) seconds of ``repeat`` calls.

    One untimed round first; then each round calls every kind once, in turn, so that load from
    elsewhere hits them alike. CPU time is this process's, all its threads: the measure that
    holds on a loaded machine.
    """
    for fn in kinds.values():
        fn()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
    for _ in range(repeat):
        for name, fn in kinds.items():
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return {
        name: (statistics.median(t[0] for t in runs), statistics.median(t[1] for t in runs))
        for name, runs in times.items()
    }


def report(
    plain: tuple[float, float], other: tuple[float, float], per: int, unit: str, label: str, target: float
) -> None:
    """Print the wall and CPU time of a plain and an instrumented run, per ``unit``, and their ratios."""
    for i, what in enumerate(("wall time", "CPU time")):
        p, r = plain[i], other[i]
        print(
            f"  {what:<10} plain {p:7.3f} s ({1000 * p / per:6.1f} ms/{unit}), {label} {r:7.3f} s "
            f"({1000 * r / per:6.1f} ms/{unit}), ratio {r / p:.3f} (target <= {target})"
        )
