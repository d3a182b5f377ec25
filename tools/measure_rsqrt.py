"""The host CPU's RSQRTPS (and VRSQRT14PS) estimate, measured, against the tables the impl carries.

The architecture leaves RSQRTPS to the implementation, and MKL VML's sqrt (torch.sqrt on x86)
refines it, so torch.sqrt's bits depend on the CPU model (docs/impl/kernels.md, adamw_step). The impl
carries each measured CPU's estimate as a table of the exponent's parity and the top 12 mantissa bits
(harness/impl/csrc/rsqrt_tables.h). This compiles a small C program, runs RSQRTPS on every float of
[0.5, 2) and on a stride of every other exponent, checks that the estimate is such a table (nothing
depends on the lower 11 mantissa bits, the estimate's lower 11 bits are zero, every exponent scales
by 2^(-k/2)), and says which committed table this CPU's equals.

VRSQRT14PS (AVX-512F), which MKL's AVX-512 sqrt kernel refines, is measured the same way where the
host has it: on the Intel Xeon measured, a table of the exponent's parity and the top 15 mantissa bits
(16-bit estimates, their lower 7 bits zero), exact at powers of 4; the impl carries it as each
entry's step down from the one before (rsqrt_tables.h intel_rsqrt14_steps).

python tools/measure_rsqrt.py                # which table this CPU's RSQRTPS (and VRSQRT14PS) is
python tools/measure_rsqrt.py --emit NAME    # the C tables NAME_rsqrt_mant (and NAME_rsqrt14_*) of this CPU
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


PROGRAM14 = r"""
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t rsqrt14_bits(uint32_t b) {
    float x, r;
    memcpy(&x, &b, 4);
    r = _mm512_cvtss_f32(_mm512_rsqrt14_ps(_mm512_set1_ps(x)));
    memcpy(&b, &r, 4);
    return b;
}

int main(void) {
    static uint16_t tab[2][32768];
    long not_a_table = 0;
    for (uint32_t p = 0; p < 2; p++)
        for (uint32_t m = 0; m < (1u << 23); m++) {
            uint32_t r = rsqrt14_bits(((126u + p) << 23) | m);
            if (p == 1 && m == 0) { /* x = 1: exact */
                if (r != 0x3f800000u) not_a_table++;
                continue;
            }
            uint16_t top = (uint16_t)((r >> 7) & 0xffffu);
            if ((r & 0x7fu) || (r >> 23) != 127u - p) not_a_table++;
            if ((m & 0xffu) == 0 || (p == 1 && m == 1)) tab[p][m >> 8] = top;
            else if (tab[p][m >> 8] != top) not_a_table++;
        }
    for (int32_t e = 1; e < 255; e++)
        for (uint32_t m = 0; m < (1u << 23); m += 4093) {
            int32_t par = (e - 126) & 1, k = (e - 126 - par) / 2;
            uint32_t want = m == 0 && par ? (uint32_t)(127 - k) << 23
                                          : ((uint32_t)(127 - par - k) << 23) | ((uint32_t)tab[par][m >> 8] << 7);
            if (rsqrt14_bits(((uint32_t)e << 23) | m) != want) not_a_table++;
        }
    fprintf(stderr, "%ld\n", not_a_table);
    fwrite(tab, sizeof tab, 1, stdout);
    return 0;
}
"""


def _run(program: str, flags: list[str]) -> tuple[bytes, int]:
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "m.c", Path(tmp) / "m"
        src.write_text(program)
        subprocess.run(["cc", "-O2", *flags, str(src), "-o", str(exe)], check=True)
        run = subprocess.run([str(exe)], capture_output=True, check=True)
    return run.stdout, int(run.stderr.decode().strip())


def has_avx512f() -> bool:
    cpuinfo = Path("/proc/cpuinfo")
    return cpuinfo.exists() and " avx512f" in cpuinfo.read_text()


def measure14() -> tuple[np.ndarray, int]:
    """This CPU's VRSQRT14PS as a [2][32768] table of 16-bit estimates, and the inputs it fails to describe."""
    out, misses = _run(PROGRAM14, ["-mavx512f"])
    return np.frombuffer(out, dtype=np.uint16).reshape(2, 32768), misses


def measure() -> tuple[np.ndarray, int]:
    """This CPU's [2][4096] table and the number of inputs it fails to describe."""
    out, misses = _run(PROGRAM, ["-msse"])
    return np.frombuffer(out, dtype=np.uint16).reshape(2, 4096), misses


def committed14(path: Path = TABLES) -> dict[str, np.ndarray]:
    """The VRSQRT14PS tables of rsqrt_tables.h, by name, as [2][32768] estimates."""
    return committed14_text(path.read_text())


