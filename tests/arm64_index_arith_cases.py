"""Seeded random cases of the index ops that compute (scatter_reduce prod on the serial and the expanded
path, index_reduce, index_add with alpha on 1-D and on 2 or more dims) for
tests/test_impl_arm64_scatter.py; imports only NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_index_arith_cases.py`` records,
under emulation, the digests the test holds: one JSON line, op -> thread count -> the SHA-256 of its
outputs' uint32 bits over the cases in order. Finite values (zeros of one sign): NaN not measured there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import scatter
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import digest
    from tests.arm64_scatter_cases import _values, draw_shape
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import digest
    from arm64_scatter_cases import _values, draw_shape

COUNT = 24
OPS = ("scatter_reduce prod", "expanded prod", "index_reduce", "index_add alpha")


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(2029)
    for k in range(COUNT):
        shape, dim, ishape = draw_shape(r, (2, 700) if k == 0 else None, 18)
        m, n, cols = int(r.integers(1, 30)), int(r.integers(1, 200)), int(r.choice([16, 17, 40]))
        yield {
            "x": _values(r, shape), "dim": dim, "index": r.integers(0, shape[dim], ishape), "src": _values(r, ishape),
            "ex": _values(r, (m, cols)), "erows": r.integers(0, m, n), "esrc": _values(r, (n, cols)),
            "alpha": float(r.choice([0.3, -1.7, 1e-3])),
        }  # fmt: skip


def _rows(case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """index_reduce's and index_add's 1-D index (the first entries of index) and source."""
    shape = list(case["x"].shape)
    shape[case["dim"]] = case["index"].shape[case["dim"]]
    source = case["src"].reshape(-1)[: int(np.prod(shape))].reshape(shape)
    return case["index"].reshape(-1)[: shape[case["dim"]]], source


def impl_outputs(case: dict[str, Any], profile: KernelProfile) -> dict[str, list[np.ndarray]]:
    x, dim, index, src = case["x"], case["dim"], case["index"], case["src"]
    rows, source = _rows(case)
    erows = np.broadcast_to(case["erows"][:, None], case["esrc"].shape)
    return {
        "scatter_reduce prod": [scatter.scatter_reduce(x, dim, index, src, "prod", s) for s in (True, False)],
        "expanded prod": [
            scatter.scatter_reduce(case["ex"], 0, erows, case["esrc"], "prod", s, [1, 0], True, profile)
            for s in (True, False)
        ],
        "index_reduce": [
            scatter.index_reduce(x, dim, rows, source, reduce, s)
            for reduce in scatter.INDEX_REDUCES
            for s in (True, False)
        ],
        "index_add alpha": [scatter.index_add(x, dim, rows, source, case["alpha"], profile)],
    }


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    import torch

    def torch_outputs(case: dict[str, Any]) -> dict[str, list[Any]]:
        t = torch.from_numpy
        x, dim, index, src = t(case["x"]), case["dim"], t(case["index"]), t(case["src"])
        rows, source = (t(a) for a in _rows(case))
        erows = t(case["erows"])[:, None].expand(*case["esrc"].shape)
        return {
            "scatter_reduce prod": [x.scatter_reduce(dim, index, src, "prod", include_self=s) for s in (True, False)],
            "expanded prod": [
                t(case["ex"]).scatter_reduce(0, erows, t(case["esrc"]), "prod", include_self=s) for s in (True, False)
            ],
            "index_reduce": [
                x.index_reduce(dim, rows, source, reduce, include_self=s)
                for reduce in ("prod", "mean", "amax", "amin")
                for s in (True, False)
            ],
            "index_add alpha": [x.index_add(dim, rows, source, alpha=case["alpha"])],
        }

    record: dict[str, dict[int, str]] = {op: {} for op in OPS}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        outs = [torch_outputs(c) for c in cases()]
        for op in OPS:
            record[op][threads] = digest(iter([o[op] for o in outs]))
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
