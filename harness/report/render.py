"""Reports of a comparison: terminal (rich), markdown, JSON and self-contained HTML.

JSON schema "parity-harness/report", version 3::

    {"schema": "parity-harness/report", "schema_version": 3,
     "kind": "ops" | "nanogpt", "expected": str, "actual": str, "note": str,
     "impl_known_gaps": null | [str],  # the reference implementation's known gaps that concern this
                                       # report; null where the report is not of the reference
                                       # implementation under the fixture's own profile
     "bit_identical": bool, "summary": {...},
     "ops": [{"op": str, "bit_identical": bool, "max_ulp": int, "max_scaled_ulp": float, "sign_flips": int,
              "set_apart": int,
              "cases": [{"case": str, "bit_identical": bool, "max_ulp": int, "max_scaled_ulp": float,
                         "sign_flips": int, "set_apart": int, "tensors": [TensorComparison]}]}],  # kind "ops"
     "nanogpt": {"init_identical": bool,
                 "first_divergence": null | {"step", "stage", "tensor", "detail"},
                 "steps": [{"step", "identical", "loss_ulp", "grad_norm_ulp",
                            "params_differing": {kind: int}, "value_sum_max_rel_diff",
                            "max_value_ulp": int | null, "max_value_scaled_ulp": float | null,
                            "full": [TensorComparison]}]}}

A TensorComparison is {"name", "dtype", "shape", "count", "identical", "signed_zero",
"nan_payload", "non_finite", "max_ulp", "max_ulp_index", "mean_ulp", "histogram",
"first_mismatch": null | {"index", "expected", "expected_hex", "actual", "actual_hex"},
"max_abs_diff", "max_rel_diff", "scale", "scaled_ulp", "sign_flips", "set_apart", "set_apart_differ"};
see harness.core.ulp for the rules. "scaled_ulp" is max|expected - actual| in ULPs of max|expected| (the error at the
tensor's own scale, meaningful where the max ULP is not: near zero), "sign_flips" the elements
whose non-zero values have opposite signs.

Changes from version 1: "impl_known_gaps" is null, not [], where gaps do not apply (so [] says
"none"); "max_scaled_ulp" and "sign_flips" per op and case, "max_value_scaled_ulp" per step,
"scale", "scaled_ulp" and "sign_flips" per tensor are new.

Changes from version 2: "set_apart" and "set_apart_differ" per tensor, "set_apart" per op and case, "nan_set_apart" and
"nan_set_apart_differ" in an ops summary: where one side was recorded under qemu-x86_64 and the other
not, the elements NaN on both sides are not compared (QEMU's NaN where two meet is not a CPU's;
harness.compare.fixtures.qemu_x86_nan_pick), counted there and in the headline; "identical" counts the
compared elements alone.

Several reports (the parity suite's, one per fixture) render as one document: a JSON list of
the above, one markdown file, one HTML page (``render_all``).
"""

from __future__ import annotations

import html
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.compare.fixtures import NanoGPTDiff, OpsDiff, summary_dict
from harness.core.ulp import describe, scaled, set_apart_text

SCHEMA = "parity-harness/report"
SCHEMA_VERSION = 3
FORMATS = ("terminal", "markdown", "json", "html")
_SUFFIXES = {".json": "json", ".md": "markdown", ".html": "html", ".htm": "html"}

# one comparison to report: (diff, note, the impl's known-gap lines or None where they do not apply)
Item = tuple[OpsDiff | NanoGPTDiff, str, "list[str] | None"]


def format_for(path: Path | None, default: str = "terminal") -> str:
    """The report format a file's suffix asks for."""
    return _SUFFIXES.get(path.suffix.lower(), default) if path else default


def _case_figures(tensors: Sequence[Any]) -> dict[str, Any]:
    return {
        "max_ulp": max((t.max_ulp for t in tensors), default=0),
        "max_scaled_ulp": max((t.scaled_ulp for t in tensors), default=0.0),
        "sign_flips": sum(t.sign_flips for t in tensors),
        "set_apart": sum(t.set_apart for t in tensors),
    }


