"""Two traces of one program: align their op streams, find the root cause, show how it spread. Torch-free.

Alignment: ops are matched on (op, input shapes) as a longest common subsequence (common prefix
and suffix first, then ``difflib`` without its popularity heuristic on the rest), so a run that
took another code path (ops one side lacks) still lines up around it.

The root cause is a matched op whose inputs (every fingerprinted tensor, the generator state of
a random op, the non-tensor arguments) are bit-identical on both sides and whose outputs are
not. Where both traces say which op wrote each input (version 3), it is the first such op whose
difference reaches the result (harness.trace.reach: the loss, the optimizer's state, or
``--target``), and every such op is listed, those that never reach it apart; older traces give
the first such op in the stream. When the first difference comes instead from ops only one side
ran, that stretch of the stream is named (a code path). View ops are never candidates (their bits are
those of what they view). Then the spread: the first differing op of every module, of every
training step, and each step's loss (the last 0-d float output computed before its backward).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from harness.compare.fixtures import qemu_x86_nan_pick
from harness.core.errors import ParityError
from harness.formats.trace import OpRecord, TensorRef, Trace, thread_stretches
from harness.platform.emulation import emulated_x86_model
from harness.trace.reach import Reach, matched, named_target, reach


@dataclass
class Divergence:
    """A matched op pair whose outputs differ."""

    a: OpRecord
    b: OpRecord
    outputs: list[str]  # names of the differing outputs


@dataclass
class CodePath:
    """Ops only one side ran, around the first difference."""

    a_ops: list[OpRecord]
    b_ops: list[OpRecord]


@dataclass
class StepSummary:
    step: int
    ops_a: int
    ops_b: int
    matched: int
    differing: int
    first: Divergence | None
    loss_a: float | None
    loss_b: float | None
    loss_ulp: int | None


@dataclass
class TraceDiff:
    a: Trace
    b: Trace
    pairs: list[tuple[int | None, int | None]]
    root_cause: Divergence | None
    code_path: CodePath | None
    first_difference: Divergence | None
    modules: list[Divergence]
    steps: list[StepSummary]
    only_a: int
    only_b: int
    differing_ops: int
    cause: Any = None  # harness.trace.cause.Cause of root_cause, filled in by explain()
    roots: list[Divergence] = field(default_factory=list)  # every live root, in order (root_cause is the first)
    causes: list[Any] = field(default_factory=list)  # a Cause per live root (causes[0] is cause)
    notes: list[str] = field(default_factory=list)
    reach: Reach | None = None  # what reaches the result (traces that record their inputs' writers)
    first_candidate: Divergence | None = None  # the first op with identical inputs and differing outputs

    @property
    def bit_identical(self) -> bool:
        return self.differing_ops == 0 and self.only_a == 0 and self.only_b == 0

    @cached_property
    def a2b(self) -> dict[int, int]:
        """A's op index -> B's, of the aligned ops."""
        return matched(self.pairs)

    @cached_property
    def b2a(self) -> dict[int, int]:
        """B's op index -> A's, of the aligned ops."""
        return {j: i for i, j in self.a2b.items()}


def align(a: list[OpRecord], b: list[OpRecord]) -> list[tuple[int | None, int | None]]:
    """Index pairs in stream order; (i, None) and (None, j) are ops only one side has."""
    ids: dict[Any, int] = {}
    ka = [ids.setdefault(op.align_key, len(ids)) for op in a]
    kb = [ids.setdefault(op.align_key, len(ids)) for op in b]
    head = 0
    while head < min(len(ka), len(kb)) and ka[head] == kb[head]:
        head += 1
    tail = 0
    while tail < min(len(ka), len(kb)) - head and ka[-1 - tail] == kb[-1 - tail]:
        tail += 1
    pairs: list[tuple[int | None, int | None]] = [(i, i) for i in range(head)]
    mid_a, mid_b = ka[head : len(ka) - tail], kb[head : len(kb) - tail]
    matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += [(head + i, head + j) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
        else:
            pairs += [(head + i, None) for i in range(i1, i2)]
            pairs += [(None, head + j) for j in range(j1, j2)]
    pairs += [(len(ka) - tail + k, len(kb) - tail + k) for k in range(tail)]
    return pairs


def fingerprints(refs: list) -> list[tuple[str, bool, bytes]]:
    """What must be equal for two op's tensors to be bit-identical (not the sums: NaN where not numeric)."""
    return [(r.name, r.fingerprinted, r.digest) for r in refs]


