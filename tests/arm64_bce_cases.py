"""binary_cross_entropy and its backward under the Linux arm64 profiles, for tests/test_impl_bce.py; imports only
NumPy and the package (torch where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 4
-- tests/arm64_bce_cases.py`` records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every
output's uint32 bits over that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process).

``bce``: tests/bce_cases.py's 24 cases, each output the loss then the gradient (F.binary_cross_entropy and its
autograd backward). ``bce_backward``: aten.binary_cross_entropy_backward called directly (no range check there)
on 32 cases whose self, target and gradient hold NaNs of 1 to 6 payloads (both signs, quiet and signalling),
infinities, -0, subnormals and values whose (1 - x) * x falls below 1e-12, shapes off the 4-lane vectors,
reduction none, mean or sum, the gradient a scalar where reduced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests import bce_cases
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    import bce_cases
    from arm64_sampling_cases import record_digests

OPS = ("bce", "bce_backward")
THREADS = (1, 2, 4)
COUNT = 32
NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC0BEEF, 0xFFD00BAD, 0x7F800001, 0xFF80DEAD], np.uint32).view(np.float32)
OTHERS = np.array([np.inf, -np.inf, 0.0, -0.0, 1e-40, 1.0, 1.0 - 2.0**-24, 2.0**-60], np.float32)


def _backward_cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(20261208)
    for k in range(COUNT):
        shape = tuple(int(s) for s in r.choice([1, 2, 3, 4, 5, 7, 9, 13, 17], int(r.integers(1, 4))))
        x, t = (r.random(shape).astype(np.float32) for _ in range(2))
        reduction = bce_cases.REDUCTIONS[k % 3]
        g = r.standard_normal(shape if reduction == "none" else ()).astype(np.float32).reshape(-1)
        kinds = NANS[r.choice(NANS.size, int(r.integers(1, NANS.size + 1)), replace=False)]
        for a in (x, t, g):
            flat = a.reshape(-1)
            m = r.random(flat.size) < (0.0, 0.1, 0.3)[k % 3]
            flat[m] = r.choice(kinds, int(m.sum()))
            m = r.random(flat.size) < 0.1
            flat[m] = r.choice(OTHERS, int(m.sum()))
        yield {"x": x, "target": t, "grad": g.reshape(shape if reduction == "none" else ()), "reduction": reduction}


CASES = {"bce": bce_cases.cases, "bce_backward": _backward_cases}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's outputs of one case, flat: the loss then the gradient (``bce``), the gradient (``bce_backward``)."""
    if op == "bce":
        return np.concatenate([np.ravel(o) for o in bce_cases.replay(case, profile)])
    from harness.trace.impl_ops import REPLAYS

    shape = list(case["x"].shape)
    args = {"reduction": {"none": 0, "mean": 1, "sum": 2}[case["reduction"]], "self.shape": shape}
    operands = {"self": case["x"], "target": case["target"], "weight": None, "grad_output": case["grad"]}
    return REPLAYS["binary_cross_entropy_backward"](operands, args, profile)["out"]


def _torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    if op == "bce":
        return torch.from_numpy(np.concatenate([np.ravel(o) for o in bce_cases.torch_outputs(case)]))
    reduction = {"none": 0, "mean": 1, "sum": 2}[case["reduction"]]
    x, t, g = (torch.from_numpy(case[n].copy()) for n in ("x", "target", "grad"))
    return torch.ops.aten.binary_cross_entropy_backward(g, x, t, None, reduction)


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, _torch_output)
