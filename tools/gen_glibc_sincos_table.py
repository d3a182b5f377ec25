"""Write harness/impl/csrc/glibc_sincos_table.h: ``__sincostab``, the table glibc's double sin, cos and sincos
(sysdeps/ieee754/dbl-64/s_sin.c, the IBM Accurate Mathematical Library's sincos.tbl) read for |x| below 2.426265:
for k = 0..109, sin(k/128) and cos(k/128) each as a pair hi + lo (sn, ssn, cs, ccs).

The rule, measured on glibc 2.36's aarch64 libm.so.6: every hi word is sin(k/128) or cos(k/128) rounded to the
nearest double (all 220); the lo words are not a rounding of the exact tail: hi + lo is within 2^-106.8 of the
value relative to it, 202 of the 220 lo words are the tail rounded to nearest and 18 are off it by 0.5 to 39
of their own ulps (no rounding of the value to 100 to 124 significant bits, or at a fixed bit, nearest, toward
zero or either infinity, gives all 220; the table was computed once in a precision of about 107 bits). So the lo
words are glibc's own, read from the library's read-only data, and this tool checks the rule on every word (the
hi words equal the nearest doubles, each hi + lo within 2^-106 of the value) before writing.

``python tools/gen_glibc_sincos_table.py [--libm PATH] [--check]``: PATH an aarch64 (or any) glibc 2.28+ libm.so.6
(default the arm64 emulation's, ``$PARITY_ARM64_CACHE/root``, ``~/.cache/parity-harness/arm64`` unless set); the
table is hidden, found by its first five words (entry 0 and sin(1/128)'s hi word), which occur once in that
library. ``--check`` compares the header with the library's words (exit 1 on a difference, 2 where the library
holds no such table or its words break the rule: one line, as for a library that cannot be read).
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = ROOT / "harness" / "impl" / "csrc" / "glibc_sincos_table.h"
CACHE = Path(os.environ.get("PARITY_ARM64_CACHE", Path.home() / ".cache" / "parity-harness" / "arm64"))
LIBM = CACHE / "root" / "lib" / "aarch64-linux-gnu" / "libm.so.6"
ENTRIES = 110
KEY = struct.pack("<5d", 0.0, 0.0, 1.0, 0.0, float.fromhex("0x1.fffeaaaaeeeefp-8"))


def read_words(libm: Path = LIBM) -> list[int]:
    """The table's 440 words as uint64 bit patterns, in the library's order."""
    blob = libm.read_bytes()
    at = blob.find(KEY)
    if at < 0 or blob.find(KEY, at + 1) >= 0 or at % 8 or at + 32 * ENTRIES > len(blob):
        raise LookupError("__sincostab: not found exactly once (8-byte aligned, whole) in the library")
    return list(struct.unpack_from(f"<{4 * ENTRIES}Q", blob, at))


def _double(word: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", word))[0]


def check_rule(words: list[int]) -> None:
    """Raise ValueError unless every hi word is sin/cos(k/128) rounded to nearest and hi + lo lies within 2^-106
    of the value relative to it (mpmath at 300 bits)."""
    import mpmath

    mpmath.mp.prec = 300
    for k in range(ENTRIES):
        for j, fn in ((0, mpmath.sin), (2, mpmath.cos)):
            value = fn(mpmath.mpf(k) / 128)
            hi, lo = _double(words[4 * k + j]), _double(words[4 * k + j + 1])
            if hi != float(value):
                raise ValueError(f"entry {k} word {j}: {hi.hex()} is not the nearest double {float(value).hex()}")
            if value and abs(mpmath.mpf(hi) + mpmath.mpf(lo) - value) > abs(value) * mpmath.ldexp(1, -106):
                raise ValueError(f"entry {k} word {j + 1}: hi + lo not within 2^-106 of the value")


def render(words: list[int]) -> str:
    rows = "\n".join(
        "    {" + ", ".join(f"0x{w:016x}" for w in words[4 * k : 4 * k + 4]) + "}," for k in range(ENTRIES)
    )
    return f"""/* glibc's __sincostab (sysdeps/ieee754/dbl-64, s_sin.c's sin/cos/sincos below |x| = 2.426265), as read
 * from glibc 2.36's aarch64 libm.so.6 by tools/gen_glibc_sincos_table.py. Written by that tool: do not edit.
 * Entry k = 0..109 for x = k/128: {{sn, ssn, cs, ccs}}, sin x = sn + ssn, cos x = cs + ccs; sn and cs the nearest
 * doubles (the tool checks all 220), ssn and ccs glibc's own tails (hi + lo within 2^-106 of the value, 202 of the
 * 220 the tail rounded to nearest, 18 not: no rounding rule gives them, so the words are the library's). */
#ifndef PARITY_GLIBC_SINCOS_TABLE_H
#define PARITY_GLIBC_SINCOS_TABLE_H

#include <stdint.h>

static const uint64_t glibc_sincostab[{ENTRIES}][4] = {{
{rows}
}};

#endif
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--libm", type=Path, default=LIBM)
    ap.add_argument("--check", action="store_true", help="compare the header with the library's words")
    args = ap.parse_args()
    try:
        words = read_words(args.libm)
        check_rule(words)
    except (LookupError, OSError, ValueError) as err:
        print(err)
        return 2
    text = render(words)
    if args.check:
        same = HEADER.read_text() == text
        print("equal" if same else "differs")
        return 0 if same else 1
    HEADER.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
