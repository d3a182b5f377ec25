"""Seeded random cases of torch.special.logit (aten.logit) over layouts where ATen's vectorized loop runs it on
x86 (strided, sliced, transposed and broadcast inputs) and over every layout on aarch64 (no MKL there), for
tests/test_impl_logit.py and tests/test_impl_arm64_logit.py, which hold the digests of torch's outputs over
them; imports only NumPy and the impl (torch where it records).

``ATEN_CPU_CAPABILITY=<level> ONEDNN_MAX_CPU_ISA=<isa> python -m tests.logit_strided_cases`` on an x86 CPU
whose MKL runs its generic path replays each case through the trace's replay and prints, per thread count (1,
2, 4), the exact, refused and other counts and the SHA-256 of the uint32 bits of torch's outputs of the cases
replayed, in order. ``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/logit_strided_cases.py
[OUT.npz]`` prints, under emulation, one JSON line: "logit" -> thread count -> the digest of torch's outputs
over every case (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs.

Each case: a view (shape, strides, offset in elements) of a float32 buffer: a 1-d view of every second or
third element (ATen's basic loop), rows sliced off wider rows, a transposed slice, a permuted dense tensor,
a contiguous one, rows broadcast along the outer or the inner dim (the input read as a scalar), a 3-d slice;
rows of 1 to 100 elements off the 4-, 8- and 16-lane vectors and the bodies' blocks of two vectors, some
cases of 33,000 to 70,000 elements past the 32,768-element grain. Values of (-0.5, 1.5) with many in (0, 1),
near 0 (subnormals, -0) and near 1 (1 and its neighbours), the eps bounds; every third case NaNs of both
signs (quiet and signalling, with payloads) and infinities; eps None, 0, 1e-6, 1e-3, 0.25, 0.75 (lo above
hi), NaN, -0 or -0.5.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

if __package__:  # imported by the tests
    from tests.bit_digest import bits_sha256
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from bit_digest import bits_sha256

THREADS = (1, 2, 4)
COUNT = 54
EPS = (None, 0.0, 1e-6, 1e-3, 0.25, 0.75, float("nan"), -0.0, -0.5)
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC01234, 0xFF812345, 0x7FA00001, 0x7F800000, 0xFF800000, 0x80000000, 0,
                0x00000001, 0x807FFFFF, 0x3F800000, 0x3F7FFFFF, 0x3F800001, 0x358637BD, 0x3A83126F, 0x3F7FFFEF],
               np.uint32).view(np.float32)  # fmt: skip
NEAR = np.array([0, 1, 0x00000001, 0x007FFFFF, 0x00800000, 0x80000000, 0x80000001, 0x3F800000, 0x3F7FFFFF,
                 0x3F7FFFFE, 0x3F800001, 0x3F7FFFF0, 0x33D6BF95, 0x358637BD],
                np.uint32).view(np.float32)  # fmt: skip
ROWS = (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 65, 100)


def _layout(r: np.random.Generator, k: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(shape, strides, offset) in elements of case k's view."""
    big = k % 9 == 8
    c = int(r.integers(33000, 35000)) if big else int(r.choice(ROWS))
    rows = 2 if big else int(r.integers(1, 6))
    pad = int(r.integers(1, 4))
    kind = k % 8
    if kind == 0:  # every second or third element: the basic loop
        step = 2 + k % 2
        return (rows * c,), (step,), int(r.integers(0, 3))
    if kind == 1:  # rows sliced off wider rows: one vectorized loop per row
        return (rows, c), (c + pad, 1), int(r.integers(0, 3))
    if kind == 2:  # a transposed slice: the runs go down the columns
        return (c, rows), (1, c + pad), 0
    if kind == 3:  # one row broadcast along the outer dim
        return (rows + 1, c), (0, 1), 0
    if kind == 4:  # a column broadcast along the inner dim: the input read as a scalar
        return (c, rows + 1), (1, 0), 0
    if kind == 5:  # contiguous
        return (rows, c), (c, 1), 0
    if kind == 6:  # permuted, dense
        return (c, rows), (1, c), 0
    return (rows, 3, c), (3 * (c + pad), c + pad, 1), 1  # a 3-d slice


