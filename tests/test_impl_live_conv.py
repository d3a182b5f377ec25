"""Live parity of harness.impl.conv: torch, run now, against the impl, bit for bit (uint32 patterns).

The convolutions of the zoo's models (zoo/resnet.py: 7x7 stride 2, 3x3, 1x1 with stride 1 and 2,
channels 3 to 32, no bias; zoo/vit.py: the 8x8 stride-8 patch embedding with a bias) and random
shapes around the kernels' switches (channel blocks of 8 and 16, 1x1 kernels and their stride rule,
a stride that divides the width or not, oneDNN's gemm:jit K blocks of 256, one image), forward and
every gradient, at 1 and 2 threads.

Two ways in: ``test_level`` runs every case in a fresh process for each ISA level this CPU has
(ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA pinned together, as the platform levels do) and each
thread count; the in-process tests run under the running torch's level, when its oneDNN ISA is
pinned to match (else they skip, saying why). What the impl does not model raises ParityError; the
tests keep those cases out by their shapes (``modelled``), and the gap tests hold the
known gaps as gaps, each in a fresh process at its level.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.ulp import compare_tensors
from harness.impl import conv
from harness.impl.profiles import KernelProfile, profile_for_capability
from harness.platform.config import collect_facts, supported_levels
from tests.impl_live import (
    LEVEL_ENV,
    SEEDS,
    as_tensor,
    assert_bits_equal,
    live_profile,
    needs_modelled_mkl,
    needs_verified_profile,
    normal32,
    run_child,
    use_threads,
)

pytestmark = pytest.mark.usefixtures("restore_threads")

ROOT = Path(__file__).resolve().parents[1]
# ATen capability -> the oneDNN ISA its platform level pins (harness.platform.config ISA_LEVELS)
ONEDNN_ISA = {"DEFAULT": "SSE41", "AVX2": "AVX2", "AVX512": "AVX512_CORE"}

# (input shape, weight shape, stride, padding, bias): the zoo's convolutions (tiny ResNet, batch 4 of
# 32x32 images; ViT's patch embedding; TextNet's asymmetric branches, padding a pair)
ZOO = (
    ((4, 3, 32, 32), (16, 3, 7, 7), 2, 3, False),
    ((4, 16, 8, 8), (4, 16, 1, 1), 1, 0, False),
    ((4, 4, 8, 8), (4, 4, 3, 3), 1, 1, False),
    ((4, 4, 8, 8), (16, 4, 1, 1), 1, 0, False),
    ((4, 16, 8, 8), (32, 16, 1, 1), 2, 0, False),
    ((4, 16, 8, 8), (8, 16, 1, 1), 1, 0, False),
    ((4, 8, 8, 8), (8, 8, 3, 3), 2, 1, False),
    ((4, 8, 4, 4), (32, 8, 1, 1), 1, 0, False),
    ((4, 3, 32, 32), (64, 3, 8, 8), 8, 0, True),
    ((4, 16, 8, 8), (16, 16, 1, 3), 1, (0, 1), False),
    ((4, 16, 8, 8), (16, 16, 3, 1), 1, (1, 0), False),
    ((4, 8, 16, 16), (16, 8, 1, 3), 2, (0, 1), False),
    ((4, 8, 16, 16), (16, 8, 3, 1), 2, (1, 0), False),
    ((2, 1, 1, 4000), (32, 1, 1, 127), (1, 64), 0, True),  # Moonshine's waveform stem: a stride over 28
    ((2, 1, 1, 205), (17, 1, 1, 131), (1, 67), (0, 8), False),  # AVX-512's backward data: ur_w = stride_w
)
# oneDNN's gemm:jit (every backward at SSE4.1) where its sgemm is a gemv (one output channel, or
# C*KH*KW = 1), the forward of one output channel with K = C*KH*KW above 256, and one image of a
# 5x5 kernel below the scratchpad limit (its pixel blocks are held by the committed random case
# r3-conv-030, whose forward runs ref:any: tests/test_impl_conv_gemm_jit.py)
GEMM_JIT_EDGES = (
    ((3, 12, 13, 16), (1, 12, 3, 5), 2, 0, True),
    ((16, 1, 17, 5), (1, 1, 1, 1), 2, 0, False),
    ((3, 1, 17, 14), (7, 1, 1, 1), 2, 0, True),
    ((4, 17, 15, 12), (1, 17, 2, 2), 1, 0, True),
    ((1, 31, 6, 6), (6, 31, 5, 5), 1, 2, True),
    ((17, 33, 6, 16), (1, 33, 3, 3), 1, 0, True),
    ((4, 57, 8, 8), (1, 57, 3, 3), 1, 0, False),
    # one or two input channels: gemm:jit at SSE4.1 (jit:sse41 takes 3, or a multiple of 8)
    ((2, 1, 5, 20), (8, 1, 3, 3), 1, 0, True),
    ((2, 2, 5, 67), (8, 2, 5, 5), 2, 0, True),
    # the kernel within the padding: jit:sse41 declines it as jit:avx2 does, gemm:jit at SSE4.1
    ((2, 8, 9, 9), (8, 8, 3, 3), 1, 3, False),
    ((2, 24, 10, 18), (8, 24, 2, 2), 2, 3, True),
)

# oneDNN's thread splits of the weight and bias gradients: jit:avx512_core's 2-D harness (more than 9
# output rows: (image, row) units split), its bias reducer (3 output-channel blocks), one input
# channel (its first-convolution kernel); jit_1x1:avx512_core's balance, jit_1x1:avx2's calls of 128
# pixels (16x14x18 with one output channel)
SPLIT_EDGES = (
    ((5, 16, 11, 7), (12, 16, 3, 3), 1, 1, False),
    ((2, 24, 6, 13), (40, 24, 2, 2), 1, 1, True),
    ((3, 33, 14, 4), (8, 33, 2, 2), 1, 1, True),
    ((4, 17, 15, 12), (1, 17, 2, 2), 1, 0, True),
    ((17, 1, 7, 18), (16, 1, 7, 5), 2, 1, False),
    ((4, 16, 8, 8), (32, 16, 1, 1), 2, 0, False),
    ((3, 13, 16, 6), (9, 13, 1, 1), 2, 0, True),
    ((16, 8, 14, 18), (1, 8, 1, 1), 1, 0, True),
)

# Known gaps, measured (docs/impl/kernels.md, convolution): (level, threads, case, output). RAISES: the
# impl has no model and raises ParityError (never wrong bits). No known case gets wrong bits (the
# gaps that did are CLOSED below).
RAISES = (
    # AVX512_CORE's ip_convolution (one output pixel of 36 taps, two images): its inner product
    ("avx512", 1, ((2, 4, 6, 6), (8, 4, 6, 6), 1, 0, True), "out"),
    ("avx512", 2, ((3, 4, 6, 6), (8, 4, 6, 6), 1, 0, False), "grad_weight"),
)


def _onednn_mismatch() -> str:
    cap = torch.backends.cpu.get_cpu_capability()
    want = ONEDNN_ISA.get(cap)
    have = os.environ.get("ONEDNN_MAX_CPU_ISA", os.environ.get("DNNL_MAX_CPU_ISA", ""))
    if want is None or have.upper() != want:
        return (
            f"oneDNN's ISA is not pinned to ATen's capability {cap} (ONEDNN_MAX_CPU_ISA={have or 'unset'}, "
            f"want {want}); test_level covers every level in fresh processes"
        )
    return ""


needs_pinned_onednn = pytest.mark.skipif(bool(_onednn_mismatch()), reason=_onednn_mismatch() or "-")


def _pair(v: int | tuple[int, int]) -> tuple[int, int]:
    """A stride or padding given as an int for both sides, or as a pair."""
    return tuple(v) if isinstance(v, tuple) else (v, v)


def modelled(case: tuple, profile: KernelProfile) -> bool:
    """Whether the impl models every output of ``case`` under ``profile`` (else it raises ParityError)."""
    x_shape, w_shape, stride, padding, _bias = case
    s, p = _pair(stride), _pair(padding)
    g = conv._geometry(x_shape, w_shape, s, p)
    kind = conv.path(x_shape, w_shape, s, p, profile)
    # ip_convolution (conv.unmodelled_passes)
    return not any(conv.unmodelled_passes(g, kind, profile))


def run_case(case: tuple, seed: int, profile: KernelProfile) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, torch's, the impl's) of the output and every gradient of one convolution (stride and
    padding an int for both sides or a pair)."""
    x_shape, w_shape, stride, padding, bias = case
    rng = np.random.default_rng(seed)
    x, w = normal32(rng, x_shape), normal32(rng, w_shape, 0.2)
    b = normal32(rng, (w_shape[0],)) if bias else None
    tx, tw = as_tensor(x, True), as_tensor(w, True)
    tb = as_tensor(b, True) if b is not None else None
    y = F.conv2d(tx, tw, tb, stride=stride, padding=padding)
    g = normal32(rng, tuple(y.shape))
    y.backward(as_tensor(g))
    s, p = _pair(stride), _pair(padding)
    gx, gw, gb = conv.conv2d_backward(g, x, w, s, p, bias, profile)
    pairs = [
        ("out", y.detach().numpy(), conv.conv2d(x, w, b, s, p, profile)),
        ("grad_input", tx.grad.numpy(), gx),
        ("grad_weight", tw.grad.numpy(), gw),
    ]
    if tb is not None:
        pairs.append(("grad_bias", tb.grad.numpy(), gb))
    return pairs


