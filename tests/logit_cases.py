"""Seeded random cases of torch.special.logit (aten.logit: Grounding DINO's inverse sigmoid of its reference
points) for tests/test_impl_logit.py, which holds the digest of torch's outputs over them; imports only NumPy
(torch where it records): ``ATEN_CPU_CAPABILITY=<level> ONEDNN_MAX_CPU_ISA=<isa> python -m tests.logit_cases`` on an
x86 CPU whose MKL runs its generic path (any AMD CPU) replays each case through the trace's replay and prints,
per thread count (1, 2, 4), the exact, refused and other counts and the SHA-256 of the uint32 bits of torch's
outputs of the cases replayed, in order.

Each case: a tensor of 1 to 70,000 elements (off the 8- and 16-lane vectors, some past the thread grain of
32,768), values of (-0.5, 1.5) with 0, 1, the eps bounds and their neighbours, every third case NaNs of both
signs (quiet and signalling, with payloads), infinities, signed zeros and subnormals; eps None, 0, 1e-5, 1e-6,
0.25 or NaN; every fifth case a strided view (refused: ATen's vectorized loop).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tests.bit_digest import bits_sha256

THREADS = (1, 2, 4)
COUNT = 40
EPS = (None, 0.0, 1e-5, 1e-6, 0.25, float("nan"))
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC01234, 0xFF812345, 0x7FA00001, 0x7F800000, 0xFF800000, 0x80000000, 0,
                0x00000001, 0x807FFFFF, 0x3F800000, 0x3F7FFFFF, 0x3727C5AC, 0x3727C5AD, 0x3F7FFF58],
               np.uint32).view(np.float32)  # fmt: skip


def cases() -> list[dict[str, Any]]:
    """The cases: ``base`` (memory), ``step`` (1, or 2 for a strided view of every other element) and
    ``eps``."""
    rng = np.random.default_rng(20261209)
    out = []
    for k in range(COUNT):
        n = int(rng.choice([1, 7, 8, 15, 17, 31, 33, 100, 1003, 32768 + 13, 70000]))
        x = rng.uniform(-0.5, 1.5, n).astype(np.float32)
        inside = rng.random(n) < 0.5
        x[inside] = rng.uniform(0, 1, int(inside.sum()))
        if k % 3 == 2:
            idx = rng.integers(0, n, max(n // 20, 3))
            x[idx] = rng.choice(ODD, idx.size)
        step = 2 if k % 5 == 4 else 1
        base = np.repeat(x, step) if step == 2 else x
        out.append({"base": base, "step": step, "eps": EPS[k % len(EPS)]})
    return out


def view(case: dict[str, Any]) -> np.ndarray:
    return case["base"][:: case["step"]]


def replay(case: dict[str, Any], profile: Any) -> np.ndarray:
    """The trace replay's output for one case (ParityError where it refuses)."""
    from harness.trace.impl_ops import REPLAYS

    x = view(case)
    args = {"eps": case["eps"], "self.stride": [case["step"]], "self.shape": list(x.shape)}
    return REPLAYS["logit"]({"self": np.ascontiguousarray(x)}, args, profile)["out"]


def main(argv: list[str]) -> None:  # pragma: no cover - records with torch
    import torch

    from harness.core.errors import ParityError
    from harness.impl.profiles import profile_for_capability

    every = cases()
    for threads in THREADS:
        torch.set_num_threads(threads)
        profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), threads)
        outs, refused, counts = [], [], {"exact": 0, "refused": 0, "other": 0}
        for j, case in enumerate(every):
            want = torch.special.logit(torch.from_numpy(case["base"].copy())[:: case["step"]], eps=case["eps"]).numpy()
            try:
                got = replay(case, profile)
            except ParityError:
                refused.append(j)
                counts["refused"] += 1
                continue
            outs.append(want)
            same = np.array_equal(got.view(np.uint32), want.view(np.uint32))
            counts["exact" if same else "other"] += 1
            if not same:
                bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
                print(f"  other: case {j} eps {case['eps']} n {want.size}: {bad.size} differ, e.g. "
                      f"{view(case)[bad[0]].view(np.uint32):#x} -> {want[bad[0]]!r} vs {got[bad[0]]!r}")  # fmt: skip
        digest = bits_sha256(np.concatenate([o.ravel() for o in outs]))
        level = torch.backends.cpu.get_cpu_capability()
        print(f"{level} t{threads}: {counts} refused={tuple(refused)} digest={digest}")


if __name__ == "__main__":
    main(sys.argv[1:])
