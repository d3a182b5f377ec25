"""``parity audit``: every op of one trace that the reference implementation replays, replayed under
the trace's own profile, and whether it gives the traced bits. Torch-free (re-runs start their own
processes).

``parity diff --verify-cause`` proves the impl on the few ops where two runs part; this proves it on
the run itself, op by op: the trace's program is run again under its configuration (once per batch of
ops, ``CAPTURE_BYTES`` of tensors at most), keeping the chosen ops' tensors in full, and each is replayed
through the impl under the profile of the traced run (its ATen capability, oneDNN ISA, BLAS path,
architecture, torch release, and the thread count the program had at that op). Each op is then

- ``exact``: the impl gives every traced output's digest (an in-place op that returns nothing: what
  later ops read of what it wrote);
- ``other``: the impl gives other bits without refusing (or its replay breaks): a defect of the impl,
  shown with the ULP figures of each output against the captured one;
- ``refused``: the impl says in one line why it cannot prove this op (its bound), or has no replay
  for it, or the op could not be captured (a race: the re-run gave other outputs).

The ops chosen: those whose bits a platform knob can change (``KERNEL_OPS``) or that the impl replays
(``REPLAYS``), the first ``per_op`` of each ATen op (overload packet) in trace order, or every one. The
trace's other ops with a floating output are either ones no knob changes (``knob_free``: moves, copies,
exact element-wise ops, measured) or listed apart as outside the kernel index: not audited, their bits
unproven.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.formats.trace import Captured, OpRecord, Trace
from harness.trace.cause import capture_each, not_reproduced
from harness.trace.impl_ops import KERNEL_OPS, REPLAYS, knob_free, packet, refusal, replay

VERDICTS = ("exact", "other", "refused")
CAPTURE_BYTES = 1 << 29  # one re-run keeps at most this much of the chosen ops' tensors (more: more re-runs)


@dataclass
class OpAudit:
    """One replayed op: its verdict and why."""

    index: int
    op: str
    module: str
    site: str
    phase: str
    step: int
    verdict: str  # one of VERDICTS
    detail: str = ""  # refused: the line; other: the outputs the impl does not give
    figures: list[str] = field(default_factory=list)  # other: each output's ULP line against the traced


@dataclass
class Audit:
    """The audit of one trace."""

    trace: str
    platform_id: str
    profile: str
    per_op: int  # 0: every op
    in_trace: dict[str, int]  # per ATen op (packet) considered: how many the trace holds
    ops: list[OpAudit]
    unindexed: dict[str, int] = field(default_factory=dict)  # per ATen op outside the kernel index: how many

    def counts(self) -> dict[str, Counter]:
        """Per ATen op: how many of each verdict."""
        out: dict[str, Counter] = {name: Counter() for name in self.in_trace}
        for o in self.ops:
            out[packet(o.op)][o.verdict] += 1
        return out

    @property
    def total(self) -> Counter:
        return Counter(o.verdict for o in self.ops)

    @property
    def reproduced(self) -> bool:
        """No op gave other bits (refusals are the impl's stated bounds, listed, not failures)."""
        return not any(o.verdict == "other" for o in self.ops)


def chosen_ops(trace: Trace, per_op: int, only: frozenset[str] = frozenset()) -> tuple[list[OpRecord], dict[str, int]]:
    """The ops to replay, in trace order, and per ATen op how many the trace holds."""
    in_trace: Counter = Counter()
    picked: list[OpRecord] = []
    for op in trace.ops:
        name = packet(op.op)
        if (name not in KERNEL_OPS and name not in REPLAYS) or (only and name not in only):
            continue
        in_trace[name] += 1
        if not per_op or in_trace[name] <= per_op:
            picked.append(op)
    return picked, dict(sorted(in_trace.items()))


def unindexed_ops(trace: Trace) -> dict[str, int]:
    """Per ATen op (overload packet), how many of the trace's ops a platform knob may change that the kernel
    index does not hold (no replay): not audited."""
    found: Counter = Counter()
    for op in trace.ops:
        name = packet(op.op)
        if name in KERNEL_OPS or name in REPLAYS:
            continue
        if not knob_free(op.op, [t.dtype for t in op.inputs], [t.dtype for t in op.outputs]):
            found[name] += 1
    return dict(sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))


def _nbytes(op: OpRecord) -> int:
    def size(dtype: str, shape: tuple[int, ...]) -> int:
        try:
            item = np.dtype(dtype.removeprefix("torch.")).itemsize
        except TypeError:
            item = 8
        return item * int(np.prod(shape, dtype=np.int64))

    return sum(size(r.dtype, tuple(r.shape)) for r in (*op.inputs, *op.outputs))


