"""Seeded random cases of ATen's generic linear upsampling kernels (upsample_linear1d, upsample_bilinear2d
of a channels-first input past OH + OW = 128, upsample_trilinear3d of a channels-first input) and the scalar
backwards of upsample_linear1d and upsample_trilinear3d, for tests/test_impl_arm64_upsample_linear.py;
imports only NumPy and the impl (torch where it records), so that ``python tools/emulate_arm64.py run
--cores C --threads 4 -- tests/arm64_upsample_linear_cases.py [OUT.npz]`` records, under emulation, the
digests the test holds: one JSON line, op -> thread count -> the SHA-256 of every output's uint32 bits over
that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the
outputs themselves.

Sizes up and down, off the 4- and 8-lane vectors, both align_corners, some explicit scale factors; every
third case's values carry NaNs of both signs and several payloads, infinities, signed zeros and a
subnormal (a quarter of its elements). 1 to 5 planes (3 channels left out of the 2-D forward: ATen
takes its channels-last kernel for them at one thread; one channel out of the 3-D backward, whose
gradient is then channels-last contiguous too).
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

OPS = ("linear1d", "linear1d_backward", "bilinear2d", "trilinear3d", "trilinear3d_backward")
COUNT = {"linear1d": 36, "linear1d_backward": 36, "bilinear2d": 16, "trilinear3d": 16, "trilinear3d_backward": 24}
THREADS = (1, 2, 4)
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF812345, 0x7F800000, 0xFF800000, 0, 0x80000000, 1],
               np.uint32).view(np.float32)  # fmt: skip


def _values(r: np.random.Generator, shape: tuple[int, ...], specials: bool) -> np.ndarray:
    x = (r.standard_normal(shape) * 5).astype(np.float32)
    if specials:
        mask = r.random(shape) < 0.25
        x[mask] = r.choice(ODD, int(mask.sum()))
    return x


def _scales(r: np.random.Generator, k: int, align: bool, ins: tuple[int, ...], outs: tuple[int, ...]) -> tuple:
    """Explicit scale factors (near out/in) for every fourth case (those without aligned corners), else None."""
    if k % 4 != 2 or align:
        return (None,) * len(ins)
    return tuple(float(o) / i * float(r.uniform(0.9, 1.1)) for i, o in zip(ins, outs, strict=True))


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT[op]):
        specials, align = k % 3 == 2, bool(k % 2)
        if op.startswith("linear1d"):
            ins, outs = (int(r.integers(1, 31)),), (int(r.integers(1, 61)),)
            n, c = int(r.integers(1, 3)), int(r.integers(1, 6))
        elif op == "bilinear2d":
            ins = (int(r.integers(1, 13)), int(r.integers(1, 13)))
            outs = (int(r.integers(1, 30)), int(r.integers(128, 141)))  # OH + OW past 128
            n, c = 1, int(r.choice([1, 2, 4, 5]))
        else:
            ins = tuple(int(v) for v in r.integers(1, 7, 3))
            outs = (int(r.integers(1, 12)), int(r.integers(1, 12)), int(r.integers(47, 53)))  # past 48
            n, c = 1, int(r.integers(1 if op == "trilinear3d" else 2, 4))  # one channel's gradient: channels-last
        case = {"align": align, "in": ins, "out": outs, "scales": _scales(r, k, align, ins, outs)}
        if op.endswith("backward"):
            case["g"] = _values(r, (n, c, *outs), specials)
            case["input_size"] = (n, c, *ins)
        else:
            case["x"] = _values(r, (n, c, *ins), specials)
        yield case


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 4061)}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's output for one case of ``op`` through the trace's replays."""
    from harness.trace.impl_nn import REPLAYS as NN

    args: dict[str, Any] = {"align_corners": case["align"], "output_size": list(case["out"])}
    if op == "linear1d":
        return NN["upsample_linear1d"]({"self": case["x"]}, {**args, "scales": case["scales"][0]}, profile)["out"]
    if op == "linear1d_backward":
        args |= {"input_size": list(case["input_size"]), "scales": case["scales"][0]}
        return NN["upsample_linear1d_backward"]({"grad_output": case["g"]}, args, profile)["out"]
    if op == "bilinear2d":
        args["scales_h"], args["scales_w"] = case["scales"]
        return NN["upsample_bilinear2d"]({"self": case["x"]}, args, profile)["out"]
    args["scales_d"], args["scales_h"], args["scales_w"] = case["scales"]
    if op == "trilinear3d":
        return NN["upsample_trilinear3d"]({"self": case["x"]}, args, profile)["out"]
    args["input_size"] = list(case["input_size"])
    return NN["upsample_trilinear3d_backward"]({"grad_output": case["g"]}, args, profile)["out"]


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    aten, size, align, scales = torch.ops.aten, list(case["out"]), case["align"], case["scales"]
    if op == "linear1d":
        return aten.upsample_linear1d(torch.from_numpy(case["x"].copy()), size, align, *scales)
    if op == "bilinear2d":
        return aten.upsample_bilinear2d(torch.from_numpy(case["x"].copy()), size, align, *scales)
    if op == "trilinear3d":
        return aten.upsample_trilinear3d(torch.from_numpy(case["x"].copy()), size, align, *scales)
    g, shape = torch.from_numpy(case["g"].copy()), list(case["input_size"])
    if op == "linear1d_backward":
        return aten.upsample_linear1d_backward(g, size, shape, align, *scales)
    return aten.upsample_trilinear3d_backward(g, size, shape, align, *scales)


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
