"""What the comparing commands share: the report options, the report itself and the exit status."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from harness.compare.fixtures import NanoGPTDiff, OpsDiff, platform_note
from harness.core.files import path_arg
from harness.report.output import check_output_path, write_output
from harness.report.render import format_for, render


def add_output(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        choices=("terminal", "markdown", "json", "html"),
        help="report format (default: from --output's suffix, else terminal)",
    )
    p.add_argument("--output", type=path_arg, help="write the report here (and print the terminal table)")


def check_output(args: argparse.Namespace) -> None:
    """Refuse an --output that cannot be written before any work."""
    if args.output:
        check_output_path(args.output)


def provenance_note(a: Any, b: Any, note: str = "") -> str:
    """What differs in the two fixtures' provenance, after ``note``."""
    return platform_note(a.provenance, b.provenance, note)


def emit(diff: OpsDiff | NanoGPTDiff, args: argparse.Namespace, note: str = "", gaps: list[str] | None = None) -> int:
    """Print the terminal report, write the --output one, and give the exit status."""
    deliver(args, lambda fmt: render(diff, fmt, note, gaps))
    return 0 if diff.bit_identical else 1


def deliver(args: argparse.Namespace, text_in: Callable[[str], str]) -> None:
    """The report in ``--format`` (by default the one ``--output``'s suffix asks for) on standard output;
    or written to ``--output``, with the terminal form printed."""
    text = text_in(args.format or format_for(args.output))
    if args.output:
        write_output(args.output, text)
        print(text_in("terminal"), end="")
        print(f"report written to {args.output}")
    else:
        print(text, end="")