def inputs_identical(a: OpRecord, b: OpRecord) -> bool:
    return a.args == b.args and fingerprints(a.inputs) == fingerprints(b.inputs)


def differing_outputs(a: OpRecord, b: OpRecord) -> list[str]:
    """Outputs fingerprinted on both sides whose digests differ."""
    theirs = {r.name: r for r in b.outputs}
    return [
        r.name
        for r in a.outputs
        if r.fingerprinted and r.name in theirs and theirs[r.name].fingerprinted and theirs[r.name].digest != r.digest
    ]


# ops whose 0-d output is not a computed value (the gradient seed of backward, copies)
_NOT_LOSS = ("ones_like", "zeros_like", "full_like", "full", "ones", "zeros", "scalar_tensor", "fill_", "lift_fresh",
             "detach", "clone", "_to_copy", "copy_", "alias")  # fmt: skip


def _is_scalar_float(op: OpRecord) -> bool:
    out = op.outputs[0] if op.outputs else None
    return (
        out is not None and out.shape == () and out.dtype.startswith(("float", "bfloat"))
        and op.op.split(".")[1] not in _NOT_LOSS
    )  # fmt: skip


def step_losses(ops: list[OpRecord]) -> dict[int, OpRecord]:
    """Per step, the last 0-d float output computed (outside the optimizer) before its first backward op."""
    out: dict[int, OpRecord] = {}
    candidate: dict[int, OpRecord] = {}
    for op in ops:
        if op.phase == "backward":
            if op.step not in out and op.step in candidate:
                out[op.step] = candidate[op.step]
        elif (
            op.phase in ("forward", "other")
            and op.step not in out
            and _is_scalar_float(op)
            and op.outputs[0].fingerprinted
        ):
            candidate[op.step] = op
    return out


def _may_hold_nan(ref: TensorRef) -> bool:
    """Whether a traced float tensor may hold a NaN: its float64 sum is NaN (a NaN, or infinities of both
    signs: the sum cannot tell them apart)."""
    return ref.fingerprinted and ref.dtype.startswith(("float", "complex")) and np.isnan(ref.sum)


def qemu_nan_pick_roots(diff: TraceDiff) -> list[Divergence]:
    """The roots whose difference may be QEMU's NaN pick alone, where exactly one side ran under qemu-x86_64
    (``qemu_x86_nan_pick``): the op reads a tensor that may hold a NaN and every differing output may hold
    one on both sides. Where two NaNs meet QEMU 7.2 keeps x87's pick, a CPU the first operand's; a trace
    holds digests, not the elements, so such a root is named as possibly that, never set apart silently."""
    if not qemu_x86_nan_pick(diff.a.provenance, diff.b.provenance):
        return []
    picks = []
    for root in diff.roots or ([diff.root_cause] if diff.root_cause else []):
        outs_a = {r.name: r for r in root.a.outputs}
        outs_b = {r.name: r for r in root.b.outputs}
        nan_in = any(_may_hold_nan(r) for r in root.a.inputs) and any(_may_hold_nan(r) for r in root.b.inputs)
        if nan_in and root.outputs and all(_may_hold_nan(outs_a[n]) and _may_hold_nan(outs_b[n]) for n in root.outputs):
            picks.append(root)
    return picks


def _float_ulp(x: float, y: float, dtype: str) -> int | None:
    from harness.core.ulp import compare_tensors

    np_dtype = {"float32": np.float32, "float64": np.float64, "float16": np.float16}.get(dtype)
    if np_dtype is None or not (np.isfinite(x) and np.isfinite(y)):
        return None
    return compare_tensors("loss", np.array(x, np_dtype), np.array(y, np_dtype)).max_ulp


