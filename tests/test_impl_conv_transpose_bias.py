"""harness.impl.conv_transpose's grad_bias of oneDNN's deconvolution against torch's recorded bits (torch
2.13.0+cpu on an AMD Zen 3, the baseline and avx2 levels, 1 and 2 threads: the sum runs one thread a
channel, so the bits do not depend on threads).

ref_deconvolution_bwd_weights_t::compute_bias sums grad_output in the layout the adjoint convolution's
backward-weights kernel took: nChw8c (jit:avx2 on blocks of channels, jit_1x1:avx2) one chain over every
(image, oh, ow) per channel; nchw (gemm:jit, every one at baseline, jit:avx2 on 3 flat channels)
compute_bwd_bias_ncdhw, per image a chain from 0, the images' sums added one by one. The grad_outputs
span six decades, so that the two orders give other bits on every case (checked below).
Digests: SHA-256 of torch's grad_bias as uint32."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import conv, conv_transpose
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256
from tests.impl_live import assert_bits_equal, live_profile, needs_verified_profile, use_threads

# name -> (input shape, weight shape, stride, padding) of F.conv_transpose1d / conv_transpose2d
CASES = {
    "flat3": ((3, 3, 35), (3, 3, 3), 1, 0),  # avx2: jit:avx2 on 3 flat channels (nchw)
    "blocked": ((3, 5, 28), (5, 7, 4), 1, 0),  # avx2: jit:avx2 on a block of 8 (nChw8c)
    "strided2d": ((2, 4, 7, 7), (4, 6, 3, 3), 2, 1),  # avx2: blocks; baseline: gemm:jit
    "gemm": ((4, 2, 9), (2, 5, 15), 1, 7),  # avx2: jit:avx2 declines 15 columns, gemm:jit (nchw)
}

# (capability, case) -> SHA-256 of torch's grad_bias as uint32
RECORDED = {
    ("DEFAULT", "flat3"): "045494a9af28223523efbcbc11ce36ebc854fc1d85c7e7acffd2e028f50b532d",
    ("DEFAULT", "blocked"): "85ba54bf5bc320e6e8e36ec4374c2f1bc393bc89710e7e9b15c2b5939f9d1015",
    ("DEFAULT", "strided2d"): "6d45e8ef8e95091ce27855a018bf5b33b3ecdc428ab5c0f28acd94c91cc3ad23",
    ("DEFAULT", "gemm"): "b819a164e32fc5c7be22f7287f80e713af784a8758d1771df0f007e4ba53b561",
    ("AVX2", "flat3"): "045494a9af28223523efbcbc11ce36ebc854fc1d85c7e7acffd2e028f50b532d",
    ("AVX2", "blocked"): "8218c3f33b1f85fa36c862f2babaa64e144461d5602116dbcd9184cb783358b1",
    ("AVX2", "strided2d"): "896f9640b4cc39ab8c0d97653345939be1b10ed046392c235fdd9c0aa2d5f8f2",
    ("AVX2", "gemm"): "b819a164e32fc5c7be22f7287f80e713af784a8758d1771df0f007e4ba53b561",
}

# (capability, case) -> whether the sum runs over a plain grad_output (per image)
PLAIN = {(cap, case): cap == "DEFAULT" or case in ("flat3", "gemm") for cap, case in RECORDED}


def _operands(x_shape, w_shape, stride: int, padding: int):
    """(x, w, b, grad_output) from NumPy, grad_output of the transposed convolution's output shape."""
    r = np.random.default_rng(sum(x_shape) * 1000 + sum(w_shape))
    x = r.standard_normal(x_shape).astype(np.float32)
    w = (r.standard_normal(w_shape) * 0.3).astype(np.float32)
    b = r.standard_normal(w_shape[1]).astype(np.float32)
    out = [(s - 1) * stride - 2 * padding + k for s, k in zip(x_shape[2:], w_shape[2:], strict=True)]
    dy = r.standard_normal((x_shape[0], w_shape[1], *out)) * 10.0 ** r.uniform(-3, 3, (x_shape[0], w_shape[1], *out))
    return x, w, b, dy.astype(np.float32)


def _as_2d(x_shape, w_shape, stride: int, padding: int):
    """The 2-D (shapes, stride, padding) ATen runs a 1-D transposed convolution as."""
    if len(x_shape) == 4:
        return x_shape, w_shape, (stride, stride), (padding, padding)
    return (*x_shape[:2], 1, x_shape[2]), (*w_shape[:2], 1, w_shape[2]), (1, stride), (0, padding)


