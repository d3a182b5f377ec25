"""The walk to the root cause through a code path that differs: the two runs ran other ops (another
number of masked rows, another expert for a token), and behind them lies what made them part.

Each program is traced twice under both recorders (another NumPy seed, or 1 and 2 threads), as in
test_trace_host_data.py; the hand-made traces of the same walk are in test_trace_reach.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main

_MASKED = """\
import os

import numpy as np
import torch

np.random.seed(int(os.environ["MASK_SEED"]))
rows = torch.tensor(np.random.rand(16) > 0.5)  # the rows a SpecAugment-like mask keeps
w = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 4))
h = torch.arange(64, dtype=torch.float32).reshape(16, 4) * w
kept = h[rows].sum(0)  # another number of rows: other shapes, other ops
loss = (kept * kept).mean()
loss.backward()
torch.optim.SGD([w], lr=0.1).step()
"""

_ROUTED = """\
import struct
from pathlib import Path

import numpy as np
import torch

x = torch.from_numpy(np.random.default_rng(5).standard_normal(300_001).astype(np.float32))
bar = struct.unpack("<f", bytes.fromhex(Path(__file__).with_name("bar").read_text()))[0]
h = torch.from_numpy(np.arange(32, dtype=np.float32).reshape(8, 4) / 32)
experts = [torch.nn.Parameter(torch.full((4, 4), 0.1 * (e + 1))) for e in range(2)]
gate = torch.zeros(8, 2)
gate[1::2, 1] = 1.0
gate[0, 1] = x.sum() - bar  # token 0 goes to expert 1 where the long sum passes the bar
choice = gate.argmax(-1)  # top-1 routing
out = torch.zeros(8, 4)
for e, w in enumerate(experts):
    idx = (choice == e).nonzero().squeeze(1)
    out = out.index_add(0, idx, h[idx] @ w)
loss = out.square().sum()
loss.backward()
torch.optim.SGD(experts, lr=0.1).step()
"""

_DECIDED = """\
import os

import numpy as np
import torch

seed = int(os.environ["MASK_SEED"])
if os.environ["ROWS_FROM"] == "item":  # the program reads a tensor back (.item()) and keeps that many rows
    n = int(torch.tensor(np.full(4, seed, dtype=np.float32)).sum().item()) % 3 + 1
else:  # it keeps as many rows as NumPy drew: data no traced op saw
    n = int(np.random.default_rng(seed).integers(1, 4))
w = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 4))
h = torch.arange(16, dtype=torch.float32).reshape(4, 4) * w
kept = h[:n].sum(0)
loss = (kept * kept).mean()
loss.backward()
"""


def _traces(tmp_path: Path, source: str, envs: list[dict[str, str]]) -> list[Path]:
    program = tmp_path / "program.py"
    program.write_text(source)
    out = []
    for k, env in enumerate(envs):
        trace = tmp_path / f"run{k}.h5"
        proc = subprocess.run([sys.executable, "-m", "harness.trace.run", "--out", str(trace), "--", str(program)],
                              env={**os.environ, **env}, capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        out.append(trace)
    return out


def _diff(tmp_path: Path, traces: list[Path], *extra: str) -> dict[str, Any]:
    report = tmp_path / "d.json"
    assert main(["diff", *map(str, traces), *extra, "--format", "json", "--output", str(report)]) == 1
    return json.loads(report.read_text())


def _steps(root: dict[str, Any]) -> list[str]:
    """A root's path: each op's packet name, a code path as "code-path"."""
    return [o["kind"] if o.get("kind") == "code-path" else o["op"].split(".")[1] for o in root["path"]]


def test_a_mask_that_keeps_other_rows_is_reached_through_the_code_path(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seeds 0 and 1 keep 10 and 7 rows: the sums of the kept rows (and the gradient's index_put)
    are not aligned; the walk goes through them to the index that read the mask, then the mask's
    lift_fresh: the one root, no input unresolved."""
    pytest.importorskip("torch")
    data = _diff(tmp_path, _traces(tmp_path, _MASKED, [{"MASK_SEED": "0"}, {"MASK_SEED": "1"}]))
    capsys.readouterr()
    reach = data["reach"]
    assert data["summary"]["only_a"] > 0 and reach["unresolved"] == []
    (root,) = reach["root_causes"]
    site = f"{tmp_path}/program.py:7"
    assert (root["op"], root["kind"], root["site"]) == ("aten.lift_fresh.default", "host-data", site)
    steps = _steps(root)
    assert "code-path" in steps and steps[steps.index("code-path") - 1] == "index"
    step = root["path"][steps.index("code-path")]
    assert step["a_ops"] and step["b_ops"] and step["decided"] is None
    assert step["text"].startswith("a code path that differs (A's ops ")


