"""Seeded random casts to and from float16 and bfloat16 (``Tensor.to``: aten._to_copy) for
tests/test_impl_reduced_float_cast.py, which holds the digests of torch's outputs over them; imports only NumPy
(torch where it records): ``ATEN_CPU_CAPABILITY=<level> ONEDNN_MAX_CPU_ISA=<isa> python -m
tests.reduced_float_cast_cases`` replays each case through the trace's replay (harness.trace.impl_ops.replay) and
prints, per thread count (1, 2, 4), the exact, refused and other counts and the SHA-256 of torch's outputs (their
bytes as float32 words, in order).

Each case: float32 to float16 and bfloat16, float64 to float16 (and to bfloat16 without NaNs), float16 to float32
and float64, bfloat16 to float32; 1 to 70,001 elements (off the 8- and 16-element vectors, past the 32,768-element
grain), values of every class (NaNs of both signs, quiet and signalling, payloads in the low and the high bits,
infinities, values past float16's range, subnormals, ties, -0); a C-contiguous tensor, a transposed one (its
layout kept), every second element, the first k columns of a wider matrix, a row broadcast over rows.

``copy_cases``: ``copy_`` (aten.copy_) from float32 and float64 into float16 and bfloat16 destinations laid out
C-contiguous, transposed or every second element, from the sources above or a row of fewer dims broadcast over
the destination's rows (Copy.cpp's FBGEMM path where both are contiguous or share their strides, CopyKernel.cpp's
loop elsewhere); ``python -m tests.reduced_float_cast_cases copy`` records them.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

THREADS = (1, 2, 4)
PAIRS = (("float32", "float16"), ("float32", "bfloat16"), ("float64", "float16"), ("float64", "bfloat16"),
         ("float16", "float32"), ("float16", "float64"), ("bfloat16", "float32"))  # fmt: skip
LAYOUTS = ("dense", "transposed", "step", "cols", "rows")
NAN_BITS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FE00000, 0x7F800001, 0xFFA00000, 0x7FFFFFFF, 0x7F802000,
                     0xFF9FE000, 0x7FD55555], np.uint32)  # fmt: skip
ODD32 = np.array([0x7F800000, 0xFF800000, 0x80000000, 0x00000001, 0x477FE000, 0x477FF000, 0x477FEFFF,
                  0x33800000, 0x33000000, 0x33C00000, 0x38800000, 0x3F801000, 0x3F803000, 0x3F808000,
                  0x3F818000], np.uint32)  # fmt: skip
ODD16 = np.array([0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFDFF, 0x7EFF, 0x7FFF, 0x0001, 0x83FF, 0x8000], np.uint16)


def values(rng: np.random.Generator, n: int, dtype: str, nans: bool = True) -> np.ndarray:
    """``n`` values of ``dtype`` of every class (float16 and bfloat16 as their uint16 bits)."""
    if dtype == "float16":
        with np.errstate(over="ignore"):
            bits = (rng.standard_normal(n) * np.exp2(rng.integers(-16, 16, n))).astype(np.float16).view(np.uint16)
        pick = rng.random(n) < 0.3
        return np.where(pick, ODD16[rng.integers(0, ODD16.size, n)], bits).astype(np.uint16)
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-30, 20, n))).astype(np.float32).view(np.uint32)
    kind = rng.random(n)
    x = np.where(kind < 0.15, ODD32[rng.integers(0, ODD32.size, n)], x)
    if nans:
        x = np.where(kind > 0.8, NAN_BITS[rng.integers(0, NAN_BITS.size, n)], x)
        payload = rng.integers(1, 1 << 22, n).astype(np.uint32) | (rng.integers(0, 2, n).astype(np.uint32) << 31)
        x = np.where(kind > 0.95, np.uint32(0x7F800000) | payload, x)
    if dtype == "bfloat16":
        return (x >> 16).astype(np.uint16)
    f = x.astype(np.uint32).view(np.float32)
    if dtype == "float64":  # float32 values and some off them by 2^-40 (a float16 or bfloat16 tie nudged)
        with np.errstate(invalid="ignore"):
            d = f.astype(np.float64)
            return np.where(rng.random(n) < 0.5, d * (1 + 2.0**-40), d)
    return f


def cases() -> list[dict[str, Any]]:
    """The cases: ``src`` and ``dst`` dtypes, ``memory`` (the source's storage: float32/float64 values or uint16
    bits), ``layout`` and its ``shape`` (the view's)."""
    rng = np.random.default_rng(20261208)
    out = []
    for i in range(2 * len(PAIRS) * len(LAYOUTS)):
        src, dst = PAIRS[i % len(PAIRS)]
        layout = LAYOUTS[(i // len(PAIRS)) % len(LAYOUTS)]
        n = int(rng.choice([1, 2, 7, 9, 15, 17, 31, 33, 63, 65, 100 + int(rng.integers(0, 64)), 70001]))
        rows = int(rng.integers(1, 6)) if layout in ("cols", "rows", "transposed") else 1
        k = max(1, n // rows)
        shape = [rows, k] if layout in ("cols", "rows", "transposed") else [n]
        size = {"dense": n, "step": 2 * n, "cols": rows * (k + 5), "rows": k, "transposed": rows * k}[layout]
        memory = values(rng, size, src, nans=(src, dst) != ("float64", "bfloat16"))
        out.append({"src": src, "dst": dst, "memory": memory, "layout": layout, "shape": shape})
    # float16 to float32 past the grain, half NaNs: FBGEMM's tails fall at each thread's chunk's end
    nan16 = np.where(rng.random(70001) < 0.5, ODD16[rng.integers(2, 8, 70001)], values(rng, 70001, "float16"))
    wide = {"src": "float16", "dst": "float32", "memory": nan16.astype(np.uint16)}
    out.append({**wide, "layout": "dense", "shape": [70001]})
    # and transposed (its layout kept): FBGEMM's tail is the last 500 % 8 elements in memory, not in logical order
    out.append({**wide, "memory": wide["memory"][:500], "layout": "transposed", "shape": [20, 25]})
    return out


COPY_PAIRS = (("float32", "float16"), ("float32", "bfloat16"), ("float64", "float16"), ("float64", "bfloat16"))
INTO = ("dense", "transposed", "step")


def copy_cases() -> list[dict[str, Any]]:
    """``copy_``'s cases: as ``cases``' (the source) with ``into``, the destination's layout of ``shape`` (its
    strides by ``strides`` of that layout), and a ``bcast`` source: one row of ``shape[1]`` elements."""
    rng = np.random.default_rng(20261209)
    out = []
    for i in range(3 * len(COPY_PAIRS) * len(INTO)):
        src, dst = COPY_PAIRS[i % len(COPY_PAIRS)]
        into = INTO[(i // len(COPY_PAIRS)) % len(INTO)]
        layout = ("dense", "transposed", "step", "cols", "bcast")[int(rng.integers(0, 5))]
        layout = "transposed" if into == "transposed" and (i // 12) % 2 == 0 else layout  # FBGEMM: equal strides
        n = int(rng.choice([1, 2, 7, 9, 15, 17, 31, 33, 63, 65, 100 + int(rng.integers(0, 64)), 40001, 70001]))
        rows = int(rng.integers(1, 6)) if into == "transposed" or layout != "dense" else 1
        k = max(1, n // rows)
        shape = [rows, k] if rows > 1 or into == "transposed" or layout != "dense" else [n]
        n = int(np.prod(shape))
        size = {"dense": n, "step": 2 * n, "cols": rows * (k + 5), "bcast": k, "transposed": n}[layout]
        memory = values(rng, size, src, nans=(src, dst) != ("float64", "bfloat16"))
        out.append({"src": src, "dst": dst, "memory": memory, "layout": layout, "shape": shape, "into": into})
    # past the grain: FBGEMM's parallel chunks (contiguous, and transposed in both), the bfloat16 vectors
    for src, dst, layout, shape in (("float32", "float16", "dense", [70001]), ("float32", "bfloat16", "dense", [70001]),
                                    ("float32", "float16", "transposed", [5, 14001])):  # fmt: skip
        memory = values(rng, int(np.prod(shape)), src)
        out.append({"src": src, "dst": dst, "memory": memory, "layout": layout, "shape": shape, "into": layout})
    return out


def strides(case: dict[str, Any], layout: str | None = None) -> list[int]:
    """The view's strides (elements) over ``memory`` (of ``layout``, the case's own by default)."""
    rows, k = case["shape"] if len(case["shape"]) == 2 else (1, case["shape"][0])
    layout = layout or case["layout"]
    if layout == "bcast":
        return [1]
    if layout in ("dense", "step") and len(case["shape"]) == 2:
        return {"dense": [k, 1], "step": [2 * k, 2]}[layout]
    return {"dense": [1], "step": [2], "cols": [k + 5, 1], "rows": [0, 1], "transposed": [1, rows]}[layout]


def src_shape(case: dict[str, Any]) -> list[int]:
    """The source's shape: a broadcast row's own, else the destination's."""
    return [case["shape"][-1]] if case["layout"] == "bcast" else list(case["shape"])


def into_size(case: dict[str, Any]) -> int:
    """The destination's storage (elements)."""
    return int(np.prod(case["shape"])) * (2 if case["into"] == "step" else 1)


def operand(case: dict[str, Any]) -> np.ndarray:
    """The view's elements in logical order (what a capture holds)."""
    m, shape = case["memory"], tuple(src_shape(case))
    stride = strides(case)
    return np.lib.stride_tricks.as_strided(m, shape, [s * m.itemsize for s in stride]).copy()


def replay(case: dict[str, Any], profile: Any) -> np.ndarray:
    """The trace's ``_to_copy`` replay's output for one case as bytes (uint8; ParityError where it refuses)."""
    from harness.trace.impl_ops import replay as replay_op

    x = operand(case)
    if case["src"] == "float16":
        x = x.view(np.float16)
    args = [{"name": "self", "tensor": "self", "dtype": case["src"], "shape": case["shape"], "stride": strides(case)},
            {"name": "dtype", "value": f"torch.{case['dst']}"}]  # fmt: skip
    out = replay_op("aten._to_copy.default", {"self": x}, args, profile)["out"]
    return np.ascontiguousarray(out).reshape(-1).view(np.uint8)


def replay_copy(case: dict[str, Any], profile: Any) -> np.ndarray:
    """The trace's ``copy_`` replay's output for one ``copy_cases`` case as bytes (uint8; ParityError where it
    refuses): ``self`` by its metadata alone, as a capture holds it."""
    from harness.trace.impl_ops import replay as replay_op

    x = operand(case)
    args = [{"name": "self", "tensor": "self", "dtype": case["dst"], "shape": case["shape"],
             "stride": strides(case, case["into"])},
            {"name": "src", "tensor": "src", "dtype": case["src"], "shape": src_shape(case), "stride": strides(case)},
            {"name": "non_blocking", "value": False}]  # fmt: skip
    out = replay_op("aten.copy_.default", {"src": x}, args, profile)["out"]
    return np.ascontiguousarray(out).reshape(-1).view(np.uint8)


def digest_words(outs: list[np.ndarray]) -> np.ndarray:
    """The outputs' bytes, zero-padded to whole 4-byte words, as float32 words (what the digests hash)."""
    raw = np.concatenate(outs)
    return np.concatenate([raw, np.zeros(-raw.size % 4, np.uint8)]).view(np.float32)


def torch_source(torch: Any, case: dict[str, Any]) -> Any:  # pragma: no cover - run by hand with torch
    """The case's source view as a torch tensor."""
    m = case["memory"]
    base = torch.from_numpy(m.view(np.int16)).view(getattr(torch, case["src"])) if m.dtype == np.uint16 else None
    base = torch.from_numpy(m) if base is None else base
    return base.as_strided(src_shape(case), strides(case))


def torch_bytes(torch: Any, got: Any) -> np.ndarray:  # pragma: no cover - run by hand with torch
    """A torch result's bytes in logical order."""
    got = got.contiguous()
    got = got.view(torch.int16) if got.dtype == torch.bfloat16 else got
    return got.numpy().reshape(-1).view(np.uint8)


def record(copy: bool = False) -> None:  # pragma: no cover - run by hand with torch
    import torch

    from harness.core.errors import ParityError
    from harness.impl.profiles import profile_for_capability
    from tests.bit_digest import bits_sha256

    capability = torch.backends.cpu.get_cpu_capability()
    for threads in THREADS:
        torch.set_num_threads(threads)
        profile = profile_for_capability(capability, threads)
        counts, outs = {"exact": 0, "refused": 0, "other": 0}, []
        for case in copy_cases() if copy else cases():
            view = torch_source(torch, case)
            if copy:
                into = torch.zeros(into_size(case), dtype=getattr(torch, case["dst"]))
                got = into.as_strided(case["shape"], strides(case, case["into"]))
                got.copy_(view)
            else:
                got = view.to(getattr(torch, case["dst"]))
            raw = torch_bytes(torch, got)
            outs.append(raw)
            try:
                mine = replay_copy(case, profile) if copy else replay(case, profile)
            except ParityError:
                counts["refused"] += 1
                continue
            counts["exact" if np.array_equal(mine, raw) else "other"] += 1
        print(capability, threads, counts, bits_sha256(digest_words(outs)))


if __name__ == "__main__":  # pragma: no cover
    record(copy=sys.argv[1:] == ["copy"])
    sys.exit(0)
