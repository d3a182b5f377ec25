"""Recording in a fresh process: where fixtures go, which configurations, how a run starts.

The libraries read their ISA and thread settings once, when they load, so every recording
runs in a new Python process started with the configuration's environment
(``platform_config.child_env``). This module plans those processes for ``parity generate``,
``parity check`` and the parity suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from harness.core.errors import ParityError
from harness.platform.config import (
    Launcher,
    PlatformConfig,
    PlatformFacts,
    child_env,
    collect_facts,
    parse_platform_id,
    resolve_level,
    supported_levels,
)
from harness.platform.provenance import installed_torch_version, probe_blas_tag, public_version
from harness.store.paths import DEFAULT_FIXTURES, fixture_path


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def plan_configs(facts: PlatformFacts, isa: str | None, threads: str | None) -> list[PlatformConfig]:
    """The configurations ``parity generate`` records, in order."""
    supported = supported_levels(facts)
    if not supported:
        raise ParityError(f"this CPU supports none of the {facts.arch} ISA levels")
    if isa in (None, ""):
        levels = [supported[-1]]
    elif isa == "all":
        levels = supported
    else:
        levels = [resolve_level(facts, name) for name in _csv(isa)]
    counts: list[int] = []
    for part in _csv(threads or str(os.cpu_count() or 1)):
        if not part.isdigit() or int(part) < 1:
            raise ParityError(f"--threads takes positive whole numbers, not '{part}'")
        counts.append(int(part))
    cbwr = os.environ.get("MKL_CBWR", "")
    return [PlatformConfig(facts.os, facts.arch, lvl.name, n, cbwr) for lvl in levels for n in counts]


@dataclass(frozen=True)
class RecordRequest:
    """What one recording process records: the ops (a subset, or all) or a nanoGPT run."""

    nanogpt: str = ""  # nanoGPT config name; empty: the ops
    ops: str = ""  # comma-separated subset of ops; empty: all
    full_steps: str | None = None
    init: str = "full"
    nanogpt_dir: Path | None = None
    nanogpt_train: Path | None = None  # a nanoGPT checkout whose train.py is run (nanogpt: its config)
    digest: str = ""  # a nanoGPT run's digest algorithm (harness.core.digest); empty: the recorder's default
    force: bool = False
    quiet: bool = False
    live: bool = False  # for check: the caller reads the fixture, then removes it
    random: int = 0  # seeded random cases per op group instead of the fixed ones (harness/workloads/random_cases.py)
    seed: int = 1  # the random cases' seed
    cases: str = ""  # with random: only these cases of the draw, comma-separated op/case names

    def command(self, config: PlatformConfig, out: Path) -> list[str]:
        module = "harness.record.nanogpt_child" if self.nanogpt else "harness.record.ops_child"
        if self.nanogpt_train:
            module = "harness.record.upstream_child"
        cmd = [sys.executable, "-m", module, "--platform-id", config.id, "--out", str(out)]
        if self.nanogpt_train:
            cmd += ["--nanogpt-train", str(self.nanogpt_train.resolve()), "--config", self.nanogpt]
        elif self.nanogpt:
            cmd += ["--config", self.nanogpt, "--init", self.init]
            if self.full_steps:
                cmd += ["--full-steps", self.full_steps]
            if self.nanogpt_dir:
                cmd += ["--nanogpt-dir", str(self.nanogpt_dir.resolve())]
        else:
            if self.ops:
                cmd += ["--ops", self.ops]
            if self.random:
                cmd += ["--random", str(self.random), "--seed", str(self.seed)]
            if self.cases:
                cmd += ["--cases", self.cases]
        if self.digest and (self.nanogpt or self.nanogpt_train):
            cmd += ["--digest", self.digest]
        flags = (("--force", self.force), ("--quiet", self.quiet), ("--live", self.live))
        return cmd + [flag for flag, on in flags if on]

    def run(
        self, config: PlatformConfig, out: Path, *, capture: bool = False, launcher: Launcher | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Record into ``out`` in a fresh process pinned to ``config`` (started by ``launcher``
        where given: under emulation, as another CPU)."""
        cmd = self.command(config, out)
        return subprocess.run(
            launcher.command(cmd) if launcher else cmd,
            env=launcher.env(config) if launcher else child_env(config),
            capture_output=capture,
            text=True,
            check=False,
        )


