"""Reports of a trace diff: terminal, markdown, JSON and self-contained HTML. Torch-free.

JSON schema "parity-harness/trace-diff", version 2::

    {"schema": "parity-harness/trace-diff", "schema_version": 2, "kind": "trace",
     "expected": str, "actual": str, "bit_identical": bool,
     "summary": {"ops_a", "ops_b", "matched", "only_a", "only_b", "differing_ops"},
     "platforms": {knob: [A, B]},                      # the provenance knobs that differ
     "root_cause": null | {"op", "index_a", "index_b", "module", "site", "phase", "step",
                           "outputs": [str], "ulp": [TensorComparison], "ulp_lines": [str],
                           "knob": str, "knobs": [str], "kernel": str, "explanation": str,
                           "verified": bool, "verification": str, "kind": str, "reads": [Read]},
     "reach": null | {                                 # null: the traces do not record their inputs' writers
         "target": str, "target_ops": [int], "target_differs": bool,
         "root_causes": [Op + {"path": [Op | CodePath], "reaches": str,  # each live root, its path to the target,
                               "knob": str, "verified": bool, "verification": str,  # its own verdict,
                               "kind": str, "reads": [Read]}],   # and what kind of root it is
         "dead": [Op + {"died": str, "kind": str, "reads": [Read],        # divergences that never reach it;
                        "knob"?: str, "explanation"?: str}],              # a data-flow one's knob and why
         "dead_total": int,
         "unresolved": [str]},                                   # where the walk back could not go on
     "code_path": null | {"only_a": [Op], "only_b": [Op]},   # ops one side ran before the first difference
     "first_difference": null | Op,
     "modules": [Op],                                  # the first differing op of each module
     "steps": [{"step", "ops_a", "ops_b", "matched", "differing", "first": null | Op,
                "loss_a", "loss_b", "loss_ulp"}]}

An Op is {"op", "index_a", "index_b", "module", "site", "phase", "step", "outputs"} (an op only
one side ran has one index null). TensorComparison is harness.report.render's (harness.core.ulp).
A CodePath, a step of a root's path of its own kind (added within
version 2: a path's steps without "kind" are Ops), is {"kind": "code-path", "a_ops": [first, last] | null,
"b_ops": [first, last] | null, "decided": null | Op, "text": str}: between the Op before it, an aligned
op that differs, and the Op after it, which read what they made, the two runs ran other ops (A's ops
first..last and B's, on each side's own indices, not aligned with the other side's; null where that
side's writer was itself aligned, with another op); "decided" is the aligned op that handed a value
back to Python (``.item()``) before the paths parted, where the walk found the difference there
rather than in what those ops read (harness.trace.reach).
"root_cause" is the first live root (version 1 had the first op with identical inputs and
differing outputs, live or not, as traces before version 3 still give).

A root's or dead divergence's "kind" is "kernel" (identical inputs, differing outputs: a kernel's
bits), "host-data" (a tensor made from NumPy or Python data by ``torch.tensor`` or ``torch.from_numpy``,
ATen's ``lift_fresh``, holds other values; a DataLoader worker's batch, made in another process and
installed from shared memory by ATen's ``set_`` of a storage, holds other values, at the line that
received it; or the root reads data that no traced op wrote in either run, ``torch.frombuffer``'s, in
two traces recorded from their program's start, its explanation the first op that read it: its
"verification" the trace's proof, its knob "data made outside torch's ops") or "data-flow" (the two
runs read other tensors, each the same in both: harness.trace.reach),
whose "reads" name, per input read, both sides' producers: a Read is {"input": str, "a": Producer,
"b": Producer, "text": str}, a Producer {"index" (on its own side), "aligned" (the other side's
aligned op), "op", "module", "site", "phase", "step", "output" (the output read, where one op gave
both sides' tensors: else "")}, or null for a tensor made before the trace, which then counts as
the same in both runs because the other side held its bits too: "a_held_by_b" ("b_held_by_a") is
the first op of B (A) that read or wrote a tensor of those bits (null where a traced op wrote the
tensor; both added within version 2). A data-flow root's
"verification" is the trace's proof ("shown by the trace ..."), never "verified" by the impl; its
knob is Python's string hash seed where that was random or differs (harness.trace.cause). "kind",
"reads" and a dead divergence's "knob" and "explanation" (data-flow ones only) were added within
version 2: readers of older reports take a missing "kind" as "kernel".
"""

