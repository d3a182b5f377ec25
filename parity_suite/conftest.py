"""The parity suite: a committed fixture set against PyTorch run live on this machine, or
against the reference implementation (``--parity-source impl``, no torch needed).

The live run happens once per session (shared by pytest-xdist workers through a lock) in
the fixture's own configuration where this machine can run it; the impl runs under the
fixture's own kernel profile and thread count. Every op case and every nanoGPT step is its
own test; the impl's known gaps are strict expected failures; the controller writes the
report at the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from harness.compare.fixtures import diff_fixtures, platform_note
from harness.core.errors import ParityError
from harness.formats.nanogpt import NanoGPTFixture, read_nanogpt_fixture
from harness.formats.ops import OpFixture, read_op_fixture
from harness.formats.registry import read_fixture
from harness.platform.config import PlatformConfig, collect_facts, parse_platform_id
from harness.platform.provenance import installed_torch_version, public_version
from harness.record.launch import default_config, record_live, torch_missing
from harness.store.paths import DEFAULT_FIXTURES, fixture_path


def expected_paths(config: pytest.Config) -> list[Path]:
    """The op fixture of the chosen set and the nanoGPT fixtures beside it."""
    text = config.getoption("--fixture-set")
    if text and Path(text).is_file():
        if config.getoption("--nanogpt") not in (None, "none"):
            raise pytest.UsageError("--nanogpt checks the runs beside a committed set; --fixture-set names one file")
        return [Path(text)]
    if text:
        version, _, platform_id = text.partition("/")
        if not platform_id:
            raise pytest.UsageError(f"--fixture-set {text}: expected TORCH_VERSION/PLATFORM_ID or a fixture path")
        platform = parse_platform_id(platform_id)
    else:
        version = _impl_torch() if _impl(config) else installed_torch_version()
        platform = os_config(config.getoption("--platform-os"), version)
    ops = fixture_path(DEFAULT_FIXTURES, version, platform)
    if not ops.exists():
        raise pytest.UsageError(
            f"no committed fixtures for {platform.id} with torch {public_version(version)} under {ops.parent}; "
            f"record them on such a machine with `tox -e regen` (or name another set with --fixture-set)"
        )
    asked = config.getoption("--nanogpt")
    wanted = [n for n in (asked or DEFAULT_NANOGPT).split(",") if n and n != "none"]
    nanogpt = [ops.parent / f"{platform.id}.nanogpt-{name}.h5" for name in wanted]
    missing = [p.name for p in nanogpt if not p.exists()]
    if missing and asked is not None:  # asked for by name: never dropped without a word
        raise pytest.UsageError(
            f"--nanogpt {asked}: no committed fixture {', '.join(missing)} under {ops.parent}; record it with "
            f"`parity generate --nanogpt --config NAME --isa {platform.isa} --threads {platform.threads}` "
            "(or pass --nanogpt none)"
        )
    return [ops, *(p for p in nanogpt if p.exists())]


DEFAULT_NANOGPT = "tiny"  # checked by default where the set has it (the summary says where it has not)


def missing_default_nanogpt(config: pytest.Config) -> list[str]:
    """The summary's line where the default nanoGPT run has no fixture in the set checked."""
    if config.getoption("--nanogpt") is not None or Path(config.getoption("--fixture-set") or "-").is_file():
        return []
    try:
        paths = expected_paths(config)
    except pytest.UsageError:  # already reported as the run's error
        return []
    if any(".nanogpt-" in p.name for p in paths):
        return []
    return [f"nanoGPT {DEFAULT_NANOGPT}: not checked, no {paths[0].stem}.nanogpt-{DEFAULT_NANOGPT}.h5 is committed"]


_OS_NAMES = {"linux": "Linux", "macos": "macOS", "windows": "Windows"}


