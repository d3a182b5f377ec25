"""Seeded random cases of avg_pool2d / avg_pool3d (avg_pool1d as avg_pool2d of (N, C, 1, L)) and of nearest
and nearest-exact upsampling (1-D, 2-D, 3-D), forward and backward, for tests/test_impl_arm64_pool.py;
imports only NumPy and the package (torch where it records), so that ``python tools/emulate_arm64.py run
--cores C --threads 2 -- tests/arm64_pool_cases.py`` records, under emulation, the digests the test
holds: one JSON line, op -> thread count -> the SHA-256 of every output's uint32 bits over the op's cases
in order (torch.set_num_threads(1), then 2, in one process).

The impl's side runs through harness/trace/impl_nn.py's replays (the captured strides pick ATen's
kernel). Pools: kernels 1-7, strides 1-3, padding up to half the kernel, ceil_mode, count_include_pad
both ways, divisor_override (a negative one too), NCHW and channels-last, channels around 4 and 8
lanes, NaN and infinities. Nearest: sizes up and down, scale factors passed to the op, both forward
kernels, and nearest-exact's 2 -> 41, 47, 55, where a fused source index reads another element.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl.pool import AvgPoolWindows
from harness.impl.profiles import KernelProfile
from harness.impl.strides import c_strides, strides_in_order
from harness.trace.impl_nn import REPLAYS

if __package__:
    from tests.arm64_sampling_cases import digest
else:  # run as a script under emulation: its folder, tests/, is on the path
    from arm64_sampling_cases import digest  # type: ignore[no-redef]

OPS = ("avg_pool", "nearest")
COUNTS = {"avg_pool": 40, "nearest": 40}
SPECIALS = np.float32([np.nan, np.inf, -np.inf])


def _strides(shape: tuple[int, ...], channels_last: bool) -> list[int]:
    return strides_in_order(shape, (0, *range(2, len(shape)), 1)) if channels_last else c_strides(shape)


def cases(op: str) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(41 if op == "avg_pool" else 42)
    for i in range(COUNTS[op]):
        dims = int(r.choice([1, 2, 2, 3]))
        shape_nc = (int(r.integers(1, 3)), int(r.choice([1, 3, 4, 5, 8, 9, 17])))
        cl = dims > 1 and bool(r.integers(2))
        if op == "avg_pool":
            k = [int(r.integers(1, 8)) for _ in range(dims)]
            s = [int(r.integers(1, 4)) for _ in range(dims)]
            p = [int(r.integers(0, kk // 2 + 1)) for kk in k]
            size = [kk + int(r.integers(0, 10)) for kk in k]
            ceil, count_pad = bool(r.integers(2)), bool(r.integers(2))
            divisor = None if dims == 1 or r.random() < 0.6 else int(r.choice([1, 3, 9, -5]))
            if dims == 1:  # avg_pool1d's avg_pool2d
                k, s, p, size = [1, *k], [1, *s], [0, *p], [1, *size]
            x = (r.standard_normal((*shape_nc, *size)) * 3).astype(np.float32)
            if r.random() < 0.3:
                x.reshape(-1)[r.integers(0, x.size, 3)] = SPECIALS
            win = AvgPoolWindows(tuple(size), k, s, p, ceil, count_pad, divisor)
            g = r.standard_normal((*shape_nc, *win.out)).astype(np.float32)
            yield {"x": x, "g": g, "cl": cl, "k": k, "s": s, "p": p, "ceil": ceil, "count_pad": count_pad,
                   "divisor": divisor}  # fmt: skip
            continue
        exact = bool(r.integers(2)) or i < 4
        size = [int(r.integers(1, 9 if dims == 3 else 30)) for _ in range(dims)]
        if i < 4:  # nearest-exact's generic kernel where the fused source index reads another element
            dims, cl, size, out = (1, False, [2], [(41, 47, 55, 83)[i]]) if i < 3 else (2, False, [2, 3], [41, 100])
            scales: list[float | None] = [None] * dims
        elif r.integers(2):
            out, scales = [int(r.integers(1, 70 if dims < 3 else 20)) for _ in range(dims)], [None] * dims
        else:
            scales = [float(r.choice([0.5, 0.7, 1.3, 1.5, 2.0, 2.5, 3.0, 1 / 3])) for _ in range(dims)]
            out = [max(1, int(n * f)) for n, f in zip(size, scales, strict=True)]
            scales = [f if int(n * f) >= 1 else None for n, f in zip(size, scales, strict=True)]
        x = (r.standard_normal((shape_nc[0], shape_nc[1], *size)) * 3).astype(np.float32)
        g = r.standard_normal((shape_nc[0], shape_nc[1], *out)).astype(np.float32)
        yield {"x": x, "g": g, "cl": cl, "exact": exact, "out": out, "scales": scales}


def _nearest_names(case: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    dims = case["x"].ndim - 2
    op = f"{'_upsample_nearest_exact' if case['exact'] else 'upsample_nearest'}{dims}d"
    return op, {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}[dims]


def impl_outputs(op: str, case: dict[str, Any], profile: KernelProfile) -> list[np.ndarray]:
    """What the impl (through the trace replays) gives for one case, in the order torch_outputs lists torch's."""
    x, g = case["x"], case["g"]
    if op == "avg_pool":
        name = f"avg_pool{x.ndim - 2}d"
        args = {"kernel_size": case["k"], "stride": case["s"], "padding": case["p"], "ceil_mode": case["ceil"],
                "count_include_pad": case["count_pad"], "divisor_override": case["divisor"],
                "self.stride": _strides(x.shape, case["cl"])}  # fmt: skip
        out = REPLAYS[name]({"self": x}, args, profile)["out"]
        return [out, REPLAYS[name + "_backward"]({"grad_output": g, "self": x}, args, profile)["out"]]
    name, scale_names = _nearest_names(case)
    args = {"output_size": case["out"], "input_size": list(x.shape), "self.stride": _strides(x.shape, case["cl"])}
    args.update(zip(scale_names, case["scales"], strict=True))
    out = REPLAYS[name]({"self": x}, args, profile)["out"]
    return [out, REPLAYS[name + "_backward"]({"grad_output": g}, args, profile)["out"]]


def torch_outputs(op: str, case: dict[str, Any]) -> list[np.ndarray]:  # pragma: no cover - under emulation
    import torch

    aten = torch.ops.aten
    x, g = torch.from_numpy(case["x"]), torch.from_numpy(case["g"])
    if case["cl"]:
        fmt = torch.channels_last if x.ndim == 4 else torch.channels_last_3d
        x, g = x.contiguous(memory_format=fmt), g.contiguous(memory_format=fmt)
    if op == "avg_pool":
        a = (case["k"], case["s"], case["p"], case["ceil"], case["count_pad"], case["divisor"])
        forward, backward = (aten.avg_pool2d, aten.avg_pool2d_backward) if x.ndim == 4 else (
            aten.avg_pool3d, aten.avg_pool3d_backward)  # fmt: skip
        return [forward(x, *a), backward(g, x, *a)]
    name, _ = _nearest_names(case)
    out = getattr(aten, name)(x, case["out"], *case["scales"])
    return [out, getattr(aten, name + "_backward")(g, case["out"], list(x.shape), *case["scales"])]


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    import torch

    record: dict[str, dict[int, str]] = {op: {} for op in OPS}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for op in OPS:
            record[op][threads] = digest(iter([torch_outputs(op, case) for case in cases(op)]))
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