from __future__ import annotations

import html
import json
from typing import Any

from harness.formats.trace import OpRecord, Trace
from harness.trace.diff import Divergence, TraceDiff, differing_outputs
from harness.trace.impl_ops import packet
from harness.trace.reach import Dead, Read, Root, host_data_op

SCHEMA = "parity-harness/trace-diff"
SCHEMA_VERSION = 2
_CODE_PATH_SHOWN = 12


def _op(a: OpRecord | None, b: OpRecord | None = None, outputs: list[str] | None = None) -> dict[str, Any]:
    ref = a or b
    assert ref is not None
    return {
        "op": ref.op, "index_a": a.index if a else None, "index_b": b.index if b else None,
        "module": ref.module, "site": ref.site, "phase": ref.phase, "step": ref.step, "outputs": outputs or [],
    }  # fmt: skip


def _div(d: Divergence | None) -> dict[str, Any] | None:
    return None if d is None else _op(d.a, d.b, d.outputs)


def _matched(diff: TraceDiff, index: int) -> dict[str, Any]:
    """An op of A by index, with its aligned op of B and the outputs that differ."""
    oa = diff.a.ops[index]
    ob = diff.b.ops[diff.a2b[index]] if index in diff.a2b else None
    return _op(oa, ob, differing_outputs(oa, ob) if ob is not None else [])


def _producer(trace: Trace, index: int, aligned: dict[int, int], output: str) -> dict[str, Any] | None:
    """The op of one side that wrote what a data-flow divergence read (None: made before the trace)."""
    if index < 0:
        return None
    op = trace.ops[index]
    return {
        "index": index, "aligned": aligned.get(index), "op": op.op, "module": op.module, "site": op.site,
        "phase": op.phase, "step": op.step, "output": output,
    }  # fmt: skip


def _reads(diff: TraceDiff, reads: list[Read]) -> list[dict[str, Any]]:
    from harness.trace.cause import read_text

    return [
        {"input": x.input, "a": _producer(diff.a, x.src_a, diff.a2b, x.output_a),
         "b": _producer(diff.b, x.src_b, diff.b2a, x.output_b), "text": read_text(diff, x),
         "a_held_by_b": x.held_a if x.src_a < 0 else None, "b_held_by_a": x.held_b if x.src_b < 0 else None}
        for x in reads
    ]  # fmt: skip


def _kind(diff: TraceDiff, index: int, reads: list[Read]) -> dict[str, Any]:
    """What kind of divergence op ``index`` of A is: "data-flow", "host-data" or "kernel"."""
    host = host_data_op(diff.a.ops[index].op) or bool(diff.reach and diff.reach.outside_at(index))
    return {"kind": "data-flow" if reads else "host-data" if host else "kernel", "reads": _reads(diff, reads)}


def _dead(diff: TraceDiff, d: Dead) -> dict[str, Any]:
    """A dead divergence; one the trace shows (data flow, host data) with its knob and why."""
    from harness.trace.cause import trace_shown_cause

    out = {**_matched(diff, d.index), "died": d.died, **_kind(diff, d.index, d.reads)}
    c = trace_shown_cause(diff, d.index)
    if c is not None:
        out.update(knob=c.knob, explanation=c.explanation)
    return out


def _reach(diff: TraceDiff) -> dict[str, Any] | None:
    from harness.trace.cause import trace_shown_cause

    r = diff.reach
    if r is None:
        return None
    causes = {d.a.index: c for d, c in zip(diff.roots, diff.causes, strict=False) if c is not None}
    for root in r.roots:  # a divergence the trace shows needs no re-run: its cause is the trace's
        if root.index not in causes and (c := trace_shown_cause(diff, root.index)) is not None:
            causes[root.index] = c
    return {
        "target": r.target.label, "target_ops": list(r.target.ops), "target_differs": r.target_differs,
        "root_causes": [
            {**_matched(diff, root.index), "path": _path(diff, root),
             "reaches": root.target, **_verdict(causes.get(root.index)), **_kind(diff, root.index, root.reads)}
            for root in r.roots
        ],
        "dead": [_dead(diff, d) for d in r.dead],
        "dead_total": r.dead_total,
        "unresolved": list(r.unresolved),
    }  # fmt: skip