def report_dict(diff: OpsDiff | NanoGPTDiff, note: str = "", gaps: list[str] | None = None) -> dict[str, Any]:
    """The report as data (the JSON schema above); ``gaps`` None where known gaps do not apply."""
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "kind": "ops" if isinstance(diff, OpsDiff) else "nanogpt",
        "expected": diff.a_label,
        "actual": diff.b_label,
        "note": note,
        "impl_known_gaps": None if gaps is None else list(gaps),
        "bit_identical": diff.bit_identical,
        "summary": summary_dict(diff),
    }
    if isinstance(diff, OpsDiff):
        out["ops"] = []
        for op, cases in diff.ops().items():
            figures = _case_figures([t for c in cases for t in c.tensors])
            out["ops"].append({
                "op": op, "bit_identical": all(c.bit_identical for c in cases), **figures,
                "cases": [{"case": c.case, "bit_identical": c.bit_identical, **_case_figures(c.tensors),
                           "tensors": [t.as_dict() for t in c.tensors]} for c in cases],
            })  # fmt: skip
    else:
        out["nanogpt"] = {
            "init_identical": diff.init_identical,
            "first_divergence": None if diff.first is None else vars(diff.first),
            "steps": [
                {"step": s.step, "identical": s.identical, "loss_ulp": s.loss_ulp, "grad_norm_ulp": s.grad_norm_ulp,
                 "params_differing": s.params_differing, "value_sum_max_rel_diff": s.value_sum_max_rel_diff,
                 "max_value_ulp": s.max_value_ulp, "max_value_scaled_ulp": s.max_value_scaled_ulp,
                 "full": [t.as_dict() for t in s.full]}
                for s in diff.steps
            ],
        }  # fmt: skip
    return out


def render(diff: OpsDiff | NanoGPTDiff, fmt: str, note: str = "", gaps: list[str] | None = None) -> str:
    """One report. ``gaps``: lines of the impl's known gaps for this report (harness.impl.known_gaps),
    [] when there are none, None where the report is not of the impl under the fixture's own profile."""
    if fmt == "json":
        return json.dumps(report_dict(diff, note, gaps), indent=1) + "\n"
    return render_all([(diff, note, gaps)], fmt)


def render_all(items: Sequence[Item], fmt: str, problems: Sequence[str] = ()) -> str:
    """Several reports as one document (JSON: a list); ``problems``: lines on what could not be compared."""
    datas = [(report_dict(diff, note, gaps), diff) for diff, note, gaps in items]
    if fmt == "json":
        return json.dumps([d for d, _ in datas], indent=1) + "\n"
    if fmt == "html":
        return _html_page([_html(d) for d, _ in datas], problems)
    one = _markdown if fmt == "markdown" else _terminal
    return "\n".join([*(one(d, diff) for d, diff in datas), *(f"{p}\n" for p in problems)])


def headline(data: dict[str, Any]) -> str:
    """The one-line summary of a report (its JSON data)."""
    s = data["summary"]
    if data["kind"] == "ops":
        where = " where compared" if s["nan_set_apart"] else ""
        cases = f"{s['cases_bit_identical']}/{s['cases']} cases"
        line = f"{s['ops_bit_identical']}/{s['ops']} ops bit-identical{where} ({cases})"
        if s["nan_set_apart"]:
            line += f"; {set_apart_text(s['nan_set_apart'], s['nan_set_apart_differ'])}"
        return line
    first = data["nanogpt"]["first_divergence"]
    where = "no divergence" if first is None else (
        f"first divergence at step {first['step']}, {first['stage']}: {first['detail']}"
    )  # fmt: skip
    return f"{s['steps_bit_identical']}/{s['steps']} steps bit-identical; {where}"


def _scaled_cell(value: float | None, same: bool) -> str:
    return "" if value is None or same else scaled(value)


def _op_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for op in data["ops"]:
        cases = op["cases"]
        same = sum(c["bit_identical"] for c in cases)
        worst = next((t for c in cases for t in c["tensors"] if t["identical"] + t["set_apart"] != t["count"]), None)
        where = (
            "" if worst is None else f"{worst['name']} of {next(c['case'] for c in cases if not c['bit_identical'])}"
        )
        bits = "differs" if not op["bit_identical"] else "=, NaNs apart" if op["set_apart"] else "="
        scaled_ulp = _scaled_cell(op["max_scaled_ulp"], op["bit_identical"])
        rows.append((op["op"], bits, f"{same}/{len(cases)}", str(op["max_ulp"]), scaled_ulp,
                     str(op["sign_flips"] or ""), where))  # fmt: skip
    return rows


def _step_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for s in data["nanogpt"]["steps"]:
        differing = ", ".join(f"{k} {v}" for k, v in s["params_differing"].items() if v) or "-"
        max_ulp = "" if s["max_value_ulp"] is None else str(s["max_value_ulp"])
        rows.append((str(s["step"]), "=" if s["identical"] else "differs", str(s["loss_ulp"]),
                     str(s["grad_norm_ulp"]), differing, f"{s['value_sum_max_rel_diff']:.3g}", max_ulp,
                     _scaled_cell(s["max_value_scaled_ulp"], not s["max_value_ulp"])))  # fmt: skip
    return rows


