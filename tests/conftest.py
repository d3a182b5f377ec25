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
