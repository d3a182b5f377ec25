"""The impl's torch.nn layers (sigmoid, batch_norm, adaptive_avg_pool2d; conv2d where ATen keeps it) under
the Linux arm64 profiles, against the committed arm64 random-case recordings (torch 2.13.0 aarch64
wheel, emulated Neoverse N1, 1 thread): every output equal as uint32 bit patterns, case by case.
Torch-free.

The x86 profiles must not reproduce the same recordings where the aarch64 kernels compute otherwise
(4 NEON lanes and their sum tree, contraction of the vector code and of Normalization.cpp's running
statistics), so these tests fail if the arm64 branches fall back to x86 arithmetic.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.ops import OpFixture, read_op_fixture
from harness.impl import conv
from harness.impl.model_ops import RUNNERS
from harness.impl.profiles import get_profile, profile_for_fixture
from harness.store.paths import DEFAULT_FIXTURES

OPS = ["sigmoid", "batch_norm", "adaptive_avg_pool2d"]
N1_T1 = DEFAULT_FIXTURES / "torch-2.13.0" / "linux-arm64-neoverse-n1-nvpl-t1.random-3.h5"


@cache
def _fixture(path: Path) -> OpFixture:
    return read_op_fixture(path, ops=OPS)


def _keys() -> list[str]:
    return sorted(read_op_fixture(N1_T1, load=False, ops=OPS).cases)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def test_the_recording_holds_every_op() -> None:
    fixture = _fixture(N1_T1)
    assert str(fixture.attrs["platform_id"]) == "linux-arm64-neoverse-n1-nvpl-t1"
    assert profile_for_fixture(fixture.attrs).name == "arm64-neon"
    assert {rec.op for rec in fixture.cases.values()} == set(OPS)


@pytest.mark.parametrize("key", _keys())
def test_arm64_neon_reproduces_the_recording(key: str) -> None:
    fixture = _fixture(N1_T1)
    rec = fixture.cases[key]
    got = RUNNERS[rec.op](rec.params, rec.inputs, profile_for_fixture(fixture.attrs))
    assert sorted(got) == sorted(rec.outputs), key
    for name, want in rec.outputs.items():
        out = np.asarray(got[name]).reshape(want.shape)
        assert np.array_equal(_bits(want), _bits(out)), f"{key} {name}: {int((_bits(want) != _bits(out)).sum())} differ"


@pytest.mark.parametrize(
    ("key", "outputs"),
    [
        # the running mean: Normalization.cpp contracted on aarch64 (fma(m, mean, (1 - m)*rm)), not on x86
        ("batch_norm/r3-batch_norm-002", ("running_mean", "grad_x", "grad_weight", "grad_bias")),
        # the 4-lane sum tree of the backward's reductions (NCHW), fused in every vector
        ("batch_norm/r3-batch_norm-008", ("grad_weight", "grad_bias", "grad_x")),
        # channels-last rows: the partial last vector of 4 channels fused, as its full vectors
        ("batch_norm/r3-batch_norm-005", ("running_mean", "grad_x")),
    ],
)
def test_the_x86_profiles_do_not(key: str, outputs: tuple[str, ...]) -> None:
    fixture = _fixture(N1_T1)
    rec = fixture.cases[key]
    for name in ("x86-avx2", "x86-baseline"):
        got = RUNNERS[rec.op](rec.params, rec.inputs, get_profile(name))
        for out in outputs:
            want = rec.outputs[out]
            assert not np.array_equal(_bits(want), _bits(np.asarray(got[out]).reshape(want.shape))), (name, key, out)


def test_the_sve_profiles_share_the_neon_objects_or_differ_by_their_own() -> None:
    """SVE128 (V2) runs the same 4-lane NEON-typed objects as N1: the same bits; SVE256 (V1) has 8 lanes
    and unfused vector code, so the backward's sums (NCHW here) come out otherwise."""
    fixture = _fixture(N1_T1)
    rec = fixture.cases["batch_norm/r3-batch_norm-008"]
    neon = RUNNERS["batch_norm"](rec.params, rec.inputs, get_profile("arm64-neon"))
    v2 = RUNNERS["batch_norm"](rec.params, rec.inputs, get_profile("arm64-sve128"))
    v1 = RUNNERS["batch_norm"](rec.params, rec.inputs, get_profile("arm64-sve256"))
    for name in neon:
        assert np.array_equal(_bits(neon[name]), _bits(v2[name])), name
    assert not np.array_equal(_bits(neon["grad_weight"]), _bits(v1["grad_weight"]))


