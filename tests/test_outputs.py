"""Output files: a path that cannot be written is one line and exit 2; writes are atomic,
under unique temporary names, and leave nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.ops import CaseRecord, write_op_fixture
from harness.report.output import write_output

PROV = {"torch_version": "0.0.0", "platform_id": "linux-x86_64-avx2-t1"}


def parity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False)


@pytest.fixture
def fixture(tmp_path: Path) -> Path:
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    path = tmp_path / "fx" / "a.h5"
    write_op_fixture(path, PROV, [CaseRecord("exp", "9", {"n": 9}, {"x": x}, {"out": np.exp(x)}, True, "torch.exp")])
    return path


def _unwritable(tmp_path: Path) -> tuple[Path, str]:
    """A folder this process cannot write into, and the reason the error gives."""
    if os.geteuid() == 0:  # root writes anywhere permissions allow: use a read-only file system
        return Path("/sys"), "permission denied"
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    return locked, "is not writable"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.tmp") if p.is_file()) if folder.is_dir() else []


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("parity: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize("where", ["under_a_file", "a_directory", "unwritable"])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, fixture, where):
    if where == "under_a_file":
        out, expected = fixture / "r.json", f"cannot write {fixture / 'r.json'}: {fixture} is a file, not a directory"
    elif where == "a_directory":
        out, expected = tmp_path, f"{tmp_path}: is a directory; name a file to write"
    else:
        folder, reason = _unwritable(tmp_path)
        out, expected = folder / "r.json", reason
    result = parity("diff", str(fixture), str(fixture), "--output", str(out))
    assert expected in _one_error_line(result)
    assert result.stdout == ""  # refused before any comparison
    assert _leftovers(tmp_path) == []


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(ParityError, match=r"cannot write .*r.md: no space left on device"):
        write_output(tmp_path / "r.md", "text")
    assert list(tmp_path.iterdir()) == []


def test_writers_of_one_file_use_their_own_temporary_names(tmp_path):
    """Another writer's temporary file (here the fixed name used before) is neither used nor in the way."""
    (tmp_path / ".r.md.tmp").mkdir()
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            for _ in range(50):
                write_output(tmp_path / "r.md", f"writer {i}\n" * 1000)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    text = (tmp_path / "r.md").read_text()
    assert text in {f"writer {i}\n" * 1000 for i in range(4)}  # one writer's whole text, never a mix
    assert sorted(p.name for p in tmp_path.iterdir()) == [".r.md.tmp", "r.md"]


def test_written_reports_are_ordinary_files(tmp_path):
    write_output(tmp_path / "r.md", "x")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "r.md").stat().st_mode & 0o777 == 0o666 & ~umask


def test_matrix_out_naming_a_file_is_one_line_and_exit_2(tmp_path, fixture):
    target = tmp_path / "matrix.md"
    target.write_text("mine\n")
    assert _one_error_line(parity("matrix", str(fixture), "--out", str(target))) == (
        f"parity: error: {target}: is a file; name a folder to write into"
    )
    assert target.read_text() == "mine\n"
    result = parity("matrix", str(fixture), "--out", str(target / "sub"))
    assert _one_error_line(result).endswith(f"{target} is a file, not a directory")
    assert _leftovers(tmp_path) == []


def test_matrix_writes_beside_another_writers_temporary_files(tmp_path, fixture):
    out = tmp_path / "m"
    out.mkdir()
    for name in ("MATRIX.md", "matrix.json", "matrix.html", "heatmap.png"):
        (out / f".{name}.tmp").mkdir()  # as if another `parity matrix --out m` were writing
    result = parity("matrix", str(fixture), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert {"MATRIX.md", "matrix.json", "matrix.html", "heatmap.png", "heatmap.svg"} <= {p.name for p in out.iterdir()}
    assert len(_leftovers(out)) == 0 and len([p for p in out.iterdir() if p.is_dir()]) == 4
