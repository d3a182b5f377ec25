"""Live parity of the impl's MKL_CBWR=COMPATIBLE model: torch under MKL_CBWR=COMPATIBLE against the impl.

MKL reads MKL_CBWR once, at its first call (not when torch is imported: a process that sets the
variable after `import torch` but before any MKL call runs COMPATIBLE, one that sets it later does
not, and torch exports no mkl_cbwr_set), so torch runs in a fresh process per thread count
started with MKL_CBWR=COMPATIBLE, which writes its products and VML results for this process to
compare with the impl (`KernelProfile.with_cbwr`). Random shapes around the kernels' switches
(8 rows and columns, rows past a multiple of 4, columns past a multiple of 8, K past 8 and the
112-long blocks), every operand layout, with and without a bias (beta = 1), and exp, log, tanh and
sqrt on random floats. Needs MKL's generic path as on the fixtures' AMD host (tests.impl_live).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from harness.impl import linalg, optim, unary
from tests.impl_live import live_profile, needs_modelled_mkl, needs_verified_profile

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import sys
import numpy as np
import torch

threads, out = int(sys.argv[1]), sys.argv[2]
torch.set_num_threads(threads)
rng = np.random.default_rng(20260)
res = {}
dims = lambda: int(rng.choice([rng.integers(1, 20), rng.integers(20, 80)]))
depth = lambda: int(rng.choice([rng.integers(1, 40), rng.integers(40, 200), rng.integers(180, 700)]))
for i in range(int(sys.argv[3])):
    m, n, k = dims(), dims(), depth()
    ta, tb, bias = (bool(rng.integers(2)) for _ in range(3))
    a = rng.standard_normal((k, m) if ta else (m, k), dtype=np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n), dtype=np.float32)
    c = rng.standard_normal(n, dtype=np.float32)
    A, B = torch.from_numpy(a), torch.from_numpy(b)
    A, B = (A.t() if ta else A), (B.t() if tb else B)
    got = torch.addmm(torch.from_numpy(c), A, B) if bias else torch.mm(A, B)
    res.update({f"{i}/a": a, f"{i}/b": b, f"{i}/c": c, f"{i}/flags": np.array([ta, tb, bias]), f"{i}/out": got.numpy()})
x = rng.standard_normal(1 << 16, dtype=np.float32) * 8
res["x"] = x
for name in ("exp", "tanh"):
    res[name] = getattr(torch, name)(torch.from_numpy(x)).numpy()
for name in ("log", "sqrt"):
    res[name] = getattr(torch, name)(torch.from_numpy(np.abs(x) + np.float32(1e-3))).numpy()
np.savez(out, **res)
"""


def _torch_under_cbwr(tmp_path: Path, threads: int, count: int) -> dict[str, np.ndarray]:
    out = tmp_path / f"cbwr-t{threads}.npz"
    env = {**os.environ, "MKL_CBWR": "COMPATIBLE", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(threads), str(out), str(count)],
        env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return dict(np.load(out))


def cbwr_modelled(m: int, n: int, k: int, ta: bool, tb: bool, bias: bool) -> bool:
    """Whether the impl models MKL_CBWR=COMPATIBLE's kernels for this product on one thread
    (csrc/mkl_sgemm.h): not both operands stored transposed, nor, with B stored transposed, the
    corner where the last rows (M % 4) meet the last columns (N % 8) of a product with a main kernel,
    nor torch.addmm of a single column (seen once to differ)."""
    main = m >= 8 and n >= 8 and k >= 8
    return not (ta and tb) and not (tb and main and m % 4 and n % 8) and not (n == 1 and bias)


@needs_modelled_mkl
@needs_verified_profile
def test_products_under_cbwr_compatible(tmp_path: Path) -> None:
    """One thread (MKL's split between threads under COMPATIBLE is modelled only as far as the
    committed fixtures measured it: docs/impl/kernels.md)."""
    res = _torch_under_cbwr(tmp_path, 1, 160)
    profile = live_profile().with_threads(1).with_cbwr("COMPATIBLE")
    checked, failed = 0, []
    for i in range(160):
        a, b, c = res[f"{i}/a"], res[f"{i}/b"], res[f"{i}/c"]
        ta, tb, bias = (bool(v) for v in res[f"{i}/flags"])
        A, B = (a.T if ta else a), (b.T if tb else b)
        m, k, n = A.shape[0], A.shape[1], B.shape[1]
        if not cbwr_modelled(m, n, k, ta, tb, bias):
            continue
        got = linalg.addmm(c, A, B, profile) if bias else linalg.mm(A, B, profile)
        checked += 1
        if not np.array_equal(got.view(np.uint32), res[f"{i}/out"].view(np.uint32)):
            failed.append(f"{m}x{k}x{n} ta={ta} tb={tb} bias={bias}")
    assert checked >= 80 and not failed, f"{len(failed)} of {checked} products differ: {failed[:8]}"


@needs_modelled_mkl
@needs_verified_profile
def test_vml_under_cbwr_compatible_is_the_generic_paths(tmp_path: Path) -> None:
    """On the AMD host MKL_CBWR=COMPATIBLE leaves VML's exp, log, tanh and sqrt as the generic path's
    (sqrt with the CPU's own rsqrtps estimate: AMD's table)."""
    res = _torch_under_cbwr(tmp_path, 1, 0)
    profile = live_profile().with_cbwr("COMPATIBLE")
    x = res["x"]
    pos = np.abs(x) + np.float32(1e-3)
    got = {
        "exp": unary.forward("exp", x, profile),
        "tanh": unary.forward("tanh", x, profile),
        "log": unary.forward("log", pos, profile),
        "sqrt": optim.sqrt(pos),
    }
    for name, value in got.items():
        assert np.array_equal(value.view(np.uint32), res[name].view(np.uint32)), name


def _sum_of_product(when: str, cbwr: str) -> str:
    code = (
        "import os, sys, torch\n"
        "torch.manual_seed(0); a, b = torch.randn(100, 300), torch.randn(300, 80)\n"
        "if sys.argv[1] == 'late': torch.mm(a, b)\n"
        "os.environ['MKL_CBWR'] = 'COMPATIBLE'\n"
        "print(torch.mm(a, b).sum(dtype=torch.float64).item())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MKL_CBWR"}
    if cbwr:
        env["MKL_CBWR"] = cbwr
    run = subprocess.run([sys.executable, "-c", code, when], env=env, capture_output=True, text=True, check=True)
    return run.stdout


@needs_modelled_mkl
def test_mkl_reads_mkl_cbwr_at_its_first_call() -> None:
    """Set after `import torch` but before any MKL call, MKL_CBWR takes effect; set after one, it
    does not (so a test process that has run MKL needs a fresh process)."""
    compatible = _sum_of_product("early", "COMPATIBLE")
    assert _sum_of_product("early", "") == compatible
    assert _sum_of_product("late", "") != compatible
