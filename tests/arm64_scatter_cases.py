"""Seeded random cases of scatter_add, scatter_reduce, index_add, index_put and im2col/col2im for
tests/test_impl_arm64_scatter.py; imports only NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_scatter_cases.py`` records,
under emulation, the digests the test holds: one JSON line, thread count -> the SHA-256 of every
output's uint32 bits over the cases in order (torch.set_num_threads(1), then 2, in one process).

Every index repeats its targets (three times as many terms as targets, where the order shows), along
each dim; the expanded-index path of scatter_reduce (dim 0, 16 columns or more); a 40,000-element
scatter_add; index_put with and without accumulate below cpu_index_kernel's parallel grain (3,000
elements: above it 2 threads race); nn.Unfold/nn.Fold geometry with dilation, padding and stride.
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
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import digest

COUNT = 24


def _values(r: np.random.Generator, shape: Any) -> np.ndarray:
    x = (r.standard_normal(shape) * 3).astype(np.float32)
    x[r.random(shape) < 0.05] = 0.0
    return x


def draw_shape(r: np.random.Generator, first: tuple[int, ...] | None, high: int) -> tuple[Any, int, list[int]]:
    """A case's self shape (``first`` for the first case, else 1 to 3 dims of 1 to ``high`` - 1), the dim
    it indexes and its index's shape: self's with 3 * size + 1 along that dim (every target repeated)."""
    shape = first if first is not None else tuple(int(s) for s in r.integers(1, high, r.integers(1, 4)))
    dim = int(r.integers(0, len(shape)))
    ishape = list(shape)
    ishape[dim] = 3 * shape[dim] + 1
    return shape, dim, ishape


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(2027)
    for k in range(COUNT):
        shape, dim, ishape = draw_shape(r, (2, 20000) if k == 0 else None, 9)
        m, n, cols = int(r.integers(1, 30)), int(r.integers(1, 200)), int(r.choice([16, 17, 40]))
        rows = (int(r.integers(1, 20)), int(r.integers(1, 16)), int(r.integers(1, 4)))  # below 3,000 elements
        picks = r.integers(0, rows[0], 3 * rows[0] + 1)
        kernel, dilation = (
            (int(r.integers(1, 4)), int(r.integers(1, 4))),
            (int(r.integers(1, 3)), int(r.integers(1, 3))),
        )
        hw = tuple(d * (q - 1) + 1 + int(r.integers(0, 10)) for d, q in zip(dilation, kernel, strict=True))
        yield {
            "x": _values(r, shape), "dim": dim, "index": r.integers(0, shape[dim], ishape), "src": _values(r, ishape),
            "ex": _values(r, (m, cols)), "erows": r.integers(0, m, n), "esrc": _values(r, (n, cols)),
            "rows": rows, "base": _values(r, rows), "picks": picks, "v": _values(r, (picks.size, *rows[1:])),
            "img": _values(r, (2, 3, *hw)), "hw": hw,
            "geometry": (kernel, dilation, (int(r.integers(0, 3)), int(r.integers(0, 3))),
                         (int(r.integers(1, 3)), int(r.integers(1, 3)))),
        }  # fmt: skip


def impl_outputs(case: dict[str, Any], profile: KernelProfile) -> list[np.ndarray]:
    x, dim, index, src = case["x"], case["dim"], case["index"], case["src"]
    index_all = np.broadcast_to(case["erows"][:, None], case["esrc"].shape)
    outs = [scatter.scatter_reduce(x, dim, index, src)]
    for reduce in ("sum", "mean", "amax", "amin"):  # the reductions measured on arm64 (prod: x86 only)
        for include_self in (True, False):
            outs.append(scatter.scatter_reduce(x, dim, index, src, reduce, include_self))
            outs.append(scatter.scatter_reduce(case["ex"], 0, index_all, case["esrc"], reduce, include_self))
    sshape = list(x.shape)
    sshape[dim] = index.shape[dim]
    source = src.reshape(-1)[: np.prod(sshape)].reshape(sshape)
    outs.append(scatter.index_add(x, dim, index.reshape(-1)[: sshape[dim]], source, 1, profile))
    for accumulate in (True, False):
        outs.append(scatter.index_put(case["base"], [case["picks"]], case["v"], profile.threads, accumulate))
    cols = scatter.im2col(case["img"], *case["geometry"])
    outs += [cols, scatter.col2im(cols, case["hw"], *case["geometry"])]
    return outs


if __name__ == "__main__":  # pragma: no cover - under emulation: threads -> digest of torch's bits
    import torch

    def torch_outputs(case: dict[str, Any]) -> list[Any]:
        t = torch.from_numpy
        x, dim, index, src = t(case["x"]), case["dim"], t(case["index"]), t(case["src"])
        erows = t(case["erows"])[:, None].expand(*case["esrc"].shape)
        outs = [x.scatter_add(dim, index, src)]
        for reduce in ("sum", "mean", "amax", "amin"):
            for include_self in (True, False):
                outs.append(x.scatter_reduce(dim, index, src, reduce, include_self=include_self))
                outs.append(t(case["ex"]).scatter_reduce(0, erows, t(case["esrc"]), reduce, include_self=include_self))
        sshape = list(x.shape)
        sshape[dim] = index.shape[dim]
        flat_index = index.reshape(-1)[: sshape[dim]]
        outs.append(x.index_add(dim, flat_index, src.reshape(-1)[: int(np.prod(sshape))].reshape(sshape)))
        for accumulate in (True, False):
            outs.append(t(case["base"]).index_put((t(case["picks"]),), t(case["v"]), accumulate=accumulate))
        cols = torch.nn.functional.unfold(t(case["img"]), *case["geometry"])
        outs += [cols, torch.nn.functional.fold(cols, case["hw"], *case["geometry"])]
        return outs

    record: dict[int, str] = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        record[threads] = digest(iter([torch_outputs(c) for c in cases()]))
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
