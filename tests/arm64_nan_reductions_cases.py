"""Seeded random cases of cumsum, sum, mean, the 1- and 2-norm and log_softmax over NaNs of several payloads, for
tests/test_impl_arm64_nan_reductions.py; imports only NumPy and the package (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_nan_reductions_cases.py [OUT.npz]``
records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits over that
op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs. The impl
replays each case as a traced op (harness.trace.impl_ops' REPLAYS, the operand's shape and strides as a trace
captures them).

Shapes of 1 to 4 dims off the 4- and 8-lane vectors, rows and full reductions past the 32,768-element grain (2 and
4 threads split those), contiguous and transposed; values over many magnitudes and both signs with NaNs of one to
seven payloads (both signs, quiet and signalling) at one to a third of the places, beside +-inf, subnormals and -0
in most cases.
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

OPS = ("cumsum", "sum", "mean", "norm1", "norm2", "log_softmax", "log_softmax_cols", "log_softmax_cols_backward")
THREADS = (1, 2, 4)
COUNT = 48
# quiet and signalling NaNs of both signs
NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC0BEEF, 0xFFD00BAD, 0x7F800001, 0xFF80DEAD, 0x7FA5A5A5], np.uint32)
OTHERS = np.array([np.inf, -np.inf, 1e-40, -1e-41, -0.0], np.float32)


def _shape(r: np.random.Generator, k: int) -> tuple[int, ...]:
    if k % 12 == 5:
        return (70001,)
    if k % 12 == 11:
        return (3, 40003) if k % 24 == 11 else (33000, 3)
    return tuple(int(s) for s in r.integers(1, 40, r.integers(1, 5)))


def _column_shape(r: np.random.Generator, k: int) -> tuple[tuple[int, ...], int]:
    if k % 8 == 7:
        return tuple(int(s) for s in r.integers(1, 9, 4)), int(r.integers(0, 3))
    inner = int(r.integers(1, 70)) if k % 6 else int(r.integers(1000, 9000))
    return (int(r.integers(1, 5)), int(r.integers(1, 40)), inner), 1


def _spoil(r: np.random.Generator, x: np.ndarray, k: int) -> None:
    """NaNs of 1 to 7 payloads at a 500th, a 20th or a third of ``x``'s places (none where k % 3 == 0), and
    infinities, subnormals and -0 at a 50th of the others where k % 4."""
    flat = x.reshape(-1).view(np.uint32)
    if k % 3:
        kinds = NANS[r.choice(NANS.size, int(r.integers(1, NANS.size + 1)), replace=False)]
        count = max(1, int((0.002, 0.05, 0.3)[k % 3] * x.size))
        flat[r.integers(0, x.size, count)] = r.choice(kinds, count)
    if k % 4:
        count = max(1, int(0.02 * x.size))
        places = r.integers(0, x.size, count)
        drawn = r.choice(OTHERS, count).view(np.uint32)
        flat[places] = np.where(np.isnan(x.reshape(-1)[places]), flat[places], drawn)


def column_cases() -> Iterator[dict[str, Any]]:
    """log_softmax over a dim other than the last (ATen's column kernel): (O, D, I) over dim 1 (I off the 4- and
    8-lane vectors, up to 9,000 columns: chunks of 128 KiB / D / 4) or a 4-d tensor over dim 0, 1 or 2; a third
    finite (infinities, -inf columns), the rest with NaNs of 1 to 7 payloads."""
    r = np.random.default_rng(20261207 + OPS.index("log_softmax_cols"))
    for k in range(COUNT):
        shape, dim = _column_shape(r, k)
        x = (r.standard_normal(shape) * np.exp(r.uniform(-3, 4))).astype(np.float32)
        _spoil(r, x, k)
        if k % 5 == 2:  # a column of -inf
            np.moveaxis(x, dim, -1)[(0,) * (x.ndim - 1)] = -np.inf
        yield {"x": x, "dims": dim, "keepdim": False, "transpose": False}


def column_backward_cases() -> Iterator[dict[str, Any]]:
    """_log_softmax_backward_data over a dim other than the last: the column shapes of ``column_cases`` (several
    (outer, chunk) blocks or one: the OpenMP body at 2+ threads or the inline copy), an output ``x`` of log
    probabilities (a tenth positive) and a gradient ``g``, each spoilt as ``column_cases`` spoils its input (NaNs
    of 1 to 7 payloads, both signs, quiet and signalling; infinities, subnormals, -0); where k % 5 == 2 a column
    of zero gradient whose output holds +inf (0 * inf)."""
    r = np.random.default_rng(20261208)
    for k in range(COUNT):
        shape, dim = _column_shape(r, k)
        x = (-np.abs(r.standard_normal(shape)) * np.exp(r.uniform(-3, 3))).astype(np.float32)
        x[r.random(shape) < 0.1] *= -1
        g = (r.standard_normal(shape) * np.exp(r.uniform(-3, 3))).astype(np.float32)
        _spoil(r, x, k)
        _spoil(r, g, k + 1)
        if k % 5 == 2:
            np.moveaxis(g, dim, -1)[(0,) * (g.ndim - 1)] = 0.0
            np.moveaxis(x, dim, -1)[(0,) * (x.ndim - 2) + (0, 0)] = np.inf
        yield {"x": x, "g": g, "dims": dim}


def cases(op: str) -> Iterator[dict[str, Any]]:
    if op == "log_softmax_cols":
        yield from column_cases()
        return
    if op == "log_softmax_cols_backward":
        yield from column_backward_cases()
        return
    r = np.random.default_rng(20261207 + OPS.index(op))
    for k in range(COUNT):
        shape = _shape(r, k)
        x = (r.standard_normal(shape) * np.exp(r.uniform(-3, 4))).astype(np.float32)
        flat = x.reshape(-1).view(np.uint32)
        kinds = NANS[r.choice(NANS.size, int(r.integers(1, NANS.size + 1)) if k % 6 else 1, replace=False)]
        share = (0.0, 0.002, 0.05, 0.3)[k % 4]
        count = max(1 + k % 3, int(share * x.size))
        flat[r.integers(0, x.size, count)] = r.choice(kinds, count)
        if k % 5:
            others = OTHERS[: 2 if k % 5 == 1 else OTHERS.size]
            count = max(1, int(0.02 * x.size))
            places = r.integers(0, x.size, count)
            drawn = r.choice(others, count).view(np.uint32)
            flat[places] = np.where(np.isnan(x.reshape(-1)[places]), flat[places], drawn)
        ndim = len(shape)
        if op in ("cumsum", "log_softmax"):
            dims: Any = int(r.integers(0, ndim))
        else:
            dims = [int(d) for d in sorted(r.choice(ndim, int(r.integers(1, ndim + 1)), replace=False))]
        yield {"x": x, "dims": dims, "keepdim": bool(k % 3 == 0), "transpose": ndim > 1 and k % 4 == 1}


def _view(case: dict[str, Any]) -> np.ndarray:
    """The operand as the op reads it: contiguous, or the transposed view of a copy with its last two dims
    swapped."""
    x = case["x"]
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2) if case["transpose"] else x


def _strides(v: Any) -> list[int]:
    return [s // v.itemsize for s in v.strides] if isinstance(v, np.ndarray) else list(v.stride())


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's output in logical order: the case replayed as a traced op."""
    from harness.trace.impl_ops import REPLAYS

    if op == "log_softmax_cols_backward":
        t = {"grad_output": case["g"], "output": case["x"]}
        a0 = {"dim": case["dims"], "input_dtype": "torch.float32"}
        return REPLAYS["_log_softmax_backward_data"](t, a0, profile)["out"]
    v = _view(case)
    t = {"self": np.ascontiguousarray(v)}
    a: dict[str, Any] = {"self.stride": _strides(v), "self.shape": list(v.shape), "dim": case["dims"]}
    if op.startswith("log_softmax"):
        a["half_to_float"] = False
        return REPLAYS["_log_softmax"](t, a, profile)["out"]
    a["keepdim"] = case["keepdim"]
    if op.startswith("norm"):
        a["ord"] = float(op[-1])
        return REPLAYS["linalg_vector_norm"](t, a, profile)["out"]
    return REPLAYS[op](t, a, profile)["out"]


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    if op == "log_softmax_cols_backward":
        g, y = torch.from_numpy(case["g"]), torch.from_numpy(case["x"])
        return torch.ops.aten._log_softmax_backward_data(g, y, case["dims"], torch.float32)
    v = torch.from_numpy(_view(case))
    if op == "cumsum":
        return torch.cumsum(v, case["dims"])
    if op.startswith("log_softmax"):
        return torch.log_softmax(v, case["dims"])
    if op.startswith("norm"):
        return torch.linalg.vector_norm(v, float(op[-1]), case["dims"], case["keepdim"])
    return getattr(torch, op)(v, case["dims"], case["keepdim"])


CASES = {op: (lambda op=op: cases(op)) for op in OPS}

if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
