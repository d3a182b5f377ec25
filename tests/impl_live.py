"""Shared by the impl's live tests: torch, run now in this process, against the impl.

The profile is the running torch's own: its ATen capability and thread count.
"""

from __future__ import annotations

import numpy as np
import torch

from harness.impl.profiles import KernelProfile, get_profile
from harness.ulp import compare_tensors, describe

_CAPABILITY_PROFILE = {"AVX512": "x86-avx512", "AVX2": "x86-avx2", "DEFAULT": "x86-baseline"}


def live_profile() -> KernelProfile:
    """The kernel profile of the torch running in this process."""
    capability = torch.backends.cpu.get_cpu_capability()
    return get_profile(_CAPABILITY_PROFILE[capability], torch.get_num_threads())


def assert_bits_equal(name: str, expected: np.ndarray, actual: np.ndarray) -> None:
    """Equal uint32 patterns, element by element; the message names the first mismatch."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (
        f"{name}: impl gave {actual.dtype}{list(actual.shape)}, torch {expected.dtype}{list(expected.shape)}"
    )
    c = compare_tensors(name, expected, actual)
    assert c.bit_identical, describe(c)
