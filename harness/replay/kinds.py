"""The reference implementation over a fixture of each kind: its run, compared with the fixture.

``REPLAYS`` is keyed by the kinds of ``harness.formats.registry.KINDS``: ``parity check --impl``
and the parity suite reach the impl through it, never by testing a fixture's kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.compare.fixtures import NanoGPTDiff, OpsDiff, diff_nanogpt, diff_ops
from harness.core.errors import ParityError
from harness.core.op_ids import parse_op_list
from harness.formats import nanogpt, ops, upstream
from harness.formats.nanogpt import NanoGPTFixture
from harness.formats.ops import OpFixture
from harness.formats.upstream import UpstreamFixture
from harness.impl.profiles import KernelProfile
from harness.replay.nanogpt import impl_nanogpt_fixture
from harness.replay.ops import impl_op_fixture, missing_note
from harness.replay.upstream import check_fixture


@dataclass
class Replay:
    """The impl's run of a fixture, compared with it."""

    diff: OpsDiff | NanoGPTDiff
    notes: list[str] = field(default_factory=list)  # what the report says besides the tables
    missing: dict[str, str] = field(default_factory=dict)  # what the impl did not reproduce or run, and why
    gap_ops: set[str] = field(default_factory=set)  # the known-gap ops (known_gaps.json) the fixture stands for


def replay_ops(expected: OpFixture, profile: KernelProfile, only: str = "") -> Replay:
    """The impl over every case (or those of the ops in ``only``, comma-separated)."""
    if only:
        wanted = set(parse_op_list(only))
        expected.cases = {k: r for k, r in expected.cases.items() if r.op in wanted}
    impl, missing = impl_op_fixture(expected, profile)
    notes = [missing_note(missing)] if missing else []
    return Replay(diff_ops(expected, impl, subset=True), notes, missing, {r.op for r in expected.cases.values()})


def _whole_run(only: str) -> None:
    if only:
        raise ParityError("--ops selects op cases; a nanoGPT fixture is checked whole")


def replay_nanogpt(expected: NanoGPTFixture, profile: KernelProfile, only: str = "") -> Replay:
    """The impl's 50 training steps from the fixture's start."""
    _whole_run(only)
    diff = diff_nanogpt(expected, impl_nanogpt_fixture(expected, profile))
    return Replay(diff, gap_ops={f"nanogpt-{expected.config['name']}"})


def replay_upstream(expected: UpstreamFixture, profile: KernelProfile, only: str = "") -> Replay:
    """nanoGPT's own train.py, replayed: the steps and the evaluation at iteration 0."""
    _whole_run(only)
    diff, eval_lines = check_fixture(expected, profile)
    notes = eval_lines or ["evaluation losses and batches at iteration 0: bit-identical"]
    missing = {"evaluation": eval_lines[0]} if eval_lines else {}
    return Replay(diff, notes, missing, {f"nanogpt-upstream-{expected.config['name']}"})


REPLAYS: dict[str, Callable[..., Replay]] = {
    ops.KIND: replay_ops,
    nanogpt.KIND: replay_nanogpt,
    upstream.KIND: replay_upstream,
}


def replay(expected: Any, profile: KernelProfile, only: str = "") -> Replay:
    """The impl's run of ``expected`` under ``profile``, compared with it, as its kind is replayed."""
    return REPLAYS[expected.kind](expected, profile, only)
