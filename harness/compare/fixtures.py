"""Comparing two fixtures of the same inputs: per-op tables and first-divergence diagnosis.

A is the expectation (the reference fixture), B what is checked against it. Both must come
from the same inputs: equal input digests, or, for a subset of ops recorded live, every
compared case with bit-identical inputs. Anything else is refused as an input error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.core.ulp import TensorComparison, compare_tensors
from harness.formats import nanogpt, ops, upstream
from harness.formats.nanogpt import DIGEST_KINDS, NanoGPTFixture, StepRecord, hex_digest
from harness.formats.ops import OpFixture
from harness.platform.emulation import emulated_cpu_model, emulated_x86_model


@dataclass
class CaseDiff:
    op: str
    case: str
    tensors: list[TensorComparison]

    @property
    def bit_identical(self) -> bool:
        return all(t.bit_identical for t in self.tensors)

    @property
    def max_ulp(self) -> int:
        return max((t.max_ulp for t in self.tensors), default=0)


@dataclass
class OpsDiff:
    a_label: str
    b_label: str
    cases: list[CaseDiff]

    def ops(self) -> dict[str, list[CaseDiff]]:
        out: dict[str, list[CaseDiff]] = {}
        for c in self.cases:
            out.setdefault(c.op, []).append(c)
        return out

    @property
    def bit_identical(self) -> bool:
        return all(c.bit_identical for c in self.cases)


def _case_list(keys: list[str], limit: int = 5) -> str:
    more = f" (and {len(keys) - limit} more)" if len(keys) > limit else ""
    return ", ".join(keys[:limit]) + more


def _missing_cases(a: OpFixture, b: OpFixture, keys: list[str]) -> str:
    """What of ``keys`` B lacks, by op where whole ops are missing, else by case."""
    missing = [k for k in keys if k not in b.cases]
    if not missing:
        return ""
    b_ops = {r.op for r in b.cases.values()}
    whole = [op for op in dict.fromkeys(a.cases[k].op for k in missing) if op not in b_ops]
    if whole:
        return f"{b.path} lacks {len(whole)} op(s) of {a.path}: {_case_list(whole)}"
    return f"{b.path} lacks {len(missing)} case(s) of {a.path}: {_case_list(missing)}"


def _check_same_inputs(a: OpFixture, b: OpFixture, subset: bool) -> list[str]:
    """The case keys to compare, in A's order; an input error where the inputs are not the same."""
    if not subset:
        lacking = _missing_cases(a, b, list(a.cases)) or _missing_cases(b, a, list(b.cases))
        if lacking:
            raise ParityError(lacking)
        if a.attrs["input_digest"] != b.attrs["input_digest"]:
            raise ParityError(
                f"{b.path} and {a.path} were recorded from different input sets "
                f"(input digests {b.attrs['input_digest'][:12]}... and {a.attrs['input_digest'][:12]}...)"
            )
        return list(a.cases)
    keys = [k for k in a.cases if k in b.cases]
    lacking = _missing_cases(b, a, list(b.cases))
    if lacking:
        raise ParityError(lacking)
    if a.attrs["input_digest"] == b.attrs["input_digest"]:
        return keys
    for key in keys:
        ra, rb = a.cases[key], b.cases[key]
        if ra.params != rb.params or set(ra.inputs) != set(rb.inputs):
            raise ParityError(f"{key}: {a.path} and {b.path} describe different cases")
        for name in ra.inputs:
            if not compare_tensors(name, ra.inputs[name], rb.inputs[name]).bit_identical:
                raise ParityError(f"{key}: input {name} differs between {a.path} and {b.path}")
    return keys


