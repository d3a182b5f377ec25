"""oneDNN's jit_1x1:avx2 backward (NCHW, stride 1) against torch's recorded bits (torch 2.13.0 on an AMD
EPYC, ATEN_CPU_CAPABILITY=avx2, ONEDNN_MAX_CPU_ISA=AVX2): grad_weight split only between the threads
that cpu_reducer's balance puts on one weight job (PoolFormer's 1x1 at 2 threads: 2 jobs, one thread
each), grad_input in kernel calls of 64 output channels, each call's chain added. And jit_1x1's forward
at AVX2 and SSE4.1 (ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41): kernel calls of 128 input
channels, the first call's chain from the bias, each call's sum added to the output (MobileNetV2's
240-channel 1x1 projection of one pixel at 2 threads; before this model 136 of its 160 outputs differed).

Inputs: x, w, dy from ``np.random.default_rng(seed)``, each ``standard_normal * 2**integers(-10, 10)``
as float32; the digests are SHA-256 of torch's grad_input, grad_weight and grad_bias as uint32.
Before this model, the first two cases' grad_weight and the last two's grad_input differed.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import conv
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

CASES = (
    ("pf-1x1-t2", 2, (4, 128, 4, 4), (32, 128, 1, 1), 501, (
        "ff81389ac8b624610b8e67895c623c4f28c4b6948ecefb624eaa29492d45306c",
        "013910726bf496d2ae9dc3a1120e2d5488fdde4e6137234962b84ef003437a34",
        "153f4e12bc1044302e6aa4e7c66999c4f8dd169c9a56b2a5a7bcb3e0bfecd15a")),
    ("pf-1x1-t4", 4, (4, 128, 4, 4), (32, 128, 1, 1), 502, (
        "b5f68713dcf865ef4f8340825f608ac990722cb3bd856600d5f157fa666327d3",
        "ace13bdb426d442d03c4292b8d1b723410b5d09d942053d4c6d0e80a2a03213d",
        "deb4603b7bed4c82072a007fdbe15c0db5128b1a04aa40a95ecf4750ed4f3f04")),
    ("oc-chunks-t2", 2, (3, 24, 5, 7), (136, 24, 1, 1), 503, (
        "699aa1d68ebd81592721055c2d2fcfee62845840891529bd124729dc50419570",
        "b05e783701a953388a838375cba3b57582c74dc1832123dcdf5e884489b504a0",
        "0b418f6128a7075d89b84269b5244e814e73f884a18c72d466c1a7e53e978ab9")),
    ("n16-t1-calls", 1, (16, 40, 15, 14), (72, 40, 1, 1), 504, (
        "33ba36fdd6fb01a5d65e3406027db2d67a21113d4eeda33c3911470dc401c019",
        "c35609e7997b89ff0b94a799ad2c1db43334f8a2c98e77b5aae5dc5ea72e4e7a",
        "7b19e8ed09603dce05d21f1bae16a780bf7ad5fea147ea130345e060660aa805")),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_recorded_bits(case) -> None:
    _name, threads, xs, ws, seed, want = case
    rng = np.random.default_rng(seed)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    x, w = values(xs), values(ws)
    dy = values((xs[0], ws[0], xs[2], xs[3]))
    profile = profile_for_capability("AVX2", threads, "x86_64")
    assert conv.path(x.shape, w.shape, (1, 1), (0, 0), profile) == conv.AVX2
    got = conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), True, profile)
    assert [bits_sha256(g) for g in got] == list(want)


def test_reducer_groups() -> None:
    """PoolFormer's shape has 2 weight jobs: one thread each on 2 threads, two each on 4."""
    g = conv._geometry((4, 128, 4, 4), (32, 128, 1, 1), (1, 1), (0, 0))
    assert conv._avx2_1x1_jobs(g) == (2, 2048)
    assert [conv._avx2_1x1_group_threads(g, t) for t in (2, 4)] == [1, 2]
    assert conv._avx2_1x1_group_threads(conv._geometry((3, 24, 5, 7), (136, 24, 1, 1), (1, 1), (0, 0)), 2) == 2


# (name, capability, threads, x shape, w shape, seed, bias, stride, SHA-256 of torch's output)
FORWARD = (
    ("mbv2-t2", "AVX2", 2, (4, 240, 1, 1), (40, 240, 1, 1), 601, False, 1,
     "efe151f96de45c1b2b2285064f8bd07f768512f47ff25184b591e11754ac01b8"),
    ("bias-t1-n16", "AVX2", 1, (16, 300, 3, 3), (24, 300, 1, 1), 602, True, 1,
     "1e1cf11a64f17ef602ad152faaa3f5d71f4084aeaca6e8852a6dd9b4fb5a66b5"),
    ("strided-t2", "AVX2", 2, (3, 392, 4, 4), (16, 392, 1, 1), 603, True, 2,
     "4c5f867b69fc1d82cf5d2ec846c0907d34bd108554b0bbf4737c020abac5e7f5"),
    ("mbv2-sse41-t2", "DEFAULT", 2, (4, 240, 1, 1), (40, 240, 1, 1), 601, False, 1,
     "d8aadbd6849328697463043fa4cfc9d71b4e2acbb15d13a670c11a14e64c2ceb"),
    ("strided-sse41-t2-jit-sse41", "DEFAULT", 2, (3, 392, 4, 4), (16, 392, 1, 1), 603, True, 2,
     "9a1e4993e688a7bcfe9d5067ed2dc9bda60b42d4c7c5b9185974b1ea7397de71"),
)  # fmt: skip


