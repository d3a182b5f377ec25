"""Live parity of the impl's MKL_CBWR=COMPATIBLE model: torch under MKL_CBWR=COMPATIBLE against the impl.

MKL reads MKL_CBWR once, at its first call (not when torch is imported: a process that sets the
variable after `import torch` but before any MKL call runs COMPATIBLE, one that sets it later does
not, and torch exports no mkl_cbwr_set), so torch runs in a fresh process started with
MKL_CBWR=COMPATIBLE (MKL_DYNAMIC and OMP_DYNAMIC off), which sets a thread count drawn from 1 to 16
before each product and writes its products and VML results for this process to compare with the
impl (`KernelProfile.with_cbwr`, `with_threads`). Random shapes around the kernels' switches
(single rows and columns, 8 rows and columns, rows past a multiple of 4, columns past a multiple of
8, K below and past 8 and the 112-long blocks), every operand layout, mm, addmm (beta = 1) and
bmm, and exp, log, tanh and sqrt on random floats; then addmm and baddbmm with alpha not a power
of two (0.3, 0.7, 1.5, -0.1), which each kernel applies in its own place. Needs MKL's generic path
as on the fixtures' AMD host (tests.impl_live)."""

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

out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
scaled = len(sys.argv) > 4 and sys.argv[4] == "alpha"  # alpha from 0.3, 0.7, 1.5, -0.1; beta 0 or 1
rng = np.random.default_rng(seed)
res = {}
dims = lambda: int(rng.choice([1, rng.integers(1, 20), rng.integers(20, 80), rng.integers(80, 300)]))
spans = ((1, 9), (9, 40), (40, 200), (180, 700))
depth = lambda: int(rng.choice([rng.integers(lo, hi) for lo, hi in spans]))
for i in range(count):
    threads = int(rng.integers(1, 17))
    torch.set_num_threads(threads)
    m, n, k = dims(), dims(), depth()
    ta, tb, bias = (bool(rng.integers(2)) for _ in range(3))
    nb = int(rng.integers(2, 9)) if rng.integers(4) == 0 else 0
    lead = (nb,) if nb else ()
    a = rng.standard_normal(lead + ((k, m) if ta else (m, k)), dtype=np.float32)
    b = rng.standard_normal(lead + ((n, k) if tb else (k, n)), dtype=np.float32)
    c = rng.standard_normal(n, dtype=np.float32)
    A, B = torch.from_numpy(a), torch.from_numpy(b)
    A, B = (A.transpose(-1, -2) if ta else A), (B.transpose(-1, -2) if tb else B)
    alpha = float(rng.choice([0.3, 0.7, 1.5, -0.1])) if scaled else 1.0
    beta = float(bias) if scaled else 1.0
    if nb and scaled:
        got = torch.baddbmm(torch.zeros(nb, m, n), A, B, beta=0, alpha=alpha)
    elif nb:
        got = torch.bmm(A, B)
    elif scaled:
        got = torch.addmm(torch.from_numpy(c), A, B, beta=beta, alpha=alpha)
    else:
        got = torch.addmm(torch.from_numpy(c), A, B) if bias else torch.mm(A, B)
    flags = np.array([ta, tb, (bias or scaled) and not nb, threads, alpha, beta])
    res.update({f"{i}/a": a, f"{i}/b": b, f"{i}/c": c, f"{i}/flags": flags, f"{i}/out": got.numpy()})
torch.set_num_threads(1)
x = rng.standard_normal(1 << 16, dtype=np.float32) * 8
res["x"] = x
for name in ("exp", "tanh"):
    res[name] = getattr(torch, name)(torch.from_numpy(x)).numpy()
for name in ("log", "sqrt"):
    res[name] = getattr(torch, name)(torch.from_numpy(np.abs(x) + np.float32(1e-3))).numpy()
