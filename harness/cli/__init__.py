"""The ``parity`` command line: generate, check, diff, trace, audit, matrix, info, list, verify, pack, import, gc,
migrate.

One module per command (or group of commands), each with its ``add_<command>_parser``; this one
only assembles them. Exit status: 0 success (for check and diff: every compared tensor
bit-identical), 1 something differs (check, diff), 2 usage or input error (one line on stderr,
no traceback).
"""

from __future__ import annotations

import sys

from harness.cli import check, diff, fixtures, generate, matrix, trace
from harness.core.errors import ArgumentParser, escape_unprintable_output, run_reporting_errors
from harness.core.version import __version__


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="parity", description="Golden-fixture reproducibility harness for PyTorch CPU numerics."
    )
    parser.add_argument("--version", action="version", version=f"parity-harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (
        generate.add_generate_parser,
        fixtures.add_info_parser,
        fixtures.add_list_parser,
        check.add_check_parser,
        diff.add_diff_parser,
        trace.add_trace_parser,
        trace.add_audit_parser,
        matrix.add_matrix_parser,
        fixtures.add_verify_parser,
        fixtures.add_pack_parser,
        fixtures.add_import_parser,
        fixtures.add_gc_parser,
        fixtures.add_migrate_parser,
    ):
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    escape_unprintable_output()
    args = build_parser().parse_args(argv)
    return run_reporting_errors(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
