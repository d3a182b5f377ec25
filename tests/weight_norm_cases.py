"""Random weight_norm cases, torch against the impl, for tests/test_impl_live_weight_norm.py; imported by
its fresh interpreter per x86 level too, so it imports only torch, NumPy and the impl.

Shapes are 2-D to 4-D with the kept dim first or last, 1..70 slices, the other end 1..70 long or a
single element, so rows and columns fall around the 8-lane vectors and the last dim's row counts
range from 1 (the parallel_for body inline) to hundreds (split over the threads); a quarter of the
cases have zero slices (norm 0, NaNs in w and the gradients).
"""

from __future__ import annotations

import json
import platform
import sys

import numpy as np
import torch

from harness.core.ulp import compare_tensors, describe
from harness.impl import rows
from harness.impl.profiles import profile_for_capability

CASES = 48  # random shapes per level, each at 1..4 threads


def shape_and_dim(rng: np.random.Generator) -> tuple[tuple[int, ...], int]:
    nd = int(rng.integers(2, 5))
    shape = [int(rng.integers(1, 5)) for _ in range(nd)]
    dim = 0 if rng.random() < 0.5 else nd - 1
    shape[dim] = int(rng.integers(1, 71))  # the normed slices' count
    other = nd - 1 - dim
    shape[other] = int(rng.choice([1, int(rng.integers(1, 71)), int(rng.integers(1, 17))]))
    return tuple(shape), dim


def zero_slices(rng: np.random.Generator, v: np.ndarray, g: np.ndarray, dim: int) -> None:
    """Zero about a third of v's slices at ``dim`` (norm 0: g/0 = inf, w = 0*inf, the default NaN) and
    g too at half of those (0/0)."""
    for j in np.flatnonzero(rng.random(v.shape[dim]) < 0.3):
        np.moveaxis(v, dim, 0)[j] = 0.0
        if rng.random() < 0.5:
            g.reshape(-1)[j] = 0.0


def _bits_equal(name: str, expected: np.ndarray, actual: np.ndarray) -> None:
    assert expected.shape == actual.shape and expected.dtype == actual.dtype, name
    c = compare_tensors(name, expected, actual)
    assert c.bit_identical, describe(c)


def check(seed: int, cases: int, threads: tuple[int, ...]) -> int:
    """``cases`` random shapes at each thread count under the running capability, forward and backward;
    the count of exact (shape, thread count) pairs (an AssertionError names the first that is not)."""
    rng = np.random.default_rng(seed)
    exact = 0
    for _ in range(cases):
        shape, dim = shape_and_dim(rng)
        g_shape = tuple(n if i == dim else 1 for i, n in enumerate(shape))
        v, g, gw = (rng.standard_normal(s).astype(np.float32) for s in (shape, g_shape, shape))
        if rng.random() < 0.25:
            zero_slices(rng, v, g, dim)
        for t in threads:
            torch.set_num_threads(t)
            tv, tg = torch.from_numpy(v.copy()), torch.from_numpy(g.copy())
            w_t, norm_t = torch._weight_norm_interface(tv, tg, dim)
            gv_t, gg_t = torch.ops.aten._weight_norm_interface_backward(
                torch.from_numpy(gw.copy()), tv, tg, norm_t, dim
            )
            profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), t, platform.machine())
            where = f"{profile.name} t{t} shape {shape} dim {dim}"
            w, norm = rows.weight_norm(v, g, dim, profile)
            gv, gg = rows.weight_norm_backward(gw, v, g, norm, dim, profile)
            for name, want, got in (("norm", norm_t, norm), ("w", w_t, w), ("grad_v", gv_t, gv), ("grad_g", gg_t, gg)):
                _bits_equal(f"{where}: {name}", want.numpy(), got)
            exact += 1
    return exact


if __name__ == "__main__":  # python -m tests.weight_norm_cases SEED [CASES]: a JSON report
    count = int(sys.argv[2]) if len(sys.argv) > 2 else CASES
    capability = torch.backends.cpu.get_cpu_capability()
    print(json.dumps({"capability": capability, "cases": count, "exact": check(int(sys.argv[1]), count, (1, 2, 3, 4))}))
