"""``parity diff``: two fixtures recorded from the same inputs (or two traces), compared."""

from __future__ import annotations

import argparse

from harness.cli.common import add_output, check_output, emit, provenance_note
from harness.cli.trace import cmd_trace_diff
from harness.compare.fixtures import diff_fixtures
from harness.core.errors import ParityError
from harness.core.files import path_arg
from harness.formats.registry import read_fixture
from harness.formats.trace import is_trace


def add_diff_parser(sub: argparse._SubParsersAction) -> None:
    dif = sub.add_parser("diff", help="compare two fixtures recorded from the same inputs")
    dif.add_argument("a", type=path_arg, help="the expectation")
    dif.add_argument("b", type=path_arg, help="the fixture compared with it")
    dif.add_argument(
        "--verify-cause",
        action="store_true",
        help="traces: re-run both programs to capture the root cause op and replay it through the impl",
    )
    dif.add_argument(
        "--target",
        default="",
        help="traces: what a root cause must reach (an op index of A, 'loss', a module path or a parameter); "
        "default: the loss and the optimizer's state after the last step",
    )
    add_output(dif)
    dif.set_defaults(func=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    if is_trace(args.a) or is_trace(args.b):
        return cmd_trace_diff(args)
    if args.target:
        raise ParityError("--target is for two traces: fixtures have no op stream to walk back through")
    check_output(args)
    a, b = read_fixture(args.a), read_fixture(args.b)
    return emit(diff_fixtures(a, b), args, provenance_note(a, b))
