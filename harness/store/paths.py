"""Where fixtures live: the committed store and a fixture's path in a store."""

from __future__ import annotations

from pathlib import Path

from harness.platform.config import PlatformConfig
from harness.platform.provenance import public_version

DEFAULT_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"  # the committed store


def fixture_path(root: Path, torch_version: str, config: PlatformConfig, nanogpt: str = "") -> Path:
    """Where a fixture of (torch version, configuration) lives under ``root``.

    Op fixtures are ``<platform id>.h5``; nanoGPT fixtures ``<platform id>.nanogpt-<config>.h5``
    (``upstream-<config>`` for a run of nanoGPT's own train.py).
    """
    suffix = f".nanogpt-{nanogpt}" if nanogpt else ""
    return root / f"torch-{public_version(torch_version)}" / f"{config.id}{suffix}.h5"