def random_cases(seed: int, count: int) -> list[tuple]:
    """Seeded random convolutions around the kernels' switches."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        k = int(rng.choice([1, 1, 2, 3, 3, 4, 5, 7]))
        stride = int(rng.choice([1, 1, 2, 2, 3]))
        padding = int(rng.integers(0, k // 2 + 1))
        # an input at least the kernel's size (smaller ones, and one input or output channel, take
        # oneDNN's gemm:jit at every level, which the impl models at SSE4.1 only)
        h = int(rng.integers(max(4, k + 1), 15))
        w = int(rng.integers(max(4, k + 1), 15))
        n = int(rng.choice([1, 2, 3, 4, 5]))
        c = int(rng.choice([3, 4, 8, 12, 16, 17, 24, 33, 40]))
        oc = int(rng.choice([4, 8, 12, 16, 20, 24, 32, 40]))
        cases.append(((n, c, h, w), (oc, c, k, k), stride, padding, bool(rng.integers(0, 2))))
    return cases


def check(cases: list[tuple], seed: int, profile: KernelProfile) -> dict:
    """Every modelled case under ``profile``: how many tensors were compared, and the mismatches."""
    checked, failures, left_out = 0, [], 0
    for i, case in enumerate(cases):
        if not modelled(case, profile):
            left_out += 1
            continue
        for name, want, got in run_case(case, seed + i, profile):
            checked += 1
            c = compare_tensors(name, want, got)
            if not c.bit_identical:
                failures.append(f"{case} {name}: {c.count - c.identical} of {c.count} differ, max {c.max_ulp} ULP")
    return {"checked": checked, "failures": failures, "left_out": left_out}


def _child() -> None:
    """Run in a fresh process by test_level: every case under this process's level and threads."""
    threads = int(sys.argv[2])
    use_threads(threads)
    profile = live_profile()
    cases = list(ZOO) + list(GEMM_JIT_EDGES) + list(SPLIT_EDGES) + random_cases(int(sys.argv[3]), int(sys.argv[4]))
    print(json.dumps(check(cases, 7, profile)))


