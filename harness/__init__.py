"""parity-harness: golden-fixture reproducibility harness for PyTorch CPU numerics."""

from harness.core.version import __version__

__all__ = ["__version__"]
