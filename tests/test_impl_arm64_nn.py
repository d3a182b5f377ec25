"""The impl's torch.nn layers (sigmoid, batch_norm, adaptive_avg_pool2d; conv2d, ATen's and oneDNN's) under
the Linux arm64 profiles, against the committed arm64 random-case recordings (torch 2.13.0 aarch64
wheel, emulated Neoverse N1, 1 thread) and, for oneDNN's convolutions, digests of recordings under
emulation at 1 and 2 threads: every output equal as uint32 bit patterns, case by case. Torch-free.

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
from tests.impl_intel_mkl import bits, digest

OPS = ["sigmoid", "batch_norm", "adaptive_avg_pool2d"]
N1_T1 = DEFAULT_FIXTURES / "torch-2.13.0" / "linux-arm64-neoverse-n1-nvpl-t1.random-3.h5"


@cache
def _fixture(path: Path) -> OpFixture:
    return read_op_fixture(path, ops=OPS)


def _keys() -> list[str]:
    return sorted(read_op_fixture(N1_T1, load=False, ops=OPS).cases)


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
        assert np.array_equal(bits(want), bits(out)), f"{key} {name}: {int((bits(want) != bits(out)).sum())} differ"


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
            assert not np.array_equal(bits(want), bits(np.asarray(got[out]).reshape(want.shape))), (name, key, out)


def test_the_sve_profiles_share_the_neon_objects_or_differ_by_their_own() -> None:
    """SVE128 (V2) runs the same 4-lane NEON-typed objects as N1: the same bits; SVE256 (V1) has 8 lanes
    and unfused vector code, so the backward's sums (NCHW here) come out otherwise."""
    fixture = _fixture(N1_T1)
    rec = fixture.cases["batch_norm/r3-batch_norm-008"]
    neon = RUNNERS["batch_norm"](rec.params, rec.inputs, get_profile("arm64-neon"))
    v2 = RUNNERS["batch_norm"](rec.params, rec.inputs, get_profile("arm64-sve128"))
    v1 = RUNNERS["batch_norm"](rec.params, rec.inputs, get_profile("arm64-sve256"))
    for name in neon:
        assert np.array_equal(bits(neon[name]), bits(v2[name])), name
    assert not np.array_equal(bits(neon["grad_weight"]), bits(v1["grad_weight"]))


def test_slow_conv2d_on_arm64() -> None:
    """A small single image: ATen's slow_conv2d (im2col, NVPL gemms) on aarch64 as on x86, bit for bit."""
    fixture = read_op_fixture(N1_T1, ops=["conv2d"])
    profile = profile_for_fixture(fixture.attrs)
    rec = fixture.cases["conv2d/r3-conv-000"]
    got = RUNNERS["conv2d"](rec.params, rec.inputs, profile)
    assert sorted(got) == sorted(rec.outputs) == ["grad_bias", "grad_weight", "grad_x", "out"]
    for name, want in rec.outputs.items():
        assert np.array_equal(bits(want), bits(np.asarray(got[name]).reshape(want.shape))), name


def test_onednn_conv2d_on_n1() -> None:
    """A convolution ATen hands to oneDNN on N1 (ACL's ffhybrid forward, oneDNN's gemm:ref backward):
    every output bit for bit under the N1 profile; x86's oneDNN kernels (jit:avx2, and gemm:jit at
    SSE4.1) give other bits; another release is refused, and V1's backward data at stride 1."""
    fixture = read_op_fixture(N1_T1, ops=["conv2d"])
    profile = profile_for_fixture(fixture.attrs)
    rec = fixture.cases["conv2d/r3-conv-010"]
    got = RUNNERS["conv2d"](rec.params, rec.inputs, profile)
    assert sorted(got) == sorted(rec.outputs) == ["grad_weight", "grad_x", "out"]
    for name, want in rec.outputs.items():
        assert np.array_equal(bits(want), bits(np.asarray(got[name]).reshape(want.shape))), name
    for x86 in ("x86-avx2", "x86-baseline"):
        other = RUNNERS["conv2d"](rec.params, rec.inputs, get_profile(x86))
        assert any(not np.array_equal(bits(rec.outputs[n]), bits(other[n])) for n in rec.outputs), x86
    with pytest.raises(ParityError, match="not modelled"):
        RUNNERS["conv2d"](rec.params, rec.inputs, profile.with_torch("2.14.1"))
    v1 = RUNNERS["conv2d"](rec.params, rec.inputs, get_profile("arm64-sve256"))
    assert sorted(v1) == ["grad_weight", "grad_x", "out"]  # V1's brg_conv_bwd:sve_256 backward data
    assert not np.array_equal(bits(rec.outputs["grad_x"]), bits(v1["grad_x"]))  # not gemm:ref's order


def test_brg_conv_bwd_refuses_what_it_has_not_measured() -> None:
    """brg_conv_bwd with more output channels than measured for the kernel's size (its ic blocks'
    L1/L2 caps), ker_base's rows above the measured width, V2's brgconv_1x1:sve_128 forward above the
    input channels measured and its 1x1 forward at stride 1 above 256 output channels: refused, not
    computed by another kernel's order; V2's backward data at stride 1 is gemm:ref's (N1's bits) to 12
    input channels, brg_conv_bwd's from 13 (measured)."""
    v1, v2 = get_profile("arm64-sve256"), get_profile("arm64-sve128")
    rng = np.random.default_rng(5)

    def values(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    n1 = get_profile("arm64-neon")
    for c, same in ((12, True), (13, False)):  # V2: gemm:ref (N1's bits) to 12 input channels, then brg
        x, w, dy = values(2, c, 5, 6), values(40, c, 3, 3), values(2, 40, 3, 4)
        gx_v2, gx_n1 = (conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), False, p)[0] for p in (v2, n1))
        assert np.array_equal(bits(gx_v2), bits(gx_n1)) == same, c
    x, w, dy = values(2, 16, 5, 6), values(320, 16, 7, 7), values(2, 320, 5, 6)
    with pytest.raises(ParityError, match="measured up to 128 channels"):  # V1: blocks of 312 there
        conv.conv2d_backward(dy, x, w, (1, 1), (3, 3), False, v1, (True, False, False))
    gx, _, _ = conv.conv2d_backward(dy, x, w, (1, 1), (3, 3), False, v2, (True, False, False))
    assert gx is not None and gx.shape == x.shape
    x, w, dy = values(2, 16, 3, 3), values(2, 16, 9, 9), values(2, 2, 3, 3)  # more taps than measured
    for profile in (v1, v2):
        with pytest.raises(ParityError, match="9x9 kernel"):
            conv.conv2d_backward(dy, x, w, (1, 1), (4, 4), False, profile, (True, False, False))
    x, w, dy = values(2, 16, 2, 230), values(4, 16, 2, 3), values(2, 4, 1, 228)
    with pytest.raises(ParityError, match="ker_base on rows of 230"):
        conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), False, v2, (True, False, False))
    x, w, dy = values(1, 128, 1, 180), values(4, 128, 1, 5), values(1, 4, 1, 176)  # one row on two threads
    with pytest.raises(ParityError, match="ker_base with 1 rows on 2 threads"):
        conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), False, get_profile("arm64-sve128", 2), (True, False, False))
    x1 = values(2, 270, 3, 3)  # brgconv_1x1:sve_128 above the 256 input channels measured
    with pytest.raises(ParityError, match="brgconv_1x1 with 270 input channels"):
        conv.conv2d(x1, values(33, 270, 1, 1), None, (2, 2), (0, 0), v2)
    with pytest.raises(ParityError, match="gemm:acl or brgconv_1x1:sve_128"):  # stride 1: measured to 256
        conv.conv2d(values(2, 8, 4, 4), values(257, 8, 1, 1), None, (1, 1), (0, 0), get_profile("arm64-sve128", 2))


