"""Run the impl over op fixtures and print, per output, bit-identical or how far off.

python -m harness.impl.check exp log            # against the committed x86 fixtures
python -m harness.impl.check --fixture F.h5 sum
python -m harness.impl.check --write-gaps       # measure everything, rewrite known_gaps.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.errors import ParityError
from harness.impl.known_gaps import GAPS_FILE, Gap, KnownGaps, load_gaps, save_gaps
from harness.impl.replay import impl_op_fixture
from harness.op_fixture import read_op_fixture
from harness.op_ids import parse_op_list
from harness.recording import DEFAULT_FIXTURES
from harness.ulp import compare_tensors, describe

IMPL_TORCH = "2.13.0"  # the torch version the impl reproduces
UNVERIFIED = {"x86-avx512": "no torch 2.13.0 fixture of an AVX-512 machine is committed; written from the sources"}


def committed_x86_fixtures() -> list[Path]:
    """The committed op fixtures of the reproduced torch version on x86_64, in a stable order."""
    return sorted((DEFAULT_FIXTURES / f"torch-{IMPL_TORCH}").glob("linux-x86_64-*-t[0-9].h5"))


def committed_x86_nanogpt_fixtures(config: str) -> list[Path]:
    """The committed nanoGPT fixtures of one training configuration on x86_64."""
    return sorted((DEFAULT_FIXTURES / f"torch-{IMPL_TORCH}").glob(f"linux-x86_64-*-t[0-9].nanogpt-{config}.h5"))


def measure(path: Path, ops: list[str]) -> tuple[list[Gap], list[str]]:
    """(the gaps of the impl against one fixture, a line per output checked)."""
    expected = read_op_fixture(path, ops=ops)
    platform = str(expected.attrs["platform_id"])
    impl, missing = impl_op_fixture(expected)
    gaps, lines = [], []
    for key, rec in expected.cases.items():
        got = impl.cases.get(key)
        for name, want in rec.outputs.items():
            where = f"{platform} {key}"
            if got is None or name not in got.outputs:
                why = missing.get(rec.op, "the impl gave no such output")
                gaps.append(Gap(platform, rec.op, rec.case, name, None, int(want.size), int(want.size), why))
                lines.append(f"{where} MISSING {name}: {why}")
                continue
            c = compare_tensors(name, want, got.outputs[name])
            lines.append(f"{where} {'EXACT' if c.bit_identical else 'DIFF '} {describe(c)}")
            if not c.bit_identical:
                gaps.append(Gap(platform, rec.op, rec.case, name, c.max_ulp, c.count - c.identical, c.count))
    return gaps, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.impl.check", description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="op ids (default: all)")
    parser.add_argument("--fixture", type=Path, action="append", help="op fixture(s); default: committed x86")
    parser.add_argument("--quiet", action="store_true", help="only the mismatches")
    parser.add_argument("--write-gaps", action="store_true", help="rewrite known_gaps.json (all ops, committed x86)")
    args = parser.parse_args(argv)
    try:
        if args.write_gaps and (args.ops or args.fixture):
            raise ParityError("--write-gaps measures every op on every committed x86 fixture: give no ops or --fixture")
        ops = parse_op_list(",".join(args.ops))
        gaps: list[Gap] = []
        total = 0
        for path in args.fixture or committed_x86_fixtures():
            found, lines = measure(path, ops)
            gaps += found
            total += len(lines)
            for line in lines:
                if not (args.quiet and " EXACT " in line):
                    print(line)
        print(f"{total - len(gaps)} of {total} outputs bit-identical")
        if args.write_gaps:
            old = {g.key: g.why for g in load_gaps().gaps} if GAPS_FILE.exists() else {}
            gaps = [Gap(**{**g.__dict__, "why": g.why or old.get(g.key, "")}) for g in gaps]
            save_gaps(KnownGaps(IMPL_TORCH, gaps, UNVERIFIED))
            print(f"wrote {len(gaps)} gaps to harness/impl/known_gaps.json")
        return 0 if not gaps else 1
    except ParityError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
