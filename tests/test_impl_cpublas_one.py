"""ATen's ``cpublas::gemm`` of one row or one column on MKL's generic path (torch 2.13.0 on an AMD EPYC,
avx2, 1 thread), against torch's recorded bits: MKL picks its gemv itself (m = 1: a gemv on its B, 'T'
the dot form where B is 'N'), and the impl now runs the problem as sgemm_ was called (transpose flags
from the call, leading dimensions fixed up as ATen does), not as torch.mm's transposed call. A 1x1
convolution of one pixel to one channel (ATen's slow_conv2d: gemm('N', 'N', 1, 1, K, lda = 1)) had 1 of
2 and 3 of 4 elements with other bits. Digests: SHA-256 of torch's output as uint32.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import conv_grouped, linalg
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256


@pytest.mark.parametrize(
    ("n", "c", "seed", "want"),
    [
        (2, 29, 0, "2382e00869ba07ffe132d05edde76bb282a31905ffc1f268aa1da3bc7a92b8fb"),
        (4, 64, 3, "c2421db0b35d577e654f46e8c24d711efb622a4c61d7fa479d81069ecf8eb373"),
    ],
)
def test_one_pixel_to_one_channel(n: int, c: int, seed: int, want: str) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, 1, 1)).astype(np.float32)
    w = rng.standard_normal((1, c, 1, 1)).astype(np.float32)
    b = rng.standard_normal(1).astype(np.float32)
    y = conv_grouped.conv2d(x, w, b, (1, 1), (0, 0), 1, profile_for_capability("AVX2", 1, "x86_64"))
    assert bits_sha256(y) == want


@pytest.mark.parametrize(
    ("k", "seed", "want"),
    [
        (458, 5, "1f0f1e443b9ea5f1714636d5b34cd7bea5669469c2832c2d740b7e918bd6ea44"),
        (37, 6, "186c61dfdbaa2d0537314bf0e83832110d45c747305540320fcea3f06314565e"),
    ],
)
def test_gemm_nn_one_by_one(k: int, seed: int, want: str) -> None:
    """sgemm_('N', 'N', 1, 1, K, lda = 1, ldb = K), beta 1 (torch.addmm of a (1, K) and a (K, 1) view)."""
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(k).astype(np.float32), rng.standard_normal(k).astype(np.float32)
    c = rng.standard_normal((1, 1)).astype(np.float32).reshape(-1).copy()
    linalg.cpublas_gemm("n", "n", 1, 1, k, a, 1, b, k, 1.0, c, 1, profile_for_capability("AVX2", 1, "x86_64"))
    assert bits_sha256(c) == want