def _grad_bias(case: str, capability: str, threads: int) -> np.ndarray:
    x_shape, w_shape, stride, padding = CASES[case]
    x, w, _, dy = _operands(x_shape, w_shape, stride, padding)
    x4, w4, s2, p2 = _as_2d(x_shape, w_shape, stride, padding)
    profile = profile_for_capability(capability, threads)
    dy4 = dy.reshape(dy.shape[0], dy.shape[1], -1, dy.shape[-1])
    grads = conv_transpose.conv_transpose2d_backward(
        dy4, x.reshape(x4), w.reshape(w4), s2, p2, (0, 0), True, profile, (False, False, True)
    )
    return grads[2]


@pytest.mark.parametrize("capability, case", sorted(RECORDED))
@pytest.mark.parametrize("threads", [1, 2])
def test_recorded_bits(capability: str, case: str, threads: int) -> None:
    x4, w4, s2, _ = _as_2d(*CASES[case])
    assert not conv_transpose.runs_slow(x4, w4, s2, profile_for_capability(capability, threads))  # oneDNN's
    assert bits_sha256(_grad_bias(case, capability, threads)) == RECORDED[(capability, case)]


@pytest.mark.parametrize("capability, case", sorted(RECORDED))
def test_layout_decides_the_order(capability: str, case: str) -> None:
    """The two orders differ on every case, and the impl takes the one of the layout torch ran."""
    x_shape, w_shape, stride, padding = CASES[case]
    dy = _operands(x_shape, w_shape, stride, padding)[3]
    dy4 = dy.reshape(dy.shape[0], dy.shape[1], 1, -1)
    pixels = dy4.shape[-1]
    per_image = conv._bias_grad(dy4, list(range(0, dy4.shape[0] * pixels + 1, pixels)))
    chain = conv._bias_grad(dy4, [0, dy4.shape[0] * pixels])
    assert bits_sha256(per_image) != bits_sha256(chain)
    want = per_image if PLAIN[(capability, case)] else chain
    assert bits_sha256(_grad_bias(case, capability, 1)) == bits_sha256(want)


# SAM's upscale_conv2 shape on a channels-last input (oneDNN's deconvolution on nhwc memory): torch's
# forward, grad_input, grad_weight and grad_bias digests per (level, threads). The thread count parts
# grad_weight at avx2 (conv:any+jit:avx2's threads' sums); grad_bias (compute_bwd_bias_ndhwc) is one
# at every level.
NHWC_DIGESTS = {
    ("AVX2", 1): ("2292676e285f9f72fddb51ba23795cf612ea8f5c9d56f9b2b14fe3ed136e66f2",
                  "0ab9c7cfe15c89fd5d0c242bbc255352787df7f2ce717737778f75c25af31aad",
                  "d380be105e5d51d2f19e5e8f3508cc474eb73e1df38065a2554eeb34874b3a1b",
                  "269f24923dcbf8aa39294293888a4c09ff7241d1e8f10093658353b410737f06"),
    ("AVX2", 2): ("2292676e285f9f72fddb51ba23795cf612ea8f5c9d56f9b2b14fe3ed136e66f2",
                  "0ab9c7cfe15c89fd5d0c242bbc255352787df7f2ce717737778f75c25af31aad",
                  "736a35bda2d29ecb44b282949ea8140d282a65b09be01d88a0f286a2514106b2",
                  "269f24923dcbf8aa39294293888a4c09ff7241d1e8f10093658353b410737f06"),
    ("DEFAULT", 1): ("06524b966148a9306be55d9ea8c8989fd9015b8a555992654e9967404572d8bc",
                     "6db17188d39843f1dc529649200973059a29061c2f40291089e5b4f354dd45c2",
                     "fe1c22f200edbcc9b2fad3f20eaa685f8e76aa21f0760e626679f422eca30a8c",
                     "269f24923dcbf8aa39294293888a4c09ff7241d1e8f10093658353b410737f06"),
}  # fmt: skip


