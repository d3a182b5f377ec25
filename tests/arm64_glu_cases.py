"""Seeded random cases of glu and its backward for tests/test_impl_arm64_glu.py; imports only NumPy and the
impl (torch where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 2 --
tests/arm64_glu_cases.py`` records, under emulation, the digests the test holds: one JSON line, thread
count -> the SHA-256 of every output's uint32 bits over the cases in order (torch.set_num_threads(1), then
2, in one process).

Halves of 1 to 69 elements (off the 4- and 8-lane vectors), (B, 2C, T) halved on dim 1 and (B, C, 2T) on
the last dim, and (3, 2C, 1) inputs of 33,000 to 60,000 outputs (runs of C past the 32,768-element grain:
2 threads cut one mid-run); scaled normals with infinities, signed zeros and values past exp's range (no NaNs:
not measured there, refused).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import digest
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import digest

COUNT = 48
SPECIALS = np.array([np.inf, -np.inf, 88.8, -88.8, 104.0, -104.0, 0.0, -0.0], np.float32)


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(2027)
    for k in range(COUNT):
        kind = k % 4
        if kind == 0:
            shape, dim = (2 * int(r.integers(1, 70)),), 0
        elif kind == 1:
            shape, dim = (int(r.integers(1, 5)), 2 * int(r.integers(1, 30)), int(r.integers(1, 40))), 1
        elif kind == 2:
            shape, dim = (int(r.integers(1, 4)), int(r.integers(1, 30)), 2 * int(r.integers(1, 70))), 2
        else:
            shape, dim = (3, 2 * int(r.integers(11000, 20000)), 1), 1
        x = (r.standard_normal(shape) * 6).astype(np.float32)
        if k % 3 == 0:
            flat = x.reshape(-1)
            spots = r.integers(0, flat.size, max(1, flat.size // 8))
            flat[spots] = SPECIALS[r.integers(0, SPECIALS.size, spots.size)]
        half = tuple(n // 2 if d == dim else n for d, n in enumerate(shape))
        yield {"x": x, "dim": dim, "g": r.standard_normal(half).astype(np.float32)}


def impl_outputs(case: dict[str, Any], profile: KernelProfile) -> list[np.ndarray]:
    from harness.trace.impl_nn import REPLAYS

    args = {"dim": case["dim"]}
    return [
        REPLAYS["glu"]({"self": case["x"]}, args, profile)["out"],
        REPLAYS["glu_backward"]({"self": case["x"], "grad_output": case["g"]}, args, profile)["out"],
    ]


if __name__ == "__main__":  # pragma: no cover - under emulation: threads -> digest of torch's bits
    import torch

    record: dict[int, str] = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        outs = []
        for c in cases():
            x = torch.from_numpy(c["x"].copy()).requires_grad_(True)
            y = torch.nn.functional.glu(x, c["dim"])
            (gx,) = torch.autograd.grad(y, x, torch.from_numpy(c["g"].copy()))
            outs.append([y.detach(), gx])
        record[threads] = digest(iter(outs))
    print(json.dumps(record))
