"""pow.Scalar (a number to a tensor's power: Llama's rotary frequencies), pow.Tensor_Tensor, atan2 and sqrt over
operands of every layout under the Linux arm64 profiles, replayed as traced ops (harness.trace.impl_ops), against
torch 2.13.0's aarch64 wheel run under QEMU (``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_pow_atan2_sqrt_cases.py``, emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with
torch.set_num_threads in one process): the SHA-256 of torch's output bits over each op's cases, as recorded there.
Torch-free.

What the recordings pin: pow_tensor_tensor_kernel's vector lanes SLEEF's advsimd (N1, V2) and SVE (V1) powf, the x86
avx2 object's bits, its scalar tails aarch64 glibc's powf (csrc/vmath.h glibc_powf_a64: the x86 FMA build's
arithmetic with its tables scaled by 32, k rounded ties away, FADD's NaNs, +qNaN for a negative base to a
fractional power); atan2's basic loop (a transposed self beside a sliced other: every element the scalar lambda)
and tails aarch64 glibc's atan2f over its contracted atanf (glibc_atanf_k(1, .): the Horner steps and s1 + s2 fused,
x * (s1 + s2) rounded before the last subtractions); sqrt IEEE whatever the layout. The pairs below, run through
aarch64's libm.so.6 under qemu-aarch64, pin the two libm ports where the x86 ones give other bits.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl.profiles import get_profile
from harness.impl.unary import binary_kernel, pow_tensor_forward
from tests import arm64_pow_atan2_sqrt_cases as cases
from tests.arm64_sampling_cases import ARM64_PROFILES, recorded, recording_grid, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ("pow_scalar", "arm64-neon"): "12bf99cc6a5153b093d04b89ca1b99867ca0e71eaba871f5c65304371496b433",
    ("pow_tensor", "arm64-neon"): "dabe61bbc9dc8a2409604b8301a76e437fde673d9fb1f095ad707c0cc824ca90",
    ("atan2", "arm64-neon"): "328f56007ce3c4a5fd6037c2b9db228549fafbcd4feb23f2e6ebba2691aea737",
    ("sqrt", "arm64-neon"): "43cd776507c6ecd453ce77f99ef0ebda203dfb7f717e920e09e1259ec9934730",
    ("pow_scalar", "arm64-sve128"): "12bf99cc6a5153b093d04b89ca1b99867ca0e71eaba871f5c65304371496b433",
    ("pow_tensor", "arm64-sve128"): "dabe61bbc9dc8a2409604b8301a76e437fde673d9fb1f095ad707c0cc824ca90",
    ("atan2", "arm64-sve128"): "328f56007ce3c4a5fd6037c2b9db228549fafbcd4feb23f2e6ebba2691aea737",
    ("sqrt", "arm64-sve128"): "43cd776507c6ecd453ce77f99ef0ebda203dfb7f717e920e09e1259ec9934730",
    ("pow_scalar", "arm64-sve256"): "67ee6285b584ad140144ca98be123a9e47153408dd7aa49a5814b1d80e33aa13",
    ("pow_tensor", "arm64-sve256"): "e751b608f4e0046084011baa1086d6ef1fc14a8d50e41de2d26d8b6699036723",
    ("atan2", "arm64-sve256"): "4cd40ec63ed29156c39f1d6c3db8000853309026fe5e5d86f4f3ec63bcec3491",
    ("sqrt", "arm64-sve256"): "43cd776507c6ecd453ce77f99ef0ebda203dfb7f717e920e09e1259ec9934730",
}
CASES = recording_grid(cases.OPS)

# (x, y, aarch64 glibc 2.36's powf(x, y)) where the x86 port gives other bits: FADD's NaN (a signalling one
# first, else the first quiet one), the invalid operation's +qNaN
POWF = (
    (0x7FC00000, 0x7F800001, 0x7FC00001), (0x7FC00000, 0xFF800001, 0xFFC00001), (0x7FC00000, 0x7FBFFFFF, 0x7FFFFFFF),
    (0xFFC00000, 0x7F800001, 0x7FC00001), (0xC0600000, 0x3E99999A, 0x7FC00000), (0x800116C2, 0x3F000000, 0x7FC00000),
)  # fmt: skip
# (y, x, aarch64 glibc 2.36's atan2f(y, x)) where the x86 port (atanf unfused) gives other bits: one per atanf
# reduction (|y/x| below 0.4375, 0.6875, 1.1875, 2.4375 and beyond) and NaN pairs
ATAN2F = (
    (0x3FBC1C7C, 0x40A72587, 0x3E8C6CA4), (0x407E6AAC, 0xBFBDB77B, 0x3FF6BE23), (0x40880A02, 0x3FE73F7C, 0x3F95A04C),
    (0x40498F52, 0x408D2B6D, 0x3F1EB798), (0xC02583AB, 0xC08731D5, 0xC025E83C), (0x7F800001, 0x7FC00000, 0x7FC00001),
    (0x7F800001, 0xFFC00000, 0x7FC00001), (0xFF800001, 0x7FC00000, 0xFFC00001),
)  # fmt: skip


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    replay = replayed_case_file(cases, op, profile_name, threads)
    assert replay == recorded(DIGESTS, {}, (op, profile_name), threads)


def _pairs(rows: tuple[tuple[int, int, int], ...]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    a = np.array([r[0] for r in rows], np.uint32).view(np.float32)
    b = np.array([r[1] for r in rows], np.uint32).view(np.float32)
    return a, b, [r[2] for r in rows]


@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
def test_the_tails_are_aarch64_libm(profile_name: str) -> None:
    """Through the scalar path (row 1: the basic loop) the arm64 profiles give aarch64 libm's bits; x86's none."""
    for rows, fn in ((POWF, pow_tensor_forward), (ATAN2F, lambda a, b, p, r: binary_kernel("atan2", (a, b), p, r))):
        a, b, want = _pairs(rows)
        got = fn(a, b, get_profile(profile_name), 1).view(np.uint32).tolist()
        assert [hex(v) for v in got] == [hex(v) for v in want]
        x86 = fn(a, b, get_profile("x86-avx2"), 1).view(np.uint32).tolist()
        assert all(g != w for g, w in zip(x86, want, strict=True))
