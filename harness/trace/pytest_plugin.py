"""The ``parity_golden`` pytest fixture: a test's tensors as goldens, per platform configuration.

    def test_block(parity_golden):
        y = block(x)
        parity_golden.check({"out": y, "grad": x.grad})           # bit for bit
        parity_golden.check({"loss": loss}, max_ulp=2, basename="loss")   # a ULP budget, asked for

Goldens live beside the test module, one file per test (and ``basename``) and configuration:
``<test dir>/goldens/<module>/<test name>.<platform id>.h5`` (a packed fixture of kind
``golden``: the tensors, the platform id and the provenance fixtures carry). A golden that does
not exist yet is written and the test fails saying so; ``--parity-force-regen`` rewrites every
golden the run checks (those tests fail too, as pytest-regressions' ``--force-regen`` does), so
a regeneration is always seen. A mismatch fails with one line per differing tensor, the first
mismatch in decimal and hex (harness.core.ulp.describe).

Registered as a ``pytest11`` entry point (``parity``); importing it needs no torch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

KIND = "golden"
GROUP = "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("parity", "parity-harness goldens")
    group.addoption(
        "--parity-force-regen",
        action="store_true",
        default=False,
        help="rewrite the parity_golden files of the tests run (they fail, saying so)",
    )


def _as_array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            raise TypeError("parity_golden stores float16/32/64, integer and bool tensors, not bfloat16")
        value = value.numpy()
    return np.ascontiguousarray(np.asarray(value))


def _platform_id() -> str:
    try:
        from harness.trace.recorder import running_platform_id
    except ImportError as err:  # no torch: the platform of numpy-only tests is still torch's
        raise pytest.UsageError(f"parity_golden needs torch to name the platform configuration ({err})") from None
    return running_platform_id()


class Golden:
    """What ``parity_golden`` gives a test."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request
        self.regen = bool(request.config.getoption("parity_force_regen"))
        self._used: set[str] = set()

    def path(self, basename: str | None = None) -> Path:
        name = basename or re.sub(r"[^\w.-]+", "_", self.request.node.name)
        module = Path(str(self.request.node.fspath))
        return module.parent / "goldens" / module.stem / f"{name}.{_platform_id()}.h5"

    def check(self, tensors: Mapping[str, Any], *, max_ulp: int = 0, basename: str | None = None) -> None:
        """Compare ``tensors`` with the golden of this platform; bit for bit unless ``max_ulp`` > 0, which
        lets floating-point tensors differ by that many ULP (integer and bool tensors are always exact)."""
        if not tensors:
            raise ValueError("parity_golden.check needs at least one tensor")
        path = self.path(basename)
        if str(path) in self._used:
            raise ValueError(f"{path.name}: checked twice in one test; give each check its own basename")
        self._used.add(str(path))
        arrays = {name: _as_array(v) for name, v in tensors.items()}
        if self.regen or not path.exists():
            verb = "regenerated" if path.exists() else "created"
            self._write(path, arrays)
            pytest.fail(f"golden {verb}: {path} ({len(arrays)} tensors); run again to compare", pytrace=False)
        problems = compare_golden(path, arrays, max_ulp)
        if problems:
            budget = "bit for bit" if max_ulp == 0 else f"within {max_ulp} ULP"
            head = f"{len(problems)} tensor(s) differ from {path} ({budget}; --parity-force-regen rewrites it):"
            pytest.fail("\n".join([head, *(f"  {p}" for p in problems)]), pytrace=False)

    def _write(self, path: Path, arrays: dict[str, np.ndarray]) -> None:
        from harness.store import FixtureWriter
        from harness.trace.recorder import running_provenance

        provenance = running_provenance()
        with FixtureWriter(path, KIND, force=True, packed=True) as w:
            w.set_attrs("/", {"platform_id": provenance["platform_id"], "provenance": provenance,
                              "test": self.request.node.nodeid})  # fmt: skip
            for name, array in arrays.items():
                w.put(GROUP, name, array)


def compare_golden(path: Path, arrays: Mapping[str, np.ndarray], max_ulp: int = 0) -> list[str]:
    """One line per tensor that differs from the golden (beyond ``max_ulp``), missing or extra."""
    from harness.core.ulp import compare_tensors, describe
    from harness.store import FixtureReader

    with FixtureReader(path, kind=KIND) as r:
        stored = {name: r.tensor(f"{GROUP}/{name}") for name in r.tensor_names(GROUP)}
    problems = [f"{name}: not in the golden" for name in arrays if name not in stored]
    problems += [f"{name}: in the golden, not checked" for name in stored if name not in arrays]
    for name, actual in arrays.items():
        expected = stored.get(name)
        if expected is None:
            continue
        if expected.shape != actual.shape or expected.dtype != actual.dtype:
            problems.append(
                f"{name}: golden is {expected.dtype}{list(expected.shape)}, got {actual.dtype}{list(actual.shape)}"
            )
            continue
        c = compare_tensors(name, expected, actual)
        # a ULP budget is for floating-point tensors: integers and booleans are equal or they differ
        within = max_ulp > 0 and _is_float(actual) and c.non_finite == 0 and c.max_ulp <= max_ulp
        if not c.bit_identical and not within:
            problems.append(describe(c))
    return problems


def _is_float(a: np.ndarray) -> bool:
    return bool(np.issubdtype(a.dtype, np.floating))


@pytest.fixture
def parity_golden(request: pytest.FixtureRequest) -> Golden:
    """Compare a test's tensors with goldens of this platform configuration (see harness.trace.pytest_plugin)."""
    return Golden(request)
