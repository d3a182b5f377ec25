"""Cases of the op forms the zoo's audits met refused and the impl now replays: each an ATen op, its captured
inputs (NumPy, seeded) and its arguments as the recorder captures them (a complex number as
``{"complex": [re, im]}``), replayed through harness.trace.impl_ops.replay; the SHA-256 of the outputs torch
2.13.0 gave for them (tests/bit_digest.py) per profile and thread count is in tests/test_trace_zoo_forms.py."""

from __future__ import annotations

from typing import Any

import numpy as np

SNAN, NAN_PAYLOAD = 0x7F800001, 0xFFC01234


def _values(rng: np.random.Generator, n: int) -> np.ndarray:
    """float32 values over six decades, with NaN payloads (both signs, quiet and signalling), infinities,
    subnormals and signed zeros among them."""
    x = (rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)).astype(np.float32)
    special = np.array([SNAN, NAN_PAYLOAD, 0x7F800000, 0xFF800000, 0x80000000, 0, 0x00000007, 0x80400000])
    x.view(np.uint32)[rng.integers(0, n, n // 8)] = rng.choice(special, n // 8).astype(np.uint32)
    return x


def _tensor(name: str, a: np.ndarray) -> dict[str, Any]:
    strides = [int(s // a.itemsize) for s in a.strides]
    return {"name": name, "tensor": name, "stride": strides, "shape": list(a.shape), "dtype": str(a.dtype)}


def cases() -> list[tuple[str, str, dict[str, np.ndarray], list[dict[str, Any]]]]:
    """(label, op, inputs, args) of each case; sizes off 8 and 16 lanes and past the grain (32768)."""
    rng = np.random.default_rng(2026)
    out = []
    for n in (37, 40001):
        g, x = _values(rng, n), _values(rng, n)
        with np.errstate(invalid="ignore"):
            result = np.where(x > 0, x, x * np.float32(0.2)).astype(np.float32)  # what leaky_relu_(x, 0.2) leaves
        result[np.isnan(x)] = x[np.isnan(x)]
        args = [_tensor("grad_output", g), _tensor("self", result), {"name": "negative_slope", "value": 0.2},
                {"name": "self_is_result", "value": True}]  # fmt: skip
        out.append((f"leaky_relu_backward in place {n}", "aten.leaky_relu_backward.default",
                    {"grad_output": g, "self": result}, args))  # fmt: skip
        d = _values(rng, n)
        d.view(np.uint32)[np.isnan(d)] |= np.uint32(0x00400000)  # quiet: a signalling NaN divisor is refused at avx2
        args = [{"name": "self", "value": 1.0}, _tensor("other", d)]
        out.append((f"floor_divide of 1.0 by a tensor {n}", "aten.floor_divide.default", {"other": d}, args))
        c = _values(rng, 2 * n).reshape(n, 2)
        c[np.isnan(c)] = 1.0  # mul of complex tensors holding NaN is refused
        number = {"name": "other", "value": {"complex": [0.3, -0.7]}}
        args = [{"name": "self", "tensor": "self", "stride": [1], "shape": [n], "dtype": "complex64"}, number]
        out.append((f"complex mul by a number {n}", "aten.mul.Scalar", {"self": c}, args))
        rows = c[: 13 * (n // 13)].reshape(-1, 13, 2)  # rows of 13 in rows of 16: a tail of 5 in each
        args = [{"name": "self", "tensor": "self", "stride": [16, 1], "shape": [n // 13, 13], "dtype": "complex64"},
                {"name": "other", "value": {"complex": [-1.3, 0.45]}}]  # fmt: skip
        out.append((f"strided complex rows by a number {n}", "aten.mul.Scalar", {"self": rows}, args))
        h = _values(rng, n)
        args = [_tensor("self", h), {"name": "exponent", "value": 0.5}]
        out.append((f"pow(x, 0.5) {n}", "aten.pow.Tensor_Scalar", {"self": h}, args))
        e = rng.integers(-1100, 1101, n).astype(np.float64)
        e[:3] = [np.inf, -np.inf, -0.0]
        args = [{"name": "self", "value": 2.0}, _tensor("exponent", e)]
        out.append((f"pow(2, float64 exponents) {n}", "aten.pow.Scalar", {"exponent": e}, args))
        s = (rng.standard_normal(n) * 3).astype(np.float32).reshape(n, 1) if n < 100 else None
        s = s if s is not None else (rng.standard_normal(n - 1) * 3).astype(np.float32).reshape(40, 1000)
        for dim in (None, [-1]):
            args = [_tensor("self", s), {"name": "dim", "value": dim}, {"name": "correction", "value": 0},
                    {"name": "keepdim", "value": True}]  # fmt: skip
            out.append((f"std correction 0 dim {dim} {s.shape}", "aten.std.correction", {"self": s}, args))
    return out