@cache
def _blas_at(os_name: str, arch: str, isa: str, launcher: Launcher | None = None, mkl_cbwr: str = "") -> str:
    # MKL_CBWR is probed with the level: MKL_CBWR=COMPATIBLE runs MKL's generic path on an Intel CPU too
    return probe_blas_tag(PlatformConfig(os_name, arch, isa, 1, mkl_cbwr), launcher)


def machine_blas(config: PlatformConfig) -> str:
    """The BLAS code path this machine's torch runs at ``config``'s ISA level (one probe per level).

    Empty where torch is not installed here (the reference implementation runs without it).
    """
    if not installed_torch_version():
        return ""
    return _blas_at(config.os, config.arch, config.isa, None, config.mkl_cbwr)


def with_machine_blas(configs: list[PlatformConfig], launcher: Launcher | None = None) -> list[PlatformConfig]:
    """``configs`` named with the BLAS code path this machine runs at each of their levels (the
    emulated CPU's, with ``launcher``: one probe per level under emulation)."""
    if launcher is not None:
        return [
            config.with_blas(_blas_at(config.os, config.arch, config.isa, launcher, config.mkl_cbwr))
            for config in configs
        ]
    return [config.with_blas(machine_blas(config)) for config in configs]


def default_config(version: str, nanogpt: str = "") -> PlatformConfig:
    """This machine's highest ISA level that has a committed fixture, at 2 threads, else 1.

    Only a fixture of this machine's own BLAS code path counts: an Intel machine's matrix
    products are never compared with an AMD machine's. Without torch (the reference
    implementation), the path the impl reproduces stands in. Where none is committed, this
    machine's own default configuration (and the caller's error then names what is committed).
    """
    facts = collect_facts()
    for level in reversed(supported_levels(facts)):
        for threads in (2, 1):
            config = PlatformConfig(facts.os, facts.arch, level.name, threads)
            config = config.with_blas(machine_blas(config) or _impl_blas(config))
            if fixture_path(DEFAULT_FIXTURES, version, config, nanogpt).exists():
                return config
    return with_machine_blas(plan_configs(facts, None, None))[0]


def _impl_blas(config: PlatformConfig) -> str:
    from harness.impl.profiles import MODELLED_BLAS

    return MODELLED_BLAS if config.arch == "x86_64" else ""


def committed_fixture(platform_id: str | None, nanogpt: str = "") -> Path:
    """A committed fixture of the installed torch: by platform id, else this machine's own."""
    version = installed_torch_version()
    config = parse_platform_id(platform_id) if platform_id else default_config(version, nanogpt)
    path = fixture_path(DEFAULT_FIXTURES, version, config, nanogpt)
    if not path.exists():
        if not platform_id:  # this machine's own configuration: never another machine's bits instead
            raise ParityError(
                f"no committed fixture for this machine's configuration {config.id} (torch "
                f"{public_version(version)}); record its fixtures with `tox -e regen`, or name one with --platform"
            )
        have = sorted(p.name for p in path.parent.glob("*.h5")) if path.parent.is_dir() else []
        raise ParityError(
            f"no committed fixture {path.name} for torch {public_version(version)}"
            + (f" (committed: {', '.join(have)})" if have else f" ({path.parent} does not exist)")
        )
    return path


