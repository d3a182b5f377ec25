"""The ``parity`` command line: generate, info, list, verify.

Exit status: 0 success, 2 usage or input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from harness import __version__
from harness.errors import FixtureError, ParityError
from harness.op_ids import parse_op_list
from harness.platform_config import (
    PlatformConfig,
    PlatformFacts,
    child_env,
    collect_facts,
    resolve_level,
    supported_levels,
)
from harness.provenance import installed_torch_version, public_version

DEFAULT_FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_reporting_errors(body: Callable[[], int]) -> int:
    """Run ``body``; a ParityError becomes one line on stderr and exit status 2."""
    try:
        return body()
    except ParityError as err:
        print(f"parity: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("parity: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (| head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def fixture_path(root: Path, torch_version: str, config: PlatformConfig) -> Path:
    """Where the op fixture of (torch version, configuration) lives under ``root``."""
    return root / f"torch-{public_version(torch_version)}" / f"{config.id}.h5"


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def plan_configs(facts: PlatformFacts, isa: str | None, threads: str | None) -> list[PlatformConfig]:
    """The configurations ``parity generate`` records, in order."""
    supported = supported_levels(facts)
    if not supported:
        raise ParityError(f"this CPU supports none of the {facts.arch} ISA levels")
    if isa in (None, ""):
        levels = [supported[-1]]
    elif isa == "all":
        levels = supported
    else:
        levels = [resolve_level(facts, name) for name in _csv(isa)]
    counts: list[int] = []
    for part in _csv(threads or str(os.cpu_count() or 1)):
        if not part.isdigit() or int(part) < 1:
            raise ParityError(f"--threads takes positive whole numbers, not '{part}'")
        counts.append(int(part))
    cbwr = os.environ.get("MKL_CBWR", "")
    return [PlatformConfig(facts.os, facts.arch, lvl.name, n, cbwr) for lvl in levels for n in counts]


def cmd_generate(args: argparse.Namespace) -> int:
    torch_version = installed_torch_version()
    if not torch_version:
        raise ParityError("torch is not installed: 'pip install torch==2.13.0' (or use tox -e regen)")
    parse_op_list(args.ops)  # unknown ops fail here, before any process starts
    configs = plan_configs(collect_facts(), args.isa, args.threads)
    targets = [(cfg, fixture_path(args.out, torch_version, cfg)) for cfg in configs]
    existing = [str(path) for _, path in targets if path.exists()]
    if existing and not args.force:
        raise ParityError(f"already exists, pass --force to overwrite: {', '.join(existing)}")
    for cfg, path in targets:
        cmd = [
            sys.executable,
            "-m",
            "harness.generators.record_ops",
            "--platform-id",
            cfg.id,
            "--out",
            str(path),
        ]
        if args.ops:
            cmd += ["--ops", args.ops]
        if args.force:
            cmd.append("--force")
        if args.quiet:
            cmd.append("--quiet")
        rc = subprocess.run(cmd, env=child_env(cfg), check=False).returncode
        if rc != 0:
            return rc
    return 0


def _rows_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=False)]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip()
        for row in (headers, *rows)
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_info(args: argparse.Namespace) -> int:
    from harness.op_fixture import read_op_fixture

    fx = read_op_fixture(args.file)
    prov = fx.provenance
    print(f"fixture      {fx.path}")
    print(f"schema       {fx.attrs.get('format', '')} v{fx.attrs.get('schema_version', '')}, kind ops")
    print(f"input digest {fx.attrs['input_digest']}")
    for key in sorted(prov):
        value = prov[key]
        if key in ("torch_config", "torch_parallel_info", "cpu_flags") and not args.full:
            value = (
                f"<{len(str(value).splitlines())} lines, --full shows>"
                if "\n" in str(value)
                else f"<{len(str(value).split())} items, --full shows>"
            )
        elif isinstance(value, dict):
            value = " ".join(f"{k}={v}" for k, v in value.items()) or "-"
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        text = str(value)
        print(f"{key:<22} " + text.replace("\n", "\n" + " " * 23))
    rows = []
    for rec in fx.cases.values():
        first = True
        for part, group in (("input", rec.inputs), ("output", rec.outputs)):
            for name, arr in group.items():
                agreed = ("yes" if rec.deterministic else "NO") if first else ""
                label = (rec.op, rec.case) if first else ("", "")
                rows.append(
                    (*label, agreed, part, name, f"{arr.dtype.name}[{', '.join(map(str, arr.shape))}]")
                )
                first = False
    print()
    print(_rows_table(("op", "case", "run twice: same bits", "part", "tensor", "dtype[shape]"), rows))
    nondet = sum(not r.deterministic for r in fx.cases.values())
    print(f"\n{len(fx.ops)} ops, {len(fx.cases)} cases, {nondet} not run-to-run deterministic")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from harness.store import FixtureReader

    roots = args.roots or [DEFAULT_FIXTURES]
    rows = []
    for root in roots:
        if not root.is_dir():
            raise ParityError(f"{root}: no such directory")
        for path in sorted(root.glob("torch-*/*.h5")):
            try:
                with FixtureReader(path) as reader:
                    attrs = reader.attrs("/")
                    prov = attrs.get("provenance", {})
                    rows.append(
                        (
                            str(attrs.get("torch_version", "?")),
                            str(attrs.get("platform_id", "?")),
                            reader.kind,
                            str(len(attrs.get("ops", []))),
                            f"{path.stat().st_size / 2**20:.2f}",
                            str(prov.get("created", "?")),
                            str(path),
                        )
                    )
            except FixtureError as err:
                rows.append(
                    (
                        "?",
                        "?",
                        "?",
                        "?",
                        f"{path.stat().st_size / 2**20:.2f}",
                        f"unreadable: {err.problem}",
                        str(path),
                    )
                )
    if not rows:
        print(f"no fixture sets under {', '.join(map(str, roots))}")
        return 0
    print(_rows_table(("torch", "platform", "kind", "ops", "MiB", "created", "file"), rows))
    return 0


def _expand_dirs(paths: list[Path]) -> list[Path]:
    """Files as given; a directory stands for every .h5 file below it."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.rglob("*.h5"))
            if not found:
                raise ParityError(f"{path}: no .h5 files below this directory")
            out.extend(found)
        else:
            out.append(path)
    return out