LEVELS = [lvl for lvl in supported_levels(collect_facts()) if lvl.arch == "x86_64"]


def _run_pinned(
    level, threads: int, child: str, args: list[str], module: str = "tests.test_impl_live_conv", env_extra=None
) -> dict:
    """``module``'s ``child`` function with ``args`` in a fresh process, ``level``'s ATen capability
    and oneDNN ISA pinned together, ``threads`` threads and ``env_extra``; its JSON report (the last
    line)."""
    env = {**level.env, **(env_extra or {}), "OMP_NUM_THREADS": str(threads)}
    return run_child(module, child, args, env, drop=LEVEL_ENV)


def _level_named(name: str):
    """The platform level ``name`` where this CPU runs it; a skip where it does not."""
    level = next((lvl for lvl in LEVELS if lvl.name == name), None)
    if level is None:
        pytest.skip(f"this CPU does not run the {name} level")
    return level


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("level", LEVELS, ids=[lvl.name for lvl in LEVELS])
def test_level(level, threads: int) -> None:
    """The zoo's convolutions and 40 random ones at this ISA level and thread count, in a fresh process."""
    report = _run_pinned(level, threads, "_child", ["child", str(threads), "2024", "40"])
    assert not report["failures"], "\n".join(report["failures"])
    assert report["checked"] >= 3 * len(ZOO)


