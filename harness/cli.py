"""The ``parity`` command line: generate, check, diff, info, list, verify.

Exit status: 0 success (for check and diff: every compared tensor bit-identical), 1 something
differs (check, diff), 2 usage or input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from harness import __version__
from harness.errors import FixtureError, ParityError
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
        raise ParityError("torch is not installed: 'pip install torch==2.13.0' (or use tox -e regen)")
    nanogpt = args.nanogpt or args.nanogpt_dir is not None
    if nanogpt and args.ops:
        raise ParityError("--ops selects ops; it does not go with --nanogpt")
    if args.nanogpt_dir is not None and not (args.nanogpt_dir / "model.py").is_file():
        raise ParityError(f"{args.nanogpt_dir}: no model.py here (expected a checkout of nanoGPT)")
    parse_op_list(args.ops)  # unknown ops fail here, before any process starts
    request = RecordRequest(
        nanogpt=args.config if nanogpt else "", ops=args.ops, full_steps=args.full_steps, init=args.init,
        nanogpt_dir=args.nanogpt_dir, force=args.force, quiet=args.quiet,
    )  # fmt: skip
    configs = plan_configs(collect_facts(), args.isa, args.threads)
    targets = [(cfg, fixture_path(args.out, torch_version, cfg, request.nanogpt)) for cfg in configs]
    existing = [str(path) for _, path in targets if path.exists()]
    if existing and not args.force:
        raise ParityError(f"already exists, pass --force to overwrite: {', '.join(existing)}")
    for cfg, path in targets:
        rc = request.run(cfg, path).returncode
        if rc != 0:
            return rc
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from harness.fixture_info import describe, read_fixture

    print(describe(read_fixture(args.file), full=args.full))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from harness.fixture_info import contents_summary, table
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
                            contents_summary(reader.kind, attrs),
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
    print(table(("torch", "platform", "kind", "contents", "MiB", "created", "file"), rows))
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
    from harness.fixture_info import contents_summary, read_fixture
    from harness.op_fixture import OpFixture
    from harness.store import FixtureReader

    failed = 0
    for path in _expand_dirs(args.files):
        try:
            fx = read_fixture(path)  # by name first, so a bad tensor is reported by its name
            with FixtureReader(path) as reader:
                count = reader.verify_all()
                summary = contents_summary(reader.kind, fx.attrs)
            if isinstance(fx, OpFixture):
                summary += f", {len(fx.cases)} cases"
            print(f"ok    {path}: {count} tensors verified, {summary}")
        except FixtureError as err:
            failed += 1
            print(f"parity: error: {err}", file=sys.stderr)
    return 2 if failed else 0


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
    from harness.report import render

    fmt = args.format or _format_from_suffix(args.output)
    text = render(diff, fmt, note, gaps)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.output.with_name(f".{args.output.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(args.output)
        print(render(diff, "terminal", note, gaps), end="")
        print(f"report written to {args.output}")
    else:
        print(text, end="")
    return 0 if diff.bit_identical else 1


def _format_from_suffix(path: Path | None) -> str:
    suffix = path.suffix.lower() if path else ""
    return {".json": "json", ".md": "markdown", ".html": "html", ".htm": "html"}.get(suffix, "terminal")


def _platform_note(a, b, note: str = "") -> str:
    from harness.compare import provenance_notes

    facts = provenance_notes(a.provenance, b.provenance)
    return "; ".join([n for n in (note, *(["recorded on other platforms: " + "; ".join(facts)] if facts else [])) if n])


def cmd_diff(args: argparse.Namespace) -> int:
    a, b = _load_pair(args.a, args.b)
    return _emit(_diff(a, b), args, _platform_note(a, b))


def cmd_check(args: argparse.Namespace) -> int:
    import tempfile

    from harness.fixture_info import read_fixture

    if args.impl:
        return _check_impl(args)
    if args.profile or args.threads:
        raise ParityError("--profile and --threads choose how the reference implementation runs: use them with --impl")
    expected = read_fixture(args.against or committed_fixture(args.platform, args.nanogpt or ""))
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
    profile = get_profile(args.profile or own.name, args.threads or own.threads)
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

        if args.ops:
            raise ParityError("--ops selects op cases; a nanoGPT fixture is checked whole")
        missing = {}
        diff = diff_nanogpt(expected, impl_nanogpt_fixture(expected, profile))
        ops = {f"nanogpt-{expected.config['name']}"}
    diff.b_label = f"reference implementation, profile {profile.label}"
    gaps = [g.line() for g in load_gaps().for_platform(platform) if g.op in ops] if profile == own else []
    code = _emit(diff, args, "; ".join(notes), gaps)
    return 1 if missing else code


def cmd_matrix(args: argparse.Namespace) -> int:
    from harness.matrix import load_configs, write_matrix

    configs = load_configs(args.roots or [DEFAULT_FIXTURES])
    for path in write_matrix(configs, args.out, args.reference):
        print(f"wrote {path}")
    return 0


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
    chk.add_argument("--threads", type=int, help="with --impl: the thread count to emulate (default: the fixture's)")
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
    add_output(dif)
    dif.set_defaults(func=cmd_diff)

    mat = sub.add_parser("matrix", help="the cross-platform op-match matrix of the fixture sets present")
    mat.add_argument("roots", nargs="*", type=Path, help="fixture roots or files (default: harness/fixtures)")
    mat.add_argument("--out", type=Path, default=Path("ops_matrix"), help="output folder (default: ops_matrix)")
    mat.add_argument("--reference", help="configuration to compare each op against: a label or platform id")
    mat.set_defaults(func=cmd_matrix)

    ver = sub.add_parser("verify", help="check schema and every tensor digest")
    ver.add_argument("files", nargs="+", type=Path, help="fixture files, or directories to search for them")
    ver.set_defaults(func=cmd_verify)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_reporting_errors(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
