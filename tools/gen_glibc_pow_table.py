"""Write harness/impl/csrc/glibc_pow_table.h: the words glibc's double pow (2.28 and later) reads, copied from a
libm.so.6's read-only data: ``__pow_log_data`` (ln2 in two parts, the log polynomial, 128 entries of 1/c, a pad,
log(c) and its tail) and ``__exp_data`` (1/ln2 * 128, -ln2/128 in two parts, the exp polynomial, the rounding
shifter and 2^(k/128)'s 256 words). Both structs are hidden symbols: they are found by their leading words
(ln2hi, ln2lo, -0.5 for the log table; 128/ln2 for the exp table), each of which occurs once in glibc 2.36's
x86_64 libm. ``--check`` compares the header with a libm's words instead of writing it (exit 1 on a difference,
2 where the library holds no such tables)."""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = ROOT / "harness" / "impl" / "csrc" / "glibc_pow_table.h"
LIBM = Path("/lib/x86_64-linux-gnu/libm.so.6")
LOG_KEY = struct.pack("<3d", float.fromhex("0x1.62e42fefa3800p-1"), float.fromhex("0x1.ef35793c76730p-45"), -0.5)
EXP_KEY = struct.pack("<d", float.fromhex("0x1.71547652b82fep7"))
LOG_WORDS = 2 + 7 + 128 * 4  # ln2hi, ln2lo, poly[7], {invc, pad, logc, logctail}[128]
EXP_HEAD = 8  # invln2N, negln2hiN, negln2loN, poly[4] (C2..C5), shift
EXP_TAB_AT = 14  # the 256 table words follow exp2's shifter and polynomial


def _find_once(blob: bytes, key: bytes, what: str) -> int:
    at = blob.find(key)
    if at < 0 or blob.find(key, at + 1) >= 0 or at % 8:
        raise LookupError(f"{what}: not found exactly once (8-byte aligned) in the library")
    return at


def read_words(libm: Path = LIBM) -> tuple[list[int], list[int], list[int]]:
    """(log words, exp head words, exp table words) as uint64 bit patterns."""
    blob = libm.read_bytes()
    log_at = _find_once(blob, LOG_KEY, "__pow_log_data")
    exp_at = _find_once(blob, EXP_KEY, "__exp_data")
    log = list(struct.unpack_from(f"<{LOG_WORDS}Q", blob, log_at))
    head = list(struct.unpack_from(f"<{EXP_HEAD}Q", blob, exp_at))
    tab = list(struct.unpack_from("<256Q", blob, exp_at + 8 * EXP_TAB_AT))
    if tab[0] != 0 or tab[1] != 0x3FF0000000000000:
        raise LookupError("__exp_data: its table does not start with 2^0")
    return log, head, tab


def _rows(words: list[int], per: int, braced: bool = False) -> str:
    lines = []
    for i in range(0, len(words), per):
        row = ", ".join(f"0x{w:016x}" for w in words[i : i + per])
        lines.append(f"    {{{row}}}," if braced else f"    {row},")
    return "\n".join(lines)


def render(log: list[int], head: list[int], tab: list[int]) -> str:
    return f"""/* glibc's double pow tables (2.28 and later, sysdeps/ieee754/dbl-64 e_pow_log_data.c and e_exp_data.c),
 * the words as read from glibc 2.36's x86_64 libm.so.6 by tools/gen_glibc_pow_table.py (which also checks them
 * against a host's libm). Written by that tool: do not edit.
 * glibc_pow_log_head: ln2hi, ln2lo (k * ln2 in two parts), A[0..6] (log1p(r)'s polynomial past r, A[0] = -0.5).
 * glibc_pow_log_tab[i] for z in the i-th of 128 subintervals of [0x1.69555p-1, 0x1.69555p+0): 1/c (exactly j/128
 * or j/256), a pad word, log(c) and its tail.
 * glibc_exp_head: 128/ln2, -ln2/128 in two parts, C2..C5 (exp(r) - 1 - r's polynomial), the shifter 1.5*2^52.
 * glibc_exp_tab[2k], [2k+1]: the tail of 2^(k/128) relative to its double, and that double's bits less k << 45.
 */
#ifndef GLIBC_POW_TABLE_H
#define GLIBC_POW_TABLE_H

#include <stdint.h>

static const uint64_t glibc_pow_log_head[9] = {{
{_rows(log[:9], 3)}
}};

static const uint64_t glibc_pow_log_tab[128][4] = {{
{_rows(log[9:], 4, braced=True)}
}};

static const uint64_t glibc_exp_head[8] = {{
{_rows(head, 4)}
}};

static const uint64_t glibc_exp_tab[256] = {{
{_rows(tab, 4)}
}};

#endif
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--libm", type=Path, default=LIBM)
    ap.add_argument("--check", action="store_true", help="compare the header with the library's words")
    args = ap.parse_args()
    try:
        text = render(*read_words(args.libm))
    except (LookupError, OSError, struct.error) as err:  # struct.error: a table cut short by the file's end
        print(f"{args.libm}: {err}")
        return 2
    if args.check:
        same = HEADER.read_text() == text
        print("equal" if same else "differs")
        return 0 if same else 1
    HEADER.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
