"""Seeded random cases of pow.Tensor_Scalar of a bfloat16 or float16 tensor for tests/test_impl_reduced_float_pow.py,
which holds the digests of torch's outputs over them; imports only NumPy (torch where it records):
``ATEN_CPU_CAPABILITY=<level> ONEDNN_MAX_CPU_ISA=<isa> python -m tests.reduced_float_pow_cases`` replays each case
through the trace's pow replay (harness.trace.impl_ops.replay: pow_bf16_scalar / pow_f16_scalar /
pow_reduced_tensor in ATen's loop order) and prints, per thread count (1, 2, 4), the exact,
refused and other counts and the SHA-256 of torch's outputs (their uint16 bits as float32 numbers), in order.

Each case: 1 to 65,600 elements (off the 32- and 64-element bfloat16 vector bodies, some past the thread grain of
32,768), values of every class (spread, near 1, subnormals, +-0, +-inf, NaNs of both signs quiet and signalling
with payloads); a C-contiguous tensor, every second element of one (ATen's basic loop) or the first k columns of
a wider matrix (runs of k); exponents 2, 3, -2, -1, 0.5, -0.5, 0, 1 and others (2.001 is 2 in bfloat16); then
pow.Tensor_Tensor cases, their exponent a tensor of whole and half numbers and any bits.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

THREADS = (1, 2, 4)
EXPONENTS = (2, 3, -2, -1, 0.5, -0.5, 0, 1, 1.5, 0.25, -3, 2.001, -0.75, 7)
ODD = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC5, 0xFFA1, 0x7F81, 0xFF90, 0x3F80, 0xBF80,
                0x0001, 0x807F], np.uint16)  # fmt: skip
ODD16 = np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E55, 0xFD01, 0x7C01, 0xFD90, 0x3C00, 0xBC00,
                  0x0001, 0x83FF], np.uint16)  # fmt: skip


def values(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` bfloat16 bit patterns (uint16) of every class."""
    kind = rng.integers(0, 10, n)
    f = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))).astype(np.float32)
    f = np.where(kind == 1, (1 + rng.standard_normal(n) * 0.01).astype(np.float32), f)
    bits = (f.view(np.uint32) >> 16).astype(np.uint16)
    sub = rng.integers(1, 0x80, n).astype(np.uint16) | (rng.integers(0, 2, n).astype(np.uint16) << 15)
    bits = np.where(kind == 2, sub, bits)
    return np.where(kind == 3, ODD[rng.integers(0, ODD.size, n)], bits).astype(np.uint16)


