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
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from harness.core.errors import FixtureError
from harness.core.op_ids import MODEL_OP_IDS
from harness.store import FixtureReader, FixtureWriter, json_attr, spec
from harness.store.hdf5 import TensorKey

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
    kind: ClassVar[str] = KIND
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
    return input_digest_of(
        (rec.op, rec.case, rec.params, {name: TensorKey.of(arr) for name, arr in rec.inputs.items()}) for rec in records
    )


def input_digest_of(cases: Iterable[tuple[str, str, Any, dict[str, TensorKey]]]) -> str:
    """The input digest from (op, case, params, input keys): recomputed from a fixture without reading data."""
    h = hashlib.sha256()
    for op, case, params, inputs in sorted(cases, key=lambda c: (c[0], c[1])):
        h.update(json_attr([op, case, params]).encode())
        for name in sorted(inputs):
            key = inputs[name]
            h.update(json_attr([name, list(key.shape), key.dtype, key.digest]).encode())
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


def case_tensor_names(op: str, params: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The input and output names a case of ``op`` with ``params`` records: the generator's, with
    the bias of ``linear`` and the parameters and steps of ``adamw_step`` as its params say; a model
    op's (random cases only) as harness/workloads/random_cases.py says."""
    if op in MODEL_OP_IDS:
        from harness.workloads.random_cases import model_tensor_names

        return model_tensor_names(op, params)
    cases = spec.ops_spec()[op]["cases"].values()
    inputs = {name for case in cases for name, _ in case["inputs"]}
    outputs = {out[0] for case in cases for out in case["outputs"]}
    if op == "linear" and not params.get("bias"):
        inputs.discard("bias")
        outputs.discard("grad_bias")
    if op == "adamw_step":
        n, steps = len(params.get("shapes", [])), params.get("steps", 0)
        inputs = {f"param_{i}" for i in range(n)} | {f"grad_{i}_step{s}" for i in range(n) for s in range(1, steps + 1)}
        outputs = {f"{kind}_{i}" for i in range(n) for kind in ("param", "exp_avg", "exp_avg_sq")}
    return inputs, outputs


def _random_draw(reader: FixtureReader, random: Any, listed: list[str]) -> dict[tuple[str, str], dict]:
    """(op, case) -> params of every case a random-case fixture must hold: its draw's cases of the
    ops it lists, or exactly those its subset list (``random_cases.cases``, "op/case") names."""
    from harness.workloads.random_cases import draw_problem, expected_params

    if not isinstance(random, dict):
        raise FixtureError(reader.path, "damaged fixture: its random_cases provenance is not a draw")
    problem = draw_problem(random.get("per_group"), random.get("seed"))
    if problem:
        raise FixtureError(reader.path, f"damaged fixture: its random_cases provenance: {problem}")
    drawn = expected_params(random["per_group"], random["seed"])
    subset = random.get("cases")
    if subset is None:
        return {key: params for key, params in drawn.items() if key[0] in listed}
    if not isinstance(subset, list) or not all(isinstance(k, str) and k.count("/") == 1 for k in subset):
        raise FixtureError(reader.path, "damaged fixture: its random_cases subset is not a list of op/case names")
    keys = [tuple(k.split("/")) for k in subset]
    foreign = next((k for k in keys if k not in drawn), None)
    if foreign is not None or len(set(keys)) != len(keys):
        what = f"{'/'.join(foreign)} is not a case of its draw" if foreign else "names a case twice"
        raise FixtureError(reader.path, f"damaged fixture: its random_cases subset {what}")
    return {key: drawn[key] for key in keys}  # type: ignore[index]


def check_op_fixture(reader: FixtureReader) -> None:
    """Structure, completeness and consistency, before any tensor is read.

    Every op the fixture lists is there with its call and cases, each case with its params,
    determinism flag and outputs, nothing else; the input digest is recomputed from the
    params and input keys. The ops it lists are the ops its provenance says were recorded. A
    fixture of the generator is held to the generator's spec (every case, input and output of
    every op); a random-case fixture to its draw (every case of it, or of the subset it names,
    with the inputs and outputs its op records), so that a re-sealed fixture that lost a case
    or a tensor is still found incomplete."""
    types = {"provenance": dict, "input_digest": str, "torch_version": str, "platform_id": str, "ops": list}
    attrs = reader.require_attrs("/", types)
    spec.check_identity(reader.path, attrs)
    listed = attrs["ops"]
    if reader.groups("/") != [ROOT] or reader.tensor_names(ROOT) or reader.tensor_names("/"):
        raise FixtureError(reader.path, f"damaged fixture: its root holds more than the {ROOT} group, or tensors")
    present = reader.groups(ROOT)
    if present != listed:
        gone = [op for op in listed if op not in present]
        raise FixtureError(
            reader.path,
            f"incomplete fixture: op(s) {', '.join(map(str, gone))} listed but missing"
            if gone
            else "damaged fixture: its op groups are not the ops it lists",
        )
    provenance = attrs["provenance"]
    recorded = provenance.get("ops_recorded")
    random = provenance.get("random_cases")
    generator = "generator_version" in provenance and random is None
    subset = isinstance(random, dict) and "cases" in random  # its draw's cases it names: ops follow them
    if recorded is not None and recorded != listed and not (subset and set(listed) <= set(recorded)):
        missing = [op for op in recorded if op not in listed] if isinstance(recorded, list) else []
        raise FixtureError(
            reader.path,
            f"incomplete fixture: op(s) {', '.join(map(str, missing))} recorded but missing"
            if missing
            else "damaged fixture: the ops it lists are not the ops its provenance says were recorded",
        )
    if (generator or random is not None) and recorded is None:
        raise FixtureError(reader.path, "damaged fixture: its provenance does not say which ops were recorded")
    known = spec.ops_spec() if random is None else (*spec.ops_spec(), *MODEL_OP_IDS)  # model ops: random only
    unknown = [op for op in listed if op not in known]
    if unknown and (generator or random is not None):
        raise FixtureError(reader.path, f"damaged fixture: unknown op(s) {', '.join(map(str, unknown))}")
    drawn = _random_draw(reader, random, listed) if random is not None else {}
    cases_of: dict[str, list[str]] = {}
    digest_input = []
    for op in present:
        op_group = f"{ROOT}/{op}"
        op_attrs = reader.require_attrs(op_group, {"call": str})
        if reader.tensor_names(op_group):
            raise FixtureError(reader.path, f"damaged fixture: {op_group} holds tensors")
        cases_of[op] = reader.groups(op_group)
        if not cases_of[op]:
            raise FixtureError(reader.path, f"incomplete fixture: {op_group} has no cases")
        for case in cases_of[op]:
            group = f"{op_group}/{case}"
            case_attrs = reader.require_attrs(group, {"params": dict, "deterministic": bool})
            parts = reader.groups(group)
            if reader.tensor_names(group) or any(p not in ("inputs", "outputs") for p in parts):
                raise FixtureError(reader.path, f"damaged fixture: {group} holds more than inputs and outputs")
            if "outputs" not in parts or not reader.tensor_names(f"{group}/outputs"):
                raise FixtureError(reader.path, f"damaged fixture: {group} has no outputs")
            keys = {p: {n: reader.key(f"{group}/{p}/{n}") for n in reader.tensor_names(f"{group}/{p}")}
                    for p in parts}  # fmt: skip
            if any(reader.groups(f"{group}/{p}") for p in parts):
                raise FixtureError(reader.path, f"damaged fixture: {group} has groups inside its tensors")
            inputs = keys.get("inputs", {})
            digest_input.append((op, case, case_attrs["params"], inputs))
            if random is not None:
                if drawn.get((op, case)) != case_attrs["params"]:
                    raise FixtureError(reader.path, f"damaged fixture: {op}/{case} is not a case of its random draw")
                _check_case_names(reader, group, case_tensor_names(op, case_attrs["params"]), inputs, keys["outputs"])
            if generator:
                spec.check_op_case(
                    reader.path, op, case, case_attrs["params"], op_attrs["call"],
                    {n: k.text for n, k in inputs.items()},
                    {n: (k.dtype, list(k.shape)) for n, k in keys["outputs"].items()},
                )  # fmt: skip
    if generator:
        spec.check_op_list(reader.path, listed, cases_of)
    if random is not None:
        held = {(op, case) for op, cases in cases_of.items() for case in cases}
        lost = [f"{op}/{case}" for op, case in drawn if (op, case) not in held]
        if lost:
            more = f" and {len(lost) - 3} more" if len(lost) > 3 else ""
            raise FixtureError(
                reader.path, f"incomplete fixture: case(s) {', '.join(lost[:3])}{more} of its draw missing"
            )
    if input_digest_of(digest_input) != attrs["input_digest"]:
        raise FixtureError(reader.path, "damaged fixture: the input digest does not match its params and inputs")


def _check_case_names(reader: FixtureReader, group: str, want: tuple[set[str], set[str]],
                      inputs: dict[str, TensorKey], outputs: dict[str, TensorKey]) -> None:  # fmt: skip
    for part, names, have in (("inputs", want[0], inputs), ("outputs", want[1], outputs)):
        missing = sorted(names - set(have))
        if missing:
            raise FixtureError(reader.path, f"incomplete fixture: {group} lacks {part[:-1]} {', '.join(missing)}")
        extra = sorted(set(have) - names)
        if extra:
            raise FixtureError(
                reader.path, f"damaged fixture: {group} holds {part[:-1]} {', '.join(extra)} its op never records"
            )


def _case_from(reader: FixtureReader, op: str, case: str, *, load: bool) -> CaseRecord:
    group = f"{ROOT}/{op}/{case}"
    attrs = reader.attrs(group)
    tensors: dict[str, dict[str, np.ndarray]] = {"inputs": {}, "outputs": {}}
    for part in reader.groups(group):
        names = reader.tensor_names(f"{group}/{part}")
        if load:
            tensors[part] = {n: reader.tensor(f"{group}/{part}/{n}") for n in names}
        else:
            tensors[part] = {n: _placeholder(reader.key(f"{group}/{part}/{n}")) for n in names}
    return CaseRecord(
        op,
        case,
        dict(attrs["params"]),
        tensors["inputs"],
        tensors["outputs"],
        bool(attrs["deterministic"]),
        str(reader.attrs(f"{ROOT}/{op}")["call"]),
    )


def _placeholder(key: TensorKey) -> np.ndarray:
    """A tensor's dtype and shape without its data (``load=False``): a zero-stride view."""
    zero = np.zeros(1, np.dtype(key.dtype))
    return np.lib.stride_tricks.as_strided(zero, key.shape, (0,) * len(key.shape), writeable=False)


def read_op_fixture(path: str | Path, *, load: bool = True, ops: list[str] | None = None) -> OpFixture:
    """Read an op fixture after checking it whole; tensors are verified as they are read.

    ``load=False`` reads the structure only (tensors are zero-stride placeholders of the
    right dtype and shape)."""
    with FixtureReader(path, kind=KIND) as reader:
        check_op_fixture(reader)
        fixture = OpFixture(Path(path), reader.attrs("/"))
        for op in reader.groups(ROOT):
            if ops is not None and op not in ops:
                continue
            for case in reader.groups(f"{ROOT}/{op}"):
                rec = _case_from(reader, op, case, load=load)
                fixture.cases[rec.key] = rec
        return fixture
