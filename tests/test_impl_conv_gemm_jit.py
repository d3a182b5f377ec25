"""oneDNN's gemm:jit forward at the baseline level (SSE4.1) and its ``ref:any`` fallback: the rule that
picks between them (init_conf's blocking against the scratchpad limit, the per-core L2 cache a profile
fact) and both kernels' bits; and gemm:jit's backward at the scratchpad limit (its pixel blocks)
(harness.impl.conv; docs/impl/kernels.md, convolution).

Three ways in, all quick: the committed random case r3-conv-030, whose forward ran ``ref:any`` at 1
and 2 threads, bit-exact under its fixtures' profiles; the rule on the fixtures' host against another
L2 size; and live: torch in a fresh process pinned to the baseline level (ATEN_CPU_CAPABILITY and
ONEDNN_MAX_CPU_ISA together) at 1 and 2 threads, on shapes either side of the limit and on the
blocking's other pieces (input-channel blocks, one-pixel and one-channel sgemms), ONEDNN_VERBOSE
naming the kernel the rule predicts and torch's output bit for bit the impl's, and the gradients
of backwards at 90% to 100% of the limit.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.ops import read_op_fixture
from harness.impl import conv
from harness.impl.profiles import FIXTURE_L2_PER_CORE, get_profile, profile_for_fixture
from harness.platform.config import cache_per_core
from harness.store.paths import DEFAULT_FIXTURES
from tests.impl_live import needs_modelled_mkl

RANDOM_3 = DEFAULT_FIXTURES / "torch-2.13.0" / "linux-x86_64-baseline-mklgeneric-t{}.random-3.h5"

# (input shape, weight shape, stride, padding, bias). r3-conv-030's family (one output channel, 5x5,
# padding 2, 18 rows): 2 channels cross the limit at 8 columns on 1 thread and at 9 on 2, 3 channels
# at 5 on both; r3-conv-030 itself with a bias; then gemm:jit's pieces: one-pixel sgemms (gemv 'T'),
# input-channel blocks of the L2 (on 1 thread, on 2, on both, with one output channel: gemv 'N')
LIVE = (
    ((1, 2, 18, 7), (1, 2, 5, 5), 1, 2, False),
    ((1, 2, 18, 8), (1, 2, 5, 5), 1, 2, True),
    ((1, 2, 18, 9), (1, 2, 5, 5), 1, 2, False),
    ((1, 3, 18, 4), (1, 3, 5, 5), 1, 2, True),
    ((1, 3, 18, 5), (1, 3, 5, 5), 1, 2, False),
    ((1, 31, 18, 13), (1, 31, 5, 5), 1, 2, True),
    ((1, 12, 5, 7), (7, 12, 5, 7), 3, 0, False),
    ((1, 69, 5, 7), (12, 69, 5, 7), 2, 0, True),
    ((1, 44, 5, 33), (5, 44, 7, 6), 1, 3, False),
    ((1, 38, 24, 35), (17, 38, 6, 3), 1, 3, True),
    ((1, 64, 19, 17), (17, 64, 7, 7), 1, 1, False),
    ((1, 18, 33, 30), (1, 18, 6, 7), 1, 1, False),
)
# (threads, case): gemm:jit backwards whose im2col buffer, with the weights pass's booking, comes to
# 90% to 100% of the scratchpad limit at that thread count: the weights' pixel blocks by the room
# left after its reduction buffer (16 bytes a weight per thread), grad_input whole
BACKWARD = (
    (1, ((1, 7, 6, 6), (1, 7, 5, 5), 1, 2, False)),
    (1, ((1, 14, 7, 7), (3, 14, 4, 4), 1, 3, True)),
    (1, ((1, 31, 15, 6), (5, 31, 4, 4), 1, 3, True)),
    (1, ((1, 29, 12, 5), (1, 29, 6, 7), 1, 2, True)),
    (2, ((1, 39, 10, 2), (1, 39, 7, 4), 1, 3, False)),
    (2, ((2, 9, 14, 9), (2, 9, 6, 7), 1, 3, True)),
    (2, ((1, 6, 19, 2), (1, 6, 5, 4), 1, 3, False)),
)
# gemm:jit grad_inputs whose sgemms have one row or one column, which oneDNN's sgemm hands to its gemv
# kernels: EfficientNet's 1x1 convolution on 1x1 maps (one pixel a sgemm), a kernel covering its
# input (one pixel), one input channel of a 1x1 kernel (one column)
GEMV_DATA = (
    ((4, 80, 1, 1), (320, 80, 1, 1), 1, 0, False),
    ((3, 7, 3, 4), (50, 7, 3, 4), 1, 0, True),
    ((2, 1, 5, 6), (33, 1, 1, 1), 1, 0, False),
)
# jit_1x1:avx512_core's backward weights over more than 512 pixels, whose reduce blocking the L1 bounds
# (32 KiB: 1024 pixels a kernel call at an unroll of 8 rows, 512 at 16), run at the avx512 level (on
# 1 thread the first two take ATen's 1x1 path)
ONE_BY_ONE = (
    ((2, 3, 28, 42), (16, 3, 1, 1), 1, 0, True),
    ((2, 8, 19, 47), (8, 8, 1, 1), 1, 0, False),
    ((17, 3, 53, 26), (32, 3, 1, 1), 1, 0, True),
)


def _geometry(case: tuple) -> conv.Geometry:
    x_shape, w_shape, stride, padding, _bias = case
    return conv._geometry(x_shape, w_shape, (stride, stride), (padding, padding))


@pytest.mark.parametrize("threads", [1, 2])
def test_r3_conv_030_forward_is_ref_any(threads: int) -> None:
    """The committed case's forward: ``ref:any`` by the rule, and its 234 outputs bit-exact."""
    fixture = read_op_fixture(Path(str(RANDOM_3).format(threads)), ops=["conv2d"])
    rec = fixture.cases["conv2d/r3-conv-030"]
    profile = profile_for_fixture(fixture.attrs)
    p = rec.params
    g = conv._geometry(p["x_shape"], p["w_shape"], (p["stride"],) * 2, (p["padding"],) * 2)
    assert conv.path(p["x_shape"], p["w_shape"], (p["stride"],) * 2, (p["padding"],) * 2, profile) == conv.GEMM_JIT
    assert conv.gemm_jit_forward_declines(g, profile)
    out = conv.conv2d(rec.inputs["x"], rec.inputs["weight"], None, (p["stride"],) * 2, (p["padding"],) * 2, profile)
    want = rec.outputs["out"]
    assert out.shape == want.shape
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