def qemu_x86_nan_pick(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether one of two provenances is a run under qemu-x86_64 and the other not. QEMU 7.2's SSE and AVX
    arithmetic keeps, where two NaNs meet, x87's pick (a quiet NaN before a signalling one, then the larger
    significand); Intel and AMD silicon keep the first source operand's (harness.impl.nans.
    refuse_nans_under_qemu_x86; docs/emulation.md, "NaNs recorded under qemu-x86_64"). So such a run's NaNs
    need not be a CPU's: an element NaN on both sides is set apart (``nan_apart``), never a match of the CPU
    nor a mismatch. Two runs under QEMU pick alike."""
    return bool(emulated_x86_model(a)) != bool(emulated_x86_model(b))


def nan_apart(expected: np.ndarray, actual: np.ndarray) -> np.ndarray | None:
    """The elements NaN on both sides (the only ones a NaN pick can change: it chooses which NaN comes out,
    never a number) of two float tensors; None where there are none."""
    ea, aa = np.asarray(expected), np.asarray(actual)
    if ea.dtype.kind != "f" or ea.shape != aa.shape or ea.dtype != aa.dtype:
        return None
    both = np.isnan(ea) & np.isnan(aa)
    return both if both.any() else None


def compare_output(name: str, expected: np.ndarray, actual: np.ndarray, nan_pick: bool) -> TensorComparison:
    """``compare_tensors`` of one output, its elements NaN on both sides set apart where ``nan_pick``
    (``qemu_x86_nan_pick`` of the two fixtures' provenances)."""
    return compare_tensors(name, expected, actual, apart=nan_apart(expected, actual) if nan_pick else None)


def diff_ops(a: OpFixture, b: OpFixture, *, subset: bool = False) -> OpsDiff:
    """Compare every output of B with A's; ``subset`` lets B hold only some of A's cases. Where one of
    them was recorded under qemu-x86_64 and the other not (``qemu_x86_nan_pick``), the elements NaN on
    both sides are set apart (counted apart in the report, not compared)."""
    nan_pick = qemu_x86_nan_pick(a.provenance, b.provenance)
    cases = []
    for key in _check_same_inputs(a, b, subset):
        ra, rb = a.cases[key], b.cases[key]
        if set(ra.outputs) != set(rb.outputs):  # compared by name: the order they are stored in is no matter
            raise ParityError(f"{key}: outputs {sorted(rb.outputs)} of {b.path} are not {sorted(ra.outputs)}")
        try:
            tensors = [compare_output(n, ra.outputs[n], rb.outputs[n], nan_pick) for n in ra.outputs]
        except ValueError as err:
            raise ParityError(f"{key}/{err}") from None
        cases.append(CaseDiff(ra.op, ra.case, tensors))
    return OpsDiff(str(a.path), str(b.path), cases)


# ----------------------------------------------------------------------------- nanoGPT

# execution order within a step, the order the diagnosis walks
STAGES = ("batch", "forward", "loss", "backward", "clip", "optimiser")


@dataclass
class Divergence:
    step: int  # 0: the initial weights
    stage: str
    tensor: str
    detail: str


@dataclass
class StepDiff:
    step: int
    first: Divergence | None  # the first differing record of this step, in execution order
    loss_ulp: int
    grad_norm_ulp: int
    params_differing: dict[str, int]  # digest kind -> parameters whose digest differs
    value_sum_max_rel_diff: float  # over parameters, |sum_a - sum_b| / |sum_a|
    full: list[TensorComparison] = field(default_factory=list)  # at steps both store in full

    @property
    def identical(self) -> bool:
        return self.first is None

    @property
    def max_value_ulp(self) -> int | None:
        values = [t.max_ulp for t in self.full if t.name.startswith("value/")]
        return max(values) if values else None

    @property
    def max_value_scaled_ulp(self) -> float | None:
        values = [t.scaled_ulp for t in self.full if t.name.startswith("value/")]
        return max(values) if values else None


@dataclass
class NanoGPTDiff:
    a_label: str
    b_label: str
    steps: list[StepDiff]
    init_identical: bool
    first: Divergence | None

    @property
    def bit_identical(self) -> bool:
        return self.first is None

    @property
    def identical_steps(self) -> int:
        return sum(s.identical for s in self.steps)


def _scalar_ulp(name: str, a: np.ndarray, b: np.ndarray) -> int:
    return compare_tensors(name, a, b).max_ulp


def first_divergence_in_step(ra: StepRecord, rb: StepRecord, names: list[str]) -> Divergence | None:
    """The first differing record of a step, walking it in execution order."""
    s = ra.step
    for which in ("x", "y"):
        if not np.array_equal(getattr(ra, which), getattr(rb, which)):
            return Divergence(s, "batch", which, "the batch differs")
    ma, mb = ra.dropout_mask_digests, rb.dropout_mask_digests
    for i in range(max(len(ma), len(mb))):
        if i >= len(ma) or i >= len(mb) or not np.array_equal(ma[i], mb[i]):
            return Divergence(s, "forward", f"dropout mask {i}", f"dropout mask {i} (in draw order) differs")
    if not np.array_equal(ra.logits_digest, rb.logits_digest):
        return Divergence(
            s,
            "forward",
            "logits",
            f"logits {hex_digest(ra.logits_digest)[:12]}... vs {hex_digest(rb.logits_digest)[:12]}...",
        )
    if ra.loss.tobytes() != rb.loss.tobytes():
        return Divergence(
            s,
            "loss",
            "loss",
            f"{float(ra.loss)!r} vs {float(rb.loss)!r} ({_scalar_ulp('loss', ra.loss, rb.loss)} ULP)",
        )
    order = (
        ("backward", "grad_preclip"), ("clip", "grad_norm"), ("clip", "clip_coef"), ("clip", "grad"),
        ("optimiser", "exp_avg"), ("optimiser", "exp_avg_sq"), ("optimiser", "value"),
    )  # fmt: skip
    for stage, kind in order:
        if kind in ("grad_norm", "clip_coef"):
            a, b = getattr(ra, kind), getattr(rb, kind)
            if a.tobytes() != b.tobytes():
                return Divergence(s, stage, kind, f"{float(a)!r} vs {float(b)!r} ({_scalar_ulp(kind, a, b)} ULP)")
            continue
        k = DIGEST_KINDS.index(kind)
        differing = [n for i, n in enumerate(names) if not np.array_equal(ra.digests[i, k], rb.digests[i, k])]
        if differing:
            more = f" (and {len(differing) - 1} more)" if len(differing) > 1 else ""
            return Divergence(s, stage, f"{kind} {differing[0]}", f"{kind} of {differing[0]} differs{more}")
    return None


def _step_diff(ra: StepRecord, rb: StepRecord, names: list[str]) -> StepDiff:
    differing = {
        kind: int((ra.digests[:, k] != rb.digests[:, k]).any(axis=1).sum()) for k, kind in enumerate(DIGEST_KINDS)
    }
    v = DIGEST_KINDS.index("value")
    sa, sb = ra.sums[:, v], rb.sums[:, v]
    rel = np.divide(np.abs(sa - sb), np.abs(sa), out=np.zeros_like(sa), where=sa != 0)
    full = []
    for kind in sorted(set(ra.full) & set(rb.full)):
        for n in names:
            if n in ra.full[kind] and n in rb.full[kind]:
                full.append(compare_tensors(f"{kind}/{n}", ra.full[kind][n], rb.full[kind][n]))
    return StepDiff(
        step=ra.step,
        first=first_divergence_in_step(ra, rb, names),
        loss_ulp=_scalar_ulp("loss", ra.loss, rb.loss),
        grad_norm_ulp=_scalar_ulp("grad_norm", ra.grad_norm, rb.grad_norm),
        params_differing=differing,
        value_sum_max_rel_diff=float(rel.max()) if rel.size else 0.0,
        full=full,
    )


def diff_nanogpt(a: NanoGPTFixture, b: NanoGPTFixture) -> NanoGPTDiff:
    if len(a.run.steps) != len(b.run.steps):
        raise ParityError(
            f"{a.path} has {len(a.run.steps)} training steps and {b.path} {len(b.run.steps)}: runs of different "
            "lengths are not comparable"
        )
    if a.training_digest != b.training_digest:
        raise ParityError(
            f"{b.path} and {a.path} were trained from different configs or batches (input digests differ)"
        )
    if a.run.digest != b.run.digest:
        raise ParityError(
            f"{a.path} digests with {a.run.digest} and {b.path} with {b.run.digest}: their digests are not "
            f"comparable (record one again with `parity generate --digest {a.run.digest}`)"
        )
    names = a.run.param_names
    if names != b.run.param_names:
        raise ParityError(f"{a.path} and {b.path} name different parameters")
    init_identical = np.array_equal(a.run.init_digests, b.run.init_digests)
    first = None
    if not init_identical:
        i = int(np.flatnonzero((a.run.init_digests != b.run.init_digests).any(axis=1))[0])
        first = Divergence(0, "init", names[i], f"initial weights of {names[i]} differ")
    steps = [_step_diff(ra, rb, names) for ra, rb in zip(a.run.steps, b.run.steps, strict=True)]
    if first is None:
        first = next((s.first for s in steps if s.first is not None), None)
    if first is not None and qemu_x86_nan_pick(a.provenance, b.provenance):
        pairs = zip(a.run.steps, b.run.steps, strict=True)
        nan_step = next((ra.step for ra, rb in pairs if _holds_nan(ra) and _holds_nan(rb)), None)
        if nan_step is not None and first.step >= nan_step:
            first.detail += (
                f" (one run is QEMU's emulation of an x86 CPU and both hold NaNs from step {nan_step}: where two NaNs "
                "meet QEMU keeps x87's pick, a CPU the first operand's, so this may be that pick alone; "
                'docs/emulation.md, "NaNs recorded under qemu-x86_64")'
            )
    return NanoGPTDiff(str(a.path), str(b.path), steps, init_identical, first)


def _holds_nan(step: StepRecord) -> bool:
    """Whether a recorded step's loss, gradient norm or any parameter's recorded sum is NaN."""
    return bool(np.isnan(step.loss).any() or np.isnan(step.grad_norm).any() or np.isnan(step.sums).any())


# provenance facts that change bits although the platform id is the same
_PLATFORM_FACTS = ("torch_version_full", "torch_git_version", "capability", "blas", "mkl_code_path", "cpu_model")


def _diff_runs(a: NanoGPTFixture, b: NanoGPTFixture, *, subset: bool = False) -> NanoGPTDiff:
    return diff_nanogpt(a, b)  # a run is compared whole: there is no subset of a run


# per fixture kind (the keys of harness.formats.registry.KINDS): how two of its fixtures compare
DIFFS: dict[str, Callable[..., OpsDiff | NanoGPTDiff]] = {
    ops.KIND: diff_ops,
    nanogpt.KIND: _diff_runs,
    upstream.KIND: _diff_runs,
}


def diff_fixtures(a: Any, b: Any, *, subset: bool = False) -> OpsDiff | NanoGPTDiff:
    """Two fixtures of one kind, compared as their kind compares (``subset``: b holds some of a's ops)."""
    if a.kind != b.kind:
        raise ParityError(f"{a.path} and {b.path} are fixtures of different kinds")
    return DIFFS[a.kind](a, b, subset=subset)


def provenance_notes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """How the recording platforms of A and B differ beyond their platform ids."""
    notes = [
        f"{key}: {a.get(key, '?')!s} vs {b.get(key, '?')!s}"
        for key in _PLATFORM_FACTS
        if str(a.get(key, "")) != str(b.get(key, ""))
    ]
    if any(n.startswith(("mkl_code_path", "blas")) for n in notes):
        notes.append("BLAS-backed ops (matmul, linear, sdpa and their gradients) may differ for that reason alone")
    ea, eb = _emulated(a), _emulated(b)
    if ea != eb:
        notes.append(f"recorded under: {ea or 'the CPU itself'} vs {eb or 'the CPU itself'}")
        if bool(ea) != bool(eb):
            notes.append(
                "one side's bits are QEMU's emulation of that CPU: an op that differs here, the CPU itself "
                "against its emulation, is evidence that the emulation is not faithful for it (docs/emulation.md, "
                '"On the CPU itself")'
            )
    return notes


def _emulated(prov: dict[str, Any]) -> str:
    """'QEMU user-mode emulation (-cpu MODEL)' where a provenance says its process ran under QEMU, else ''."""
    text = str(prov.get("emulation", "") or "")
    if not text:
        return ""
    model = emulated_cpu_model(text)
    return f"QEMU user-mode emulation (-cpu {model})" if model else "QEMU user-mode emulation"


def platform_note(a: dict[str, Any], b: dict[str, Any], note: str = "") -> str:
    """``note`` and, where the provenances A and B differ beyond their platform ids, how."""
    facts = provenance_notes(a, b)
    return "; ".join(n for n in (note, "recorded on other platforms: " + "; ".join(facts) if facts else "") if n)


def summary_dict(diff: OpsDiff | NanoGPTDiff) -> dict[str, Any]:
    """Headline numbers of a diff."""
    if isinstance(diff, OpsDiff):
        ops = diff.ops()
        same = [op for op, cases in ops.items() if all(c.bit_identical for c in cases)]
        return {"ops": len(ops), "ops_bit_identical": len(same), "cases": len(diff.cases),
                "cases_bit_identical": sum(c.bit_identical for c in diff.cases),
                "nan_set_apart": sum(t.set_apart for c in diff.cases for t in c.tensors),
                "nan_set_apart_differ": sum(t.set_apart_differ for c in diff.cases for t in c.tensors)}  # fmt: skip
    return {"steps": len(diff.steps), "steps_bit_identical": diff.identical_steps,
            "first_divergence": None if diff.first is None else vars(diff.first)}  # fmt: skip
