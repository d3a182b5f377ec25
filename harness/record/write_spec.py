"""The generator's spec of an op fixture, written to ``ops_spec.json`` for torch-free checks.

For every op: its call and cases; for every case: its params, its inputs (name and key: the
inputs come from NumPy with fixed seeds, so their bits are part of the spec) and its outputs
(name, dtype and shape). ``harness.store.spec`` checks fixtures against the JSON without
importing torch; ``python -m harness.record.write_spec`` rewrites it after the ops change, and
a test requires it to match this module.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

from harness.record.torch_ops import OPS
from harness.store.hdf5 import TensorKey
from harness.store.spec import OPS_SPEC_PATH


def build_ops_spec() -> dict[str, Any]:
    ops: list[dict[str, Any]] = []
    for op in OPS:
        cases = []
        for case in op.cases:
            params = dict(case.params)
            inputs = op.make_inputs(dict(params))
            tensors = {name: torch.from_numpy(arr.copy()) for name, arr in inputs.items()}
            outputs = {name: t.detach().numpy() for name, t in op.run(dict(params), tensors).items()}
            cases.append(
                {
                    "name": case.name,
                    "params": params,
                    "inputs": [[name, TensorKey.of(arr).text] for name, arr in inputs.items()],
                    "outputs": [[name, np.dtype(arr.dtype).name, list(arr.shape)] for name, arr in outputs.items()],
                }
            )
        ops.append({"name": op.name, "call": op.call, "cases": cases})
    return {"ops": ops}


def render(spec: dict[str, Any]) -> str:
    """One op header and one case per line, so a change to the ops shows as a readable diff."""
    lines = ['{"ops": [']
    for i, op in enumerate(spec["ops"]):
        head = json.dumps({"name": op["name"], "call": op["call"]})
        lines.append(f' {head[:-1]}, "cases": [')
        cases = [json.dumps(case, sort_keys=True) for case in op["cases"]]
        lines += [f"  {c}," for c in cases[:-1]] + [f"  {cases[-1]}"]
        lines.append(" ]}" + ("," if i < len(spec["ops"]) - 1 else ""))
    return "\n".join([*lines, "]}"]) + "\n"


def main() -> int:
    Path(OPS_SPEC_PATH).write_text(render(build_ops_spec()), encoding="utf-8")
    print(f"wrote {OPS_SPEC_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