def test_slow_conv2d_on_arm64() -> None:
    """A small single image: ATen's slow_conv2d (im2col, NVPL gemms) on aarch64 as on x86, bit for bit."""
    fixture = read_op_fixture(N1_T1, ops=["conv2d"])
    profile = profile_for_fixture(fixture.attrs)
    rec = fixture.cases["conv2d/r3-conv-000"]
    got = RUNNERS["conv2d"](rec.params, rec.inputs, profile)
    assert sorted(got) == sorted(rec.outputs) == ["grad_bias", "grad_weight", "grad_x", "out"]
    for name, want in rec.outputs.items():
        assert np.array_equal(_bits(want), _bits(np.asarray(got[name]).reshape(want.shape))), name


def test_onednn_conv2d_on_n1() -> None:
    """A convolution ATen hands to oneDNN on N1 (ACL's ffhybrid forward, oneDNN's gemm:ref backward):
    every output bit for bit under the N1 profile; x86's oneDNN kernels (jit:avx2, and gemm:jit at
    SSE4.1) give other bits; V1, V2 and two threads are refused."""
    fixture = read_op_fixture(N1_T1, ops=["conv2d"])
    profile = profile_for_fixture(fixture.attrs)
    rec = fixture.cases["conv2d/r3-conv-010"]
    got = RUNNERS["conv2d"](rec.params, rec.inputs, profile)
    assert sorted(got) == sorted(rec.outputs) == ["grad_weight", "grad_x", "out"]
    for name, want in rec.outputs.items():
        assert np.array_equal(_bits(want), _bits(np.asarray(got[name]).reshape(want.shape))), name
    for x86 in ("x86-avx2", "x86-baseline"):
        other = RUNNERS["conv2d"](rec.params, rec.inputs, get_profile(x86))
        assert any(not np.array_equal(_bits(rec.outputs[n]), _bits(other[n])) for n in rec.outputs), x86
    for refused in (get_profile("arm64-sve256"), profile.with_threads(2)):
        with pytest.raises(ParityError, match="not modelled"):
            RUNNERS["conv2d"](rec.params, rec.inputs, refused)


def test_v2_refuses_its_brgemm_kernels() -> None:
    """V2 runs oneDNN's brg_conv_bwd:sve_128 for backward data at stride 1 from 16 input channels and
    brgconv_1x1:sve_128 for a 1x1 forward of 33 channels (measured): refused, not computed as N1's."""
    v2 = get_profile("arm64-sve128")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 16, 5, 6)).astype(np.float32)
    w = rng.standard_normal((4, 16, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((2, 4, 3, 4)).astype(np.float32)
    assert conv.conv2d(x, w, None, (1, 1), (0, 0), v2).shape == dy.shape  # ACL's forward is modelled
    with pytest.raises(ParityError, match="brg_conv_bwd:sve_128"):
        conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), False, v2)
    gx, gw, _ = conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), False, v2, (False, True, False))
    assert gx is None and gw is not None
    x1 = rng.standard_normal((3, 9, 18, 6)).astype(np.float32)
    with pytest.raises(ParityError, match="brgconv_1x1:sve_128"):
        conv.conv2d(x1, rng.standard_normal((33, 9, 1, 1)).astype(np.float32), None, (2, 2), (0, 0), v2)


@pytest.mark.parametrize(
    ("images", "pixels", "channels", "k", "kernel"),
    [
        # measured under emulation (ONEDNN_VERBOSE, one thread), N1: the interleaved kernel three times
        # in 37 oneDNN convolutions, the hybrid one where its estimate is lower (the closest, 1.3%)
        (4, 63, 24, 243, "a64_ffinterleaved_fp32_mla_8x12"),
        (1, 165, 33, 425, "a64_ffinterleaved_fp32_mla_8x12"),
        (1, 60, 19, 625, "a64_ffinterleaved_fp32_mla_8x12"),
        (17, 56, 1, 297, "a64_ffhybrid_fp32_mla_6x16"),
        (2, 156, 39, 980, "a64_ffhybrid_fp32_mla_6x16"),
        (4, 342, 7, 124, "a64_ffhybrid_fp32_mla_6x16"),
        # V2: the SVE kernels, the same shapes
        (4, 63, 24, 243, "sve_ffinterleaved_fp32_mla_8x3VL"),
        (1, 165, 33, 425, "sve_ffhybrid_fp32_mla_6x4VL"),
        (1, 60, 19, 625, "sve_ffinterleaved_fp32_mla_8x3VL"),
        (17, 56, 1, 297, "sve_ffhybrid_fp32_mla_6x4VL"),
    ],
)
def test_acl_kernel_choice(images: int, pixels: int, channels: int, k: int, kernel: str) -> None:
    """arm_gemm's cycle estimates pick the kernel ONEDNN_VERBOSE named (per image M = OH*OW)."""
    profile = "arm64-sve128" if kernel.startswith("sve") else "arm64-neon"
    assert conv.acl_gemm_kernel(images, pixels, channels, k, 1, profile) == kernel