def cases() -> list[dict[str, Any]]:
    """The cases: ``base`` (the buffer), ``shape``, ``strides``, ``offset`` (elements) and ``eps``."""
    rng = np.random.default_rng(20261207)
    out = []
    for k in range(COUNT):
        shape, strides, offset = _layout(rng, k)
        size = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
        x = rng.uniform(-0.5, 1.5, size).astype(np.float32)
        inside = rng.random(size) < 0.5
        x[inside] = rng.uniform(0, 1, int(inside.sum()))
        idx = rng.integers(0, size, max(size // 10, 3))
        x[idx] = rng.choice(NEAR, idx.size)
        eps = EPS[k % len(EPS)]
        if eps is not None and eps > 0:
            idx = rng.integers(0, size, max(size // 20, 2))
            x[idx] = rng.choice(np.array([eps, 1 - eps, np.nextafter(eps, 0), np.nextafter(1 - eps, 2)], np.float32))
        if k % 3 == 2:
            idx = rng.integers(0, size, max(size // 20, 3))
            x[idx] = rng.choice(ODD, idx.size)
        out.append({"base": x, "shape": shape, "strides": strides, "offset": offset, "eps": eps})
    return out


def view(case: dict[str, Any]) -> np.ndarray:
    base = case["base"]
    strides = tuple(4 * s for s in case["strides"])
    return np.lib.stride_tricks.as_strided(base[case["offset"] :], case["shape"], strides, writeable=False)


def replay(case: dict[str, Any], profile: Any) -> np.ndarray:
    """The trace replay's output for one case (ParityError where it refuses)."""
    from harness.trace.impl_ops import REPLAYS

    x = view(case)
    args = {"eps": case["eps"], "self.stride": list(case["strides"]), "self.shape": list(case["shape"])}
    return REPLAYS["logit"]({"self": np.ascontiguousarray(x)}, args, profile)["out"]


def torch_output(case: dict[str, Any]) -> Any:  # pragma: no cover - records with torch
    import torch

    base = torch.from_numpy(case["base"].copy())
    x = base.as_strided(case["shape"], case["strides"], case["offset"])
    return torch.special.logit(x, eps=case["eps"])


def main() -> None:  # pragma: no cover - records with torch
    import platform

    import torch

    every = cases()
    if platform.machine() == "aarch64":
        if __package__:
            from tests.arm64_sampling_cases import record_digests
        else:
            from arm64_sampling_cases import record_digests
        record_digests(("logit",), THREADS, {"logit": lambda: every}, lambda op, c: torch_output(c))
        return

    from harness.core.errors import ParityError
    from harness.impl.profiles import profile_for_capability

    for threads in THREADS:
        torch.set_num_threads(threads)
        profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), threads)
        outs, refused, counts = [], [], {"exact": 0, "refused": 0, "other": 0}
        for j, case in enumerate(every):
            want = torch_output(case).contiguous().numpy()
            try:
                got = replay(case, profile)
            except ParityError as e:
                refused.append(j)
                counts["refused"] += 1
                print(f"  refused: case {j}: {e}")
                continue
            outs.append(want)
            same = np.array_equal(got.view(np.uint32), want.view(np.uint32))
            counts["exact" if same else "other"] += 1
            if not same:
                bad = np.flatnonzero(got.view(np.uint32).ravel() != want.view(np.uint32).ravel())
                x = np.ascontiguousarray(view(case)).ravel()
                print(f"  other: case {j} {case['shape']} {case['strides']} eps {case['eps']}: {bad.size} differ, "
                      f"e.g. {x[bad[0]].view(np.uint32):#x} -> {want.ravel()[bad[0]].view(np.uint32):#x} vs "
                      f"{got.ravel()[bad[0]].view(np.uint32):#x}")  # fmt: skip
        digest = bits_sha256(np.concatenate([o.ravel() for o in outs]))
        level = torch.backends.cpu.get_cpu_capability()
        print(f"{level} t{threads}: {counts} refused={tuple(refused)} digest={digest}")


if __name__ == "__main__":
    main()
    sys.exit(0)
