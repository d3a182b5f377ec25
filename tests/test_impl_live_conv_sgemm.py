"""Live parity of gemm:jit at AVX2 and AVX-512 (harness.impl.conv on harness.impl.onednn_sgemm): the
convolutions where oneDNN's direct kernels decline and its gemm:jit runs with its own sgemm, torch run
now against the impl, bit for bit (uint32 patterns), in a fresh process per ISA level (ATen's
capability and oneDNN's ISA pinned together), on 1 and 2 threads.

The shapes were picked so that, between them, every path of the sgemm runs at both levels and thread
counts (``test_cases_cover_every_sgemm_path`` holds it): the copy-based sgemm with one to six K
blocks, the no-copy sgemm with and without K blocks, its threads splitting m and n and, at AVX2 on
2 threads, k; AVX-512's small-n TN kernel; the gemv kernels 'N' and 'T'; and the forward that runs
ref:any (the im2col buffers over the scratchpad limit).
"""

from __future__ import annotations

import sys

import pytest

from harness.impl import conv, onednn_sgemm
from harness.impl.profiles import get_profile
from tests.impl_live import bits_note, needs_modelled_mkl, needs_verified_profile, print_child_report
from tests.test_impl_live_conv import _level_named, _run_pinned, run_case

pytestmark = pytest.mark.usefixtures("restore_threads")

# (input shape, weight shape, stride, padding, bias), 2-D stride and padding
CASES = (
    ((2, 2, 5, 43), (1, 2, 5, 3), (1, 1), (0, 6), False),
    ((3, 33, 28, 72), (3, 33, 2, 16), (1, 1), (2, 4), False),
    ((1, 12, 5, 76), (600, 12, 6, 14), (1, 1), (3, 2), True),
    ((1, 8, 11, 21), (1, 8, 5, 5), (1, 1), (1, 7), False),
    ((3, 12, 22, 21), (48, 12, 1, 15), (1, 1), (2, 6), True),
    ((1, 12, 30, 17), (600, 12, 4, 15), (1, 2), (3, 6), False),
    ((1, 2, 40, 33), (2, 2, 5, 5), (1, 1), (1, 7), False),
    ((1, 3, 32, 49), (16, 3, 7, 5), (2, 1), (1, 7), True),
    ((2, 8, 46, 51), (16, 8, 7, 3), (2, 1), (1, 3), False),
    ((2, 33, 44, 56), (30, 33, 3, 15), (1, 1), (3, 3), True),
)
LEVELS = ("avx2", "avx512")


def sgemm_paths(case: tuple, profile) -> set[str]:
    """The sgemm paths the gemm:jit passes of ``case`` take under ``profile`` (onednn_sgemm.route),
    with the copy-based sgemm's K blocks, the no-copy sgemm's thread split and K blocks, the gemv's kind."""
    x_shape, w_shape, stride, padding, _bias = case
    g = conv._geometry(x_shape, w_shape, stride, padding)
    kind = conv.path(x_shape, w_shape, stride, padding, profile)
    isa, paths = onednn_sgemm.isa_of(profile), set()
    for which, pass_kind in enumerate(conv.direct_kernels(g, kind, profile)):
        if pass_kind != conv.GEMM_JIT:
            continue
        if which == 0 and conv.gemm_jit_forward_declines(g, profile):
            paths.add("ref:any")
            continue
        for call, threads in conv._vector_gemm_jit_calls(g, profile, which):
            path, goal = onednn_sgemm.route(isa, threads, call)
            if path == "copy":
                path += f" K blocks {len(onednn_sgemm.copy_k_blocks(isa, call.k))}"
            elif path == "nocopy":
                nthr_m, nthr_n, nthr_k = onednn_sgemm._nocopy_partition(isa, call.m, call.n, call.k, goal)[:3]
                bk = onednn_sgemm._nocopy_blocks(isa, call.ta, call.tb)[2]
                path += " k split" if nthr_k > 1 else " mn split" if nthr_m * nthr_n > 1 else ""
                path += " K blocks" if len(onednn_sgemm._halving_blocks(call.k, bk, bk)) > 1 else ""
            elif path == "gemv":
                path += " T" if (call.ta if call.n == 1 else not call.tb) else " N"
            paths.add(path)
    return paths


def test_cases_cover_every_sgemm_path() -> None:
    """Between them the cases run every path of oneDNN's sgemm at each level and thread count (no host
    needed)."""
    common = {"copy K blocks 1", "copy K blocks 2", "nocopy", "nocopy K blocks", "gemv N", "gemv T", "ref:any"}
    want = {
        ("avx2", 1): common,
        ("avx2", 2): common | {"nocopy mn split", "nocopy k split K blocks"},
        ("avx512", 1): common | {"smalln_tn"},
        ("avx512", 2): common | {"smalln_tn", "nocopy mn split"},
    }
    for (level, threads), paths in want.items():
        profile = get_profile(f"x86-{level}", threads)
        got = set().union(*(sgemm_paths(case, profile) for case in CASES))
        assert paths <= got, (level, threads, sorted(paths - got))


def _child() -> None:
    """Run in a fresh process: every case under this process's level, at 1 and 2 threads; per case
    and output "exact" or what differs."""
    print_child_report(
        CASES, lambda case, i, profile: {name: bits_note(w, g) for name, w, g in run_case(case, 11 + i, profile)}
    )


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("level", LEVELS)
def test_level(level: str) -> None:
    """Every output of every case is torch's, bit for bit, at this level on 1 and 2 threads."""
    rows = _run_pinned(_level_named(level), 2, "_child", [], module="tests.test_impl_live_conv_sgemm")
    failures = [f"{row['case']} {name}: {r}" for row in rows for name, r in row["got"].items() if r != "exact"]
    assert not failures, "\n".join(failures)
    assert len(rows) == 2 * len(CASES)


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    _child()
