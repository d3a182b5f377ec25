"""aten.native_group_norm and native_group_norm_backward (float32, contiguous NCHW) under the Linux arm64
profiles (harness.impl.rows, csrc/rows.c), against torch 2.13.0's aarch64 wheel run under QEMU
(tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2; 1 and 2 threads set with
torch.set_num_threads in one process): the SHA-256 of every output's uint32 bits over the cases below,
as recorded there. Torch-free.

Three sets of cases, drawn here as the recording script drew them: 160 random shapes (seed 1), 80 more
(seed 2, held out while the model was fitted) and 14 targeted shapes in the four forms (seed 3: one
element, one channel per group, D = 1 to 64, HxW from 1 to 300, a constant group, signed-zero and
zero weights and biases). N 1 to 4, C 1 to 64 with G a divisor, HxW 1 to 300; weight and bias, the
weight alone, the bias alone, neither (torch returns grad_weight and grad_bias only with a weight).

What the recording pins: NEON (N1, V2) and SVE256 (V1) lanes in RowwiseMoments and in the backward's
reductions; the NEON objects' fused vector multiply-adds against SVE256's unfused intrinsics; aarch64's
scalar contraction (y, c2, c3, grad_x) in both; and V1's thread dependence, its weighted sums' scalar
tail rounded product by product in the copy inlined for one thread (or one group), fused in the OpenMP
copy. The x86 profiles and the other arm64 build must not give these bits.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import rows
from harness.impl.profiles import get_profile

FORMS = ("wb", "w", "b", "none")  # which of weight (w) and bias (b) the call passes
WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 300)
TARGETED = (  # (N, C, G, HxW)
    (1, 1, 1, 1), (2, 3, 3, 1), (1, 7, 1, 1), (4, 64, 1, 300), (3, 64, 64, 1), (2, 63, 9, 5), (1, 56, 8, 17),
    (2, 60, 4, 33), (4, 45, 3, 64), (1, 30, 2, 129), (2, 28, 4, 2), (3, 40, 5, 3), (1, 24, 1, 257), (2, 48, 2, 255),
)  # fmt: skip
SETS = ((1, 160), (2, 80), (3, 56))  # (seed, cases)
# (profile, threads): torch's bits on the core whose profile it is (V1 at 1 thread: seeds 2 and 3 from a
# run pinned with --threads 1, the same bits as set_num_threads(1) gave for seed 2; at 2: seed 3 pinned alike)
DIGESTS = {
    ("arm64-neon", 1): "f9d6cb65ff190800ebf2dadfe8c9a94683bee7c5a94e153908a42ec1ee4b7832",
    ("arm64-neon", 2): "f9d6cb65ff190800ebf2dadfe8c9a94683bee7c5a94e153908a42ec1ee4b7832",
    ("arm64-sve128", 1): "1e5f6a90fbfa90a8b8d682f025dcd6abf9975318f89335d5af8c52fdb398c105",
    ("arm64-sve128", 2): "bf2c4f371a9940d4acb0beaab487104adc6357e89611c75f62e05dfd6b82b9fc",
    ("arm64-sve256", 1): "a4632bf96641dcd2d1a449c4d9fac326987010c02114bb08b456b571e00d94a0",
    ("arm64-sve256", 2): "5eb7b425aa366e61c00a3734825f8a096f986bb7a182934fee0da4840408279d",
}


def cases(seed: int, count: int) -> list[tuple[int, int, int, int, str]]:
    """(N, C, G, HxW, form) of a set: random shapes (the first 50 cycle through WIDTHS for HxW), or the
    targeted shapes in the four forms (seed 3)."""
    if seed == 3:
        return [(n, c, g, hxw, form) for (n, c, g, hxw) in TARGETED for form in FORMS][:count]
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        n, c = int(rng.integers(1, 5)), int(rng.integers(1, 65))
        g = int(rng.choice([d for d in range(1, c + 1) if c % d == 0]))
        hxw = WIDTHS[k % len(WIDTHS)] if k < 2 * len(WIDTHS) else int(rng.integers(1, 301))
        out.append((n, c, g, hxw, FORMS[k % 4]))
    return out


def inputs(seed: int, k: int, n: int, c: int, hxw: int) -> tuple[np.ndarray, ...]:
    """x, weight, bias, grad_out and eps of case k; seed 3 makes the first channels of sample 0 constant
    (a whole group where they cover one), the last element -2.5, weight[0] 0 and bias[-1] -0."""
    rng = np.random.default_rng(seed * 100000 + k)
    scale, offset = float(rng.choice([1.0, 0.01, 30.0])), float(rng.choice([0.0, 3.0, -100.0]))
    x = (rng.standard_normal((n, c, hxw)) * scale + offset).astype(np.float32)
    w = rng.standard_normal(c).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    dy = rng.standard_normal((n, c, hxw)).astype(np.float32)
    eps = float(rng.choice([1e-5, 1e-6, 1e-3]))
    if seed == 3 and c * hxw > 1:
        x[0, : max(1, c // (1 + k % 4))] = np.float32(offset + 0.7)
        x[-1, -1] = np.float32(-2.5)
        w[0], b[-1] = np.float32(0.0), np.float32(-0.0)
    return x, w, b, dy, eps


def impl_digest(profile_name: str, threads: int) -> str:
    profile = get_profile(profile_name, threads)
    digest = hashlib.sha256()
    for seed, count in SETS:
        for k, (n, c, g, hxw, form) in enumerate(cases(seed, count)):
            x, w, b, dy, eps = inputs(seed, k, n, c, hxw)
            weight, bias = (w if "w" in form else None), (b if "b" in form else None)
            y, mean, rstd = rows.group_norm(x, weight, bias, g, eps, profile)
            gx, gw, gb = rows.group_norm_backward(dy, x, mean, rstd, weight, g, profile)
            for out in [y, mean, rstd, gx] + ([gw, gb] if weight is not None else []):
                digest.update(np.ascontiguousarray(out, np.float32).view(np.uint32).tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_group_norm_matches_the_recording(profile_name: str, threads: int) -> None:
    assert impl_digest(profile_name, threads) == DIGESTS[profile_name, threads]


def test_the_recordings_tell_the_builds_and_threads_apart() -> None:
    """The digests are not one value: NEON and SVE256 differ; the SVE objects' 1 and 2 threads differ (the
    weighted sums' tail), and so do N1 and V2 at either count (at 2 threads the cases of one group), so a
    test above cannot pass by a shared fallback."""
    assert DIGESTS["arm64-neon", 1] != DIGESTS["arm64-sve256", 1]
    for build in ("arm64-sve128", "arm64-sve256"):
        assert DIGESTS[build, 1] != DIGESTS[build, 2]
    for threads in (1, 2):
        assert DIGESTS["arm64-neon", threads] != DIGESTS["arm64-sve128", threads]


@pytest.mark.parametrize("profile_name", ["x86-avx2", "x86-baseline"])
def test_x86_arithmetic_does_not_give_the_arm64_bits(profile_name: str) -> None:
    got = impl_digest(profile_name, 1)
    assert got not in {DIGESTS["arm64-neon", 1], DIGESTS["arm64-sve256", 1]}


def test_other_torch_releases_are_refused_on_arm64() -> None:
    from harness.trace.impl_nn import REPLAYS

    x = np.ones((1, 2, 3), np.float32)
    args = {"N": 1, "C": 2, "HxW": 3, "group": 1, "eps": 1e-5}
    REPLAYS["native_group_norm"]({"input": x}, args, get_profile("arm64-sve256", 1))  # measured: no error
    with pytest.raises(ParityError, match=r"torch 2\.13\.0 only"):
        REPLAYS["native_group_norm"]({"input": x}, args, get_profile("arm64-sve256", 1, torch="2.14.1"))
