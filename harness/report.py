"""Reports of a comparison: terminal (rich), markdown, JSON and self-contained HTML.

JSON schema "parity-harness/report", version 1::

    {"schema": "parity-harness/report", "schema_version": 1,
     "kind": "ops" | "nanogpt", "expected": str, "actual": str, "note": str,
     "impl_known_gaps": [str],   # the reference implementation's known gaps that concern this report
     "bit_identical": bool, "summary": {...},
     "ops": [{"op": str, "bit_identical": bool, "max_ulp": int,
              "cases": [{"case": str, "bit_identical": bool, "max_ulp": int,
                         "tensors": [TensorComparison]}]}],            # kind "ops"
     "nanogpt": {"init_identical": bool,
                 "first_divergence": null | {"step", "stage", "tensor", "detail"},
                 "steps": [{"step", "identical", "loss_ulp", "grad_norm_ulp",
                            "params_differing": {kind: int}, "value_sum_max_rel_diff",
                            "max_value_ulp": int | null, "full": [TensorComparison]}]}}

A TensorComparison is {"name", "dtype", "shape", "count", "identical", "signed_zero",
"nan_payload", "non_finite", "max_ulp", "max_ulp_index", "mean_ulp", "histogram",
"first_mismatch": null | {"index", "expected", "expected_hex", "actual", "actual_hex"},
"max_abs_diff", "max_rel_diff"}; see harness.ulp for the rules.
"""

from __future__ import annotations

import html
import io
import json
import math
from typing import Any

from harness.compare import NanoGPTDiff, OpsDiff, summary_dict
from harness.ulp import describe

SCHEMA = "parity-harness/report"
SCHEMA_VERSION = 1
FORMATS = ("terminal", "markdown", "json", "html")


def report_dict(diff: OpsDiff | NanoGPTDiff, note: str = "", gaps: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "kind": "ops" if isinstance(diff, OpsDiff) else "nanogpt",
        "expected": diff.a_label,
        "actual": diff.b_label,
        "note": note,
        "impl_known_gaps": list(gaps or []),
        "bit_identical": diff.bit_identical,
        "summary": summary_dict(diff),
    }
    if isinstance(diff, OpsDiff):
        out["ops"] = [
            {
                "op": op,
                "bit_identical": all(c.bit_identical for c in cases),
                "max_ulp": max(c.max_ulp for c in cases),
                "cases": [
                    {
                        "case": c.case,
                        "bit_identical": c.bit_identical,
                        "max_ulp": c.max_ulp,
                        "tensors": [t.as_dict() for t in c.tensors],
                    }
                    for c in cases
                ],
            }
            for op, cases in diff.ops().items()
        ]
    else:
        out["nanogpt"] = {
            "init_identical": diff.init_identical,
            "first_divergence": None if diff.first is None else vars(diff.first),
            "steps": [
                {"step": s.step, "identical": s.identical, "loss_ulp": s.loss_ulp, "grad_norm_ulp": s.grad_norm_ulp,
                 "params_differing": s.params_differing, "value_sum_max_rel_diff": s.value_sum_max_rel_diff,
                 "max_value_ulp": s.max_value_ulp, "full": [t.as_dict() for t in s.full]}
                for s in diff.steps
            ],
        }  # fmt: skip
    return out


def render(diff: OpsDiff | NanoGPTDiff, fmt: str, note: str = "", gaps: list[str] | None = None) -> str:
    """``gaps``: lines of the impl's known gaps for this report (harness.impl.known_gaps)."""
    data = report_dict(diff, note, gaps)
    if fmt == "json":
        return json.dumps(data, indent=1, sort_keys=False) + "\n"
    if fmt == "markdown":
        return _markdown(data, diff)
    if fmt == "html":
        return _html(data)
    return _terminal(data, diff)


