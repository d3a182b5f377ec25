"""The parity_golden pytest plugin, run by pytester: creation, a pass, a failing golden, a ULP budget,
and a regeneration."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

pytest_plugins = ("pytester",)
pytest.importorskip("torch")

TEST_FILE = """
import numpy as np
import torch

SCALE = {scale!r}


def test_block(parity_golden):
    x = torch.linspace(-2, 2, 33)
    parity_golden.check({{"out": torch.tanh(x) * SCALE, "count": np.arange(3)}})


def test_budget(parity_golden):
    y = np.float32([1.0, 2.0]) * np.float32(SCALE)
    parity_golden.check({{"y": y}}, max_ulp=1, basename="budget")
"""


def _args() -> list[str]:
    installed = any(e.value == "harness.trace.pytest_plugin" for e in entry_points(group="pytest11"))
    return ["-p", "no:cacheprovider"] + ([] if installed else ["-p", "harness.trace.pytest_plugin"])


def test_golden_created_passes_fails_and_regenerates(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_model=TEST_FILE.format(scale=1.0))
    first = pytester.runpytest(*_args())
    first.assert_outcomes(failed=2)
    first.stdout.fnmatch_lines(["*golden created: *goldens/test_model/test_block.linux-*.h5 (2 tensors)*"])
    goldens = sorted(p.name for p in (pytester.path / "goldens" / "test_model").iterdir())
    assert len(goldens) == 2 and goldens[0].startswith("budget.") and goldens[1].startswith("test_block.")

    pytester.runpytest(*_args()).assert_outcomes(passed=2)

    # one float32 step up: out differs bit for bit (fails, with the first mismatch), y stays within its 1-ULP budget
    pytester.makepyfile(test_model=TEST_FILE.format(scale=float(1 + 2**-23)))
    failed = pytester.runpytest(*_args())
    failed.assert_outcomes(passed=1, failed=1)
    failed.stdout.fnmatch_lines([
        "*1 tensor(s) differ from *test_block.*.h5 (bit for bit; --parity-force-regen rewrites it):*",
        "*out: * of 33 elements differ; max * ULP at *first at *expected * (0x*), got * (0x*)*",
    ])  # fmt: skip

    regen = pytester.runpytest(*_args(), "--parity-force-regen")
    regen.assert_outcomes(failed=2)
    regen.stdout.fnmatch_lines(["*golden regenerated: *test_block.*.h5*"])
    pytester.runpytest(*_args()).assert_outcomes(passed=2)


def test_golden_reports_missing_and_extra_tensors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_x(parity_golden):\n    parity_golden.check({'a': [1.0], 'b': [2.0]})\n")
    pytester.runpytest(*_args()).assert_outcomes(failed=1)
    pytester.makepyfile(test_a="def test_x(parity_golden):\n    parity_golden.check({'a': [1.0], 'c': [2.0]})\n")
    result = pytester.runpytest(*_args())
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*c: not in the golden*", "*b: in the golden, not checked*"])


def test_a_ulp_budget_never_covers_integer_or_bool_tensors(tmp_path) -> None:
    import numpy as np

    from harness.store import FixtureWriter
    from harness.trace.pytest_plugin import GROUP, KIND, compare_golden

    path = tmp_path / "g.h5"
    stored = {"loss": np.float32([1.5]), "count": np.int64([3, 4]), "mask": np.array([True, False])}
    with FixtureWriter(path, KIND, force=True, packed=True) as w:
        w.set_attrs("/", {"platform_id": "linux-x86_64-avx2-t1"})
        for name, array in stored.items():
            w.put(GROUP, name, array)
    one_ulp_up = np.nextafter(np.float32(1.5), np.float32(2))
    assert compare_golden(path, {**stored, "loss": np.float32([one_ulp_up])}, max_ulp=2) == []
    problems = compare_golden(path, {**stored, "count": np.int64([3, 5]), "mask": np.array([True, True])}, max_ulp=2)
    assert [p.split(":")[0] for p in problems] == ["count", "mask"], problems
    assert "first at" in problems[0], problems  # the message shows the first mismatch
