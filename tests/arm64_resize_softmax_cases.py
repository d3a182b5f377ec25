"""Seeded random cases of upsample_bilinear2d's forward (ATen's channels-last kernel) and softmax and its
backward over a dim other than the last, for tests/test_impl_arm64_resize_softmax.py; imports only NumPy
and the impl (torch where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 2 --
tests/arm64_resize_softmax_cases.py [OUT.npz]`` records, under emulation, the digests the test holds: one
JSON line, op -> thread count -> the SHA-256 of every output's uint32 bits over that op's cases in order
(torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs themselves.

Resize: 1 or 2 images of 1 to 21 channels (whole vectors of 4 and 8 and a scalar rest), channels-first
to OH + OW <= 128 or channels-last of more than 3 channels to any size, both align_corners, some explicit
scales. Softmax: (O, D, I) over dim 1, I of 1 to 70 columns (off the 4- and 8-lane vectors) and O*I up to
600 columns (2 and 4 threads cut rows mid-way), scaled normals with infinities and -inf columns (x - max
of an infinite max: the default NaN); its backward over y and g drawn at random, I up to 9,000 (chunks of
128 KiB / D / 4 columns).
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

OPS = ("upsample_bilinear2d", "softmax", "softmax_backward")
COUNT = {"upsample_bilinear2d": 40, "softmax": 48, "softmax_backward": 24}
THREADS = (1, 2, 4)
SPECIALS = np.array([np.inf, -np.inf, 60.0, -60.0, 0.0, -0.0], np.float32)


def resize_cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(4041)
    for k in range(COUNT["upsample_bilinear2d"]):
        n, c = int(r.integers(1, 3)), int(r.integers(1, 22))
        h, w = int(r.integers(1, 13)), int(r.integers(1, 13))
        last = k % 3 == 2 and c > 3  # channels-last input: ATen's same kernel at any size
        hi = 90 if last else 64
        oh, ow = int(r.integers(1, hi)), int(r.integers(1, hi))
        align = bool(k % 2)
        scales = (None, None)
        if k % 5 == 4 and not align:
            scales = (float(oh) / h * float(r.uniform(0.9, 1.1)), float(ow) / w * float(r.uniform(0.9, 1.1)))
        x = (r.standard_normal((n, c, h, w)) * 3).astype(np.float32)
        yield {"x": x, "last": last, "size": (oh, ow), "align": align, "scales": scales}


def softmax_cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(4042)
    for k in range(COUNT["softmax"]):
        d = int(r.integers(1, 12))
        i = int(r.integers(1, 71))
        o = int(r.integers(1, max(2, 600 // i)))
        x = (r.standard_normal((o, d, i)) * 4).astype(np.float32)
        if k % 4 == 3:
            flat = x.reshape(-1)
            spots = r.integers(0, flat.size, max(1, flat.size // 16))
            flat[spots] = SPECIALS[r.integers(0, SPECIALS.size, spots.size)]
        yield {"x": x, "dim": 1}


def softmax_backward_cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(4043)
    for k in range(COUNT["softmax_backward"]):
        d = int(r.integers(1, 40))
        i = int(r.integers(1, 9000)) if k % 4 == 3 else int(r.integers(1, 71))
        o = int(r.integers(1, 4))
        y = r.uniform(0.0, 1.0, (o, d, i)).astype(np.float32)
        yield {"y": y, "g": r.standard_normal((o, d, i)).astype(np.float32), "dim": 1}


CASES = {"upsample_bilinear2d": resize_cases, "softmax": softmax_cases, "softmax_backward": softmax_backward_cases}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's output for one case of ``op`` through the trace's replays."""
    from harness.trace.impl_nn import REPLAYS as NN
    from harness.trace.impl_ops import REPLAYS as OPS_

    if op == "upsample_bilinear2d":
        x = case["x"]
        _, c, h, w = x.shape
        stride = [h * w * c, 1, w * c, c] if case["last"] else None
        args = {"output_size": list(case["size"]), "align_corners": case["align"], "self.stride": stride}
        args["scales_h"], args["scales_w"] = case["scales"]
        return NN["upsample_bilinear2d"]({"self": x}, args, profile)["out"]
    if op == "softmax":
        return OPS_["_softmax"]({"self": case["x"]}, {"dim": case["dim"], "half_to_float": False}, profile)["out"]
    tensors = {"grad_output": case["g"], "output": case["y"]}
    return OPS_["_softmax_backward_data"](tensors, {"dim": case["dim"]}, profile)["out"]


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    if op == "upsample_bilinear2d":
        x = torch.from_numpy(case["x"].copy())
        if case["last"]:
            x = x.contiguous(memory_format=torch.channels_last)
        sh, sw = case["scales"]
        return torch.ops.aten.upsample_bilinear2d(x, list(case["size"]), case["align"], sh, sw)
    if op == "softmax":
        return torch.softmax(torch.from_numpy(case["x"].copy()), case["dim"])
    g, y = torch.from_numpy(case["g"].copy()), torch.from_numpy(case["y"].copy())
    return torch.ops.aten._softmax_backward_data(g, y, case["dim"], torch.float32)


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
