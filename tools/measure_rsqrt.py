"""The host CPU's RSQRTPS estimate, measured, against the tables the impl carries.

The architecture leaves RSQRTPS to the implementation, and MKL VML's sqrt (torch.sqrt on x86)
refines it, so torch.sqrt's bits depend on the CPU model (docs/impl/kernels.md, adamw_step). The impl
carries each measured CPU's estimate as a table of the exponent's parity and the top 12 mantissa bits
(harness/impl/csrc/rsqrt_tables.h). This compiles a small C program, runs RSQRTPS on every float of
[0.5, 2) and on a stride of every other exponent, checks that the estimate is such a table (nothing
depends on the lower 11 mantissa bits, the estimate's lower 11 bits are zero, every exponent scales
by 2^(-k/2)), and says which committed table this CPU's equals.

python tools/measure_rsqrt.py              # which table this CPU's RSQRTPS is
python tools/measure_rsqrt.py --emit NAME  # the C table NAME_rsqrt_mant of this CPU, for rsqrt_tables.h
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "harness" / "impl" / "csrc" / "rsqrt_tables.h"

PROGRAM = r"""
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t rsqrtps_bits(uint32_t b) {
    float x, r;
    memcpy(&x, &b, 4);
    r = _mm_cvtss_f32(_mm_rsqrt_ps(_mm_set1_ps(x)));
    memcpy(&b, &r, 4);
    return b;
}

int main(void) {
    static uint16_t tab[2][4096];
    long not_a_table = 0;
    for (uint32_t p = 0; p < 2; p++)
        for (uint32_t m = 0; m < (1u << 23); m++) {
            uint32_t r = rsqrtps_bits(((126u + p) << 23) | m);
            uint16_t top = (uint16_t)((r >> 11) & 0xfffu);
            if ((r & 0x7ffu) || (r >> 23) != 127u - p) not_a_table++;
            if ((m & 0x7ffu) == 0) tab[p][m >> 11] = top;
            else if (tab[p][m >> 11] != top) not_a_table++;
        }
    for (int32_t e = 1; e < 255; e++)
        for (uint32_t m = 0; m < (1u << 23); m += 4093) {
            int32_t par = (e - 126) & 1;
            uint32_t want = ((uint32_t)(127 - par - (e - 126 - par) / 2) << 23) | ((uint32_t)tab[par][m >> 11] << 11);
            if (rsqrtps_bits(((uint32_t)e << 23) | m) != want) not_a_table++;
        }
    fprintf(stderr, "%ld\n", not_a_table);
    fwrite(tab, sizeof tab, 1, stdout);
    return 0;
}
"""


def measure() -> tuple[np.ndarray, int]:
    """This CPU's [2][4096] table and the number of inputs it fails to describe."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "rsqrt.c", Path(tmp) / "rsqrt"
        src.write_text(PROGRAM)
        subprocess.run(["cc", "-O2", "-msse", str(src), "-o", str(exe)], check=True)
        run = subprocess.run([str(exe)], capture_output=True, check=True)
    table = np.frombuffer(run.stdout, dtype=np.uint16).reshape(2, 4096)
    return table, int(run.stderr.decode().strip())


def committed(path: Path = TABLES) -> dict[str, np.ndarray]:
    """The tables of rsqrt_tables.h, by name (amd, intel, ...)."""
    text = path.read_text()
    out = {}
    for name, body in re.findall(r"static const uint16_t (\w+)_rsqrt_mant\[2\]\[4096\] = \{(.*?)\n\};", text, re.S):
        out[name] = np.array([int(v, 16) for v in re.findall(r"0x[0-9a-f]+", body)], dtype=np.uint16).reshape(2, 4096)
    return out


def emit(name: str, table: np.ndarray, cpu: str) -> str:
    lines = [
        f"/* RSQRTPS of {cpu}, measured on it by tools/measure_rsqrt.py. */",
        f"static const uint16_t {name}_rsqrt_mant[2][4096] = {{",
    ]
    for p, span in ((0, "[0.5, 1)"), (1, "[1, 2)")):
        lines.append(f"    {{  /* p = {p}: x in {span} */")
        for row in range(0, 4096, 16):
            lines.append("        " + ", ".join(f"0x{v:03x}" for v in table[p, row : row + 16]) + ",")
        lines.append("    },")
    lines.append("};")
    return "\n".join(lines)


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "this CPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emit", metavar="NAME", help="print this CPU's table as the C array NAME_rsqrt_mant")
    args = parser.parse_args(argv)
    if platform.machine().lower() not in ("x86_64", "amd64"):
        print(f"measure_rsqrt: error: RSQRTPS is x86's; this host is {platform.machine()}", file=sys.stderr)
        return 2
    if args.emit is not None and not re.fullmatch(r"[a-z][a-z0-9_]*", args.emit):
        print(f"measure_rsqrt: error: --emit takes a C identifier in lower case, not '{args.emit}'", file=sys.stderr)
        return 2
    table, misses = measure()
    if misses:
        print(f"measure_rsqrt: this CPU's RSQRTPS is not a table of parity and 12 mantissa bits ({misses} inputs)")
        return 1
    if args.emit:
        print(emit(args.emit, table, cpu_name()))
        return 0
    known = committed()
    for name, other in known.items():
        differ = int((other != table).sum())
        print(f"{name}: {'equal' if not differ else f'{differ} of 8192 entries differ'}")
    same = [name for name, other in known.items() if np.array_equal(other, table)]
    print(f"{cpu_name()}: RSQRTPS is the {same[0]} table" if same else f"{cpu_name()}: RSQRTPS is none of them")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
