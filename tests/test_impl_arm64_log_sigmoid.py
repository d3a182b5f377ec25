"""log_sigmoid forward and backward under the Linux arm64 profiles (harness.impl.unary, csrc/unary.c), against
torch 2.13.0's aarch64 wheel run under QEMU (tools/emulate_arm64.py run, emulated Neoverse N1, V1 and V2; 1 and
2 threads set with torch.set_num_threads in one process): the SHA-256 of every output's uint32 bits over the
cases below, as recorded there. Torch-free.

Two sets of cases, drawn here as the recording scripts drew them. ``forward``: lengths off the 4- and 8-lane
vectors and past the 32,768-element grain, values over every magnitude, seven NaN payloads (both signs,
signalling ones), +-0, +-inf; torch's ``log_sigmoid_forward`` gives out and buffer, and
``log_sigmoid_backward`` of a gradient with NaNs (some where x is NaN) and that buffer gives grad_x.
``nan_buffer``: 300 short lengths (1 to 39: each element a vector body's or a scalar tail's) with
half of x, buffer and grad NaN independently and a few infinite buffers; its grad_x.

What the recording pins: SLEEF's advsimd and SVE expf and log1pf give the x86 FMA build's bits; out of a NaN
x is x quieted; where a NaN buffer meets a NaN grad, N1's vector body keeps grad's NaN and its tail the
buffer's with the sign flipped, V1's body the buffer's (a signalling grad's first), V2's tail grad's in its
first four elements and the flipped buffer's after them.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import get_profile

NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800001, 0x7FBFFFFF], np.uint32)
SPECIALS = np.concatenate(
    [
        NANS.view(np.float32),
        np.float32([0.0, -0.0, -1.0, np.inf, -np.inf, 1e-30, -1e-30, 88.0, -88.0, 104.0, -104.0, 1e-8, -1e-8]),
    ]
)
CASES = ((19, 1), (4099, 2), (70001, 3), (33, 4), (100003, 5))  # (length, seed)


def forward_inputs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """x (uniform -30 to 30 or every magnitude) and a gradient, with NaNs at some shared places."""
    r = np.random.default_rng(seed)
    if seed % 2:
        x = r.uniform(-30, 30, n).astype(np.float32)
    else:
        x = (np.exp(r.uniform(-40, 5, n)) * r.choice([-1.0, 1.0], n)).astype(np.float32)
    g = r.standard_normal(n).astype(np.float32)
    f = min(n, SPECIALS.size)
    x[:f] = SPECIALS[:f]
    x[r.integers(0, n, 9)] = r.choice(SPECIALS, 9)
    g[r.integers(0, n, n // 50 + 3)] = r.choice(NANS.view(np.float32), n // 50 + 3)
    pick = r.integers(0, n, n // 50 + 3)  # a NaN grad meets a NaN x
    x[pick] = r.choice(NANS.view(np.float32), pick.size)
    g[pick] = r.choice(NANS.view(np.float32), pick.size)
    return x, g


def nan_buffer_inputs(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, buffer and grad of the k-th short case."""
    r = np.random.default_rng(1000 + k)
    n = int(r.integers(1, 40))
    x = r.uniform(-3, 3, n).astype(np.float32)
    b = r.uniform(0, 1, n).astype(np.float32)
    g = r.standard_normal(n).astype(np.float32)
    for a in (x, b, g):
        m = r.random(n) < 0.5
        a[m] = NANS.view(np.float32)[r.integers(0, 7, int(m.sum()))]
    b[r.random(n) < 0.05] = np.inf
    return x, b, g


def impl_digest(profile_name: str, threads: int, cases: str) -> str:
    profile = get_profile(profile_name, threads)
    digest = hashlib.sha256()
    if cases == "forward":
        outs = []
        for n, seed in CASES:
            x, g = forward_inputs(n, seed)
            out, buffer = unary.log_sigmoid_forward(x, profile)
            outs += [out, buffer, unary.log_sigmoid_backward(g, x, buffer, profile)]
    else:
        outs = [unary.log_sigmoid_backward(g, x, b, profile) for x, b, g in map(nan_buffer_inputs, range(300))]
    for out in outs:
        digest.update(np.ascontiguousarray(out, np.float32).view(np.uint32).tobytes())
    return digest.hexdigest()


