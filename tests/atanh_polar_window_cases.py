"""Inputs of torch.atanh, torch.polar, torch.hann_window and torch.kaiser_window for
tests/test_impl_atanh_polar_windows.py, which holds the digests of torch's outputs over them; imports only NumPy
(torch where it records): ``ATEN_CPU_CAPABILITY=<level> python -m tests.atanh_polar_window_cases`` on an x86 CPU
whose MKL runs its generic path (any AMD CPU) prints them for that level.

- ``atanh_cases()``: seeded random bit patterns (NaN payloads of both signs, quiet and signalling, infinities,
  subnormals among them), random floats of (-1.05, 1.05), every 8th float of [0.49, 0.51] (glibc's two branches
  meet at 0.5), +-1, +-0 and the 2^-28 threshold; 2^19 + 70,001 elements, past the grain (32768) and off every
  vector width, so that at 4 threads each chunk ends in a scalar tail of its own;
- ``polar_cases()``: (abs, angle) pairs, random with NaNs, infinities, signed zeros and subnormals in both;
- ``HANN`` / ``KAISER``: (window_length, periodic[, beta]) of the windows, their outputs concatenated.
"""

from __future__ import annotations

import numpy as np

from tests.bit_digest import bits_sha256

HANN = ((0, True), (1, False), (2, True), (16, True), (400, True), (401, False), (2049, False), (4096, True))
KAISER = (
    (2, True, 12.0),
    (16, True, 12.0),
    (9, False, 3.5),
    (128, True, 0.5),
    (400, False, 8.0),
    (1001, True, 30.0),
    (4097, False, 14.0),
    (77, True, 0.0),
)


def _nan_payloads(rng: np.random.Generator, n: int) -> np.ndarray:
    bits = rng.integers(1, 1 << 22, n).astype(np.uint32) | np.uint32(0x7F800000)
    bits |= rng.integers(0, 2, n).astype(np.uint32) << 31
    bits |= rng.integers(0, 2, n).astype(np.uint32) << 22
    return bits.view(np.float32)


def atanh_cases() -> np.ndarray:
    rng = np.random.default_rng(20261207)
    patterns = rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32)
    uniform = rng.uniform(-1.05, 1.05, (1 << 18) + 70001 - 8192 - 64).astype(np.float32)
    half = np.arange(0x3EFAE148, 0x3F028F5C, 8, dtype=np.uint32)[:8192].view(np.float32)
    special = np.array(
        [1.0, -1.0, 0.0, -0.0, np.inf, -np.inf, 2.0**-28, -(2.0**-28), 2.0**-29, 0.5, -0.5, 1e-41], np.float32
    )
    edge = np.concatenate([special, _nan_payloads(rng, 52)])
    x = np.concatenate([patterns, uniform, half, edge]).astype(np.float32)
    return x[rng.permutation(x.size)]


def polar_cases() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261208)
    n = 40000
    abs_ = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)).astype(np.float32)
    angle = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 5, n)).astype(np.float32)
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-41, -1e-41, 3e38], np.float32)
    for a in (abs_, angle):
        idx = rng.integers(0, n, 4000)
        a[idx[:2000]] = rng.choice(special, 2000)
        a[idx[2000:]] = _nan_payloads(rng, 2000)
    return abs_, angle


if __name__ == "__main__":
    import torch

    level = torch.backends.cpu.get_cpu_capability()
    x = atanh_cases()
    strided = torch.from_numpy(np.repeat(x, 2))[::2]
    for threads in (1, 4):
        torch.set_num_threads(threads)
        print(level, threads, "atanh", bits_sha256(torch.atanh(torch.from_numpy(x)).numpy()))
        print(level, threads, "atanh strided", bits_sha256(torch.atanh(strided).numpy()))
    torch.set_num_threads(1)
    abs_, angle = polar_cases()
    print(level, "polar", bits_sha256(torch.view_as_real(torch.polar(torch.from_numpy(abs_), torch.from_numpy(angle)))))
    print(level, "hann", bits_sha256(np.concatenate([torch.hann_window(n, periodic=p).numpy() for n, p in HANN])))
    kaiser = [torch.kaiser_window(n, p, b).numpy() for n, p, b in KAISER]
    print(level, "kaiser", bits_sha256(np.concatenate(kaiser)))
