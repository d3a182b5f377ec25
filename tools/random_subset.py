"""Write a part of a recorded random-case fixture as a fixture of its own: the regression cases kept
in the committed store (harness/workloads/random_cases.py; the full recordings are too large).

    python tools/random_subset.py FIXTURE --out FILE [--max-kib K] [--ops OP,...] [--cases OP/CASE,...]
        [--force]

Keeps every case whose tensors (inputs and outputs) take at most K KiB (default 16), of the ops
named by --ops (default: every op), and the cases named by --cases whatever their size and op. The
subset keeps the fixture's provenance, its draw (``random_cases``: per_group and seed) included, and
adds the list of the cases it keeps (``random_cases.cases``, "op/case"), so a reader checks each
kept case against that draw as it does for the full recording, and finds a case missing from the
list; nothing is re-recorded or changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.core.errors import (  # noqa: E402
    ArgumentParser,
    ParityError,
    run_reporting_errors,
)
from harness.formats.ops import CaseRecord, read_op_fixture, write_op_fixture  # noqa: E402
from harness.report.output import check_output_path  # noqa: E402


def case_bytes(rec: CaseRecord) -> int:
    return sum(arr.nbytes for arr in (*rec.inputs.values(), *rec.outputs.values()))


def select(
    cases: dict[str, CaseRecord], max_bytes: int, named: list[str], ops: list[str] | None = None
) -> list[CaseRecord]:
    """The cases within ``max_bytes`` of ``ops`` (None: every op) and the ``named`` ones ("op/case"),
    in the fixture's order."""
    missing = [key for key in named if key not in cases]
    if missing:
        raise ParityError(f"no such case in the fixture: {', '.join(missing)}")
    absent = sorted(set(ops or ()) - {rec.op for rec in cases.values()})
    if absent:
        raise ParityError(f"no case of {', '.join(absent)} in the fixture")
    return [
        rec
        for key, rec in cases.items()
        if key in named or (case_bytes(rec) <= max_bytes and (ops is None or rec.op in ops))
    ]


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="tools/random_subset.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("fixture", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-kib", type=float, default=16.0)
    parser.add_argument("--ops", default="", help="op,...: only these ops' cases within the size (default: all)")
    parser.add_argument("--cases", default="", help="op/case,... kept whatever their size and op")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)

    def body() -> int:
        if args.max_kib < 0:
            raise ParityError(f"--max-kib must be 0 or more, not {args.max_kib}")
        check_output_path(args.out)
        fixture = read_op_fixture(args.fixture)
        if not fixture.provenance.get("random_cases"):
            raise ParityError(f"{args.fixture}: not a random-case fixture (no random_cases in its provenance)")
        named = [key.strip() for key in args.cases.split(",") if key.strip()]
        ops = [op.strip() for op in args.ops.split(",") if op.strip()] or None
        kept = select(fixture.cases, int(args.max_kib * 1024), named, ops)
        if not kept:
            raise ParityError(f"{args.fixture}: no case within {args.max_kib} KiB and none named")
        draw = {**fixture.provenance["random_cases"], "cases": [rec.key for rec in kept]}
        provenance = {**fixture.provenance, "random_cases": draw}
        size = write_op_fixture(args.out, provenance, kept, force=args.force)
        what = f"{len(kept)} of {len(fixture.cases)} cases, {len({rec.op for rec in kept})} ops"
        print(f"wrote {args.out}: {what}, {size / 2**10:.1f} KiB of tensors")
        return 0

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
