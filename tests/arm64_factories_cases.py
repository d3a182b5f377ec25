"""Seeded random cases of torch.arange and torch.linspace of float32 for tests/test_impl_arm64_activation.py;
imports only NumPy and the impl (torch where it records), so that ``python tools/emulate_arm64.py run --cores C
--threads 4 -- tests/arm64_factories_cases.py [OUT.npz]`` records, under emulation, one JSON line: op -> thread
count -> the SHA-256 of every output's uint32 bits over that op's cases in order (torch.set_num_threads(1), 2,
then 4, in one process); with OUT.npz also the outputs.

Lengths off the 4- and 8-lane vectors and their pairs, and past the 32,768-element grain (2 and 4 threads
restart the vectors in each chunk); starts anywhere in [-50, 50], near zero, a signed zero or a negative number
that rounds to -0 in float (a vector base of -0), steps of either
sign from 1e-3 to 3.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import factories
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import record_digests

OPS = ("arange", "linspace")
COUNT = 25  # the last one fixed
THREADS = (1, 2, 4)
LENGTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 40, 100)
LARGE = (32767, 32769, 40001, 70001)


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT - 1):
        n = int(r.choice(LARGE)) if k % 6 == 5 else int(r.choice(LENGTHS))
        anywhere, small = float(r.uniform(-50, 50)), float(r.uniform(-1e-3, 1e-3))
        start = (anywhere, small, float(r.choice([0.0, -0.0, -1e-50, -1e-40])))[k % 3]
        step = float(r.uniform(1e-3, 3)) * (-1.0 if k % 4 == 3 else 1.0)
        yield {"start": start, "step": step, "n": n, "end": start + step * n}
    # a vector base of -0 (a negative start rounding to -0 in float) with a positive step, long enough for
    # two 8-lane vectors: whether lane 0 is the base itself or base + 0 * step (+0)
    yield {"start": -1e-50, "step": 0.75, "n": 40, "end": -1e-50 + 0.75 * 40}


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 8201)}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    if op == "arange":
        return factories.arange(case["start"], case["end"], case["step"], profile)
    return factories.linspace(case["start"], case["end"], case["n"], profile)


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    if op == "arange":
        return torch.arange(case["start"], case["end"], case["step"], dtype=torch.float32)
    return torch.linspace(case["start"], case["end"], case["n"], dtype=torch.float32)


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
