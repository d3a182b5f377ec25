"""Shared pytest fixtures and options.

The parity suite (parity_suite/, run by `tox -e parity-linux`) takes:
  --fixture-set   TORCH_VERSION/PLATFORM_ID (e.g. 2.13.0/linux-x86_64-avx2-mklgeneric-t2), or a path to a
                  fixture file; default: this machine's own configuration, installed torch
  --platform-os   linux or macos: the committed set of that OS (tox -e parity-linux, parity-mac)
  --nanogpt       nanoGPT configs checked beside the ops (default tiny where its fixture is committed,
                  said in the summary where not; a config named here must have one; shakespeare-char takes
                  about 40 minutes on 2 cores), or none
  --parity-source live (PyTorch run now, on this machine) or impl (the reference implementation)
  --report PATH   also write the comparison report (.json, .md or .html by suffix)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.formats.ops import CaseRecord
from harness.store.paths import DEFAULT_FIXTURES


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("parity", "parity-harness parity suite")
    group.addoption("--fixture-set", default="", help="TORCH_VERSION/PLATFORM_ID or a fixture path")
    group.addoption(
        "--platform-os", default="", help="check against the committed set of this OS (linux, macos); default: ours"
    )
    group.addoption("--parity-source", default="live", choices=("live", "impl"), help="what is checked")
    group.addoption(
        "--nanogpt",
        default=None,
        help="nanoGPT configs to check beside the ops, comma-separated, or 'none' (default: tiny, where committed)",
    )
    group.addoption("--report", default="", help="write the comparison report here (.json/.md/.html)")


@pytest.fixture(scope="session")
def committed_root() -> Path:
    return DEFAULT_FIXTURES


@pytest.fixture(scope="session")
def committed_fixtures(committed_root: Path) -> list[Path]:
    """The committed op fixtures (``<platform id>.h5``)."""
    paths = sorted(p for p in committed_root.glob("torch-*/*.h5") if "." not in p.stem)
    assert paths, f"no committed op fixtures under {committed_root}"
    return paths


@pytest.fixture(scope="session")
def committed_random(committed_root: Path) -> list[Path]:
    """The committed random-case subsets (``<platform id>.random-<seed>.h5``)."""
    paths = sorted(committed_root.glob("torch-*/*.random-*.h5"))
    assert paths, f"no committed random-case fixtures under {committed_root}"
    return paths


@pytest.fixture(scope="session")
def committed_nanogpt(committed_root: Path) -> list[Path]:
    """The committed nanoGPT fixtures of our training loop (``<platform id>.nanogpt-<config>.h5``; runs of
    nanoGPT's own train.py, ``.nanogpt-upstream-<config>.h5``, are a kind of their own)."""
    paths = sorted(p for p in committed_root.glob("torch-*/*.nanogpt-*.h5") if ".nanogpt-upstream-" not in p.name)
    assert paths, f"no committed nanoGPT fixtures under {committed_root}"
    return paths


@pytest.fixture
def small_records() -> list[CaseRecord]:
    """Two hand-made cases covering several dtypes, a scalar and a shared tensor."""
    rng = np.random.Generator(np.random.PCG64(5))
    x = rng.standard_normal((3, 300), dtype=np.float32)
    return [
        CaseRecord(
            "exp",
            "3x300",
            {"shape": [3, 300]},
            {"x": x, "grad_out": x},
            {"out": np.exp(x), "grad_x": np.exp(x) * x},
            True,
            "torch.exp(x)",
        ),
        CaseRecord(
            "cross_entropy",
            "tiny",
            {"n": 4},
            {"targets": np.array([1, -1, 3, 0], dtype=np.int64), "grad_out": np.float32(0.5)},
            {"out": np.array(2.5, dtype=np.float32), "mask": np.array([True, False, True, True])},
            False,
            "F.cross_entropy",
        ),
    ]


@pytest.fixture
def provenance() -> dict:
    return {"torch_version": "0.0.0", "platform_id": "linux-x86_64-avx2-t1", "note": "hand-made"}