def os_config(os_name: str, version: str) -> PlatformConfig:
    """The committed set to check: this machine's own configuration, or the best one of ``os_name``."""
    facts = collect_facts()
    if not os_name or os_name == facts.os:
        return default_config(version)
    order = {"avx512": 3, "avx2": 2, "neon": 2, "baseline": 1}
    found = [parse_platform_id(p.stem) for p in (DEFAULT_FIXTURES / f"torch-{public_version(version)}").glob("*.h5")
             if ".nanogpt-" not in p.name and ".random-" not in p.name]  # fmt: skip
    found = [c for c in found if c.os == os_name]
    if not found:
        raise pytest.UsageError(
            f"no committed {_OS_NAMES.get(os_name, os_name)} fixtures for torch {public_version(version)}: "
            f"on such a machine (for macOS an Apple Silicon Mac) run `python3 -m pip install tox && tox -e regen`, "
            f"then commit harness/fixtures/torch-{public_version(version)}/{os_name}-*.h5"
        )
    return max(found, key=lambda c: (c.arch == "arm64", order.get(c.isa, 0), c.threads == 2))


def _impl(config: pytest.Config) -> bool:
    return config.getoption("--parity-source") == "impl"


def _impl_torch() -> str:
    from harness.impl.profiles import IMPL_TORCH

    return IMPL_TORCH


def _torch_version_wanted(config: pytest.Config) -> str:
    """The torch release of the fixture set asked for, where the option names it."""
    text = config.getoption("--fixture-set")
    if text and Path(text).is_file():
        try:
            return str(read_op_fixture(Path(text), load=False).attrs["torch_version"])
        except ParityError:
            return ""
    return text.partition("/")[0] if "/" in text else ""


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        if not _impl(config) and not installed_torch_version():
            instead = "or check the reference implementation: --parity-source impl (tox -e parity-impl)"
            raise pytest.UsageError(torch_missing(_torch_version_wanted(config), instead))
        expected_paths(config)  # a missing fixture set is a usage error, said once, before collection
        if config.getoption("--report"):
            from harness.report.output import check_output_path

            try:
                check_output_path(Path(config.getoption("--report")))
            except ParityError as err:
                raise pytest.UsageError(f"--report: {err}") from None


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
    paths = expected_paths(metafunc.config)
    impl = _impl(metafunc.config)
    if "op_case" in metafunc.fixturenames:
        params = []
        for path in paths:
            if ".nanogpt-" in path.name:
                continue
            structure = read_op_fixture(path, load=False)
            gaps = _case_gaps(str(structure.attrs["platform_id"])) if impl else {}
            for key in structure.cases:
                lines = gaps.get(key, [])
                marks = [_expected_failure("; ".join(lines))] if lines else []
                params.append(pytest.param((path, key), id=key, marks=marks))
        metafunc.parametrize("op_case", params)
    if "nanogpt_step" in metafunc.fixturenames:
        params = []
        for path in paths:
            if ".nanogpt-" in path.name:
                fixture = read_nanogpt_fixture(path, full=False)
                name = str(fixture.config["name"])
                from harness.impl.known_gaps import load_gaps
                from harness.replay.check import nanogpt_gap_step

                gap = load_gaps().run_gap(str(fixture.attrs["platform_id"]), name) if impl else None
                for step in range(1, int(fixture.attrs["steps"]) + 1):
                    # every step from the first diverging one on differs
                    lines = [gap.line()] if gap and step >= nanogpt_gap_step(gap) else []
                    if impl and not _impl_trains():
                        lines = [NO_NANOGPT]
                    marks = [_expected_failure("; ".join(lines))] if lines else []
                    params.append(pytest.param((path, step), id=f"{name}/step{step:02d}", marks=marks))
        metafunc.parametrize("nanogpt_step", params)


def _impl_trains() -> bool:
    import importlib.util

    return importlib.util.find_spec("harness.impl.nanogpt") is not None


NO_NANOGPT = "the reference implementation does not train nanoGPT yet"


def _expected_failure(reason: str) -> pytest.MarkDecorator:
    from harness.impl.known_gaps import ImplMismatch

    return pytest.mark.xfail(strict=True, raises=ImplMismatch, reason=reason)


