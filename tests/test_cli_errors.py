"""Bad inputs give one line naming the file and the problem, exit status 2, no traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np
import pytest

from harness.core.op_ids import OP_IDS
from harness.formats.ops import write_op_fixture
from tests.store_helpers import rewrite


def parity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False)


def _valid(path: Path, records, provenance) -> Path:
    write_op_fixture(path, provenance, records)
    return path


def _missing(path, records, provenance):
    return path


def _text_file(path, records, provenance):
    path.write_text("loss,step\n1.0,1\n")
    return path


def _empty_file(path, records, provenance):
    path.write_bytes(b"")
    return path


def _truncated(path, records, provenance):
    _valid(path, records, provenance)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _wrong_schema(path, records, provenance):
    _valid(path, records, provenance)
    with h5py.File(path, "r+") as f:
        f.attrs["schema_version"] = 99
    return path


def _foreign(path, records, provenance):
    with h5py.File(path, "w") as f:
        f["weights"] = np.zeros(4, np.float32)
    return path


def _corrupted(path, records, provenance):
    _valid(path, records, provenance)
    with h5py.File(path, "r+") as f:
        ds = f["ops/exp/3x300/inputs/x"]
        data = ds[()]
        data.view(np.uint32)[0, 0] ^= 1 << 30
        ds[...] = data
    return path


def _wrong_kind(path, records, provenance, kind="banana"):
    _valid(path, records, provenance)
    return rewrite(path, lambda tree: tree["/"].attrs.update(kind=kind))


BAD: dict[str, tuple[Callable, str]] = {
    "missing": (_missing, "no such file"),
    "text": (_text_file, "not an HDF5 file"),
    "empty": (_empty_file, "not an HDF5 file"),
    "truncated": (_truncated, "truncated HDF5 file"),
    "wrong_schema": (_wrong_schema, "fixture schema version 99 is not supported"),
    "foreign": (_foreign, "not a parity-harness fixture"),
    "corrupted": (_corrupted, "SHA-256 mismatch"),
}


@pytest.mark.parametrize("command", ["info", "verify"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_is_one_line_and_exit_2(tmp_path, small_records, provenance, command, case):
    make, problem = BAD[case]
    path = make(tmp_path / "bad.h5", small_records, provenance)
    result = parity(command, str(path))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"parity: error: {path}: "), lines[0]
    assert problem in lines[0]


def test_info_of_a_directory(tmp_path):
    result = parity("info", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {tmp_path}: is a directory, not a fixture file"


def test_info_refuses_an_unknown_kind(tmp_path, small_records, provenance):
    path = _wrong_kind(tmp_path / "k.h5", small_records, provenance)
    result = parity("info", str(path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {path}: unknown fixture kind 'banana'"


def test_an_op_layout_marked_nanogpt_is_damaged(tmp_path, small_records, provenance):
    path = _wrong_kind(tmp_path / "k.h5", small_records, provenance, kind="nanogpt")
    result = parity("verify", str(path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {path}: damaged fixture: root attribute 'config' is missing"


def test_verify_reports_each_file_and_fails_if_any_is_bad(tmp_path, small_records, provenance):
    good = _valid(tmp_path / "good.h5", small_records, provenance)
    bad = _corrupted(tmp_path / "bad.h5", small_records, provenance)
    result = parity("verify", str(good), str(bad))
    assert result.returncode == 2
    assert f"ok    {good}: 7 tensors verified, 2 ops, 2 cases" in result.stdout
    assert result.stderr.count("parity: error:") == 1
    assert "ops/exp/3x300/inputs/x: SHA-256 mismatch" in result.stderr  # the name, not the blob


def test_verify_of_a_directory_checks_every_fixture_below_it(tmp_path, small_records, provenance):
    _valid(tmp_path / "a" / "one.h5", small_records, provenance)
    _valid(tmp_path / "a" / "b" / "two.h5", small_records, provenance)
    result = parity("verify", str(tmp_path / "a"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("ok    ") == 2
    (tmp_path / "empty").mkdir()
    result = parity("verify", str(tmp_path / "empty"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {tmp_path / 'empty'}: no .h5 files below this directory"


def test_verify_good_file_exits_0(tmp_path, small_records, provenance):
    good = _valid(tmp_path / "good.h5", small_records, provenance)
    result = parity("verify", str(good))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_usage_errors_exit_2(tmp_path):
    assert parity().returncode == 2
    assert parity("frobnicate").returncode == 2
    result = parity("generate", "--ops", "not_an_op", "--out", str(tmp_path), "--threads", "1")
    assert result.returncode == 2
    assert result.stderr.strip() == ("parity: error: unknown op(s): not_an_op (known: " + ", ".join(OP_IDS) + ")")


def test_generate_bad_threads_and_isa(tmp_path):
    result = parity("generate", "--threads", "0", "--out", str(tmp_path))
    assert result.returncode == 2
    assert "--threads takes positive whole numbers, not '0'" in result.stderr
    result = parity("generate", "--isa", "sse9", "--out", str(tmp_path))
    assert result.returncode == 2
    assert "unknown ISA level 'sse9'" in result.stderr


def test_list_of_missing_root_is_an_error(tmp_path):
    result = parity("list", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"parity: error: {tmp_path / 'nowhere'}: no such directory"


def _main(argv: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``parity`` in this process: (exit status, stdout, stderr)."""
    from harness.cli import main

    try:
        code = main(argv)
    except SystemExit as done:  # argparse's own exit
        code = int(done.code or 0)
    out, err = capfd.readouterr()
    return code, out, err


