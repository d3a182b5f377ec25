"""Live parity of harness.impl.rows' weight_norm: torch._weight_norm_interface and its backward, run
now, against the impl, bit for bit: random shapes (tests/weight_norm_cases.py) in a fresh interpreter
per x86 level this CPU runs (ATEN_CPU_CAPABILITY pinned: default, avx2, avx512) at 1 to 4 threads;
the replays of a trace of torch.nn.utils.parametrizations.weight_norm; the refusals.
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
from tests.weight_norm_cases import CASES

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

ROOT = Path(__file__).resolve().parents[1]
LEVELS = [lvl for lvl in supported_levels(collect_facts()) if lvl.arch == "x86_64"]


@pytest.mark.parametrize("level", LEVELS, ids=[lvl.name for lvl in LEVELS])
def test_weight_norm_per_level(level) -> None:
    """CASES random shapes, each at 1, 2, 3 and 4 threads, in a fresh process per x86 level this CPU runs."""
    env = {k: v for k, v in os.environ.items() if k not in level.env}
    env.update(level.env)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    seed = str(sum(map(ord, level.name)))
    cmd = [sys.executable, "-m", "tests.weight_norm_cases", seed]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False, cwd=ROOT, env=env)
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


@pytest.mark.parametrize("backend", ["dispatcher-hook", "dispatch-mode"])
@pytest.mark.parametrize("threads", [1, 3])
def test_weight_norm_replays_from_a_trace(backend: str, threads: int) -> None:
    """torch.nn.utils.parametrizations.weight_norm on a grouped Conv1d (as Wav2Vec2's positional
    convolution: dim 2, the last, and dim 0) and on a Linear (dim 0, dim 1 = the last), traced forward
    and backward: every _weight_norm_interface and its backward, replayed, gives the traced bits."""
    from torch.nn.utils.parametrizations import weight_norm

    from tests.test_impl_live_traced import _replays_match

    use_threads(threads)
    torch.manual_seed(threads)
    layers = [
        weight_norm(torch.nn.Conv1d(32, 32, 8, padding=4, groups=4), name="weight", dim=2),
        weight_norm(torch.nn.Conv1d(12, 20, 3), name="weight", dim=0),
        weight_norm(torch.nn.Linear(37, 19), name="weight", dim=0),
        weight_norm(torch.nn.Linear(37, 19), name="weight", dim=1),
    ]
    inputs = [torch.randn(2, 32, 16), torch.randn(2, 12, 9), torch.randn(5, 37), torch.randn(5, 37)]

    def program() -> None:
        sum(layer(x).square().sum() for layer, x in zip(layers, inputs, strict=True)).backward()

    _replays_match(backend, program, {"_weight_norm_interface", "_weight_norm_interface_backward"}, 8)


@pytest.mark.parametrize("backend", ["dispatcher-hook", "dispatch-mode"])
@pytest.mark.parametrize("threads", [1, 3])
def test_composite_weight_norm_replays_its_norm(backend: str, threads: int) -> None:
    """A middle dim, or ``dim=None`` (the whole tensor), takes ATen's composite weight_norm, which a trace
    records as ``norm`` (p = 2), ``div`` and ``mul``: every ``norm``, and ``linalg_vector_norm`` called
    alike, replayed, gives the traced bits (shapes with rows off the 8 lanes and above the grain)."""
    from torch.nn.utils.parametrizations import weight_norm

    from tests.test_impl_live_traced import _replays_match

    use_threads(threads)
    torch.manual_seed(threads)
    shapes = ((8, 6, 3), (41, 30, 7), (70, 40, 13))
    layers = [weight_norm(torch.nn.Conv1d(c, o, k), name="weight", dim=d) for o, c, k in shapes for d in (1, None)]
    inputs = [torch.randn(2, c, 16) for _, c, _ in shapes for _ in (1, None)]

    def program() -> None:
        sum(layer(x).sum() for layer, x in zip(layers, inputs, strict=True)).backward()
        torch.linalg.vector_norm(inputs[2], 2, (0, 2), keepdim=True)

    _replays_match(backend, program, {"norm", "linalg_vector_norm"}, 7)


BACKWARD_ROOT = """import numpy as np
import torch

rng = np.random.default_rng(0)
v = torch.from_numpy(rng.standard_normal((40, 5)).astype(np.float32)).requires_grad_(True)
g = torch.from_numpy(rng.standard_normal((40, 1)).astype(np.float32)).requires_grad_(True)
w = torch._weight_norm(v, g, 0)
(w * torch.from_numpy(rng.standard_normal((40, 5)).astype(np.float32))).sum().backward()
r = v.grad * 1.5
"""


def test_avx2_vs_baseline_backward_root_cause_is_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rows of 5 (below the 8 lanes: the forward folds them in order on both builds, the same bits) make the
    backward the root cause: ``grad_v = fma(-b, v, a*grad_w)`` at avx2, two roundings at baseline.
    ``parity diff --verify-cause`` names it, knob capability, verified by the impl."""
    from harness.cli import main

    if not {"avx2", "baseline"} <= {level.name for level in LEVELS}:
        pytest.skip("needs a CPU with AVX2")
    script = tmp_path / "program.py"
    script.write_text(BACKWARD_ROOT, encoding="utf-8")
    traces = [tmp_path / f"{level}.h5" for level in ("avx2", "baseline")]
    for level, out in zip(("avx2", "baseline"), traces, strict=True):
        argv = ["trace", "--platform", f"linux-x86_64-{level}-t1", "--out", str(out)]
        assert main([*argv, "--", sys.executable, str(script)]) == 0
    report = tmp_path / "diff.json"
    assert main(["diff", *map(str, traces), "--verify-cause", "--output", str(report)]) == 1
    capsys.readouterr()
    root = json.loads(report.read_text(encoding="utf-8"))["root_cause"]
    assert (root["op"], root["knobs"]) == ("aten._weight_norm_interface_backward.default", ["capability"])
    assert root["verified"] is True, root["verification"]


@pytest.mark.parametrize("dim", [1, -1])
def test_weight_norm_refuses_middle_dims(dim: int) -> None:
    v, g = np.ones((4, 3, 2), np.float32), np.ones((1, 3, 1), np.float32)
    with pytest.raises(ParityError, match="dim 0 or the last dim"):
        rows.weight_norm(v, g, dim, get_profile("x86-avx2"))


def test_weight_norm_refuses_nan_inputs() -> None:
    """Which NaN torch's instructions pass on depends on their operand order (measured: most such cases
    differ from a plain C evaluation in payload or sign), so the impl refuses NaN inputs."""
    v, g = np.ones((4, 3), np.float32), np.ones((4, 1), np.float32)
    v[1, 2] = np.nan
    with pytest.raises(ParityError, match="NaNs"):
        rows.weight_norm(v, g, 0, get_profile("x86-avx2"))
    with pytest.raises(ParityError, match="NaNs"):
        rows.weight_norm_backward(v, np.ones_like(v), g, g, 0, get_profile("x86-avx2"))
