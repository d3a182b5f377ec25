"""``parity check``: a fixture against PyTorch run live on this machine now, or against the
reference implementation (``--impl``, no torch needed)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness.cli.common import add_output, check_output, emit, provenance_note
from harness.compare.fixtures import diff_fixtures
from harness.core.errors import ParityError, positive_int
from harness.core.files import path_arg
from harness.core.op_ids import MODEL_OP_IDS, OP_IDS, parse_op_list
from harness.formats.registry import read_fixture
from harness.impl.known_gaps import load_gaps
from harness.impl.profiles import IMPL_TORCH, RSQRT_QEMU, get_profile, profile_for_fixture
from harness.platform.config import parse_platform_id
from harness.platform.provenance import installed_torch_version
from harness.record.launch import committed_fixture, default_config, record_live, torch_missing
from harness.replay.kinds import replay
from harness.store.paths import DEFAULT_FIXTURES, fixture_path


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    chk = sub.add_parser("check", help="compare a fixture with PyTorch run live on this machine now")
    src = chk.add_mutually_exclusive_group()
    src.add_argument("--against", type=path_arg, help="the fixture file to check against")
    src.add_argument("--platform", help="a committed fixture of the installed torch, by platform id")
    how = chk.add_mutually_exclusive_group()
    how.add_argument("--live", action="store_true", default=True, help="run PyTorch live (default)")
    how.add_argument("--impl", action="store_true", help="run the reference implementation (no torch needed)")
    chk.add_argument("--profile", help="with --impl: the kernel profile to run (default: the fixture's own)")
    chk.add_argument(
        "--threads", type=positive_int, help="with --impl: the thread count to emulate (default: the fixture's)"
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


def cmd_check(args: argparse.Namespace) -> int:
    check_output(args)
    if args.impl:
        return _check_impl(args)
    if args.profile or args.threads is not None:
        raise ParityError("--profile and --threads choose how the reference implementation runs: use them with --impl")
    parse_op_list(args.ops, (*OP_IDS, *MODEL_OP_IDS))  # unknown ops fail here; the fixture's own at the live run
    expected = read_fixture(args.against) if args.against else None
    if not installed_torch_version():
        version = str(expected.attrs["torch_version"]) if expected else ""
        raise ParityError(torch_missing(version, "or check the reference implementation with --impl", args.platform))
    expected = expected or read_fixture(committed_fixture(args.platform, args.nanogpt or ""))
    with tempfile.TemporaryDirectory(prefix="parity-live-") as tmp:
        path, note = record_live(expected, Path(tmp), ops=args.ops, quiet=args.quiet)
        actual = read_fixture(path)
        diff = diff_fixtures(expected, actual, subset=bool(args.ops))
        diff.b_label = f"live run ({actual.attrs['platform_id']})"
        return emit(diff, args, provenance_note(expected, actual, note))


def _impl_fixture_path(args: argparse.Namespace) -> Path:
    """--against, else the committed fixture of --platform (or this machine's) for the impl's torch."""
    if args.against:
        return args.against
    config = parse_platform_id(args.platform) if args.platform else default_config(IMPL_TORCH, args.nanogpt or "")
    path = fixture_path(DEFAULT_FIXTURES, IMPL_TORCH, config, args.nanogpt or "")
    if not path.exists():
        raise ParityError(f"no committed fixture {path.name} for torch {IMPL_TORCH} (the version the impl reproduces)")
    return path


def _check_impl(args: argparse.Namespace) -> int:
    """The reference implementation (no torch) against a fixture, under the fixture's own
    profile, thread count and torch release unless --profile/--threads say otherwise."""
    expected = read_fixture(_impl_fixture_path(args))
    platform = str(expected.attrs["platform_id"])
    own = profile_for_fixture(expected.attrs)
    threads = own.threads if args.threads is None else args.threads
    # the fixture's own profile keeps its BLAS code path and MKL_CBWR mode; another names its defaults
    same = args.profile in (None, own.name)
    profile = own.with_threads(threads) if same else get_profile(args.profile, threads, own.torch)
    ran = f"the impl ran as {profile.label}" + ("" if profile == own else f" (the fixture's own profile: {own.label})")
    if profile.rsqrt_estimate == RSQRT_QEMU:
        ran += "; torch.sqrt (MKL VML) refines QEMU's exact RSQRTPS, as the emulated CPU of this recording did"
    result = replay(expected, profile, args.ops)
    result.diff.b_label = f"reference implementation, profile {profile.label}"
    known = profile == own and own.torch == IMPL_TORCH  # the known gaps are measured on the IMPL_TORCH fixtures
    gaps = [g.line() for g in load_gaps().for_platform(platform) if g.op in result.gap_ops] if known else None
    code = emit(result.diff, args, "; ".join([ran, *result.notes]), gaps)
    return 1 if result.missing else code
