"""A nanoGPT fixture's digests in another algorithm, proven by a replay of its run (torch-free).

A record kept only as a digest cannot be digested again from the fixture: its tensor is not
stored. The reference implementation computes the whole run again under the fixture's own
profile and thread count, digested by both algorithms at once. Where the replay in the fixture's
own algorithm is bit-identical to the fixture (every digest, sum, scalar, batch, full tensor and
evaluation, the check ``parity check --impl`` makes), the replay's tensors are the recorded ones,
so their digests in the new algorithm are what the recording would have stored. The fixture is
written again with those digests and sums and everything else as it was; its provenance names
the conversion (``digest_converted``). A fixture the replay does not reproduce is left as it is.

    python tools/redigest.py FIXTURE... [--to mix256-v1]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.compare.fixtures import diff_nanogpt
from harness.core.digest import ALGORITHM, check_algorithm
from harness.core.errors import ParityError
from harness.formats.nanogpt import NanoGPTFixture, write_nanogpt_fixture
from harness.formats.registry import read_fixture
from harness.formats.upstream import UpstreamFixture, diff_evals, write_upstream_fixture
from harness.impl.profiles import profile_for_fixture

# root attributes the store or a writer sets from the run itself, not copied from the old fixture
_DERIVED = {"input_digest", "param_names", "full_init", "digest", "digest_kinds", "full_steps", "steps",
            "eval_iterations", "format", "schema_version", "kind"}  # fmt: skip


@dataclass
class Conversion:
    path: Path
    converted: bool
    detail: str


def redigest(path: Path, algorithm: str = ALGORITHM) -> Conversion:
    """Rewrite the nanoGPT or upstream fixture at ``path`` with ``algorithm``'s digests, where the
    impl's replay reproduces it bit for bit; else leave it as it is and say where it differs."""
    from harness.replay.nanogpt import impl_nanogpt_runs
    from harness.replay.upstream import impl_upstream_runs

    check_algorithm(algorithm)
    fixture = read_fixture(path)
    if not isinstance(fixture, NanoGPTFixture):
        raise ParityError(f"{path}: an op fixture stores its tensors whole; only nanoGPT fixtures carry digests")
    old = fixture.run.digest
    if old == algorithm:
        return Conversion(path, False, f"already digested with {algorithm}")
    profile = profile_for_fixture(fixture.attrs)
    upstream = isinstance(fixture, UpstreamFixture)
    same, new = (impl_upstream_runs if upstream else impl_nanogpt_runs)(fixture, [old, algorithm], profile)
    diff = diff_nanogpt(fixture, same)
    problems = diff_evals(fixture.evals, same.evals) if upstream else []
    problems += [f"step {s.step}: full {c.name} differs" for s in diff.steps for c in s.full if not c.bit_identical]
    problems += [
        f"step {a.step}: lr differs" for a, b in zip(fixture.run.steps, same.run.steps, strict=True) if a.lr != b.lr
    ]
    if not diff.bit_identical or problems:
        where = f"step {diff.first.step} {diff.first.detail}" if diff.first else problems[0]
        return Conversion(path, False, f"left as it is: the impl ({profile.label}) does not reproduce it ({where})")
    _carry_over(fixture, new)
    attrs = {k: v for k, v in fixture.attrs.items() if k not in _DERIVED}
    attrs["provenance"] = {
        **fixture.provenance,
        "digest_converted": {
            "from": old,
            "to": algorithm,
            "verified_by": f"parity-harness reference implementation, profile {profile.label}",
            "verified": f"{len(diff.steps)} of {len(diff.steps)} steps bit-identical in {old}",
        },
    }
    if upstream:
        write_upstream_fixture(path, {**attrs, "full_init": bool(fixture.run.init)}, new.run, new.evals, force=True)
    else:
        write_nanogpt_fixture(
            path, attrs["provenance"], fixture.config, new.run, deterministic=bool(attrs["deterministic"]),
            first_nondeterministic_step=int(attrs["first_nondeterministic_step"]),
            full_init=bool(fixture.run.init), force=True,
        )  # fmt: skip
    return Conversion(path, True, f"{old} -> {algorithm}: {len(diff.steps)} steps proven by the impl ({profile.label})")


def _carry_over(fixture: NanoGPTFixture, new: Any) -> None:
    """The old fixture's own stored tensors into the new run: the batches, scalars and full tensors
    (bit-identical to the replay's, as the diff showed) come from the recording, not the replay."""
    for ra, rb in zip(fixture.run.steps, new.run.steps, strict=True):
        rb.x, rb.y, rb.loss, rb.full = ra.x, ra.y, ra.loss, ra.full
        rb.grad_norm, rb.clip_coef, rb.lr = ra.grad_norm, ra.clip_coef, ra.lr
    if fixture.run.init:  # else the replay's (equal to their digests), stored as digests only
        new.run.init = fixture.run.init
