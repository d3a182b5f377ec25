"""Seeded random cases of F.binary_cross_entropy and its backward (aten.binary_cross_entropy: differentiable
binarisation's loss on PP-OCRv5's sigmoid probability map) for tests/test_impl_bce.py, which holds the digests
of torch's outputs over them; imports only NumPy (torch where it records): ``ATEN_CPU_CAPABILITY=<level>
ONEDNN_MAX_CPU_ISA=<isa> python -m tests.bce_cases`` on an x86 CPU replays each case through the trace's replays
and prints, per thread count (1, 2, 4), the exact, refused and other counts and the SHA-256 of the uint32 bits
of torch's outputs (the loss, then the gradient) of the cases, in order.

Each case: self and target of 1 to 3 dims off the 8- and 16-lane vectors (one of 70,000 elements, past the
thread grain of 32,768), values of [0, 1] with 0, -0, 1, subnormals, values whose log is below -100 and values
whose 1 - x rounds to 0 or a subnormal product; targets 0, 1 or fractions; reduction mean, sum or none (none
backward through a gradient with NaNs of both signs, quiet and signalling, and infinities); every fourth case
self transposed in memory (the loss is its ``empty_like``: the mean's cascade over that memory order).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

THREADS = (1, 2, 4)
COUNT = 24
REDUCTIONS = ("mean", "sum", "none")
SPECIAL = np.array([0x00000000, 0x80000000, 0x3F800000, 0x00000001, 0x007FFFFF, 0x00800000, 0x0000A000, 0x3F7FFFFF,
                    0x3F7FFFFE, 0x3F000000, 0x33D6BF95, 0x1E3CE508], np.uint32).view(np.float32)  # fmt: skip
NAN_GRAD = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FC12345, 0x7F800000, 0xFF800000],
                    np.uint32).view(np.float32)  # fmt: skip


def cases() -> list[dict[str, Any]]:
    """The cases: ``x``, ``target`` and ``grad`` (C order), ``reduction`` and ``transposed`` (self's memory
    the transpose of its last two dims)."""
    rng = np.random.default_rng(20261207)
    out = []
    for k in range(COUNT):
        if k == 4:
            shape: tuple[int, ...] = (2, 35000)
        else:
            shape = tuple(
                int(rng.choice([1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 65])) for _ in range(int(rng.integers(1, 4)))
            )
        x = np.where(rng.random(shape) < 0.5, 10.0 ** rng.uniform(-50, 0, shape), 1 - 10.0 ** rng.uniform(-9, 0, shape))
        x = np.clip(x, 0, 1).astype(np.float32)
        t = [rng.random(shape), (rng.random(shape) < 0.5) * 1.0][k % 2].astype(np.float32)
        for a in (x, t):
            m = rng.random(shape) < 0.1
            a[m] = rng.choice(SPECIAL, int(m.sum()))
        g = rng.standard_normal(shape).astype(np.float32)
        m = rng.random(shape) < 0.05
        g[m] = rng.choice(NAN_GRAD, int(m.sum()))
        out.append(
            {"x": x, "target": t, "grad": g, "reduction": REDUCTIONS[k % 3], "transposed": k % 4 == 3 and x.ndim > 1}
        )
    return out


def _args(case: dict[str, Any]) -> dict[str, Any]:
    shape = list(case["x"].shape)
    args: dict[str, Any] = {"reduction": {"none": 0, "mean": 1, "sum": 2}[case["reduction"]]}
    args["self.shape"], args["target.shape"] = shape, shape
    if case["transposed"]:
        stride = [int(s) for s in np.empty(shape[:-2] + shape[:-3:-1], np.float32).swapaxes(-1, -2).strides]
        args["self.stride"] = [s // 4 for s in stride]
    return args


def replay(case: dict[str, Any], profile: Any) -> tuple[np.ndarray, np.ndarray]:
    """The trace replays' loss and gradient for one case (ParityError where one refuses)."""
    from harness.trace.impl_ops import REPLAYS

    args = _args(case)
    operands = {"self": case["x"], "target": case["target"], "weight": None}
    loss = REPLAYS["binary_cross_entropy"](operands, args, profile)["out"]
    grad = case["grad"] if case["reduction"] == "none" else np.float32(1.0).reshape(())
    back = REPLAYS["binary_cross_entropy_backward"]({**operands, "grad_output": grad}, args, profile)["out"]
    return loss, back


def torch_outputs(case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - records with torch
    import torch
    import torch.nn.functional as F

    x = torch.from_numpy(case["x"])
    if case["transposed"]:
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    x = x.detach().requires_grad_(True)
    loss = F.binary_cross_entropy(x, torch.from_numpy(case["target"]), reduction=case["reduction"])
    loss.backward(torch.from_numpy(case["grad"]) if case["reduction"] == "none" else None)
    return loss.detach().numpy(), x.grad.contiguous().numpy()


def main(argv: list[str]) -> None:  # pragma: no cover - records with torch
    import torch

    from harness.core.errors import ParityError
    from harness.impl.profiles import profile_for_capability
    from tests.bit_digest import bits_sha256

    every = cases()
    for threads in THREADS:
        torch.set_num_threads(threads)
        profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), threads)
        outs, counts = [], {"exact": 0, "refused": 0, "other": 0}
        for j, case in enumerate(every):
            want = torch_outputs(case)
            outs.extend(w.ravel() for w in want)
            try:
                got = replay(case, profile)
            except ParityError:
                counts["refused"] += 1
                continue
            same = all(np.array_equal(np.asarray(g, np.float32).reshape(w.shape).view(np.uint32), w.view(np.uint32))
                       for g, w in zip(got, want, strict=True))  # fmt: skip
            counts["exact" if same else "other"] += 1
            if not same:
                print(f"  other: case {j} {case['reduction']} {case['x'].shape} transposed={case['transposed']}")
        level = torch.backends.cpu.get_cpu_capability()
        print(f"{level} t{threads}: {counts} digest={bits_sha256(np.concatenate(outs))}")


if __name__ == "__main__":
    main(sys.argv[1:])
