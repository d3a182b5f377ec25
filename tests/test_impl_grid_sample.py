"""harness.impl.nn.grid_sample (with its backward; bilinear and nearest, zero and border padding),
upsample_bicubic2d and upsample_bilinear2d_backward against torch's recorded bits (torch 2.13.0 on an
AMD EPYC, ATEN_CPU_CAPABILITY default or avx2, 1 thread; 2 threads gave the same bits). The AVX2
object's compiler FMAs are what separate the two levels (grid_sample's grad_input of bilinear cases B
and D, and nearest sampling of case C, are the same at both). Digests: SHA-256 of torch's outputs as
uint32."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import nn
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256


def _grid_inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = np.random.default_rng(seed)
    x = (r.standard_normal((2, 5, 9, 13)) * 3).astype(np.float32)
    g = r.uniform(-1.2, 1.2, (2, 7, 11, 2)).astype(np.float32)
    return x, g, r.standard_normal((2, 5, 7, 11)).astype(np.float32)


# (case, seed, align_corners, grid strides (None: contiguous; else the transposed grid's), capability,
#  output, grad_input, grad_grid digests)
GRID_CASES = (
    ("A", 21, False, None, "DEFAULT", "f9f5d5e0e0d4abded7e85d1bd72016b71c752bd3db2d6bdd18bbbabe3c97a0ec",
     "d625d1d6b2efb868a7a84aac5dc99a5077cd3090bd35a36df930d9026440cc8d",
     "f27fdcf9c28198c846bc27b3706b0a0ccbad1b8f53b6379c3feb019d97b81a44"),
    ("A", 21, False, None, "AVX2", "0d914d479475ae320804c894a154e712bdb27151a6da99422330af33371c6049",
     "ebf74b1b417139b70600b17da20ba888701e0ddedcfbcedc21a6436b61858d99",
     "3d2af3a4c645a810ff252bb1b627833a39b1b1f4b74cdcbf58f7d12198dd7d86"),
    ("B", 22, True, (154, 2, 14, 1), "DEFAULT", "6559379e254de1aaa99d1cf21b07aea71883b352292d4645ac76072358888874",
     "b5274383d35ae9a11ab851955f993253e3927a0d1b803df1e5b2768a63e54d14",
     "7af96d98a7c6c9fe801a983765bc5da76e9a5902420ca29418492ebf6587458d"),
    ("B", 22, True, (154, 2, 14, 1), "AVX2", "2b2aee4e93b5589a07538f39b648724665059b9799a8430cefd20f633a8ec02e",
     "b5274383d35ae9a11ab851955f993253e3927a0d1b803df1e5b2768a63e54d14",
     "a2cc10262a0ccb6dcf8d1735e6fd38717969fad261c729feffa854035f6885fa"),
)  # fmt: skip


@pytest.mark.parametrize("case", GRID_CASES, ids=[f"{c[0]}-{c[4]}" for c in GRID_CASES])
def test_grid_sample_recorded_bits(case: tuple) -> None:
    _, seed, align, stride, cap, out, grad_input, grad_grid = case
    x, g, go = _grid_inputs(seed)
    profile = profile_for_capability(cap, 1, "x86_64")
    assert bits_sha256(nn.grid_sample(x, g, align, profile)) == out
    gx, gg = nn.grid_sample_backward(go, x, g, align, True, profile, stride)
    assert (bits_sha256(gx), bits_sha256(gg)) == (grad_input, grad_grid)


# nearest (C, grid on quarter pixels: halfway points round to even) and border padding (C, D): (case, seed,
# align_corners, grid strides, mode, padding (ATen's numbering), capability, three digests as above)
MODE_CASES = (
    ("C", 23, False, None, 1, 1, "DEFAULT", "406c256c0881a1def8261d00bc0406305094500f04dc19cc106d8c4e83d5da23",
     "086418149d2f5abc61d81f66539cf7d590daefb3c22aa97c4d3d70fe22ca37c4",
     "0abe90866c4fbc89ae5b4512dde9df1c441a2f5923ee3e7932cf34532a6bf773"),
    ("C", 23, False, None, 1, 1, "AVX2", "406c256c0881a1def8261d00bc0406305094500f04dc19cc106d8c4e83d5da23",
     "086418149d2f5abc61d81f66539cf7d590daefb3c22aa97c4d3d70fe22ca37c4",
     "0abe90866c4fbc89ae5b4512dde9df1c441a2f5923ee3e7932cf34532a6bf773"),
    ("D", 24, True, (154, 2, 14, 1), 0, 1, "DEFAULT",
     "95f86f4f29e93718e276fcf8f5f438980850a117c094bf973c5e33850dace3db",
     "52119baacdc31009ddcc10b5f567a01abac65c3d4c130bdac7690d75afee1afb",
     "c2f91da49d0dc8e61d8aa174ef7082cebada6684b133ca46faaa80605e37fff3"),
    ("D", 24, True, (154, 2, 14, 1), 0, 1, "AVX2",
     "18fda37b9efabaa9a4e410731aeff43a7f7d9e84faef607ab0f07095d888b92f",
     "52119baacdc31009ddcc10b5f567a01abac65c3d4c130bdac7690d75afee1afb",
     "caa2edd6e75808f481f01fd4937a9ca070c925256857186c834a68b84f7cde37"),
)  # fmt: skip


@pytest.mark.parametrize("case", MODE_CASES, ids=[f"{c[0]}-{c[6]}" for c in MODE_CASES])
def test_grid_sample_nearest_and_border_recorded_bits(case: tuple) -> None:
    name, seed, align, stride, mode, padding, cap, out, grad_input, grad_grid = case
    x, g, go = _grid_inputs(seed)
    if name == "C":
        g = (np.round(g * 4) / 4).astype(np.float32)
    profile = profile_for_capability(cap, 1, "x86_64")
    assert bits_sha256(nn.grid_sample(x, g, align, profile, mode, padding)) == out
    gx, gg = nn.grid_sample_backward(go, x, g, align, True, profile, stride, mode, padding)
    assert (bits_sha256(gx), bits_sha256(gg)) == (grad_input, grad_grid)


# (seed, output size, align_corners, capability, output digest)
BICUBIC_CASES = (
    (31, (11, 9), False, "DEFAULT", "9e47bb425c6e198635edd8f98c3cd1cbb1f243c75255d9689238f70115e7af97"),
    (31, (11, 9), False, "AVX2", "d56784ce6ed3db92d00ff3fb24a87f5a735f1596693a7b3bd0f996c1cfd2d90d"),
    (32, (4, 13), True, "DEFAULT", "69f5bb4f712d204eee83b4862308eecc01b03e68880e2ba4f8394328e58b473f"),
    (32, (4, 13), True, "AVX2", "4089627389498bfdeab7fd8598d775083f342834d8eb7ebe5159966b68ef5c23"),
)


@pytest.mark.parametrize("case", BICUBIC_CASES, ids=[f"{c[0]}-{c[3]}" for c in BICUBIC_CASES])
def test_upsample_bicubic2d_recorded_bits(case: tuple) -> None:
    seed, size, align, cap, out = case
    x = (np.random.default_rng(seed).standard_normal((2, 6, 7, 5)) * 3).astype(np.float32)
    assert bits_sha256(nn.upsample_bicubic2d(x, size, align, profile_for_capability(cap, 1, "x86_64"))) == out


def test_grid_sample_runs_follow_the_grid_strides() -> None:
    """ATen walks a contiguous grid slice (or the x and y planes of an (N, 2, H, W) tensor) as one run
    of points, any other as a run per row."""
    assert nn.grid_sample_row((2, 7, 11, 2), None) == 77
    assert nn.grid_sample_row((2, 7, 11, 2), (154, 22, 2, 1)) == 77
    assert nn.grid_sample_row((2, 7, 11, 2), (154, 11, 1, 77)) == 77  # planes of (N, 2, H, W)
    assert nn.grid_sample_row((2, 7, 11, 2), (154, 2, 14, 1)) == 11  # transposed
    assert nn.grid_sample_row((2, 7, 11, 2), (196, 14, 1, 98)) == 11  # planes of padded rows


def test_reflection_and_non_finite_operands_are_refused() -> None:
    from harness.core.errors import ParityError

    x, g, _ = _grid_inputs(21)
    for cap, arch in (("AVX2", "x86_64"), ("DEFAULT", "aarch64")):
        with pytest.raises(ParityError, match="not interpolation_mode 0, padding_mode 2"):
            nn.grid_sample(x, g, False, profile_for_capability(cap, 1, arch), 0, 2)
    g[0, 0, 0, 0] = np.nan
    with pytest.raises(ParityError, match="NaN or infinity"):
        nn.grid_sample(x, g, False, profile_for_capability("AVX2", 1, "x86_64"))


# upsample_bilinear2d's input gradient of a (2, 6, 7, 5) input: (seed of the (2, 6, *size) gradient, size,
#  align_corners, capability, digest of torch's grad_input at 1 thread)
BILINEAR_BACKWARD_CASES = (
    (31, (16, 11), False, "DEFAULT", "7085093267f115c2a037c97a33e32c740c49623202cea59368bd702aa3393b1c"),
    (31, (16, 11), False, "AVX2", "ab2464e2149e2e9185cf31f575a80fb71987155eb8a570b593240fba76f01192"),
    (32, (4, 13), True, "DEFAULT", "ad426137a932299b5692acb7da978b40ca7ee5d94db2521a818f62012f109d00"),
    (32, (4, 13), True, "AVX2", "af8ee209db7bcd77f9c12b22bb3eccb4e60f9933e14fb0cfa5536b21f7705cf4"),
)


@pytest.mark.parametrize("case", BILINEAR_BACKWARD_CASES, ids=[f"{c[0]}-{c[3]}" for c in BILINEAR_BACKWARD_CASES])
def test_upsample_bilinear2d_backward_recorded_bits(case: tuple) -> None:
    seed, size, align, cap, digest = case
    go = (np.random.default_rng(seed).standard_normal((2, 6, *size)) * 3).astype(np.float32)
    got = nn.upsample_bilinear2d_backward(go, (2, 6, 7, 5), align, profile_for_capability(cap, 1, "x86_64"))
    assert bits_sha256(got) == digest
