"""The package's layers: the contract holds, and the checker finds what breaks it; one set of fixture kinds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("check_layers", ROOT / "tools" / "check_layers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layers"] = module
    spec.loader.exec_module(module)
    return module


def test_the_package_keeps_its_layers() -> None:
    assert _checker().breaches() == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "harness" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


BASE = {"__init__.py": "", "core/__init__.py": "", "impl/__init__.py": "", "cli/__init__.py": ""}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"core/errors.py": "def f():\n    from harness.cli import main\n"},
            "core imports harness.cli of the higher layer cli",
        ),
        ({"core/errors.py": "from harness import impl\n"}, "core imports harness.impl of the higher layer impl"),
        ({"impl/a.py": "from . import b\n", "impl/b.py": "from harness.impl.a import x\n"}, "circle within a layer"),
        ({"stray.py": ""}, "a module outside every layer"),
        ({"__init__.py": "from harness.cli import main\n"}, "the package's face imports harness.cli"),
    ],
)
def test_the_checker_finds_each_breach(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    problems = _checker().breaches(_tree(tmp_path, {**BASE, **files}))
    assert any(expected in line for line in problems), problems


def test_downward_imports_pass(tmp_path: Path) -> None:
    files = {**BASE, "core/errors.py": "", "cli/run.py": "from harness.core.errors import ParityError\n"}
    assert _checker().breaches(_tree(tmp_path, files)) == []


def test_every_fixture_kind_is_read_compared_and_replayed() -> None:
    from harness.compare.fixtures import DIFFS
    from harness.formats.registry import KINDS
    from harness.replay.kinds import REPLAYS

    assert set(KINDS) == set(DIFFS) == set(REPLAYS) == {"ops", "nanogpt", "nanogpt-upstream"}
    for name, kind in KINDS.items():
        assert kind.name == name
