"""Generators: record bit-level golden tensors from PyTorch into HDF5 fixtures."""
