"""Channels-last conv2d at the baseline level (harness.impl.conv_nhwc, conv_nhwc_backward), torch-free:
the impl's outputs against torch 2.13.0's, recorded as SHA-256 of their uint32 bits
(ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41, MKL_ENABLE_INSTRUCTIONS=SSE4_2, on an AMD EPYC
(Zen 3); x and grad_output channels-last, the weight a torch allocation; one channel and one pixel
made channels-last by ``torch.empty(..., memory_format=torch.channels_last).copy_``, which keeps
channels-last strides). Inputs:
np.random.default_rng(seed), x, w, b, dy standard normal float32 in that order. Each case names the
kernel it pins (``conv_nhwc.sse41_kinds``).
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import conv_nhwc, conv_nhwc_backward
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# name, x shape, w shape, stride, padding, groups, threads, seed, SHA-256 of (y, grad_input, grad_weight, grad_bias)
CASES = (
    (
        "dw_1x4_rows_of_1",
        (2, 152, 1, 16),
        (152, 1, 1, 4),
        (1, 1),
        (0, 3),
        152,
        2,
        7,
        (
            "61475ce2236b0cf3c0bc2f62496f460122db8fba827214462539be4a3c7320d7",
            "633fbccdbdeff95a3aa1e876ccb9e8bec534b4d3edd8927b33fc64e0d70f3d29",
            "4845920067aabd8e33868cc6ddcb7c44153d25c3e9972b234804fca3ba8c40ee",
            "8f9249ad83a8f0494c3909b73037be3d7ec5dd214a59d8b2db9527b20fef9d28",
        ),
    ),
    (
        "gemm_jit_c13_3x3",
        (3, 13, 7, 5),
        (11, 13, 3, 3),
        (1, 1),
        (1, 1),
        1,
        1,
        11,
        (
            "20fc1a51fa274d967caae2674a16dcc7bac50e98a1d764c64dc6a96b9deb29fd",
            "a7050f597b5df4e03247b255cceb3bdac24ae962f30c4a976705d6138e7a14a6",
            "23155aa73734d50b04bf69888db74d61f5df5157688d5725b82e631d1db10310",
            "42c5113bde05440c961abafd30023434ea994761e3605e460a5298aca8a9d020",
        ),
    ),
    (
        "thnn_cl_1x1",
        (4, 32, 4, 4),
        (8, 32, 1, 1),
        (1, 1),
        (0, 0),
        1,
        1,
        3,
        (
            "65947ff5c9c8407987a9e46ff16ace530bf0aa72534bfceaab0ae3faa82ec297",
            "bd6268b189ec0cc9992b5055e8e6826a0c91f8ebc497f2ef4b3b1501648cba6f",
            "6de51840801647b0ef479151f4e5a350a7bfd37858ed8063c7bacca206bc7ca5",
            "e592191be2ff4ed941f6fc6ebdf272dd598887c7f49cfcd30c9fed46bd3aec45",
        ),
    ),
    (
        "jit_dw_w_split_oh",
        (1, 8, 6, 6),
        (8, 1, 3, 3),
        (1, 1),
        (1, 1),
        8,
        2,
        5,
        (
            "f6a40a8c1b5df2829268590fd4d249d2cfb2b73952fb5a9290bebfd4b83c6b39",
            "c5020138859e4b969a6ab2c51f0a90e8d17597468144250630103bcec9e0fefa",
            "2becf9742f82996cf45369f3de089a30218c1d742f8d1cb4792f3b2d0903d1bc",
            "ec12aec4c3fbc7c4c993e6698bab519f7977ac8f264a7ec0723709936ffd77e6",
        ),
    ),
    (
        "gemm_jit_blocked_fwd",
        (2, 64, 12, 12),
        (41, 64, 3, 3),
        (1, 1),
        (1, 1),
        1,
        2,
        13,
        (
            "a7d20ff42b82938faf66daa5fd0010a7d94602422f6606ecd43f88cbdb29f944",
            "bd111378e4969182f5ce79e4ef72a7dedecd4017ae7d245abb3131fcbf530225",
            "98e516bf511fd559fb26753bed42787138d1de583c880bd8218fdd9b5b00c09f",
            "c812f6cf5f0d9a8bfd80cc95f1f0d6158b133d5d6950fe80f826aed3c4f1c63c",
        ),
    ),
    (
        "jit_sse41_s2_gemm_bwd",
        (2, 8, 9, 9),
        (8, 8, 3, 3),
        (2, 2),
        (1, 1),
        1,
        2,
        17,
        (
            "2190aab433127412ffdbebdb8c03e70c26ad5d465294c3d3f74961b5f8853c07",
            "8b8426a55502dcc8218bcfdf4a503815c1d8e9b9d272787f4e3dc80f849f07ae",
            "b532a1df42a06f6fb989d021ee3f1e216ddd4ab069a49e43c583cd2cd9a00643",
            "5c6f58ed890615362769055b8a8b45d41398a6f20412223ff1cffc6588d641df",
        ),
    ),
    (  # one input channel of channels-last strides (a channels-last convolution's one-channel output)
        "one_channel_gemm_jit_3x3",
        (2, 1, 9, 7),
        (16, 1, 3, 3),
        (1, 1),
        (1, 1),
        1,
        2,
        21,
        (
            "15ae77b397bf359af68d704eb06089f4014e1b872f6f6bf9fc9480f8850f2113",
            "6b278b9273067e5a8ace04258b82779840a8120a6afa02b65509878636380edb",
            "0a5c94b5c3b0889dce34d1caf7eed2d49131c14004fbcfb461ac99ea46955ac4",
            "5febd589126a0a9114015243f64e5c3704b66602366adfd398fd0bcf255137ec",
        ),
    ),
    (  # one pixel of channels-last strides (UperNet's pooled map): jit_1x1:sse41 forward, gemm:jit backward
        "pooled_pixel_jit_1x1",
        (20, 24, 1, 1),
        (16, 24, 1, 1),
        (1, 1),
        (0, 0),
        1,
        2,
        22,
        (
            "5ebafe214fba3ab8ebc1620a3ab21a33e32dcd2328566a7dcc94412b21eb0516",
            "bb160ed98558d212240274647c6f31922f9fc6b2131655c5f386129321d7f2b5",
            "59bfdb6ef4c84791f39e863216d2401666a13126a881baad009b766207a1b2d1",
            "da63b45536229bf4862f1b779cdf6b6d43e90fd173768866134cc57938d40754",
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_channels_last_conv_matches_torch(case):
    _name, xs, ws, stride, padding, groups, threads, seed, digests = case
    r = np.random.default_rng(seed)
    x = r.standard_normal(xs).astype(np.float32)
    w = r.standard_normal(ws).astype(np.float32)
    b = r.standard_normal(ws[0]).astype(np.float32)
    oh = (xs[2] + 2 * padding[0] - ws[2]) // stride[0] + 1
    ow = (xs[3] + 2 * padding[1] - ws[3]) // stride[1] + 1
    dy = r.standard_normal((xs[0], ws[0], oh, ow)).astype(np.float32)
    p = profile_for_capability("DEFAULT", threads, "x86_64")
    assert conv_nhwc.declines(xs, ws, stride, padding, groups, p) == ""
    assert conv_nhwc_backward.declines(xs, ws, stride, padding, groups, p) == ""
    y = conv_nhwc.conv2d(x, w, b, stride, padding, groups, p)
    gx, gw, gb = conv_nhwc_backward.conv2d_backward(dy, x, w, stride, padding, groups, True, p, (True,) * 3)
    assert [bits_sha256(a) for a in (y, gx, gw, gb)] == list(digests)
    masked = conv_nhwc_backward.conv2d_backward(dy, x, w, stride, padding, groups, True, p, (False, True, False))
    assert masked[0] is None and masked[2] is None and bits_sha256(masked[1]) == digests[2]


@pytest.mark.parametrize(
    ("xs", "ws", "groups", "threads", "words"),
    [
        ((2, 8, 5, 5), (8, 1, 1, 1), 8, 1, "slow_conv2d per group"),
        ((2, 8, 5, 5), (16, 1, 3, 3), 8, 1, "not depthwise"),  # a channel multiplier (groups of several: modelled)
    ],
)
def test_declines(xs, ws, groups, threads, words):
    p = profile_for_capability("DEFAULT", threads, "x86_64")
    padding = (1, 1) if ws[2] == 3 else (0, 0)
    assert words in conv_nhwc.declines(xs, ws, (1, 1), padding, groups, p)
    with pytest.raises(ParityError):
        conv_nhwc.conv2d(np.zeros(xs, np.float32), np.zeros(ws, np.float32), None, (1, 1), padding, groups, p)
