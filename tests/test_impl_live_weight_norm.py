"""Live parity of harness.impl.rows' weight_norm: torch._weight_norm_interface and its backward, run
now, against the impl, bit for bit, in a fresh interpreter per x86 ATen capability this CPU has
(ATEN_CPU_CAPABILITY pinned: default, avx2, avx512) and at 1 to 4 threads.

Shapes are 2-D to 4-D with the normed dim first or last, sizes around the 8-lane vectors (the rows or
columns 1..70 long) and row counts from 1 (the parallel_for body inline) to many (split over the
threads: the last dim's per-thread sums).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from harness.core.errors import ParityError
from harness.impl import rows
from harness.impl.profiles import get_profile
from harness.platform.config import collect_facts, supported_levels
from tests.impl_live import assert_bits_equal, live_profile, needs_verified_profile, normal32, use_threads

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

CASES = 48  # random shapes per capability, each at 1..4 threads


def _shape(rng: np.random.Generator) -> tuple[tuple[int, ...], int]:
    nd = int(rng.integers(2, 5))
    shape = [int(rng.integers(1, 5)) for _ in range(nd)]
    dim = 0 if rng.random() < 0.5 else nd - 1
    shape[dim] = int(rng.integers(1, 71))  # the normed slices' count
    other = nd - 1 - dim  # the other end: 1..70 long, or a single element
    shape[other] = int(rng.choice([1, int(rng.integers(1, 71)), int(rng.integers(1, 17))]))
    return tuple(shape), dim


def check(seed: int, cases: int, threads: tuple[int, ...]) -> int:
    """Compare ``cases`` random shapes at each thread count under the running capability; the count
    of exact cases (an AssertionError names the first that is not)."""
    rng = np.random.default_rng(seed)
    exact = 0
    for _ in range(cases):
        shape, dim = _shape(rng)
        g_shape = tuple(n if i == dim else 1 for i, n in enumerate(shape))
        v, g, gw = normal32(rng, shape), normal32(rng, g_shape), normal32(rng, shape)
        for t in threads:
            use_threads(t)
            tv, tg = torch.from_numpy(v.copy()), torch.from_numpy(g.copy())
            w_t, norm_t = torch._weight_norm_interface(tv, tg, dim)
            gv_t, gg_t = torch.ops.aten._weight_norm_interface_backward(
                torch.from_numpy(gw.copy()), tv, tg, norm_t, dim
            )
            profile = live_profile()
            where = f"{profile.name} t{t} shape {shape} dim {dim}"
            w, norm = rows.weight_norm(v, g, dim, profile)
            assert_bits_equal(f"{where}: norm", norm_t.numpy(), norm)
            assert_bits_equal(f"{where}: w", w_t.numpy(), w)
            gv, gg = rows.weight_norm_backward(gw, v, g, norm, dim, profile)
            assert_bits_equal(f"{where}: grad_v", gv_t.numpy(), gv)
            assert_bits_equal(f"{where}: grad_g", gg_t.numpy(), gg)
            exact += 1
    return exact


ROOT = Path(__file__).resolve().parents[1]
LEVELS = [lvl for lvl in supported_levels(collect_facts()) if lvl.arch == "x86_64"]


def _child() -> None:
    """In a fresh interpreter (this level's capability pinned): the JSON count of exact cases."""
    print(
        json.dumps(
            {
                "capability": torch.backends.cpu.get_cpu_capability(),
                "exact": check(int(sys.argv[1]), CASES, (1, 2, 3, 4)),
            }
        )
    )


@pytest.mark.parametrize("level", LEVELS, ids=[lvl.name for lvl in LEVELS])
def test_weight_norm_per_level(level) -> None:
    """CASES random shapes, each at 1, 2, 3 and 4 threads, in a fresh process per x86 level this CPU runs."""
    env = {k: v for k, v in os.environ.items() if k not in level.env}
    env.update(level.env)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    code = "from tests.test_impl_live_weight_norm import _child; _child()"
    run = subprocess.run(
        [sys.executable, "-c", code, str(sum(map(ord, level.name)))], capture_output=True, text=True, timeout=600,
        check=False, cwd=ROOT, env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["capability"].lower() == level.env["ATEN_CPU_CAPABILITY"]
    assert report["exact"] == 4 * CASES


def test_weight_norm_wav2vec2_shape() -> None:
    """The positional convolution of Wav2Vec2 (weight_norm(conv, dim=2)): weight (32, 8, 8), the last dim
    normed, at 1 and 2 threads in this interpreter."""
    rng = np.random.default_rng(3)
    v, g, gw = normal32(rng, (32, 8, 8), 0.2), normal32(rng, (1, 1, 8)), normal32(rng, (32, 8, 8))
    for t in (1, 2):
        use_threads(t)
        tv, tg = torch.from_numpy(v.copy()), torch.from_numpy(g.copy())
        w_t, norm_t = torch._weight_norm_interface(tv, tg, 2)
        gv_t, gg_t = torch.ops.aten._weight_norm_interface_backward(torch.from_numpy(gw.copy()), tv, tg, norm_t, 2)
        w, norm = rows.weight_norm(v, g, 2, live_profile())
        gv, gg = rows.weight_norm_backward(gw, v, g, norm, 2, live_profile())
        for name, want, got in (("w", w_t, w), ("norm", norm_t, norm), ("grad_v", gv_t, gv), ("grad_g", gg_t, gg)):
            assert_bits_equal(f"t{t} {name}", want.numpy(), got)


def test_weight_norm_threads_change_last_dim_bits() -> None:
    """The last dim's per-thread column sums: 1 and 2 threads give different norms on some column
    (the reason a trace's threads knob reaches this op), the first dim's rows do not."""
    rng = np.random.default_rng(5)
    v, g = normal32(rng, (64, 70)), normal32(rng, (1, 70))
    one, two = (rows.weight_norm(v, g, 1, get_profile("x86-avx2", t))[1] for t in (1, 2))
    assert not np.array_equal(one.view(np.uint32), two.view(np.uint32))
    first = [rows.weight_norm(v.T.copy(), g.T.copy(), 0, get_profile("x86-avx2", t))[1] for t in (1, 2)]
    assert np.array_equal(first[0].view(np.uint32), first[1].view(np.uint32))


@pytest.mark.parametrize("dim", [1, -1])
def test_weight_norm_refuses_middle_dims(dim: int) -> None:
    v, g = np.ones((4, 3, 2), np.float32), np.ones((1, 3, 1), np.float32)
    with pytest.raises(ParityError, match="dim 0 or the last dim"):
        rows.weight_norm(v, g, dim, get_profile("x86-avx2"))


@pytest.mark.parametrize("name", ["arm64-neon", "arm64-sve128", "arm64-sve256"])
def test_weight_norm_refuses_arm64(name: str) -> None:
    v, g = np.ones((4, 3), np.float32), np.ones((4, 1), np.float32)
    with pytest.raises(ParityError, match="_weight_norm_interface"):
        rows.weight_norm(v, g, 0, get_profile(name))
    with pytest.raises(ParityError, match="_weight_norm_interface"):
        rows.weight_norm_backward(v, v, g, g, 0, get_profile(name))
