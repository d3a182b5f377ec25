"""ATen's FFT on the arm64 profiles (pocketfft: ``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``), against torch 2.13.0's
bits recorded under emulation (tests/arm64_fft_cases.py: 282 random transforms on Neoverse N1, V1 and V2 at 1, 2
and 4 threads, the same bits on every core and thread count, and 80 float32 r2c and c2r of lengths with a factor
5 on N1, V2 and V1 at 1 thread, the same bits): complex64 and complex128, one to three dims, lengths of factors
2, 3 and 5 up to 1,024 (FNet's 16 x 64, Autoformer's 24 and 12, NeuCodec's 480), rows off the NEON lanes,
strided views, zeros of both signs and subnormals; c2c 131 answered of 162, r2c 77 of 100, c2r 66 of 100, the
rest refused (lengths with factors 7, 11, 13 or a large prime, real transforms of float64, c2r rows through the
scalar copy of a radb3 or radb5 over more than 9 values, NaNs and infinities). No torch here."""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.fft import fft
from harness.impl.pocketfft import angle
from harness.impl.profiles import profile_for_platform
from tests.arm64_fft_cases import cases

# kind -> (cases refused, the SHA-256 of torch's bits over the others in order): the same on N1, V1 and V2 at 1,
# 2 and 4 threads
RECORDED = {
    "c2c": (31, "19a5ba41c3c2c550142497f4bebe030f840a815a5aed88e059db6ea27464e7e7"),
    "r2c": (23, "eb1c2a9d9a0af37897ae72b0cb9ce9b3c3c4792a0332f8f4eea0740ac3245d4d"),
    "c2r": (34, "034baacf16d7d82374617184252e554c768b1692002e39c6d6fc6a111265566c"),
}
# pocketfft is compiled once for aarch64 (no per-core kernels) and ATen hands it no thread count: V1 and V2 at
# 1, 2 and 4 threads recorded N1's bits, so one profile replays them
PLATFORMS = ("linux-arm64-neoverse-n1-nvpl-t1",)


def replayed(platform: str) -> dict[str, tuple[int, str]]:
    """kind -> (cases refused, the digest of the impl's bits over the others) under ``platform``."""
    profile = profile_for_platform(platform)
    refused = dict.fromkeys(RECORDED, 0)
    hashes = {kind: hashlib.sha256() for kind in RECORDED}
    for c in cases():
        try:
            y = fft(c["kind"], c["x"], c["dim"], c["norm"], profile, forward=c["forward"], last_dim_size=c["n"])
        except ParityError:
            refused[c["kind"]] += 1
            continue
        hashes[c["kind"]].update(np.ascontiguousarray(y).tobytes())
    return {kind: (refused[kind], hashes[kind].hexdigest()) for kind in RECORDED}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_replay_matches_the_recording(platform: str) -> None:
    assert replayed(platform) == RECORDED


def test_other_lengths_and_nans_are_refused() -> None:
    profile = profile_for_platform("linux-arm64-neoverse-n1-nvpl-t1")
    x = np.ones((2, 7), np.complex64)
    with pytest.raises(ParityError, match="length 7"):
        fft("c2c", x, [1], 0, profile)
    y = np.ones((2, 8), np.complex64)
    y[0, 3] = np.nan
    with pytest.raises(ParityError, match="NaN"):
        fft("c2c", y, [1], 0, profile)


def test_the_twiddle_angle_is_the_quad_precision_quotient_rounded_to_double() -> None:
    # 0.25 * pi / n for n = 1..4,096 as binary128 arithmetic gives it (computed with GCC's __float128, as the
    # aarch64 wheel's long double), rounded to double: the SHA-256 of the 4,096 bit patterns as hex text
    bits = "".join(f"{struct.unpack('<Q', struct.pack('<d', angle(n)))[0]:016x}" for n in range(1, 4097))
    assert hashlib.sha256(bits.encode()).hexdigest() == (
        "5d3218c58e3620aed1ab39a7ef4a57449fe0a0000f5584c8313cf5f2252c0df1"
    )
