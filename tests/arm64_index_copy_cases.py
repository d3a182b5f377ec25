"""Seeded random cases of the index copies (scatter, index_copy, index_fill, masked_scatter and its
backward, put_) for tests/test_impl_arm64_scatter.py; imports only NumPy and the impl (torch where it
records), so that ``python tools/emulate_arm64.py run --cores C --threads 2 --
tests/arm64_index_copy_cases.py`` records, under emulation, the digests the test holds: one JSON line,
thread count -> the SHA-256 of every output's uint32 bits over the cases in order.

Every index repeats its targets (the last write kept), along each dim, with NaN and signed zeros in the
values (copied, never computed on); put_ below its 3,000-element grain (above it 2 threads race).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import scatter

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import digest
    from tests.arm64_scatter_cases import draw_shape
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import digest
    from arm64_scatter_cases import draw_shape

COUNT = 24
SPECIALS = np.array([np.nan, -np.nan, np.inf, -0.0], np.float32)


def _values(r: np.random.Generator, shape: Any) -> np.ndarray:
    x = (r.standard_normal(shape) * 3).astype(np.float32)
    spots = r.random(shape) < 0.1
    x[spots] = SPECIALS[r.integers(0, SPECIALS.size, int(spots.sum()))]
    return x


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(2028)
    for k in range(COUNT):
        shape, dim, ishape = draw_shape(r, (2, 700) if k == 0 else None, 9)
        n = ishape[dim]
        size = int(np.prod(shape))
        yield {
            "x": _values(r, shape), "dim": dim, "index": r.integers(0, shape[dim], ishape), "src": _values(r, ishape),
            "value": float(r.standard_normal() * 100), "rows": r.integers(0, shape[dim], n),
            "fill": r.integers(-shape[dim], shape[dim], n), "mask": r.random(shape) < 0.5,
            "picks": r.integers(-size, size, 2 * size + 1), "v": _values(r, (2 * size + 1,)),
        }  # fmt: skip


def _source(case: dict[str, Any]) -> np.ndarray:
    """index_copy's source: self's shape with the rows' count along dim (from src's values)."""
    shape = list(case["x"].shape)
    shape[case["dim"]] = case["rows"].size
    return case["src"].reshape(-1)[: int(np.prod(shape))].reshape(shape)


def impl_outputs(case: dict[str, Any], threads: int) -> list[np.ndarray]:
    x, dim, index, src, value = case["x"], case["dim"], case["index"], case["src"], case["value"]
    masked = int(case["mask"].sum())
    return [
        scatter.scatter(x, dim, index, src),
        scatter.scatter(x, dim, index, value),
        scatter.index_copy(x, dim, case["rows"], _source(case), threads),
        scatter.index_fill(x, dim, case["fill"], value),
        scatter.masked_scatter(x, case["mask"], src.reshape(-1)[: max(masked, 1)]),
        scatter.masked_scatter_backward(x, case["mask"], [masked + 2]),
        scatter.put(x, case["picks"], case["v"], threads, False),
        scatter.put(x, case["picks"], case["v"], threads, True),
    ]


if __name__ == "__main__":  # pragma: no cover - under emulation: threads -> digest of torch's bits
    import torch

    def torch_outputs(case: dict[str, Any]) -> list[Any]:
        t = torch.from_numpy
        x, dim, index, src, value = t(case["x"]), case["dim"], t(case["index"]), t(case["src"]), case["value"]
        mask, masked = t(case["mask"]), int(case["mask"].sum())
        backward = torch.ops.aten.masked_scatter_backward(x, mask, [masked + 2])
        return [
            x.scatter(dim, index, src), x.scatter(dim, index, value),
            x.index_copy(dim, t(case["rows"]), t(_source(case))), x.index_fill(dim, t(case["fill"]), value),
            x.masked_scatter(mask, src.reshape(-1)[: max(masked, 1)]), backward,
            x.clone().put_(t(case["picks"]), t(case["v"])), x.clone().put_(t(case["picks"]), t(case["v"]), True),
        ]  # fmt: skip

    record: dict[int, str] = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        record[threads] = digest(iter([torch_outputs(c) for c in cases()]))
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
