"""Record under an emulated x86 CPU and compare with the fixtures of the same platform ids, bit for bit.

    python tools/emulate_x86.py --model EPYC-Milan --isa baseline,avx2 --threads 1,2 [--nanogpt tiny]
        [--out DIR] [--reference STORE] [--compare-only]

records with `parity generate --emulate x86:MODEL` into DIR (default build/x86-<model>, a store of
its own), then compares each fixture recorded there with the one of the same name in STORE
(default: the committed harness/fixtures) and prints one line per fixture, also written to
DIR/compare.txt. `--model EPYC-Milan` (this host's vendor) is the faithfulness check: emulation
must give the committed native AMD sets bit for bit; an Intel model of a path already committed
says whether the bits depend on the model within that path. `--compare-only` compares what DIR
holds without recording. Exit 0 when every fixture is bit-identical to its reference, 1 when one
differs or has none, 2 on a usage error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.compare.fixtures import NanoGPTDiff, OpsDiff, diff_fixtures  # noqa: E402
from harness.core.errors import ArgumentParser, ParityError, run_reporting_errors  # noqa: E402
from harness.formats.registry import read_fixture  # noqa: E402
from harness.platform.emulation import parse_emulate  # noqa: E402
from harness.store.paths import DEFAULT_FIXTURES  # noqa: E402


def describe(diff: OpsDiff | NanoGPTDiff) -> str:
    """One line: how much of the recording is bit-identical, and where it is not (max ULP per op)."""
    if isinstance(diff, NanoGPTDiff):
        steps = f"{diff.identical_steps} of {len(diff.steps)} steps bit-identical"
        if diff.first is None:
            return f"{steps}, initial weights {'identical' if diff.init_identical else 'differ'}"
        first = diff.first
        return f"{steps}; first divergence at step {first.step}, {first.stage}: {first.detail}"
    ops = diff.ops()
    differing = {
        op: max(c.max_ulp for c in cases) for op, cases in ops.items() if not all(c.bit_identical for c in cases)
    }
    outputs = [t for c in diff.cases for t in c.tensors]
    same = sum(t.bit_identical for t in outputs)
    line = f"{len(ops) - len(differing)} of {len(ops)} ops, {same} of {len(outputs)} outputs bit-identical"
    return line + (
        "; differ: " + ", ".join(f"{op} (max {ulp} ULP)" for op, ulp in differing.items()) if differing else ""
    )


def compare_stores(recorded: Path, reference: Path) -> tuple[list[str], bool]:
    """(a line per fixture under ``recorded``, whether every one is bit-identical to its reference)."""
    fixtures = sorted(recorded.glob("torch-*/*.h5"))
    if not fixtures:
        raise ParityError(f"{recorded}: no fixtures recorded here")
    lines, same = [], True
    for path in fixtures:
        name = f"{path.parent.name}/{path.name}"
        ref = reference / path.parent.name / path.name
        if not ref.is_file():
            lines.append(f"{name}: no fixture of this platform id in {reference}")
            same = False
            continue
        diff = diff_fixtures(read_fixture(ref), read_fixture(path))
        same = same and diff.bit_identical
        lines.append(f"{name}: {describe(diff)}")
    return lines, same


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="tools/emulate_x86.py", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a QEMU x86 CPU model, e.g. EPYC-Milan, Haswell-v4")
    parser.add_argument("--isa", default="", help="ISA levels, as parity generate takes them")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--nanogpt", default="", choices=("", "tiny"), help="record nanoGPT tiny instead of the ops")
    parser.add_argument("--out", type=Path, default=None, help="the emulated recordings' store (build/x86-<model>)")
    parser.add_argument("--reference", type=Path, default=DEFAULT_FIXTURES, help="the store compared with")
    parser.add_argument("--compare-only", action="store_true", help="compare what --out holds; record nothing")
    args = parser.parse_args(argv)

    def body() -> int:
        parse_emulate(f"x86:{args.model}")  # the form; generate checks the rest (QEMU, the model)
        out = args.out or REPO / "build" / f"x86-{args.model}"
        if not args.reference.is_dir():
            raise ParityError(f"{args.reference}: no such fixture store")
        if out.resolve() == args.reference.resolve():
            raise ParityError(f"{out}: the store compared with; record into a store of its own (--out)")
        if not args.compare_only:
            cmd = [sys.executable, "-m", "harness.cli", "generate", "--emulate", f"x86:{args.model}"]
            cmd += ["--threads", args.threads, "--out", str(out), "--force"] + (["--isa", args.isa] if args.isa else [])
            cmd += ["--nanogpt", "--config", args.nanogpt] if args.nanogpt else []
            rc = subprocess.run(cmd, check=False).returncode
            if rc != 0:
                return rc
        lines, same = compare_stores(out, args.reference.resolve())
        text = f"emulated x86 CPU {args.model} against {args.reference}:\n" + "".join(f"  {ln}\n" for ln in lines)
        report = out / "compare.txt"
        tmp = report.with_name(f".{report.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(report)
        print(text, end="")
        return 0 if same else 1

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
