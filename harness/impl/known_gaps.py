"""The impl's known gaps: outputs it does not yet reproduce bit-for-bit, with measured ULP.

One file, ``harness/impl/known_gaps.json``, written by ``python -m harness.replay.check
--write-gaps`` from a run over the committed fixtures (never by hand-editing figures).
Every report prints the gaps of the platform it concerns; the impl's tests turn each gap into
a strict expected failure, so a gap that closes without the file being updated fails the run,
and a gap that grows past its recorded ULP fails it too.

An element NaN in both the impl's output and a fixture recorded under qemu-x86_64 is never a gap nor a
match: QEMU's NaN where two meet is not a CPU's, and the check sets it apart
(harness.compare.fixtures.qemu_x86_nan_pick; the committed emulated sets hold no NaN output).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.core.errors import ParityError
from harness.core.ulp import TensorComparison, describe

GAPS_FILE = Path(__file__).resolve().parent / "known_gaps.json"
SCHEMA = "parity-harness/impl-known-gaps"


@dataclass(frozen=True)
class Gap:
    platform: str  # fixture platform id, e.g. linux-x86_64-avx2-t2
    op: str
    case: str
    output: str
    max_ulp: int | None  # None: the impl has no kernel for the op
    mismatches: int  # elements that differ (all of them when there is no kernel)
    count: int
    why: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.platform, self.op, self.case, self.output)

    def line(self) -> str:
        where = f"{self.op}/{self.case} {self.output} on {self.platform}"
        if self.max_ulp is None:
            return f"{where}: not implemented" + (f" ({self.why})" if self.why else "")
        what = f"{self.mismatches} of {self.count} elements differ, max {self.max_ulp} ULP"
        return f"{where}: {what}" + (f" ({self.why})" if self.why else "")


@dataclass
class KnownGaps:
    torch_version: str
    gaps: list[Gap]
    unverified_profiles: dict[str, str]  # profile -> why no fixture checks it

    def by_key(self) -> dict[tuple[str, str, str, str], Gap]:
        return {g.key: g for g in self.gaps}

    def for_platform(self, platform: str) -> list[Gap]:
        return [g for g in self.gaps if g.platform == platform]

    def op_gaps(self, platform: str) -> list[Gap]:
        """The gaps of op fixtures on ``platform``, leaving out those of its nanoGPT runs."""
        return [g for g in self.for_platform(platform) if not g.op.startswith("nanogpt-")]

    def run_gap(self, platform: str, config: str) -> Gap | None:
        """The gap of a nanoGPT run (op ``nanogpt-<config>``) on ``platform``, if any."""
        return next((g for g in self.for_platform(platform) if g.op == f"nanogpt-{config}"), None)

    def lines(self, platform: str | None = None) -> list[str]:
        gaps = self.gaps if platform is None else self.for_platform(platform)
        return [g.line() for g in gaps]


def load_gaps(path: Path = GAPS_FILE) -> KnownGaps:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParityError(f"the impl's known-gaps file {path} is missing") from None
    except json.JSONDecodeError as exc:
        raise ParityError(f"the impl's known-gaps file {path} is not valid JSON: {exc}") from None
    if data.get("schema") != SCHEMA:
        raise ParityError(f"{path} is not a known-gaps file (schema {data.get('schema')!r})")
    return KnownGaps(
        str(data["torch_version"]), [Gap(**g) for g in data["gaps"]], dict(data.get("unverified_profiles", {}))
    )


def save_gaps(known: KnownGaps, path: Path = GAPS_FILE) -> None:
    """Write atomically, sorted, so the file diffs well."""
    head: dict[str, Any] = {
        "schema": SCHEMA,
        "schema_version": 1,
        "torch_version": known.torch_version,
        "unverified_profiles": dict(sorted(known.unverified_profiles.items())),
    }
    rows = [json.dumps(asdict(g)) for g in sorted(known.gaps, key=lambda g: g.key)]  # one gap a line
    body = "\n  " + ",\n  ".join(rows) + "\n " if rows else ""
    text = json.dumps(head, indent=1)[:-2] + ',\n "gaps": [' + body + "]\n}\n"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


class ImplMismatch(AssertionError):
    """The impl's output differs from the fixture's (the failure a known gap expects)."""


class GapGrew(AssertionError):
    """A known gap got worse than its recorded figures: a regression, never expected."""


def assert_reproduces(comparison: TensorComparison, gap: Gap | None) -> None:
    """Bit-identical, else ImplMismatch; GapGrew where it is worse than the recorded gap."""
    if comparison.bit_identical:
        return
    mismatches = comparison.count - comparison.identical - comparison.set_apart
    if (
        gap is not None
        and gap.max_ulp is not None
        and (comparison.max_ulp > gap.max_ulp or mismatches > gap.mismatches)
    ):
        raise GapGrew(f"worse than the known gap ({gap.line()}): {describe(comparison)}")
    raise ImplMismatch(describe(comparison))
