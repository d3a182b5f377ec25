"""Run the impl over every case of an op fixture: an in-memory fixture of its outputs."""

from __future__ import annotations

from dataclasses import replace

from harness.core.errors import ParityError
from harness.formats.ops import OpFixture
from harness.impl.op_registry import NotImplementedInImpl, refusals, run_case
from harness.impl.profiles import KernelProfile, profile_for_fixture


def impl_op_fixture(expected: OpFixture, profile: KernelProfile | None = None) -> tuple[OpFixture, dict[str, str]]:
    """The impl's outputs for ``expected``'s cases under the fixture's own profile and thread
    count (or ``profile``); returns (fixture, what was left out and why: {op: why the impl has no
    kernel for it} and {op/case: why the impl refused that case, or an output of it}) -- cases of ops
    without a kernel, cases whose kernel the impl does not model under the profile (ParityError) and
    outputs a runner refused are left out. Its provenance is the fixture's but for ``emulation``: the impl's
    NaNs, where two meet, are the silicon's pick (harness.compare.fixtures.qemu_x86_nan_pick), not QEMU's."""
    profile = profile or profile_for_fixture(expected.attrs)
    provenance = {**expected.provenance, "emulation": ""}
    attrs = {**expected.attrs, "platform_id": f"impl {profile.label}", "provenance": provenance}
    out = OpFixture(expected.path.with_name(f"impl:{profile.name}-t{profile.threads}"), attrs)
    missing: dict[str, str] = {}
    for key, rec in expected.cases.items():
        if rec.op in missing:  # no runner at all
            continue
        try:
            outputs = run_case(rec.op, rec.params, rec.inputs, profile)
        except NotImplementedInImpl as exc:
            missing[rec.op] = str(exc)
            continue
        except ParityError as exc:  # this case's kernel is not modelled under the profile: the case alone
            missing[key] = str(exc)
            continue
        refused = [why for name, why in refusals(outputs).items() if name in rec.outputs]
        if refused:  # outputs the runner left out
            missing[key] = "; ".join(dict.fromkeys(refused))
        out.cases[key] = replace(rec, outputs={n: outputs[n] for n in rec.outputs if n in outputs})
    return out, missing


def missing_reason(missing: dict[str, str], key: str, op: str) -> str:
    """Why the impl gave no output for case ``key`` of ``op`` (``impl_op_fixture``'s ``missing``)."""
    return missing.get(key) or missing.get(op) or "the impl gave no such output"


def missing_note(missing: dict[str, str]) -> str:
    """One line naming the ops the impl has no kernel for and the cases it refused."""
    absent = [k for k in missing if "/" not in k]
    refused = [k for k in missing if "/" in k]
    parts = [f"the reference implementation has no kernel for: {', '.join(absent)}"] if absent else []
    if refused:
        shown = "; ".join(f"{k} ({missing[k]})" for k in refused[:3])
        more = f" and {len(refused) - 3} more" if len(refused) > 3 else ""
        parts.append(f"it refused {len(refused)} case(s) it does not model: {shown}{more}")
    return "; ".join(parts)
