"""oneDNN's gemm:jit forward at SSE4.1 on images of one pixel against torch's recorded bits (torch 2.13.0
on an AMD EPYC, ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41): a 1x1 convolution (stride 1, no
padding, input channels not a multiple of 8, so jit:sse41 declines) runs without im2col, its sgemm's
pieces one pixel (m = 1: gemv 'T'), and x's stride is the image's pixel count. One pixel: x is
contiguous and gemv_kernel_driver runs the whole input-channel block in one jit_sse41_gemv_t call, not
in copies of 512 terms (M_BLK) as for a strided x.

Inputs: x, w, b from ``np.random.default_rng(seed)``, each ``standard_normal * 2**integers(-10, 10)``
as float32; the digests are SHA-256 of torch's output as uint32. Before this rule the first three
cases differed (the impl cut K into 512-term calls); the last, 4 pixels an image (its pieces 4 pixels
wide: the copy-based sgemm), is a neighbour that matched before too. The blocking of these shapes is the
same with 512 KiB and 1 MiB of L2. conv3d's gemm:jit (one sgemm per (image, od) plane, x's stride
OD * OH * OW) takes the same rule: one call where D = H = W = 1 (``test_conv3d_recorded_bits``).
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import conv, conv3d
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

CASES = (
    ("c593-n4-t2", 2, (4, 593, 1, 1), (48, 593, 1, 1), 601,
     "76879acf4a8303b4d5dbbdcce7bc3f6bb5e37a7940d36fe6e32e210e559135a9"),
    ("c1030-n16-t1", 1, (16, 1030, 1, 1), (48, 1030, 1, 1), 602,
     "4aca20a8bf285127979b937892a5d07d92fc18afa47a337f1910908d17469760"),
    ("c1499-n20-t2", 2, (20, 1499, 1, 1), (100, 1499, 1, 1), 603,
     "92d634e5599e72d6308f84e084cca7726473ccd10a364955009230fbc69550ab"),
    ("c593-2x2-t2", 2, (4, 593, 2, 2), (48, 593, 1, 1), 604,
     "bcbb5932564eaafe1199a4345a425a1bd48a3d114908b62ea55b5a4cf5e92122"),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("l2", [1 << 20, 512 << 10])
def test_recorded_bits(case, l2: int) -> None:
    _name, threads, xs, ws, seed, want = case
    rng = np.random.default_rng(seed)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    x, w, b = values(xs), values(ws), values(ws[:1])
    profile = profile_for_capability("DEFAULT", threads, "x86_64").with_l2_per_core(l2)
    assert conv.path(x.shape, w.shape, (1, 1), (0, 0), profile) == conv.GEMM_JIT
    assert bits_sha256(conv.conv2d(x, w, b, (1, 1), (0, 0), profile)) == want


def test_conv3d_recorded_bits() -> None:
    """conv3d, 4x593x1x1x1 by 48 output channels with a bias, 2 threads: 152 of 192 outputs differed
    before (512-term calls)."""
    rng = np.random.default_rng(605)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    x, w, b = values((4, 593, 1, 1, 1)), values((48, 593, 1, 1, 1)), values((48,))
    got = conv3d.conv3d(x, w, b, (1, 1, 1), (0, 0, 0), profile_for_capability("DEFAULT", 2, "x86_64"))
    assert bits_sha256(got) == "a339bebda525143f34c889658f62c7412863d0901104dbfe8d7062ced655fff9"


def test_one_pixel_pieces() -> None:
    """The one-pixel shapes' pieces are single pixels over all output channels, one input-channel
    block (the gemv 'T' path), at either L2."""
    for l2 in (1 << 20, 512 << 10):
        g = conv._geometry((4, 593, 1, 1), (48, 593, 1, 1), (1, 1), (0, 0))
        conf = conv._gemm_jit_forward_conf(g, 2, l2)
        assert (conf.col, conf.os_block, conf.ic_block) == (0, 1, 593)
        assert {p[2] - p[1] for p in conv._gemm_jit_forward_pieces(g, conf)} == {1}
