"""MKL VML's exp and log on MKL's Intel AVX2 path (csrc/vmath.h mkl_avx2_vml_expf_main,
mkl_avx2_vml_logf_normal) against the committed fixture recorded under QEMU's Haswell-v4 model
(linux-x86_64-avx2-mklavx2-t1) and against single values measured there: the bits under the
mklavx2 profile equal MKL's, and MKL's generic-path model gives other bits (so a fallback to it
fails). No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import unary
from harness.impl.profiles import MKL_AVX2, get_profile, profile_for_platform
from tests.impl_intel_mkl import assert_model_reproduces, bits

PLATFORM = "linux-x86_64-avx2-mklavx2-t1"
LEVEL = "x86-avx2"  # the ISA level's profile, MKL's generic path

# (case, output): every exp and log output where the two paths' kernels differ (log/7 they do not)
EXACT = (
    ("exp/7", "out"),
    ("exp/7", "grad_x"),
    ("exp/1001", "out"),
    ("exp/1001", "grad_x"),
    ("exp/65x509", "out"),
    ("exp/65x509", "grad_x"),
    ("log/1001", "out"),
    ("log/65x509", "out"),
)

# (input bits, torch.exp / torch.log output bits) measured with torch 2.13.0 under
# `qemu-x86_64 -cpu Haswell-v4` (ATEN_CPU_CAPABILITY=avx2, one thread; each value alone and all in one
# tensor give the same bits). The first four of each differ from MKL's generic path; the rest are the
# edges: the last main-path inputs and the first of the correctly rounded fallback (+-0x42aeac4f,
# +-0x42aeac50), subnormal and zero results, overflow, infinities, NaNs (a signalling one quieted),
# log's subnormal inputs, the reduction's break point 0x3f2aaaab, zero and negative inputs.
EXP_MEASURED = (
    (0x3FF0E7A4, 0x40D22582),
    (0x3DEA4276, 0x3F8F82EE),
    (0x3F829ED3, 0x40319179),
    (0xBEE7D720, 0x3F22C636),
    (0xC2AE0000, 0x00B33687),
    (0x42AE0000, 0x7E36D809),
    (0x42AEAC4F, 0x7E7FFFB4),
    (0xC2AEAC4F, 0x00800026),
    (0x42AEAC50, 0x7E80001A),
    (0xC2AEAC50, 0x007FFFE6),
    (0xC2C80000, 0x0000001B),
    (0xC2D00000, 0x00000000),
    (0xC2E00000, 0x00000000),
    (0x42B17218, 0x7F800000),
    (0x42B20000, 0x7F800000),
    (0x7F800000, 0x7F800000),
    (0xFF800000, 0x00000000),
    (0x7FC00000, 0x7FC00000),
    (0x7F800001, 0x7FC00001),
    (0x80000000, 0x3F800000),
    (0x0DA24260, 0x3F800000),
)
LOG_MEASURED = (
    (0x3FAC49CC, 0x3E982293),
    (0x40137A7C, 0x3F55B563),
    (0x4032EBC6, 0x3F839783),
    (0x3F45233C, 0xBE85C5E1),
    (0x00000001, 0xC2CE8ED0),
    (0x007FFFFF, 0xC2AEAC50),
    (0x00800000, 0xC2AEAC50),
    (0x7F7FFFFF, 0x42B17218),
    (0x3F800000, 0x00000000),
    (0x3F2AAAAB, 0xBECF991E),
    (0x3F2AAAAA, 0xBECF9921),
    (0xBF800000, 0x7FC00000),
    (0x80000000, 0xFF800000),
    (0x00000000, 0xFF800000),
    (0x7F800000, 0x7F800000),
    (0xFF800000, 0x7FC00000),
    (0x7FC00000, 0x7FC00000),
    (0x7F800001, 0x7FC00001),
    (0x3F800001, 0x33FFFFFF),
)
DIFFERS_FROM_GENERIC = 4  # the first entries of each table


def test_the_intel_avx2_profile_names_its_blas_path():
    assert profile_for_platform(PLATFORM).blas == MKL_AVX2


@pytest.mark.parametrize(("case", "output"), EXACT, ids=[f"{c}/{o}" for c, o in EXACT])
def test_intel_avx2_vml_reproduces_the_fixture_bits(case: str, output: str):
    assert_model_reproduces(PLATFORM, case, output, MKL_AVX2, LEVEL)


@pytest.mark.parametrize(("op", "table"), [("exp", EXP_MEASURED), ("log", LOG_MEASURED)])
def test_intel_avx2_vml_gives_the_measured_values(op: str, table: tuple[tuple[int, int], ...]):
    x = np.array([i for i, _ in table], np.uint32).view(np.float32)
    want = np.array([o for _, o in table], np.uint32)
    got = bits(unary.forward(op, x, profile_for_platform(PLATFORM)))
    assert [hex(v) for v in got] == [hex(v) for v in want]
    # the same values one at a time and as the tail of a longer array (VML's remainder elements)
    for i in range(len(x)):
        assert bits(unary.forward(op, x[i : i + 1], profile_for_platform(PLATFORM)))[0] == want[i]
    longer = np.concatenate([np.ones(13, np.float32), x])
    assert np.array_equal(bits(unary.forward(op, longer, profile_for_platform(PLATFORM)))[13:], want)
    generic = bits(unary.forward(op, x, get_profile(LEVEL, 1)))
    assert np.all(generic[:DIFFERS_FROM_GENERIC] != want[:DIFFERS_FROM_GENERIC])


def test_tanh_is_the_generic_paths_on_the_intel_avx2_path():
    """vsTanh has no kernel of its own there (measured): the two profiles agree on every input."""
    x = np.linspace(-11, 11, 40_001, dtype=np.float32)
    avx2 = bits(unary.forward("tanh", x, profile_for_platform(PLATFORM)))
    assert np.array_equal(avx2, bits(unary.forward("tanh", x, get_profile(LEVEL, 1))))
