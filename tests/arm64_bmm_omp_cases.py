"""Seeded random ``bmm`` and ``baddbmm`` for tests/test_impl_arm64_bmm.py that take ATen's loop of small products
(K*M*N < 400) with more items than its parallel_for grain (32768 // (K*M*N)), so that on 2 or more threads the
copies GCC outlined for its OpenMP body run: NaNs of several kinds (both signs, quiet and signalling payloads)
meeting infinities, subnormals and -0, K of every remainder mod 4, a row-major or a transposed b (the loop over k
in vectors where a's and b's k strides are 1, else the scalar loop), beta 1, 0, 0.5 or -2 and alpha 1, 0.5 or
0.125 for baddbmm. Imports only NumPy (torch where it records): ``python tools/emulate_arm64.py run --cores C
--threads 4 -- tests/arm64_bmm_omp_cases.py OUT.npz`` saves, under emulation, torch's bits of every case at 1, 2
and 4 threads (``torch.set_num_threads`` in one process; keys ``name/threads``)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

if __package__:  # imported by the tests
    from tests.arm64_bmm_empty_cases import _values, record
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_bmm_empty_cases import _values, record

SEED = 11
PER_OP = 16
OPS = ("bmm", "baddbmm")


def cases() -> list[dict[str, Any]]:
    """Each case: name, op, a, b (logical values), ta/tb (a transposed view), and c, beta, alpha for baddbmm."""
    rng = np.random.default_rng(SEED)
    out = []
    for op in OPS:
        for i in range(PER_OP):
            nan_rate = float(rng.choice([0.02, 0.1, 0.3, 0.6]))
            k = int(rng.integers(1, 12))
            m, n = int(rng.integers(2, 7)), int(rng.integers(2, 7))
            while k * m * n >= 400:
                m, n = max(m - 1, 1), max(n - 1, 1)
            grain = max(32768 // (k * m * n), 1)
            nb = grain + int(rng.integers(1, grain + 2))
            a, b = _values(rng, (nb, m, k), nan_rate), _values(rng, (nb, k, n), nan_rate)
            case: dict[str, Any] = {"name": f"{op}{i}", "op": op, "ta": bool(rng.random() < 0.2)}
            case["tb"] = bool(rng.random() < 0.7)
            if op == "baddbmm":
                shape = [(nb, m, n), (nb, 1, n), (1, 1, n)][int(rng.integers(3))]
                case["c"] = _values(rng, shape, nan_rate)
                case["beta"] = float(rng.choice([1.0, 1.0, 0.0, 0.5, -2.0]))
                case["alpha"] = float(rng.choice([1.0, 1.0, 0.5, 0.125]))
            case["a"], case["b"] = a, b
            out.append(case)
    return out


if __name__ == "__main__":  # pragma: no cover - under emulation
    record(cases(), sys.argv[1])
