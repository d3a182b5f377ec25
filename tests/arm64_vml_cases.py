"""Seeded random cases of erf, log2, acos (x86 MKL VML's ops: on aarch64 ATen's NEON erf or SLEEF's erff, log2f
and acosf through vml.h's vec::map), hann_window (its cos SLEEF's there) and _cdist_backward of p = 0.5, 1.5, 3
and 0.25 in turn (Vectorized pow: SLEEF's advsimd/SVE powf), for tests/test_impl_arm64_vml.py; imports only NumPy
and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_vml_cases.py [OUT.npz]``
records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits over
that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs.

erf, log2 and acos: operands of 1 to 100 elements (off the 4- and 8-lane vectors) and of 2,047 to 70,000 (either
side of the vml kernels' 2,048-element grain and of 32,768), contiguous, every other element of twice as many, or a
transposed (4, n/4) matrix (its rows the loop's runs); values of a few scales (erf every other case with |x| past
9.35, whose x*x sends a NEON vector's exp to SLEEF; log2 bit patterns of every magnitude, a few negatives; acos
over (-1.2, 1.2) and every magnitude below 1), with NaNs (quiet and signalling, both signs, payloads), infinities,
signed zeros, subnormals, +-1 and +-0.5 at the front and at random places. hann_window: lengths as above, periodic
or not. _cdist_backward: x1 (d, r1, m), x2 (d, r2, m), m off the 4- and 8-lane blocks, every third case with NaNs
and infinities, the distances torch's (the impl's own forward on its side), a gradient of their shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import factories, nn
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import cdist_case, place_specials, record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import cdist_case, place_specials, record_digests

OPS = ("erf", "log2", "acos", "hann_window", "cdist_backward")
COUNT = 24
THREADS = (1, 2, 4)
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 64, 65, 100)
LARGE = (2047, 2049, 4100, 32767, 32769, 70000)
SPECIALS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001, 0xFFA00001, 0x7F800000, 0xFF800000,
                     0, 0x80000000, 1, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000],
                    np.uint32).view(np.float32)  # fmt: skip
BIG = np.array([9.35, -9.5, 12.0, -30.0, 1e5, np.inf, -np.inf], np.float32)
CDIST_P = (0.5, 1.5, 3.0, 0.25)


def _values(op: str, r: np.random.Generator, n: int, k: int) -> np.ndarray:
    if op == "erf":
        x = (r.standard_normal(n) * (0.5, 2.0, 4.0)[k % 3]).astype(np.float32)
        if k % 2:
            mask = r.random(n) < 0.05
            x[mask] = r.choice(BIG, int(mask.sum()))
        return x
    if op == "log2":
        if k % 3 == 0:  # bit patterns of every positive magnitude
            return r.integers(1, 0x7F800000, n, dtype=np.uint32).view(np.float32)
        x = np.abs(r.standard_normal(n) * (1.0, 100.0)[k % 2]).astype(np.float32)
        x[r.random(n) < 0.02] *= -1
        return x
    if k % 3 == 0:  # acos: every magnitude below 1, both signs
        bits = r.integers(0, 0x3F800000, n, dtype=np.uint32) | (r.integers(0, 2, n, dtype=np.uint32) << 31)
        return bits.view(np.float32)
    return r.uniform(-1.2 if k % 2 else -1.0, 1.2 if k % 2 else 1.0, n).astype(np.float32)


def _unary_cases(op: str) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng({"erf": 31, "log2": 32, "acos": 33}[op])
    for k in range(COUNT):
        n = int(r.choice(LARGE)) if k % 4 == 1 else int(r.choice(SIZES))
        layout = k % 3
        x = _values(op, r, 2 * n if layout == 1 else n, k)
        place_specials(x, SPECIALS, r, max(1, x.size // 50) if k % 4 != 2 else 0)
        yield {"x": x, "layout": layout}


def _window_cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(34)
    for k in range(COUNT):
        yield {"n": int(r.choice(LARGE)) if k % 4 == 1 else int(r.choice((0, 1, 2, *SIZES))), "periodic": bool(k % 2)}


def _cdist_cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(35)
    for k in range(COUNT):
        yield cdist_case(r, k, SIZES, SPECIALS, CDIST_P, equal_columns=True)


CASES = {op: (lambda op=op: _unary_cases(op)) for op in ("erf", "log2", "acos")}
CASES["hann_window"] = _window_cases
CASES["cdist_backward"] = _cdist_cases


def _shape_stride(case: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The operand's logical shape and element strides over case["x"]: contiguous, every other element, or
    the transposed (4, n/4) matrix where n is a multiple of 4."""
    n = case["x"].size
    if case["layout"] == 1:
        return (n // 2,), (2,)
    if case["layout"] == 2 and n % 4 == 0 and n > 4:
        return (n // 4, 4), (1, n // 4)
    return (n,), (1,)


def _view(case: dict[str, Any], x: Any) -> Any:
    """The case's operand as the op reads it (NumPy or torch alike)."""
    shape, stride = _shape_stride(case)
    if stride == (2,):
        return x[::2]
    if len(shape) == 2:
        return x.reshape(4, -1).T
    return x


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    if op == "hann_window":
        return factories.hann_window(case["n"], case["periodic"], profile)
    if op == "cdist_backward":
        dist = nn.cdist(case["x1"], case["x2"], case["p"], profile)
        return nn.cdist_backward(case["grad"], case["x1"], case["x2"], case["p"], dist, profile)
    from harness.trace.impl_ops import REPLAYS

    shape, stride = _shape_stride(case)
    args = {"self.shape": list(shape), "self.stride": list(stride)}
    return REPLAYS[op]({"self": np.ascontiguousarray(_view(case, case["x"]))}, args, profile)["out"]


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    if op == "hann_window":
        return torch.hann_window(case["n"], periodic=case["periodic"])
    if op == "cdist_backward":
        aten = torch.ops.aten
        x1, x2 = torch.from_numpy(case["x1"].copy()), torch.from_numpy(case["x2"].copy())
        dist = aten._cdist_forward(x1, x2, case["p"], None)
        return aten._cdist_backward(torch.from_numpy(case["grad"].copy()), x1, x2, case["p"], dist)
    return getattr(torch, op)(_view(case, torch.from_numpy(case["x"].copy())))


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