def _path(diff: TraceDiff, root: Root) -> list[dict[str, Any]]:
    """A root's dependency path to the target: its ops, and a step of kind "code-path" where it goes
    from an op through ops the two runs did not both run to the op that read them."""
    out: list[dict[str, Any]] = []
    for i in root.path:
        out.append(_matched(diff, i))
        cp = root.through.get(i)
        if cp is not None:
            out.append({
                "kind": "code-path", "a_ops": list(cp.a_ops) if cp.a_ops else None,
                "b_ops": list(cp.b_ops) if cp.b_ops else None,
                "decided": _matched(diff, cp.decided) if cp.decided >= 0 else None, "text": cp.text(),
            })  # fmt: skip
    return out


def _verdict(c: Any) -> dict[str, Any]:
    """A root's knob and verdict (harness.trace.cause.Cause, or None where none was made)."""
    if c is None:
        return {"knob": "unexplained", "verified": False, "verification": "not attempted"}
    return {"knob": c.knob, "verified": bool(c.verified), "verification": c.verification}


def report_dict(diff: TraceDiff) -> dict[str, Any]:
    from harness.trace.cause import trace_knob_values

    va, vb = trace_knob_values(diff.a), trace_knob_values(diff.b)
    root = None
    if diff.root_cause is not None:
        root = _div(diff.root_cause)
        c = diff.cause
        if c is None:
            from harness.trace.cause import trace_shown_cause

            c = trace_shown_cause(diff, diff.root_cause.a.index)
        root.update(
            ulp=[f.comparison for f in c.figures] if c else [],
            ulp_lines=[f.line for f in c.figures] if c else [],
            knob=c.knob if c else "unexplained", knobs=list(c.knobs) if c else [], kernel=c.kernel if c else "",
            explanation=c.explanation if c else "", verified=bool(c and c.verified),
            verification=c.verification if c else "",
        )  # fmt: skip
        index = diff.root_cause.a.index
        root.update(_kind(diff, index, diff.reach.reads_at(index) if diff.reach else []))
    cp = diff.code_path
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "kind": "trace",
        "expected": diff.a.label, "actual": diff.b.label, "bit_identical": diff.bit_identical,
        "summary": {
            "ops_a": len(diff.a.ops), "ops_b": len(diff.b.ops), "matched": len(diff.pairs) - diff.only_a - diff.only_b,
            "only_a": diff.only_a, "only_b": diff.only_b, "differing_ops": diff.differing_ops,
        },
        "platforms": {k: [va[k], vb[k]] for k in va if va[k] != vb[k]},
        "root_cause": root,
        "reach": _reach(diff),
        "code_path": None if cp is None else {
            "only_a": [_op(o) for o in cp.a_ops], "only_b": [_op(None, o) for o in cp.b_ops],
        },
        "first_difference": _div(diff.first_difference),
        "modules": [_div(d) for d in diff.modules],
        "steps": [
            {"step": s.step, "ops_a": s.ops_a, "ops_b": s.ops_b, "matched": s.matched, "differing": s.differing,
             "first": _div(s.first), "loss_a": s.loss_a, "loss_b": s.loss_b, "loss_ulp": s.loss_ulp}
            for s in diff.steps
        ],
        "notes": list(diff.notes),
    }  # fmt: skip


def render(diff: TraceDiff, fmt: str) -> str:
    data = report_dict(diff)
    if fmt == "json":
        return json.dumps(data, indent=1) + "\n"
    if fmt == "markdown":
        return _markdown(data)
    if fmt == "html":
        return _html(data)
    return _terminal(data)


def _where(o: dict[str, Any]) -> str:
    idx = "/".join("-" if o[k] is None else str(o[k]) for k in ("index_a", "index_b"))
    module = o["module"] or "(no module)"
    return f"op {idx} {o['op']} in {module} ({o['phase']}, step {o['step']}) at {o['site']}"