@pytest.mark.parametrize("case", FORWARD, ids=[c[0] for c in FORWARD])
def test_forward_calls_of_128_channels(case) -> None:
    _name, cap, threads, xs, ws, seed, bias, stride, want = case
    rng = np.random.default_rng(seed)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    x, w = values(xs), values(ws)
    b = values((ws[0],)) if bias else None
    profile = profile_for_capability(cap, threads, "x86_64")
    assert conv.path(x.shape, w.shape, (stride, stride), (0, 0), profile) == (
        conv.AVX2 if cap == "AVX2" else conv.SSE41
    )
    assert bits_sha256(conv.conv2d(x, w, b, (stride, stride), (0, 0), profile)) == want


# jit_1x1:avx512_core's channels per kernel call (init_conf's reduce_blocking), forward and backward
# data (at stride 1; a strided one runs brgconv_strided), on 2 threads: (input shape, output channels,
# stride, forward's, backward data's), each measured against torch on the Zen 5 (AVX-512): 80 where
# the other side has at most 256 channels and 10 < OH < 28, else 512 (OH > 10) or 256; the L2 aliasing
# check's cuts (64x64: 96, 32x48: 192, 112x112: 384)
AVX512_1X1_BLOCKS = (
    ((1, 1024, 14, 14), 256, 1, 80, 256),
    ((2, 256, 14, 14), 1024, 1, 256, 80),
    ((1, 512, 28, 28), 128, 1, 512, 128),
    ((1, 2048, 7, 7), 512, 1, 256, 256),
    ((1, 130, 64, 64), 8, 1, 96, 16),
    ((2, 200, 32, 48), 16, 1, 192, 16),
    ((1, 512, 112, 112), 4, 1, 384, 16),
    ((1, 400, 128, 64), 4, 2, 96, 16),
    ((4, 81, 11, 11), 255, 1, 80, 80),
)


@pytest.mark.parametrize(("x_shape", "oc", "stride", "forward", "data"), AVX512_1X1_BLOCKS)
def test_avx512_1x1_reduce_blocks(x_shape: tuple, oc: int, stride: int, forward: int, data: int) -> None:
    g = conv._geometry(x_shape, (oc, x_shape[1], 1, 1), (stride, stride), (0, 0))
    assert conv.avx512_1x1_reduce_block(g, 2, False) == forward
    assert conv.avx512_1x1_reduce_block(g, 2, True) == data


def test_avx512_1x1_forward_runs_its_calls() -> None:
    """Above 80 input channels the forward is a chain per call of 80 channels (10 < OH < 28, at most
    256 output channels), each call's sum added: not one chain."""
    profile = profile_for_capability("AVX512", 2, "x86_64")
    x = np.zeros((2, 96, 12, 12), np.float32)
    w = np.zeros((16, 96, 1, 1), np.float32)
    x[:, 0], w[:, 0] = 1.0, 2.0**24  # the first call's chain: 2**24
    x[:, 80:82], w[:, 80:82] = 1.0, 1.0  # the second's: 1 + 1 = 2, added: 2**24 + 2 (one chain: 2**24)
    y = conv.conv2d(x, w, None, (1, 1), (0, 0), profile)
    assert (y == np.float32(2.0**24 + 2)).all()


ZERO_SUMS = {  # torch's grad_weight of the shape below at avx2 by thread count: its -0 count, SHA-256 of its bits
    1: (0, "299407adb3f1bd645191cfecb3c33a47510b1dfba3c0a936d741bdd8513526c0"),
    2: (198, "a9debdf62dec6ffa346e608471742d19941f439eb70fbb2e3f5850b638464caa"),
    4: (0, "299407adb3f1bd645191cfecb3c33a47510b1dfba3c0a936d741bdd8513526c0"),
    8: (0, "299407adb3f1bd645191cfecb3c33a47510b1dfba3c0a936d741bdd8513526c0"),
}


@pytest.mark.parametrize("threads", sorted(ZERO_SUMS))
def test_a_weight_sum_of_underflowing_products_has_the_reducers_sign(threads: int) -> None:
    """EfficientNet's squeeze-excite expand (4 images, 12 -> 288 channels, a 1x1 map) over products that
    all underflow: every weight sums signed zeros. On 2 threads each thread has whole weight jobs and
    198 sums are -0; on 4 and 8 the threads split the pixels and cpu_reducer_2d_t adds their buffers
    into a zeroed register (+0 + s0 + s1 ...): +0 everywhere (the impl gave -0 in 198 before)."""
    rng = np.random.default_rng(941)
    x = (rng.standard_normal((4, 12, 1, 1)) * 1e-25).astype(np.float32)
    w = rng.standard_normal((288, 12, 1, 1)).astype(np.float32)
    dy = (rng.standard_normal((4, 288, 1, 1)) * 1e-25).astype(np.float32)
    profile = profile_for_capability("AVX2", threads, "x86_64")
    _, gw, _ = conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), False, profile, (False, True, False))
    assert gw is not None
    negative, digest = ZERO_SUMS[threads]
    assert int((gw.view(np.uint32) >> 31).sum()) == negative and bits_sha256(gw) == digest
