"""One test per op case and per nanoGPT step: bit-identical, or the first mismatch shown.

With ``--parity-source impl`` a case with known gaps is a strict expected failure: it must
still differ (ImplMismatch), by no more than the recorded figures (else GapGrew, a failure).
"""

from __future__ import annotations

import pytest

from harness.compare.fixtures import compare_output, first_divergence_in_step, qemu_x86_nan_pick
from harness.core.ulp import compare_tensors, set_apart_text
from harness.impl.known_gaps import GapGrew, ImplMismatch, assert_reproduces, load_gaps

GAPS = load_gaps().by_key()


def test_op_case(op_case, actual_for):
    path, key = op_case
    expected, actual = actual_for(path)
    want = expected.cases[key]
    got = actual.cases.get(key)
    if got is None:
        raise ImplMismatch(f"{key}: the reference implementation has no kernel for {want.op}")
    if not _is_impl(actual):  # a live run recorded the inputs it was given (the impl computes from want's own)
        for name in want.inputs:
            assert name in got.inputs and compare_tensors(name, want.inputs[name], got.inputs[name]).bit_identical, (
                f"{key}: input {name} differs: the run checked was given other inputs"
            )
    platform = str(expected.attrs["platform_id"])
    nan_pick = qemu_x86_nan_pick(expected.attrs.get("provenance", {}), actual.attrs.get("provenance", {}))
    problems, grew, apart = [], False, [0, 0]
    for name, want_out in want.outputs.items():
        if name not in got.outputs:
            problems.append(f"{name}: not produced")
            continue
        try:
            comparison = compare_output(name, want_out, got.outputs[name], nan_pick)
            apart = [apart[0] + comparison.set_apart, apart[1] + comparison.set_apart_differ]
            assert_reproduces(comparison, _gap(actual, platform, want, name))
        except GapGrew as err:
            grew = True
            problems.append(str(err))
        except ImplMismatch as err:
            problems.append(str(err))
    if problems:
        raise (GapGrew if grew else ImplMismatch)(f"{key} differs from {path.name}:\n  " + "\n  ".join(problems))
    if apart[0]:  # neither a match nor a mismatch: said apart
        pytest.skip(f"{key}: bit-identical but for {set_apart_text(*apart)}")


def _is_impl(actual) -> bool:
    return str(actual.attrs.get("platform_id", "")).startswith("impl ")


def _gap(actual, platform: str, rec, name: str):
    """The known gap of this output, for the impl only (a live run has none)."""
    if not _is_impl(actual):
        return None
    return GAPS.get((platform, rec.op, rec.case, name))


def test_nanogpt_step(nanogpt_step, actual_for):
    path, step = nanogpt_step
    expected, actual = actual_for(path)
    if actual is None:
        raise ImplMismatch("the reference implementation does not train nanoGPT yet")
    # ImplMismatch is an AssertionError: a live run fails on it as on any assert; a known gap of
    # the impl expects exactly it
    if step == 1 and not (expected.run.init_digests == actual.run.init_digests).all():
        raise ImplMismatch(f"the initial weights differ from {path.name}'s")
    first = first_divergence_in_step(expected.run.steps[step - 1], actual.run.steps[step - 1], expected.run.param_names)
    if first is not None:
        raise ImplMismatch(f"step {step} differs from {path.name}: {first.stage}: {first.detail}")