# (profile, threads, cases): torch's bits on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1, "forward"): "81c53ccdf7b325d5cb3bf4059b9ac1e6350ad69ee17bc6995cd15ffea7ac3b8c",
    ("arm64-neon", 2, "forward"): "82457305ec11c367950f35b77e31d5140aa1617896e9624fd9095859a6d107f3",
    ("arm64-neon", 1, "nan_buffer"): "47e49fee1cd1c0dd523a1e3839f353ae72d3b6ab55a69e2edc7f01389f60d6ad",
    ("arm64-neon", 2, "nan_buffer"): "47e49fee1cd1c0dd523a1e3839f353ae72d3b6ab55a69e2edc7f01389f60d6ad",
    ("arm64-sve256", 1, "forward"): "a47c711d21a424c486e22aba4cf6261f413cc05f5eded212041d7b06baa04436",
    ("arm64-sve256", 1, "nan_buffer"): "8b854162c9ebc04ea01aa03d564ace0d98b6c94443c878a6bc48050ea1583ab9",
    ("arm64-sve256", 2, "forward"): "a47c711d21a424c486e22aba4cf6261f413cc05f5eded212041d7b06baa04436",
    ("arm64-sve256", 2, "nan_buffer"): "8b854162c9ebc04ea01aa03d564ace0d98b6c94443c878a6bc48050ea1583ab9",
    ("arm64-sve128", 1, "forward"): "a476a3ad24f21167d2d60c81589e8a7d9588971d60feab77d0b8c11b4d3a50a7",
    ("arm64-sve128", 1, "nan_buffer"): "13bd742ca363365cb3e65a87e7e231deabd9312c2abc643982079c3bfd0094cc",
    ("arm64-sve128", 2, "forward"): "a476a3ad24f21167d2d60c81589e8a7d9588971d60feab77d0b8c11b4d3a50a7",
    ("arm64-sve128", 2, "nan_buffer"): "13bd742ca363365cb3e65a87e7e231deabd9312c2abc643982079c3bfd0094cc",
}


@pytest.mark.parametrize(("profile_name", "threads", "cases"), sorted(DIGESTS))
def test_log_sigmoid_matches_the_recording(profile_name: str, threads: int, cases: str) -> None:
    assert impl_digest(profile_name, threads, cases) == DIGESTS[profile_name, threads, cases]


def test_the_recordings_tell_the_cores_apart() -> None:
    """The NaN-meets-NaN places differ between the three objects, so no test above passes by a shared rule."""
    for threads in (1, 2):
        assert len({DIGESTS[p, threads, "forward"] for p in ("arm64-neon", "arm64-sve128", "arm64-sve256")}) == 3
        assert len({DIGESTS[p, threads, "nan_buffer"] for p in ("arm64-neon", "arm64-sve128", "arm64-sve256")}) == 3


@pytest.mark.parametrize("profile_name", ["x86-avx2", "x86-baseline"])
def test_x86_arithmetic_does_not_give_the_arm64_bits(profile_name: str) -> None:
    assert impl_digest(profile_name, 1, "forward") not in {DIGESTS[p, 1, "forward"] for p, _, _ in DIGESTS}


@pytest.mark.parametrize(
    ("profile_name", "row", "buffer"),
    [("arm64-neon", 1, np.nan), ("arm64-sve256", 1, np.inf), ("arm64-sve128", 3, np.nan)],
)
def test_unmeasured_nan_places_are_refused(profile_name: str, row: int | None, buffer: float) -> None:
    x = np.float32([1.0, -2.0, 3.0, 0.5, -1.0, 2.0])
    b = np.full(6, 0.25, np.float32)
    b[2] = buffer
    with pytest.raises(ParityError, match="log_sigmoid_backward on aarch64"):
        unary.log_sigmoid_backward(np.ones(6, np.float32), x, b, get_profile(profile_name, 1), row)
