"""What a complete fixture holds, as the generator's spec says: checked without torch.

``ops_spec.json`` (written by ``python -m harness.record.write_spec`` from the op registry)
lists every op, case, params, input (with its key: the inputs are part of the spec) and
output (dtype and shape). A fixture recorded by the generator (its provenance names a
``generator_version``) must hold, for every op it lists, exactly those cases, params,
inputs and outputs. Fixtures written by hand (tests, tools) are checked for structure only.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from harness.core.errors import FixtureError
from harness.platform.config import provenance_problem

OPS_SPEC_PATH = Path(__file__).resolve().parent / "ops_spec.json"


@cache
def ops_spec() -> dict[str, dict[str, Any]]:
    """Op name -> {"call", "cases": {case name -> {"params", "inputs", "outputs"}}}, in recording order."""
    data = json.loads(OPS_SPEC_PATH.read_text(encoding="utf-8"))
    return {
        op["name"]: {"call": op["call"], "cases": {case["name"]: case for case in op["cases"]}} for op in data["ops"]
    }


def check_op_case(path: Path, op: str, case: str, params: Any, call: str,
                  inputs: dict[str, str], outputs: dict[str, tuple[str, list[int]]]) -> None:  # fmt: skip
    """One recorded case against the spec (``inputs``: name -> key; ``outputs``: name -> (dtype, shape))."""
    where = f"{op}/{case}"
    spec_op = ops_spec()[op]
    want = spec_op["cases"].get(case)
    if want is None:
        raise FixtureError(path, f"incomplete or foreign fixture: the generator records no case {where}")
    if call != spec_op["call"]:
        raise FixtureError(path, f"damaged fixture: {op}'s call is not the generator's ({call!r})")
    if params != want["params"]:
        raise FixtureError(path, f"damaged fixture: {where} params {json.dumps(params)} are not the generator's")
    if inputs != dict(want["inputs"]):
        missing = [n for n, _ in want["inputs"] if n not in inputs]
        extra = [n for n in inputs if n not in dict(want["inputs"])]
        if missing or extra:
            raise FixtureError(
                path, f"damaged fixture: {where} inputs " + (f"lack {', '.join(missing)}" if missing else "")
                + (f"{'; ' if missing else ''}hold unknown {', '.join(extra)}" if extra else ""),
            )  # fmt: skip
        changed = [n for n, k in want["inputs"] if inputs[n] != k]
        raise FixtureError(path, f"damaged fixture: {where} input {changed[0]} is not the generator's input")
    expected = {name: (dtype, shape) for name, dtype, shape in want["outputs"]}
    for name in expected:
        if name not in outputs:
            raise FixtureError(path, f"incomplete fixture: {where} lacks output {name}")
    for name, got in outputs.items():
        if name not in expected:
            raise FixtureError(path, f"damaged fixture: {where} holds an output {name} the generator does not record")
        if (got[0], list(got[1])) != (expected[name][0], list(expected[name][1])):
            raise FixtureError(
                path, f"damaged fixture: {where} output {name} is {got[0]}{list(got[1])}, "
                f"the generator records {expected[name][0]}{list(expected[name][1])}",
            )  # fmt: skip


def check_op_list(path: Path, ops: list[str], cases: dict[str, list[str]]) -> None:
    """The ops a generator fixture lists are known, each with every case in the generator's order."""
    unknown = [op for op in ops if op not in ops_spec()]
    if unknown:
        raise FixtureError(path, f"damaged fixture: unknown op(s) {', '.join(unknown)}")
    for op in ops:
        want = list(ops_spec()[op]["cases"])
        missing = [c for c in want if c not in cases.get(op, [])]
        if missing:
            raise FixtureError(path, f"incomplete fixture: {op} lacks case(s) {', '.join(missing)}")
        if cases.get(op, []) != want:
            raise FixtureError(path, f"damaged fixture: {op}'s cases are not the generator's")


_RELEASE = re.compile(r"[0-9][0-9A-Za-z.+_-]{0,63}")  # 2.13.0, 2.13.0+cpu, 2.6.0.dev20240101+cpu


def release_problem(version: object) -> str:
    """Why ``version`` is not a torch release a fixture can be filed under ("" if it is one)."""
    if isinstance(version, str) and _RELEASE.fullmatch(version):
        return ""
    return f"its torch_version {str(version)[:40]!r} is not a release (e.g. 2.13.0)"


def check_identity(path: Path, attrs: dict[str, Any]) -> None:
    """The torch version and platform a fixture names are its provenance's; the version is a
    release; the platform id parses and agrees with what the provenance recorded of the machine
    (required of a generator's recording, which always names one)."""
    provenance = attrs.get("provenance")
    for key in ("torch_version", "platform_id"):
        if isinstance(provenance, dict) and key in provenance and provenance[key] != attrs.get(key):
            raise FixtureError(path, f"damaged fixture: its {key} and its provenance's differ")
    problem = release_problem(attrs.get("torch_version"))
    if problem:
        raise FixtureError(path, f"damaged fixture: {problem}")
    generator = isinstance(provenance, dict) and "generator_version" in provenance
    if attrs.get("platform_id") or generator:
        problem = provenance_problem(
            str(attrs.get("platform_id", "")), provenance if isinstance(provenance, dict) else {}
        )
        if problem:
            raise FixtureError(path, f"damaged fixture: {problem}")