def _headline(data: dict[str, Any]) -> str:
    s = data["summary"]
    if data["kind"] == "ops":
        return f"{s['ops_bit_identical']}/{s['ops']} ops bit-identical ({s['cases_bit_identical']}/{s['cases']} cases)"
    first = data["nanogpt"]["first_divergence"]
    where = "no divergence" if first is None else (
        f"first divergence at step {first['step']}, {first['stage']}: {first['detail']}"
    )  # fmt: skip
    return f"{s['steps_bit_identical']}/{s['steps']} steps bit-identical; {where}"


def _op_rows(data: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for op in data["ops"]:
        cases = op["cases"]
        same = sum(c["bit_identical"] for c in cases)
        worst = next((t for c in cases for t in c["tensors"] if t["identical"] != t["count"]), None)
        where = (
            "" if worst is None else f"{worst['name']} of {next(c['case'] for c in cases if not c['bit_identical'])}"
        )
        rows.append(
            (
                op["op"],
                "=" if op["bit_identical"] else "differs",
                f"{same}/{len(cases)}",
                str(op["max_ulp"]),
                where,
            )
        )
    return rows


def _step_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for s in data["nanogpt"]["steps"]:
        differing = ", ".join(f"{k} {v}" for k, v in s["params_differing"].items() if v) or "-"
        max_ulp = "" if s["max_value_ulp"] is None else str(s["max_value_ulp"])
        rows.append((str(s["step"]), "=" if s["identical"] else "differs", str(s["loss_ulp"]),
                     str(s["grad_norm_ulp"]), differing, f"{s['value_sum_max_rel_diff']:.3g}", max_ulp))  # fmt: skip
    return rows


_OP_HEAD = ("op", "bits", "cases identical", "max ULP", "first differing tensor")
_STEP_HEAD = (
    "step",
    "bits",
    "loss ULP",
    "grad norm ULP",
    "parameters differing",
    "max rel diff of sums",
    "max ULP (full)",
)


def _terminal(data: dict[str, Any], diff: OpsDiff | NanoGPTDiff) -> str:
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=160, force_terminal=False, color_system=None)
    console.print(f"expected {data['expected']}\nactual   {data['actual']}")
    if data["note"]:
        console.print(data["note"])
    table = Table(*(_OP_HEAD if data["kind"] == "ops" else _STEP_HEAD))
    for row in _op_rows(data) if data["kind"] == "ops" else _step_rows(data):
        table.add_row(*row)
    console.print(table)
    if isinstance(diff, OpsDiff):
        for case in diff.cases:
            for t in case.tensors:
                if not t.bit_identical:
                    console.print(f"  {case.op}/{case.case}/{describe(t)}", soft_wrap=True)
    console.print(_headline(data))
    for line in _gap_lines(data):
        console.print(line, soft_wrap=True)
    return buf.getvalue()


def _gap_lines(data: dict[str, Any]) -> list[str]:
    gaps = data["impl_known_gaps"]
    if not gaps:
        return []
    return [f"Known gaps of the reference implementation ({len(gaps)}, harness/impl/known_gaps.json):", *gaps]


def _md_table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    esc = lambda v: str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _markdown(data: dict[str, Any], diff: OpsDiff | NanoGPTDiff) -> str:
    out = [
        f"# Parity report: {data['kind']}",
        "",
        f"- expected: `{data['expected']}`",
        f"- actual: `{data['actual']}`",
    ]
    if data["note"]:
        out.append(f"- {data['note']}")
    out += [f"- **{_headline(data)}**", ""]
    if data["kind"] == "ops":
        out.append(_md_table(_OP_HEAD, _op_rows(data)))
        details = [f"- `{c.op}/{c.case}` {describe(t)}" for c in diff.cases for t in c.tensors if not t.bit_identical]
        if details:
            out += ["", "## Differing tensors", "", *details]
    else:
        out.append(_md_table(_STEP_HEAD, _step_rows(data)))
    gaps = _gap_lines(data)
    if gaps:
        out += ["", f"## {gaps[0].rstrip(':')}", "", *(f"- {g}" for g in gaps[1:])]
    return "\n".join(out) + "\n"