def test_the_l2_size_moves_the_limit() -> None:
    """The L2 is a host fact. Measured under qemu-x86_64 -cpu EPYC (CPUID: 512 KiB of L2 per core,
    oneDNN's guess too where CPUID names none), baseline, 1 thread: the first two shapes, ref:any on
    the fixtures' host (1 MiB), ran gemm:jit, blocking their input channels; the third ran ref:any
    on both (every output of the five bit-exact under the 512 KiB profile, docs/impl/kernels.md)."""
    host = get_profile("x86-baseline", 1)
    assert host.l2_per_core == FIXTURE_L2_PER_CORE == 1 << 20
    with pytest.raises(ParityError):
        host.with_l2_per_core(0)
    zen1 = host.with_l2_per_core(512 << 10)
    for case in (((1, 33, 38, 6), (3, 33, 5, 6), 1, 3, True), ((1, 26, 14, 16), (1, 26, 4, 7), 1, 3, False)):
        g = _geometry(case)
        assert conv.gemm_jit_forward_declines(g, host)
        assert not conv.gemm_jit_forward_declines(g, zen1)
    both = _geometry(((1, 21, 7, 20), (3, 21, 6, 7), 1, 2, True))
    assert conv.gemm_jit_forward_declines(both, host) and conv.gemm_jit_forward_declines(both, zen1)
    blocked = _geometry(((2, 52, 31, 12), (7, 52, 5, 5), 1, 2, True))
    assert conv._gemm_jit_forward_conf(blocked, 1, 512 << 10).ic_block == 13
    assert conv._gemm_jit_forward_conf(blocked, 1, 1 << 20).ic_block == 26