SCALED_HEAD = "ULP at scale"
_OP_HEAD = ("op", "bits", "cases identical", "max ULP", SCALED_HEAD, "sign flips", "first differing tensor")
_STEP_HEAD = (
    "step",
    "bits",
    "loss ULP",
    "grad norm ULP",
    "parameters differing",
    "max rel diff of sums",
    "max ULP (full)",
    f"{SCALED_HEAD} (full)",
)
SCALED_EXPLAINED = (
    f"{SCALED_HEAD}: the largest difference in ULPs of the expected tensor's largest magnitude, "
    "the error at the tensor's own scale (a max ULP near zero can be huge for a tiny error)"
)


def _terminal(data: dict[str, Any], diff: OpsDiff | NanoGPTDiff) -> str:
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=160, force_terminal=False, color_system=None)
    console.print(f"expected {data['expected']}\nactual   {data['actual']}", soft_wrap=True)
    if data["note"]:
        console.print(data["note"], soft_wrap=True)
    table = Table(*(_OP_HEAD if data["kind"] == "ops" else _STEP_HEAD))
    for row in _op_rows(data) if data["kind"] == "ops" else _step_rows(data):
        table.add_row(*row)
    console.print(table)
    for where, line in _tensor_lines(diff):
        console.print(f"  {where}/{line}", soft_wrap=True)
    console.print(headline(data))
    for line in _gap_lines(data):
        console.print(line, soft_wrap=True)
    return buf.getvalue()


def _tensor_lines(diff: OpsDiff | NanoGPTDiff) -> list[tuple[str, str]]:
    """(op/case, its description) per differing op output and per one with elements set apart."""
    if not isinstance(diff, OpsDiff):
        return []
    return [
        (f"{c.op}/{c.case}", describe(t)) for c in diff.cases for t in c.tensors if not t.bit_identical or t.set_apart
    ]


def _gap_lines(data: dict[str, Any]) -> list[str]:
    gaps = data["impl_known_gaps"]
    if gaps is None:
        return []
    if not gaps:
        return ["known gaps: none"]
    return [f"known gaps: {len(gaps)} (harness/impl/known_gaps.json):", *gaps]


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
    out += [f"- **{headline(data)}**", ""]
    out.append(_md_table(*((_OP_HEAD, _op_rows(data)) if data["kind"] == "ops" else (_STEP_HEAD, _step_rows(data)))))
    out += ["", SCALED_EXPLAINED + "."]
    details = [f"- `{where}` {line}" for where, line in _tensor_lines(diff)]
    if details:
        out += ["", "## Differing tensors", "", *details]
    gaps = _gap_lines(data)
    if len(gaps) == 1:
        out += ["", gaps[0]]
    elif gaps:
        out += ["", f"## {gaps[0].rstrip(':')}", "", *(f"- {g}" for g in gaps[1:])]
    return "\n".join(out) + "\n"


IDENTICAL_COLOUR = "#cfe8cf"
ZERO_ULP_COLOUR = "#f4d58d"  # differs at 0 ULP: signed zero, NaN payload or non-finite
MISSING_COLOUR = "#dddddd"


def heat_colour(value: float | None, identical: bool, top: float = 8.0) -> str:
    """The colour of a heatmap cell: green where identical, yellow to red by log2(value + 1) / ``top``."""
    if identical:
        return IDENTICAL_COLOUR
    if value is None:
        return MISSING_COLOUR
    if not value:
        return ZERO_ULP_COLOUR
    level = min(1.0, math.log2(value + 1) / top)
    return f"#f0{int(200 * (1 - level)):02x}60"


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:100%}"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #bbb;padding:3px 6px;font-size:13px}th{background:#eee}"
    ".scroll{overflow-x:auto;max-width:100%}"
    ".heat td,.heat th{padding:1px 2px;font-size:10px}"
    ".cell{min-width:1.3em;text-align:center;white-space:nowrap}"
    ".legend span{padding:2px 8px;margin-right:4px}"
    "section{border-top:2px solid #888;margin-top:2em}"
)