def headline(data: dict[str, Any]) -> str:
    s = data["summary"]
    if data["bit_identical"]:
        return f"bit-identical: {s['ops_a']} ops, every output the same"
    root = data["root_cause"]
    reach = data["reach"]
    if root is not None:
        verdict = "verified" if root["verified"] else "not verified"
        if root.get("kind") == "data-flow":
            verdict = "a divergence of the program's data flow: the runs read other tensors, shown by the trace"
        elif root.get("kind") == "host-data":
            verdict = "shown by the trace"
        more = reach["root_causes"][1:] if reach else []
        kernels = [r for r in more if r.get("kind", "kernel") == "kernel"]
        proven = sum(r["verified"] for r in kernels)
        tried = any(not r["verification"].startswith("not attempted") for r in kernels)
        flows = sum(r.get("kind") == "data-flow" for r in more)
        hosts = len(more) - len(kernels) - flows
        of = f", {proven} of them verified" if tried else ""
        of += f", {flows} of them where the program read other tensors" if flows else ""
        of += f", {hosts} of them data made outside torch's ops" if hosts else ""
        also = f" (and {len(more)} more root causes that reach it{of})" if more else ""
        return f"root cause: {_where(root)}; knob: {root['knob']} ({verdict}){also}"
    if reach is not None and not reach["target_differs"]:
        flows = [d for d in reach["dead"] if d.get("kind") == "data-flow"]
        read = (
            f", {len(flows)} of them where the program read other tensors (knob: {flows[0]['knob']})" if flows else ""
        )
        return (
            f"{s['differing_ops']} ops differ, but {reach['target']} is bit-identical: no difference reaches it "
            f"({reach['dead_total']} divergences die on the way{read})"
        )
    if reach is not None and reach["unresolved"]:
        return f"{reach['target']} differs from a source the trace cannot see: {reach['unresolved'][0]}"
    if data["code_path"] is not None:
        return "no root cause among matched ops: the first difference follows ops only one side ran (a code path)"
    return f"{s['differing_ops']} ops differ, {s['only_a']} only in A, {s['only_b']} only in B; no root cause found"