def batches(ops: list[OpRecord], limit: int) -> list[list[OpRecord]]:
    """``ops`` in runs of at most ``limit`` bytes of tensors (one op alone where it is larger)."""
    out: list[list[OpRecord]] = [[]]
    held = 0
    for op in ops:
        size = _nbytes(op)
        if out[-1] and held + size > limit:
            out.append([])
            held = 0
        out[-1].append(op)
        held += size
    return [b for b in out if b]


def audit(
    trace: Trace,
    per_op: int = 20,
    only: frozenset[str] = frozenset(),
    progress: Callable[[str], None] | None = None,
) -> Audit:
    """Replay the chosen ops of ``trace`` through the impl under its own profile (see the module)."""
    from harness.impl.profiles import profile_for_trace

    unknown = sorted(only - set(KERNEL_OPS) - set(REPLAYS))
    if unknown:
        names = ", ".join(unknown)
        raise ParityError(f"--ops: {names} is not an op the impl knows (ATen names, e.g. native_layer_norm)")
    profile = profile_for_trace(trace.provenance)
    picked, in_trace = chosen_ops(trace, per_op, only)
    verdicts: dict[int, OpAudit] = {}
    replayed: list[OpRecord] = []
    for op in picked:
        why = refusal(op.op)
        if why is None:
            replayed.append(op)
        else:  # no replay: refused as it stands, nothing to capture
            verdicts[op.index] = _entry(op, "refused", why)
    groups = batches(replayed, CAPTURE_BYTES)
    with tempfile.TemporaryDirectory(prefix="parity-audit-") as tmp:
        for n, group in enumerate(groups, 1):
            if progress is not None and len(groups) > 1:
                progress(f"re-running the program for ops {group[0].index}..{group[-1].index} ({n} of {len(groups)})")
            caps = capture_each(trace, [op.index for op in group], Path(tmp))
            for op in group:
                cap = caps[op.index]
                if isinstance(cap, str):
                    verdicts[op.index] = _entry(op, "refused", f"could not capture the op's tensors ({cap})")
                else:
                    verdicts[op.index] = _replayed(trace, op, cap, profile.with_threads(trace.threads_at(op.index)))
    return Audit(
        str(trace.path),
        str(trace.provenance.get("platform_id", "")),
        profile.label,
        per_op,
        in_trace,
        [verdicts[op.index] for op in picked],
        {} if only else unindexed_ops(trace),
    )


def _entry(op: OpRecord, verdict: str, detail: str = "", figures: list[str] | None = None) -> OpAudit:
    return OpAudit(op.index, op.op, op.module, op.site, op.phase, op.step, verdict, detail, figures or [])


def _replayed(trace: Trace, op: OpRecord, cap: Captured, profile: Any) -> OpAudit:
    """One captured op through the impl under ``profile``: its verdict."""
    from harness.core.ulp import compare_tensors, describe

    try:
        impl = replay(op.op, cap.inputs, cap.args, profile)
    except ParityError as err:
        return _entry(op, "refused", str(err))
    except Exception as err:  # a replay that breaks is the impl's defect, shown as one
        return _entry(op, "other", f"the impl's replay failed: {type(err).__name__}: {err}")
    bad = not_reproduced(impl, op, trace.digest_algorithm, trace)
    if not bad:
        return _entry(op, "exact")
    figures = [
        describe(compare_tensors(name, cap.outputs[name], impl[name]))
        for name in sorted(set(bad) & set(impl) & set(cap.outputs))
        if np.shape(cap.outputs[name]) == np.shape(impl[name]) and cap.outputs[name].dtype == impl[name].dtype
    ]
    return _entry(op, "other", f"the impl under {profile.label} does not give {', '.join(bad)} bit for bit", figures)


SCHEMA = "parity-harness/trace-audit"
REFUSED_SHOWN = 3  # op indices shown per refusal line in the text formats (JSON holds them all)


