"""Fixtures of the test suite (the shared options are in the root conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from harness.platform.config import ISA_LEVELS


def _onednn_at_atens_level() -> None:
    """A run whose ATen level is chosen by hand (``ATEN_CPU_CAPABILITY=avx2 pytest ...``) runs oneDNN at that
    level too, as the project's platform ids pin both: oneDNN left at the CPU's own ISA runs other convolution
    kernels than the level's kernel profile (tests/impl_live.py ``live_profile``) names. Set before any test
    module loads torch; an explicit ``ONEDNN_MAX_CPU_ISA`` is kept."""
    level = os.environ.get("ATEN_CPU_CAPABILITY", "")
    for isa in ISA_LEVELS["x86_64"]:
        if isa.env["ATEN_CPU_CAPABILITY"] == level:
            os.environ.setdefault("ONEDNN_MAX_CPU_ISA", isa.env["ONEDNN_MAX_CPU_ISA"])


_onednn_at_atens_level()


@pytest.fixture
def restore_threads() -> Iterator[None]:
    """torch's thread count as it was before the test (the live impl tests change it)."""
    import torch  # only the tests that use this need torch

    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


BACKENDS = ("dispatcher-hook", "dispatch-mode")  # the trace recorder's two ways in


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The trace recorder records through the dispatcher hook (csrc/hook.cpp) or through Python's
    dispatch mode."""
    monkeypatch.setenv("PARITY_TRACE_HOOK", "1" if request.param == "dispatcher-hook" else "0")
    return request.param


# The files of the suite's longest tests, longest first (seconds on CI's 2 cores, torch 2.13.0): the upstream
# nanoGPT fixture's impl replay (88), the op-match matrix (41 set-up + 22), the gpt2 fine-tune of the zoo (39),
# the committed fixtures' checks (38 + 26 + 8), the trace code-path and store-hostile tests (8 to 17 each).
# Collected first, pytest-xdist starts them at once; collected in file order, they fell among the last tests a
# worker was given (or stole) and one ran on alone while the other worker had finished.
LONGEST_FIRST = (
    "test_upstream.py",
    "test_matrix.py",
    "test_zoo.py",
    "test_committed_fixtures.py",
    "test_trace_code_path.py",
    "test_store_hostile.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of LONGEST_FIRST before all others, in that order; each file's tests, and every other
    file, keep their order (a module-scoped fixture is still set up once per file)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))