def _case_gaps(platform: str) -> dict[str, list[str]]:
    """op/case -> the known-gap lines of its outputs on ``platform``."""
    from harness.impl.known_gaps import load_gaps

    out: dict[str, list[str]] = {}
    for gap in load_gaps().for_platform(platform):
        out.setdefault(f"{gap.op}/{gap.case}", []).append(gap.line())
    return out


_CACHE: dict[Path, Any] = {}


def _actual(path: Path, config: pytest.Config, workdir: Path) -> tuple[Any, Any, str, str, list[str]]:
    """(expected fixture, what is checked against it, its label, a note, impl gap lines)."""
    expected = read_fixture(path)
    if not _impl(config):
        live = read_fixture(_live_path(path, workdir))
        note = platform_note(expected.provenance, live.provenance)
        return expected, live, f"live run on this machine ({live.attrs['platform_id']})", note, []
    from harness.impl.known_gaps import load_gaps
    from harness.replay.ops import impl_op_fixture, missing_note

    platform = str(expected.attrs["platform_id"])
    if not isinstance(expected, OpFixture):
        from harness.impl.op_registry import NotImplementedInImpl
        from harness.replay.nanogpt import impl_nanogpt_fixture

        try:
            impl = impl_nanogpt_fixture(expected)
        except NotImplementedInImpl as exc:
            return expected, None, "reference implementation", str(exc), []
        label = f"reference implementation ({impl.attrs['platform_id']})"
        return expected, impl, label, "", load_gaps().lines(platform)
    impl, missing = impl_op_fixture(expected)
    note = missing_note(missing)
    label = f"reference implementation ({impl.attrs['platform_id']})"
    return expected, impl, label, note, load_gaps().lines(platform)


@pytest.fixture(scope="session")
def actual_for(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """expected fixture path -> (expected fixture, live or impl fixture), made and read once."""
    workdir = _shared_dir(request.config, tmp_path_factory)

    def get(path: Path) -> tuple[OpFixture | NanoGPTFixture, OpFixture | NanoGPTFixture | None]:
        if path not in _CACHE:
            _CACHE[path] = _actual(path, request.config, workdir)[:2]
        return _CACHE[path]

    return get


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """On the controller: compare the files once more and write the report (one document)."""
    config = session.config
    report = config.getoption("--report")
    if hasattr(config, "workerinput") or not report:
        return
    from harness.report.output import write_output
    from harness.report.render import format_for, headline, render_all, report_dict

    workdir = _shared_dir(config, config._tmp_path_factory)  # type: ignore[attr-defined]
    items: list[Any] = []
    problems: list[str] = []
    for path in expected_paths(config):
        try:
            expected, actual, label, note, gaps = _actual(path, config, workdir)
            if actual is None:
                problems.append(f"{path}: {note}")
                continue
            diff = diff_fixtures(expected, actual, subset=_impl(config))
        except ParityError as err:
            problems.append(f"{path}: {err}")
            continue
        diff.b_label = label
        items.append((diff, note, gaps if _impl(config) else None))
    out = Path(report)
    lines = []
    for diff, note, _ in items:
        lines.append(f"parity: {diff.a_label}: {headline(report_dict(diff))}")
        lines += [f"parity:   {note}"] if note else []
    lines += [f"parity: {p}" for p in problems]
    try:
        write_output(out, render_all(items, format_for(out, "markdown"), problems))
        lines.append(f"parity: report written to {out}")
    except ParityError as err:
        lines.append(f"parity: error: {err}")
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
    config.stash[_SUMMARY] = lines


_SUMMARY = pytest.StashKey[list[str]]()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The report's summary in pytest's own summary section, on lines of its own."""
    lines = [*config.stash.get(_SUMMARY, []), *missing_default_nanogpt(config)]
    if lines:
        terminalreporter.section("parity report", sep="-")
        for line in lines:
            terminalreporter.write_line(line)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With no nanoGPT fixture to check (--nanogpt none), the step test is deselected, not skipped."""
    if any(".nanogpt-" in p.name for p in expected_paths(config)):
        return
    dropped = [item for item in items if item.originalname == "test_nanogpt_step"]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]
