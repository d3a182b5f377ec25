"""layer_norm without a weight, without a bias and without either (``nn.LayerNorm(bias=False)``,
``elementwise_affine=False``), forward and backward, under the Linux arm64 profiles (harness.impl.rows,
csrc/rows.c: ATen's scalar loop, contracted by every aarch64 build, SVE256's included; the backward's
branch without a weight), against torch 2.13.0's aarch64 wheel run under QEMU (tools/emulate_arm64.py
run, emulated Neoverse N1, V1 and V2 at 1 and 2 threads): the SHA-256 of every output's bits over the
cases below, as recorded there. With a weight and a bias too, as a control. Torch-free.

Shapes: rows 1 to 40 against row lengths around every vector width, 96, 1,000 and 2,053 (more than
one Welford chunk), three constant rows per case of 3 rows or more (x - mean is +0 there: a -0
product comes out +0), zero and signed-zero weights and biases. The inputs are drawn here as the
recording script drew them (a generator per case and form).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.impl import rows
from harness.impl.profiles import get_profile

FORMS = ("wb", "b", "w", "none")  # which of weight (w) and bias (b) the call passes
WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 129, 255, 257, 300)
# (profile, threads): torch's bits on the core whose profile it is (N1 and V2 alike: NEON-typed objects)
DIGESTS = {
    ("arm64-neon", 1): "9c35ff532d36e55709aeec1e7652f5d6077804761760e2c808fbea5264750770",
    ("arm64-neon", 2): "12a1cd1034d7895f5dfa8cd914e37e10b06c3fd4fe21b079e0d3ccadaa2ecfb7",
    ("arm64-sve128", 1): "9c35ff532d36e55709aeec1e7652f5d6077804761760e2c808fbea5264750770",
    ("arm64-sve128", 2): "12a1cd1034d7895f5dfa8cd914e37e10b06c3fd4fe21b079e0d3ccadaa2ecfb7",
    ("arm64-sve256", 1): "3475d50e66eb0b3aefc8e4b9f2172ac1e73c34d61ee7fb08d260a4d5e50e7013",
    ("arm64-sve256", 2): "c05f2f0f9da0b25b8305dc253a883c9f1722ecbd77e31ceebde80e4b49f9e337",
}


def _shapes() -> list[tuple[int, int]]:
    rng = np.random.default_rng(20260415)
    out = []
    for k in range(24):
        width = WIDTHS[k] if k < len(WIDTHS) else int(rng.integers(1, 301))
        out.append((int(rng.integers(1, 41)), width))
    return [*out, (37, 96), (5, 1000), (3, 2053)]


def _inputs(case: int, m: int, c: int, form: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(1000 * case + form)
    scale = float(rng.choice([1.0, 0.01, 30.0]))
    offset = float(rng.choice([0.0, 3.0, -100.0]))
    x = (rng.standard_normal((m, c)) * scale + offset).astype(np.float32)
    if m >= 3:
        x[0], x[m // 2], x[-1] = np.float32(0.7), np.float32(0.0), np.float32(-2.5)
    w = rng.standard_normal(c).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    if c >= 4:
        w[1], b[2], b[3] = 0.0, -0.0, 0.0
    dy = rng.standard_normal((m, c)).astype(np.float32)
    eps = float(rng.choice([1e-5, 1e-6, 1e-3]))
    return x, w, b, dy, eps


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_layer_norm_without_weight_or_bias_matches_the_recording(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    digest = hashlib.sha256()
    for f, form in enumerate(FORMS):
        for case, (m, c) in enumerate(_shapes()):
            x, w, b, dy, eps = _inputs(case, m, c, f)
            weight, bias = (w if "w" in form else None), (b if "b" in form else None)
            y, mean, rstd = rows.layer_norm(x, weight, bias, eps, profile)
            gx, gw, gb = rows.layer_norm_backward(dy, x, mean, rstd, weight, profile)
            kept = [y, mean, rstd, gx] + ([gw] if weight is not None else []) + ([gb] if bias is not None else [])
            for out in kept:
                digest.update(np.ascontiguousarray(out, np.float32).view(np.uint32).tobytes())
    assert digest.hexdigest() == DIGESTS[profile_name, threads]
