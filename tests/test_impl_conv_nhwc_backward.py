"""harness.impl.conv_nhwc_backward against torch's recorded bits: the backward of channels-last
convolutions at AVX2 (torch 2.13.0, ATEN_CPU_CAPABILITY=avx2, ONEDNN_MAX_CPU_ISA=AVX2, an AMD EPYC) and, in
``AVX512_CASES``, at AVX-512 (ATEN_CPU_CAPABILITY=avx512, a Zen 5).

Each case's inputs are drawn from ``np.random.default_rng(seed)``: x (N, C, H, W), w (OC, C / G, KH, KW)
and dy (N, OC, OH, OW) in that order, standard normal float32; torch ran
``aten.convolution_backward`` on x and dy made channels-last (``torch.empty(..., memory_format=
torch.channels_last).copy_``: one channel and one pixel keep channels-last strides). The digests are
SHA-256 of its grad_input, grad_weight and grad_bias as uint32 (C order). No host is needed: the impl
must give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import conv_nhwc_backward
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# (N, C, H, W, OC, KH, KW, SH, SW, PH, PW, groups, seed, threads, (grad_input, grad_weight, grad_bias) SHA-256)
CASES = (
    # brg_conv_bwd's one call (W <= OW: ker_vpad); jit:avx2's weights split by cpu_reducer on 2 threads
    (2, 16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 11, 2, (
        "d26c89390c6be70f6141a69ad71bedee47eb28a8d0b0468ccc5024dc0c2522fb",
        "04bfff595747f82e2feac1237d590651154c539121fe1ef8a6e17e9ea5a6b75e",
        "2dfdc1bef93790b8a75f2af740f6523569c410f4035876334ea1369cc864ee47")),
    # depthwise, jit_dw's nxc weights: rows split between the 2 threads in blocks of 5
    (3, 40, 9, 5, 40, 3, 3, 1, 1, 1, 1, 40, 12, 2, (
        "8643e930a4befc53d04ee033e43571f2fdaea2cfe69757c7dcd131f3cfbede20",
        "a3266b162165d15eab4462967af521f1e31fa669a9d62da64f581512b62b362c",
        "b6eec2ef1dcb36b31d4672d3ac8a002598dfba1c944210c8b185eda4435c7bf1")),
    # stride 2: brgconv_strided:avx2, as for NCHW
    (2, 8, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 13, 1, (
        "5a35dc1108e3d777476c0bafb588b75294becea464b1849212fa3ce261f4fdee",
        "7efc8c456e4f01a3885ef40eaf3b940643ba505626e1a1947ca28799d70d52e5",
        "7e201b38d3c00e58d6f3c0f1abb7dfa09772ba8d979bdbc8d604f28c1207f0ae")),
    # a 1-D depthwise convolution (H = 1): the images split between the 2 threads
    (7, 19, 1, 12, 19, 1, 2, 1, 1, 0, 1, 19, 14, 2, (
        "cacbd20045b8acdbf503548f0598709bc121b9217d63916cbcf1057354743218",
        "219d6169e85ab45abc7580cbfc6d8013d90708876509f7aaa987e2a594194339",
        "a5b8fb3096aa9b8768d451ad114bc2daad8f69253b04f7a9b73d0b945e6fba5b")),
    (6, 34, 12, 10, 34, 3, 3, 1, 1, 1, 1, 34, 15, 2, (
        "2e3cdf68501d3c33307644e797bbff76fc4c9b4bde76041ccbaf2c5fb220d48f",
        "08a7f8c5fd66e82622e3c51da039b576ec12b3197a59b68cdbaec9fa4f2a18a1",
        "91c82c305ec4a292a35118eac3671083814d8cd6f32e3f97eb1410d19c95a55b")),
    # jit_1x1:avx2's weights on nxc memory, 1 thread (16 images: not slow_conv2d): calls of OW = 8 pixels
    (16, 16, 8, 8, 16, 1, 1, 1, 1, 0, 0, 1, 16, 1, (
        "1dd02776473bbe5bb8b43dec7191ae9a69dd9892bd0441ef827823d5c3c30c72",
        "5c5f4aa07bb141642e15e422608dcc4109f82682c7c0bca30bfa19fa1d933918",
        "0cea2b80f577306603badd3f297127afa03d081532164b037bbefb3d07d745f1")),
    # Swin2SR's 1x1 on 2 threads: jit_1x1:avx2's reducer puts both threads on its one weight job
    (2, 60, 8, 8, 60, 1, 1, 1, 1, 0, 0, 1, 17, 2, (
        "fb5dbee0de3bcf3bbcf282fa5c9d5e619d74764197c4fde4fd263c5527ef2e66",
        "4ea6df17793c9327c9343f3f9a3a4aa29ae86b2b2a5c3734c44fb46f5df1be90",
        "cbc441abe45a9931be3ec36688d60b6d90a978ce7b4bc1564d1b7ffa8efd4159")),
    # a kernel taller than the input: gemm:jit nspc's weights with oneDNN's AVX2 sgemm
    (2, 8, 2, 6, 8, 3, 3, 1, 1, 1, 1, 1, 18, 2, (
        "2a73c4f2393c9b8ec46c46aaae1212194dec34ac0e4795c8a1ca614d1a584c2b",
        "72ca1afd10eef7e1ce3a9ca86cfb4bedf5a0f5836fcdea92fab50717d4e8e796",
        "bab7ac15a2df80ed054616ac4e40ef62e02a3c14d86143dff5ed463dc49b2908")),
    # one pixel of channels-last strides (UperNet's pooled map): brgconv_1x1's grad_input, jit_1x1's weights
    (4, 24, 1, 1, 16, 1, 1, 1, 1, 0, 0, 1, 19, 2, (
        "ced6faffe16dfd599cd05b5267cb561d106746692a436f13778fdfaed997de4c",
        "a49bde54c28d46f404bd6040721e08308dac551a70d8ed657bb8772cfab2a852",
        "92f5269cb8b5498570112b84c2e4137c4ce4cc196db132edda0b77ce45b5c885")),
    # one input channel of channels-last strides: brg_conv_bwd's grad_input, jit:avx2's weights
    (3, 1, 9, 7, 16, 3, 3, 1, 1, 1, 1, 1, 20, 2, (
        "1e2f784715bcd1790a6267f1ef90cd5d4dab45f41f545c00385aa68f8644a5b6",
        "1526b184a0bbe22f47f480bfacbcb74312e8732adaa8b8c447627863af9fe9c2",
        "9d5a99f9e445cc42f547f3b47b2dea3d05fba387841a9083546c036bde71c61d")),
    # ZoeDepth's projector 1x1s on 2 threads, past 64 channels: brgconv_1x1's grad_input one chain over the
    # 128 output channels; jit_1x1's weights with their nxc blocking
    (2, 16, 16, 16, 128, 1, 1, 1, 1, 0, 0, 1, 21, 2, (
        "38c003a04b89fc05c46b9f6e83dab887292ab28303ab0e3fb742e46edd431a99",
        "41a1a40a39658a092b39ea2f9029853748da8cfafee5944141a6cd4442a3c491",
        "926913f6fb622f2c0d05e0b6cafea899e5bded8ec30b8b051f16f453b17ea483")),
    (2, 128, 16, 16, 16, 1, 1, 1, 1, 0, 0, 1, 22, 2, (
        "22d5a5532cd63dd9e7312ae3962014874f5cfb1d5284cf2be0b6ef492673c895",
        "5234a16e6b7e3336fe8f6d33ec0a98286d4085afb5d74083105aa0fe1a72a4cd",
        "8d8128a1fd47cc1af18a4ef68d6947a42193a488d04fa0261dce4934a2690a22")),
    # 96 -> 200 channels, 16 images on 1 thread (oneDNN)
    (16, 96, 6, 6, 200, 1, 1, 1, 1, 0, 0, 1, 23, 1, (
        "776eed0f6bceb8a0f2d27b04346c639e8343503de826fb6766c4acf0a8766a78",
        "f992a925b0b381f6a4effceb0fd061821189f88606b49bf98e06e3d935944dc0",
        "3a584e7ba0af2ce060fe8377b50e973c8629933bab494c47f93a4d820a0fd902")),
    # a padded 1x1 at stride 1: gemm:jit nspc for every pass (brgconv_1x1 and jit_1x1 take no padding)
    (3, 20, 9, 7, 40, 1, 1, 1, 1, 1, 1, 1, 24, 2, (
        "55634c17d72044f1e4d12a5473c40dd0c3f49d931edd7ea5b48812c27673878b",
        "5ee866f214c31b76cccc0127c375810ac40cee0d0ee6aa2d065ce0106c44274c",
        "cfb41dd5da792fef20421fe6b26fc41f4b31251b8ee1e088c4a59ed38bbc15c6")),
    (2, 130, 8, 8, 70, 1, 1, 1, 1, 1, 1, 1, 25, 2, (
        "9455ef8f3e6a5a3ede589f6814fc10af86acc64e62a6c4fc6ec1392e2bfeb43c",
        "609d139001888246fceef54a4f92633d10a2ff604e989274e81be68e49585a02",
        "f0b5abf5d7e492ed0f19198548e666c0d5478ed207c9fcc4ac85b1a4461889ce")),
    # depthwise where jit_dw's and jit:avx2's weights kernels decline (or on 3 channels): gemm:jit nspc over the
    # groups, a gemv 'T' per group and image with oneDNN's AVX2 kernel. ConvNeXt V2's second stage, 8 threads
    # (a thread a group), and one image on 4
    (2, 32, 4, 4, 32, 7, 7, 1, 1, 3, 3, 32, 40, 8, (
        "6ae32192ef41aca4a5eeb721cbdddac55c8ba115cd6d96a689d61c12dde305d8",
        "a9416d88bfcb9b10300b5bfdc6a0bdcdcc5f5a81b934b0b80ad56a03e7c0b42d",
        "bbebece5bf3738c39946d887c5f08ec0fb4def227dcdeb0de6ae44d34564e7ec")),
    (1, 32, 4, 4, 32, 7, 7, 1, 1, 3, 3, 32, 41, 4, (
        "ac9e6d2c3b4f2b9eed67537fa183cf6e67e344448634fedae8cc588c992a6bef",
        "e88a53630a63d18821c182cb7a7067194c2fb95abe77eaefe95b86858f0c2cc0",
        "5b8ff722c6083949a4654a1a99058c718f69bb8705f3b31cc32f4639749f8216")),
    # fewer groups than threads: bwd_weights_balance's threads a group split the images, their sums added
    (3, 3, 6, 7, 3, 5, 5, 1, 1, 2, 2, 3, 47, 8, (
        "907bf28583fc34acf7052d3caa23d3a7b0a94a4acbf61b0819989d25deb06fc2",
        "cb77b16864b434f87a544a4ed49d70d89c272c0a5bc3371c2c2653da756d86f1",
        "27e20fcee887b6d93d562aab3b019823e841fa8121ef34ef578dda023742e09e")),
    (4, 2, 5, 5, 2, 7, 7, 1, 1, 3, 3, 2, 48, 8, (
        "898950ce24bc656e37d2064edf981d01c14a770b93795d2cc582c9c8ba15aed2",
        "f1e4a4b05d7451252601ed4ba989c6b345cf364e7b850268c25bfe4254a67f04",
        "87105893c141d07508cfe010e5f65f14066bb0fed03db94a6c14ef36f6b89b46")),
    (3, 13, 3, 5, 13, 5, 5, 1, 1, 2, 2, 13, 42, 2, (  # a kernel taller than the input
        "6a48d8c2ae8670be4f92ff84402f86774ff08df493fa29f4cc297fe126a14e01",
        "f3797b1e43292f40ceb2172d0aa577925982b74769b73ab11fce0298bf52d71a",
        "2c77be7549cfcf53ecbff3065b8c158288b46f9ef0f0dd0f5fcfdff5b54d7b40")),
    (2, 3, 11, 9, 3, 5, 5, 2, 2, 2, 2, 3, 43, 2, (  # 3 channels at stride 2
        "d1a89c5df784375aee5e6b82dd8f6d5f7437a2e5984b01ce5537719c617bd98b",
        "ba434edf11b7a80a4581ada8378a847a42b1f65e9a776ef5bdce07721a839542",
        "4ea0342592dd60a5e5a45e752d4f29aee9b9a3b1ad5c69a7b1f4e85412f3d2da")),
    (4, 20, 1, 140, 20, 1, 17, 1, 1, 0, 3, 20, 44, 4, (  # a 1-D kernel of 17 taps (jit:avx2 takes under 14)
        "ad820d16c0e85c110bae824c941167bdb8ce7196803f3b152a334692eecb584b",
        "045ad2f72d3b29fe295b6a4a8405d43e32a561767958fa9e9d239e90fc2b3476",
        "e5c6aa8266891d4ef50111bf9f2f90aac8d47f77ec181fb81a2aa39fad930fbb")),
    (2, 3, 40, 40, 3, 5, 5, 1, 1, 2, 2, 3, 45, 1, (  # 1,600 outputs: the gemv's strided x in copies of 512
        "fff3daf5a58f011ca5c93fdc355f4dec31779a1e4180ea3f5d95fcae0259d5bb",
        "802366fcad93bcb98cd5849c8b69563af7ae438e7cdde8da7ee30644ada9de07",
        "160fa533f4f068237c424d0d6bf2a2b718ca264c1413d6a64c9c7587761e8181")),
    (1, 3, 40, 36, 3, 5, 5, 1, 1, 2, 2, 3, 46, 4, (  # no outer threading: each sgemm on the 4 threads
        "8f7a9d34bc445b8ce70361f5c55474a30b76cae67061ffff5df6613432268675",
        "cc46d821817b9d7015b04de1855538014d73dbd73b81c78a6093f8f396445d9b",
        "29daec8e8fdcf4a5cf8485b405244c8f4cb7009f4f5c10939a46703c76c396e6")),
)  # fmt: skip


# The same at AVX-512 (ATEN_CPU_CAPABILITY=avx512, oneDNN's avx512_core kernels) on a Zen 5 (L1d 48 KiB,
# L2 1 MiB a core: oneDNN's blocking searches read them)
AVX512_CASES = (
    # depthwise 5x5 (jit_dw's weights kernel declines: jit:avx512_core over groups), 2 channels on 4 threads: its
    # balance splits the 3 images between 2 threads a channel
    (3, 2, 7, 9, 2, 5, 5, 1, 1, 2, 2, 2, 31, 4, (
        "ecff4825d3188d7f32944d1248bcb722452ed2ab71a292c9e60ab30a3454caed",
        "be97f14f128c4c4b73c08d54a74d3ba3522ff0f9f2f3c00d391e7e2b7dde233e",
        "666751657c925acd5c67b3d0c452d3059d42373a9b51d29d5487270f3b5ded43")),
    # depthwise 7x7, 3 channels on 4 threads: one thread a channel
    (2, 3, 9, 9, 3, 7, 7, 1, 1, 3, 3, 3, 32, 4, (
        "3484e94b44ff2ede48bd7431bcb9494537a3964d1d536383cc78c5b32643c654",
        "b458b687f345f73afa6eb538487ea6f5d58ad43658203308d5870c3d3d25601e",
        "e3922b594d15664a7645391e6581601d7063105c44e02f150e1b27b37e27df47")),
    # a 2x2 kernel unpadded past 16 input channels, W > OW: the search keeps exec_vpad, ow blocks of 9
    (2, 56, 3, 27, 52, 2, 2, 1, 1, 0, 0, 1, 33, 4, (
        "bb6331e68079b00b45f764fcce33a027fa2c11048e331ef5333d51b27a956f7f",
        "68e02aad7634212f27c157b280f6fbf51b200f202219c3d4dd55a71e1c3e8acc",
        "0284095f2bc6e24ffe8a4d20662f61f4e2f88b3ff982da33f757bc921a8a9d5f")),
    # W > OW with a kernel taller than wide: exec_base, ker_base's calls over the row, one kernel row a call
    (2, 40, 8, 12, 20, 5, 3, 1, 1, 1, 0, 1, 34, 2, (
        "f6b165737f1ade0bb871f70c03bf240a087416ccfd51d3f1b626b1baf8276534",
        "a9a12ca90b867948f02d4f2c52c92890936f0a04f71a5e6ba970e84e858a45a8",
        "be09188105754d246162451e8b6f5a6ddf48084a0203ebc73d4436b74c6f4a9f")),
    # W > OW with one kernel row: ker_base's calls over the row
    (3, 24, 9, 14, 12, 1, 4, 1, 1, 0, 1, 1, 35, 2, (
        "b292fedb960151c0e334ebefb0b709a7c265b83c5c87441c96bd9507ca950083",
        "d668990478774443a4e7309ac3dc2ba52a9d6261a2830c9c290f374f8dbb214f",
        "2b29c0c53a48f59c17a53992f426b44bcaf930c8fd0dbf24dae1bb0d3dd80e3a")),
    # ResNet's shortcut (a 1x1 at stride 2) on 8 threads: brgconv_strided's grad_input, jit_1x1's weights over
    # the strided pixels
    (2, 64, 14, 14, 256, 1, 1, 2, 2, 0, 0, 1, 37, 8, (
        "80d8f7a05866239c092220f67e6a4c3eb1f907813422127b3213b473d0c4922a",
        "466181952efb8870ce568c35344f69cec6cb6c97f5edcbd7120e6f8fcd19a58e",
        "2b3ac7cd9d427ed6a952e981c2d2deec1758bb8fcea5b48d919fb07332c03bd1")),
    # a pointwise 1x1 on 16 threads: jit_1x1's balance splits the pixels otherwise than on fewer
    (2, 64, 14, 14, 128, 1, 1, 1, 1, 0, 0, 1, 38, 16, (
        "f68bb025cd33ff96f698f959bd00b6ff3e9467926c6460869c1f5a9186207771",
        "88e4f80998a9f05931a1be2ffadd1388162ecdd79007c0fb5de68764ae900dbf",
        "446cd382b68080c0d59d6cf1b5172fd720b82a15b828c8189c7e70d8ba064e2d")),
    # a 3x3 on 8 threads: jit:avx512_core's balance over the images
    (3, 32, 11, 7, 24, 3, 3, 1, 1, 1, 1, 1, 39, 8, (
        "c7eb5321f528da2eb229df86c29d12be3613f929f30f897654057f6dca471536",
        "6ae391b42fb805256d066f43a8700d0c51ba6e71f302410267a8c1926256d75b",
        "c639f4b6e574cb093bae091218a0ef1bc098e00ae8d509ec1926e10296280a79")),
    # a padded 1x1: gemm:jit's passes with oneDNN's AVX-512 sgemm
    (2, 40, 9, 7, 24, 1, 1, 1, 1, 1, 1, 1, 40, 2, (
        "606670a43183a998e3adaed42a60df318e57abe5e78d7f2c083c39fe2015d3e9",
        "a3bd5df1765759f65476f79a3bf14f081072b77efbac836679e9e69482da28a6",
        "a9e7cc3bf897d6dca198dafc833f40c688ef376f4a805a063783a63d91879231")),
    # a 1x1 at stride 2 on 16 threads, the stride not dividing W: jit:avx512_core's weights on nxc
    (2, 24, 9, 10, 16, 1, 1, 2, 2, 0, 0, 1, 41, 16, (
        "821947d9124505fea2e26d5b986e1f26a1acb688000484af349c7055784eadf5",
        "66af198426c577489731a7c2fd39f46037421643406e42dbb612c66a89b7f28c",
        "2b489f955f894c6b160fe6577547059cc6103136bcba7455d7e31ffc1d6b579f")),
    # a padded 1x1 at stride 2: brgconv_strided's grad_input, gemm:jit's weights
    (3, 48, 10, 10, 40, 1, 1, 2, 2, 1, 1, 1, 42, 4, (
        "d6942091f570891ac9edc5c192927f584bccd486c18c417c8e88df72841354ab",
        "4aa961c076cde7c70f906d947b12f2141f6a39cbea95511ea514438cdc50f11a",
        "33bbecd35ce9f2e161f25e357715d976b86afec0a2a4bca0dd2a53a53aa9024a")),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for c in CASES])
def test_recorded_bits(case) -> None:
    n, c, h, w_, oc, kh, kw, sh, sw, ph, pw, groups, seed, threads, want = case
    rng = np.random.default_rng(seed)
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w_ + 2 * pw - kw) // sw + 1
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((oc, c // groups, kh, kw), dtype=np.float32)
    dy = rng.standard_normal((n, oc, oh, ow), dtype=np.float32)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    got = conv_nhwc_backward.conv2d_backward(dy, x, w, (sh, sw), (ph, pw), groups, True, profile, (True,) * 3)
    assert [bits_sha256(g) for g in got] == list(want)


@pytest.mark.parametrize(
    "case", AVX512_CASES, ids=[f"{c[:4]}->{c[4]} {c[5]}x{c[6]} g{c[11]} t{c[13]}" for c in AVX512_CASES]
)
def test_recorded_bits_avx512(case) -> None:
    n, c, h, w_, oc, kh, kw, sh, sw, ph, pw, groups, seed, threads, want = case
    rng = np.random.default_rng(seed)
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w_ + 2 * pw - kw) // sw + 1
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((oc, c // groups, kh, kw), dtype=np.float32)
    dy = rng.standard_normal((n, oc, oh, ow), dtype=np.float32)
    profile = profile_for_capability("AVX512", threads, "x86_64").with_l1_per_core(48 << 10).with_l2_per_core(1 << 20)
    got = conv_nhwc_backward.conv2d_backward(dy, x, w, (sh, sw), (ph, pw), groups, True, profile, (True,) * 3)
    assert [bits_sha256(g) for g in got] == list(want)


def test_recorded_nan_grad_input_avx512() -> None:
    """grad_input alone where W > OW (exec_base's ker_base) over NaN, infinite and zero operands at AVX-512
    on 2 threads: both NaNs x86 makes (an operand's 0x7fc00000, inf * 0's 0xffc00000) where torch has
    them (the product's NaN before the accumulator's, a call's chain before C)."""
    n, c, h, w_, oc, kh, kw, ph, pw = 2, 40, 5, 19, 24, 3, 2, 1, 0
    rng = np.random.default_rng(36)
    x = rng.standard_normal((n, c, h, w_), dtype=np.float32)
    w = rng.standard_normal((oc, c, kh, kw), dtype=np.float32)
    dy = rng.standard_normal((n, oc, h + 2 * ph - kh + 1, w_ + 2 * pw - kw + 1), dtype=np.float32)
    dy[0, 3, 1, 5], dy[1, 7, 0, 0], dy[1, 2, 2, 4], dy[0, 1, 0, 3] = np.nan, np.inf, -np.inf, 0.0
    w[5, 11, 1, 0], w[2, 3, 0, 1], w[1, 0, 1, 1] = -np.inf, np.nan, 0.0
    profile = profile_for_capability("AVX512", 2, "x86_64").with_l1_per_core(48 << 10).with_l2_per_core(1 << 20)
    got = conv_nhwc_backward.conv2d_backward(dy, x, w, (1, 1), (ph, pw), 1, False, profile, (True, False, False))[0]
    assert bits_sha256(got) == "c37a0dc9e956f2996f2cfa605b17538a6ef65c57d6d245b50220125ccd7511e5"


def test_refusals() -> None:
    """What is not modelled raises ParityError (a kernel over 1x1 whose row outgrows the forward's output, W > OW,
    modelled at AVX-512 and AVX2 on 1 to 16 threads and rows past 60 columns): at AVX-512
    3 threads (one group is measured on 1, 2, 4, 8 and 16), brgconv_strided's grad_input of a strided 1x1
    over infinities and jit_1x1's strided weights below 16 input channels; at AVX2 grad_input past 16
    threads, 2,048 channels or where brg_conv_bwd's ic block hangs on its forward's search (what the AVX2
    range was before, more than 2 threads or 64 channels, now modelled)."""
    one_x = np.zeros((16, 16, 1, 1), np.float32)
    x, w = np.zeros((2, 16, 8, 8), np.float32), np.zeros((16, 16, 3, 3), np.float32)
    avx512 = profile_for_capability("AVX512", 2, "x86_64")
    assert conv_nhwc_backward.declines(x.shape, w.shape, (1, 1), (1, 1), 1, avx512) == ""  # W = OW
    assert conv_nhwc_backward.declines(x.shape, w.shape, (1, 1), (0, 0), 1, avx512) == ""  # ker_base, 16 channels
    x17, w17 = np.zeros((2, 17, 8, 8), np.float32), np.zeros((16, 17, 3, 3), np.float32)
    assert conv_nhwc_backward.declines(x17.shape, w17.shape, (1, 1), (0, 0), 1, avx512) == ""  # W > OW: its search
    for level, threads in (("AVX512", 8), ("AVX512", 16), ("AVX2", 1), ("AVX2", 4), ("AVX2", 16)):  # W > OW
        assert conv_nhwc_backward.declines(x17.shape, w17.shape, (1, 1), (0, 0), 1,
                                           profile_for_capability(level, threads, "x86_64")) == ""  # fmt: skip
    x17 = np.zeros((2, 17, 8, 65), np.float32)  # W > OW on rows over 60 columns: the search's blocking too
    for prof in (avx512, profile_for_capability("AVX2", 2, "x86_64")):
        assert conv_nhwc_backward.declines(x17.shape, w17.shape, (1, 1), (0, 0), 1, prof) == ""
    assert conv_nhwc_backward.declines(x17.shape, w17.shape, (1, 1), (0, 0), 1, avx512, (False, True, True)) == ""
    assert "3 threads" in conv_nhwc_backward.declines(x.shape, (16, 16, 1, 1), (1, 1), (0, 0), 1,
                                                      avx512.with_threads(3))  # fmt: skip
    assert conv_nhwc_backward.declines(x.shape, (16, 16, 1, 1), (2, 2), (0, 0), 1, avx512.with_threads(16)) == ""
    x8 = (2, 8, 8, 8)  # jit_1x1's strided weights below 16 input channels: torch corrupts its heap
    assert "heap" in conv_nhwc_backward.declines(x8, (16, 8, 1, 1), (2, 2), (0, 0), 1, avx512)
    assert conv_nhwc_backward.declines(x8, (16, 8, 1, 1), (2, 2), (0, 0), 1, avx512, (True, False, False)) == ""
    dy2 = np.zeros((2, 16, 4, 4), np.float32)
    dy2[1, 3, 2, 1] = np.inf
    with pytest.raises(ParityError, match="brgconv_strided"):  # a strided 1x1's grad_input over infinities
        conv_nhwc_backward.conv2d_backward(dy2, x, one_x, (2, 2), (0, 0), 1, False, avx512, (True, False, False))
    assert conv_nhwc_backward.declines(x.shape, (16, 16, 1, 1), (1, 1), (0, 0), 1, avx512) == ""
    assert conv_nhwc_backward.declines(x.shape, (16, 1, 3, 3), (1, 1), (1, 1), 16, avx512) == ""  # jit_dw
    assert conv_nhwc_backward.declines(x.shape, (16, 1, 5, 5), (1, 1), (2, 2), 16, avx512) == ""  # jit:avx512_core
    assert conv_nhwc_backward.declines((2, 2, 8, 8), (2, 1, 5, 5), (1, 1), (2, 2), 2, avx512) == ""  # C <= threads
    one = np.zeros((16, 16, 1, 1), np.float32)  # ATen's slow_conv2d at 1 thread: modelled as at SSE4.1
    assert conv_nhwc_backward.declines(x.shape, one.shape, (1, 1), (0, 0), 1, profile_for_capability("AVX2", 1)) == ""
    # once refused at AVX2 (more than 2 threads, more than 64 channels), now modelled in every gradient
    four = profile_for_capability("AVX2", 4, "x86_64")
    assert conv_nhwc_backward.declines((16, 16, 8, 8), one.shape, (1, 1), (0, 0), 1, four) == ""
    assert conv_nhwc_backward.declines((2, 80, 4, 4), (8, 80, 3, 3), (1, 1), (1, 1), 1, four) == ""
    avx2 = profile_for_capability("AVX2", 2, "x86_64")
    for x_shape, w_shape in (((2, 257, 4, 4), (16, 257, 1, 1)), ((2, 16, 4, 4), (300, 16, 1, 1))):
        assert conv_nhwc_backward.declines(x_shape, w_shape, (1, 1), (0, 0), 1, avx2) == ""
    assert conv_nhwc_backward.declines((2, 80, 8, 8), (16, 80, 1, 1), (2, 2), (0, 0), 1, avx2) == ""
    assert conv_nhwc_backward.declines((2, 256, 4, 4), (256, 256, 1, 1), (1, 1), (1, 1), 1, avx2) == ""
    data, sixteen = (True, False, False), profile_for_capability("AVX2", 16, "x86_64")
    for x_shape, w_shape, stride, padding in (  # grad_input alone: ResNet's kinds on 16 threads
        ((2, 512, 7, 7), (512, 512, 3, 3), (1, 1), (1, 1)),
        ((2, 2048, 7, 7), (512, 2048, 1, 1), (1, 1), (0, 0)),
        ((2, 256, 28, 28), (256, 256, 3, 3), (2, 2), (1, 1)),
    ):
        assert conv_nhwc_backward.declines(x_shape, w_shape, stride, padding, 1, sixteen, data) == ""
    assert "17 threads" in conv_nhwc_backward.declines(x.shape, w.shape, (1, 1), (1, 1), 1, avx2.with_threads(17), data)
    assert "2048 channels" in conv_nhwc_backward.declines((2, 8, 8, 8), (2056, 8, 1, 1), (1, 1), (0, 0), 1, avx2, data)
    assert "ic blocks of 320 or 350" in conv_nhwc_backward.declines((1, 40, 6, 6), (350, 40, 5, 5), (1, 1), (2, 2), 1,
                                                                    avx2, data)  # fmt: skip
    assert "brgconv_strided:avx2's grad_input over 551" in conv_nhwc_backward.declines(
        (3, 435, 24, 15), (551, 435, 5, 5), (2, 2), (2, 2), 1, avx2, data
    )


def test_avx2_weights_range() -> None:
    """AVX2's grad_weight and grad_bias of one group: modelled up to 16 threads and 2,048 channels (ResNet-50's
    measured), refused past them, on a strided 1x1 below 8 input channels, and over NaN where jit_1x1 or
    gemm:jit runs them; grad_input keeps its own bounds."""
    weights = (False, True, True)
    for threads in (1, 4, 16):
        avx2 = profile_for_capability("AVX2", threads, "x86_64")
        for x_shape, w_shape, stride, padding in (
            ((2, 512, 7, 7), (512, 512, 3, 3), (1, 1), (1, 1)),  # jit:avx2
            ((2, 1024, 14, 14), (2048, 1024, 1, 1), (2, 2), (0, 0)),  # jit_1x1:avx2 over the gathered pixels
            ((2, 72, 5, 5), (80, 72, 1, 1), (1, 1), (1, 1)),  # gemm:jit
        ):
            assert conv_nhwc_backward.declines(x_shape, w_shape, stride, padding, 1, avx2, weights) == ""
    avx2 = profile_for_capability("AVX2", 17, "x86_64")
    assert "16 threads" in conv_nhwc_backward.declines((2, 8, 4, 4), (8, 8, 3, 3), (1, 1), (1, 1), 1, avx2, weights)
    avx2 = profile_for_capability("AVX2", 4, "x86_64")
    assert "2048 channels" in conv_nhwc_backward.declines((2, 2049, 2, 2), (8, 2049, 1, 1), (1, 1), (0, 0), 1, avx2,
                                                          weights)  # fmt: skip
    assert "below 8 input channels" in conv_nhwc_backward.declines((2, 4, 8, 8), (8, 4, 1, 1), (2, 2), (0, 0), 1, avx2,
                                                                   weights)  # fmt: skip
    seventeen = profile_for_capability("AVX2", 17, "x86_64")  # grad_input's own bound
    assert "grad_input on 17 threads" in conv_nhwc_backward.declines((2, 8, 4, 4), (8, 8, 3, 3), (1, 1), (1, 1), 1,
                                                                     seventeen)  # fmt: skip
    x, w = np.ones((2, 16, 8, 8), np.float32), np.ones((24, 16, 1, 1), np.float32)
    for stride, padding, out in (((2, 2), (0, 0), 4), ((1, 1), (1, 1), 10)):  # jit_1x1:avx2, gemm:jit
        dy = np.ones((2, 24, out, out), np.float32)
        dy[1, 3, 2, 2] = np.nan
        for mask in (weights, (False, False, True)):  # grad_bias alone too
            with pytest.raises(ParityError, match="NaN"):
                conv_nhwc_backward.conv2d_backward(dy, x, w, stride, padding, 1, True, avx2, mask)


def test_depthwise_column_blocks_and_refusals() -> None:
    """Depthwise: jit_dw's weights kernel's column blocks past 30 columns (the last widened where the
    right padding reaches past the rest), any channel count on 1 to 16 threads at AVX2 and AVX-512;
    refused: 17 threads, NaN operands reduced over thread blocks (gemm:jit on 3 channels modelled since)."""
    from harness.impl import conv_grouped

    def blocks(x_shape, k, s, p):
        g = conv_grouped._group_geometry(x_shape, (x_shape[1], 1, k, k), (s, s), (p, p), x_shape[1])
        return conv_nhwc_backward._dw_ow_blocks(g)

    assert blocks((2, 72, 5, 30), 3, 1, 1) == [30]
    assert blocks((2, 72, 5, 46), 3, 1, 1) == [15, 15, 16]  # r_pad 1 reaches the rest of 1
    assert blocks((2, 32, 4, 112), 3, 1, 1) == [15] * 7 + [7]  # MobileNetV2's first depthwise
    assert blocks((2, 96, 4, 113), 3, 2, 0) == [15, 15, 15, 11]
    for level in ("AVX2", "AVX512"):
        for threads in (1, 3, 8, 16):
            prof = profile_for_capability(level, threads, "x86_64")
            assert conv_nhwc_backward.declines((2, 960, 9, 9), (960, 1, 3, 3), (1, 1), (1, 1), 960, prof) == ""
            assert conv_nhwc_backward.declines((2, 96, 8, 56), (96, 1, 7, 7), (1, 1), (3, 3), 96, prof) == ""
        many = profile_for_capability(level, 17, "x86_64")
        assert "17 threads" in conv_nhwc_backward.declines((2, 64, 8, 8), (64, 1, 3, 3), (1, 1), (1, 1), 64, many)
    avx2 = profile_for_capability("AVX2", 2, "x86_64")
    assert conv_nhwc_backward.declines((2, 3, 8, 8), (3, 1, 5, 5), (1, 1), (2, 2), 3, avx2) == ""  # gemm:jit
    x, w, dy = np.ones((1, 3, 7, 8), np.float32), np.ones((3, 1, 3, 3), np.float32), np.ones((1, 3, 5, 6), np.float32)
    x[0, 0, 0, 0] = np.nan
    assert conv_nhwc_backward.conv2d_backward(dy, x, w, (1, 1), (0, 0), 3, True, avx2.with_threads(1), (True,) * 3)
    with pytest.raises(ParityError, match="reduced over thread blocks"):  # 2 threads: two blocks of rows
        conv_nhwc_backward.conv2d_backward(dy, x, w, (1, 1), (0, 0), 3, True, avx2, (True,) * 3)