def values16(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` float16 bit patterns (uint16) of every class."""
    kind = rng.integers(0, 8, n)
    bits = (rng.standard_normal(n) * np.exp2(rng.integers(-12, 8, n))).astype(np.float16).view(np.uint16)
    bits = np.where(kind == 0, ODD16[rng.integers(0, ODD16.size, n)], bits)
    return np.where(kind == 1, rng.integers(1, 0x400, n).astype(np.uint16), bits).astype(np.uint16)


def cases() -> list[dict[str, Any]]:
    """The cases, bfloat16 then float16 (``dtype``): ``memory`` (the tensor's storage, uint16 bits), ``layout``
    ("dense": all of it, "step": every second element, "cols": its first ``k`` columns), ``exponent``."""
    rng = np.random.default_rng(20261207)
    out = []
    for i in range(4 * len(EXPONENTS)):
        dtype = "bfloat16" if i < 2 * len(EXPONENTS) else "float16"
        draw = values if dtype == "bfloat16" else values16
        n = int(rng.choice([1, 31, 33, 63, 65, 95, 1000 + int(rng.integers(0, 64)), 32768 + 47, 65536 + 33]))
        layout = ("dense", "step", "cols")[i % 3]
        if i % (2 * len(EXPONENTS)) == EXPONENTS.index(-0.5):  # rsqrt's vector body, which rounds once
            layout, n = "dense", 4099
        k = int(rng.integers(1, 130))
        if layout == "cols":
            memory = draw(rng, max(1, n // k) * (k + 7)).reshape(-1, k + 7)
        else:
            memory = draw(rng, n * (2 if layout == "step" else 1))
        exponent = EXPONENTS[i % len(EXPONENTS)]
        out.append({"dtype": dtype, "memory": memory, "layout": layout, "k": k, "exponent": exponent})
    for i in range(12):  # pow.Tensor_Tensor: an exponent tensor of the view's shape, C-contiguous
        dtype = "bfloat16" if i < 6 else "float16"
        draw = values if dtype == "bfloat16" else values16
        n = int(rng.choice([33, 65, 1000 + int(rng.integers(0, 64)), 32768 + 47, 65536 + 33]))
        layout, k = ("dense", "step", "cols")[i % 3], int(rng.integers(1, 130))
        if layout == "cols":
            memory = draw(rng, max(1, n // k) * (k + 7)).reshape(-1, k + 7)
        else:
            memory = draw(rng, n * (2 if layout == "step" else 1))
        case = {"dtype": dtype, "memory": memory, "layout": layout, "k": k}
        shape = operand(case)[0].shape if layout != "cols" else (memory.shape[0], k)
        whole = (rng.integers(-6, 7, shape) / 2).astype(np.float32)  # whole and half numbers, and any bits
        wbits = (whole.view(np.uint32) >> 16) if dtype == "bfloat16" else whole.astype(np.float16).view(np.uint16)
        anybits = draw(rng, int(np.prod(shape))).reshape(shape)
        out.append({**case, "exponent": np.where(rng.random(shape) < 0.5, wbits, anybits).astype(np.uint16)})
    return out


def operand(case: dict[str, Any]) -> tuple[np.ndarray, int]:
    """The tensor's elements in ATen's loop order and its run length (1: the basic loop)."""
    m = case["memory"]
    if case["layout"] == "step":
        return m[::2].copy(), 1
    if case["layout"] == "cols":
        return m[:, : case["k"]].reshape(-1).copy(), case["k"]
    return m, m.size


def replay(case: dict[str, Any], profile: Any) -> np.ndarray:
    """The trace's pow replay's bits for one case (harness.trace.impl_ops.replay, as ``parity audit`` calls it: the
    view's shape, strides and dtype as a capture records them, a bfloat16 tensor as its uint16 bits), which runs
    pow_bf16_scalar, pow_f16_scalar or pow_reduced_tensor in ATen's loop order (ParityError where it refuses)."""
    from harness.trace.impl_ops import replay as replay_op

    m, k, dtype = case["memory"], case["k"], case["dtype"]
    if case["layout"] == "cols":
        shape, stride = [m.shape[0], k], [m.shape[1], 1]
    else:
        shape, stride = ([m.size], [1]) if case["layout"] == "dense" else ([m.size // 2], [2])
    flat = operand(case)[0]
    like = np.float16 if dtype == "float16" else np.uint16
    inputs = {"self": flat.view(like).reshape(shape)}
    args: list[dict[str, Any]] = [{"name": "self", "tensor": "self", "dtype": dtype, "shape": shape, "stride": stride}]
    if isinstance(case["exponent"], np.ndarray):  # pow.Tensor_Tensor: a C-contiguous exponent of the view's shape
        inputs["exponent"] = case["exponent"].view(like).reshape(shape)
        args.append({"name": "exponent", "tensor": "exponent", "dtype": dtype, "shape": shape,
                     "stride": [shape[1], 1] if len(shape) == 2 else [1]})  # fmt: skip
        op = "aten.pow.Tensor_Tensor"
    else:
        args.append({"name": "exponent", "value": case["exponent"]})
        op = "aten.pow.Tensor_Scalar"
    return np.asarray(replay_op(op, inputs, args, profile)["out"]).view(np.uint16).reshape(-1)


def record() -> None:  # pragma: no cover - run by hand with torch
    import torch

    from harness.core.errors import ParityError
    from harness.impl.profiles import profile_for_capability
    from tests.bit_digest import bits_sha256

    capability = torch.backends.cpu.get_cpu_capability()
    for threads in THREADS:
        torch.set_num_threads(threads)
        profile = profile_for_capability(capability, threads)
        counts, outs = {"exact": 0, "refused": 0, "other": 0}, []
        for case in cases():
            t = torch.from_numpy(case["memory"].view(np.int16)).view(getattr(torch, case["dtype"]))
            t = t[::2] if case["layout"] == "step" else t[:, : case["k"]] if case["layout"] == "cols" else t
            e = case["exponent"]
            if isinstance(e, np.ndarray):
                e = torch.from_numpy(e.view(np.int16)).view(t.dtype).reshape(t.shape)
            got = t.pow(e).contiguous().view(torch.int16).numpy().view(np.uint16).reshape(-1)
            outs.append(got)
            try:
                mine = replay(case, profile)
            except ParityError:
                counts["refused"] += 1
                continue
            counts["exact" if np.array_equal(mine, got) else "other"] += 1
        print(capability, threads, counts, bits_sha256(np.concatenate(outs).astype(np.float32)))


if __name__ == "__main__":  # pragma: no cover
    record()
    sys.exit(0)
