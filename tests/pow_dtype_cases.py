"""The operands of tests/test_impl_pow_dtypes.py's cases, built without torch (the recorder builds torch's
tensors from the same memory): float64 to pow's special exponents, mixed-dtype pow, integer powers, float64
sin and cos (angles without infinities or NaNs: SLEEF's Cody-Waite branches on aarch64)."""

from __future__ import annotations

from typing import Any

import numpy as np

# NaNs of both signs (quiet and signalling), infinities, -0, 0, 1, subnormals of both signs
SPECIAL64 = np.array(
    [
        *(0x7FF8000000000123, 0xFFF8000000000456, 0x7FF0000000000789, 0xFFF0000000000AB1, 0x7FF0000000000000),
        *(0xFFF0000000000000, 0x8000000000000000, 0, 0x3FF0000000000000, 0x800FFFFFFFFFFFFF, 1),
    ],
    np.uint64,
).view(np.float64)
SPECIAL32 = np.array(
    [0x7FC00123, 0xFFC00456, 0x7F800789, 0xFF800AB1, 0x7F800000, 0xFF800000, 0x80000000, 0, 0x3F800000, 0x807FFFFF, 1],
    np.uint32,
).view(np.float32)

# (label, op, self, exponent): an operand is ("number", value) or (dtype, shape, layout), layout "c"
# (contiguous), "t" (the transpose of a contiguous tensor), "s2" (every second column) or "0d" (zero-dim)
CASES: tuple[tuple[str, str, tuple[Any, ...], tuple[Any, ...] | None], ...] = (
    *(
        (f"f64**{e}", "aten.pow.Tensor_Scalar", ("float64", (33, 31), "t"), ("number", e))
        for e in (2.0, 3.0, -2.0, -1.0, -0.5, 0.0, 1.0, 2)
    ),
    ("f32**f64", "aten.pow.Tensor_Tensor", ("float32", (17, 61), "t"), ("float64", (17, 61), "c")),
    ("f64**f32", "aten.pow.Tensor_Tensor", ("float64", (4099,), "c"), ("float32", (4099,), "c")),
    ("i64**f64", "aten.pow.Tensor_Tensor", ("int64", (40, 9), "s2"), ("float64", (40, 9), "c")),
    ("i32**f32", "aten.pow.Tensor_Tensor", ("int32", (16, 65), "t"), ("float32", (16, 65), "c")),
    ("f32**0d-f64", "aten.pow.Tensor_Tensor", ("float32", (1031,), "c"), ("float64", (), "0d")),
    ("0d-f64**f32", "aten.pow.Tensor_Tensor", ("float64", (), "0d"), ("float32", (1031,), "c")),
    ("u8**f64", "aten.pow.Tensor_Tensor", ("uint8", (100,), "c"), ("float64", (100,), "c")),
    ("i64**3", "aten.pow.Tensor_Scalar", ("int64", (129,), "c"), ("number", 3)),
    ("i8**7", "aten.pow.Tensor_Scalar", ("int8", (20, 7), "s2"), ("number", 7)),
    ("u8**5", "aten.pow.Tensor_Scalar", ("uint8", (257,), "c"), ("number", 5)),
    ("bool**2", "aten.pow.Tensor_Scalar", ("bool", (33,), "c"), ("number", 2)),
    ("i32**0", "aten.pow.Tensor_Scalar", ("int32", (9, 4), "t"), ("number", 0)),
    ("i16**1", "aten.pow.Tensor_Scalar", ("int16", (31,), "c"), ("number", 1)),
    ("i64**63", "aten.pow.Tensor_Scalar", ("int64", (65,), "c"), ("number", 63)),
    ("3**i32", "aten.pow.Scalar", ("number", 3), ("int32", (97,), "c")),
    ("-1**i64", "aten.pow.Scalar", ("number", -1), ("int64", (33,), "c")),
    ("i32**i64", "aten.pow.Tensor_Tensor", ("int32", (12, 11), "t"), ("int64", (12, 11), "c")),
    ("f64**-3.7", "aten.pow.Tensor_Scalar", ("float64", (2051,), "c"), ("number", -3.7)),
    ("f64**f64", "aten.pow.Tensor_Tensor", ("float64", (19, 13), "t"), ("float64", (19, 13), "c")),
    ("sin-t", "aten.sin.default", ("angles", (33, 31), "t"), None),
    ("cos-c", "aten.cos.default", ("angles", (4099,), "c"), None),
    ("sin-s2", "aten.sin.default", ("angles", (20, 7), "s2"), None),
    ("cos-129", "aten.cos.default", ("angles", (129,), "c"), None),
)


