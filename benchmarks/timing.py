"""Shared by the benchmark scripts: best-of-N wall time."""

from __future__ import annotations

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