def _html_page(sections: list[str], problems: Sequence[str] = ()) -> str:
    e = html.escape
    title = "Parity report" if len(sections) == 1 else f"Parity reports ({len(sections)})"
    return "".join([
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title><style>{_CSS}</style>"
        "</head><body>",
        *(f"<section>{s}</section>" if len(sections) > 1 else s for s in sections),
        *(f"<p class='problem'>{e(p)}</p>" for p in problems),
        "</body></html>\n",
    ])  # fmt: skip


def _html(data: dict[str, Any]) -> str:
    """One report as a fragment of a page."""
    e = html.escape
    parts = [
        f"<h1>Parity report: {e(data['kind'])}</h1>",
        f"<p>expected <code>{e(data['expected'])}</code><br>actual <code>{e(data['actual'])}</code></p>",
        f"<p>{e(data['note'])}</p>" if data["note"] else "",
        f"<p><b>{e(headline(data))}</b></p>",
    ]
    if data["kind"] == "ops":
        parts.append(
            "<h2>Heatmap: per output tensor, max ULP and ULP at the tensor's scale</h2>"
            f"<p class='legend'><span style='background:{IDENTICAL_COLOUR}'>bit-identical</span>"
            f"<span style='background:{ZERO_ULP_COLOUR}'>differs, 0 ULP (signed zero, NaN payload or non-finite)"
            f"</span><span style='background:{heat_colour(1, False)}'>about 1 ULP at scale</span>"
            f"<span style='background:{heat_colour(255, False)}'>255 or more at scale</span></p>"
        )
        width = max((len(c["tensors"]) for op in data["ops"] for c in op["cases"]), default=1)
        rows = [f"<tr><th>op</th><th>case</th><th colspan='{width}'>tensors</th></tr>"]
        for op in data["ops"]:
            for case in op["cases"]:
                cells = "".join(_html_cell(t) for t in case["tensors"])
                rows.append(f"<tr><td>{e(op['op'])}</td><td>{e(case['case'])}</td>{cells}</tr>")
        parts.append(_scroll("<table class='heat'>" + "".join(rows) + "</table>"))
        parts.append(_scroll(_html_table(_OP_HEAD, _op_rows(data))))
    else:
        steps = data["nanogpt"]["steps"]
        parts.append("<h2>Divergence heatmap (parameters whose digest differs, per step)</h2>")
        rows = ["<tr><th>kind</th>" + "".join(f"<th>{s['step']}</th>" for s in steps) + "</tr>"]
        for kind in list(steps[0]["params_differing"]) if steps else []:
            counts = [s["params_differing"][kind] for s in steps]
            rows.append(f"<tr><td>{e(kind)}</td>" + "".join(_count_cell(n, n == 0) for n in counts) + "</tr>")
        rows.append("<tr><td>loss ULP</td>" + "".join(_count_cell(s["loss_ulp"], s["loss_ulp"] == 0) for s in steps))
        parts.append(_scroll("<table class='heat'>" + "".join(rows) + "</tr></table>"))
        parts.append(_scroll(_html_table(_STEP_HEAD, _step_rows(data))))
    parts.append(f"<p>{e(SCALED_EXPLAINED)}.</p>")
    gaps = _gap_lines(data)
    if len(gaps) == 1:
        parts.append(f"<p>{e(gaps[0])}</p>")
    elif gaps:
        parts.append(f"<h2>{e(gaps[0].rstrip(':'))}</h2><ul>" + "".join(f"<li>{e(g)}</li>" for g in gaps[1:]) + "</ul>")
    return "".join(parts)


def _scroll(table: str) -> str:
    return f"<div class='scroll'>{table}</div>"


def _count_cell(n: int, same: bool) -> str:
    return f"<td class='cell' style='background:{heat_colour(n, same, 24)}'>{n or '='}</td>"


def _html_cell(t: dict[str, Any]) -> str:
    same = t["identical"] + t["set_apart"] == t["count"]
    style = f"background:{heat_colour(t['scaled_ulp'] if t['max_ulp'] else 0, same)}"
    label = "=" if same else f"{t['max_ulp']}<br>{scaled(t['scaled_ulp'])} at scale"
    title, name = html.escape(describe_dict(t)), html.escape(t["name"])
    return f"<td class='cell' style='{style}' title='{title}'>{name}<br>{label}</td>"


def describe_dict(t: dict[str, Any]) -> str:
    from harness.core.ulp import Mismatch, TensorComparison

    fields = dict(t)
    fields["first_mismatch"] = Mismatch(**t["first_mismatch"]) if t["first_mismatch"] else None
    return describe(TensorComparison(**fields))


def _html_table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    e = html.escape
    out = ["<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>" for row in rows]
    return "".join(out) + "</table>"
