"""Seeded random _cdist_forward cases whose operands hold NaNs of several payloads (both signs, quiet and
signalling) beside infinities, signed zeros and subnormals, p = 0, 1, 2, inf, 1.5 and 3 in turn, m off the
4-lane NEON blocks and the SVE vectors (1 to 33 columns), for tests/test_impl_arm64_cdist_nans.py; imports only
NumPy and the impl (torch where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 2 --
tests/arm64_cdist_nan_cases.py [OUT.npz]`` records, under emulation, one JSON line: op -> thread count -> the
SHA-256 of every output's uint32 bits over that op's cases in order (torch.set_num_threads(1), then 2); with
OUT.npz also the outputs. ``cdist_nans``: these cases; ``cdist`` and ``cdist_backward``: arm64_pointwise_cases'
cdist cases (their NaN distances, refused before aarch64's NaN order was modelled); ``cdist_backward_nans``
(p = 2) and BACKWARD_OPS (p = 1, inf, 1.5 and 3): _cdist_backward of these operands and a gradient with NaNs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import nn
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests import arm64_pointwise_cases as pointwise
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    import arm64_pointwise_cases as pointwise
    from arm64_sampling_cases import record_digests

BACKWARD_OPS = (
    "cdist_backward_nans_p1",
    "cdist_backward_nans_inf",
    "cdist_backward_nans_p1_5",
    "cdist_backward_nans_p3",
)
OPS = ("cdist_nans", "cdist", "cdist_backward", "cdist_backward_nans", *BACKWARD_OPS)
THREADS = (1, 2)
COUNT = 48
PS = (0.0, 1.0, 2.0, float("inf"), 1.5, 3.0)
NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFFC00456, 0x7F800001, 0xFF800002, 0x7FA00003, 0xFFB00004],
                np.uint32).view(np.float32)  # fmt: skip
OTHER = np.array([0x7F800000, 0xFF800000, 0, 0x80000000, 1, 0x807FFFFF], np.uint32).view(np.float32)
SIZES = (1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 33)


def _cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(4242)
    for k in range(COUNT):
        d, r1, r2, m = int(r.integers(1, 3)), int(r.integers(1, 6)), int(r.integers(1, 6)), int(r.choice(SIZES))
        x1 = (r.standard_normal((d, r1, m)) * 2.0).astype(np.float32)
        x2 = (r.standard_normal((d, r2, m)) * 2.0).astype(np.float32)
        for x in (x1, x2):  # NaNs at a fifth of the places, specials at a twentieth
            mask = r.random(x.shape) < 0.2
            x[mask] = r.choice(NANS, int(mask.sum()))
            mask = r.random(x.shape) < 0.05
            x[mask] = r.choice(OTHER, int(mask.sum()))
        yield {"x1": x1, "x2": x2, "p": PS[k % len(PS)]}


def _backward_cases(p: float = 2.0) -> Iterator[dict[str, Any]]:
    """_cdist_backward at ``p`` of ``_cases``' operands (NaNs at a fifth of the places, specials), a gradient with
    NaNs of the same payloads and infinities at a tenth, the distance torch's (the impl's, replayed) forward."""
    r = np.random.default_rng(4243)
    for case in _cases():
        shape = (case["x1"].shape[0], case["x1"].shape[1], case["x2"].shape[1])
        g = (r.standard_normal(shape) * 2.0).astype(np.float32)
        mask = r.random(shape) < 0.1
        g[mask] = r.choice(NANS, int(mask.sum()))
        mask = r.random(shape) < 0.05
        g[mask] = r.choice(OTHER[:4], int(mask.sum()))
        yield {**case, "p": p, "grad": g}


CASES = {
    "cdist_nans": _cases,
    "cdist": pointwise.CASES["cdist"],
    "cdist_backward": pointwise.CASES["cdist_backward"],
    "cdist_backward_nans": _backward_cases,
    "cdist_backward_nans_p1": lambda: _backward_cases(1.0),
    "cdist_backward_nans_inf": lambda: _backward_cases(float("inf")),
    "cdist_backward_nans_p1_5": lambda: _backward_cases(1.5),
    "cdist_backward_nans_p3": lambda: _backward_cases(3.0),
}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    if op == "cdist_nans":
        return nn.cdist(case["x1"], case["x2"], case["p"], profile)
    if op.startswith("cdist_backward_nans"):
        dist = nn.cdist(case["x1"], case["x2"], case["p"], profile)
        return nn.cdist_backward(case["grad"], case["x1"], case["x2"], case["p"], dist, profile)
    return pointwise.impl_output(op, case, profile)


def _torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    x1, x2 = (torch.from_numpy(case[n].copy()) for n in ("x1", "x2"))
    dist = torch.ops.aten._cdist_forward(x1, x2, case["p"], None)
    if not op.startswith("cdist_backward"):
        return dist
    return torch.ops.aten._cdist_backward(torch.from_numpy(case["grad"].copy()), x1, x2, case["p"], dist)


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, _torch_output)
