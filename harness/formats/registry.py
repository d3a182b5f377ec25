"""The fixture kinds: how each is read, checked and described, in one registry (info, list, verify).

Every kind of fixture file has a module of its own in this layer (``ops``, ``nanogpt``,
``upstream``) and an entry in ``KINDS``, keyed by the ``kind`` attribute its files carry. Commands
look a file's kind up here and never test a kind themselves; the layers above keep their own
per-kind tables under the same keys (``harness.compare.fixtures.DIFFS``,
``harness.replay.kinds.REPLAYS``), and a test holds all three to the same kinds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.errors import FixtureError, ParityError
from harness.formats import nanogpt as nanogpt_fixture
from harness.formats import ops as op_fixture
from harness.formats import upstream as upstream_fixture
from harness.formats.nanogpt import NanoGPTFixture, hex_digest
from harness.formats.ops import OpFixture
from harness.formats.upstream import UpstreamFixture
from harness.platform.config import parse_platform_id
from harness.store import FixtureReader

Fixture = OpFixture | NanoGPTFixture | UpstreamFixture
_LONG_FIELDS = ("torch_config", "torch_parallel_info", "cpu_flags", "mkl_verbose_banner")


@dataclass(frozen=True)
class FixtureKind:
    """What this layer knows of one kind of fixture."""

    name: str  # the files' ``kind`` attribute
    read: Callable[[str | Path], Any]  # read and verify a file of this kind
    check: Callable[[FixtureReader], None]  # completeness and consistency, before any tensor is read
    summary: Callable[[dict[str, Any]], str]  # ``parity list``'s contents, from the root attributes
    contents: Callable[[Any], str]  # ``parity info``'s contents table
    extra: Callable[[Any], dict[str, Any]]  # what ``parity info`` shows beside the provenance
    suffix: Callable[[dict[str, Any]], str]  # what its file name adds to the platform id, from the root attributes


def _run_summary(prefix: str) -> Callable[[dict[str, Any]], str]:
    return lambda attrs: f"{prefix}{attrs.get('config', {}).get('name', '?')}, {attrs.get('steps', '?')} steps"


_SUFFIX = re.compile(r"(?:\.[a-z0-9][a-z0-9_-]{0,79})?")  # "", ".random-1", ".nanogpt-upstream-tiny"


def _run_suffix(prefix: str) -> Callable[[dict[str, Any]], str]:
    return lambda attrs: f".{prefix}{attrs.get('config', {}).get('name', '')}"


def _ops_suffix(attrs: dict[str, Any]) -> str:
    random = attrs.get("provenance", {}).get("random_cases")
    return f".random-{random['seed']}" if isinstance(random, dict) else ""


def canonical_name(reader: FixtureReader) -> str:
    """The file name a fixture has in a store: ``<platform id>[.<kind's suffix>].h5``
    (``.nanogpt-tiny``, ``.nanogpt-upstream-tiny``, ``.random-1``), from what it holds."""
    attrs = reader.attrs("/")
    platform_id = str(attrs.get("platform_id", ""))
    try:
        parse_platform_id(platform_id)
    except ParityError as err:
        raise FixtureError(reader.path, f"cannot be filed in a store: {err}") from None
    suffix = kind_named(reader.kind, reader.path).suffix(attrs)
    if not _SUFFIX.fullmatch(suffix) or suffix.endswith("-"):
        raise FixtureError(reader.path, f"cannot be filed in a store: its name would end in {suffix[:40]!r}")
    return f"{platform_id}{suffix}.h5"


def fixture_kind(path: str | Path) -> str:
    with FixtureReader(path) as reader:
        return reader.kind


def kind_named(name: str, path: str | Path) -> FixtureKind:
    """The registered kind ``name`` (of the file at ``path``), else a one-line error."""
    kind = KINDS.get(name)
    if kind is None:
        raise FixtureError(path, f"unknown fixture kind '{name}'")
    return kind


def kind_of(fx: Fixture) -> FixtureKind:
    return kind_named(fx.kind, fx.path)


def check_structure(reader: FixtureReader) -> None:
    """The completeness and consistency checks of the fixture's kind (no tensor data read)."""
    kind_named(reader.kind, reader.path).check(reader)


def read_fixture(path: str | Path) -> Fixture:
    """Read and verify a fixture of any known kind."""
    return kind_named(fixture_kind(path), path).read(path)


def contents_summary(kind: str, attrs: dict[str, Any]) -> str:
    found = KINDS.get(kind)
    return found.summary(attrs) if found else f"unknown kind '{kind}'"


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
    kind = kind_of(fx)
    out = [
        f"fixture      {fx.path}",
        f"schema       {fx.attrs.get('format', '')} v{fx.attrs.get('schema_version', '')}, kind {kind.name}",
        f"input digest {fx.attrs['input_digest']}",
    ]
    extra = kind.extra(fx)
    if "digests" in extra:
        out.append(f"digests      {extra.pop('digests')} (digest and float64 sum of every tensor kept as a digest)")
    for key, value in sorted({**fx.provenance, **extra}.items()):
        out.append(f"{key:<22} " + _field(key, value, full).replace("\n", "\n" + " " * 23))
    out.append("")
    out.append(kind.contents(fx))
    return "\n".join(out)


def _run_extra(fx: NanoGPTFixture) -> dict[str, Any]:
    return {"digests": fx.run.digest, "config": fx.config}


def _upstream_extra(fx: UpstreamFixture) -> dict[str, Any]:
    return _run_extra(fx) | {"upstream": fx.attrs.get("upstream", {}), "dataset": fx.attrs.get("dataset", {})}


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


KINDS: dict[str, FixtureKind] = {
    kind.name: kind
    for kind in (
        FixtureKind(
            op_fixture.KIND, op_fixture.read_op_fixture, op_fixture.check_op_fixture,
            lambda attrs: f"{len(attrs.get('ops', []))} ops", _op_contents, lambda fx: {}, _ops_suffix,
        ),
        FixtureKind(
            nanogpt_fixture.KIND, nanogpt_fixture.read_nanogpt_fixture, nanogpt_fixture.check_nanogpt_fixture,
            _run_summary("nanogpt-"), _nanogpt_contents, _run_extra, _run_suffix("nanogpt-"),
        ),
        FixtureKind(
            upstream_fixture.KIND, upstream_fixture.read_upstream_fixture, upstream_fixture.check_upstream_fixture,
            _run_summary("nanogpt-upstream-"), _nanogpt_contents, _upstream_extra, _run_suffix("nanogpt-upstream-"),
        ),
    )
}  # fmt: skip
