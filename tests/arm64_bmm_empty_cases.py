"""Seeded random products for tests/test_impl_arm64_bmm.py: ``mm``, ``addmm``, ``bmm`` and ``baddbmm`` with M, N
or K 0 in part (an output of no elements, K = 0's ``beta * self``), one-item batches, ATen's own loop of small
products (K*M*N < 400) where NaNs of several kinds meet (both signs, quiet and signalling payloads, infinities,
subnormals, -0), products past it (NVPL, every NaN mix refused), each operand row-major or a transposed view;
beta 1, 0, 0.5 or -2 and alpha 1, 0.5 or 0.125 for the two with a ``self``. Imports only NumPy (torch where it
records): ``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_bmm_empty_cases.py OUT.npz``
saves, under emulation, torch's bits of every case at 1, 2 and 4 threads (``torch.set_num_threads`` in one
process; keys ``name/threads``) and each operand's strides (``name/sa``, ``name/sb``)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

SEED = 7
PER_OP = 60
OPS = ("mm", "addmm", "bmm", "baddbmm")
SPECIAL = np.array(
    [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC00007, 0x7F800001, 0xFF800003, 0x7FA00005, 0x7F800000, 0xFF800000,
     0x80000000, 0x00000001, 0x80000009, 0x00400000],
    np.uint32,
).view(np.float32)  # fmt: skip


def _values(rng: np.random.Generator, shape: tuple[int, ...], nan_rate: float) -> np.ndarray:
    x = (rng.standard_normal(shape) * rng.choice([1.0, 1e-3, 1e3])).astype(np.float32)
    mask = rng.random(shape) < nan_rate
    x[mask] = rng.choice(SPECIAL, size=int(mask.sum()))
    return x


def cases() -> list[dict[str, Any]]:
    """Each case: name, op, a, b (logical values), ta/tb (a transposed view), and c, beta, alpha where it has them."""
    rng = np.random.default_rng(SEED)
    out = []
    for op in OPS:
        for i in range(PER_OP):
            nan_rate = rng.choice([0.0, 0.05, 0.2, 0.5])
            dims = [int(rng.integers(1, 12)) for _ in range(3)]
            kind = rng.choice(["empty", "small", "big"], p=[0.4, 0.45, 0.15])
            if kind == "empty":
                for d in rng.choice(3, size=int(rng.integers(1, 3)), replace=False):
                    dims[d] = 0
            elif kind == "big":
                dims = [int(rng.integers(6, 24)) for _ in range(3)]
            m, k, n = dims
            nb = int(rng.choice([1, 1, 2, 3, 5])) if op in ("bmm", "baddbmm") else None
            lead = (nb,) if nb is not None else ()
            a, b = _values(rng, (*lead, m, k), nan_rate), _values(rng, (*lead, k, n), nan_rate)
            case: dict[str, Any] = {"name": f"{op}{i}", "op": op, "ta": bool(rng.random() < 0.4)}
            case["tb"] = bool(rng.random() < 0.5)
            if op in ("addmm", "baddbmm"):
                if op == "addmm":
                    shape = [(n,), (m, n), (1, n)][int(rng.integers(3))]
                else:
                    shape = [(nb, m, n), (nb, 1, n), (1, 1, n)][int(rng.integers(3))]
                case["c"] = _values(rng, shape, nan_rate)
                case["beta"] = float(rng.choice([1.0, 1.0, 0.0, 0.5, -2.0]))
                case["alpha"] = float(rng.choice([1.0, 1.0, 0.5, 0.125]))
            case["a"], case["b"] = a, b
            out.append(case)
    return out


def record(drawn: list[dict[str, Any]], path: str) -> None:  # pragma: no cover - under emulation
    """Save torch's bits of every case of ``drawn`` at 1, 2 and 4 threads and its operands' strides to ``path``."""
    import torch

    def laid(x: np.ndarray, trans: bool) -> Any:
        t = torch.from_numpy(np.ascontiguousarray(x))
        return t.transpose(-1, -2).contiguous().transpose(-1, -2) if trans else t

    bits: dict[str, np.ndarray] = {}
    for threads in (1, 2, 4):
        torch.set_num_threads(threads)
        for c in drawn:
            a, b = laid(c["a"], c["ta"]), laid(c["b"], c["tb"])
            if c["op"] in ("mm", "bmm"):
                r = (torch.mm if c["op"] == "mm" else torch.bmm)(a, b)
            else:
                f = torch.addmm if c["op"] == "addmm" else torch.baddbmm
                r = f(torch.from_numpy(c["c"]), a, b, beta=c["beta"], alpha=c["alpha"])
            bits[f"{c['name']}/{threads}"] = r.contiguous().numpy().view(np.uint32)
            bits[f"{c['name']}/sa"], bits[f"{c['name']}/sb"] = np.array(a.stride()), np.array(b.stride())
    np.savez(path, **bits)


if __name__ == "__main__":  # pragma: no cover - under emulation
    record(cases(), sys.argv[1])
