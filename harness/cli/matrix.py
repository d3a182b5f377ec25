"""``parity matrix``: the cross-platform op-match matrix of the fixture sets present."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.core.files import path_arg
from harness.report.matrix import load_configs, write_matrix
from harness.report.output import check_output_dir
from harness.store.paths import DEFAULT_FIXTURES


def add_matrix_parser(sub: argparse._SubParsersAction) -> None:
    mat = sub.add_parser("matrix", help="the cross-platform op-match matrix of the fixture sets present")
    mat.add_argument("roots", nargs="*", type=path_arg, help="fixture roots or files (default: harness/fixtures)")
    mat.add_argument("--out", type=path_arg, default=Path("ops_matrix"), help="output folder (default: ops_matrix)")
    mat.add_argument("--reference", help="configuration to compare each op against: a label or platform id")
    mat.set_defaults(func=cmd_matrix)


def cmd_matrix(args: argparse.Namespace) -> int:
    check_output_dir(args.out)  # before the fixtures are read
    configs = load_configs(args.roots or [DEFAULT_FIXTURES])
    for path in write_matrix(configs, args.out, args.reference):
        print(f"wrote {path}")
    return 0