np.savez(out, **res)
"""


def _torch_under_cbwr(tmp_path: Path, count: int, seed: int = 20260, mode: str = "one") -> dict[str, np.ndarray]:
    out = tmp_path / f"cbwr-{seed}.npz"
    env = {**os.environ, "MKL_CBWR": "COMPATIBLE", "MKL_DYNAMIC": "FALSE", "OMP_DYNAMIC": "FALSE"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(out), str(count), str(seed), mode],
        env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return dict(np.load(out))


def _compare_products(res: dict[str, np.ndarray], count: int) -> tuple[list[str], set[int], set[float]]:
    """The impl's product for each of the child's, against torch's bits: (differing, threads, alphas)."""
    base = live_profile()
    failed, threads_seen, alphas = [], set(), set()
    for i in range(count):
        a, b, c = res[f"{i}/a"], res[f"{i}/b"], res[f"{i}/c"]
        ta, tb, bias, threads = (int(v) for v in res[f"{i}/flags"][:4])
        alpha, beta = (float(v) for v in res[f"{i}/flags"][4:])
        nb = a.shape[0] if a.ndim == 3 else 0
        A, B = (np.swapaxes(a, -1, -2) if ta else a), (np.swapaxes(b, -1, -2) if tb else b)
        profile = base.with_threads(threads).with_cbwr("COMPATIBLE")
        if nb:
            got = linalg.bmm(A, B, profile, alpha=alpha)
        else:
            got = linalg.addmm(c, A, B, profile, alpha=alpha, beta=beta) if bias else linalg.mm(A, B, profile)
        threads_seen.add(threads)
        alphas.add(alpha)
        if not np.array_equal(got.view(np.uint32), res[f"{i}/out"].view(np.uint32)):
            failed.append(f"{list(A.shape)}@{list(B.shape)} ta={ta} tb={tb} alpha={alpha} beta={beta} T={threads}")
    return failed, threads_seen, alphas


@needs_modelled_mkl
@needs_verified_profile
def test_products_under_cbwr_compatible(tmp_path: Path) -> None:
    """Random mm, addmm and bmm under MKL_CBWR=COMPATIBLE, each at a thread count drawn from 1 to 16:
    shapes with single rows and columns, tails past multiples of 4 and 8, K past 8 and the 112-long
    blocks, all four operand layouts; the impl's bits must be torch's."""
    count = 400
    res = _torch_under_cbwr(tmp_path, count)
    failed, threads_seen, _ = _compare_products(res, count)
    assert len(threads_seen) >= 12, sorted(threads_seen)
    assert not failed, f"{len(failed)} of {count} products differ: {failed[:8]}"


@needs_modelled_mkl
@needs_verified_profile
def test_alpha_not_a_power_of_two_under_cbwr_compatible(tmp_path: Path) -> None:
    """torch.addmm (beta 0 or 1) and torch.baddbmm (beta 0) with alpha 0.3, 0.7, 1.5 or -0.1 under
    MKL_CBWR=COMPATIBLE, shapes and threads as above: alpha scales B's element in the main kernel,
    A's in the chains from beta*C (B's down a single column), and the sums of the dot, gemv and
    transposed chains, so that one placement for all (a*(alpha*b), the model before) differs by up to
    thousands of ULP; the impl's bits must be torch's."""
    count = 300
    res = _torch_under_cbwr(tmp_path, count, seed=20261, mode="alpha")
    failed, threads_seen, alphas = _compare_products(res, count)
    assert alphas == {0.3, 0.7, 1.5, -0.1} and len(threads_seen) >= 12, (sorted(alphas), sorted(threads_seen))
    assert not failed, f"{len(failed)} of {count} products differ: {failed[:8]}"


@needs_modelled_mkl
@needs_verified_profile
def test_vml_under_cbwr_compatible_is_the_generic_paths(tmp_path: Path) -> None:
    """On the AMD host MKL_CBWR=COMPATIBLE leaves VML's exp, log, tanh and sqrt as the generic path's
    (sqrt with the CPU's own rsqrtps estimate: AMD's table)."""
    res = _torch_under_cbwr(tmp_path, 0)
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
