"""The ``parity`` command line: generate, check, diff, matrix, info, list, verify, pack, import, gc, migrate.

Exit status: 0 success (for check and diff: every compared tensor bit-identical), 1 something
differs (check, diff), 2 usage or input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from harness import __version__
from harness.digest import ALGORITHM, ALGORITHMS, LEGACY
from harness.errors import ParityError, torch_missing
from harness.op_ids import parse_op_list
from harness.platform_config import collect_facts
from harness.provenance import installed_torch_version
from harness.recording import (
    DEFAULT_FIXTURES,
    RecordRequest,
    committed_fixture,
    fixture_path,
    plan_configs,
    record_live,
    with_machine_blas,
)


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


def cmd_generate(args: argparse.Namespace) -> int:
    torch_version = installed_torch_version()
    if not torch_version:
        raise ParityError(torch_missing("", "or use tox -e regen"))
    nanogpt = args.nanogpt or args.nanogpt_dir is not None or args.nanogpt_train is not None
    if nanogpt and args.ops:
        raise ParityError("--ops selects ops; it does not go with --nanogpt")
    if args.digest and not nanogpt:
        raise ParityError("--digest names a nanoGPT run's digest algorithm; op fixtures store their tensors whole")
    if args.nanogpt_train is not None:
        _check_nanogpt_train(args)
    if args.nanogpt_dir is not None and not (args.nanogpt_dir / "model.py").is_file():
        raise ParityError(f"{args.nanogpt_dir}: no model.py here (expected a checkout of nanoGPT)")
    parse_op_list(args.ops)  # unknown ops fail here, before any process starts
    request = RecordRequest(
        nanogpt=args.config if nanogpt else "", ops=args.ops, full_steps=args.full_steps, init=args.init,
        nanogpt_dir=args.nanogpt_dir, nanogpt_train=args.nanogpt_train, digest=args.digest or "",
        force=args.force, quiet=args.quiet,
    )  # fmt: skip
    configs = with_machine_blas(plan_configs(collect_facts(), args.isa, args.threads))
    suffix = f"upstream-{request.nanogpt}" if args.nanogpt_train else request.nanogpt
    targets = [(cfg, fixture_path(args.out, torch_version, cfg, suffix)) for cfg in configs]
    existing = [str(path) for _, path in targets if path.exists()]
    if existing and not args.force:
        raise ParityError(f"already exists, pass --force to overwrite: {', '.join(existing)}")
    for cfg, path in targets:
        rc = request.run(cfg, path).returncode
        if rc != 0:
            return rc
    return 0


def _check_nanogpt_train(args: argparse.Namespace) -> None:
    """--nanogpt-train: a checkout with train.py, alone (its settings are the config's own)."""
    if args.nanogpt_dir is not None:
        raise ParityError("--nanogpt-train runs the checkout's own model.py; it does not go with --nanogpt-dir")
    if args.full_steps or args.init != "full":
        raise ParityError("--full-steps and --init are set by the upstream config with --nanogpt-train")
    missing = [f for f in ("train.py", "model.py", "configurator.py") if not (args.nanogpt_train / f).is_file()]
    if missing:
        raise ParityError(f"{args.nanogpt_train}: no {', '.join(missing)} here (expected a checkout of nanoGPT)")


def cmd_info(args: argparse.Namespace) -> int:
    from harness.fixture_info import describe, read_fixture

    print(describe(read_fixture(args.file), full=args.full))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from harness.fixture_info import table
    from harness.store.maintenance import leftover_temp_files, list_store, pool_additions
    from harness.store.pool import Pool

    roots = args.roots or [DEFAULT_FIXTURES]
    for root in roots:
        if not root.is_dir():
            raise ParityError(f"{root}: no such directory")
    for root in roots:
        listed, sizes = list_store(root)
        if not listed:
            print(f"no fixture sets under {root}")
            continue
        rows = []
        for fx, added in zip(listed, pool_additions(listed, sizes), strict=True):
            size = f"{added / 2**20:.2f}" if fx.form == "pool" else f"{fx.path.stat().st_size / 2**20:.2f} file"
            what = f"unreadable: {fx.problem}" if fx.problem else fx.contents
            rows.append((str(fx.path.relative_to(root)), what, size, fx.created))
        shown = root.resolve().relative_to(Path.cwd()) if root.resolve().is_relative_to(Path.cwd()) else root
        print(f"{shown}:")
        print(table(("fixture", "contents", "adds MiB", "created"), rows))
        pool_files = Pool.of_store(root).files()
        pool_bytes = sum(p.stat().st_size for p in pool_files)
        index_bytes = sum(fx.path.stat().st_size for fx in listed)
        print(
            f"{len(listed)} fixtures ({index_bytes / 2**20:.2f} MiB), pool {len(pool_files)} files "
            f"({pool_bytes / 2**20:.2f} MiB); adds: pool data no fixture recorded before it names"
        )
        for tmp in leftover_temp_files(root):
            print(f"leftover temporary file {tmp.relative_to(root)} (an unfinished write; safe to delete)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from harness.store.maintenance import verify

    failed = verify(args.files, print, lambda line: print(f"parity: error: {line}", file=sys.stderr))
    return 2 if failed else 0


def cmd_pack(args: argparse.Namespace) -> int:
    from harness.store.maintenance import pack

    print(f"packed {args.file} into {pack(args.file, args.out, force=args.force)}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from harness.store.maintenance import import_packed

    for path in args.files:
        print(f"imported {path} as {import_packed(path, args.root, force=args.force)}")
    return 0


def cmd_gc(args: argparse.Namespace) -> int:
    from harness.store.maintenance import plan_gc, run_gc

    root = args.root
    if not root.is_dir():
        raise ParityError(f"{root}: no such directory")
    plan = plan_gc(root)
    count = sum(len(keys) for keys in plan.unused.values())
    for path, keys in plan.unused.items():
        action = "delete" if not plan.kept[path] else f"rewrite keeping {len(plan.kept[path])} entries"
        print(f"{path.relative_to(root)}: {len(keys)} entries no fixture names ({action})")
    summary = f"{count} unused pool entries, {plan.unused_bytes / 2**20:.2f} MiB"
    if args.delete and count:
        run_gc(root, plan)
        print(f"removed {summary}")
    else:
        print(summary + ("; run with --delete to remove them" if count else ""))
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from harness.store.maintenance import migrate

    count = migrate(args.paths or [DEFAULT_FIXTURES], print)
    print(f"{count} fixture(s) converted")
    return 0


def _load_pair(a_path: Path, b_path: Path):
    from harness.fixture_info import read_fixture

    a, b = read_fixture(a_path), read_fixture(b_path)
    if type(a) is not type(b):
        raise ParityError(f"{a_path} and {b_path} are fixtures of different kinds")
    return a, b


def _diff(a, b, *, subset: bool = False):
    from harness.compare import diff_nanogpt, diff_ops
    from harness.op_fixture import OpFixture

    return diff_ops(a, b, subset=subset) if isinstance(a, OpFixture) else diff_nanogpt(a, b)


def _emit(diff, args: argparse.Namespace, note: str = "", gaps: list[str] | None = None) -> int:
    """Print the terminal report, write the --output one, and give the exit status."""
    from harness.output import write_output
    from harness.report import format_for, render

    fmt = args.format or format_for(args.output)
    text = render(diff, fmt, note, gaps)
    if args.output:
        write_output(args.output, text)
        print(render(diff, "terminal", note, gaps), end="")
        print(f"report written to {args.output}")
    else:
        print(text, end="")
    return 0 if diff.bit_identical else 1


def _check_output(args: argparse.Namespace) -> None:
    """Refuse an --output that cannot be written before any work."""
    from harness.output import check_output_path

    if args.output:
        check_output_path(args.output)


def _platform_note(a, b, note: str = "") -> str:
    from harness.compare import platform_note

    return platform_note(a.provenance, b.provenance, note)


def cmd_diff(args: argparse.Namespace) -> int:
    from harness.trace.tracefile import is_trace

    if is_trace(args.a) or is_trace(args.b):
        from harness.trace.cli import cmd_trace_diff

        return cmd_trace_diff(args)
    _check_output(args)
    a, b = _load_pair(args.a, args.b)
    return _emit(_diff(a, b), args, _platform_note(a, b))


def cmd_check(args: argparse.Namespace) -> int:
    import tempfile

    from harness.fixture_info import read_fixture

    _check_output(args)
    if args.impl:
        return _check_impl(args)
    if args.profile or args.threads is not None:
        raise ParityError("--profile and --threads choose how the reference implementation runs: use them with --impl")
    parse_op_list(args.ops)  # unknown ops fail here, before the live run
    expected = read_fixture(args.against) if args.against else None
    if not installed_torch_version():
        version = str(expected.attrs["torch_version"]) if expected else ""
        raise ParityError(torch_missing(version, "or check the reference implementation with --impl", args.platform))
    expected = expected or read_fixture(committed_fixture(args.platform, args.nanogpt or ""))
    with tempfile.TemporaryDirectory(prefix="parity-live-") as tmp:
        path, note = record_live(expected, Path(tmp), ops=args.ops, quiet=args.quiet)
        actual = read_fixture(path)
        diff = _diff(expected, actual, subset=bool(args.ops))
        diff.b_label = f"live run ({actual.attrs['platform_id']})"
        return _emit(diff, args, _platform_note(expected, actual, note))


def _check_impl(args: argparse.Namespace) -> int:
    """The reference implementation (no torch) against a fixture, under the fixture's own
    profile and thread count unless --profile/--threads say otherwise."""
    from harness.compare import diff_nanogpt, diff_ops
    from harness.fixture_info import read_fixture
    from harness.impl.check import IMPL_TORCH
    from harness.impl.known_gaps import load_gaps
    from harness.impl.profiles import get_profile, profile_for_platform
    from harness.op_fixture import OpFixture
    from harness.platform_config import parse_platform_id
    from harness.recording import default_config

    if args.against:
        path = args.against
    else:
        config = parse_platform_id(args.platform) if args.platform else default_config(IMPL_TORCH, args.nanogpt or "")
        path = fixture_path(DEFAULT_FIXTURES, IMPL_TORCH, config, args.nanogpt or "")
        if not path.exists():
            raise ParityError(
                f"no committed fixture {path.name} for torch {IMPL_TORCH} (the version the impl reproduces)"
            )
    expected = read_fixture(path)
    platform = str(expected.attrs["platform_id"])
    own = profile_for_platform(platform)
    profile = get_profile(args.profile or own.name, own.threads if args.threads is None else args.threads)
    notes = [
        f"the impl ran as {profile.label}" + ("" if profile == own else f" (the fixture's own profile: {own.label})")
    ]
    if isinstance(expected, OpFixture):
        from harness.impl.replay import impl_op_fixture, missing_note

        if args.ops:
            wanted = set(parse_op_list(args.ops))
            expected.cases = {k: r for k, r in expected.cases.items() if r.op in wanted}
        impl, missing = impl_op_fixture(expected, profile)
        diff = diff_ops(expected, impl, subset=True)
        notes += [missing_note(missing)] if missing else []
        ops = {r.op for r in expected.cases.values()}
    else:
        from harness.impl.nanogpt_record import impl_nanogpt_fixture
        from harness.upstream_fixture import UpstreamFixture

        if args.ops:
            raise ParityError("--ops selects op cases; a nanoGPT fixture is checked whole")
        missing = {}
        if isinstance(expected, UpstreamFixture):
            from harness.impl.upstream import check_fixture

            diff, eval_lines = check_fixture(expected, profile)
            notes += eval_lines or ["evaluation losses and batches at iteration 0: bit-identical"]
            missing = {"evaluation": eval_lines[0]} if eval_lines else {}
            ops = {f"nanogpt-upstream-{expected.config['name']}"}
        else:
            diff = diff_nanogpt(expected, impl_nanogpt_fixture(expected, profile))
            ops = {f"nanogpt-{expected.config['name']}"}
    diff.b_label = f"reference implementation, profile {profile.label}"
    gaps = [g.line() for g in load_gaps().for_platform(platform) if g.op in ops] if profile == own else None
    code = _emit(diff, args, "; ".join(notes), gaps)
    return 1 if missing else code


def cmd_matrix(args: argparse.Namespace) -> int:
    from harness.matrix import load_configs, write_matrix
    from harness.output import check_output_dir

    check_output_dir(args.out)  # before the fixtures are read
    configs = load_configs(args.roots or [DEFAULT_FIXTURES])
    for path in write_matrix(configs, args.out, args.reference):
        print(f"wrote {path}")
    return 0


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a positive whole number, not '{text}'")
    return int(text)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (``parity: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        hint = f" (see '{self.prog} --help')"
        self.exit(2, f"parity: error: {' '.join(message.split())}{hint}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="parity", description="Golden-fixture reproducibility harness for PyTorch CPU numerics.")
    parser.add_argument("--version", action="version", version=f"parity-harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="record this machine's op fixtures with the installed torch")
    gen.add_argument(
        "--isa",
        help="ISA level(s): baseline, avx2, avx512 (x86_64), neon (arm64), comma-separated, "
        "or 'all' (default: the highest this CPU runs)",
    )
    gen.add_argument("--threads", help="intra-op thread count(s), comma-separated (default: the CPU count)")
    gen.add_argument("--out", type=Path, default=DEFAULT_FIXTURES, help="fixture root (default: harness/fixtures)")
    gen.add_argument("--ops", default="", help="record only these ops, comma-separated")
    gen.add_argument("--nanogpt", action="store_true", help="record 50 nanoGPT training steps instead of the ops")
    gen.add_argument("--config", default="tiny", choices=("tiny", "shakespeare-char"), help="nanoGPT config")
    gen.add_argument(
        "--full-steps",
        help="nanoGPT steps stored with full tensors: comma-separated, 'all' or 'none' "
        "(default: the config's: tiny 1,50; shakespeare-char 1,2,25,50)",
    )
    gen.add_argument(
        "--init",
        choices=("full", "digest"),
        default="full",
        help="nanoGPT initial weights: in full (default) or as digests and sums only",
    )
    gen.add_argument(
        "--nanogpt-dir",
        type=Path,
        help="use GPT, GPTConfig from this nanoGPT checkout's model.py (implies --nanogpt)",
    )
    gen.add_argument(
        "--nanogpt-train",
        type=Path,
        help="run this nanoGPT checkout's own train.py, unchanged, for 50 iterations and record it "
        "(--config tiny: a small override set; shakespeare-char: its config/train_shakespeare_char.py)",
    )
    gen.add_argument(
        "--digest",
        choices=ALGORITHMS,
        help=f"a nanoGPT run's digest algorithm (default {ALGORITHM}; {LEGACY} for digests comparable with "
        "fixtures written before it)",
    )
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

    def add_output(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--format",
            choices=("terminal", "markdown", "json", "html"),
            help="report format (default: from --output's suffix, else terminal)",
        )
        p.add_argument("--output", type=Path, help="write the report here (and print the terminal table)")

    chk = sub.add_parser("check", help="compare a fixture with PyTorch run live on this machine now")
    src = chk.add_mutually_exclusive_group()
    src.add_argument("--against", type=Path, help="the fixture file to check against")
    src.add_argument("--platform", help="a committed fixture of the installed torch, by platform id")
    how = chk.add_mutually_exclusive_group()
    how.add_argument("--live", action="store_true", default=True, help="run PyTorch live (default)")
    how.add_argument("--impl", action="store_true", help="run the reference implementation (no torch needed)")
    chk.add_argument("--profile", help="with --impl: the kernel profile to run (default: the fixture's own)")
    chk.add_argument(
        "--threads", type=_positive_int, help="with --impl: the thread count to emulate (default: the fixture's)"
    )
    chk.add_argument(
        "--nanogpt",
        choices=("tiny", "shakespeare-char"),
        help="with --platform or the default: a nanoGPT run",
    )
    chk.add_argument("--ops", default="", help="check only these ops, comma-separated")
    chk.add_argument("--quiet", action="store_true", help="no progress output")
    add_output(chk)
    chk.set_defaults(func=cmd_check)

    dif = sub.add_parser("diff", help="compare two fixtures recorded from the same inputs")
    dif.add_argument("a", type=Path, help="the expectation")
    dif.add_argument("b", type=Path, help="the fixture compared with it")
    dif.add_argument(
        "--verify-cause",
        action="store_true",
        help="traces: re-run both programs to capture the root cause op and replay it through the impl",
    )
    add_output(dif)
    dif.set_defaults(func=cmd_diff)

    from harness.trace.cli import add_trace_parser

    add_trace_parser(sub)

    mat = sub.add_parser("matrix", help="the cross-platform op-match matrix of the fixture sets present")
    mat.add_argument("roots", nargs="*", type=Path, help="fixture roots or files (default: harness/fixtures)")
    mat.add_argument("--out", type=Path, default=Path("ops_matrix"), help="output folder (default: ops_matrix)")
    mat.add_argument("--reference", help="configuration to compare each op against: a label or platform id")
    mat.set_defaults(func=cmd_matrix)

    ver = sub.add_parser(
        "verify", help="check every fixture whole (manifest, completeness, every tensor digest) and every pool"
    )
    ver.add_argument("files", nargs="+", type=Path, help="fixture files, or directories (stores) to search for them")
    ver.set_defaults(func=cmd_verify)

    pck = sub.add_parser("pack", help="one fixture with all its tensors in one self-contained file")
    pck.add_argument("file", type=Path, help="the fixture (in a store, packed, or version 1)")
    pck.add_argument("--out", type=Path, required=True, help="the packed file, or a directory for it")
    pck.add_argument("--force", action="store_true", help="overwrite an existing file")
    pck.set_defaults(func=cmd_pack)

    imp = sub.add_parser("import", help="packed fixtures into a store")
    imp.add_argument("files", nargs="+", type=Path, help="packed (or version 1) fixture files")
    imp.add_argument("--root", type=Path, default=DEFAULT_FIXTURES, help="the store (default: harness/fixtures)")
    imp.add_argument("--force", action="store_true", help="replace a fixture of the same name")
    imp.set_defaults(func=cmd_import)

    gc = sub.add_parser("gc", help="pool entries no fixture names (a dry run unless --delete)")
    gc.add_argument(
        "root", nargs="?", type=Path, default=DEFAULT_FIXTURES, help="the store (default: harness/fixtures)"
    )
    gc.add_argument("--delete", "--yes", action="store_true", help="remove them")
    gc.set_defaults(func=cmd_gc)

    mig = sub.add_parser("migrate", help="convert version 1 fixtures to version 2 (into the store's pool)")
    mig.add_argument("paths", nargs="*", type=Path, help="fixture files or stores (default: harness/fixtures)")
    mig.set_defaults(func=cmd_migrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_reporting_errors(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
