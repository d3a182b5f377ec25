"""Write a generated C header, or check it (the generators of csrc's tables: gen_sleef_rempitab.py,
gen_vml_sincos_d_table.py)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(header: Path, text: str, argv: list[str]) -> int:
    """``--check`` (the only argument): exit status 1, with a line, where ``header`` is not ``text``;
    otherwise write ``text`` to ``header``."""
    if argv[1:] == ["--check"]:
        if header.read_text() != text:
            print(f"{header} differs from the generated table", file=sys.stderr)
            return 1
        return 0
    header.write_text(text)
    return 0
