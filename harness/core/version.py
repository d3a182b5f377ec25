"""The package's version, named in provenance and by ``parity --version``."""

__version__ = "0.1.0"
