"""parity-harness: golden-fixture reproducibility harness for PyTorch CPU numerics."""

__version__ = "0.1.0"