def report_dict(a: Audit) -> dict[str, Any]:
    """The audit as data. JSON schema "parity-harness/trace-audit", version 1::

        {"schema", "schema_version": 1, "kind": "trace-audit", "trace": str, "platform_id": str,
         "profile": str, "per_op": int (0: every op), "reproduced": bool (no op gave other bits),
         "summary": {"chosen", "exact", "other", "refused"},
         "ops": [{"op", "in_trace", "exact", "other", "refused"}],     # per ATen op (overload packet)
         "other": [Op + {"detail": str, "figures": [str]}],            # each op the impl got wrong
         "refused": [{"op", "reason", "count", "indices": [int]}],     # grouped by op and line
         "unindexed": [{"op", "count"}],  # ops a knob may change outside the kernel index: not audited
         "impl_known_gaps": [str]}                                    # the platform's, from the fixtures

    An Op is {"index", "op", "module", "site", "phase", "step"}."""
    from harness.impl.known_gaps import load_gaps

    refused: dict[tuple[str, str], list[int]] = {}
    for o in a.ops:
        if o.verdict == "refused":
            refused.setdefault((o.op, o.detail), []).append(o.index)
    total = a.total
    return {
        "schema": SCHEMA,
        "schema_version": 1,
        "kind": "trace-audit",
        "trace": a.trace,
        "platform_id": a.platform_id,
        "profile": a.profile,
        "per_op": a.per_op,
        "reproduced": a.reproduced,
        "summary": {"chosen": len(a.ops), **{v: total[v] for v in VERDICTS}},
        "ops": [
            {"op": name, "in_trace": a.in_trace[name], **{v: c[v] for v in VERDICTS}} for name, c in a.counts().items()
        ],
        "other": [
            {k: getattr(o, k) for k in ("index", "op", "module", "site", "phase", "step", "detail", "figures")}
            for o in a.ops
            if o.verdict == "other"
        ],
        "refused": [
            {"op": op, "reason": reason, "count": len(ix), "indices": ix}
            for (op, reason), ix in sorted(refused.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))
        ],
        "unindexed": [{"op": op, "count": n} for op, n in a.unindexed.items()],
        "impl_known_gaps": [g.line() for g in load_gaps().for_platform(a.platform_id)],
    }


def headline(data: dict[str, Any]) -> str:
    s = data["summary"]
    if not s["chosen"]:
        return "no op of this trace is one the impl replays"
    if data["reproduced"]:
        refused = f"; {s['refused']} refused, each with the impl's reason below" if s["refused"] else ""
        return f"the impl gives the traced bits of every op it replayed ({s['exact']}){refused}"
    return (
        f"the impl gives other bits on {s['other']} of {s['chosen']} ops without refusing: a defect of the impl, "
        "shown below"
    )


def sections(data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(section title, lines) of the text formats."""
    s = data["summary"]
    of = "every op" if not data["per_op"] else f"the first {data['per_op']} of each ATen op"
    width = max((len(o["op"]) for o in data["ops"]), default=2)
    out: list[tuple[str, list[str]]] = [
        ("", [
            f"trace {data['trace']} ({data['platform_id'] or 'no platform id'}), replayed under {data['profile']}",
            f"{_ops(s['chosen'])} replayed ({of}): {s['exact']} exact, {s['other']} other, {s['refused']} refused",
            headline(data),
        ]),
        ("Per op (in trace, exact, other, refused)", [
            f"{o['op']:<{width}} {o['in_trace']:>6} {o['exact']:>6} {o['other']:>6} {o['refused']:>6}"
            for o in data["ops"]
        ]),
    ]  # fmt: skip
    if data["other"]:
        out.append(("Other bits (the impl does not refuse, and is wrong)", [
            f"op {o['index']} {o['op']} in {o['module'] or '(no module)'} ({o['phase']}, step {o['step']}) at "
            f"{o['site']}: {o['detail']}" + "".join(f"; {f}" for f in o["figures"])
            for o in data["other"]
        ]))  # fmt: skip
    if data["refused"]:
        out.append(("Refused (the impl's bounds on this trace)", [
            f"{r['count']}x {r['op']} (op {', '.join(map(str, r['indices'][:REFUSED_SHOWN]))}"
            f"{', ...' if r['count'] > REFUSED_SHOWN else ''}): {r['reason']}"
            for r in data["refused"]
        ]))  # fmt: skip
    if data.get("unindexed"):
        out.append(("Not audited: ops outside the kernel index (no replay; a platform knob may change their bits)", [
            ", ".join(f"{u['op']} {u['count']}" for u in data["unindexed"])
        ]))  # fmt: skip
    gaps = data["impl_known_gaps"]
    out.append(("Known gaps (harness/impl/known_gaps.json)", gaps or ["none"]))
    return out


def _ops(n: int) -> str:
    return f"{n} op" if n == 1 else f"{n} ops"


def render(a: Audit, fmt: str) -> str:
    import json

    from harness.trace.report import sections_html, sections_markdown, sections_text

    data = report_dict(a)
    if fmt == "json":
        return json.dumps(data, indent=1) + "\n"
    if fmt == "markdown":
        return sections_markdown("Trace audit", sections(data))
    if fmt == "html":
        return sections_html("Trace audit", sections(data))
    return sections_text(sections(data))
