"""harness.impl.conv3d against torch's recorded bits: 3-D convolutions at the baseline (SSE4.1), avx2 and
avx512 levels (torch 2.13.0 on an AMD EPYC, the avx512 cases on a Zen 5; ATEN_CPU_CAPABILITY,
ONEDNN_MAX_CPU_ISA and MKL_ENABLE_INSTRUCTIONS pinned together).

Each case's inputs come from ``np.random.default_rng(seed)``: x standard normal, w standard normal
times 0.2, b (with a bias) standard normal, then grad_output of the output's shape, all float32. The
digests are SHA-256 of torch's output, grad_input, grad_weight and grad_bias as uint32 (C order);
None where the impl refuses the pass (it must raise ParityError there). No host is needed.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import conv3d
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# (capability, threads, x shape, w shape, stride, padding, bias, seed, (out, grad_input, grad_weight, grad_bias))
CASES = (
    # VideoMAE's tubelet embedding: jit:avx2 forward and weights; grad_input brgconv_strided:avx2 (its
    # plane's brgemm calls, each over the depth taps, the rows, the taps kw, the output channels)
    ("AVX2", 1, (2, 3, 4, 16, 16), (32, 3, 2, 4, 4), (2, 4, 4), (0, 0, 0), True, 0, (
        "e17893cb2e456c281194cd16ffb6d1e3b2b75cd59efd8ea3f3e6aa8d75ee6c21",
        "101f0daab55a32f8a9f6c047565d75146f8f7ab4fb357b4c3fad283f29bb2fbe",
        "0d1046cb918899995651b4f00cbda927c71d2a5f04464a4b156597673b084274",
        "0e74b32f887be7b0372cbefc78863875d921f58231a29d3950b7cf53bf378fc7")),
    # the same at baseline on 2 threads: gemm:jit for every pass
    ("DEFAULT", 2, (2, 3, 4, 16, 16), (32, 3, 2, 4, 4), (2, 4, 4), (0, 0, 0), True, 0, (
        "f75cfa3eaf9856137c2a1559d58b429f4d177e30b6617f27d2be3b438e5ee494",
        "ff1c7ec1d359d90d6942f60c9b1d6a137ec832ad850ab0956d8d5ee5ecf820b6",
        "afa78a6ffc13b14b700503600ed73571e1527504446ed09fac93b6c64a2253d4",
        "86976f88ce5d082a50ec4f109ddb163f682c8d146caf24409fddde5a58e6f0bd")),
    # baseline, 1 thread: col2im_3d adds each input element's taps in output-pixel order
    ("DEFAULT", 1, (3, 2, 8, 4, 5), (24, 2, 3, 3, 1), (1, 1, 1), (0, 0, 0), True, 1, (
        "3d5a06844cbceda690ec4c4cf17d93b845a5772f2c126c242fc0b07a4cfb4c27",
        "cc10cd5eaf64a92168e7a46ffc6921417d7bedb504304251701aee201afc8c1c",
        "ed87dea935b70c7416201874e03d2653462f2216822328fd79826e09a8d5abcf",
        "90f5c989433996d88ac3f34e7687c4e1f0d1ae69848634a8fc1afc087c1ea406")),
    # avx2, 2 threads, depth padding: jit:avx2 forward and data, AVX2 gemm:jit weights
    ("AVX2", 2, (2, 16, 4, 5, 6), (16, 16, 3, 3, 3), (1, 1, 1), (1, 1, 1), True, 2, (
        "54f22ba079d20351a5df8618c9da37b74ceacfdff36a3f7efcd350f55a82cc04",
        "3226639e839ccadc9a2cf5f56d71c6101126e6858e45ab92fdaa88c2fc557022",
        "e94a8951a4a4b3af2bff2494ec21828b4bd15bff63c1d2a8ccc8971ef32a4e92",
        "2c48ff9337587e0221ac9d5ec52aa957d5ac6ce4faefcdfafd44f4d462305bf4")),
    # avx2, 1 thread: AVX2 gemm:jit forward and weights (jit:avx2 declines); grad_input brgconv_strided:avx2
    # where the stride does not divide W (exec_trans: a call per input element)
    ("AVX2", 1, (3, 9, 9, 2, 5), (4, 9, 3, 1, 3), (2, 2, 2), (1, 1, 0), True, 3, (
        "d85f6d079951aa2b16df5aea0d903586b3eea7e96c17d294774eba62d7e82d10",
        "d7a5565a7a0bc220d4238ea99a40e147dc94211172432ac3dc09dbceb577517f",
        "7b34ea67e8bf830653d7385868664a26d6daf66ea6f9eb115fc0ab9417fb1c56",
        "34a086616c4348e93095fd80758fddf06bd6be13877eacd311869f591bea394a")),
    # baseline, 1 thread, 4 images of a 2x1x1 kernel: ATen's slow_conv3d, MKL's gemms on operands at
    # their images' offsets in torch's aligned buffers (24-byte steps: its alignment peel differs)
    ("DEFAULT", 1, (4, 3, 2, 1, 1), (17, 3, 2, 1, 1), (1, 1, 1), (0, 0, 0), True, 11, (
        "501605c931000bb61c2e652882d69baae020b199a4ac9f6f2658441df0ccd604",
        "8e469a717906796b82cb8b8602287e531d68c807c461f645606d3c1a059b5768",
        "672ed57229d67c70ce06048d8200efe5b2f78603c4554f5b9293a94dda4692bc",
        "f9f3c8f123e8fdf2a6bd3433e12212ff67c12f3175a8fc51532e75f4f8e28c5c")),
    # avx2, 2 threads, 1x1x1 of 150 channels: jit_1x1:avx2 on every pass, the 2-D model's on (D*H, W)
    # (its forward in kernel calls of 128 input channels)
    ("AVX2", 2, (2, 150, 3, 6, 1), (27, 150, 1, 1, 1), (1, 1, 1), (0, 0, 0), True, 12, (
        "b11d62b432187b43a65b6dc727295b165200121fa50c57fe665682b20bb20c33",
        "201ea28050df1e79cf4ccef51f8d4dad432225cb6077e962e5c22e847024cd57",
        "f6e4c361f7e92014168486ca70e4f561cb577be3d467597926583f3b6bbfd5b2",
        "67960972667cc857edb4644051113c45cfffcb664dcad2cf1343f0ae3e4a2fbe")),
    # avx2, 2 threads: jit:avx2 on every pass, no bias
    ("AVX2", 2, (2, 8, 5, 6, 6), (8, 8, 2, 3, 3), (1, 1, 1), (0, 1, 1), False, 4, (
        "0da319905c1810d51e3181bc9fe2d6169c6289735cdffa7912bb52f9dfe38e01",
        "0da41bf9fbb601dca69c9a150b206104b356979bd7c9c3b1b59cf13086950e2f",
        "0d3a65528997af285c30575868a6823c8980881bbf42bab1c0493c08f59de4fc", None)),
    # avx512 (recorded on an AMD EPYC Zen 5), VideoMAE's tubelet embedding on 1 thread: jit:avx512_core
    # forward (its first-convolution kernel, one block of 3 channels) and weights; brgconv_strided's
    # grad_input
    ("AVX512", 1, (2, 3, 4, 16, 16), (32, 3, 2, 4, 4), (2, 4, 4), (0, 0, 0), True, 0, (
        "930e24348bc1be8b5a8a3048d4ec23df937d47208dce827bd25883259c570204",
        "101f0daab55a32f8a9f6c047565d75146f8f7ab4fb357b4c3fad283f29bb2fbe",
        "0d1046cb918899995651b4f00cbda927c71d2a5f04464a4b156597673b084274",
        "0e74b32f887be7b0372cbefc78863875d921f58231a29d3950b7cf53bf378fc7")),
    # avx512, 2 threads: AVX-512 gemm:jit forward and weights; grad_input brgconv_strided's exec_trans
    ("AVX512", 2, (3, 9, 9, 2, 5), (4, 9, 3, 1, 3), (2, 2, 2), (1, 1, 0), True, 3, (
        "f2eda4fd41ded71d2352b380a0676e7ff1a6682b9e9b437bdb8ac1a5805fa8c9",
        "d7a5565a7a0bc220d4238ea99a40e147dc94211172432ac3dc09dbceb577517f",
        "b351f1d38869781f3807c43a6f960188bd520f0dd6b39a03311514e779baa7fd",
        "34a086616c4348e93095fd80758fddf06bd6be13877eacd311869f591bea394a")),
    # avx512, 2 threads, 20 channels: jit:avx512_core forward (blocks of 16 and 4) and grad_input (blocks
    # of 16 and 8 output channels); its weights with the (image, od) pairs split between 2 threads
    ("AVX512", 2, (2, 20, 4, 6, 7), (24, 20, 2, 3, 3), (1, 1, 1), (0, 1, 1), True, 5, (
        "4574ce7166141102814b065c2ca82ab06167a4373ae2fa252c45d06d477e34d4",
        "83b7ad240371dad020b01046cc571b6dc223a2be57f4006f8b0ebf91609a39a1",
        "91f11cc2bdd1cefc4c4f36a748852648d24ea06d518f6b4c721cce738c564f46",
        "3719bbdfcf4cf914aaedaa162b5f29bc10db95bd9b7a9c146e5647d5d3aa2d85")),
    # avx512, 4 threads, depth padding: jit:avx512_core on every pass (weights: balance's split of the
    # (image, od) pairs, the threads' sums added)
    ("AVX512", 4, (3, 16, 4, 5, 5), (16, 16, 3, 3, 3), (1, 1, 1), (1, 1, 1), True, 9, (
        "67a7c4c1dd1761871beaadc1bc0c9ba72ad15d170479765464b7f69bf903228a",
        "834df19f55c06d38f9864d8cb0409aee0a9570b07b20fa013bdf7e349daac601",
        "2965ce92d284aa070102932441c7d9516414f5378e0fe618505e7f4166ba9b95",
        "84de7655345eedd1725f5315d32f2905e94ffa0ca2a909d012285751d1285f04")),
    # avx512, 2 threads: gemm:jit on every pass, grad_input its AVX-512 sgemm per (image, od) and col2im_3d
    ("AVX512", 2, (3, 9, 4, 3, 5), (8, 9, 1, 3, 1), (1, 1, 1), (0, 1, 1), True, 7, (
        "bd598a5e9f626044e85a08ae35009c4924860be2abc9d22d901ce83c1f813c33",
        "d551652b3656c06c6634735792830bf7cac1c4eedd838fd7b70a8d1457495770",
        "705b8ed4e327ecdecf623cd9cb8d4c4a616bb4e3694d297164acf7607c57150e",
        "32814c1e06362d8e9876552c7db2916a0176a28b007326b04195b305dc80b445")),
    # avx512, 2 threads: brgconv_strided's grad_input whose blocking (24 columns a block) the plane's
    # search gives over N*D images (over N: 12, other bits)
    ("AVX512", 2, (3, 16, 3, 12, 24), (8, 16, 2, 1, 4), (1, 1, 3), (1, 0, 1), True, 13, (
        "7d2f390caf630e3452fb228ccfabe1ac150800cc1e4a125a64c95a811afc5bf0",
        "34e8736bd5db62018dbff18592cd9478af0a85bd2e385af805a5608c11d5c2db",
        "d3ab8a67c85419a205497bf9337bb02fea12216d4fd31c267ec23fbf1544b8a0",
        "1b8d84c7047c48142fff22fc882462e713fbdd43cedda0e992dde4e6a9f87a58")),
    # avx512, 2 threads, a 1x1x1 kernel at stride 2: brgconv_strided's grad_input (one call a chain over
    # the output channels)
    ("AVX512", 2, (2, 17, 4, 6, 8), (24, 17, 1, 1, 1), (2, 2, 2), (0, 0, 0), True, 14, (
        "9205c1c265355a415114eaca51b7af40e3be92ee4f802e208d8ad113c266a8de",
        "0194f7a639351c5f59f73725e7484ed7eb87654dfe7e855407cfc8c2448234f7",
        "9d0c100f559209432c07d49fc904af521470822a2723dcd4816f5e84fa9dcaf3",
        "9dc31884553a937500edafab6cb03251f2d5fea52776023d4ecec473015373be")),
    # avx512, 1 thread, one image: ATen's slow_conv3d (vol2col, MKL's gemms, Unfold3dAccCPU)
    ("AVX512", 1, (1, 5, 4, 6, 5), (12, 5, 3, 2, 3), (2, 1, 1), (1, 1, 0), True, 8, (
        "aae644a87a551b1d1c5d781aead30d22126b5e102296803fab51a992efa6cc60",
        "8739f0906878800d8339259cd2b9e5608ca3ea937f413ae1504e85dee6ed57f0",
        "e82c61544202f40b90ac79100350d6090937f744a76b6ba4a35b58d2e48bcd8c",
        "7b279cdea57719419ca299457c940d8b10efb3ebce361a5630273b8660c8196c")),
    # avx512, 2 threads, 1x1x1 of 200 to 240 channels: jit_1x1:avx512_core's forward and grad_input in
    # kernel calls of 80 channels (OD*OH = 12 rows); its weights and bias the 2-D model's on (D*H, W)
    ("AVX512", 2, (2, 200, 3, 4, 5), (240, 200, 1, 1, 1), (1, 1, 1), (0, 0, 0), True, 6, (
        "375bf0dccbca02a0cb78109dc207683ec4cce22f12d16eaa1f1f130b83330282",
        "61b945f78bd60eb4f62dc0ef99f4ae5c0042042ca3089d25bd48c9b75725a720",
        "34eb16c6c3049b5f67c648a5547b2bcb83f41f62bcc681c149385836f0ea6b01",
        "c983c8a15c142c7312d8f02595424e5ecee99b0b6e827a11787a83cab94c891f")),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-t{c[1]}-{c[2]}x{c[3]}" for c in CASES])
def test_recorded_bits(case) -> None:
    cap, threads, xs, ws, stride, padding, bias, seed, want = case
    profile = profile_for_capability(cap, threads, "x86_64")
    if cap == "AVX512":  # recorded on a Zen 5: its L1d (brgconv_strided's blocking reads it)
        profile = profile.with_l1_per_core(48 << 10)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) * 0.2).astype(np.float32)
    b = rng.standard_normal((ws[0],)).astype(np.float32) if bias else None
    y = conv3d.conv3d(x, w, b, stride, padding, profile)
    assert bits_sha256(y) == want[0]
    g = rng.standard_normal(y.shape).astype(np.float32)
    for j in range(3):
        mask = tuple(k == j for k in range(3))
        if want[j + 1] is None:
            if j == 2:  # no bias: no grad_bias
                continue
            with pytest.raises(ParityError):
                conv3d.conv3d_backward(g, x, w, stride, padding, bias, profile, mask)
            continue
        assert bits_sha256(conv3d.conv3d_backward(g, x, w, stride, padding, bias, profile, mask)[j]) == want[j + 1]


def test_refusals() -> None:
    """AVX-512's ip_convolution (a kernel the input's size over more than 27 taps, several images) is
    refused on every pass."""
    x = np.zeros((2, 3, 4, 16, 16), np.float32)
    avx512 = profile_for_capability("AVX512", 2, "x86_64")
    whole = np.zeros((4, 3, 4, 16, 16), np.float32)  # one output pixel of 1024 taps: an inner product
    with pytest.raises(ParityError, match="ip_convolution"):
        conv3d.conv3d(x, whole, None, (1, 1, 1), (0, 0, 0), avx512)
    with pytest.raises(ParityError, match="ip_convolution"):
        conv3d.conv3d_backward(np.zeros((2, 4, 1, 1, 1), np.float32), x, whole, (1, 1, 1), (0, 0, 0), True, avx512)