def values(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    """Floats spread over magnitudes (exact operations only: the same values on every host), near 1, whole and
    half, with the specials; integers to 2^20 or 100
    (non-negative exponents of an integer power below 40, a few negative); "angles": float64 below 15 in a
    quarter, position angles to 1e4 and magnitudes to 1e13 (vectors of both of SLEEF's branches), -0 and 0."""
    if dtype == "angles":  # exact operations only (ldexp, products by powers of two): the same on every host
        x = np.where(
            rng.random(n) < 0.5,
            rng.integers(0, 1024, n) * np.ldexp(rng.uniform(0.5, 1, n), -rng.integers(0, 14, n)),
            0.0,
        )
        x = np.where(rng.random(n) < 0.25, rng.uniform(-15, 15, n), x)
        x = np.where(x == 0, np.ldexp(rng.uniform(1, 2, n), rng.integers(0, 43, n)) * rng.choice([-1, 1], n), x)
        x[rng.random(n) < 0.01] = -0.0
        return x
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        x = np.ldexp(rng.uniform(-1, 1, n), rng.integers(-29, 29, n))
        x = np.where(rng.random(n) < 0.3, rng.integers(-16, 16, n) / 2, x)
        x = np.where(rng.random(n) < 0.1, 1 + rng.uniform(-1e-6, 1e-6, n), x).astype(dtype)
        m = rng.random(n) < 0.1
        x[m] = rng.choice(SPECIAL64 if dtype == "float64" else SPECIAL32, m.sum())
        return x
    info = np.iinfo(dtype)
    top = min(int(info.max), 2**20 if dtype == "int64" else 100)
    return rng.integers(0 if info.min == 0 else -top, top, n, endpoint=True).astype(dtype)


def operand(i: int, which: int, spec: tuple[Any, ...] | None) -> tuple[Any, np.ndarray | None, list[int]]:
    """(the memory torch's tensor views, or a number; the logical values; the strides) of case ``i``'s
    operand ``which`` (0: self, 1: exponent)."""
    if spec is None:
        return None, None, []
    if spec[0] == "number":
        return spec[1], None, []
    dtype, shape, layout = spec
    rng = np.random.default_rng([i, which])
    if layout == "0d":
        v = values(rng, 1, dtype).reshape(())
        return v, v, []
    if dtype.startswith("float") and which == 1:  # exponents: whole, half and small spread ones besides specials
        v = values(rng, int(np.prod(shape)), dtype)
        v = np.where(np.isfinite(v) & (np.abs(v) > 9), rng.uniform(-9, 9, v.size).astype(dtype), v)
        return v.reshape(shape), v.reshape(shape), [int(s) // v.itemsize for s in v.reshape(shape).strides]
    if dtype.startswith("int") and which == 1:
        v = rng.integers(-2, 24, int(np.prod(shape))).astype(dtype).reshape(shape)
        return v, v, [int(s) // v.itemsize for s in v.strides]
    if layout == "t":
        memory = values(rng, int(np.prod(shape)), dtype).reshape(shape[::-1])
        view = memory.T
    elif layout == "s2":
        memory = values(rng, shape[0] * shape[1] * 2, dtype).reshape(shape[0], shape[1] * 2)
        view = memory[:, ::2]
    else:
        memory = view = values(rng, int(np.prod(shape)), dtype).reshape(shape)
    return memory, np.array(view), [int(s) // view.itemsize for s in view.strides]


def replay_args(i: int) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The captured inputs and arguments of case ``i`` as the tracer records them."""
    _, _, *specs = CASES[i]
    inputs: dict[str, np.ndarray] = {}
    args: list[dict[str, Any]] = []
    for which, (name, spec) in enumerate(zip(("self", "exponent"), specs, strict=True)):
        _, v, stride = operand(i, which, spec)
        if spec is None:
            continue
        if v is None:
            args.append({"name": name, "value": spec[1]})
        else:
            inputs[name] = v
            dtype = "float64" if spec[0] == "angles" else spec[0]
            args.append({"name": name, "tensor": name, "stride": stride, "shape": list(v.shape), "dtype": dtype})
    return inputs, args