def test_the_live_cases_cover_both_kernels_and_the_pieces() -> None:
    """LIVE holds, by the rule on the fixtures' host, ref:any and gemm:jit at each thread count, and
    gemm:jit's input-channel blocks, one-pixel and one-channel pieces."""
    seen: set[tuple[int, str]] = set()
    for threads in (1, 2):
        profile = get_profile("x86-baseline", threads)
        for case in LIVE:
            g = _geometry(case)
            if conv.gemm_jit_forward_declines(g, profile):
                seen.add((threads, "ref:any"))
                continue
            seen.add((threads, "gemm:jit"))
            conf = conv._gemm_jit_forward_conf(g, threads, profile.l2_per_core)
            pieces = conv._gemm_jit_forward_pieces(g, conf)
            if conf.ic_block < g.c:
                seen.add((threads, "ic blocks"))
            if any(s1 - s0 == 1 and o1 - o0 > 1 for _b, s0, s1, o0, o1 in pieces):
                seen.add((threads, "one pixel"))
            if any(o1 - o0 == 1 for *_rest, o0, o1 in pieces):
                seen.add((threads, "one channel"))
    kinds = ("ref:any", "gemm:jit", "ic blocks", "one pixel", "one channel")
    assert seen == {(t, k) for t in (1, 2) for k in kinds}


def test_the_backward_cases_sit_at_the_limit() -> None:
    """BACKWARD's weights passes book 90% to 100% of the scratchpad limit with their whole im2col
    buffer at their thread count, and some of them are cut into pixel blocks, some not."""
    blocked = set()
    for threads, case in BACKWARD:
        g = _geometry(case)
        os_, wei = g.oh * g.ow, g.oc * g.c * g.kh * g.kw
        limit = 15 * threads * 4 * (g.n * g.c * g.h * g.w + wei + g.n * g.oc * os_)
        nthr, os_block = conv._gemm_jit_conf(g, threads, True)
        need = 4 * nthr * g.c * g.kh * g.kw * os_ + 16 * nthr * wei + 128
        assert 0.9 * limit <= need <= 1.1 * limit, case
        blocked.add(os_block < os_)
        assert conv._gemm_jit_conf(g, threads, False)[1] == os_
    assert blocked == {True, False}


def _backward(profile, cases: list[tuple], seed: int) -> list[dict]:
    """torch's gradients of ``cases`` against the impl's: per gradient how many elements differ."""
    import torch
    import torch.nn.functional as F

    report = []
    for i, case in enumerate(cases):
        x_shape, w_shape, stride, padding, bias = case
        rng = np.random.default_rng(seed + i)
        x = torch.from_numpy(rng.standard_normal(x_shape, dtype=np.float32)).requires_grad_()
        w = torch.from_numpy(rng.standard_normal(w_shape, dtype=np.float32)).requires_grad_()
        b = torch.from_numpy(rng.standard_normal(w_shape[0], dtype=np.float32)).requires_grad_() if bias else None
        y = F.conv2d(x, w, b, stride=stride, padding=padding)
        dy = rng.standard_normal(tuple(y.shape), dtype=np.float32)
        y.backward(torch.from_numpy(dy))
        sp, pd = (stride, stride), (padding, padding)
        got = conv.conv2d_backward(dy, x.detach().numpy(), w.detach().numpy(), sp, pd, bias, profile)
        wants = (x.grad, w.grad, None if b is None else b.grad)
        for name, want, mine in zip(("grad_input", "grad_weight", "grad_bias"), wants, got, strict=True):
            if want is not None:
                want = want.numpy()
                differ = int((mine.view(np.uint32) != want.view(np.uint32)).sum())
                report.append({"case": f"{case} {name}", "differ": differ, "count": want.size})
    return report