def committed14_text(text: str) -> dict[str, np.ndarray]:
    """``committed14`` of a header's text."""
    out = {}
    for name, a, b in re.findall(r"static const uint16_t (\w+)_rsqrt14_first\[2\] = \{(\d+), (\d+)\};", text):
        body = re.search(rf"static const uint32_t {name}_rsqrt14_steps\[2\]\[2048\] = \{{(.*?)\n\}};", text, re.S)
        words = np.array([int(v, 16) for v in re.findall(r"0x[0-9a-f]+", body.group(1))], dtype=np.uint64)
        out[name] = unsteps14([int(a), int(b)], words.reshape(2, 2048))
    return out


def committed(path: Path = TABLES) -> dict[str, np.ndarray]:
    """The RSQRTPS tables of rsqrt_tables.h, by name (amd, intel, ...)."""
    text = path.read_text()
    out = {}
    for name, body in re.findall(r"static const uint16_t (\w+)_rsqrt_mant\[2\]\[4096\] = \{(.*?)\n\};", text, re.S):
        out[name] = np.array([int(v, 16) for v in re.findall(r"0x[0-9a-f]+", body)], dtype=np.uint16).reshape(2, 4096)
    return out


def steps14(table: np.ndarray) -> tuple[list[int], np.ndarray]:
    """A [2][32768] VRSQRT14PS table as rsqrt_tables.h keeps it: each half's first entry, and every
    entry's step down from the one before (0 to 3; the first's 0), 16 two-bit steps a word, the
    first in the low bits."""
    steps = np.zeros((2, 32768), dtype=np.int64)
    steps[:, 1:] = table[:, :-1].astype(np.int64) - table[:, 1:].astype(np.int64)
    if steps.min() < 0 or steps.max() > 3:
        raise ValueError("a VRSQRT14PS table whose steps are not 0 to 3")
    words = np.zeros((2, 2048), dtype=np.uint64)
    for i in range(16):
        words |= steps[:, i::16].astype(np.uint64) << np.uint64(2 * i)
    return [int(table[0, 0]), int(table[1, 0])], words


def unsteps14(first: list[int], words: np.ndarray) -> np.ndarray:
    """The [2][32768] table back from ``steps14``'s form."""
    steps = np.stack([(words >> np.uint64(2 * i)) & np.uint64(3) for i in range(16)], axis=-1).reshape(2, 32768)
    steps = steps.astype(np.int64)
    steps[:, 0] = 0
    return (np.array(first, dtype=np.int64)[:, None] - np.cumsum(steps, axis=1)).astype(np.uint16)


def emit14(name: str, table: np.ndarray, cpu: str) -> str:
    first, words = steps14(table)
    lines = [
        f"/* VRSQRT14PS of {cpu}, measured on it by tools/measure_rsqrt.py: entry t of half p (x = 2^(p-1) * 1.t,",
        " * t the top 15 mantissa bits) is the estimate's 16-bit mantissa field (bits 7 to 22), first[p] less the",
        " * steps of entries 1 to t (rsqrt14_of_table). */",
        f"static const uint16_t {name}_rsqrt14_first[2] = {{{first[0]}, {first[1]}}};",
        f"static const uint32_t {name}_rsqrt14_steps[2][2048] = {{",
    ]
    for p in (0, 1):
        lines.append("    {")
        for row in range(0, 2048, 8):
            lines.append("        " + ", ".join(f"0x{int(v):08x}" for v in words[p, row : row + 8]) + ",")
        lines.append("    },")
    lines.append("};")
    return "\n".join(lines)


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
    table14, misses14 = measure14() if has_avx512f() else (None, 0)
    if misses14:
        print(f"measure_rsqrt: this CPU's VRSQRT14PS is not a table of parity and 15 mantissa bits ({misses14} inputs)")
        return 1
    if args.emit:
        print(emit(args.emit, table, cpu_name()))
        if table14 is not None:
            print(emit14(args.emit, table14, cpu_name()))
        return 0
    found = _which("RSQRTPS", table, committed())
    if table14 is not None:
        found = _which("VRSQRT14PS", table14, committed14()) and found
    return 0 if found else 1


def _which(instruction: str, table: np.ndarray, known: dict[str, np.ndarray]) -> bool:
    """Print how this CPU's table compares with each committed one; whether one is equal."""
    for name, other in known.items():
        differ = int((other != table).sum())
        print(f"{instruction} {name}: {'equal' if not differ else f'{differ} of {table.size} entries differ'}")
    same = [name for name, other in known.items() if np.array_equal(other, table)]
    verdict = f"the {same[0]} table" if same else "none of them"
    print(f"{cpu_name()}: {instruction} is {verdict}")
    return bool(same)


if __name__ == "__main__":
    sys.exit(main())
