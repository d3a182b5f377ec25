"""Record under an emulated x86 CPU and compare with the fixtures of the same platform ids, bit for bit.

    python tools/emulate_x86.py --model EPYC-Milan --isa baseline,avx2 --threads 1,2 [--nanogpt tiny]
        [--out DIR] [--reference STORE] [--compare-only]

records with `parity generate --emulate x86:MODEL` into DIR (default build/x86-<model>, a store of
its own), then compares each fixture recorded there with the one of the same name in STORE
(default: the committed harness/fixtures) and prints one line per fixture, also written to
DIR/compare.txt. `--model EPYC-Milan` (this host's vendor) is the faithfulness check: emulation
must give the committed native AMD sets bit for bit; an Intel model of a path already committed
says whether the bits depend on the model within that path. `--compare-only` compares what DIR
holds without recording. Exit 0 when every fixture is bit-identical to its reference, 1 when
one differs or has none, 2 on a usage error.

    python tools/emulate_x86.py --model Haswell-v4 --isa avx2 --estimates [--ops ...] [--out DIR]

records the ops once at one level and one thread with QEMU's translation log on (`-d in_asm`) and
lists every estimate instruction the run executed (RCPPS, RSQRTPS and their scalar and VEX forms:
results the architecture leaves to the CPU, which QEMU computes exactly), with the library and
nearest exported symbol it lies in (DIR/estimates.txt; exit 0, 1 when there are some). The
outputs that pass through one carry QEMU's estimate, not any CPU's. About ten minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.compare.fixtures import NanoGPTDiff, OpsDiff, diff_fixtures  # noqa: E402
from harness.core.errors import ArgumentParser, ParityError, run_reporting_errors  # noqa: E402
from harness.formats.registry import read_fixture  # noqa: E402
from harness.platform.config import PlatformConfig  # noqa: E402
from harness.platform.emulation import emulated_x86, parse_emulate  # noqa: E402
from harness.record.launch import RecordRequest, with_machine_blas  # noqa: E402
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
        diff = diff_fixtures(read_fixture(ref), read_fixture(path), subset=True)  # a recording of some ops
        same = same and diff.bit_identical
        lines.append(f"{name}: {describe(diff)}")
    return lines, same


# the estimate instructions (results left to the implementation) as QEMU's log spells them
ESTIMATE = re.compile(r"^(0x[0-9a-f]+):.*?\s(v?(?:rcp|rsqrt)(?:ps|ss))\s")
# the recorder, with the guest's memory map written when it exits (QEMU serves the guest's own)
_MAPPED_RUN = (
    "import atexit, runpy, shutil, sys; out = sys.argv.pop(1); "
    "atexit.register(lambda: shutil.copyfile('/proc/self/maps', out)); "
    "runpy.run_module('harness.record.ops_child', run_name='__main__', alter_sys=True)"
)


def estimate_sites(log_lines, maps_text: str) -> dict[tuple[str, int], str]:
    """(object, offset) -> mnemonic of every estimate instruction in a QEMU ``-d in_asm`` log."""
    regions = []
    for line in maps_text.splitlines():
        parts = line.split()
        if len(parts) >= 6 and "x" in parts[1]:
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            regions.append((lo, hi, int(parts[2], 16), parts[5]))
    sites: dict[tuple[str, int], str] = {}
    for line in log_lines:
        match = ESTIMATE.match(line)
        if match:
            address = int(match[1], 16)
            where = next(((obj, address - lo + off) for lo, hi, off, obj in regions if lo <= address < hi), None)
            sites[where or ("?", address)] = match[2]
    return sites


def nearest_symbols(obj: str, offsets: list[int]) -> dict[int, str]:
    """The exported symbol at or before each offset of ``obj`` (binutils' nm; {} without it)."""
    if shutil.which("nm") is None or not Path(obj).is_file():
        return {}
    listing = subprocess.run(["nm", "-D", "--defined-only", obj], capture_output=True, text=True, check=False).stdout
    symbols = sorted((int(p[0], 16), p[2]) for p in (ln.split() for ln in listing.splitlines()) if len(p) == 3)
    found = {}
    for offset in offsets:
        before = [name for value, name in symbols if value <= offset]
        if before:
            found[offset] = before[-1]
    return found


def estimates(args, out: Path) -> int:
    """--estimates: one recording under QEMU's translation log, its estimate instructions listed."""
    levels = [lvl for lvl in args.isa.split(",") if lvl]
    if len(levels) != 1:
        raise ParityError("--estimates records one ISA level: --isa LEVEL")
    out.mkdir(parents=True, exist_ok=True)
    with emulated_x86(f"x86:{args.model}") as emu, tempfile.TemporaryDirectory(prefix="parity-estimates-") as tmp:
        cbwr = os.environ.get("MKL_CBWR", "")  # as parity generate takes it: a configuration of its own
        (config,) = with_machine_blas([PlatformConfig("linux", "x86_64", levels[0], 1, cbwr)], emu)
        record = RecordRequest(ops=args.ops, force=True, quiet=True).command(config, Path(tmp) / "ops.h5")
        log, maps = Path(tmp) / "in_asm.log", Path(tmp) / "maps"
        qemu, *rest = emu.command([record[0], "-c", _MAPPED_RUN, str(maps), *record[3:]])
        print(f"emulate-x86: recording {config.id} under {args.model} with QEMU's translation log", file=sys.stderr)
        rc = subprocess.run([qemu, "-d", "in_asm,nochain", "-D", str(log), *rest], env=emu.env(config)).returncode
        if rc != 0 or not maps.is_file():
            raise ParityError(f"the recording under {args.model} with the translation log failed (exit {rc})")
        with log.open(encoding="utf-8", errors="replace") as lines:
            sites = estimate_sites(lines, maps.read_text(encoding="utf-8"))
    names = {obj: nearest_symbols(obj, [o for ob, o in sites if ob == obj]) for obj in {ob for ob, _ in sites}}
    text = f"estimate instructions executed recording {config.id} under QEMU -cpu {args.model}: {len(sites)}\n"
    for (obj, offset), mnemonic in sorted(sites.items()):
        text += f"  {mnemonic} {Path(obj).name}+0x{offset:x} {names.get(obj, {}).get(offset, '')}\n"
    report = out / "estimates.txt"
    tmp_report = report.with_name(f".{report.name}.tmp")
    tmp_report.write_text(text, encoding="utf-8")
    tmp_report.replace(report)
    print(text, end="")
    return 1 if sites else 0


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="tools/emulate_x86.py", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a QEMU x86 CPU model, e.g. EPYC-Milan, Haswell-v4")
    parser.add_argument("--isa", default="", help="ISA levels, as parity generate takes them")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--nanogpt", default="", choices=("", "tiny"), help="record nanoGPT tiny instead of the ops")
    parser.add_argument("--out", type=Path, default=None, help="the emulated recordings' store (build/x86-<model>)")
    parser.add_argument("--reference", type=Path, default=DEFAULT_FIXTURES, help="the store compared with")
    parser.add_argument("--compare-only", action="store_true", help="compare what --out holds; record nothing")
    parser.add_argument("--estimates", action="store_true", help="list the estimate instructions a recording runs")
    parser.add_argument("--ops", default="", help="--estimates: only these ops")
    args = parser.parse_args(argv)

    def body() -> int:
        parse_emulate(f"x86:{args.model}")  # the form; generate checks the rest (QEMU, the model)
        out = args.out or REPO / "build" / f"x86-{args.model}"
        if not args.reference.is_dir():
            raise ParityError(f"{args.reference}: no such fixture store")
        if out.resolve() == args.reference.resolve():
            raise ParityError(f"{out}: the store compared with; record into a store of its own (--out)")
        if args.estimates:
            return estimates(args, out)
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
