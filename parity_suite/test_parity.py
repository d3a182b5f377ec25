"""One test per op case and per nanoGPT step: bit-identical, or the first mismatch shown."""

from __future__ import annotations

from harness.compare import first_divergence_in_step
from harness.ulp import compare_tensors, describe


def test_op_case(op_case, live_for):
    path, key = op_case
    expected, live = live_for(path)
    want, got = expected.cases[key], live.cases[key]
    for name in want.inputs:
        assert compare_tensors(name, want.inputs[name], got.inputs[name]).bit_identical, (
            f"{key}: input {name} differs: the live run was given other inputs"
        )
    problems = [describe(c) for c in (compare_tensors(n, want.outputs[n], got.outputs[n]) for n in want.outputs)
                if not c.bit_identical]  # fmt: skip
    assert not problems, f"{key} differs from {path.name}:\n  " + "\n  ".join(problems)


def test_nanogpt_step(nanogpt_step, live_for):
    path, step = nanogpt_step
    expected, live = live_for(path)
    if step == 1:
        assert (expected.run.init_sha256 == live.run.init_sha256).all(), "the initial weights differ"
    first = first_divergence_in_step(expected.run.steps[step - 1], live.run.steps[step - 1], expected.run.param_names)
    assert first is None, f"step {step} differs from {path.name}: {first.stage}: {first.detail}"
