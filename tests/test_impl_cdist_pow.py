"""harness.impl.nn.cdist and cdist_backward of a p other than 0, 1, 2 and inf against torch's recorded bits
(torch 2.13.0 on an AMD EPYC Zen 5 at the default and avx2 levels; avx512 runs the avx2 object): glibc's
powf of each term, glibc's double pow finishing each sum, and the backward's Vectorized pow (SLEEF's powf in the
avx2 object, glibc's powf per lane at default), p < 2 and p > 2.

Each case's inputs come from ``cdist_inputs``: x1 and x2 standard normal times 2, x2's first row a copy of x1's
(a zero distance and zero differences), a -0, a subnormal and an infinity planted, and a quiet NaN in x1's
last row; grad standard normal. The digests are SHA-256 of torch's ``_cdist_forward`` and ``_cdist_backward``
outputs as uint32 (C order); None where the impl refuses (it must raise ParityError there: torch's digest is kept
beside it). No host is needed.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import nn
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256


def cdist_inputs(s1: tuple[int, ...], s2: tuple[int, ...], seed: int) -> tuple[np.ndarray, ...]:
    """x1 (d, r1, m), x2 (d, r2, m) and grad (d, r1, r2), float32."""
    rng = np.random.default_rng(seed)
    x1 = (rng.standard_normal(s1) * 2).astype(np.float32)
    x2 = (rng.standard_normal(s2) * 2).astype(np.float32)
    x2[:, 0] = x1[:, 0]
    x1[:, 1, 0] = -0.0
    x2[:, -1, 1] = np.float32(1e-41)
    x1[0, 1, -1] = np.inf
    x1[-1, -1, 2] = np.array(0x7FC00011, np.uint32).view(np.float32)
    grad = rng.standard_normal((s1[0], s1[1], s2[1])).astype(np.float32)
    return x1, x2, grad


# (capability, threads, p, x1 shape, x2 shape, seed, (out, grad_x1))
# fmt: off
CASES = (
    ("AVX2", 1, 3.0, (2, 5, 19), (2, 7, 19), 0, (
        "8d0110fe7f8b4c08514f28be79d3a230b186131f6e7f8c49dbae341bce5a84ad",
        None)),  # backward refused: the NaN difference meets SLEEF's all-ones NaN power
    ("AVX2", 2, 1.5, (1, 9, 8), (1, 4, 8), 1, (
        "891bb49eeb17925aba5d33871833ca96944e54aff34f9f400442b4c2a332042a",
        "40adf6d7629fc9d86711b45507e59a5a5c96f9a594228e31be025fecdb7a1d6c")),
    ("AVX2", 4, 0.5, (3, 3, 17), (3, 6, 17), 2, (
        "8165155993040cae52ea04b57a5df72efe919fdf1f630798119816b3aeced290",
        "21e597f44dc5a1b359907ccdfb52527ddef1f77cfe70c1eb914c09d760c29677")),
    ("AVX2", 1, 4.5, (1, 25, 33), (1, 25, 33), 3, (
        "e44b4bdd41ad1540bfe34e641b0299af71744f3499e1dcf1d1c5d1ad53211904",
        None)),  # backward refused: the NaN difference meets SLEEF's all-ones NaN power
    ("DEFAULT", 1, 3.0, (2, 5, 19), (2, 7, 19), 0, (
        "8d0110fe7f8b4c08514f28be79d3a230b186131f6e7f8c49dbae341bce5a84ad",
        "3b2e77d2097e8b543dcba2ff0b9fa35ebb39086190d9215b51fc62e4c354ea57")),
    ("DEFAULT", 2, 1.5, (1, 9, 8), (1, 4, 8), 1, (
        "891bb49eeb17925aba5d33871833ca96944e54aff34f9f400442b4c2a332042a",
        "c343e91cb79da5e83c31dd92a4eaeb81654a99738923d0956eaac3682c516775")),
    ("DEFAULT", 4, 0.5, (3, 3, 17), (3, 6, 17), 2, (
        "8165155993040cae52ea04b57a5df72efe919fdf1f630798119816b3aeced290",
        "505f4d5b8d77456b8f23c9b37812dd9611edd833ca4d8b212e24aae49bafce9f")),
    ("DEFAULT", 1, 0.25, (1, 6, 5), (1, 11, 5), 4, (
        "ed91e671724835c94147362ce8e3825309c8c5fdc89f802fe881809904fcabe9",
        "85202eeb38991f08161c321fac525ba89c5a25e13b9397c6364f4eecafeda691")),
)
# fmt: on


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-t{c[1]}-p{c[2]}-{c[3][1]}x{c[4][1]}x{c[3][2]}")
def test_cdist_of_any_p_replays_recorded_bits(case: tuple) -> None:
    level, threads, p, s1, s2, seed, (out_sha, grad_sha) = case
    profile = profile_for_capability(level, threads, "x86_64")
    x1, x2, grad = cdist_inputs(s1, s2, seed)
    out = nn.cdist(x1, x2, p, profile)
    assert bits_sha256(out) == out_sha
    if grad_sha is None:  # p > 2 at avx2: the NaN difference times SLEEF's all-ones NaN power, which one comes out
        with pytest.raises(ParityError, match="two NaNs of other bits"):
            nn.cdist_backward(grad, x1, x2, p, out, profile)
        return
    assert bits_sha256(nn.cdist_backward(grad, x1, x2, p, out, profile)) == grad_sha


def test_cdist_refuses_what_it_cannot_prove() -> None:
    """A NaN sum meeting a NaN term of other bits and the backward's p whose float rounding crosses a branch are
    refused in one line."""
    profile = profile_for_capability("AVX2", 1, "x86_64")
    x1, x2, grad = cdist_inputs((1, 3, 4), (1, 2, 4), 5)
    x1[0, -1, 1] = np.array(0xFFC00022, np.uint32).view(np.float32)  # beside the row's NaN of other payload
    with pytest.raises(ParityError, match="NaNs of other bits"):
        nn.cdist(x1, x2, 3.0, profile)
    x1, x2, grad = cdist_inputs((1, 3, 4), (1, 2, 4), 5)
    with pytest.raises(ParityError, match="other branches"):
        nn.cdist_backward(grad, x1, x2, 2.0 - 1e-12, nn.cdist(x1, x2, 2.0, profile), profile)