def _heat(ulp: int | None, identical: bool) -> str:
    if identical:
        return "#cfe8cf"
    if not ulp:
        return "#f4d58d"
    level = min(1.0, math.log2(ulp + 1) / 24)
    red, green = 240, int(200 * (1 - level))
    return f"#{red:02x}{green:02x}60"


def _html(data: dict[str, Any]) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Parity report</title><style>",
        "body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #bbb;padding:3px 6px;font-size:13px}th{background:#eee}"
        ".cell{min-width:4em;text-align:center}.legend span{padding:2px 8px;margin-right:4px}",
        "</style></head><body>",
        f"<h1>Parity report: {e(data['kind'])}</h1>",
        f"<p>expected <code>{e(data['expected'])}</code><br>actual <code>{e(data['actual'])}</code></p>",
        f"<p>{e(data['note'])}</p>" if data["note"] else "",
        f"<p><b>{e(_headline(data))}</b></p>",
        "<p class='legend'><span style='background:#cfe8cf'>bit-identical</span>"
        "<span style='background:#f4d58d'>differs, 0 ULP (signed zero, NaN payload or non-finite)</span>"
        "<span style='background:#f0c860'>few ULP</span><span style='background:#f00060'>many ULP</span></p>",
    ]
    if data["kind"] == "ops":
        parts.append(
            "<h2>ULP heatmap (max ULP per output tensor)</h2>"
            "<table><tr><th>op</th><th>case</th><th colspan='8'>tensors</th></tr>"
        )
        for op in data["ops"]:
            for case in op["cases"]:
                cells = "".join(_html_cell(t) for t in case["tensors"])
                parts.append(f"<tr><td>{e(op['op'])}</td><td>{e(case['case'])}</td>{cells}</tr>")
        parts.append("</table>")
        parts.append(_html_table(_OP_HEAD, _op_rows(data)))
    else:
        steps = data["nanogpt"]["steps"]
        parts.append("<h2>Divergence heatmap (parameters whose digest differs, per step)</h2><table><tr><th>kind</th>")
        parts.append("".join(f"<th>{s['step']}</th>" for s in steps) + "</tr>")
        kinds = list(steps[0]["params_differing"]) if steps else []
        for kind in kinds:
            counts = [s["params_differing"][kind] for s in steps]
            cells = "".join(f"<td class='cell' style='background:{_heat(n, n == 0)}'>{n or '='}</td>" for n in counts)
            parts.append(f"<tr><td>{e(kind)}</td>{cells}</tr>")
        ulps = [s["loss_ulp"] for s in steps]
        loss = "".join(f"<td class='cell' style='background:{_heat(u, u == 0)}'>{u or '='}</td>" for u in ulps)
        parts.append(f"<tr><td>loss ULP</td>{loss}</tr></table>")
        parts.append(_html_table(_STEP_HEAD, _step_rows(data)))
    gaps = _gap_lines(data)
    if gaps:
        parts.append(f"<h2>{e(gaps[0].rstrip(':'))}</h2><ul>" + "".join(f"<li>{e(g)}</li>" for g in gaps[1:]) + "</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)


def _html_cell(t: dict[str, Any]) -> str:
    same = t["identical"] == t["count"]
    style = f"background:{_heat(t['max_ulp'], same)}"
    label = "=" if same else str(t["max_ulp"])
    title, name = html.escape(describe_dict(t)), html.escape(t["name"])
    return f"<td class='cell' style='{style}' title='{title}'>{name}<br>{label}</td>"


def describe_dict(t: dict[str, Any]) -> str:
    from harness.ulp import Mismatch, TensorComparison

    fields = dict(t)
    fields["first_mismatch"] = Mismatch(**t["first_mismatch"]) if t["first_mismatch"] else None
    return describe(TensorComparison(**fields))


def _html_table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    e = html.escape
    out = ["<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>" for row in rows]
    return "".join(out) + "</table>"