MALFORMED = [
    [],
    ["frobnicate"],
    ["--bogus"],
    ["generate", "--threads", "abc"],
    ["generate", "--config", "huge"],
    ["generate", "--init", "half"],
    ["generate", "--nanogpt", "--full-steps", "0,99"],
    ["generate", "--ops", "exp", "--nanogpt"],
    ["check", "--threads", "x"],
    ["check", "--impl", "--threads", "0"],
    ["check", "--impl", "--threads", "-3"],
    ["check", "--threads", "2"],
    ["check", "--impl", "--profile", "bogus"],
    ["check", "--platform", "garbage"],
    ["check", "--impl", "--platform", "garbage"],
    ["check", "--ops", "bogus"],
    ["check", "--impl", "--ops", "bogus"],
    ["check", "--format", "pdf"],
    ["check", "--nanogpt", "huge"],
    ["check", "--against", "a.h5", "--platform", "x"],
    ["check", "--live", "--impl"],
    ["diff", "only_one.h5"],
    ["diff", "a.h5", "b.h5", "c.h5"],
    ["matrix", "--reference"],
    ["info"],
    ["info", "a.h5", "--fulll"],
    ["list", "--all"],
    ["verify"],
]


@pytest.mark.parametrize("argv", MALFORMED, ids=lambda a: " ".join(a) or "nothing")
def test_every_malformed_argument_is_one_line_and_exit_2(argv, capfd):
    code, _, err = _main(argv, capfd)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("parity: error: "), err


def test_live_check_without_torch_says_so_pinned_to_the_fixtures_torch(tmp_path, small_records, capsys, monkeypatch):
    import harness.cli.check

    monkeypatch.setattr(harness.cli.check, "installed_torch_version", lambda: "")
    fixture = _valid(
        tmp_path / "f.h5", small_records, {"torch_version": "2.9.1", "platform_id": "linux-x86_64-avx2-t1"}
    )
    code, out, err = _main(["check", "--against", str(fixture)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "parity: error: torch is not installed: python3 -m pip install torch==2.9.1; "
        "or check the reference implementation with --impl\n"
    )
    code, _, err = _main(["check", "--platform", "linux-x86_64-avx2-mklgeneric-t2"], capsys)
    assert code == 2 and err.startswith(  # the newest release with a committed set of that configuration
        "parity: error: torch is not installed: python3 -m pip install torch==2.14.1 "
        "(committed fixtures are of torch 2.12.1, 2.13.0, 2.14.1);"
    )
