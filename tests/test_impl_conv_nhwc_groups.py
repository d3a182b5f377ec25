"""harness.impl.conv_nhwc's forward of groups of several channels (not depthwise) on channels-last memory
against torch's recorded bits (torch 2.13.0, a Zen 5): at AVX2 (ATEN_CPU_CAPABILITY=avx2,
ONEDNN_MAX_CPU_ISA=AVX2: oneDNN's brg_conv_fwd:avx2 and brgconv_1x1:avx2 group by group) and, in
``SSE41_CASES``, at the baseline (ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41: gemm:jit nspc over
the groups, jit:sse41 group by group), in ``AVX512_CASES`` at AVX512_CORE (jit:avx512_core on nxc);
``BACKWARD_CASES`` the baseline's backward (gemm:jit nspc),
``AVX2_BACKWARD_CASES`` AVX2's grad_input (at stride 1 brg_conv_bwd:avx2 group by group, at stride 2
brgconv_strided:avx2, jit:avx2 or gemm:jit as ONEDNN_VERBOSE named them),
``AVX2_WEIGHTS_CASES`` its grad_weight and grad_bias of groups of whole blocks of 8 (jit:avx2).

Each case's x (N, C, H, W), w (OC, C / G, KH, KW) and b (OC,) are drawn from ``np.random.default_rng(seed)``
in that order, standard normal float32 (the specials case then sets NaN payloads of both signs, infinities,
-0 and a subnormal); torch ran ``aten.convolution`` on x made channels-last (``torch.empty(...,
memory_format=torch.channels_last).copy_``). The digest is SHA-256 of its output as uint32 (C order). No
host is needed: the impl must give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import conv_nhwc, conv_nhwc_backward
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# (N, C, H, W, OC, KH, KW, SH, SW, PH, PW, groups, seed, threads, specials, output SHA-256)
CASES = (
    # one brgemm call over every tap (exec_vpad)
    (2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 4, 51, 1, False,
     "6ca923f6a43baf9166c2c2dd90a24e42a867072237965bd200f7f2bc3dc355e6"),
    (3, 12, 7, 11, 24, 5, 5, 1, 1, 2, 2, 3, 52, 2, False,
     "78fd3f9e52c61a1b8ecb80a964ac6a6c421e4d4f20676ff6aa61e99fe27329e3"),
    # 7x7 at stride 2, 16 channels a group
    (2, 32, 10, 7, 64, 7, 7, 2, 2, 3, 3, 2, 53, 4, False,
     "04b1438af8eeda13fc8315411251e9e7ebeae2a284ba2570fb3b7913b5af3090"),
    # a 1x1: brgconv_1x1
    (2, 48, 6, 10, 24, 1, 1, 1, 1, 0, 0, 8, 54, 2, False,
     "c2b29e428224d6686c5ff65dfa4bfc913f7639a73d3128e058f464181df0139b"),
    # NaN of both signs, infinities, -0, a subnormal
    (1, 24, 8, 8, 32, 3, 3, 2, 2, 0, 0, 8, 55, 4, True,
     "ff82c7365b6bb3fcad3a58b01c7ec04e1a8d7bdc3a61c708a6d2af669a72e3e8"),
    # exec_base: the search's column blocks of 38, the partial taps in calls of their own
    (1, 48, 11, 34, 48, 3, 7, 1, 1, 3, 5, 3, 56, 4, False,
     "1a027e0d981196a986efe9fa8a3b2273b4665414beb4e32c8140032167857482"),
)  # fmt: skip


# The same at the baseline (SSE4.1)
SSE41_CASES = (
    # gemm:jit nspc: init_conf's outer threading over every group's images (one group's gave other bits)
    (3, 64, 4, 2, 16, 7, 7, 2, 2, 3, 3, 8, 61, 2, False,
     "37b05dfc7b5e0dea6bf21b282719d31263d3f1609eedce08a2d53936ddc1cbb5"),
    # gemm:jit nspc, 4 channels a group
    (2, 12, 9, 8, 24, 3, 3, 1, 1, 1, 1, 3, 62, 1, False,
     "0a41bfae4b9063b4d72baceaeb44bae7b1ed8351aef64a7c6a740b7e06a92cd4"),
    # jit:sse41 group by group (whole blocks of 8 channels; oneDNN reorders to blocked memory)
    (2, 32, 7, 7, 16, 3, 3, 1, 1, 1, 1, 2, 63, 4, False,
     "b7746da4d9060aace795d1be1768b4421ad8a10a2036db9d908e9d605e487715"),
    # gemm:jit nspc over NaN of both signs, infinities, -0, a subnormal
    (1, 24, 8, 8, 32, 3, 3, 2, 2, 0, 0, 8, 64, 4, True,
     "531c3f79d2e701a201389976bd35eb52e16a1e04114bc8df29305650a724df1a"),
)  # fmt: skip


def _build(case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, c, h, w_, oc, kh, kw, _sh, _sw, _ph, _pw, groups, seed, _threads, specials, _want = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((oc, c // groups, kh, kw), dtype=np.float32)
    b = rng.standard_normal(oc, dtype=np.float32)
    if specials:
        x[0, 1, 2, 3], x[0, 5, 4, 4] = np.float32(np.inf), np.float32(-0.0)
        x.reshape(-1).view(np.uint32)[17] = 0x7FC00001
        w.reshape(-1).view(np.uint32)[40] = 0xFFC00123
        w[3, 1, 1, 1], w[9, 0, 0, 2] = np.float32(-np.inf), np.float32(1e-42)
    return x, w, b


def _backward_operands(case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, w and dy of a backward case, drawn in that order from its seed (no bias drawn)."""
    n, c, h, w_, oc, kh, kw, sh, sw, ph, pw, groups, seed = case[:13]
    rng = np.random.default_rng(seed)
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w_ + 2 * pw - kw) // sw + 1
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((oc, c // groups, kh, kw), dtype=np.float32)
    dy = rng.standard_normal((n, oc, oh, ow), dtype=np.float32)
    return x, w, dy


# The baseline's backward (gemm:jit nspc over the groups): x, w, dy drawn in that order (no bias drawn);
# (N, C, H, W, OC, KH, KW, SH, SW, PH, PW, groups, seed, threads, (grad_input, grad_weight, grad_bias) SHA-256)
BACKWARD_CASES = (
    (2, 12, 9, 8, 24, 3, 3, 1, 1, 1, 1, 3, 71, 1, (
        "7e1dd63e57fdd65a16e0aba18518015fd8e547b79f3db3bd1e4f1619763aeacc",
        "8ce4b7ca17a9fe595bb63392f0020c953bd35d835c31734d496a309cbc706d0d",
        "f5987d0b3184ac360dab487450ccbe2b6c5dd37f6e48b4c90c20952adadfb927")),
    # 8 groups of 3 images on 2 threads: grad_input's outer threading and the weights' balance over the groups
    (3, 64, 4, 2, 16, 7, 7, 2, 2, 3, 3, 8, 72, 2, (
        "96f85d862247467779ad7cab86436fc2ba52bc5bbcba0d17ca418334b3d4a074",
        "a668dbbeaf2f7f2d4985fe75f47e1bb74bc607c275cee5ee22e59bd5afcc0c26",
        "50b9d799ddeefa9eaf665336c7886e20345788760cb6e5c7ab4cf3d77558e52e")),
    # 2 groups on 4 threads: 2 threads a group split its images
    (2, 32, 7, 7, 16, 3, 3, 1, 1, 1, 1, 2, 73, 4, (
        "d9da0f46f81d662f7cbc3339c637e0fb9e99c7c152e121c1d1cadf81d56f3ebb",
        "316a8a2b73329157aed3a70a7f4c85b4dfee9b464c6a5b2f94010f96696c7308",
        "306b9a62c414e5637547267cb162a4b62752b4aecb81df2e66c8e9d3ee57bd11")),
    (3, 32, 10, 11, 32, 1, 1, 2, 2, 0, 0, 4, 74, 4, (
        "4264ee127dd5666d1ccdcda67fc4de79b6dc7f9a47a27d9cb45711b0763ebed7",
        "bbb3fbb94a5594140a18bd5fb96497256e61950ad032ee8a1125a374d7ae7d34",
        "9d60bf954ef80e88d60ce5ba8f87e361eff16d6386d8312d68a1a3e01cb89122")),
    # 400 pixels an image on 4 threads: each group's 2 images on a thread each, their sums added
    (2, 8, 20, 20, 8, 3, 3, 1, 1, 1, 1, 2, 75, 4, (
        "3ca6dd9ba4077cb5f29aa10975969d99d9c3a7cbbb09fa3dcc26cbf851b11da7",
        "4a1a57b7cfd27bc14c1529e277b342229bea54157a25ad27d6e427abb22ae21b",
        "3249c680f653f03a506689e2d14e98ca1e46b34ce3eb5c5209c8640fb2d19e6a")),
)  # fmt: skip

# AVX2's grad_input (stride 1: brg_conv_bwd:avx2 group by group; a stride: the kernel oneDNN tries first that
# takes the group, ONEDNN_VERBOSE naming each case's): x, w, dy drawn as above; the specials
# case then sets NaN payloads of both signs (one quiet, one signalling), an infinity, -0 and subnormals in dy,
# -0 and a subnormal in w; (N, C, H, W, OC, KH, KW, SH, SW, PH, PW, groups, seed, threads, specials, SHA-256)
AVX2_BACKWARD_CASES = (
    # +brg_conv_fwd:avx2, exec_vpad
    (2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 4, 81, 1, False,
     "26df3f58b30112caf36dc891a879ff1ac66ce79352e1d126f0242b3adad8a1d7"),
    # +brgconv_1x1:avx2
    (2, 16, 9, 10, 32, 1, 1, 1, 1, 0, 0, 4, 82, 2, False,
     "af3e9daf52731c957405b91630b75e362b19ef057340fd495afe2d7095cf888b"),
    # W > OW: the blocking the search keeps
    (2, 24, 8, 12, 48, 5, 5, 1, 1, 0, 0, 3, 83, 4, False,
     "b7119daa8774ee8e65404bdbdfcb62f8c07a6ee51ff3285510cd389a5b95b7f0"),
    (2, 64, 7, 9, 96, 3, 3, 1, 1, 1, 1, 2, 84, 4, True,
     "7c8a451fe33571a1b8a43b049f8a6224279edb1d3efaab0e85a1b2385e256698"),
    (3, 40, 6, 11, 40, 7, 7, 1, 1, 3, 3, 5, 85, 2, True,
     "e4543ee7afc304bb915f2c8f1fade7011b4e509c1c26006e509bf659e85b9434"),
    # one image of one group ATen's small-image rule would keep in slow_conv2d: groups take it not
    (1, 6, 6, 7, 12, 3, 3, 1, 1, 1, 1, 3, 86, 1, False,
     "d05addd9b1b8e3fff34f2ec4b5501949a73adec9596533e652497bc179e36870"),
    # stride 2, brgconv_strided:avx2 (over 8 output channels a group)
    (2, 12, 9, 11, 48, 3, 3, 2, 2, 1, 1, 4, 101, 2, False,
     "664fb0c4c9442b2ca13f8c635521fa651d7e088c0bed1a82448145077625bb7b"),
    # its blocking search counting all 6 groups' work (one group's search gives other bits)
    (1, 144, 14, 8, 120, 3, 3, 2, 2, 2, 2, 6, 102, 2, False,
     "70041974c8255602e14e9e0056bf88846d560d2d39e94b8e23b84c8e06baba68"),
    # jit:avx2 group by group: 5 -> 6 channels a group (nxc channel tails), then over specials
    (3, 20, 9, 13, 24, 3, 3, 2, 2, 1, 1, 4, 103, 4, False,
     "55756f166453b8de1ef849fa3300fcaa46433974b6e82bd42414e2325f379b6f"),
    (2, 24, 11, 11, 24, 3, 3, 2, 2, 1, 1, 3, 104, 2, True,
     "d30d24e6e942f6ba4cbdef3abcab8025fe87d211b90179e8e57d1d995fdc798d"),
    # gemm:jit nspc per group (jit:avx2 declines fewer than 8 input channels under a kernel over 3 wide at a
    # stride; unequal strides), the last over specials
    (2, 12, 10, 9, 16, 5, 5, 2, 2, 2, 2, 4, 105, 1, False,
     "ef9f5ade8e45c7eb0a972f7e0ddaf2c36649ad6db8bc1c10b1f1044f893b85df"),
    (2, 16, 8, 9, 16, 3, 3, 2, 1, 1, 1, 2, 106, 4, False,
     "393c88db35a2f499a55ec2781175a17f19fb128ba22d926dc27419b2efd1dc16"),
    (2, 24, 9, 11, 32, 5, 5, 2, 2, 2, 2, 4, 107, 4, True,
     "0896f5f735735f6e8c57ada6d393eb29ca272a862145d127405eefb677df1bca"),
)  # fmt: skip

# AVX2's grad_weight and grad_bias of groups of whole blocks of 8 (jit:avx2 on nxc, aBCde8c8b): x, w, dy drawn as
# above; (N, C, H, W, OC, KH, KW, SH, SW, PH, PW, groups, seed, threads, (grad_weight, grad_bias) SHA-256)
AVX2_WEIGHTS_CASES = (
    (2, 32, 9, 9, 16, 3, 3, 1, 1, 1, 1, 2, 91, 1, (
        "cdd9e6b8d57d894361d9c059d93140e10ca086c6c9ca808ad3d7e0156a8d9a57",
        "673b482ecc89174a6f724a7a8e1589a578a448f9ab7c31ac47251da0c53743fe")),
    (3, 48, 8, 11, 72, 5, 5, 2, 2, 2, 2, 3, 92, 2, (
        "f9f94bb6e6155cce560cfc4bec7f2aac19c1d877d163f312d63ab14922ae5caa",
        "a91bfb1693fa85f1e635b71fe1687d67b5ec0e73f713836d84cd3f52ac5b364b")),
    (3, 64, 10, 7, 64, 3, 3, 1, 1, 0, 0, 4, 93, 4, (
        "f58acb7506e268faa70c53053fdcc9677c73b85ba04ffde0f85981df9db64d58",
        "9cb5bb4c8565778e830388b335d65bde5a548a670bc9476b6948ab45468d5f69")),
    (2, 96, 6, 9, 64, 1, 1, 2, 2, 0, 0, 4, 94, 4, (
        "02b652ee365c19ea2b3442487a7b2c8e3c22ba681653804d2e289abbb5138572",
        "9672b578da8209f46bb4deb41a495694323af6d23ecb43c1a48a6aa9fa1981f2")),
)  # fmt: skip

# The same at AVX512_CORE (ATEN_CPU_CAPABILITY=avx512, ONEDNN_MAX_CPU_ISA=AVX512_CORE: jit:avx512_core on nxc memory,
# one chain a group over its channel blocks of 4, 8 or 16, or brg_conv_fwd:avx2 where it declines; every case's
# kernel so named by ONEDNN_VERBOSE)
AVX512_CASES = (
    # blocks of 4, one a group
    (2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 4, 111, 1, False,
     "98e2be88d7dd961bbd00fe9c32924628a79f66136de600a1f1948c37fa534e05"),
    # 12 -> 12 and 12 -> 8 channels a group: 3 blocks of 4 in one chain
    (2, 24, 7, 9, 24, 3, 3, 2, 2, 1, 1, 2, 112, 2, False,
     "1fd829f43dbacb4d96650b4079a2eeee15e798c7be67627a1e30ec5bdad9cf40"),
    (1, 36, 9, 8, 24, 5, 5, 2, 2, 2, 2, 3, 114, 2, False,
     "a4e5f1c287239505b03e58fe3025272b5f45180a9cf7c46656ad55b2cd6d4788"),
    # 16 -> 8: one block of 16 (the smaller vectors only under 16 channels a side)
    (2, 32, 7, 7, 16, 3, 3, 1, 1, 1, 1, 2, 113, 4, False,
     "8c08dc07b946371548152be74821a3ccf4baa2d7ce13c23c94b5ff0db14b6e45"),
    # 12 -> 24, a 1x1 at stride 2: one block of 16 with tails
    (2, 48, 6, 10, 96, 1, 1, 2, 2, 0, 0, 4, 115, 2, False,
     "36fe7d6a92593ed67eacff8a1a5269f2e73c4ad193865d0c47ae683b5a37d014"),
    # NaN of both signs, infinities, -0, a subnormal: 3 -> 4 (a block of 16, tails), 8 -> 4 (2 blocks of 4)
    (1, 24, 8, 8, 32, 3, 3, 2, 2, 0, 0, 8, 116, 4, True,
     "0e8c73d91936378d0c0050a1a3654bf81f6ab87159286ca162fef0b70b9e9358"),
    (2, 64, 8, 8, 32, 3, 3, 1, 1, 1, 1, 8, 117, 1, True,
     "948ec47cd2955b0fbe173bc605043621307a5e8387158a872444ce39e226cb57"),
    # where jit:avx512_core's checks decline the group (the kernel wholly in the padding, a padded 1x1):
    # brg_conv_fwd:avx2 group by group, as at AVX2
    (1, 24, 2, 12, 24, 2, 2, 2, 2, 2, 2, 3, 118, 1, False,
     "975707eb9be2f5560f97d11a07d255156b2a1731cd49b0938a1d61153876fc03"),
    (2, 24, 10, 12, 48, 1, 1, 1, 1, 1, 1, 4, 119, 2, False,
     "d2c3a75937ceabcfc15414f1395de4ad5899f8b823041dc016ba48777eeac7a4"),
)  # fmt: skip

LEVEL_CASES = (
    [("AVX2", c) for c in CASES] + [("DEFAULT", c) for c in SSE41_CASES] + [("AVX512", c) for c in AVX512_CASES]
)


@pytest.mark.parametrize(
    ("level", "case"), LEVEL_CASES, ids=[f"{v} {c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for v, c in LEVEL_CASES]
)
def test_recorded_bits(level: str, case) -> None:
    sh, sw, ph, pw, groups, threads, want = *case[7:12], case[13], case[15]
    x, w, b = _build(case)
    profile = profile_for_capability(level, threads, "x86_64")
    assert bits_sha256(conv_nhwc.conv2d(x, w, b, (sh, sw), (ph, pw), groups, profile)) == want


@pytest.mark.parametrize(
    "case", BACKWARD_CASES, ids=[f"{c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for c in BACKWARD_CASES]
)
def test_recorded_backward_sse41(case) -> None:
    sh, sw, ph, pw, groups, threads, want = *case[7:12], case[13], case[14]
    x, w, dy = _backward_operands(case)
    profile = profile_for_capability("DEFAULT", threads, "x86_64")
    got = conv_nhwc_backward.conv2d_backward(dy, x, w, (sh, sw), (ph, pw), groups, True, profile, (True,) * 3)
    assert [bits_sha256(g) for g in got] == list(want)


@pytest.mark.parametrize(
    "case", AVX2_BACKWARD_CASES, ids=[f"{c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for c in AVX2_BACKWARD_CASES]
)
def test_recorded_grad_input_avx2(case) -> None:
    sh, sw, ph, pw, groups, threads, specials, want = *case[7:12], *case[13:16]
    x, w, dy = _backward_operands(case)
    if specials:
        dy[0, 1, 2, 3], dy[0, 5, 4, 4], dy[1, 7, 3, 5] = np.float32(np.inf), np.float32(-0.0), np.float32(-1e-41)
        dy.reshape(-1).view(np.uint32)[17] = 0xFFC00123
        dy.reshape(-1).view(np.uint32)[-40] = 0x7F800005
        w[3, 1, 1, 1], w[9, 0, 0, 2] = np.float32(-0.0), np.float32(1e-42)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    mask = (True, False, False)
    gx = conv_nhwc_backward.conv2d_backward(dy, x, w, (sh, sw), (ph, pw), groups, False, profile, mask)[0]
    assert bits_sha256(gx) == want


@pytest.mark.parametrize(
    "case", AVX2_WEIGHTS_CASES, ids=[f"{c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for c in AVX2_WEIGHTS_CASES]
)
def test_recorded_weights_avx2(case) -> None:
    sh, sw, ph, pw, groups, threads, want = *case[7:12], case[13], case[14]
    x, w, dy = _backward_operands(case)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    got = conv_nhwc_backward.conv2d_backward(dy, x, w, (sh, sw), (ph, pw), groups, True, profile, (False, True, True))
    assert [bits_sha256(g) for g in got[1:]] == list(want)


def test_refusals() -> None:
    """What stays refused raises ParityError: AVX2's grad_weight and grad_bias of other than whole blocks of 8,
    its grad_input at a stride over 2 and brgconv_strided:avx2's over NaN or infinite operands,
    AVX-512's backward and its forward over 16 input channels a group, brg_conv_fwd:avx2's grouped forward where
    all the groups' work could change its blocking search's pick, slow_conv2d per group, groups of more
    channels than measured at AVX2, the baseline's grad_weight
    of an unpadded 1x1 at stride 1."""
    x, w, b = _build(CASES[0])
    avx2 = profile_for_capability("AVX2", 1, "x86_64")
    dy = np.ones((2, 16, 9, 9), np.float32)
    with pytest.raises(ParityError, match=r"jit:avx2's grad_weight and grad_bias of 4 groups .* whole blocks of 8"):
        conv_nhwc_backward.conv2d_backward(dy, x, w, (1, 1), (1, 1), 4, True, avx2, (False, True, False))
    with pytest.raises(ParityError, match=r"grad_input of 4 groups of 4 channels at avx2 at stride \(3, 3\)"):
        conv_nhwc_backward.conv2d_backward(dy[:, :, :3, :3], x, w, (3, 3), (1, 1), 4, False, avx2, (True, False, False))
    w12 = np.ones((48, 4, 3, 3), np.float32)  # 12 output channels a group at stride 2: brgconv_strided:avx2
    dy12 = np.ones((2, 48, 5, 5), np.float32)
    dy12[0, 3, 1, 1] = np.inf
    with pytest.raises(ParityError, match="brgconv_strided over NaN or infinite"):
        conv_nhwc_backward.conv2d_backward(dy12, x, w12, (2, 2), (1, 1), 4, False, avx2, (True, False, False))
    with pytest.raises(ParityError, match="not depthwise"):
        conv_nhwc_backward.conv2d_backward(
            dy, x, w, (1, 1), (1, 1), 4, True, profile_for_capability("AVX512", 1, "x86_64"), (True,) * 3
        )
    x12, w3 = np.ones((1, 12, 1, 11), np.float32), np.ones((12, 3, 2, 2), np.float32)  # other bits where modelled
    with pytest.raises(ParityError, match="all the groups' work could change its pick"):
        conv_nhwc.conv2d(x12, w3, None, (2, 2), (2, 2), 4, profile_for_capability("AVX2", 4, "x86_64"))
    x40, w20 = np.ones((1, 40, 5, 5), np.float32), np.ones((8, 20, 3, 3), np.float32)
    with pytest.raises(ParityError, match="brg_conv_fwd:avx512_core or brgconv_1x1:avx512_core over 16 input"):
        conv_nhwc.conv2d(x40, w20, None, (1, 1), (1, 1), 2, profile_for_capability("AVX512", 1, "x86_64"))
    w1 = np.ones((16, 4, 1, 1), np.float32)
    with pytest.raises(ParityError, match="slow_conv2d per group"):
        conv_nhwc.conv2d(x, w1, b, (1, 1), (0, 0), 4, avx2)
    base = profile_for_capability("DEFAULT", 2, "x86_64")
    gx = conv_nhwc_backward.conv2d_backward(dy, x, w1, (1, 1), (0, 0), 4, False, base, (True, False, False))[0]
    assert gx.shape == x.shape
    with pytest.raises(ParityError, match="over a 1x1 kernel at stride 1 unpadded"):
        conv_nhwc_backward.conv2d_backward(dy, x, w1, (1, 1), (0, 0), 4, False, base, (False, True, False))
    xw, ww = np.ones((1, 160, 4, 4), np.float32), np.ones((16, 80, 3, 3), np.float32)
    with pytest.raises(ParityError, match="over 64 channels a group"):
        conv_nhwc.conv2d(xw, ww, None, (1, 1), (1, 1), 2, avx2)