def diff_traces(a: Trace, b: Trace, target: str = "") -> TraceDiff:
    """Align ``a`` and ``b`` and find what differs; ``target`` as ``parity diff --target`` takes it."""
    if a.digest_algorithm != b.digest_algorithm:
        raise ParityError(
            f"{b.path} holds {b.digest_algorithm} digests and {a.path} {a.digest_algorithm} ones: their tensors "
            "cannot be compared; trace both programs with this version"
        )
    pairs = align(a.ops, b.ops)
    root: Divergence | None = None
    first: Divergence | None = None
    code_path: CodePath | None = None
    pending_a: list[OpRecord] = []
    pending_b: list[OpRecord] = []
    modules: dict[str, Divergence] = {}
    per_step: dict[int, dict[str, Any]] = {}
    only_a = only_b = differing = 0
    divergences: dict[int, Divergence] = {}
    for i, j in pairs:
        if i is None or j is None:
            if i is not None:
                only_a += 1
                if first is None:
                    pending_a.append(a.ops[i])
            if j is not None:
                only_b += 1
                if first is None:
                    pending_b.append(b.ops[j])
            step = (a.ops[i] if i is not None else b.ops[j]).step  # type: ignore[index]
            per_step.setdefault(step, {"matched": 0, "differing": 0, "first": None})
            continue
        oa, ob = a.ops[i], b.ops[j]
        entry = per_step.setdefault(oa.step, {"matched": 0, "differing": 0, "first": None})
        entry["matched"] += 1
        names = differing_outputs(oa, ob)
        if names:
            div = Divergence(oa, ob, names)
            divergences[i] = div
            differing += 1
            entry["differing"] += 1
            entry["first"] = entry["first"] or div
            if oa.module and oa.module not in modules:
                modules[oa.module] = div
            if first is None:
                first = div
                if pending_a or pending_b:
                    code_path = CodePath(list(pending_a), list(pending_b))
            if root is None and inputs_identical(oa, ob):
                root = div
    if first is None and (pending_a or pending_b) and code_path is None:
        code_path = CodePath(pending_a, pending_b)
    losses_a, losses_b = step_losses(a.ops), step_losses(b.ops)
    steps_a = {op.step for op in a.ops}
    steps_b = {op.step for op in b.ops}
    steps = []
    for step in sorted(steps_a | steps_b):
        entry = per_step.get(step, {"matched": 0, "differing": 0, "first": None})
        la, lb = losses_a.get(step), losses_b.get(step)
        va = la.outputs[0].sum if la else None
        vb = lb.outputs[0].sum if lb else None
        ulp = _float_ulp(va, vb, la.outputs[0].dtype) if la and lb and va is not None and vb is not None else None
        steps.append(
            StepSummary(
                step, sum(op.step == step for op in a.ops), sum(op.step == step for op in b.ops),
                entry["matched"], entry["differing"], entry["first"], va, vb, ulp,
            )
        )  # fmt: skip
    diff = TraceDiff(a, b, pairs, root, code_path, first, list(modules.values()), steps, only_a, only_b, differing)
    diff.first_candidate = root
    if a.has_sources and b.has_sources:
        if differing:
            diff.reach = reach(a, b, pairs, divergences, losses_a, target)
            # a root is an op with differing outputs, or an in-place op that returns nothing
            # (_foreach_lerp_, _fused_adamw_): its difference is seen only where later ops read it
            a2b = diff.a2b
            live = [
                divergences[r.index] if r.index in divergences else Divergence(a.ops[r.index], b.ops[a2b[r.index]], [])
                for r in diff.reach.roots
                if r.index in divergences or r.index in a2b
            ]
            diff.roots = live
            diff.root_cause = live[0] if live else None
        elif target:
            named_target(a, target, losses_a)  # a target A lacks is refused, differences or none
    elif target:
        raise ParityError(
            "--target needs traces that say which op wrote each input (trace version 3): trace both programs "
            "again with this version"
        )
    elif differing:
        diff.notes.append(
            "these traces do not say which op wrote each input (trace version 3 does): the root cause is the first "
            "op with identical inputs and differing outputs, whether or not its difference reaches the result"
        )
    for side, t in (("A", a), ("B", b)):
        if len(t.thread_counts) > 1:
            diff.notes.append(
                f"{side}'s program changed its intra-op thread count as it ran (threads: "
                f"{thread_stretches(t.thread_counts)}): each op "
                "is explained and replayed at the count it ran at"
            )
        if t.attrs.get("thread_note"):
            diff.notes.append(f"{side}: {t.attrs['thread_note']}")
    model_a, model_b = emulated_x86_model(a.provenance), emulated_x86_model(b.provenance)
    for root in qemu_nan_pick_roots(diff):  # exactly one side emulated
        diff.notes.append(
            f"{'A' if model_a else 'B'} ran under qemu-x86_64 (-cpu {model_a or model_b}) and the "
            f"other on a CPU: root op {root.a.index} ({root.a.op}) reads NaNs and writes them on both sides, so its "
            "difference may be QEMU's pick where two NaNs meet alone, not the CPU's (docs/emulation.md, \"NaNs "
            'recorded under qemu-x86_64")'
        )
    if a.recorder != b.recorder:
        diff.notes.append(
            f"A was recorded through the {a.recorder}, B through the {b.recorder}: the hook also records the view "
            "ops torch keeps from dispatch modes (Parameter's detach), which align as ops only one side ran"
        )
    return diff
