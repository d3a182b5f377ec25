"""Seeded random cases of logsumexp for tests/test_impl_arm64_logsumexp.py; imports only NumPy and the impl
(torch where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 2 --
tests/arm64_logsumexp_cases.py`` records, under emulation, the digests the test holds: one JSON line,
thread count -> the SHA-256 of every output's uint32 bits over the cases in order
(torch.set_num_threads(1), then 2, in one process).

Shapes of 1 to 4 dims off the 4- and 8-lane vectors, any subset of dims kept or not, scaled normals with
-inf over a fifth of the values, +inf over a twentieth or a whole tensor of -inf, and full reductions of
70,001 elements (past the 32,768-element grain, so 2 threads split the sum).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import reduce
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import digest
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import digest

COUNT = 60


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(2026)
    for k in range(COUNT):
        shape = (70001,) if k % 20 == 0 else tuple(int(s) for s in r.integers(1, 40, r.integers(1, 5)))
        dims = tuple(sorted(int(d) for d in r.choice(len(shape), r.integers(1, len(shape) + 1), replace=False)))
        x = (r.standard_normal(shape) * np.exp(r.uniform(-3, 4)) + r.uniform(-5, 5)).astype(np.float32)
        special = k % 4
        if special == 1:
            x[r.random(shape) < 0.2] = -np.inf
        elif special == 2:
            x[r.random(shape) < 0.05] = np.inf
        elif special == 3 and k % 12 == 3:
            x[...] = -np.inf
        if k == 0:  # uniforms whose full sum 2 threads split into other bits (as on x86)
            x = np.random.default_rng(0).random(70001).astype(np.float32)
        yield {"x": x, "dims": dims, "keepdim": bool(k % 3 == 0)}


def impl_outputs(case: dict[str, Any], profile: KernelProfile) -> list[np.ndarray]:
    return [reduce.logsumexp(case["x"], case["dims"], profile)]  # keepdim only reshapes: the same bits


if __name__ == "__main__":  # pragma: no cover - under emulation: threads -> digest of torch's bits
    import torch

    record: dict[int, str] = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        outs = [[torch.logsumexp(torch.from_numpy(c["x"]), c["dims"], c["keepdim"])] for c in cases()]
        record[threads] = digest(iter(outs))
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