def _lines(data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(section title, lines) shared by the text formats."""
    s = data["summary"]
    out: list[tuple[str, list[str]]] = [
        ("", [
            f"A {data['expected']}", f"B {data['actual']}",
            f"{s['ops_a']} vs {s['ops_b']} ops, {s['matched']} aligned, {s['only_a']} only in A, "
            f"{s['only_b']} only in B, {s['differing_ops']} aligned ops differ",
            *(f"platforms differ in {k}: {a} vs {b}" for k, (a, b) in data["platforms"].items()),
            headline(data),
        ]),
    ]  # fmt: skip
    root = data["root_cause"]
    if root is not None:
        out.append(
            ("Root cause", [
                _where(root), (
                    f"differing outputs: {', '.join(root['outputs'])}"
                    if root["outputs"]
                    else "differing outputs: none returned (written in place, seen where later ops read them)"
                ), *root["ulp_lines"],
                *([_KIND_LINES[root["kind"]]] if root.get("kind") in _KIND_LINES else []),
                f"knob: {root['knob']}", f"why: {root['explanation']}", f"verification: {root['verification']}",
            ])
        )  # fmt: skip
    reach = data["reach"]
    if reach is not None:
        live = [f"target: {reach['target']}"]
        for r in reach["root_causes"]:
            hops = _hops(r["path"])
            ops = sum("index_a" in o for o in r["path"])
            if ops == 1:
                line = f"{_where(r)}; it is the target"
            else:
                line = f"{_where(r)}; reaches {r['reaches']} through {ops - 1} ops: {hops}"
            verdict = "verified" if r["verified"] else r["verification"]
            live.append(f"{line}; knob: {r['knob']} ({verdict})")
        live += [f"unresolved: {u}" for u in reach["unresolved"]]
        out.append(("Root causes that reach the target", live))
        if reach["dead"]:
            dead = [f"{_where(d)}: {d['died']}{_read_other(d)}" for d in reach["dead"]]
            more = reach["dead_total"] - len(reach["dead"])
            out.append(("Divergences that never reach the target", dead + ([f"... {more} more"] if more else [])))
    cp = data["code_path"]
    if cp is not None:
        shown = [f"only in A: {_where(o)}" for o in cp["only_a"][:_CODE_PATH_SHOWN]]
        shown += [f"only in B: {_where(o)}" for o in cp["only_b"][:_CODE_PATH_SHOWN]]
        more = len(cp["only_a"]) + len(cp["only_b"]) - len(shown)
        out.append(
            ("Ops only one side ran before the first difference", shown + ([f"... {more} more"] if more else []))
        )
    if data["modules"]:
        out.append(("First differing op per module", [_where(o) for o in data["modules"]]))
    steps = []
    for st in data["steps"]:
        loss = "" if st["loss_ulp"] is None else f", loss {st['loss_a']!r} vs {st['loss_b']!r} ({st['loss_ulp']} ULP)"
        first = f"; first: {_where(st['first'])}" if st["first"] else ""
        steps.append(f"step {st['step']}: {st['differing']} of {st['matched']} aligned ops differ{loss}{first}")
    out.append(("Per training step", steps))
    if data["notes"]:
        out.append(("Notes", data["notes"]))
    return out


_KIND_LINES = {
    "data-flow": "kind: a divergence of the program's data flow (the runs read other tensors)",
    "host-data": "kind: data made outside torch's ops (a tensor made from NumPy or Python data, or in another process)",
}


def _read_other(d: dict[str, Any]) -> str:
    """What a dead divergence of the data flow read, or that it is data made outside torch, and its
    knob ("" for a kernel's)."""
    if d.get("kind") == "host-data":
        return f"; knob: {d['knob']}; why: {d['explanation']}"
    if d.get("kind") != "data-flow":
        return ""
    reads = "; ".join(r["text"] for r in d["reads"])
    return f"; it read other tensors ({reads}); knob: {d['knob']}; why: {d['explanation']}"


def _hops(path: list[dict[str, Any]], shown: int = 4) -> str:
    """A dependency path as "12 addmm -> 15 gelu -> ...", its middle elided past 2 * shown ops; a code
    path's step in brackets ("7 index -> [a code path that differs (A's ops 8..8 ...)] -> 9 mul")."""
    names = [f"[{o['text']}]" if o.get("kind") == "code-path" else f"{o['index_a']} {packet(o['op'])}" for o in path]
    if len(names) > 2 * shown:
        names = [*names[:shown], f"... {len(names) - 2 * shown} ops ...", *names[-shown:]]
    return " -> ".join(names)


def _terminal(data: dict[str, Any]) -> str:
    return sections_text(_lines(data))


def _markdown(data: dict[str, Any]) -> str:
    return sections_markdown("Trace diff", _lines(data))


Sections = list[tuple[str, list[str]]]  # (title, lines); the untitled first section is the headline's


def sections_text(sections: Sections) -> str:
    """Sections as terminal text: each title, then its lines indented."""
    text = []
    for title, lines in sections:
        if title:
            text.append(f"\n{title}:")
        text += [f"  {ln}" if title else ln for ln in lines]
    return "\n".join(text) + "\n"


def sections_markdown(heading: str, sections: Sections) -> str:
    """Sections as Markdown under ``heading``: a list per section."""
    text = [f"# {heading}", ""]
    for title, lines in sections:
        if title:
            text += ["", f"## {title}", ""]
        text += [f"- {ln}" for ln in lines]
    return "\n".join(text) + "\n"


def sections_html(heading: str, sections: Sections, tail: str = "") -> str:
    """Sections as a self-contained HTML page under ``heading``, ``tail`` (HTML) after them."""
    e = html.escape
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(heading)}</title><style>",
        "body{font-family:system-ui,sans-serif;margin:2em}td,th{border:1px solid #bbb;padding:3px 6px;"
        "font-size:13px}table{border-collapse:collapse}.same{background:#cfe8cf}.diff{background:#f0a070}",
        f"</style></head><body><h1>{e(heading)}</h1>",
    ]
    for title, lines in sections:
        if title:
            parts.append(f"<h2>{e(title)}</h2>")
        parts.append("<ul>" + "".join(f"<li>{e(ln)}</li>" for ln in lines) + "</ul>")
    return "".join(parts) + tail + "</body></html>\n"


def _html(data: dict[str, Any]) -> str:
    rows = ["<h2>Differing aligned ops per step</h2><table><tr><th>step</th><th>differing</th><th>loss ULP</th></tr>"]
    for st in data["steps"]:
        cls = "same" if st["differing"] == 0 else "diff"
        ulp = "" if st["loss_ulp"] is None else str(st["loss_ulp"])
        rows.append(
            f"<tr><td>{st['step']}</td><td class='{cls}'>{st['differing']}/{st['matched']}</td><td>{ulp}</td></tr>"
        )
    return sections_html("Trace diff", _lines(data), "".join(rows) + "</table>")