@needs_pinned_onednn
@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", ZOO, ids=[f"{c[0]}-{c[1]}-s{c[2]}" for c in ZOO])
def test_zoo_shapes(case: tuple, threads: int) -> None:
    use_threads(threads)
    profile = live_profile()
    if not modelled(case, profile):
        pytest.skip(f"not modelled under {profile.label}: see GAPS and docs/impl/kernels.md")
    for name, want, got in run_case(case, 11, profile):
        assert_bits_equal(f"conv2d {name}", want, got)


@needs_pinned_onednn
@needs_modelled_mkl
@needs_verified_profile
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2]))
def test_random_shapes(seed: int, threads: int) -> None:
    use_threads(threads)
    profile = live_profile()
    for case in random_cases(seed % 2**31, 2):
        if modelled(case, profile):
            for name, want, got in run_case(case, seed, profile):
                assert_bits_equal(f"conv2d {case} {name}", want, got)


# Gaps closed, each held at its level in a fresh process on fixed shapes and seeded random ones around
# them: (level, thread counts, fixed cases, draw of random cases, whether a case exercises what was
# closed).
def _wide_bias_cases(seed: int, count: int) -> list[tuple]:
    """gemm:jit's grad_bias (every backward at SSE4.1) over rows of 32 to 600 output columns."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        k, stride = int(rng.choice([1, 2, 3, 5])), int(rng.choice([1, 1, 2]))
        padding = int(rng.integers(0, k // 2 + 1))
        ow = int(rng.choice([32, 33, 40, 63, 64, 65, 100, 129, 257, 600]))
        n, c, oc = int(rng.choice([2, 3, 4])), int(rng.choice([1, 3, 5, 8])), int(rng.choice([1, 3, 5, 8, 12]))
        h = int(rng.integers(k, 6))
        cases.append(((n, c, h, (ow - 1) * stride + k - 2 * padding), (oc, c, k, k), stride, padding, True))
    return cases


def _avx2_data_cases(seed: int, count: int) -> list[tuple]:
    """Backward data at stride 1 (jit:avx2 at AVX2) with 4 to 70 output columns and up to 70 output
    channels: jit:avx2's chunks of 4, 2 or 1 blocks of 8 output channels."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        k = int(rng.choice([2, 3, 3, 5, 7]))
        padding = int(rng.integers(0, k // 2 + 1))
        ow = int(rng.choice([rng.integers(4, 20), rng.integers(12, 45), rng.integers(36, 70)]))
        c = int(rng.choice([3, 3, 4, 8, 12, 16, 17, 24]))
        oc = int(rng.choice([5, 8, 12, 16, 20, 24, 29, 32, 40, 48, 64, 70]))
        h = int(rng.integers(max(k, 2), 10))
        cases.append(((int(rng.integers(1, 4)), c, h, ow - 1 + k - 2 * padding), (oc, c, k, k), 1, padding, True))
    return cases


def _is_wide_bias(case: tuple, profile: KernelProfile) -> bool:
    x_shape, w_shape, stride, padding, _bias = case
    g = conv._geometry(x_shape, w_shape, (stride, stride), (padding, padding))
    return g.ow >= 32 and conv.path(x_shape, w_shape, (stride, stride), (padding, padding), profile) != conv.THNN


def _is_avx2_chunked(case: tuple, profile: KernelProfile) -> bool:
    x_shape, w_shape, stride, padding, _bias = case
    s, p = _pair(stride), _pair(padding)
    g = conv._geometry(x_shape, w_shape, s, p)
    kind = conv.path(x_shape, w_shape, s, p, profile)
    return kind == conv.AVX2 and stride == 1 and (g.kh, g.kw) != (1, 1) and g.ow >= 15 and g.oc > 8


def _strided_twice_pad_cases(seed: int, count: int) -> list[tuple]:
    """brgconv_strided's backward data with KW = 2 * PW = 6 and a stride of 2 or 3 that divides W:
    brgemm calls of several taps beside calls of one (``conv._strided_kw_calls``)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        # KW = 6 (8 and more: a padding over jit:avx2's forward unroll of 3 takes gemm:jit, not modelled)
        k, stride = 6, int(rng.choice([2, 2, 3]))
        # the input at least the kernel (smaller ones take gemm:jit at AVX2 and AVX-512)
        width, h = stride * int(rng.integers(-(-k // stride), 9)), int(rng.integers(k, 13))
        c, oc = int(rng.choice([3, 4, 8, 16, 17, 24])), int(rng.choice([5, 8, 16, 20, 33]))
        cases.append(
            ((int(rng.choice([2, 3, 4])), c, h, width), (oc, c, k, k), stride, k // 2, bool(rng.integers(0, 2)))
        )
    return cases


def _is_strided_twice_pad(case: tuple, profile: KernelProfile) -> bool:
    x_shape, w_shape, stride, padding, _bias = case
    kind = conv.path(x_shape, w_shape, (stride, stride), (padding, padding), profile)
    return kind in (conv.AVX2, conv.AVX512) and x_shape[3] % stride == 0 and w_shape[3] == 2 * padding > 4


def _strided_cases(seed: int, count: int) -> list[tuple]:
    """Small strided backward data (one to three images, kernels 2 to 7, strides 2 and 3 dividing W, the
    input at least the kernel): brgconv_strided's exec_base with the blocks its estimate picks."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        k, stride = int(rng.choice([2, 3, 4, 5, 6, 7])), int(rng.choice([2, 2, 3]))
        padding = int(rng.integers(0, k // 2 + 1))
        width, h = stride * int(rng.integers(-(-k // stride), 11)), int(rng.integers(k, 12))
        c, oc = int(rng.choice([3, 4, 8, 12, 16, 17, 24, 33, 40])), int(rng.choice([5, 8, 16, 20, 33]))
        cases.append(((int(rng.choice([1, 1, 2, 3])), c, h, width), (oc, c, k, k), stride, padding, False))
    return cases


def _is_strided_base(case: tuple, profile: KernelProfile) -> bool:
    x_shape, w_shape, stride, padding, _bias = case
    kind = conv.path(x_shape, w_shape, (stride, stride), (padding, padding), profile)
    return kind in (conv.AVX2, conv.AVX512) and stride > 1 and x_shape[3] % stride == 0


# small problems whose blocks of input columns on 2 threads are below W: the only blocks whose kw calls
# gave torch's bits, of every block dividing W (2, 12, 3 at avx2; 6, 3, 9 at avx512)
STRIDED_BLOCKS = {
    "avx2": (
        ((1, 4, 6, 10), (20, 4, 5, 5), 2, 0, True),
        ((1, 17, 9, 24), (8, 17, 6, 6), 3, 1, False),
        ((1, 4, 9, 15), (8, 4, 5, 5), 3, 0, False),
    ),
    "avx512": (
        ((3, 16, 11, 12), (40, 16, 7, 7), 2, 3, True),
        ((1, 16, 9, 9), (20, 16, 7, 7), 3, 3, False),
        ((3, 4, 10, 18), (8, 4, 5, 5), 3, 1, False),
    ),
}


def _avx512_1x1_cases(seed: int, count: int) -> list[tuple]:
    """1x1 convolutions of 81 to 600 input or output channels, stride 1 and 2, whose forward or
    backward data jit_1x1:avx512_core runs in several kernel calls on 2 threads (its reduce blocks)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        c, oc = int(rng.integers(8, 601)), int(rng.integers(8, 601))
        stride, side = int(rng.choice([1, 1, 2])), int(rng.integers(2, 30))
        x_shape = (int(rng.integers(1, 4)), c, side * stride, int(rng.integers(1, 16)) * stride)
        case = (x_shape, (oc, c, 1, 1), stride, 0, bool(rng.integers(0, 2)))
        if x_shape[0] * side * x_shape[3] // stride * c * oc < 1_000_000 and _is_avx512_1x1_split(case, None):
            cases.append(case)
    return cases


def _is_avx512_1x1_split(case: tuple, profile: KernelProfile | None) -> bool:
    """jit_1x1:avx512_core cuts the forward's input channels or (stride 1) backward data's output
    channels into calls (on 2 threads where ``profile`` is None)."""
    x_shape, w_shape, stride, _padding, _bias = case
    s = (stride, stride)
    g = conv._geometry(x_shape, w_shape, s, (0, 0))
    profile = profile or profile_for_capability("AVX512", 2, "x86_64")
    if conv.path(x_shape, w_shape, s, (0, 0), profile) != conv.AVX512 or not conv._one_by_one(g):
        return False
    data = stride == 1 and conv.avx512_1x1_reduce_block(g, profile.threads, True) < -(-g.oc // 16) * 16
    return data or conv.avx512_1x1_reduce_block(g, profile.threads, False) < -(-g.c // 16) * 16


CLOSED = {
    # jit_1x1:avx512_core's kernel calls over the channels (80, 256 or 512, the L2 aliasing cut)
    "avx512-1x1-calls": (
        "avx512",
        (2,),
        (
            ((1, 200, 14, 14), (24, 200, 1, 1), 1, 0, True),
            ((2, 24, 12, 12), (300, 24, 1, 1), 1, 0, False),
            ((1, 130, 64, 64), (8, 130, 1, 1), 1, 0, False),
        ),
        _avx512_1x1_cases,
        _is_avx512_1x1_split,
    ),
    # oneDNN gemm:jit's grad_bias over rows of 32 or more columns: one chain per row
    "gemm-jit-wide-bias": (
        "baseline",
        (1, 2),
        (((2, 3, 3, 34), (5, 3, 1, 3), 1, 0, True), ((3, 5, 4, 130), (3, 5, 3, 3), 1, 1, True)),
        _wide_bias_cases,
        _is_wide_bias,
    ),
    # jit:avx2's backward data with nb_oc_blocking 2 (15 to 39 output columns) and 1 (40 or more)
    "avx2-data-chunks": (
        "avx2",
        (1, 2),
        (((16, 3, 15, 16), (29, 3, 3, 3), 1, 1, False), ((2, 8, 15, 16), (24, 8, 3, 3), 1, 1, True)),
        _avx2_data_cases,
        _is_avx2_chunked,
    ),
    # brgconv_strided's backward data with KW = 2 * PW > 4, the stride dividing W: its kw calls
    "strided-twice-pad": (
        "avx2",
        (1, 2),
        (((2, 8, 9, 14), (8, 8, 6, 6), 2, 3, False), ((3, 5, 9, 12), (8, 5, 6, 6), 2, 3, True)),
        _strided_twice_pad_cases,
        _is_strided_twice_pad,
    ),
    "strided-twice-pad-avx512": (
        "avx512",
        (1, 2),
        (((2, 8, 9, 14), (8, 8, 6, 6), 2, 3, False), ((2, 8, 9, 12), (8, 8, 6, 6), 3, 3, False)),
        _strided_twice_pad_cases,
        _is_strided_twice_pad,
    ),
    # brgconv_strided's block of input columns below W on 2 threads (its efficiency estimate)
    "strided-blocks": ("avx2", (2,), STRIDED_BLOCKS["avx2"], _strided_cases, _is_strided_base),
    "strided-blocks-avx512": ("avx512", (2,), STRIDED_BLOCKS["avx512"], _strided_cases, _is_strided_base),
}


@pytest.mark.parametrize(("level", "blocks"), [("avx2", (2, 12, 3)), ("avx512", (6, 3, 9))])
def test_strided_blocks_below_the_width(level: str, blocks: tuple[int, ...]) -> None:
    """brgconv_strided's estimate picks, on 2 threads, the blocks of input columns measured (the
    fixtures' 32 KiB L1 and 1 MiB L2); on 1 thread all of W."""
    simd = 16 if level == "avx512" else 8
    for case, block in zip(STRIDED_BLOCKS[level], blocks, strict=True):
        x_shape, w_shape, stride, padding, _bias = case
        g = conv._geometry(x_shape, w_shape, (stride, stride), (padding, padding))
        assert conv._strided_blocking(g, 2, simd, 32 << 10, 1 << 20).iw_block == block, case
        assert conv._strided_blocking(g, 1, simd, 32 << 10, 1 << 20).iw_block == g.w, case


def _closed_child() -> None:
    """Run in a fresh process by test_closed_gap: one closed gap's fixed and random cases under this
    process's level and threads; the report of ``check`` and how many cases exercise the gap."""
    name, threads, seed, count = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    use_threads(threads)
    profile = live_profile()
    _level, _threads, fixed, draw, exercises = CLOSED[name]
    cases = list(fixed) + draw(seed, count)
    report = check(cases, 13, profile)
    report["exercised"] = sum(exercises(case, profile) for case in cases)
    print(json.dumps(report))


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize(
    ("name", "threads"), [(name, t) for name in sorted(CLOSED) for t in CLOSED[name][1]], ids=lambda v: str(v)
)
def test_closed_gap(name: str, threads: int) -> None:
    """A gap closed: the impl bit for bit torch's on its shapes and random ones around them, in a fresh
    process at its level (every output of every case; most cases exercise the gap)."""
    level, _threads, fixed, _draw, _exercises = CLOSED[name]
    report = _run_pinned(_level_named(level), threads, "_closed_child", ["closed", name, str(threads), "31", "6"])
    assert not report["failures"], "\n".join(report["failures"])
    assert report["left_out"] == 0 and report["exercised"] >= len(fixed) + 3, report


def _gap_child() -> None:
    """Run in a fresh process by test_unmodelled_gaps_raise: the impl on one known gap, under this
    process's level."""
    _level, threads, case, _output = RAISES[int(sys.argv[3])]
    use_threads(threads)
    profile = live_profile()
    try:
        run_case(case, 3, profile)
    except Exception as err:  # the impl's ParityError, by its words
        print(json.dumps({"modelled": modelled(case, profile), "raised": str(err)}))
        return
    print(json.dumps({"modelled": modelled(case, profile), "raised": ""}))


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("index", range(len(RAISES)), ids=[f"{g[0]}-t{g[1]}-{g[3]}" for g in RAISES])
def test_unmodelled_gaps_raise(index: int) -> None:
    """What the impl does not model raises ParityError under its level and threads (never wrong bits)."""
    level, threads, _case, _output = RAISES[index]
    report = _run_pinned(_level_named(level), threads, "_gap_child", ["gap", "raises", str(index)])
    assert not report["modelled"] and "not modelled" in report["raised"], report


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    _child()