@pytest.mark.parametrize("key", list(NHWC_DIGESTS), ids=[f"{c}-t{t}" for c, t in NHWC_DIGESTS])
def test_channels_last_deconvolution_recorded_bits(key: tuple[str, int]) -> None:
    rng = np.random.default_rng(51)
    x = np.ascontiguousarray(rng.standard_normal((2, 16, 16, 4)).astype(np.float32).transpose(0, 3, 1, 2))
    w = rng.standard_normal((4, 2, 2, 2)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    dy = rng.standard_normal((2, 2, 32, 32)).astype(np.float32)
    p = profile_for_capability(key[0], key[1], "x86_64")
    got = [conv_transpose.conv_transpose2d_nhwc(x, w, b, (2, 2), (0, 0), (0, 0), p)]
    got += conv_transpose.conv_transpose2d_nhwc_backward(dy, x, w, (2, 2), (0, 0), (0, 0), True, p)
    assert tuple(bits_sha256(g) for g in got) == NHWC_DIGESTS[key]


# (input shape, weight shape, stride, padding, output_padding) of F.conv_transpose1d / 2d at AVX-512: DAC's
# and EnCodec's upsamplers (brg_deconv's brgconv_strided:avx512_core forward), a stride-1 one
# (jit:avx512_core), one whose adjoint's weights run jit:avx2 below jit:avx512_core (nChw8c grad_bias), one
# of 20 channels (jit:avx512_core's weights, nChw16c), a 1x1 (jit_1x1:avx512_core) and two of one output
# channel whose brgconv_strided:avx512_core finds no blocking: brg_deconv:avx2's brgconv_strided:avx2 runs
# ahead of jit:avx512_core (13 and 27 elements other when the impl ran jit:avx512_core's sums)
AVX512_LIVE = (
    ((2, 8, 64), (8, 4, 4), 2, 1, 0),
    ((2, 16, 32), (16, 8, 8), 4, 0, 0),
    ((2, 9, 5, 7), (9, 6, 3, 3), 1, 1, 0),
    ((2, 17, 19), (17, 12, 2), 3, 1, 2),
    ((3, 6, 4, 5), (6, 20, 3, 2), 2, 1, 1),
    ((2, 24, 3, 5), (24, 18, 1, 1), 1, 0, 0),
    ((1, 2, 2, 2), (2, 1, 8, 8), 4, 0, 0),
    ((1, 1, 3, 3), (1, 1, 10, 10), 2, 0, 0),
)


@needs_verified_profile
@pytest.mark.usefixtures("restore_threads")
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_avx512_deconvolution_live(threads: int) -> None:
    """oneDNN's deconvolution at AVX-512 (the adjoint convolution's AVX-512 kernels, grad_bias in its
    weights kernel's layout) against torch run now: forward and every gradient bit for bit. Before,
    every pass was refused at AVX-512 (DAC's and EnCodec's upsamplers in the zoo at 8 threads)."""
    import torch
    import torch.nn.functional as F

    profile = live_profile()
    if profile.aten != "avx512":
        pytest.skip("runs at the avx512 level (this CPU's torch runs another)")
    use_threads(threads)
    profile = profile.with_threads(threads)
    for i, (x_shape, w_shape, stride, padding, out_pad) in enumerate(AVX512_LIVE):
        rng = np.random.default_rng(60 + i)
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = (rng.standard_normal(w_shape) * 0.3).astype(np.float32)
        b = rng.standard_normal(w_shape[1]).astype(np.float32)
        tx, tw, tb = (torch.from_numpy(a).requires_grad_() for a in (x, w, b))
        op = F.conv_transpose1d if len(x_shape) == 3 else F.conv_transpose2d
        y = op(tx, tw, tb, stride, padding, out_pad)
        dy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(torch.from_numpy(dy))
        x4, w4, s2, p2 = _as_2d(x_shape, w_shape, stride, padding)
        op2 = (0, out_pad) if len(x_shape) == 3 else (out_pad, out_pad)
        dy4 = dy.reshape(dy.shape[0], dy.shape[1], -1, dy.shape[-1])
        got = [conv_transpose.conv_transpose2d(x.reshape(x4), w.reshape(w4), b, s2, p2, op2, profile)]
        got += conv_transpose.conv_transpose2d_backward(dy4, x.reshape(x4), w.reshape(w4), s2, p2, op2, True, profile)
        wants = (y, tx.grad, tw.grad, tb.grad)
        for name, mine, want in zip(("out", "grad_input", "grad_weight", "grad_bias"), got, wants, strict=True):
            assert_bits_equal(f"{x_shape} {w_shape} {name}", want.detach().numpy(), mine.reshape(want.shape))
