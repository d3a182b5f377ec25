"""Seeded random cases of torch's antialiased bilinear resize (``F.interpolate(mode="bilinear",
antialias=True)``: aten._upsample_bilinear2d_aa) and its backward, for tests/test_impl_upsample_bilinear_aa.py,
which holds the digests of torch's outputs over them; imports only NumPy (torch where it records):
``ATEN_CPU_CAPABILITY=<level> ONEDNN_MAX_CPU_ISA=<isa> python -m tests.upsample_bilinear_aa_cases`` on an x86 CPU
prints, for that level, per op and thread count (1, 2, 4) the SHA-256 of the uint32 bits of every output of the
cases the impl does not refuse, in order, and which cases it refuses; with ``--check`` it replays each case
through the impl instead and counts exact, refused and other.

Each case: an (N, C, H, W) input (planes off the 4/8/16-lane vectors; some past the thread grain of 32,768
outputs), an output size up or down in each dim, or scale factors handed to the op (0.3 to 2.6), corners
aligned or not, the input contiguous or a channels-last view; every fourth case's values and gradient carry
subnormals and signed zeros, every fifth NaNs (quiet or signalling, either sign) or infinities (refused).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tests.bit_digest import bits_sha256

OPS = ("forward", "backward")
THREADS = (1, 2, 4)
COUNT = 60
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FA00123, 0xFF800001, 0x7F800000, 0xFF800000], np.uint32).view(np.float32)
TINY = np.array([0.0, -0.0, 1e-41, -1e-41, 1e-45, -3e-39], np.float32)


def cases() -> list[dict[str, Any]]:
    """The cases: input ``x`` (logical values), ``channels_last``, output ``size``, ``scales`` (each
    None or a float, as the op takes them), ``align`` and the backward's gradient ``grad``."""
    rng = np.random.default_rng(20261207)
    out = []
    for k in range(COUNT):
        big = k % 10 == 9
        n, c = int(rng.integers(1, 3)), int(rng.choice([1, 3, 5, 9, 17, 33] if not big else [40, 64]))
        h, w = (int(v) for v in (rng.integers(24, 49, 2) if big else rng.integers(1, 41, 2)))
        x = (rng.standard_normal((n, c, h, w)) * 3).astype(np.float32)
        if k % 4 == 3:
            mask = rng.random(x.shape) < 0.1
            x[mask] = rng.choice(TINY, int(mask.sum()))
        if k % 5 == 4:
            x.flat[rng.integers(0, x.size, 3)] = rng.choice(ODD, 3)
        if k % 3 == 2:  # scale factors handed to the op, the size from them
            sh, sw = (float(np.round(v, 3)) for v in rng.uniform(0.3, 2.6, 2))
            size = (max(int(np.floor(h * sh)), 1), max(int(np.floor(w * sw)), 1))
            scales: tuple[float | None, float | None] = (sh, sw)
        else:
            size = (int(rng.integers(1, 2 * h + 3)), int(rng.integers(1, 2 * w + 3)))
            scales = (None, None)
        if big:
            size = (int(rng.integers(h // 2, 2 * h)), int(rng.integers(w // 2, 2 * w)))
            scales = (None, None)
        align = bool(rng.integers(0, 2)) and k % 3 != 2
        grad = (rng.standard_normal((n, c, *size)) * 2).astype(np.float32)
        if k % 4 == 3:
            grad.flat[rng.integers(0, grad.size, 5)] = rng.choice(TINY, 5)
        if k % 5 == 4:
            grad.flat[rng.integers(0, grad.size, 2)] = rng.choice(ODD, 2)
        out.append({"x": x, "channels_last": bool(k % 6 == 1), "size": size, "scales": scales, "align": align,
                    "grad": grad})  # fmt: skip
    return out


def impl_output(op: str, case: dict[str, Any], profile: Any) -> np.ndarray:
    """The impl's forward or backward of one case under ``profile`` (ParityError where it refuses)."""
    from harness.core.errors import ParityError
    from harness.impl.nn import upsample_bilinear2d_aa, upsample_bilinear2d_aa_backward

    if op == "forward":
        if case["channels_last"] and case["size"][1] == 1 and case["x"].shape[1] > 1:
            raise ParityError("an output width of 1 from a non-contiguous input")  # as the trace's replay
        return upsample_bilinear2d_aa(case["x"], case["size"], case["align"], profile, case["scales"])
    return upsample_bilinear2d_aa_backward(case["grad"], case["x"].shape, case["align"], profile, case["scales"])


def torch_output(op: str, case: dict[str, Any]) -> np.ndarray:  # pragma: no cover - records with torch
    import torch

    x = torch.from_numpy(case["x"].copy())
    if case["channels_last"]:
        x = x.contiguous(memory_format=torch.channels_last)
    sh, sw = case["scales"]
    if op == "forward":
        y = torch.ops.aten._upsample_bilinear2d_aa(x, list(case["size"]), case["align"], sh, sw)
    else:
        g = torch.from_numpy(case["grad"].copy())
        y = torch.ops.aten._upsample_bilinear2d_aa_backward(g, list(case["size"]), list(x.shape), case["align"], sh, sw)
    return y.contiguous().numpy()


def main(argv: list[str]) -> None:  # pragma: no cover - records with torch
    import torch

    from harness.core.errors import ParityError
    from harness.impl.profiles import profile_for_capability

    every = cases()
    check = "--check" in argv
    for threads in THREADS:
        torch.set_num_threads(threads)
        profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), threads)
        for op in OPS:
            outs, refused, counts = [], [], {"exact": 0, "refused": 0, "other": 0}
            for j, case in enumerate(every):
                want = torch_output(op, case)
                try:
                    got = impl_output(op, case, profile)
                except ParityError:
                    refused.append(j)
                    counts["refused"] += 1
                    continue
                outs.append(want)
                same = got.shape == want.shape and np.array_equal(got.view(np.uint32), want.view(np.uint32))
                counts["exact" if same else "other"] += 1
                if not same and check:
                    print(f"  other: {op} case {j} {case['x'].shape} -> {case['size']} {case['scales']}")
            digest = bits_sha256(np.concatenate([o.ravel() for o in outs]))
            print(f"{torch.backends.cpu.get_cpu_capability()} t{threads} {op}: {counts} refused={tuple(refused)} "
                  f"digest={digest}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
