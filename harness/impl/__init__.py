"""Reference implementation of PyTorch's CPU arithmetic in NumPy and C.

This package never imports torch. Its kernels arrive with the reference-implementation
issues; until then it holds no code.
"""