def _child() -> None:
    """Run in a fresh process by test_live and test_live_1x1_weights: each LIVE case's forward under
    torch (ONEDNN_VERBOSE's exec lines captured from fd 1) and under the impl, and BACKWARD's
    gradients; or ONE_BY_ONE's gradients. One JSON line."""
    import torch
    import torch.nn.functional as F

    from harness.impl.profiles import profile_for_capability

    threads = int(sys.argv[2])
    torch.set_num_threads(threads)
    # the running torch's profile with this host's caches (as tests.impl_live's live_profile, whose
    # import would start an interpreter to read MKL's banner)
    profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), threads)
    profile = profile.with_l1_per_core(cache_per_core(1) or profile.l1_per_core)
    profile = profile.with_l2_per_core(cache_per_core(2) or profile.l2_per_core)
    if sys.argv[3] == "1x1":
        print(json.dumps(_backward(profile, list(ONE_BY_ONE), 300)))
        return
    report = []
    for i, case in enumerate(LIVE):
        x_shape, w_shape, stride, padding, bias = case
        rng = np.random.default_rng(100 + i)
        x = rng.standard_normal(x_shape, dtype=np.float32)
        w = rng.standard_normal(w_shape, dtype=np.float32)
        b = rng.standard_normal(w_shape[0], dtype=np.float32) if bias else None
        sys.stdout.flush()
        with tempfile.TemporaryFile() as log:
            saved = os.dup(1)
            os.dup2(log.fileno(), 1)
            try:
                tb = None if b is None else torch.from_numpy(b)
                y = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), tb, stride=stride, padding=padding).numpy()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            log.seek(0)
            lines = log.read().decode(errors="replace").splitlines()
        ran = [ln.split(",")[6] for ln in lines if ",exec," in ln and ",convolution," in ln]
        g = _geometry(case)
        got = conv.conv2d(x, w, b, (stride, stride), (padding, padding), profile)
        predicted = "ref:any" if conv.gemm_jit_forward_declines(g, profile) else "x64:gemm:jit"
        differ = int((got.view(np.uint32) != y.view(np.uint32)).sum())
        report.append({"case": repr(case), "ran": ran, "predicted": predicted, "differ": differ, "count": y.size})
    report += _backward(profile, [case for _threads, case in BACKWARD] + list(GEMV_DATA), 200)
    print(json.dumps(report))


def _run_child(level_name: str, threads: int, which: str) -> list[dict]:
    """_child in a fresh process at the platform level ``level_name`` (ATen's capability and oneDNN's
    ISA pinned together) on ``threads`` threads, oneDNN's verbose log on; its report. A skip where this
    CPU lacks the level."""
    from tests.test_impl_live_conv import _level_named, _run_pinned  # its fresh-process runner (not in the child)

    args = ["child", str(threads), which]
    module, verbose = "tests.test_impl_conv_gemm_jit", {"ONEDNN_VERBOSE": "1"}
    return _run_pinned(_level_named(level_name), threads, "_child", args, module=module, env_extra=verbose)


@pytest.mark.parametrize("threads", [1, 2])
def test_live(threads: int) -> None:
    """torch runs the kernel the rule names for each LIVE case, and its output is the impl's bit for
    bit; and BACKWARD's and GEMV_DATA's gradients are the impl's."""
    report = _run_child("baseline", threads, "gemm")
    wrong = [r for r in report if r.get("ran", [r.get("predicted")]) != [r.get("predicted")] or r["differ"]]
    assert not wrong, f"host L2 {cache_per_core(2)} bytes: {wrong}"
    outputs = sum(2 + case[4] for _threads, case in BACKWARD) + sum(2 + case[4] for case in GEMV_DATA)
    assert len(report) == len(LIVE) + outputs


@needs_modelled_mkl
@pytest.mark.parametrize("threads", [1, 2])
def test_live_1x1_weights(threads: int) -> None:
    """ONE_BY_ONE's gradients at the avx512 level are the impl's (jit_1x1:avx512_core's L1-bound calls
    where more than 512 pixels take it), and the L1 bounds their reduce blocking. On 1 thread ATen's
    1x1 path multiplies with MKL's sgemm: the host's MKL path must be the one the impl reproduces."""
    for case in ONE_BY_ONE:
        g = _geometry(case)
        assert g.oh * g.ow > 512 and conv._weights_kernel(conv.AVX512, g) == "jit_1x1:avx512_core"
        split = conv._weight_split("jit_1x1:avx512_core", g, 2, 32 << 10)
        assert split != conv._weight_split("jit_1x1:avx512_core", g, 2, 64 << 10)
    report = _run_child("avx512", threads, "1x1")
    wrong = [r for r in report if r["differ"]]
    assert not wrong, f"host L1 {cache_per_core(1)} bytes: {wrong}"
    assert len(report) == sum(2 + case[4] for case in ONE_BY_ONE)
