"""Convolutions where padding meets what the impl had skipped or refused, replayed through the trace replay
(harness.trace.impl_ops.replay) against torch's recorded bits (torch 2.13.0 on an AMD EPYC Zen 5; the level by
ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA, the thread count by torch.set_num_threads).

- gemm:jit at SSE4.1 (NCHW) multiplies im2col's padding zeros: a NaN weight gives NaN in the forward's padded
  outputs and a NaN grad_output NaN in grad_weight (harness.impl.conv ``im2col_zeros``; the forward had given
  numbers there, grad_weight was refused).
- jit_dw:sse41's grad_input on channels-last memory takes any padding: a kernel reaching wholly into the padding
  runs it too, not gemm:jit's col2im (the model had given other bits).
- ATen's slow_conv2d per group (a 1x1 depthwise kernel at stride 1 on one thread) computes a padded input's
  columns for every image into one buffer (compute_columns2d), whose alignment MKL's sgemm follows (grad_weight
  had other bits).
- AVX2's channels-last backward with padding over 3 where no kernel side lies wholly in it (refused before).
- At avx512_core, channels-last grad_weight and grad_bias where jit:avx512_core's weights kernel declines the
  padding (and jit_dw's, depthwise): oneDNN runs jit:avx2 or gemm:jit, the AVX2 level's models (refused before).
- Channels-last grad_input of a kernel over 1x1 at stride 1 with a side wholly in the padding: brg_conv_bwd
  declines, gemm:jit nspc or ref:any runs it; refused (the model had run brg_conv_bwd's and given other bits), its
  forward and weights (AVX2) bit for bit.

Inputs (``operands``): input, weight, bias and grad_output standard normal float32 from
``np.random.default_rng(seed)`` in that order; ``special`` puts one signalling NaN into the weight ("weight") or a
negative quiet NaN into grad_output ("grad_output") at a fixed place. ``WANT``: SHA-256 of torch's output,
grad_input, grad_weight and grad_bias as uint32 (C order), "refused" for a pass the replay must refuse (ParityError).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import KernelProfile, profile_for_capability
from harness.trace.impl_ops import replay
from tests.bit_digest import bits_sha256

_SNAN, _NEG_QNAN = 0x7F800005, 0xFFC00123

# name: level, threads, input and weight shapes, stride, padding, groups, channels-last, special, seed
GEOMETRIES: dict[str, dict[str, Any]] = {
    "gemm_fwd_1d": dict(level="default", threads=1, x=(2, 64, 3), w=(8, 64, 1), stride=[2], padding=[1], groups=1,
                        channels_last=False, special="weight", seed=1),
    "gemm_fwd_1x7": dict(level="default", threads=4, x=(3, 24, 11, 6), w=(64, 24, 1, 7), stride=[2, 2],
                         padding=[0, 6], groups=1, channels_last=False, special="weight", seed=2),
    "gemm_fwd_dw": dict(level="default", threads=2, x=(2, 8, 9, 9), w=(8, 1, 3, 3), stride=[1, 1], padding=[3, 3],
                        groups=8, channels_last=False, special="weight", seed=3),
    "gemm_weights": dict(level="default", threads=2, x=(3, 16, 10, 9), w=(8, 16, 3, 3), stride=[1, 1],
                         padding=[2, 1], groups=1, channels_last=False, special="grad_output", seed=4),
    "nhwc_dw_data_s2": dict(level="default", threads=1, x=(1, 64, 14, 13), w=(64, 1, 3, 3), stride=[2, 2],
                            padding=[3, 1], groups=64, channels_last=True, special="", seed=5),
    "nhwc_dw_data_5x5": dict(level="default", threads=2, x=(3, 8, 17, 9), w=(8, 1, 5, 5), stride=[1, 1],
                             padding=[5, 0], groups=8, channels_last=True, special="", seed=6),
    "thnn_dw_1x1": dict(level="default", threads=1, x=(4, 8, 11), w=(8, 1, 1), stride=[1], padding=[1], groups=8,
                        channels_last=False, special="", seed=7),
    "thnn_dw_1x1_avx2": dict(level="avx2", threads=1, x=(4, 8, 3, 11), w=(8, 1, 1, 1), stride=[1, 1],
                             padding=[0, 1], groups=8, channels_last=False, special="", seed=8),
    "avx2_nhwc_pad5": dict(level="avx2", threads=2, x=(2, 16, 12, 12), w=(24, 16, 7, 7), stride=[1, 1],
                           padding=[5, 4], groups=1, channels_last=True, special="", seed=9),
    "avx2_nhwc_dw_pad6": dict(level="avx2", threads=4, x=(2, 32, 10, 11), w=(32, 1, 7, 7), stride=[2, 2],
                              padding=[4, 6], groups=32, channels_last=True, special="", seed=10),
    "avx512_nhwc_jit_avx2": dict(level="avx512", threads=2, x=(2, 16, 10, 9), w=(24, 16, 3, 3), stride=[1, 1],
                                 padding=[2, 1], groups=1, channels_last=True, special="", seed=11),
    "avx512_nhwc_dw_jit_avx2": dict(level="avx512", threads=4, x=(2, 24, 10, 9), w=(24, 1, 3, 3), stride=[1, 1],
                                    padding=[2, 1], groups=24, channels_last=True, special="", seed=12),
    "avx512_nhwc_dw_gemm": dict(level="avx512", threads=2, x=(2, 32, 10, 9), w=(32, 1, 3, 3), stride=[1, 1],
                                padding=[3, 3], groups=32, channels_last=True, special="", seed=13),
    "avx2_nhwc_data_outside": dict(level="avx2", threads=2, x=(3, 16, 6, 11), w=(24, 16, 3, 3), stride=[1, 1],
                                   padding=[3, 1], groups=1, channels_last=True, special="", seed=14),
    "avx512_nhwc_data_outside": dict(level="avx512", threads=1, x=(3, 16, 4, 11), w=(24, 16, 5, 5), stride=[1, 1],
                                     padding=[5, 1], groups=1, channels_last=True, special="", seed=15),
}  # fmt: skip

# name: SHA-256 of torch's (out, grad_input, grad_weight, grad_bias)
WANT: dict[str, tuple[str, str, str, str]] = {
    "gemm_fwd_1d": (
        "31dfd1b8efb62ab8152b469219f995cad3ced180dda48d779c251d35a8c2c9ae",
        "57d28161da1b9212cb106d90d20923e345b97bda0cb306fe63bcce105627e14d",
        "a6db57284047acd879c0363d873f9656992fe2fc14adc43014036c32fc5a5180",
        "2ceaff1a424249ae646eb624ca124e260e67ec892252e2ae4ca7ec69a3ae404d",
    ),
    "gemm_fwd_1x7": (
        "71086a318b25530df02b4e8b634f2b2bff9d3d42c35790c4470c6fe70e889818",
        "2213b6369c0512e16a605c031bb74cd34289f7b5387a37dc71252cbe27f06fe0",
        "786bd8c4889b1ebd8d2290122e2a5445524dc7d47e85af09aefbfb7fd6b4c651",
        "6a76039e5bf1375f007a1821d88e77ea53f7006aafa0f5e669b22210dcc934c1",
    ),
    "gemm_fwd_dw": (
        "454c260a5742341f99aa0efb08a5ee83822100817188019d8f59359246b0a080",
        "827335e71dc8dcc00c606b44e663fa054865a0b267b699f83eddd1da6b3430ea",
        "8441fbb4859c3182595edda9b26775fd3cfba8e534c00be9357a90e44b97e505",
        "eebfcc6675840d63bfcbaca4dc0e35675af6585f88d9f0cd9abe3d938b99444e",
    ),
    "gemm_weights": (
        "1fdc95318b01f51ce6b6986b88f786be3bc88e0cddc57e86dedfd563c444e3f6",
        "1ad231a99daad1afd838dfddce87d8bde7b1c3b319a4b3379e36b68f676d49c8",
        "3d544dd48587dc38ad64c01c1923ae33eb4e2c82163f3d4924c5d405680100e1",
        "2dd6890f76efb3a780af17eaf945a44746bdc01a1de304c482ce112729f4862e",
    ),
    "nhwc_dw_data_s2": (
        "67918f78eba312d553865b042d85c77d9efbe7927bbb97699235120953525d8b",
        "9d40f06c68ea1d7eb8a20366e38a749ad272c28c99268621c91ae357349ba2cb",
        "42c8d118d1a625c53390c239790d8809682904c5db5b3bc68ac108ad0336c690",
        "f19fc1ac9309698325878892da83c47933200f34e3e8c7457ba9271b6a895033",
    ),
    "nhwc_dw_data_5x5": (
        "1804cbc32fa452e56a97d706e469cd90ce11b2e5dc6b087960221a7154995c8a",
        "8827e7570aa6aadde1ff888a97559f638f3f11bbb9b08d055fb747e5c3a70897",
        "3b2be42e184fefa3d1095ff9a0518a0b256cebe7b23633a984941d6f2696cf1a",
        "57bc0d1cc15a0df85760e30ef8a0a8d6ec0c5d8653df6edb745956dc728a2ac0",
    ),
    "thnn_dw_1x1": (
        "9a63a02007a3c069381381c6678eaf24431a1e8a706c56b3b89b4ae0d4a21e4d",
        "e45e3719bf62e809c43eee6dc96114a177c7ec054e32c4b11ef8e88cf06a7dbd",
        "77eff1edc29183d4b5809bb3f23e272838ed6532010a669b05587aee48200f36",
        "0bd276c81fc65c53336776ddcc7c6ebfa90e46289d2bac00b878287da0066f21",
    ),
    "thnn_dw_1x1_avx2": (
        "417dcf3dd868136a8cabe2281f19c1ec3c2d079164360022d9bcc683988644f3",
        "930b5e065746128f2f7509f220eb5a086acea58a0a98867f1dbf343055c522f0",
        "bf4931decf38b53da3f48a0545860cdc50e4faa3a1c884c2bd2b4ce84ad97efc",
        "e9d26489757aa60652c78afc92ec401e40fda4b53cdd33e631568d183a7e6627",
    ),
    "avx2_nhwc_pad5": (
        "bda88a09739ba7269588880bf59d50ab3273ca48a42aaf998efc4cb0c73e093a",
        "7225503a9e6c31300feb30a444e14c021b468ddc3659ea67605907123357ac43",
        "1b812a979a4d236abd34522031a01813b245e91ec8c847cbf96aa2a39c3fbf43",
        "786e2f77f487067ac78e3716fdbf8e6edb2857f9e2224c23f076152819e9f32b",
    ),
    "avx2_nhwc_dw_pad6": (
        "c70d04a2d9d5b850804306df2469a254c302609edf140b181117488b3903ff2a",
        "c61e01a758df9972e01ec1101b0329e591c1c2fbc8a0f9fd6991ff9fa603f967",
        "ff3660066936dc454be4da8a07875ccf81344e9f30436c04dfec1e51e4d5e192",
        "59d05ca426394b46df98bfc8a80f1d5a478525b611495abfbe965c324873d95c",
    ),
    "avx512_nhwc_jit_avx2": (
        "c3875738667c2fe410a1e4b79088865e3991f3d1010fe9456169bf6f5345b23c",
        "6a6d3dfd18046e86ba8094757e5ce1d3bc1e6ff68252b163ee074955df92a0a5",
        "8d2d374b6e81c6b66d17b75c39f9b1220331073a734ddc124bed86df7db5d604",
        "b2532162c3f8aad6d6355c61e267073ff2aeb1c4b44da7eb7be5cc39876ee1ac",
    ),
    "avx512_nhwc_dw_jit_avx2": (
        "40d9c17747bda89a8464eca673ea8cea09fe1aa3788f6a3e33a96e9624f5c3f7",
        "0f196558e7a210ec6ac0493e86305d90cfb50a6eedd44223aa5e7d2835543b51",
        "bd4c8a5939dca7dc80d94986eecc9bdcdf1078ff98de8163f60f776da9de0e60",
        "c7670825aecdd755156763e388b152208f8513970490637860b2faaba96099ee",
    ),
    "avx512_nhwc_dw_gemm": (
        "f6c4be170fa03c833b888947e33aff5666a199b47b0f57301c76b6ee6dc989d6",
        "81392685ae2b5fc1700cdb4d9e76d58c8d5cc7da4fdcbafb442eae5396b0c3f3",
        "d45575b8917f6dd7db9e3734c1e5bd5d3a3372dbf1b671fb86094e05ce31d953",
        "11d088164cd874589a9237e19ba03166f24ef6ac17978fcd0155bb5a7ebf9378",
    ),
    "avx2_nhwc_data_outside": (
        "dc9ac5b61ebe444e951111d7b8f15aab6460c8f09b494918a8c9b2ebf60d8563",
        "refused",
        "9d971d4ea06b57348f570bb769ba0c0eee97a5278d31b1864018a83b9bc98753",
        "02a6e5fe792d42f03e4f020c5a0a70d07f69391bbe739b6424635abf7f52128f",
    ),
    "avx512_nhwc_data_outside": (
        "76cee5889082830716b72d812e2b67d169d0157d97c4f4a64c81f913e6b0a42e",
        "refused",
        "refused",
        "refused",
    ),
}


def operands(geo: dict[str, Any]) -> dict[str, np.ndarray]:
    """The case's input, weight, bias and grad_output (its special value placed)."""
    rng = np.random.default_rng(geo["seed"])
    x = rng.standard_normal(geo["x"], dtype=np.float32)
    w = rng.standard_normal(geo["w"], dtype=np.float32)
    b = rng.standard_normal(geo["w"][0], dtype=np.float32)
    spatial = [
        (size + 2 * p - k) // s + 1
        for size, k, s, p in zip(geo["x"][2:], geo["w"][2:], geo["stride"], geo["padding"], strict=True)
    ]
    dy = rng.standard_normal((geo["x"][0], geo["w"][0], *spatial), dtype=np.float32)
    if geo["special"] == "weight":
        w.reshape(-1).view(np.uint32)[w.size // 3] = _SNAN
    if geo["special"] == "grad_output":
        dy.reshape(-1).view(np.uint32)[1] = _NEG_QNAN
    return {"input": x, "weight": w, "bias": b, "grad_output": dy}


def _strides(a: np.ndarray, channels_last: bool) -> list[int]:
    if channels_last:
        _n, c, h, w = a.shape
        return [h * w * c, 1, w * c, c]
    return [s // 4 for s in a.strides]


def args(geo: dict[str, Any], ops: dict[str, np.ndarray], which: int) -> tuple[dict, list[dict]]:
    """The replay's inputs and captured arguments for pass ``which`` (0 the forward, 1 to 3 the gradients)."""
    names = ("input", "weight", "bias") if which == 0 else ("grad_output", "input", "weight")
    inputs = {k: ops[k] for k in names}
    cl = geo["channels_last"]
    out = [{"name": k, "tensor": k, "stride": _strides(ops[k], cl and k != "bias"), "shape": list(ops[k].shape),
            "dtype": "float32"} for k in names]  # fmt: skip
    nd = len(geo["stride"])
    values: dict[str, Any] = {"stride": geo["stride"], "padding": geo["padding"], "dilation": [1] * nd,
                              "transposed": False, "output_padding": [0] * nd, "groups": geo["groups"]}  # fmt: skip
    if which:
        values |= {"bias_sizes": [geo["w"][0]], "output_mask": [which == i for i in (1, 2, 3)]}
    return inputs, out + [{"name": k, "value": v} for k, v in values.items()]


def profile(geo: dict[str, Any]) -> KernelProfile:
    """The recording host's profile: its level and threads, the Zen 5's 48 KiB L1 and 1 MiB L2 a core."""
    level = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}[geo["level"]]
    return profile_for_capability(level, geo["threads"], "x86_64").with_l1_per_core(48 << 10).with_l2_per_core(1 << 20)


@pytest.mark.parametrize("name", sorted(WANT))
def test_recorded_bits(name: str) -> None:
    geo = GEOMETRIES[name]
    ops = operands(geo)
    for which, want in enumerate(WANT[name]):
        op = "convolution" if which == 0 else "convolution_backward"
        key = "out" if which == 0 else f"out{which - 1}"
        if want == "refused":
            with pytest.raises(ParityError):
                replay(op, *args(geo, ops, which), profile(geo))
            continue
        got = replay(op, *args(geo, ops, which), profile(geo))[key]
        assert bits_sha256(got) == want, (name, which)


def test_a_strided_grad_input_whose_kernel_outgrows_grad_output_is_refused_for_what_it_is() -> None:
    """brgconv_strided:avx2's grad_input of a 7x7 kernel at stride 4 with padding (2, 6) (grad_output 2x3): the
    forward its channel blocks are read from has no output; the refusal says so (it had said "conv2d: empty
    output", though torch's grad_input has 2 x 48 x 8 x 5 elements)."""
    geo = dict(level="avx2", threads=2, x=(2, 48, 8, 5), w=(24, 48, 7, 7), stride=[4, 4], padding=[2, 6], groups=1,
               channels_last=True, special="", seed=16)  # fmt: skip
    with pytest.raises(ParityError, match=r"brgconv_strided:avx2's grad_input where the 7x7 kernel outgrows") as err:
        replay("convolution_backward", *args(geo, operands(geo), 1), profile(geo))
    assert "empty output" not in str(err.value)


@pytest.mark.parametrize("level", ["avx2", "avx512"])
def test_strided_nchw_grad_input_over_an_infinite_weight_is_refused(level: str) -> None:
    """brgconv_strided's grad_input (NCHW, a 3x3 at stride 2, padding (2, 0), 9 input columns: exec_trans)
    multiplies the weights by grad_output's zeros past its last column: an infinite weight gives NaN in the last
    input column where the model had numbers (torch at avx2 and avx512_core on 1 thread, 8 of 432 elements); now
    refused, the finite case still replayed."""
    geo = dict(level=level, threads=1, x=(4, 4, 3, 9), w=(8, 4, 3, 3), stride=[2, 2], padding=[2, 0], groups=1,
               channels_last=False, special="", seed=17)  # fmt: skip
    ops = operands(geo)
    replay("convolution_backward", *args(geo, ops, 1), profile(geo))
    ops["weight"][0, 0, 2, 0] = -np.inf
    with pytest.raises(ParityError, match=r"brgconv_strided's grad_input over NaN or infinite operands"):
        replay("convolution_backward", *args(geo, ops, 1), profile(geo))
