"""Fixtures of the test suite (the shared options are in the root conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


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
