"""The recorded op set: the 26 ids, the case shapes that change bits, replayable inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from harness.core.bits import describe_first_mismatch
from harness.core.op_ids import OP_IDS
from harness.record.torch_ops import OPS, OPS_BY_NAME

# the op ids as the project defines them, spelled out independently of the code
EXPECTED_IDS = [
    "randn",
    "embedding",
    "add",
    "mul",
    "div",
    "exp",
    "log",
    "tanh",
    "rsqrt",
    "linear",
    "matmul",
    "layer_norm",
    "gelu",
    "gelu_tanh",
    "softmax",
    "log_softmax",
    "cross_entropy",
    "sdpa",
    "sdpa_dropout",
    "dropout",
    "sum",
    "mean",
    "var",
    "vector_norm",
    "clip_grad_norm",
    "adamw_step",
]
RNG_OPS = {"randn", "dropout", "sdpa_dropout"}
PARALLEL_MIN = 32768  # ATen's GRAIN_SIZE


def test_exactly_the_26_ops_in_order():
    assert list(OP_IDS) == EXPECTED_IDS
    assert [op.name for op in OPS] == EXPECTED_IDS


def _case_sizes(op_name: str, params: dict) -> list[tuple[int, ...]]:
    if op_name == "randn":
        return [(params["n"],)]
    return [a.shape for a in OPS_BY_NAME[op_name].make_inputs(params).values()]


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_cases_exercise_tails_and_threads(op):
    assert len(op.cases) >= 2, "each op runs at two or more shapes"
    assert len({c.name for c in op.cases}) == len(op.cases), "case names are unique"
    shapes = [s for case in op.cases for s in _case_sizes(op.name, dict(case.params))]
    largest = max(math.prod(s) for s in shapes)
    assert largest > PARALLEL_MIN, f"largest tensor has {largest} elements; need > {PARALLEL_MIN}"
    assert any(d % 16 for s in shapes for d in s), "no case has a size off a multiple of 16"


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_inputs_are_replayable_numpy_arrays(op):
    for case in op.cases:
        first = op.make_inputs(dict(case.params))
        second = op.make_inputs(dict(case.params))
        assert list(first) == list(second)
        for name in first:
            assert isinstance(first[name], np.ndarray), f"{case.name}/{name} is not an ndarray"
            problem = describe_first_mismatch(first[name], second[name])
            assert problem is None, f"{op.name}/{case.name}/{name}: {problem}"


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_rng_ops_store_their_seed(op):
    for case in op.cases:
        assert ("torch_seed" in case.params) == (op.name in RNG_OPS), case.name


def test_sdpa_cases_take_the_kernels_they_are_named_for():
    # torch._fused_sdp_choice: 1 = flash attention (CPU flash kernel), 0 = math path
    for op_name, expected in (("sdpa", 1), ("sdpa_dropout", 0)):
        for case in OPS_BY_NAME[op_name].cases:
            t = {k: torch.from_numpy(v) for k, v in OPS_BY_NAME[op_name].make_inputs(dict(case.params)).items()}
            choice = torch._fused_sdp_choice(t["q"], t["k"], t["v"], None, case.params["dropout_p"], True)
            assert choice == expected, f"{op_name}/{case.name} takes backend {choice}"
