"""How the package's C libraries are compiled: one shared library per ``<layer>/csrc/<name>.c``.

Read by ``setup.py`` (the package build) and ``tools/build_impl.py`` (a rebuild in place
while developing), so both compile with the same flags. Three layers carry C: ``core`` (the
tensor digest), ``impl`` (the reference implementation's kernels) and ``trace`` (the trace's
per-op bookkeeping); ``csrc/<name>.c`` of layer ``L`` becomes ``harness.L._<name>``, and every
library sees its own ``csrc`` and core's (``fingerprint.h``). The flags make the arithmetic
portable: no contraction of ``a*b+c`` into an FMA (every FMA is an explicit ``fmaf``), no
fast-math reassociation, IEEE single precision in SSE/NEON registers. ``-mfma`` only lets
``fmaf`` be one instruction instead of a libm call on x86 CPUs that have it; it changes no bits.
This module is plain Python with no imports from the package.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # harness/
CORE_CSRC = PACKAGE / "core" / "csrc"
LAYERS_WITH_C = ("core", "impl", "trace")
PORTABLE_FLAGS = ["-std=c11", "-O3", "-ffp-contract=off", "-fno-fast-math", "-fno-finite-math-only", "-pthread"]


@dataclass(frozen=True)
class Library:
    layer: str  # core, impl or trace
    name: str  # csrc/<name>.c

    @property
    def module(self) -> str:
        return f"harness.{self.layer}._{self.name}"

    @property
    def source(self) -> Path:
        return PACKAGE / self.layer / "csrc" / f"{self.name}.c"

    @property
    def includes(self) -> list[Path]:
        own = self.source.parent
        return [own] if own == CORE_CSRC else [own, CORE_CSRC]


def libraries() -> list[Library]:
    """The shared libraries to build: every ``csrc/<name>.c`` of each layer (headers are shared, not built)."""
    return [Library(layer, p.stem) for layer in LAYERS_WITH_C for p in sorted((PACKAGE / layer / "csrc").glob("*.c"))]


def headers() -> list[Path]:
    return [p for layer in LAYERS_WITH_C for p in sorted((PACKAGE / layer / "csrc").glob("*.h"))]


def _cpu_has_fma() -> bool:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and " fma " in f"{line} " for line in text.splitlines())


def compile_flags(machine: str | None = None) -> list[str]:
    """The flags for this host, or for a ``machine`` (``platform.machine()`` spelling, e.g.
    ``aarch64``) cross-compiled for: only an x86_64 with FMA adds one, ``-mfma``."""
    flags = list(PORTABLE_FLAGS)
    if (machine or platform.machine()).lower() in ("x86_64", "amd64") and _cpu_has_fma():
        flags.append("-mfma")
    return flags
