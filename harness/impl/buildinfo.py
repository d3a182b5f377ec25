"""How the impl's C kernels are compiled: one shared library per ``csrc/<name>.c``.

Read by ``setup.py`` (the package build) and ``tools/build_impl.py`` (a rebuild in place
while developing), so both compile with the same flags. The flags make the arithmetic
portable: no contraction of ``a*b+c`` into an FMA (every FMA is an explicit ``fmaf``), no
fast-math reassociation, IEEE single precision in SSE/NEON registers. ``-mfma`` only lets
``fmaf`` be one instruction instead of a libm call on x86 CPUs that have it; it changes no bits.
This module is plain Python with no imports from the package.
"""

from __future__ import annotations

import platform
from pathlib import Path

CSRC = Path(__file__).resolve().parent / "csrc"
PORTABLE_FLAGS = ["-std=c11", "-O3", "-ffp-contract=off", "-fno-fast-math", "-fno-finite-math-only", "-pthread"]


def libraries() -> list[str]:
    """The shared libraries to build: every ``csrc/<name>.c`` (headers are shared, not built)."""
    return sorted(p.stem for p in CSRC.glob("*.c"))


def _cpu_has_fma() -> bool:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and " fma " in f"{line} " for line in text.splitlines())


def compile_flags() -> list[str]:
    flags = list(PORTABLE_FLAGS)
    if platform.machine().lower() in ("x86_64", "amd64") and _cpu_has_fma():
        flags.append("-mfma")
    return flags
