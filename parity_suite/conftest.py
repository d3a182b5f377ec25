"""The parity suite: a committed fixture set against PyTorch run live on this machine.

The live run happens once per session (shared by pytest-xdist workers through a lock) in
the fixture's own configuration where this machine can run it. Every op case and every
nanoGPT step is its own test; the controller writes the report at the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from harness.compare import diff_nanogpt, diff_ops, provenance_notes
from harness.errors import ParityError
from harness.fixture_info import read_fixture
from harness.nanogpt_fixture import NanoGPTFixture, read_nanogpt_fixture
from harness.op_fixture import OpFixture, read_op_fixture
from harness.platform_config import PlatformConfig, collect_facts, parse_platform_id
from harness.provenance import installed_torch_version, public_version
from harness.recording import DEFAULT_FIXTURES, default_config, fixture_path, record_live


def expected_paths(config: pytest.Config) -> list[Path]:
    """The op fixture of the chosen set and the nanoGPT fixtures beside it."""
    text = config.getoption("--fixture-set")
    if text and Path(text).is_file():
        return [Path(text)]
    if text:
        version, _, platform_id = text.partition("/")
        if not platform_id:
            raise pytest.UsageError(f"--fixture-set {text}: expected TORCH_VERSION/PLATFORM_ID or a fixture path")
        platform = parse_platform_id(platform_id)
    else:
        version = installed_torch_version()
        platform = os_config(config.getoption("--platform-os"), version)
    ops = fixture_path(DEFAULT_FIXTURES, version, platform)
    if not ops.exists():
        raise pytest.UsageError(
            f"no committed fixtures for {platform.id} with torch {public_version(version)} under {ops.parent}; "
            f"record them on such a machine with `tox -e regen` (or name another set with --fixture-set)"
        )
    wanted = [n for n in config.getoption("--nanogpt").split(",") if n and n != "none"]
    nanogpt = [ops.parent / f"{platform.id}.nanogpt-{name}.h5" for name in wanted]
    return [ops, *(p for p in nanogpt if p.exists())]


_OS_NAMES = {"linux": "Linux", "macos": "macOS", "windows": "Windows"}


def os_config(os_name: str, version: str) -> PlatformConfig:
    """The committed set to check: this machine's own configuration, or the best one of ``os_name``."""
    facts = collect_facts()
    if not os_name or os_name == facts.os:
        return default_config(version)
    order = {"avx512": 3, "avx2": 2, "neon": 2, "baseline": 1}
    found = [parse_platform_id(p.stem) for p in (DEFAULT_FIXTURES / f"torch-{public_version(version)}").glob("*.h5")
             if ".nanogpt-" not in p.name]  # fmt: skip
    found = [c for c in found if c.os == os_name]
    if not found:
        raise pytest.UsageError(
            f"no committed {_OS_NAMES.get(os_name, os_name)} fixtures for torch {public_version(version)}: "
            f"on such a machine (for macOS an Apple Silicon Mac) run `python3 -m pip install tox && tox -e regen`, "
            f"then commit harness/fixtures/torch-{public_version(version)}/{os_name}-*.h5"
        )
    return max(found, key=lambda c: (c.arch == "arm64", order.get(c.isa, 0), c.threads == 2))


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        expected_paths(config)  # a missing fixture set is a usage error, said once, before collection


def _live_path(expected: Path, workdir: Path) -> Path:
    """Record the live counterpart of ``expected`` once (shared across xdist workers)."""
    root = workdir / expected.stem
    with FileLock(f"{root}.lock"):
        done = root / "recorded"
        if not done.exists():
            path, _ = record_live(read_fixture(expected), root, capture=True)
            done.write_text(str(path), encoding="utf-8")
        return Path(done.read_text(encoding="utf-8"))


def _shared_dir(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if hasattr(config, "workerinput"):
        base = base.parent  # shared by the workers of one session
    return base / "parity-live"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.config.getoption("--parity-source") == "impl" and {"op_case", "nanogpt_step"} & set(
        metafunc.fixturenames
    ):
        raise pytest.UsageError("--parity-source impl: the reference implementation (harness/impl) has no kernels yet")
    paths = expected_paths(metafunc.config)
    if "op_case" in metafunc.fixturenames:
        params = [
            (path, key)
            for path in paths
            if not path.name.count(".nanogpt-")
            for key in read_op_fixture(path, load=False).cases
        ]
        metafunc.parametrize("op_case", params, ids=[key for _, key in params])
    if "nanogpt_step" in metafunc.fixturenames:
        params = []
        for path in paths:
            if ".nanogpt-" in path.name:
                steps = read_nanogpt_fixture(path, full=False).attrs["steps"]
                params += [(path, step) for step in range(1, int(steps) + 1)]
        ids = [f"{p.name.split('.nanogpt-')[1][:-3]}/step{step:02d}" for p, step in params]
        metafunc.parametrize("nanogpt_step", params, ids=ids)


_CACHE: dict[Path, Any] = {}


@pytest.fixture(scope="session")
def live_for(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """expected fixture path -> (expected fixture, live fixture), recorded and read once."""
    workdir = _shared_dir(request.config, tmp_path_factory)

    def get(path: Path) -> tuple[OpFixture | NanoGPTFixture, OpFixture | NanoGPTFixture]:
        if path not in _CACHE:
            _CACHE[path] = (read_fixture(path), read_fixture(_live_path(path, workdir)))
        return _CACHE[path]

    return get


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """On the controller: compare the files once more and write the report."""
    config = session.config
    report = config.getoption("--report")
    if hasattr(config, "workerinput") or not report:
        return
    from harness.report import render

    workdir = _shared_dir(config, config._tmp_path_factory)  # type: ignore[attr-defined]
    outputs: list[dict[str, Any]] = []
    texts: list[str] = []
    fmt = {".json": "json", ".md": "markdown", ".html": "html"}.get(Path(report).suffix, "markdown")
    for path in expected_paths(config):
        try:
            expected, live = read_fixture(path), read_fixture(_live_path(path, workdir))
            diff = diff_ops(expected, live) if isinstance(expected, OpFixture) else diff_nanogpt(expected, live)
        except ParityError as err:
            texts.append(f"{path}: {err}\n")
            continue
        diff.b_label = f"live run on this machine ({live.attrs['platform_id']})"
        facts = provenance_notes(expected.provenance, live.provenance)
        note = ("recorded on other platforms: " + "; ".join(facts)) if facts else ""
        outputs.append(json.loads(render(diff, "json", note)))
        texts.append(render(diff, fmt, note))
    out = Path(report)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(outputs, indent=1) + "\n" if fmt == "json" else "\n".join(texts), encoding="utf-8")
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal:
        for item in outputs:
            terminal.write_line(f"parity: {item['expected']}: {_headline(item)}")
            if item["note"]:
                terminal.write_line(f"parity:   {item['note']}")
        terminal.write_line(f"parity: report written to {out}")


def _headline(item: dict[str, Any]) -> str:
    from harness.report import _headline as headline

    return headline(item)
