"""Inputs of MKL VML's vsErf (torch.erf on x86, MKL's generic path) for tests/test_impl_vml_erf.py, which holds the
digest of torch's outputs over them; imports only NumPy (torch where it records): ``python -m tests.vml_erf_cases``
on an x86 CPU that MKL runs its generic path on (any AMD CPU) prints it.

The inputs, float32 bit patterns (``cases()``), both signs:
- the 9 floats either side of every grid point k/256 of the kernel's table (k = 0..1006, where the table entry and
  s = k/256 change) and of each half-way point (k + 1/2)/256 (a3 + 2^15 rounds half to even there);
- the borders of its branches: 3.5/256 (s = 0 below), 2^-48 (the d^2 term), 3.9296875 (erf = 1 from there);
- every 31st float of [2^-14, 2^-11) (the small inputs, s = 0), every 211th of [2^-11, 4), every 8,191st bit pattern
  (NaN payloads quiet and signalling, infinities, subnormals, zeros), every 509th subnormal.
"""

from __future__ import annotations

import numpy as np

from tests.bit_digest import bits_sha256


def cases() -> np.ndarray:
    """The float32 inputs, in order."""
    k = np.arange(0, 1008, dtype=np.float64) / 256.0
    grid = np.concatenate([k, k + 1.0 / 512.0]).astype(np.float32).view(np.uint32)
    grid = grid[grid > 0]
    near = (grid[:, None].astype(np.int64) + np.arange(-4, 5)[None, :]).ravel().astype(np.uint32)
    borders = np.array([0x3C600000, 0x27800000, 0x407B8000], np.uint32)
    borders = (borders[:, None].astype(np.int64) + np.arange(-3, 4)[None, :]).ravel().astype(np.uint32)
    small = np.arange(0x38800000, 0x3A000000, 31, dtype=np.uint32)
    spread = np.arange(0x3A000000, 0x40800000, 211, dtype=np.uint32)
    sub = np.arange(1, 0x00800000, 509, dtype=np.uint32)
    pos = np.concatenate([near, borders, small, spread, sub])
    every = np.arange(0, 1 << 32, 8191, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([pos, pos | np.uint32(0x80000000), every]).view(np.float32)


if __name__ == "__main__":
    import torch

    torch.set_num_threads(1)
    x = cases()
    print("erf", len(x), bits_sha256(torch.erf(torch.from_numpy(x)).numpy()))