def test_a_router_whose_choice_flips_with_the_thread_count_is_reached_through_the_experts_ops(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The long sum's bits differ at 1 and 2 threads, and a bar between them sends token 0 to the
    other expert: every op of the experts is unaligned. The walk goes through them to nonzero, eq,
    argmax and the gate to the sum: a kernel root, thread count, which the impl verifies."""
    torch = pytest.importorskip("torch")
    import numpy as np

    x = torch.from_numpy(np.random.default_rng(5).standard_normal(300_001).astype(np.float32))
    threads = torch.get_num_threads()
    sums = []
    try:
        for count in (1, 2):
            torch.set_num_threads(count)
            sums.append(float(x.sum()))
    finally:
        torch.set_num_threads(threads)
    assert sums[0] != sums[1]  # the premise: the sum's bits depend on the thread count
    (tmp_path / "bar").write_text(np.float32(sum(sums) / 2).tobytes().hex())
    traces = _traces(tmp_path, _ROUTED, [{"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "2"}])
    data = _diff(tmp_path, traces, "--verify-cause")
    capsys.readouterr()
    reach = data["reach"]
    assert reach["unresolved"] == []
    (root,) = reach["root_causes"]
    assert (root["op"], root["kind"], root["knob"]) == ("aten.sum.default", "kernel", "intra-op thread count")
    assert root["verified"], root["verification"]
    steps = _steps(root)
    assert steps[: steps.index("code-path") + 1] == ["sum", "sub", "copy_", "argmax", "eq", "nonzero", "code-path"]


@pytest.mark.parametrize("rows_from", ["item", "numpy"])
def test_rows_kept_by_a_value_read_back_are_walked_from_it_and_by_numpy_alone_stay_unresolved(
    tmp_path: Path, backend: str, rows_from: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``.item()`` of a tensor of host data decides how many rows the sum keeps: the root is that
    tensor's lift_fresh, reached through the code path the value read back decided. Where NumPy
    alone decides, nothing the trace holds differs behind the code path: unresolved, saying so."""
    pytest.importorskip("torch")
    envs = [{"MASK_SEED": seed, "ROWS_FROM": rows_from} for seed in ("0", "1")]
    data = _diff(tmp_path, _traces(tmp_path, _DECIDED, envs))
    capsys.readouterr()
    reach = data["reach"]
    if rows_from == "numpy":
        assert reach["root_causes"] == [] and reach["unresolved"]
        assert all("the paths part on data the trace does not hold" in u for u in reach["unresolved"])
        return
    assert reach["unresolved"] == []
    (root,) = reach["root_causes"]
    assert (root["op"], root["kind"]) == ("aten.lift_fresh.default", "host-data")
    steps = _steps(root)
    at = steps.index("code-path")
    assert steps[0] == "lift_fresh" and steps[at - 2 : at] == ["sum", "_local_scalar_dense"]
    step = root["path"][at]
    assert step["decided"]["op"] == "aten._local_scalar_dense.default" and "handed a value that differs" in step["text"]
