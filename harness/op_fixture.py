"""Op fixtures: the recorded inputs and outputs of the 26 ops, one file per configuration.

Layout inside the store (see ``harness.store``)::

    /ops/<op>                    attrs: call
    /ops/<op>/<case>             attrs: params (JSON), deterministic
    /ops/<op>/<case>/inputs/*    stored inputs (including the upstream gradient grad_out)
    /ops/<op>/<case>/outputs/*   forward output ``out`` and gradients ``grad_<input>``

The root attribute ``input_digest`` identifies the input set: two fixtures with the same
input digest were recorded from the same inputs and can be compared tensor by tensor.
This module never imports torch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import FixtureError
from harness.store import FixtureReader, FixtureWriter, json_attr, tensor_digest

KIND = "ops"
ROOT = "ops"


@dataclass
class CaseRecord:
    op: str
    case: str
    params: dict[str, Any]
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    deterministic: bool = True
    call: str = ""

    @property
    def key(self) -> str:
        return f"{self.op}/{self.case}"


@dataclass
class OpFixture:
    path: Path
    attrs: dict[str, Any]
    cases: dict[str, CaseRecord] = field(default_factory=dict)  # keyed by "op/case"

    @property
    def provenance(self) -> dict[str, Any]:
        return self.attrs.get("provenance", {})

    @property
    def ops(self) -> list[str]:
        return list(dict.fromkeys(c.op for c in self.cases.values()))


def input_digest(records: list[CaseRecord]) -> str:
    """SHA-256 over every case's params and input tensors, in a canonical order."""
    h = hashlib.sha256()
    for rec in sorted(records, key=lambda r: (r.op, r.case)):
        h.update(json_attr([rec.op, rec.case, rec.params]).encode())
        for name in sorted(rec.inputs):
            arr = rec.inputs[name]
            h.update(json_attr([name, list(arr.shape), arr.dtype.name, tensor_digest(arr)]).encode())
    return h.hexdigest()


def write_op_fixture(
    path: str | Path, provenance: dict[str, Any], records: list[CaseRecord], *, force: bool = False
) -> int:
    """Write an op fixture atomically; returns the bytes of distinct tensor data written."""
    for rec in records:
        for name in (rec.op, rec.case, *rec.inputs, *rec.outputs):
            if not name or "/" in name or name in (".", ".."):
                raise ValueError(f"'{name}' cannot be a name in a fixture (no '/', not empty)")
    with FixtureWriter(path, KIND, force=force) as writer:
        writer.set_attrs(
            "/",
            {
                "provenance": provenance,
                "torch_version": provenance.get("torch_version", ""),
                "platform_id": provenance.get("platform_id", ""),
                "input_digest": input_digest(records),
                "ops": list(dict.fromkeys(r.op for r in records)),
            },
        )
        for rec in records:
            group = f"{ROOT}/{rec.key}"
            for name, arr in rec.inputs.items():
                writer.put(f"{group}/inputs", name, arr)
            for name, arr in rec.outputs.items():
                writer.put(f"{group}/outputs", name, arr)
            writer.set_attrs(f"{ROOT}/{rec.op}", {"call": rec.call})
            writer.set_attrs(group, {"params": rec.params, "deterministic": bool(rec.deterministic)})
        return writer.bytes_written


def _case_from(reader: FixtureReader, op: str, case: str, *, load: bool) -> CaseRecord:
    group = f"{ROOT}/{op}/{case}"
    attrs = reader.attrs(group)
    if "params" not in attrs or "deterministic" not in attrs:
        raise FixtureError(reader.path, f"damaged fixture: {group} lacks its params or determinism flag")
    tensors: dict[str, dict[str, np.ndarray]] = {"inputs": {}, "outputs": {}}
    for part in tensors:
        if not reader.has(f"{group}/{part}"):
            if part == "outputs":
                raise FixtureError(reader.path, f"damaged fixture: {group} has no outputs")
            continue
        if load:
            tensors[part] = dict(reader.iter_tensors(f"{group}/{part}"))
        else:
            tensors[part] = {n: np.empty(0) for n in reader.children(f"{group}/{part}")}
    return CaseRecord(
        op,
        case,
        dict(attrs["params"]),
        tensors["inputs"],
        tensors["outputs"],
        bool(attrs["deterministic"]),
        str(reader.attrs(f"{ROOT}/{op}").get("call", "")),
    )


def read_op_fixture(path: str | Path, *, load: bool = True, ops: list[str] | None = None) -> OpFixture:
    """Read (and verify the digests of) an op fixture; ``load=False`` reads structure only."""
    with FixtureReader(path, kind=KIND) as reader:
        attrs = reader.attrs("/")
        for key in ("provenance", "input_digest", "torch_version", "platform_id"):
            if key not in attrs:
                raise FixtureError(reader.path, f"damaged fixture: root attribute '{key}' is missing")
        fixture = OpFixture(Path(path), attrs)
        for op in reader.children(ROOT):
            if ops is not None and op not in ops:
                continue
            for case in reader.children(f"{ROOT}/{op}"):
                rec = _case_from(reader, op, case, load=load)
                fixture.cases[rec.key] = rec
        return fixture