def cmd_verify(args: argparse.Namespace) -> int:
    from harness.op_fixture import KIND, read_op_fixture
    from harness.store import FixtureReader

    failed = 0
    for path in _expand_dirs(args.files):
        try:
            with FixtureReader(path) as reader:
                kind = reader.kind
            detail = f"kind {kind}"
            if kind == KIND:  # read by name first, so a bad tensor is reported by its name
                fx = read_op_fixture(path)
                detail = f"{len(fx.ops)} ops, {len(fx.cases)} cases"
            with FixtureReader(path) as reader:
                count = reader.verify_all()
            print(f"ok    {path}: {count} tensors verified, {detail}")
        except FixtureError as err:
            failed += 1
            print(f"parity: error: {err}", file=sys.stderr)
    return 2 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parity", description="Golden-fixture reproducibility harness for PyTorch CPU numerics."
    )
    parser.add_argument("--version", action="version", version=f"parity-harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="record this machine's op fixtures with the installed torch")
    gen.add_argument(
        "--isa",
        help="ISA level(s): baseline, avx2, avx512 (x86_64), neon (arm64), comma-separated, "
        "or 'all' (default: the highest this CPU runs)",
    )
    gen.add_argument("--threads", help="intra-op thread count(s), comma-separated (default: the CPU count)")
    gen.add_argument(
        "--out", type=Path, default=DEFAULT_FIXTURES, help="fixture root (default: harness/fixtures)"
    )
    gen.add_argument("--ops", default="", help="record only these ops, comma-separated")
    gen.add_argument("--force", action="store_true", help="overwrite existing fixtures")
    gen.add_argument("--quiet", action="store_true", help="no progress output")
    gen.set_defaults(func=cmd_generate)

    info = sub.add_parser("info", help="provenance and contents of a fixture")
    info.add_argument("file", type=Path)
    info.add_argument("--full", action="store_true", help="print long provenance fields in full")
    info.set_defaults(func=cmd_info)

    lst = sub.add_parser("list", help="fixture sets present")
    lst.add_argument("roots", nargs="*", type=Path, help="fixture roots (default: harness/fixtures)")
    lst.set_defaults(func=cmd_list)

    ver = sub.add_parser("verify", help="check schema and every tensor digest")
    ver.add_argument("files", nargs="+", type=Path, help="fixture files, or directories to search for them")
    ver.set_defaults(func=cmd_verify)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_reporting_errors(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
