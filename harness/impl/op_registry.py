"""The impl's op registry: op id -> the function that reproduces the recorded case.

A runner takes the case's params and stored inputs (NumPy arrays, as in the fixture) and a
``KernelProfile`` (with its thread count) and returns every output the generator recorded,
under the same names (``out``, ``grad_<input>``, ...), as float32 arrays.
Runners live in group modules (``unary``, ``reduce``, ...), each exposing ``RUNNERS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.core.op_ids import MODEL_OP_IDS, OP_IDS
from harness.impl.profiles import KernelProfile

Runner = Callable[[Mapping[str, Any], Mapping[str, np.ndarray], KernelProfile], dict[str, np.ndarray]]

# op id -> the module holding its runner
MODULES: dict[str, str] = {
    **dict.fromkeys(("exp", "log", "tanh", "rsqrt", "gelu", "gelu_tanh"), "harness.impl.unary"),
    **dict.fromkeys(
        ("add", "mul", "div", "sum", "mean", "var", "vector_norm", "clip_grad_norm"), "harness.impl.reduce"
    ),
    **dict.fromkeys(("linear", "matmul", "embedding"), "harness.impl.linalg"),
    **dict.fromkeys(("layer_norm", "softmax", "log_softmax", "cross_entropy"), "harness.impl.rows"),
    **dict.fromkeys(("sdpa", "sdpa_dropout"), "harness.impl.attention"),
    **dict.fromkeys(("randn", "dropout", "adamw_step"), "harness.impl.rng"),
    **dict.fromkeys(MODEL_OP_IDS, "harness.impl.model_ops"),  # recorded as random cases only
}
if tuple(sorted(MODULES)) != tuple(sorted((*OP_IDS, *MODEL_OP_IDS))):
    raise RuntimeError("harness.impl.op_registry.MODULES is out of step with harness.core.op_ids")


class Outputs(dict[str, np.ndarray]):
    """A runner's outputs where some the impl does not model are left out: ``refused`` says why, per
    output (the others are bit-exact claims like any runner's)."""

    def __init__(self, arrays: Mapping[str, np.ndarray], refused: Mapping[str, str]) -> None:
        super().__init__(arrays)
        self.refused = dict(refused)


def refusals(outputs: Mapping[str, np.ndarray]) -> dict[str, str]:
    """Why outputs a runner left out were refused ({} for a runner that gives all or raises)."""
    return outputs.refused if isinstance(outputs, Outputs) else {}


class NotImplementedInImpl(ParityError):
    """The impl has no runner for this op yet."""


def runner(op: str) -> Runner:
    if op not in MODULES:
        raise ParityError(f"unknown op '{op}'")
    try:
        module = importlib.import_module(MODULES[op])
    except ModuleNotFoundError as exc:
        if exc.name != MODULES[op]:
            raise
        raise NotImplementedInImpl(f"the impl has no kernel for {op} yet ({MODULES[op]} does not exist)") from None
    runners: dict[str, Runner] = getattr(module, "RUNNERS", {})
    if op not in runners:
        raise NotImplementedInImpl(f"the impl has no kernel for {op} yet ({MODULES[op]} lacks it)")
    return runners[op]


def run_case(
    op: str, params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile
) -> dict[str, np.ndarray]:
    return runner(op)(params, inputs, profile)
