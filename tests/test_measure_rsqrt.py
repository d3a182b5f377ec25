"""tools/measure_rsqrt.py: the RSQRTPS tables the impl carries (csrc/rsqrt_tables.h), read back as the
tool reads them, its C output read back the same, and its refusals; and the tables against the C
function that uses them (csrc/optim.c table_rsqrtps, through torch.sqrt's model)."""

from __future__ import annotations

import importlib.util
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from harness.impl import optim
from harness.impl.profiles import RSQRT_AMD, RSQRT_INTEL, profile_for_platform

TOOL_PATH = Path(__file__).resolve().parents[1] / "tools" / "measure_rsqrt.py"


def _tool():
    spec = importlib.util.spec_from_file_location("measure_rsqrt", TOOL_PATH)
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_the_committed_tables_are_two_measured_estimates() -> None:
    tables = _tool().committed()
    assert sorted(tables) == ["amd", "intel"]
    amd, intel = tables["amd"], tables["intel"]
    assert amd.shape == intel.shape == (2, 4096)
    assert int((amd != intel).sum()) == 4357  # unlike by 1 or 2 units of the 12th bit
    assert int(np.abs(amd.astype(int) - intel.astype(int)).max()) == 2
    for table in (amd, intel):  # an estimate of 1/sqrt: falling across each binade, 1.0 at x = 1
        for half in table:
            assert np.all(np.diff(half.astype(int)) <= 0)
        assert table[1, 0] >= 0xFFE  # x = 1: the estimate's mantissa all but 1 (1 - 2^-12 .. 1)


def test_emitted_tables_read_back_as_they_were(tmp_path: Path) -> None:
    tool = _tool()
    tables = tool.committed()
    header = tmp_path / "tables.h"
    header.write_text("\n\n".join(tool.emit(name, table, "a CPU") for name, table in tables.items()))
    again = tool.committed(header)
    assert sorted(again) == sorted(tables)
    for name, table in tables.items():
        assert np.array_equal(again[name], table)


def test_the_vrsqrt14_table_reads_back_and_is_an_estimate() -> None:
    tool = _tool()
    tables = tool.committed14()
    assert sorted(tables) == ["intel"]
    table = tables["intel"]
    assert table.shape == (2, 32768)
    for half in table:
        assert np.all(np.diff(half.astype(int)) <= 0)
    first, words = tool.steps14(table)
    assert np.array_equal(tool.unsteps14(first, words), table)
    again = tool.committed14_text(tool.emit14("other", table, "a CPU"))
    assert np.array_equal(again["other"], table)
    # 1/sqrt(x) within 2^-14 of the estimate over both binades
    for p, lo in ((0, 0.5), (1, 1.0)):
        x = lo * (1 + (np.arange(32768) + 0.5) / 32768)
        est = (2.0 if p == 0 else 1.0) * (1 + table[p].astype(np.float64) / 65536) / 2
        assert np.max(np.abs(est * np.sqrt(x) - 1)) < 2**-14


def test_the_impl_uses_each_table_for_its_estimate() -> None:
    """torch.sqrt's generic kernel (s = x*r; ...) from each table: the entries where the two tables
    differ give different square roots for some input of that entry's bin."""
    tables = _tool().committed()
    profile = profile_for_platform("linux-x86_64-avx2-mklgeneric-t1")
    p, t = np.argwhere(tables["amd"] != tables["intel"])[0]
    bits = ((126 + p) << 23) | (t << 11) | np.arange(2048, dtype=np.uint32)
    x = bits.astype(np.uint32).view(np.float32)
    amd = optim.sqrt(x, profile.with_rsqrt_estimate(RSQRT_AMD)).view(np.uint32)
    intel = optim.sqrt(x, profile.with_rsqrt_estimate(RSQRT_INTEL)).view(np.uint32)
    assert np.any(amd != intel)


def test_a_bad_name_is_one_line_and_exit_2() -> None:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        result = subprocess.run([sys.executable, str(TOOL_PATH)], capture_output=True, text=True)
        assert result.returncode == 2 and "RSQRTPS is x86's" in result.stderr
        return
    result = subprocess.run([sys.executable, str(TOOL_PATH), "--emit", "Not-C"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "measure_rsqrt: error: --emit takes a C identifier in lower case, not 'Not-C'"
    ]