def test_arm64_forwards_refuse_what_is_not_measured() -> None:
    """V1's ACL forward where arm_gemm's estimate may pick the interleaved kernel (its order not
    found) under the parameters not pinned down (L1 size, hybrid rate, the penalty's columns),
    V1's padding above 2 off the measured 7x7, V1's brgconv_1x1 above 256 input channels, V2's
    padded 1x1 at stride 1 from 9 to 13 output channels (gemm:ref at 5 and 8, brgconv from 14), N1's
    gemm:ref forward of a padded 1x1 over more than one K block: refused, not given other bits;
    jit:sve_256's backward data declines by its own unrolls (gemm:ref's grad_input)."""
    v1, v2 = get_profile("arm64-sve256", 4), get_profile("arm64-sve128", 4)
    rng = np.random.default_rng(7)

    def values(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    with pytest.raises(ParityError, match="ACL's choice"):  # measured: neither hybrid's order nor a K blocking
        conv.conv2d(values(3, 18, 13, 14), values(5, 18, 5, 2), values(5), (2, 2), (2, 2), v1)
    assert conv.acl_gemm_kernel(3, 50, 12, 200, 4, "arm64-sve256") == "sve_ffhybrid_fp32_mla_6x4VL"
    with pytest.raises(ParityError, match="padding above 2"):
        conv.conv2d(values(2, 3, 12, 12), values(8, 3, 5, 5), None, (1, 1), (3, 3), v1)
    with pytest.raises(ParityError, match="brgconv_1x1 with 288 input channels"):
        conv.conv2d(values(2, 288, 4, 4), values(8, 288, 1, 1), None, (2, 2), (0, 0), v1)
    with pytest.raises(ParityError, match="gemm:ref or brgconv:sve_128"):
        conv.conv2d(values(7, 21, 6, 5), values(11, 21, 1, 1), None, (1, 1), (1, 1), v2)
    x1x4, w1x4 = values(3, 36, 17, 9), values(24, 36, 1, 4)  # a kernel side within the padding
    with pytest.raises(ParityError, match="within the padding and its estimate picks the interleaved"):
        conv.conv2d(x1x4, w1x4, None, (2, 2), (2, 2), v2)  # V2 ran the hybrid kernel's order there
    assert conv.conv2d(x1x4, w1x4, None, (2, 2), (2, 2), get_profile("arm64-neon", 4)).shape == (3, 24, 11, 5)
    with pytest.raises(ParityError, match="gemm:ref over K = 300"):  # N1's padded 1x1: one K block measured
        conv.conv2d(values(2, 300, 3, 3), values(4, 300, 1, 1), None, (1, 1), (1, 1), get_profile("arm64-neon", 4))
    declines = conv._avx512_data_declines
    assert declines(conv._geometry((6, 37, 14, 18), (47, 37, 5, 3), (3, 3), (1, 1)), 0, 8)
    assert not declines(conv._geometry((4, 27, 13, 18), (24, 27, 3, 3), (2, 2), (1, 1)), 0, 8)


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


# Convolutions ATen hands to oneDNN on N1 and V1, recorded under emulation (tools/emulate_arm64.py run,
# torch 2.13.0 aarch64, ONEDNN_VERBOSE naming the kernels): (core, threads, name, x shape, weight shape,
# stride, padding, bias, seed); the inputs come from the seed (``_onednn_inputs``): standard normal values
# times 2^k, k uniform in [-10, 10), so that the order of every sum shows in the bits.
ONEDNN_CASES = [
    ("n1", 1, "interleaved-1block", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, True, 101),
    ("n1", 1, "interleaved-2blocks", (1, 17, 15, 11), (33, 17, 5, 5), 1, 2, True, 102),
    ("n1", 1, "hybrid-oc1", (3, 12, 13, 16), (1, 12, 3, 5), 2, 0, True, 103),
    ("n1", 1, "pixel-blocks", (1, 31, 18, 13), (1, 31, 5, 5), 1, 2, False, 104),
    ("n1", 1, "weights-k-blocks", (2, 8, 20, 20), (4, 8, 3, 3), 1, 1, True, 105),
    ("n1", 1, "1x1-strided", (16, 15, 8, 14), (4, 15, 1, 1), 3, 0, True, 106),
    ("n1", 1, "data-k-blocks", (2, 4, 6, 6), (100, 4, 3, 3), 1, 1, True, 107),
    ("n1", 2, "t2-weights-k-split", (1, 2, 40, 40), (3, 2, 5, 5), 1, 0, True, 201),
    ("n1", 2, "t2-data-n-split", (3, 40, 9, 9), (70, 40, 3, 3), 1, 1, True, 202),
    ("n1", 2, "t2-data-k-blocks", (2, 4, 6, 6), (100, 4, 3, 3), 1, 1, True, 203),
    ("n1", 2, "t2-interleaved", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, True, 204),
    ("v1", 1, "v1-jit-strided", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, True, 301),
    ("v1", 1, "v1-1x1-strided", (3, 9, 18, 6), (33, 9, 1, 1), 2, 0, True, 302),
    ("v1", 1, "v1-jit-pad1", (3, 20, 7, 8), (12, 20, 3, 5), 3, 1, True, 303),
    # a strided 1x1 whose stride does not divide the input: jit:sve_256's backward (jit_1x1 gave others)
    ("v1", 1, "v1-1x1-strided-jit", (7, 12, 13, 11), (27, 12, 1, 1), 2, 0, True, 11036),
    # 7 output channels, stride dividing the input: jit_1x1's weights, per image (jit:sve_256's gave others)
    ("v1", 1, "v1-1x1-strided-7", (3, 1, 6, 8), (7, 1, 1, 1), 2, 0, True, 11051),
    # padding 2 on a 3x3 kernel: gemm:ref's weights
    ("v1", 1, "v1-weights-gemm-ref", (7, 21, 5, 4), (20, 21, 3, 3), 1, 2, True, 11055),
]
# torch's outputs (out, grad_x, grad_weight, grad_bias): the first 16 hex digits of the sha256 of their bits
ONEDNN_DIGESTS = {
    "interleaved-1block": "82a1b695880c794b 9d3a6815c4102cc5 cfafcb7341ef980b 5c51fe94e657f8d9",
    "interleaved-2blocks": "a9d65d8a9c225f1e 998d490c185bdef5 53f9af45905163bd 1f79c2dc6594144d",
    "hybrid-oc1": "3e2d821dff3fce55 7695655490781684 41b22effa7f01103 089b23f063733147",
    "pixel-blocks": "00977d8942b4dac3 9f6c155dc696f1f5 679ae9eae87d11f7",
    "weights-k-blocks": "faea24ca252a8f1d dda6d4d338261456 40029389f279ff3f 7bbd3e40524a41f6",
    "1x1-strided": "7a4e23ef33ffd34b f1256966770ad42e 879cabcf747a92ab c9525c41200a37d5",
    "data-k-blocks": "3592fab0213832e3 b15b5a785b2c38fa 325a3963612d1dfd c040f02de37e086a",
    "t2-weights-k-split": "13677d7a5e446637 a3d445e2c2540339 438158ff9bad3a10 4736734c2d129daa",
    "t2-data-n-split": "9f1b55f32a50b2b1 78576d5587b4ee6e 0504b45886f9c989 1123c7ab56ee6f3a",
    "t2-data-k-blocks": "f0cac50412cf87df 194cab0e7cfa1128 a5b92dc6050998bf 9b109c78380e3f26",
    "t2-interleaved": "45fc5832dc27aa8c b5d92dd504dd99e8 aa2938751d0fdc95 d06112b43b94c9d4",
    "v1-jit-strided": "dba4083d4d062a0d 2f8f338417f1db62 551dce01e9fc78c6 520f4b61acdd2d4c",
    "v1-1x1-strided": "b2e239ee93fcc4fb 4a353738c1df4618 989934e81032fcaf c37f207d2bbb7bdc",
    "v1-jit-pad1": "fa4beb608f2fdb0e 444eada3efa6fe53 80f10216491fc683 55dd6844424dccf6",
    "v1-1x1-strided-jit": "604b8e5b29441922 0c6b3e2c96390a22 1fe457646513a495 d13e4678997ae80c",
    "v1-1x1-strided-7": "a2ac85b24cc28451 7fa0ecae55ae9a41 a36a12a9f5f05822 c40ada0047a6c0aa",
    "v1-weights-gemm-ref": "b5989251482d8f6a a3620c1783d4234c cec8a3f2fc2ba2cb 38566eafd8beaee8",
}


def _onednn_inputs(x_shape, w_shape, stride: int, padding: int, seed: int):
    rng = np.random.default_rng(seed)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    n, _, h, w = x_shape
    oh, ow = (h + 2 * padding - w_shape[2]) // stride + 1, (w + 2 * padding - w_shape[3]) // stride + 1
    return values(x_shape), values(w_shape), values((w_shape[0],)), values((n, w_shape[0], oh, ow))


@pytest.mark.parametrize("case", ONEDNN_CASES, ids=[f"{c[0]}-t{c[1]}-{c[2]}" for c in ONEDNN_CASES])
def test_onednn_conv2d_recorded(case: tuple) -> None:
    """Every output of the recorded convolutions bit for bit under their core's profile (N1: ACL's
    kernels both, oneDNN's ref sgemm's K blocks, tails and thread splits, pixel blocks, a strided 1x1;
    V1: jit:sve_256, jit_1x1 and brgconv_1x1 at strides above 1)."""
    core, threads, name, x_shape, w_shape, stride, padding, bias, seed = case
    x, w, b, dy = _onednn_inputs(x_shape, w_shape, stride, padding, seed)
    profile = get_profile({"n1": "arm64-neon", "v1": "arm64-sve256"}[core], threads)
    st, pd = (stride, stride), (padding, padding)
    assert conv.path(x.shape, w.shape, st, pd, profile) == {"n1": conv.ACL_REF, "v1": conv.SVE256}[core]
    y = conv.conv2d(x, w, b if bias else None, st, pd, profile)
    gx, gw, gb = conv.conv2d_backward(dy, x, w, st, pd, bool(bias), profile)
    got = [y, gx, gw] + ([gb] if bias else [])
    assert " ".join(digest(v) for v in got) == ONEDNN_DIGESTS[name]


# oneDNN's brg_conv_bwd backward data (stride 1) on V1 and V2, recorded as ONEDNN_CASES (same inputs
# from the seed, same digests of torch's out, grad_x, grad_weight, grad_bias); ``outputs``: which of the
# four the impl models there (V2's vpad cases: ACL's forward kernel choice is refused; the 1x1 on two
# threads: its forward gemm:acl at stride 1, refused before as possibly brgconv_1x1). The impl refused every
# grad_x here before brg_conv_bwd was modelled, and the V1 two-thread cases' other outputs before V1's
# kernels were modelled on more threads.
BRG_CASES = [
    ("v1", 1, "v1-brg-vpad", (2, 16, 9, 10), (24, 16, 3, 3), 1, 1, True, 401, (0, 1, 2, 3)),
    ("v1", 1, "v1-brg-base", (3, 12, 8, 13), (20, 12, 5, 5), 1, 0, True, 402, (0, 1, 2, 3)),
    ("v1", 1, "v1-brg-base-tall", (2, 10, 9, 12), (9, 10, 5, 3), 1, 0, True, 403, (0, 1, 2, 3)),
    ("v1", 1, "v1-brg-1x1", (16, 8, 5, 6), (12, 8, 1, 1), 1, 0, True, 404, (0, 1, 2, 3)),
    ("v1", 1, "v1-brg-icblocks", (2, 16, 4, 5), (400, 16, 3, 3), 1, 1, True, 405, (0, 1, 2, 3)),
    ("v2", 1, "v2-brg-vpad", (2, 16, 9, 10), (24, 16, 3, 3), 1, 1, True, 501, (1, 2, 3)),
    ("v2", 1, "v2-brg-base", (3, 16, 8, 13), (20, 16, 5, 5), 1, 0, True, 502, (0, 1, 2, 3)),
    ("v2", 1, "v2-brg-base-tall", (2, 16, 9, 12), (9, 16, 5, 3), 1, 0, True, 503, (0, 1, 2, 3)),
    ("v2", 1, "v2-brg-icblocks", (2, 16, 6, 6), (96, 16, 3, 3), 1, 1, True, 504, (0, 1, 2, 3)),
    ("v2", 2, "v2-t2-brg-vpad", (2, 16, 9, 10), (24, 16, 3, 3), 1, 1, True, 601, (1, 2, 3)),
    ("v2", 2, "v2-t2-brg-base", (3, 16, 8, 13), (20, 16, 5, 5), 1, 0, True, 602, (0, 1, 2, 3)),
    ("v2", 2, "v2-t2-1x1", (16, 16, 5, 6), (32, 16, 1, 1), 1, 0, True, 603, (0, 1, 2, 3)),
    ("v1", 2, "v1-t2-brg-vpad", (2, 16, 9, 10), (24, 16, 3, 3), 1, 1, True, 701, (0, 1, 2, 3)),
    ("v1", 2, "v1-t2-brg-base", (3, 16, 8, 13), (20, 16, 5, 5), 1, 0, True, 702, (0, 1, 2, 3)),
    ("v1", 2, "v1-t2-brg-icblocks", (2, 16, 4, 5), (400, 16, 3, 3), 1, 1, True, 703, (0, 1, 2, 3)),
]
BRG_DIGESTS = {
    "v1-brg-vpad": "ffbdb32aea8abd3b 5e4247c7b2a37fdf f3937abeffc8fdcf c811bacfbb1b2f2e",
    "v1-brg-base": "1da7a0ab0e548ebd b10a4ccbce7aba35 738b815311de11d0 1a3fd02127ee6ad0",
    "v1-brg-base-tall": "0325f6bed024c486 9eb455efd6a99c6d dac85fc55d0c0a4e 130e9a53c638ad52",
    "v1-brg-1x1": "a88e70e63ad1646d 55a0f0abddea7ad1 2e1a443a3169a13f c33e52e702096b3d",
    "v1-brg-icblocks": "4f8de15f383c2a54 399a7394da647476 1d3b24f48b4ab0c5 7e4e97e877eb7eed",
    "v2-brg-vpad": "c90288a6f3b09f4c a692803d930cdcba 448d56d6069a3792 20c772f83523877f",
    "v2-brg-base": "3de790e70d8628c8 3454f0b08b4967c7 64365afb52fb484a 634d27ffb9471ccc",
    "v2-brg-base-tall": "65ec1dda7630a719 281386bbfec0ae0f 1bec68036a449e93 2ade1febbae05ead",
    "v2-brg-icblocks": "0245ccafbca67502 40988eb669e20f6b 0d40272337244e4f de15e2b6724640a1",
    "v2-t2-brg-vpad": "7d0072e298422a3e bce0ed826dee0a91 a0ef4369af12b4b2 2d4cc33e6c2b5d1f",
    "v2-t2-brg-base": "cd5089304b201576 77700d4dc883ecf4 3166fe519a63caac 88de67ce2ea49216",
    "v2-t2-1x1": "a3c6ec7e8104aef6 df9bebc94f76b3cd dbdede790e14fd8d 712e70f44fefcae2",
    "v1-t2-brg-vpad": "6ebff61e889ef0b3 f1cce9d7b4ad5a71 84967bee27433da7 9727e4cccac699b9",
    "v1-t2-brg-base": "e2f09a835eb3450e 7d00b719aab48cb6 3dc193b1f53ca64d 7580f8fc7df5c0f5",
    "v1-t2-brg-icblocks": "167b38cbbb0dda75 2444909dd27aed9d 9208c90792ca8a28 cb8beb69126baedd",
}


@pytest.mark.parametrize("case", BRG_CASES, ids=[f"{c[0]}-t{c[1]}-{c[2]}" for c in BRG_CASES])
def test_brg_conv_bwd_recorded(case: tuple) -> None:
    """brg_conv_bwd's grad_x bit for bit (ker_vpad, ker_base with KW >= KH and KW < KH, blocks of 320
    (V1) and 80 (V2) output channels, brgconv_1x1), with the case's other modelled outputs; where one
    chain over all the channels in (kh, kw, channel) order (oneDNN's other backward kernels) gives
    other bits wherever the kernel has more than one tap, so the digest tells the order."""
    core, threads, name, x_shape, w_shape, stride, padding, bias, seed, outputs = case
    x, w, b, dy = _onednn_inputs(x_shape, w_shape, stride, padding, seed)
    profile = get_profile({"v1": "arm64-sve256", "v2": "arm64-sve128"}[core], threads)
    st, pd = (stride, stride), (padding, padding)
    want = BRG_DIGESTS[name].split()
    for i in outputs:
        if i == 0:
            got = conv.conv2d(x, w, b if bias else None, st, pd, profile)
        else:
            got = conv.conv2d_backward(dy, x, w, st, pd, bool(bias), profile, tuple(j == i - 1 for j in range(3)))[
                i - 1
            ]
        assert digest(got) == want[i], (name, ("out", "grad_x", "grad_weight", "grad_bias")[i])
    g = conv._geometry(x.shape, w.shape, st, pd)
    if g.kh * g.kw > 1:  # with one tap the chains over the channels are the same
        one_chain = conv._terms_blocked(g.oc, g.kh, g.kw, g.oc)  # (kh, kw, channel) from the first tap
        gx = np.empty_like(x)
        args = (conv.ptr(dy), conv.ptr(w), conv.ptr(gx), conv.ptr(one_chain), len(one_chain), 1)
        conv._lib().conv_bwd_data_terms(*g, *args)
        assert digest(gx) != want[1], name


# V1 (SVE256) on two and four threads, recorded under emulation (inputs from the seed as ONEDNN_CASES;
# digests of torch's out, grad_x, grad_weight, grad_bias); ``split``: the weights' or bias' thread split
# changes their bits (the profile at half the threads gives others). Kernels as ONEDNN_VERBOSE named them.
V1_THREAD_CASES = [
    # jit:sve_256 weights over the images, 2 threads of its balance (nthr_mb 2); bias by its reducer
    ("images", (3, 1, 9, 5), (4, 1, 5, 3), 3, 0, 11020, True),
    ("images-1x3", (7, 23, 8, 10), (13, 23, 1, 3), 1, 0, 11044, True),
    # its 2-D harness (more than 9 output rows): the (image, row) units split, the bias in the kernel
    ("rows", (7, 1, 11, 14), (23, 1, 3, 3), 1, 1, 11028, True),
    ("rows-2-images", (2, 24, 20, 20), (8, 24, 3, 3), 1, 1, 11004, True),
    # jit_1x1:sve_256 weights: the (image, pixel block) units split inside an image
    ("1x1-units", (3, 9, 16, 10), (33, 9, 1, 1), 1, 0, 11002, True),
    ("1x1-units-odd", (7, 3, 14, 6), (29, 3, 1, 1), 1, 0, 11026, True),
    ("1x1-images", (8, 40, 9, 12), (7, 40, 1, 1), 1, 0, 11017, True),
    # a strided 1x1 whose stride does not divide the input: jit:sve_256 backward, not jit_1x1
    ("1x1-strided-jit", (7, 12, 13, 11), (27, 12, 1, 1), 2, 0, 11036, False),
    # padding 2 on a 3x3 kernel: jit:sve_256's weights decline, gemm:ref's on two threads
    ("weights-gemm-ref", (7, 21, 5, 4), (20, 21, 3, 3), 1, 2, 11055, True),
    # a 1x3 kernel with padding 1: ACL's forward (its hybrid kernel), gemm:ref backward data and weights
    ("kernel-in-padding", (7, 38, 4, 9), (48, 38, 1, 3), 3, 1, 11014, True),
    # the bias reducer's image split where the weights stay on one image thread
    ("bias-reducer", (5, 33, 11, 10), (3, 33, 3, 3), 3, 1, 11049, True),
    # four threads: jit:sve_256's balance over (image, row) units and over images, jit_1x1's units,
    # gemm:ref's outer threading, the bias reducer (each split other bits than two threads')
    ("t4-rows-2-images", (2, 24, 20, 20), (8, 24, 3, 3), 1, 1, 11004, True),
    ("t4-images", (3, 1, 9, 5), (4, 1, 5, 3), 3, 0, 11020, True),
    ("t4-1x1-units", (16, 8, 5, 6), (12, 8, 1, 1), 1, 0, 404, True),
    ("t4-1x1-images", (8, 40, 9, 12), (7, 40, 1, 1), 1, 0, 11017, True),
    ("t4-weights-gemm-ref", (7, 21, 5, 4), (20, 21, 3, 3), 1, 2, 11055, True),
    ("t4-bias-reducer", (5, 33, 11, 10), (3, 33, 3, 3), 3, 1, 11049, True),
    # jit:sve_256's backward data declines (its unroll of 16 columns, not a multiple of the stride 3,
    # below the input's 18): gemm:ref's grad_input
    ("t4-data-gemm-ref", (6, 37, 14, 18), (47, 37, 5, 3), 3, 1, 41037, False),
    # a padded 1x1 at stride 1: brgconv:sve_256 (brgconv_1x1's order), gemm:ref backward
    ("t4-padded-1x1", (8, 26, 5, 9), (38, 26, 1, 1), 1, 1, 41004, True),
    # brgconv_1x1:sve_256 over 62 input channels
    ("t4-brgconv-62", (8, 62, 11, 13), (70, 62, 1, 1), 3, 0, 21002, False),
    # forwards oneDNN hands to ACL: indirect_gemm:acl and gemm:acl (a padded strided 1x1), the hybrid kernel
    ("t4-acl-indirect", (3, 40, 11, 18), (12, 40, 5, 1), 2, 1, 41022, True),
    ("t4-acl-1x1-padded", (3, 33, 19, 8), (28, 33, 1, 1), 2, 2, 41039, True),
    # ResNet-like: jit_1x1's weights one call per image (x86's reduce blocking gave two), brgconv_1x1
    # over 128 input channels, the 7x7 stem with padding 3 on jit:sve_256
    ("t4-1x1-one-call-per-image", (2, 64, 8, 8), (64, 64, 1, 1), 1, 0, 905, False),
    ("t4-brgconv-128", (2, 128, 8, 8), (256, 128, 1, 1), 2, 0, 902, False),
    ("t4-7x7-padding-3", (2, 3, 32, 32), (64, 3, 7, 7), 2, 3, 915, False),
]

V1_THREAD_DIGESTS = {
    "images": "851c52537f543c22 d902bf3e83531ce2 dd38c86a5afec06c 5b62a0ef1a32dcd8",
    "images-1x3": "88bcbb4a3165627e f451412aecf94b48 ec4dc0a031ddd0ed 3c1b574560ed3417",
    "rows": "816381fe6295f5d1 21c0f413e80891af 5926c7ac2ee1224e 63d0cd8fd6eb2ae7",
    "rows-2-images": "38c7dddb1b993c30 b9b9db33374cfb52 185754a14cf41de1 7466540c0963e7b5",
    "1x1-units": "467e2bb4c577cddd cfa187042ad876cc d49adcf2e782ca6f c131e45a76614fe6",
    "1x1-units-odd": "8169618ab9191add 3662090db1b22245 e8beadf5dcddb81a 87bff09d95355b6a",
    "1x1-images": "17b76bc8d2a4a9a2 043c63cd85c27b2b 29113138d465d4b1 0fdfffbdde34a02e",
    "1x1-strided-jit": "604b8e5b29441922 0c6b3e2c96390a22 1fe457646513a495 d13e4678997ae80c",
    "weights-gemm-ref": "b5989251482d8f6a a3620c1783d4234c 29988a3939ef8f39 38566eafd8beaee8",
    "kernel-in-padding": "6f06b6ab2cf153be 1c6b0646daff18ef 70fa825ec20f2e5a e99dc18eb788fb83",
    "bias-reducer": "7103dae080107b91 f6746964448e0944 a891029833678efb c82760a519eec466",
    "t4-rows-2-images": "38c7dddb1b993c30 b9b9db33374cfb52 b9de9a79f745e1a6 bf945d7d062b7c99",
    "t4-images": "851c52537f543c22 d902bf3e83531ce2 6ff8a3bf244b3571 4aab338876df575b",
    "t4-1x1-units": "a88e70e63ad1646d 55a0f0abddea7ad1 33354f13ee12c073 16daacaab57eae96",
    "t4-1x1-images": "17b76bc8d2a4a9a2 043c63cd85c27b2b 0c9f715267024e58 7bcc0f5aaf5087cf",
    "t4-weights-gemm-ref": "b5989251482d8f6a a3620c1783d4234c fde6458617e9627b 38566eafd8beaee8",
    "t4-bias-reducer": "7103dae080107b91 f6746964448e0944 a891029833678efb 451d16f7898515b6",
    "t4-data-gemm-ref": "be6897f29101845a 98a3021fcbbd1039 58f7f373851fb528 b2c193cc0f6255c3",
    "t4-padded-1x1": "6a65713bd21874dc 1cc4d12d7bf367f4 efc9af41688dfa25 25d55d91afa23bd0",
    "t4-brgconv-62": "fa9be308197fc602 73e21515c69f4ded 50d3564fc2137fd2 c2a5d43cb8146cae",
    "t4-acl-indirect": "629a156dea5f7d77 917f32bedb5d8443 1b196236f2d6d675 7385b89d3b764c72",
    "t4-acl-1x1-padded": "e0695aab97f53979 b9d3bb22ada48e5d deac60e069592315 cd2e6ad9d7dd7288",
    "t4-1x1-one-call-per-image": "01156eaa8c2cb6d9 1f3098d8a385efe8 0c375c7c8ee6cd36 904182d93c2e7cd8",
    "t4-brgconv-128": "88455558b6a050e1 b344690f387df117 e111c4cba7751f52 6a3f862d27e13028",
    "t4-7x7-padding-3": "050970e56a80ec7c 745dad1924424465 b4310e966c356673 369da7ac4971734c",
}


@pytest.mark.parametrize("case", V1_THREAD_CASES, ids=[c[0] for c in V1_THREAD_CASES])
def test_v1_threads_recorded(case: tuple) -> None:
    """V1's kernels on two and four threads bit for bit: jit:sve_256's and jit_1x1:sve_256's thread
    splits of the weights (images, (image, row) units, pixel blocks inside an image) and of the bias,
    the forward and grad_input as on one thread, gemm:ref where jit:sve_256 declines, ACL's hybrid
    forward where oneDNN hands it over; the split shown to matter where ``split`` (the profile at half
    the threads gives other weights or bias bits)."""
    name, x_shape, w_shape, stride, padding, seed, split = case
    x, w, b, dy = _onednn_inputs(x_shape, w_shape, stride, padding, seed)
    threads = 4 if name.startswith("t4-") else 2
    profile, half = get_profile("arm64-sve256", threads), get_profile("arm64-sve256", threads // 2)
    st, pd = (stride, stride), (padding, padding)
    want = V1_THREAD_DIGESTS[name].split()
    for i in range(4):
        if i == 0:
            got = conv.conv2d(x, w, b, st, pd, profile)
        else:
            mask = tuple(j == i - 1 for j in range(3))
            got = conv.conv2d_backward(dy, x, w, st, pd, True, profile, mask)[i - 1]
        assert digest(got) == want[i], (name, ("out", "grad_x", "grad_weight", "grad_bias")[i])
    if split:
        gw, gb = conv.conv2d_backward(dy, x, w, st, pd, True, half, (False, True, True))[1:]
        assert (digest(gw), digest(gb)) != (want[2], want[3]), name


# V2 (SVE128): strided 1x1 forwards, recorded under emulation at 1 and 2 threads (inputs and digests as
# V1_THREAD_CASES): brgconv_1x1:sve_128 from 13 output channels (one chain over every input channel, the
# bias after; ACL's kernels give other bits there), gemm:acl at 12 and at stride 1.
V2_1X1_CASES = [
    ("brgconv-14", 1, (6, 22, 11, 6), (14, 22, 1, 1), 2, 21015, True),
    ("brgconv-62-channels", 1, (8, 62, 11, 13), (70, 62, 1, 1), 3, 21002, True),
    ("brgconv-t2-64-channels", 2, (6, 64, 6, 9), (13, 64, 1, 1), 3, 22007, True),
    ("brgconv-t2-13", 2, (6, 10, 6, 13), (13, 10, 1, 1), 3, 22001, True),
    ("gemm-acl-t2-12", 2, (2, 11, 8, 11), (12, 11, 1, 1), 2, 22038, False),
    ("gemm-acl-t2-stride-1", 2, (4, 36, 10, 11), (20, 36, 1, 1), 1, 22030, False),
    ("gemm-acl-t2-stride-1-56", 2, (8, 23, 5, 3), (56, 23, 1, 1), 1, 23016, False),
]

V2_1X1_DIGESTS = {
    "brgconv-14": "5cf1f0f0b0218fcf 555ec29f861d6a04 703ef45243a228b0 14f4126d8404efb7",
    "brgconv-62-channels": "fa9be308197fc602 452f5d3abfffb5b9 fd931a3c98a9c43e 199a541dc8aeaeec",
    "brgconv-t2-64-channels": "446ce1dda12a3bf5 1c8d11a0b5671848 94883f0ef2caeff8 6a8192a3023253a4",
    "brgconv-t2-13": "2fd101abcd6cb1e0 96b82d3c72214ea0 234d1224a60bfe50 495c047e7a1aeeef",
    "gemm-acl-t2-12": "4959723d154ebd2a 5bcc6508d06b8175 1a74839fa51ade2f 316efd1056f99a1e",
    "gemm-acl-t2-stride-1": "6af4f6952f4e94ec 2e6223ff05d29d3a 5a8ddb83789494df 998510300ea43c5a",
    "gemm-acl-t2-stride-1-56": "20888118139e666a 146f1fe9f5cb1842 f63c75b87ce911bf 30766989d1e09ec0",
}


@pytest.mark.parametrize("case", V2_1X1_CASES, ids=[c[0] for c in V2_1X1_CASES])
def test_v2_1x1_forward_recorded(case: tuple) -> None:
    """V2's 1x1 forwards bit for bit with their gemm:ref backward: brgconv_1x1:sve_128 (strided, 13
    or more output channels) as one chain from 0 over the input channels, the bias after, which
    ACL's kernel order does not give (``brg``); gemm:acl below 13 channels and at stride 1."""
    name, threads, x_shape, w_shape, stride, seed, brg = case
    x, w, b, dy = _onednn_inputs(x_shape, w_shape, stride, 0, seed)
    profile = get_profile("arm64-sve128", threads)
    st, pd = (stride, stride), (0, 0)
    want = V2_1X1_DIGESTS[name].split()
    y = conv.conv2d(x, w, b, st, pd, profile)
    got = [y, *conv.conv2d_backward(dy, x, w, st, pd, True, profile)]
    assert [digest(v) for v in got] == want, name
    g = conv._geometry(x.shape, w.shape, st, pd)
    if brg:  # ACL's hybrid kernel: one chain from the bias over the channels
        acl = np.empty_like(y)
        terms = conv._terms_blocked(g.c, 1, 1, g.c)
        conv._lib().conv_fwd_terms(
            *g, conv.ptr(x), conv.ptr(w), conv.ptr(b), conv.ptr(acl), conv.ptr(terms), len(terms), 1, 1
        )
        assert digest(acl) != want[0], name


# V2 (SVE128) and N1 on four threads, recorded under emulation (inputs and digests as V1_THREAD_CASES; seed
# 41 draws and the N1 probes' shapes): gemm:ref's weights split as its init_conf gives four threads (the
# two-thread profile's weights other), a padded 1x1 at stride 1 on brgconv:sve_128 (brgconv_1x1's order)
# and a padded strided one on gemm:acl (ACL's hybrid kernel).
T4_CASES = [
    ("v2", "gemm-ref-weights", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, 101, True),
    ("v2", "gemm-ref-data-split", (3, 40, 9, 9), (70, 40, 3, 3), 1, 1, 202, True),
    ("v2", "padded-1x1", (8, 26, 5, 9), (38, 26, 1, 1), 1, 1, 41004, True),
    ("v2", "padded-1x1-strided", (3, 33, 19, 8), (28, 33, 1, 1), 2, 2, 41039, False),
    # held out (seed 42 and ResNet-like shapes): a kernel side within the padding at stride 1 (gemm:ref's
    # grad_input, not brg_conv_bwd's), gemm:acl at stride 1 with 256 output channels, brgconv_1x1 over
    # 128 input channels, a padded 1x1 of 14 output channels on brgconv:sve_128
    ("v2", "kernel-in-padding", (2, 14, 6, 9), (32, 14, 1, 4), 1, 2, 42016, False),
    ("v2", "gemm-acl-256", (2, 64, 8, 8), (256, 64, 1, 1), 1, 0, 906, False),
    ("v2", "brgconv-128", (2, 128, 8, 8), (256, 128, 1, 1), 2, 0, 902, False),
    ("v2", "padded-1x1-14", (7, 30, 15, 6), (14, 30, 1, 1), 1, 1, 42013, False),
    # N1: a padded 1x1 at stride 1 runs oneDNN's gemm:ref forward (ACL's hybrid order gave other bits in
    # 10 of 13), gemm:ref's weights split over four threads
    ("n1", "padded-1x1-gemm-ref", (8, 26, 5, 9), (38, 26, 1, 1), 1, 1, 41004, True),
    ("n1", "padded-1x1-gemm-ref-2", (3, 26, 19, 12), (28, 26, 1, 1), 1, 1, 42036, True),
    ("n1", "gemm-ref-weights", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, 101, True),
]
T4_DIGESTS = {
    "v2-gemm-ref-weights": "82a1b695880c794b 9d3a6815c4102cc5 05b66dad27ca3a70 5c51fe94e657f8d9",
    "v2-gemm-ref-data-split": "9f1b55f32a50b2b1 f5552bdd4115956f 355e64c7fa4b68e2 1123c7ab56ee6f3a",
    "v2-padded-1x1": "6a65713bd21874dc 1cc4d12d7bf367f4 efc9af41688dfa25 25d55d91afa23bd0",
    "v2-padded-1x1-strided": "e0695aab97f53979 b9d3bb22ada48e5d deac60e069592315 cd2e6ad9d7dd7288",
    "v2-kernel-in-padding": "1711db35394e3f86 3473f6e90f6794fd a4fceaeac5c1cac0 f5eb1fd75119789a",
    "v2-gemm-acl-256": "74fcc9711973139c 648897104d27ed91 e5f2acb561857f06 eb50c3d10598dae3",
    "v2-brgconv-128": "88455558b6a050e1 becc9f612cdf65c6 f3607d8dfe3e5b7c b23aeed3b813881d",
    "v2-padded-1x1-14": "eeb1f78a4d011559 7c8b2971f890980d 7096a92e4c7d5494 ad6abc438f83e6a3",
    "n1-padded-1x1-gemm-ref": "6a65713bd21874dc 1cc4d12d7bf367f4 efc9af41688dfa25 25d55d91afa23bd0",
    "n1-padded-1x1-gemm-ref-2": "2aeef60b520d8714 3a91e0963b089a8d 7d834f062a98a15d 08754cb2e43ed005",
    "n1-gemm-ref-weights": "82a1b695880c794b 9d3a6815c4102cc5 05b66dad27ca3a70 5c51fe94e657f8d9",
}


@pytest.mark.parametrize("case", T4_CASES, ids=[f"{c[0]}-{c[1]}" for c in T4_CASES])
def test_four_threads_recorded(case: tuple) -> None:
    """V2's and N1's convolutions on four threads bit for bit; where ``split`` the two-thread
    profile's grad_weight gives other bits (gemm:ref's split of the images or of its sgemms)."""
    core, name, x_shape, w_shape, stride, padding, seed, split = case
    x, w, b, dy = _onednn_inputs(x_shape, w_shape, stride, padding, seed)
    profile_name = {"n1": "arm64-neon", "v2": "arm64-sve128"}[core]
    profile = get_profile(profile_name, 4)
    st, pd = (stride, stride), (padding, padding)
    want = T4_DIGESTS[f"{core}-{name}"].split()
    got = [conv.conv2d(x, w, b, st, pd, profile), *conv.conv2d_backward(dy, x, w, st, pd, True, profile)]
    assert [digest(v) for v in got] == want, name
    if split:
        gw = conv.conv2d_backward(dy, x, w, st, pd, True, get_profile(profile_name, 2), (False, True, False))[1]
        assert digest(gw) != want[2], name


# Three and eight threads on V1, V2 and N1, recorded under emulation (inputs from the seed as ONEDNN_CASES,
# the shapes and seeds of the cases above; digests of torch's out, grad_x, grad_weight, grad_bias): each
# case has an output whose bits neither two nor four threads give (the weights' and bias' thread splits,
# gemm:ref's sgemm threads).
ODD_THREAD_CASES = [
    # V1: gemm:ref's weights (its image split), the bias reducer, jit_1x1's (image, pixel block) units,
    # jit:sve_256's balance over images and (image, row) units
    ("v1", 3, "weights-gemm-ref", (7, 21, 5, 4), (20, 21, 3, 3), 1, 2, 11055),
    ("v1", 3, "bias-reducer", (5, 33, 11, 10), (3, 33, 3, 3), 3, 1, 11049),
    ("v1", 3, "1x1-images", (8, 40, 9, 12), (7, 40, 1, 1), 1, 0, 11017),
    ("v1", 3, "1x1-units-odd", (7, 3, 14, 6), (29, 3, 1, 1), 1, 0, 11026),
    ("v1", 3, "images-5x5", (1, 2, 40, 40), (3, 2, 5, 5), 1, 0, 201),
    ("v1", 8, "images-1x3", (7, 23, 8, 10), (13, 23, 1, 3), 1, 0, 11044),
    ("v1", 8, "1x1-units", (3, 9, 16, 10), (33, 9, 1, 1), 1, 0, 11002),
    ("v1", 8, "brg-base-tall", (2, 10, 9, 12), (9, 10, 5, 3), 1, 0, 403),
    ("v1", 8, "pixel-blocks", (1, 31, 18, 13), (1, 31, 5, 5), 1, 2, 104),
    # V2: gemm:ref's weights over three and eight threads, its grad_input's sgemm threads
    ("v2", 3, "gemm-ref-weights", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, 101),
    ("v2", 3, "padded-1x1", (8, 26, 5, 9), (38, 26, 1, 1), 1, 1, 41004),
    ("v2", 3, "brgconv-128", (2, 128, 8, 8), (256, 128, 1, 1), 2, 0, 902),
    ("v2", 8, "brgconv-13", (6, 10, 6, 13), (13, 10, 1, 1), 3, 0, 22001),
    ("v2", 8, "padded-1x1-14", (7, 30, 15, 6), (14, 30, 1, 1), 1, 1, 42013),
    # N1: gemm:ref's weights and grad_input (its sgemm threads); a kernel side within the padding
    ("n1", 3, "gemm-ref-weights", (4, 27, 13, 18), (24, 27, 3, 3), 2, 1, 101),
    ("n1", 3, "data-256", (2, 64, 8, 8), (256, 64, 1, 1), 1, 0, 906),
    ("n1", 8, "padded-1x1-gemm-ref", (8, 26, 5, 9), (38, 26, 1, 1), 1, 1, 41004),
    ("n1", 8, "kernel-in-padding", (7, 38, 4, 9), (48, 38, 1, 3), 3, 1, 11014),
]
ODD_THREAD_DIGESTS = {
    "v1-t3-weights-gemm-ref": "b5989251482d8f6a a3620c1783d4234c cf89b6235eb1ada8 38566eafd8beaee8",
    "v1-t3-bias-reducer": "7103dae080107b91 f6746964448e0944 a891029833678efb cbd9324ad32efe73",
    "v1-t3-1x1-images": "17b76bc8d2a4a9a2 043c63cd85c27b2b 4a46b1d8bb8a66b0 9fb5e6cbd5246221",
    "v1-t3-1x1-units-odd": "8169618ab9191add 3662090db1b22245 fe50bf2c1a4674b9 87bff09d95355b6a",
    "v1-t3-images-5x5": "2caf0e7f92546354 d34cb474e9ee45e5 ce8506e4c4871375 69d6bb6b0ef7b871",
    "v1-t8-images-1x3": "88bcbb4a3165627e f451412aecf94b48 583e6bd578656e76 9789b063e6cdd70c",
    "v1-t8-1x1-units": "467e2bb4c577cddd cfa187042ad876cc 92b4a47d5f533ff2 c131e45a76614fe6",
    "v1-t8-brg-base-tall": "0325f6bed024c486 9eb455efd6a99c6d a4e1ee7c6f5ae56f d3d75b5d624b46bc",
    "v1-t8-pixel-blocks": "133fadef8dff7e43 b448ca62226cd327 fba7a0b04d449a90 547ed13744272457",
    "v2-t3-gemm-ref-weights": "82a1b695880c794b 9d3a6815c4102cc5 b82e270c89137b11 5c51fe94e657f8d9",
    "v2-t3-padded-1x1": "6a65713bd21874dc 1cc4d12d7bf367f4 6282b5020b8537c7 25d55d91afa23bd0",
    "v2-t3-brgconv-128": "88455558b6a050e1 294a26c4ecc7fd70 f3607d8dfe3e5b7c b23aeed3b813881d",
    "v2-t8-brgconv-13": "2fd101abcd6cb1e0 96b82d3c72214ea0 af15c9eee5c6c407 495c047e7a1aeeef",
    "v2-t8-padded-1x1-14": "eeb1f78a4d011559 7c8b2971f890980d 59bbcfed41cd4671 ad6abc438f83e6a3",
    "n1-t3-gemm-ref-weights": "82a1b695880c794b 9d3a6815c4102cc5 b82e270c89137b11 5c51fe94e657f8d9",
    "n1-t3-data-256": "74fcc9711973139c 323f40c72747a7b3 e5f2acb561857f06 eb50c3d10598dae3",
    "n1-t8-padded-1x1-gemm-ref": "6a65713bd21874dc 1cc4d12d7bf367f4 956b1e3cd56ce52f 25d55d91afa23bd0",
    "n1-t8-kernel-in-padding": "6f06b6ab2cf153be 1c6b0646daff18ef e0fef3b091cf5975 e99dc18eb788fb83",
}


@pytest.mark.parametrize("case", ODD_THREAD_CASES, ids=[f"{c[0]}-t{c[1]}-{c[2]}" for c in ODD_THREAD_CASES])
def test_three_and_eight_threads_recorded(case: tuple) -> None:
    """V1's (jit:sve_256's balance over images and (image, row) units, jit_1x1's pixel-block units,
    the bias reducer), V2's and N1's (gemm:ref's image split and sgemm threads) convolutions on three
    and eight threads bit for bit, every output; the profile at two and at four threads gives other
    bits, so the thread count is shown to matter."""
    core, threads, name, x_shape, w_shape, stride, padding, seed = case
    x, w, b, dy = _onednn_inputs(x_shape, w_shape, stride, padding, seed)
    profile_name = {"n1": "arm64-neon", "v1": "arm64-sve256", "v2": "arm64-sve128"}[core]
    st, pd = (stride, stride), (padding, padding)

    def digests(count: int) -> list[str]:
        profile = get_profile(profile_name, count)
        got = [conv.conv2d(x, w, b, st, pd, profile), *conv.conv2d_backward(dy, x, w, st, pd, True, profile)]
        return [digest(v) for v in got]

    want = ODD_THREAD_DIGESTS[f"{core}-t{threads}-{name}"].split()
    assert digests(threads) == want, name
    for other in (2, 4):
        assert digests(other) != want, (name, other)


@pytest.mark.parametrize("profile_name", ["arm64-neon", "arm64-sve128", "arm64-sve256"])
def test_unmeasured_thread_counts_are_refused(profile_name: str) -> None:
    """oneDNN's and ACL's convolutions on aarch64 at thread counts not measured (measured: 1, 2, 3, 4
    and 8): refused in one line, forward and backward, not given the thread-split rules' bits."""
    x, w, b, dy = _onednn_inputs((4, 27, 13, 18), (24, 27, 3, 3), 2, 1, 101)
    for threads in (5, 6, 7, 9, 16):
        profile = get_profile(profile_name, threads)
        with pytest.raises(ParityError, match=f"on {threads} threads are not measured"):
            conv.conv2d(x, w, b, (2, 2), (1, 1), profile)
        with pytest.raises(ParityError, match=f"on {threads} threads are not measured"):
            conv.conv2d_backward(dy, x, w, (2, 2), (1, 1), True, profile)
    assert conv.ARM64_THREADS == (1, 2, 3, 4, 8)