def live_config(fixture_config: PlatformConfig) -> tuple[PlatformConfig, str]:
    """The configuration to run live: the fixture's own where this machine can run it."""
    facts = collect_facts()
    runnable = {lvl.name for lvl in supported_levels(facts)}
    if (fixture_config.os, fixture_config.arch) == (facts.os, facts.arch) and fixture_config.isa in runnable:
        own = fixture_config.with_blas(machine_blas(fixture_config))
        if own == fixture_config or not fixture_config.blas:
            return own, f"live: this machine in the fixture's configuration {fixture_config.id}"
        return own, f"live: this machine as {own.id} (its own BLAS code path), against a fixture of {fixture_config.id}"
    (own,) = with_machine_blas(
        [PlatformConfig(facts.os, facts.arch, supported_levels(facts)[-1].name, fixture_config.threads)]
    )
    return own, f"live: this machine as {own.id}, against a fixture of {fixture_config.id}"


def live_request(expected: Any, ops: str = "", quiet: bool = True) -> RecordRequest:
    """What to record live for ``expected``: the same ops (or ``ops``), or the same nanoGPT run."""
    from harness.core.op_ids import OP_IDS, parse_op_list
    from harness.formats.nanogpt import NanoGPTFixture
    from harness.formats.upstream import UpstreamFixture

    if isinstance(expected, UpstreamFixture):
        raise ParityError(
            "a run of nanoGPT's own train.py is recorded from its checkout: 'parity generate --nanogpt-train PATH', "
            "then 'parity diff' (or 'parity check --impl' for the reference implementation)"
        )
    base = RecordRequest(force=True, quiet=quiet, live=True)
    if isinstance(expected, NanoGPTFixture):
        full_steps = ",".join(map(str, expected.attrs.get("full_steps", []))) or "none"
        init = "full" if expected.attrs.get("full_init") else "digest"
        digest = expected.run.digest  # digests comparable with the fixture's
        return replace(base, nanogpt=str(expected.config["name"]), full_steps=full_steps, init=init, digest=digest)
    chosen = set(parse_op_list(ops, tuple(expected.ops)))  # the fixture's ops, or those of them ``ops`` names
    subset = "" if set(expected.ops) == set(OP_IDS) else ",".join(expected.ops)
    draw = expected.provenance.get("random_cases")
    if isinstance(draw, dict):  # seeded random cases: the same draw's cases (a subset fixture's only)
        named = [key for key in expected.cases if key.split("/")[0] in chosen]
        random = {"random": int(draw["per_group"]), "seed": int(draw["seed"]), "cases": ",".join(named)}
        return replace(base, ops=",".join(op for op in expected.ops if op in chosen), **random)
    return replace(base, ops=ops or subset)


def record_live(
    expected: Any, root: Path, *, ops: str = "", quiet: bool = True, capture: bool = False
) -> tuple[Path, str]:
    """Record ``expected``'s counterpart on this machine now under ``root``; (its path, a note)."""
    config, note = live_config(parse_platform_id(str(expected.attrs["platform_id"])))
    request = live_request(expected, ops, quiet)
    out = fixture_path(root, installed_torch_version(), config, request.nanogpt)
    result = request.run(config, out, capture=capture)
    if result.returncode != 0:
        detail = (result.stderr or "").strip().splitlines()[-1:] if capture else []
        raise ParityError(f"the live recording in {config.id} failed" + (f": {detail[0]}" if detail else ""))
    return out, note


def torch_missing(version: str, instead: str, platform_id: str = "") -> str:
    """The error where torch is needed and not installed: the pip command pinned to ``version``,
    else to the newest torch release with committed fixtures (of ``platform_id`` where given)."""
    found = {p.parent.name.removeprefix("torch-") for p in DEFAULT_FIXTURES.glob(f"torch-*/{platform_id or '*'}.h5")}
    numeric = lambda v: [int(x) if x.isdigit() else 0 for x in v.split(".")]
    versions = [public_version(version)] if version else sorted(found, key=numeric)
    pin = f"python3 -m pip install torch=={versions[-1]}" if versions else "python3 -m pip install torch"
    others = f" (committed fixtures are of torch {', '.join(versions)})" if len(versions) > 1 else ""
    return f"torch is not installed: {pin}{others}; {instead}"
