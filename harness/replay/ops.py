"""Run the impl over every case of an op fixture: an in-memory fixture of its outputs."""

from __future__ import annotations

from dataclasses import replace

from harness.core.errors import ParityError
from harness.formats.ops import OpFixture
from harness.impl.op_registry import NotImplementedInImpl, refusals, run_case
from harness.impl.profiles import KernelProfile, profile_for_fixture


def impl_op_fixture(expected: OpFixture, profile: KernelProfile | None = None) -> tuple[OpFixture, dict[str, str]]:
    """The impl's outputs for ``expected``'s cases under the fixture's own profile and thread
    count (or ``profile``); returns (fixture, {op: why it has no kernel, or why a case of it was
    refused}) -- cases of ops without a kernel, and cases whose kernel the impl does not model under
    the profile (ParityError), are left out."""
    profile = profile or profile_for_fixture(expected.attrs)
    attrs = {**expected.attrs, "platform_id": f"impl {profile.label}"}
    out = OpFixture(expected.path.with_name(f"impl:{profile.name}-t{profile.threads}"), attrs)
    missing: dict[str, str] = {}
    absent: set[str] = set()  # ops with no runner at all
    for key, rec in expected.cases.items():
        if rec.op in absent:
            continue
        try:
            outputs = run_case(rec.op, rec.params, rec.inputs, profile)
        except NotImplementedInImpl as exc:
            missing[rec.op] = str(exc)
            absent.add(rec.op)
            continue
        except ParityError as exc:  # this case's kernel is not modelled under the profile: the case alone
            missing.setdefault(rec.op, str(exc))
            continue
        for name, why in refusals(outputs).items():  # an output the runner left out: why, as a refused case's
            if name in rec.outputs:
                missing.setdefault(rec.op, why)
        out.cases[key] = replace(rec, outputs={n: outputs[n] for n in rec.outputs if n in outputs})
    return out, missing


def missing_note(missing: dict[str, str]) -> str:
    """One line naming the ops the impl has no kernel for."""
    return f"the reference implementation has no kernel for: {', '.join(missing)}" if missing else ""
