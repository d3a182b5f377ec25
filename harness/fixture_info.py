"""Reading any fixture by its kind, and describing it for people (info, list, verify)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import nanogpt_fixture, op_fixture, upstream_fixture
from harness.errors import FixtureError
from harness.nanogpt_fixture import NanoGPTFixture, hex_digest
from harness.op_fixture import OpFixture
from harness.store import FixtureReader

Fixture = OpFixture | NanoGPTFixture
_LONG_FIELDS = ("torch_config", "torch_parallel_info", "cpu_flags", "mkl_verbose_banner")


def fixture_kind(path: str | Path) -> str:
    with FixtureReader(path) as reader:
        return reader.kind


# per fixture kind: its completeness and consistency checks, run before any tensor is read
STRUCTURE_CHECKS: dict[str, Callable[[FixtureReader], None]] = {
    op_fixture.KIND: op_fixture.check_op_fixture,
    nanogpt_fixture.KIND: nanogpt_fixture.check_nanogpt_fixture,
    upstream_fixture.KIND: upstream_fixture.check_upstream_fixture,
}


def check_structure(reader: FixtureReader) -> None:
    """The completeness and consistency checks of the fixture's kind (no tensor data read)."""
    check = STRUCTURE_CHECKS.get(reader.kind)
    if check is None:
        raise FixtureError(reader.path, f"unknown fixture kind '{reader.kind}'")
    check(reader)


def read_fixture(path: str | Path) -> Fixture:
    """Read and verify a fixture of any known kind."""
    kind = fixture_kind(path)
    if kind == op_fixture.KIND:
        return op_fixture.read_op_fixture(path)
    if kind == nanogpt_fixture.KIND:
        return nanogpt_fixture.read_nanogpt_fixture(path)
    if kind == upstream_fixture.KIND:
        return upstream_fixture.read_upstream_fixture(path)
    raise FixtureError(path, f"unknown fixture kind '{kind}'")


def contents_summary(kind: str, attrs: dict[str, Any]) -> str:
    if kind == upstream_fixture.KIND:
        return f"nanogpt-upstream-{attrs.get('config', {}).get('name', '?')}, {attrs.get('steps', '?')} steps"
    if kind == nanogpt_fixture.KIND:
        return f"nanogpt-{attrs.get('config', {}).get('name', '?')}, {attrs.get('steps', '?')} steps"
    return f"{len(attrs.get('ops', []))} ops"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip() for row in (headers, *rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _field(key: str, value: Any, full: bool) -> str:
    if key in _LONG_FIELDS and not full:
        text = str(value)
        return (
            f"<{len(text.splitlines())} lines, --full shows>"
            if "\n" in text
            else f"<{len(text.split())} words, --full shows>"
        )
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items()) or "-"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def describe(fx: Fixture, *, full: bool = False) -> str:
    """The text of ``parity info``: header, provenance, then the contents."""
    kind = str(fx.attrs.get("kind", "")) or (
        nanogpt_fixture.KIND if isinstance(fx, NanoGPTFixture) else op_fixture.KIND
    )
    out = [
        f"fixture      {fx.path}",
        f"schema       {fx.attrs.get('format', '')} v{fx.attrs.get('schema_version', '')}, kind {kind}",
        f"input digest {fx.attrs['input_digest']}",
    ]
    if isinstance(fx, NanoGPTFixture):
        out.append(f"digests      {fx.run.digest} (digest and float64 sum of every tensor kept as a digest)")
    extra = {"config": fx.config} if isinstance(fx, NanoGPTFixture) else {}
    if kind == upstream_fixture.KIND:
        extra |= {"upstream": fx.attrs.get("upstream", {}), "dataset": fx.attrs.get("dataset", {})}
    for key, value in sorted({**fx.provenance, **extra}.items()):
        out.append(f"{key:<22} " + _field(key, value, full).replace("\n", "\n" + " " * 23))
    out.append("")
    out.append(_nanogpt_contents(fx) if isinstance(fx, NanoGPTFixture) else _op_contents(fx))
    return "\n".join(out)


def _op_contents(fx: OpFixture) -> str:
    rows = []
    for rec in fx.cases.values():
        first = True
        for part, group in (("input", rec.inputs), ("output", rec.outputs)):
            for name, arr in group.items():
                label = (rec.op, rec.case, "yes" if rec.deterministic else "NO") if first else ("", "", "")
                rows.append((*label, part, name, f"{arr.dtype.name}[{', '.join(map(str, arr.shape))}]"))
                first = False
    nondet = sum(not r.deterministic for r in fx.cases.values())
    return (
        table(("op", "case", "run twice: same bits", "part", "tensor", "dtype[shape]"), rows)
        + f"\n\n{len(fx.ops)} ops, {len(fx.cases)} cases, {nondet} not run-to-run deterministic"
    )


def _nanogpt_contents(fx: NanoGPTFixture) -> str:
    run = fx.run
    rows = [
        (
            str(r.step), f"{r.lr:.6g}", f"{float(r.loss):.6f}", f"{float(r.grad_norm):.6f}",
            f"{float(r.clip_coef):.6f}", str(len(r.dropout_mask_digests)), hex_digest(r.logits_digest)[:16],
            "full" if r.full else "digests",
        )
        for r in run.steps
    ]  # fmt: skip
    params = [
        (n, "x".join(map(str, s))) for n, s in zip(run.param_names, fx.attrs.get("param_shapes", []), strict=False)
    ]
    det = fx.attrs.get("deterministic")
    verdict = "identical" if det else f"differ from step {fx.attrs.get('first_nondeterministic_step')}"
    return "\n".join(
        [
            table(("parameter", "shape"), params),
            "",
            table(("step", "lr", "loss", "grad norm", "clip coef", "masks", "logits digest", "stored"), rows),
            "",
            f"{len(run.steps)} steps, {len(run.param_names)} parameters, initial weights "
            f"{'in full' if run.init else 'as digests'}; two runs from the same start: {verdict}",
        ]
    )
