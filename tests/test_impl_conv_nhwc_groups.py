"""harness.impl.conv_nhwc's forward of groups of several channels (not depthwise) on channels-last memory
against torch's recorded bits (torch 2.13.0, a Zen 5): at AVX2 (ATEN_CPU_CAPABILITY=avx2,
ONEDNN_MAX_CPU_ISA=AVX2: oneDNN's brg_conv_fwd:avx2 and brgconv_1x1:avx2 group by group) and, in
``SSE41_CASES``, at the baseline (ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41: gemm:jit nspc over
the groups, jit:sse41 group by group).

Each case's x (N, C, H, W), w (OC, C / G, KH, KW) and b (OC,) are drawn from ``np.random.default_rng(seed)``
in that order, standard normal float32 (the specials case then sets NaN payloads of both signs, infinities,
-0 and a subnormal); torch ran ``aten.convolution`` on x made channels-last (``torch.empty(...,
memory_format=torch.channels_last).copy_``). The digest is SHA-256 of its output as uint32 (C order). No
host is needed: the impl must give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import conv_nhwc, conv_nhwc_backward
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# (N, C, H, W, OC, KH, KW, SH, SW, PH, PW, groups, seed, threads, specials, output SHA-256)
CASES = (
    # one brgemm call over every tap (exec_vpad)
    (2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 4, 51, 1, False,
     "6ca923f6a43baf9166c2c2dd90a24e42a867072237965bd200f7f2bc3dc355e6"),
    (3, 12, 7, 11, 24, 5, 5, 1, 1, 2, 2, 3, 52, 2, False,
     "78fd3f9e52c61a1b8ecb80a964ac6a6c421e4d4f20676ff6aa61e99fe27329e3"),
    # 7x7 at stride 2, 16 channels a group
    (2, 32, 10, 7, 64, 7, 7, 2, 2, 3, 3, 2, 53, 4, False,
     "04b1438af8eeda13fc8315411251e9e7ebeae2a284ba2570fb3b7913b5af3090"),
    # a 1x1: brgconv_1x1
    (2, 48, 6, 10, 24, 1, 1, 1, 1, 0, 0, 8, 54, 2, False,
     "c2b29e428224d6686c5ff65dfa4bfc913f7639a73d3128e058f464181df0139b"),
    # NaN of both signs, infinities, -0, a subnormal
    (1, 24, 8, 8, 32, 3, 3, 2, 2, 0, 0, 8, 55, 4, True,
     "ff82c7365b6bb3fcad3a58b01c7ec04e1a8d7bdc3a61c708a6d2af669a72e3e8"),
    # exec_base: the search's column blocks of 38, the partial taps in calls of their own
    (1, 48, 11, 34, 48, 3, 7, 1, 1, 3, 5, 3, 56, 4, False,
     "1a027e0d981196a986efe9fa8a3b2273b4665414beb4e32c8140032167857482"),
)  # fmt: skip


# The same at the baseline (SSE4.1)
SSE41_CASES = (
    # gemm:jit nspc: init_conf's outer threading over every group's images (one group's gave other bits)
    (3, 64, 4, 2, 16, 7, 7, 2, 2, 3, 3, 8, 61, 2, False,
     "37b05dfc7b5e0dea6bf21b282719d31263d3f1609eedce08a2d53936ddc1cbb5"),
    # gemm:jit nspc, 4 channels a group
    (2, 12, 9, 8, 24, 3, 3, 1, 1, 1, 1, 3, 62, 1, False,
     "0a41bfae4b9063b4d72baceaeb44bae7b1ed8351aef64a7c6a740b7e06a92cd4"),
    # jit:sse41 group by group (whole blocks of 8 channels; oneDNN reorders to blocked memory)
    (2, 32, 7, 7, 16, 3, 3, 1, 1, 1, 1, 2, 63, 4, False,
     "b7746da4d9060aace795d1be1768b4421ad8a10a2036db9d908e9d605e487715"),
    # gemm:jit nspc over NaN of both signs, infinities, -0, a subnormal
    (1, 24, 8, 8, 32, 3, 3, 2, 2, 0, 0, 8, 64, 4, True,
     "531c3f79d2e701a201389976bd35eb52e16a1e04114bc8df29305650a724df1a"),
)  # fmt: skip


def _build(case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, c, h, w_, oc, kh, kw, _sh, _sw, _ph, _pw, groups, seed, _threads, specials, _want = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((oc, c // groups, kh, kw), dtype=np.float32)
    b = rng.standard_normal(oc, dtype=np.float32)
    if specials:
        x[0, 1, 2, 3], x[0, 5, 4, 4] = np.float32(np.inf), np.float32(-0.0)
        x.reshape(-1).view(np.uint32)[17] = 0x7FC00001
        w.reshape(-1).view(np.uint32)[40] = 0xFFC00123
        w[3, 1, 1, 1], w[9, 0, 0, 2] = np.float32(-np.inf), np.float32(1e-42)
    return x, w, b


LEVEL_CASES = [("AVX2", c) for c in CASES] + [("DEFAULT", c) for c in SSE41_CASES]


@pytest.mark.parametrize(
    ("level", "case"), LEVEL_CASES, ids=[f"{v} {c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for v, c in LEVEL_CASES]
)
def test_recorded_bits(level: str, case) -> None:
    sh, sw, ph, pw, groups, threads, want = *case[7:12], case[13], case[15]
    x, w, b = _build(case)
    profile = profile_for_capability(level, threads, "x86_64")
    assert bits_sha256(conv_nhwc.conv2d(x, w, b, (sh, sw), (ph, pw), groups, profile)) == want


def test_refusals() -> None:
    """What stays refused raises ParityError: the backward, AVX-512, slow_conv2d per group, groups of more
    channels than measured at AVX2."""
    x, w, b = _build(CASES[0])
    avx2 = profile_for_capability("AVX2", 1, "x86_64")
    dy = np.ones((2, 16, 9, 9), np.float32)
    with pytest.raises(ParityError, match="not depthwise"):
        conv_nhwc_backward.conv2d_backward(dy, x, w, (1, 1), (1, 1), 4, True, avx2, (True,) * 3)
    with pytest.raises(ParityError, match="not depthwise"):
        conv_nhwc.conv2d(x, w, b, (1, 1), (1, 1), 4, profile_for_capability("AVX512", 1, "x86_64"))
    w1 = np.ones((16, 4, 1, 1), np.float32)
    with pytest.raises(ParityError, match="slow_conv2d per group"):
        conv_nhwc.conv2d(x, w1, b, (1, 1), (0, 0), 4, avx2)
    xw, ww = np.ones((1, 160, 4, 4), np.float32), np.ones((16, 80, 3, 3), np.float32)
    with pytest.raises(ParityError, match="over 64 channels a group"):
        conv_nhwc.conv2d(xw, ww, None, (1, 1), (1, 1), 2, avx2)
