"""Seeded random cases of pow.Scalar (a number to a tensor's power), pow.Tensor_Tensor, atan2 and sqrt over
operands of every layout, for tests/test_impl_arm64_pow_atan2_sqrt.py; imports only NumPy and the package (torch
where it records), so that ``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_pow_atan2_sqrt_cases.py [OUT.npz]`` records, under emulation, one JSON line: op -> thread count -> the
SHA-256 of every output's uint32 bits over that op's cases in order (torch.set_num_threads(1), 2, then 4, in one
process); with OUT.npz also the outputs. The impl replays each case as a traced op (harness.trace.impl_ops'
REPLAYS, the operands' shapes and strides as a trace captures them), so TensorIterator's order, its coalesced
inner run, the vectorized or the basic loop and the threads' chunks are the trace's.

Lengths off the 4- and 8-lane vectors (V1's blocks of 16 and N1's of 8 leave other scalar tails) and past the
32,768-element grain (2 and 4 threads split those); pow.Scalar's exponents Llama's rotary ``arange(0, d, 2) / d``
beside random ones (a power of two to k/64: glibc's exp2 step ties there), bases 10000, 500000, 2 and others;
atan2 and pow.Tensor_Tensor over a transposed self beside a sliced other (the basic loop: every element glibc's),
a broadcast row, every other element and contiguous operands; sqrt of transposed, sliced and every-other-row
views; values over many magnitudes and both signs, with +-0, subnormals, infinities and seven NaN payloads (both
signs, signalling ones).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import place_specials, record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import place_specials, record_digests

OPS = ("pow_scalar", "pow_tensor", "atan2", "sqrt")
COUNT = 30
THREADS = (1, 2, 4)
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 64, 65, 100)
LARGE = (32767, 32769, 40000, 70001)
SPECIALS = np.array(
    [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800001, 0x7FBFFFFF,
     0x7F800000, 0xFF800000, 0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x3F800000, 0xBF800000],
    np.uint32,
).view(np.float32)  # fmt: skip
BASES = (10000.0, 500000.0, 2.0, 0.5, 3.0, -2.0, 1e-3)
# each op's operands as a trace captures them
NAMES = {"pow_scalar": ("exponent",), "pow_tensor": ("self", "exponent"), "atan2": ("self", "other"), "sqrt": ("self",)}


def _values(r: np.random.Generator, n: int, k: int, positive: bool = False) -> np.ndarray:
    kind = k % 3
    if kind == 0:
        x = r.standard_normal(n) * 3.0
    elif kind == 1:  # many magnitudes
        x = np.exp(r.uniform(-30.0, 30.0, n)) * r.choice([-1.0, 1.0], n)
    else:
        x = r.uniform(-2.0, 2.0, n)
    return (np.abs(x) if positive else x).astype(np.float32)


def _size(r: np.random.Generator, k: int) -> int:
    return int(r.choice(LARGE)) if k % 5 == 1 else int(r.choice(SIZES))


def _matrix(r: np.random.Generator, k: int) -> tuple[int, int]:
    """(m, n) of a 2-D case, its elements off the vectors and every fifth past the grain."""
    if k % 5 == 1:
        return int(r.choice([131, 200, 257])), int(r.choice([170, 260, 301]))
    return int(r.integers(1, 40)), int(r.integers(1, 40))


def cases(op: str) -> Iterator[dict[str, Any]]:
    """The op's cases in order: operands (as NumPy arrays laid out as the case's layout asks) and arguments."""
    r = np.random.default_rng({"pow_scalar": 21, "pow_tensor": 22, "atan2": 23, "sqrt": 24}[op])
    for k in range(COUNT):
        if op == "pow_scalar":
            layout = k % 4  # 0 rotary arange / d, 1 random 1-D, 2 every other element, 3 a transposed matrix
            base = float(BASES[k % len(BASES)])
            if layout == 0:
                d = int(r.choice([8, 16, 32, 64, 94, 100, 128, 256]))
                e = (np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)).astype(np.float32)
            elif layout == 3:
                m, n = _matrix(r, k)
                e = (r.standard_normal((n, m)) * 4).astype(np.float32)
            else:
                e = (r.standard_normal(_size(r, k) * (2 if layout == 2 else 1)) * 4).astype(np.float32)
            if layout:
                place_specials(e.reshape(-1), SPECIALS, r, max(1, e.size // 50))
                e.reshape(-1)[-3:] = np.float32([1 / 64, 3 / 64, -5 / 64])[: min(3, e.size)]
            yield {"base": base, "exponent": e, "layout": layout}
        elif op in ("pow_tensor", "atan2"):
            layout = k % 5  # 0 contiguous, 1 transposed self beside a sliced other, 2 the other way, 3 a broadcast
            # row of other (pow: a one-element base), 4 every other element of self
            m, n = _matrix(r, k)
            a = _values(r, m * n, k, positive=op == "pow_tensor" and k % 2 == 0).reshape(m, n)
            b = _values(r, m * n, k + 1).reshape(m, n)
            if op == "pow_tensor":
                b = np.clip(b, -40, 40).astype(np.float32)
            for x in (a, b):
                place_specials(x.reshape(-1), SPECIALS, r, max(1, x.size // 50))
            if layout == 3:
                b = b[:1] if op == "atan2" else b
                a = a[:1, :1] if op == "pow_tensor" else a
            yield {"a": a, "b": b, "layout": layout}
        else:
            layout = k % 3  # 0 a transposed matrix, 1 a column slice, 2 every other row
            m, n = _matrix(r, k)
            x = _values(r, m * (n + 2) * 2, k, positive=k % 4 != 3).reshape(2 * m, n + 2)
            place_specials(x.reshape(-1), SPECIALS, r, max(1, x.size // 50))
            yield {"x": x, "layout": layout}


def _views(op: str, case: dict[str, Any], xp: Any) -> list[Any]:
    """The case's operands as the op reads them (``xp`` wraps an array: NumPy's own, or torch.from_numpy)."""
    if op == "sqrt":
        x = xp(case["x"])
        m, n = case["x"].shape[0] // 2, case["x"].shape[1] - 2
        v = [x[:m, :n].T, x[:, :n], x[::2]][case["layout"]]
        return [v]
    if op == "pow_scalar":
        e = xp(case["exponent"])
        return [e[::2] if case["layout"] == 2 else e.T if case["layout"] == 3 else e]
    a, b = xp(case["a"]), xp(case["b"])
    layout = case["layout"]
    if layout == 1:  # self transposed (a (n, m) matrix's transpose), other a slice of a wider matrix
        a, b = xp(np.ascontiguousarray(case["a"].T)).T, xp(np.pad(case["b"], ((0, 0), (0, 3))))[:, : case["b"].shape[1]]
    elif layout == 2:
        a, b = xp(np.pad(case["a"], ((0, 0), (0, 3))))[:, : case["a"].shape[1]], xp(np.ascontiguousarray(case["b"].T)).T
    elif layout == 4:
        a = xp(np.repeat(case["a"], 2, axis=1))[:, ::2]
    return [a, b]


def _strides(v: Any) -> list[int]:
    return [s // v.itemsize for s in v.strides] if isinstance(v, np.ndarray) else list(v.stride())


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's output in logical order: the case replayed as a traced op (its operands' captured values,
    shapes and strides)."""
    from harness.trace.impl_ops import REPLAYS

    views = _views(op, case, lambda x: x)
    names = NAMES[op]
    t = {name: np.ascontiguousarray(v) for name, v in zip(names, views, strict=True)}
    a: dict[str, Any] = {"self": case["base"]} if op == "pow_scalar" else {}
    for name, v in zip(names, views, strict=True):
        a.update({f"{name}.stride": _strides(v), f"{name}.shape": list(v.shape)})
    return REPLAYS[{"pow_scalar": "pow", "pow_tensor": "pow"}.get(op, op)](t, a, profile)["out"]


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    views = _views(op, case, lambda x: torch.from_numpy(np.array(x)))
    if op == "sqrt":
        return torch.sqrt(views[0])
    if op == "pow_scalar":
        return torch.pow(case["base"], views[0])
    return (torch.pow if op == "pow_tensor" else torch.atan2)(views[0], views[1])


CASES = {op: (lambda op=op: cases(op)) for op in OPS}

if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
