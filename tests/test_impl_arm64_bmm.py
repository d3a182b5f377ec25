"""Products with a dimension of 0 and ATen's loop of small products on the arm64 profiles, against torch 2.13.0's
bits recorded under emulation (tests/arm64_bmm_empty_cases.py: 240 random mm, addmm, bmm and baddbmm on
Neoverse N1, V1 and V2 at 1, 2 and 4 threads, the same bits at every thread count): an output of no elements
and K = 0 as addmm_impl_cpu_ and bmm_out_or_baddbmm_ give them (any beta and alpha), the small loop's NaNs where
several kinds meet as its inline copies pick them (bmm's lanes added ``acc + p0``, ``p1 + acc``, ``p2 + acc``,
``acc + p3``, baddbmm's each ``acc + p``; the fused steps the addend, then a, then b, the third of the K % 4
left after the vectors b before a), baddbmm's store ``fmadd(beta, self, alpha * acc)``. The rest refused (NVPL's
NaN mixes, addmm's and NVPL baddbmm's beta other than 0 and 1). And the loop with more items than its grain
(tests/arm64_bmm_omp_cases.py: 32 random bmm and baddbmm recorded on N1, V1 and V2): at 1 thread its inline
copies, on 2 and 4 the copies of its OpenMP body (both add the lanes as bmm's inline copy, every K % 4 step left b
before a). No torch here."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from tests import arm64_bmm_empty_cases, arm64_bmm_omp_cases

NAMES = {
    "mm": ("aten.mm.default", "self", "mat2"),
    "addmm": ("aten.addmm.default", "mat1", "mat2"),
    "bmm": ("aten.bmm.default", "self", "mat2"),
    "baddbmm": ("aten.baddbmm.default", "batch1", "batch2"),
}
# op -> (cases refused, the SHA-256 of torch's bits over the others in order): the same on N1, V1 and V2 at 1, 2
# and 4 threads
RECORDED = {
    "mm": (23, "a651f2daaaf44c8673526be42394d38e14004b0c2a2bb096e21b5e758b7f76a9"),
    "addmm": (39, "9857b33ad706ef2f1c19af29d0873d7ecbbaba2215447ee8bb768582833ddc77"),
    "bmm": (8, "8b34aec527e0ef38cfef67b32b16c7748f53f06822b8c7e3a7be9c1d65ebd997"),
    "baddbmm": (14, "85c6d137453d091844935bceb5d5124204c8566e751ca07c87d9f7e6784d966e"),
}
PLATFORMS = ("linux-arm64-neoverse-n1-nvpl-t1", "linux-arm64-neoverse-v1-nvpl-t4", "linux-arm64-neoverse-v2-nvpl-t2")
# threads -> op -> (0 refused, the SHA-256 of torch's bits) of arm64_bmm_omp_cases, the same on N1, V1 and V2 (2 and
# 4 threads alike: the OpenMP body's copies)
RECORDED_OMP = {
    1: {
        "bmm": (0, "e7acb14e4c4b2686b8d7056ffdb93a87a281fb8da94798c9f0fe92b3737124cb"),
        "baddbmm": (0, "f7d273db1afd43d86a98b052c15fc33faa6a44a875f7e722fd3a2ace97b3ac9c"),
    },
    2: {
        "bmm": (0, "2915ebbd35ba83797828d48366a489946f57a5aa497cf47752e738e2e9a80f24"),
        "baddbmm": (0, "be83a86babcd4d791d3de897f562055238f44ee347294bb2041a8b9d22230f50"),
    },
}
RECORDED_OMP[4] = RECORDED_OMP[2]


def _contiguous(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.insert(0, step)
        step *= max(size, 1)
    return strides


def _strides(x: np.ndarray, trans: bool) -> list[int]:
    """torch's strides of ``x`` as recorded: contiguous, or ``t.transpose(-1, -2).contiguous().transpose(-1, -2)``
    (``contiguous()`` keeps a view torch calls contiguous: no elements, or its dims of size 1 aside)."""
    plain = _contiguous(x.shape)
    if not trans:
        return plain
    swapped = [*x.shape[:-2], x.shape[-1], x.shape[-2]]
    view = [*plain[:-2], plain[-1], plain[-2]]
    step, kept = 1, x.size == 0
    if not kept:
        kept = True
        for size, stride in zip(reversed(swapped), reversed(view), strict=True):
            if size != 1 and stride != step:
                kept = False
                break
            step *= size if size != 1 else 1
    if kept:
        return plain
    fresh = _contiguous(tuple(swapped))
    return [*fresh[:-2], fresh[-1], fresh[-2]]


def replayed(platform: str, drawn: list[dict[str, Any]] | None = None) -> dict[str, tuple[int, str]]:
    """op -> (cases refused, the digest of the impl's bits over the others) under ``platform``, of ``drawn`` (the
    ops it holds; arm64_bmm_empty_cases' by default)."""
    from harness.trace.impl_ops import replay

    profile = profile_for_platform(platform)
    drawn = arm64_bmm_empty_cases.cases() if drawn is None else drawn
    ops = [op for op in NAMES if any(c["op"] == op for c in drawn)]
    refused: dict[str, int] = dict.fromkeys(ops, 0)
    hashes = {op: hashlib.sha256() for op in ops}
    for c in drawn:
        op, an, bn = NAMES[c["op"]]
        tensors: dict[str, np.ndarray] = {an: c["a"], bn: c["b"]}
        args: list[dict[str, Any]] = [
            {"name": an, "tensor": an, "stride": _strides(c["a"], c["ta"]), "shape": list(c["a"].shape)},
            {"name": bn, "tensor": bn, "stride": _strides(c["b"], c["tb"]), "shape": list(c["b"].shape)},
        ]
        if "c" in c:
            tensors["self"] = c["c"]
            args += [{"name": "self", "tensor": "self", "stride": _strides(c["c"], False), "shape": list(c["c"].shape)}]
            args += [{"name": "beta", "value": c["beta"]}, {"name": "alpha", "value": c["alpha"]}]
        try:
            out = replay(op, tensors, args, profile)["out"]
        except ParityError:
            refused[c["op"]] += 1
            continue
        hashes[c["op"]].update(np.ascontiguousarray(out, np.float32).view(np.uint32).tobytes())
    return {op: (refused[op], hashes[op].hexdigest()) for op in ops}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_replay_matches_the_recording(platform: str) -> None:
    assert replayed(platform) == RECORDED


@pytest.mark.parametrize("platform", PLATFORMS)
def test_past_the_grain_replay_matches_the_recording(platform: str) -> None:
    threads = int(platform.rsplit("-t", 1)[1])
    assert replayed(platform, arm64_bmm_omp_cases.cases()) == RECORDED_OMP[threads]
