"""Seeded random cases of the selections over NaNs (max and min over a dim with their indices, full max and
min, amax and amin over the last dim, sort and topk) and of mse_loss with NaN results, for
tests/test_impl_arm64_select.py; imports only NumPy and the impl (torch where it records), so that ``python
tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_select_cases.py [OUT.npz]`` records, under
emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits over that op's cases
in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs (each case's
outputs joined, indices as float32).

Rows of 1 to 100 elements (off the 4- and 8-lane vectors) and of 40,000 to 70,000 (past the 32,768-element
grain); NaNs (quiet, signalling, both signs, payloads: one pattern per case or several), infinities and
signed zeros among the values.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import record_digests

OPS = ("max_dim", "max_full", "min_full", "amax", "amin", "sort", "topk", "mse_loss")
COUNT = 18
THREADS = (1, 2, 4)
NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001], np.uint32).view(np.float32)
OTHER = np.array([np.inf, -np.inf, 0.0, -0.0], np.float32)
COLUMNS = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100)
LARGE = (40000, 70000)


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT):
        rows = int(r.integers(1, 4))
        cols = int(r.choice(LARGE)) if k % 6 == 5 else int(r.choice(COLUMNS))
        x = (r.standard_normal((rows, cols)) * 3).astype(np.float32)
        nans = NANS[[k % 5]] if k % 2 == 0 else NANS  # one NaN pattern, or all of them
        mask = r.random(x.shape) < 0.15
        x[mask] = r.choice(nans, int(mask.sum()))
        mask = r.random(x.shape) < 0.1
        x[mask] = r.choice(OTHER, int(mask.sum()))
        case: dict[str, Any] = {"x": x}
        if op == "topk":
            case["k"] = int(r.integers(1, cols + 1))
        if op == "mse_loss":
            case["target"] = (r.standard_normal(x.shape) * 3).astype(np.float32)
            case["reduction"] = ("none", "mean", "sum")[k % 3]
        yield case


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 8301)}


def _joined(*arrays: Any) -> np.ndarray:
    return np.concatenate([np.asarray(a).astype(np.float32).reshape(-1) for a in arrays])


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    from harness.trace.impl_ops import REPLAYS

    x = case["x"]
    if op == "max_dim":
        out = REPLAYS["max"]({"self": x}, {"dim": 1}, profile)
        return _joined(out["out0"], out["out1"])
    if op in ("max_full", "min_full"):
        return _joined(REPLAYS[op[:3]]({"self": x}, {}, profile)["out"])
    if op in ("amax", "amin"):
        return _joined(REPLAYS[op]({"self": x}, {"dim": [1]}, profile)["out"])
    if op == "sort":
        out = REPLAYS["sort"]({"self": x}, {"dim": 1, "descending": False}, profile)
        return _joined(out["out0"], out["out1"])
    if op == "topk":
        out = REPLAYS["topk"]({"self": x}, {"k": case["k"], "dim": 1}, profile)
        return _joined(out["out0"], out["out1"])
    reduction = {"none": 0, "mean": 1, "sum": 2}[case["reduction"]]
    return _joined(REPLAYS["mse_loss"]({"self": x, "target": case["target"]}, {"reduction": reduction}, profile)["out"])


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    x = torch.from_numpy(case["x"].copy())

    def joined(*ts: Any) -> Any:
        return torch.cat([t.to(torch.float32).reshape(-1) for t in ts])

    if op == "max_dim":
        return joined(*torch.max(x, 1))
    if op == "max_full":
        return joined(torch.max(x))
    if op == "min_full":
        return joined(torch.min(x))
    if op in ("amax", "amin"):
        return joined(getattr(torch, op)(x, 1))
    if op == "sort":
        return joined(*torch.sort(x, 1))
    if op == "topk":
        return joined(*torch.topk(x, case["k"], 1))
    target = torch.from_numpy(case["target"].copy())
    return joined(torch.nn.functional.mse_loss(x, target, reduction=case["reduction"]))


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
