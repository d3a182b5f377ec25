"""csrc/dmath.h's glibc_sincos_a64 (glibc 2.36's double sincos as its aarch64 libm.so.6 computes it, |x| below
2.426265: pocketfft's twiddles on the arm64 profiles) against aarch64 glibc's own bits, recorded under emulation
(``python tools/emulate_arm64.py run --cores neoverse-n1 -- tests/arm64_glibc_sincos_cases.py``: its libm.so.6
through ctypes), as SHA-256 digests over the sets of tests/arm64_glibc_sincos_cases.py; a perturbed port (one
table word, one product rounded apart from its sum) must fail them; the table's rule (hi words the nearest
doubles, hi + lo within 2^-106) and its words against a glibc libm where one is at hand. Torch-free."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.impl._lib import load, ptr
from tests import arm64_glibc_sincos_cases as cases

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "gen_glibc_sincos_table.py"
# set -> SHA-256 of aarch64 glibc 2.36's (sin, cos) bits over it (emulated N1; scalar libm code, no per-core path)
RECORDED = {
    "random": "52cab54f9e81b843f21db921579c649f1ace3e7a64216bcb7ce280421281deea",
    "bounds": "10911e8c4da094fb042cbce7637ba0989d11ff565230f6139221979007683194",
    "twiddles": "e67dd41ad100c8c1dec1d5306ebe4e91d5b27a810bcb5439971f2388a59d4287",
}


def port(x: np.ndarray, perturb: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """(sin, cos, how many inputs were outside the port's domain); perturb as dmath.c's test entry takes it."""
    lib = load("dmath")
    d = ctypes.c_void_p
    lib.dmath_glibc_sincos_a64.argtypes = [d, d, d, ctypes.c_int64, ctypes.c_int32]
    lib.dmath_glibc_sincos_a64.restype = ctypes.c_int64
    x = np.ascontiguousarray(x, np.float64)
    s, c = np.empty_like(x), np.empty_like(x)
    outside = lib.dmath_glibc_sincos_a64(ptr(x), ptr(s), ptr(c), x.size, perturb)
    return s, c, int(outside)


@pytest.mark.parametrize("name", cases.SETS)
def test_port_equals_aarch64_glibc(name: str) -> None:
    s, c, outside = port(cases.inputs(name))
    assert outside == 0
    assert cases.digest(s, c) == RECORDED[name]


@pytest.mark.parametrize("perturb", [1, 2], ids=["table-word", "unfused-product"])
def test_a_perturbed_port_fails(perturb: int) -> None:
    # each perturbation moves 27 to 552 results in every set
    for name in cases.SETS:
        assert cases.digest(*port(cases.inputs(name), perturb)[:2]) != RECORDED[name]


def test_outside_the_domain_is_flagged() -> None:
    s, c, outside = port(np.array([2.5, -3.0, np.inf, np.nan, 1e300]))
    assert outside == 5 and np.isnan(s).all() and np.isnan(c).all()


def test_table_rule_and_words() -> None:
    """Every hi word of csrc/glibc_sincos_table.h the nearest double, every hi + lo within 2^-106 (mpmath); the
    words those of a glibc libm.so.6 where one is here (the emulation root's aarch64 one, else this host's)."""
    pytest.importorskip("mpmath")
    sys.path.insert(0, str(TOOL.parent))
    try:
        import gen_glibc_sincos_table as tool
    finally:
        sys.path.remove(str(TOOL.parent))
    text = (ROOT / "harness" / "impl" / "csrc" / "glibc_sincos_table.h").read_text()
    words = [int(w, 16) for w in text.split("= {", 1)[1].replace("{", " ").replace("}", " ").replace(",", " ").split()
             if w.startswith("0x")]  # fmt: skip
    assert len(words) == 440
    tool.check_rule(words)
    assert tool.render(words) == text
    for libm in (tool.LIBM, Path("/lib/x86_64-linux-gnu/libm.so.6"), Path("/lib/aarch64-linux-gnu/libm.so.6")):
        if libm.exists():
            # glibc has carried the same table since the IBM library came in: a multiarch glibc libm holds it
            rc = subprocess.run([sys.executable, str(TOOL), "--check", "--libm", str(libm)], check=False).returncode
            assert rc == 0
            return
    pytest.skip("no libm.so.6 here to read the table from")


@pytest.mark.parametrize("tail", [b"", bytes(8 * 435)], ids=["cut-short", "words-off-the-rule"])
def test_the_tool_refuses_a_broken_table_in_one_line(tmp_path: Path, tail: bytes) -> None:
    """A library whose table is cut short, or whose words break the rule, is answered in one line and exit 2."""
    pytest.importorskip("mpmath")
    sys.path.insert(0, str(TOOL.parent))
    try:
        import gen_glibc_sincos_table as tool
    finally:
        sys.path.remove(str(TOOL.parent))
    libm = tmp_path / "libm.so.6"
    libm.write_bytes(bytes(64) + tool.KEY + tail)
    run = subprocess.run([sys.executable, str(TOOL), "--check", "--libm", str(libm)], capture_output=True, text=True,
                         check=False)  # fmt: skip
    assert run.returncode == 2 and len(run.stdout.splitlines()) == 1 and not run.stderr
