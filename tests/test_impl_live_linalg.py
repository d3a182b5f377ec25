"""Live parity of harness.impl.linalg: torch, run now in this process, against the impl, bit for bit.

Random shapes around MKL's switch to its small-matrix kernels (output dims below 12, rows not a
multiple of 4, a single row or column: MKL's gemv) and its k blocking (K past 192 and 384), every
operand layout, linear with and without bias (forward and all grads), matmul and bmm (both sides
of ATen's 400-product switch to MKL, batches of one and more), and embedding. The MKL tests need
MKL's generic code path as on the fixtures' AMD host, or one of its Intel paths (where a product
the impl refuses as not modelled there is passed over), and a verified profile (tests.impl_live
says why they skip elsewhere); ATen's own loops (small bmm, embedding) run everywhere.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.impl import linalg
from harness.impl.profiles import MODELLED_BLAS
from harness.trace.impl_ops import packet, replay
from harness.trace.recorder import recording
from tests.impl_live import (
    SEEDS,
    THREADS,
    as_tensor,
    assert_bits_equal,
    live_profile,
    needs_modelled_mkl,
    needs_modelled_sgemm,
    needs_verified_profile,
    normal32,
    unless_refused,
    use_threads,
)

pytestmark = pytest.mark.usefixtures("restore_threads")

SETTINGS = settings(max_examples=25, deadline=None)
DIMS = st.one_of(st.integers(1, 20), st.integers(20, 80))  # MKL's small kernels below 12, gemv at 1
DEPTH = st.one_of(st.integers(1, 40), st.integers(40, 200), st.integers(180, 700))


@needs_modelled_sgemm
@needs_verified_profile
@SETTINGS
@given(m=DIMS, n=DIMS, k=DEPTH, trans_a=st.booleans(), trans_b=st.booleans(), seed=SEEDS, threads=THREADS)
@example(m=1, n=1, k=12, trans_a=False, trans_b=False, seed=1, threads=1)  # at::mm's 1 x 1: not cpublas's gemv
@example(m=1, n=1, k=100, trans_a=True, trans_b=True, seed=1, threads=1)
def test_mm_layouts(m: int, n: int, k: int, trans_a: bool, trans_b: bool, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    a = normal32(rng, (k, m) if trans_a else (m, k))
    b = normal32(rng, (n, k) if trans_b else (k, n))
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    want = torch.mm(ta.t() if trans_a else ta, tb.t() if trans_b else tb).numpy()
    got = unless_refused(lambda: linalg.mm(a, b, live_profile(), trans_a=trans_a, trans_b=trans_b))
    if got is not None:
        assert_bits_equal("mm", want, got)


@needs_modelled_sgemm
@needs_verified_profile
@SETTINGS
@given(
    lead=st.lists(st.integers(1, 6), min_size=0, max_size=2),
    m=DIMS,
    k=DEPTH,
    n=DIMS,
    bias=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_linear(lead: list[int], m: int, k: int, n: int, bias: bool, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x_shape = (*lead, m, k)
    x, w, g = normal32(rng, x_shape), normal32(rng, (n, k), 0.05), normal32(rng, (*lead, m, n))
    b = normal32(rng, (n,), 0.05) if bias else None
    tx, tw = as_tensor(x, True), as_tensor(w, True)
    tb = as_tensor(b, True) if b is not None else None
    out = F.linear(tx, tw, tb)
    out.backward(as_tensor(g))
    profile = live_profile()
    got = unless_refused(lambda: (linalg.linear(x, w, b, profile), linalg.linear_backward(g, x, w, bias, profile)))
    if got is None:
        return
    assert_bits_equal("linear out", out.detach().numpy(), got[0])
    grad_x, grad_w, grad_b = got[1]
    assert_bits_equal("linear grad_x", tx.grad.numpy(), grad_x)
    assert_bits_equal("linear grad_weight", tw.grad.numpy(), grad_w)
    if tb is not None:
        assert_bits_equal("linear grad_bias", tb.grad.numpy(), grad_b)


@needs_modelled_sgemm
@needs_verified_profile
@SETTINGS
@given(batch=st.lists(st.integers(1, 3), min_size=0, max_size=2), m=DIMS, k=DEPTH, n=DIMS, seed=SEEDS, threads=THREADS)
def test_matmul(batch: list[int], m: int, k: int, n: int, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    a, b, g = normal32(rng, (*batch, m, k)), normal32(rng, (*batch, k, n)), normal32(rng, (*batch, m, n))
    ta, tb = as_tensor(a, True), as_tensor(b, True)
    out = torch.matmul(ta, tb)
    out.backward(as_tensor(g))
    profile = live_profile()
    got = unless_refused(lambda: (linalg.matmul(a, b, profile), linalg.matmul_backward(g, a, b, profile)))
    if got is None:
        return
    assert_bits_equal("matmul out", out.detach().numpy(), got[0])
    grad_a, grad_b = got[1]
    assert_bits_equal("matmul grad_a", ta.grad.numpy(), grad_a)
    assert_bits_equal("matmul grad_b", tb.grad.numpy(), grad_b)


@SETTINGS
@given(nb=st.integers(1, 4), m=st.integers(1, 7), k=st.integers(1, 7), n=st.integers(1, 7), seed=SEEDS)
def test_bmm_small(nb: int, m: int, k: int, n: int, seed: int) -> None:
    """K*M*N < 400: ATen's own loop (any profile)."""
    rng = np.random.default_rng(seed)
    a, b = normal32(rng, (nb, m, k)), normal32(rng, (nb, k, n))
    want = torch.bmm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert_bits_equal("bmm", want, linalg.bmm(a, b, live_profile()))


@needs_modelled_sgemm
@needs_verified_profile
@SETTINGS
@given(
    nb=st.integers(1, 4),
    m=DIMS,
    k=DEPTH,
    n=DIMS,
    trans_a=st.booleans(),
    trans_b=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_bmm_layouts(nb: int, m: int, k: int, n: int, trans_a: bool, trans_b: bool, seed: int, threads: int) -> None:
    """MKL's batched gemm (a batch of one: plain sgemm), operands as transposed views or not."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    a = normal32(rng, (nb, k, m)).transpose(0, 2, 1) if trans_a else normal32(rng, (nb, m, k))
    b = normal32(rng, (nb, n, k)).transpose(0, 2, 1) if trans_b else normal32(rng, (nb, k, n))
    want = torch.bmm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    got = unless_refused(lambda: linalg.bmm(a, b, live_profile()))
    if got is not None:
        assert_bits_equal("bmm", want, got)


@SETTINGS
@given(vocab=st.integers(1, 70), dim=st.integers(1, 600), idx_shape=st.lists(st.integers(1, 9), max_size=2), seed=SEEDS)
def test_embedding(vocab: int, dim: int, idx_shape: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = normal32(rng, (vocab, dim))
    idx = rng.integers(0, vocab, size=tuple(idx_shape), dtype=np.int64)
    g = normal32(rng, (*idx_shape, dim))
    tw = as_tensor(w, True)
    out = F.embedding(torch.from_numpy(idx), tw)
    out.backward(as_tensor(g))
    assert_bits_equal("embedding out", out.detach().numpy(), linalg.embedding(idx, w))
    assert_bits_equal("embedding grad_weight", tw.grad.numpy(), linalg.embedding_backward(g, idx, vocab))


@needs_modelled_sgemm
@pytest.mark.parametrize("specials", ["nan", "inf", "both"])
def test_nan_and_infinite_operands_give_torchs_nans_or_are_refused(specials):
    """NaNs of one kind (the operands' own, or the one infinities make) pass through MKL's sgemm as the
    impl gives them; where both may meet in a NaN result the impl refuses (measured: a NaN of the other
    sign in 2 of 12 such products, AMD Zen 5, avx2)."""
    rng = np.random.default_rng(7)
    a, b = normal32(rng, (37, 150)), normal32(rng, (150, 29))
    for arr in (a, b):
        flat = arr.reshape(-1)
        if specials in ("nan", "both"):
            flat[rng.integers(0, flat.size, 6)] = np.nan
        if specials in ("inf", "both"):
            flat[rng.integers(0, flat.size, 6)] = np.inf
            flat[rng.integers(0, flat.size, 6)] = -np.inf
    want = (as_tensor(a) @ as_tensor(b)).numpy()
    assert np.isnan(want).any()
    if specials == "both":
        with pytest.raises(ParityError, match="NaNs of 2 kinds may meet"):
            linalg.mm(a, b, live_profile())
        return
    assert_bits_equal(f"mm with {specials}", want, linalg.mm(a, b, live_profile()))


def _underflowing(rng: np.random.Generator, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A (m, k), B (k, n) whose every other column of A @ B has a fused chain in k order end at
    ±2^-163 (rounded to a zero of that sign) in its last two steps (products a rounding apart: 2^-140
    and -(1 + 2^-23) * 2^-140), its other products zeros of random sign."""
    a, b = normal32(rng, (m, k)), normal32(rng, (k, n))
    a[:, k - 2], a[:, k - 1] = 1.0, 1.0 + 2.0**-23
    cols = slice(0, n, 2)
    b[:, cols] = np.where(rng.random((k, n)) < 0.5, -0.0, 0.0).astype(np.float32)[:, cols]
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0).astype(np.float32)[cols]
    b[k - 2, cols], b[k - 1, cols] = sign * 2.0**-140, -sign * 2.0**-140
    return a, b


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("threads", [1, 8])
@pytest.mark.parametrize(("m", "n", "k", "trans_a"), [(10, 320, 4, True), (37, 50, 150, False)])
def test_mm_sums_underflowing_to_minus_zero(m: int, n: int, k: int, trans_a: bool, threads: int) -> None:
    """MKL's generic path adds the main kernel's first K block to a C of +0 (beta = 0): a fused chain
    that underflows to -0 stores +0 (EfficientNet's classifier weight gradient, 10 x 320 x 4 at 8
    threads, gave 6 such zeros); rows 8 and 9 of 10 at 8 threads take the small kernel (from +0)."""
    use_threads(threads)
    a, b = _underflowing(np.random.default_rng(5), m, n, k)
    stored = np.ascontiguousarray(a.T) if trans_a else a
    want = torch.mm(as_tensor(stored).t() if trans_a else as_tensor(stored), as_tensor(b)).numpy()
    assert_bits_equal("mm", want, linalg.mm(stored, b, live_profile(), trans_a=trans_a))


@needs_modelled_sgemm
@needs_verified_profile
@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize(("m", "n", "trans_b"), [(5, 1, False), (1, 6, True), (1, 1, False), (1, 6, False)])
def test_gemv_sums_of_minus_zero(m: int, n: int, trans_b: bool, threads: int) -> None:
    """Every product a negative number below the smallest subnormal (every sum -0): the gemv forms' zero,
    mm and addmm with beta 0 and with beta 1 onto a C of -0, K 1, 8 and 9 (MKL's generic and SSE4.2
    paths' gemv 'T' keeps the chain's -0 before its first whole step of lanes: 5 x 1's last row, 1 x 6
    at K 1, 8 and 9; the Intel AVX2 path's dot form stores +0 but for beta 1 at K % 8 == 0, a 1 x 1
    product of K = 1 its +0)."""
    use_threads(threads)
    rng = np.random.default_rng(9)
    for k in (1, 8, 9):
        a = (-np.abs(normal32(rng, (m, k))) * np.float32(1e-30)).astype(np.float32)
        stored_b = (np.abs(normal32(rng, (n, k) if trans_b else (k, n))) * np.float32(1e-30)).astype(np.float32)
        b = stored_b.T if trans_b else stored_b
        c = np.full((m, n), -0.0, np.float32)
        tb = as_tensor(stored_b).t() if trans_b else as_tensor(stored_b)
        assert_bits_equal("mm", torch.mm(as_tensor(a), tb).numpy(), linalg.mm(a, b, live_profile()))
        for beta in (0.0, 1.0):
            want = torch.addmm(as_tensor(c), as_tensor(a), tb, beta=beta).numpy()
            assert_bits_equal(f"addmm beta {beta}", want, linalg.addmm(c, a, b, live_profile(), beta=beta))


@needs_modelled_mkl
@needs_verified_profile
@settings(max_examples=3, deadline=None)
@given(batch=st.sampled_from([(), (2,), (1, 2, 2)]), n=st.integers(1, 160), k=st.integers(1, 20), unit=st.booleans(),
       seed=SEEDS, threads=THREADS, upper=st.booleans(), left=st.booleans())  # fmt: skip
@example(batch=(1, 2, 2), n=64, k=8, unit=True, seed=0, threads=2, upper=False, left=True)  # Qwen3-Next's chunks
@example(batch=(2,), n=31, k=5, unit=False, seed=1, threads=1, upper=False, left=True)  # strsmlt's pairs, last row
@example(batch=(), n=150, k=10, unit=False, seed=2, threads=4, upper=False, left=True)  # 64-row blocks, updates
@example(batch=(2,), n=129, k=5, unit=True, seed=3, threads=4, upper=False, left=True)  # one-row updates
@example(batch=(), n=97, k=1, unit=False, seed=4, threads=2, upper=False, left=True)  # one column: strsv
@example(batch=(2,), n=95, k=6, unit=True, seed=5, threads=2, upper=True, left=True)  # strsmlt's L T, strsmlln
@example(batch=(), n=150, k=7, unit=False, seed=6, threads=4, upper=True, left=False)  # strsm_i, its recursion
def test_solve_triangular_and_its_backward_from_a_trace(
    batch: tuple[int, ...], n: int, k: int, unit: bool, seed: int, threads: int, upper: bool, left: bool
) -> None:
    """torch.linalg.solve_triangular of either triangle (n up to 160, unit or not, either side) and autograd's
    solve on its transpose, traced and replayed through impl_ops: MKL strsm's kernels for the four layouts, past
    64 rows their 64-row blocks and MKL's sgemm updates; the right side's strsm_i and its recursion; one column
    or row: MKL's strsv."""
    if live_profile().blas != MODELLED_BLAS:
        pytest.skip("MKL strsm's order is measured on its generic path only")
    use_threads(threads)
    rng = np.random.default_rng(seed)
    diag = np.eye(n, dtype=np.float32) * (1.0 if unit else rng.uniform(0.5, 3.0, n).astype(np.float32))
    strict = normal32(rng, (*batch, n, n)) * 0.5
    a = torch.from_numpy((np.triu(strict, 1) if upper else np.tril(strict, -1)) + diag)
    b = torch.from_numpy(normal32(rng, (*batch, n, k) if left else (*batch, k, n)))
    with mock.patch.dict("os.environ", {"PARITY_TRACE_HOOK": "1"}), recording(capture=list(range(40))) as tracer:
        x = torch.linalg.solve_triangular(
            a.requires_grad_(True), b.requires_grad_(True), upper=upper, left=left, unitriangular=unit
        )
        (x * torch.from_numpy(normal32(rng, x.shape))).sum().backward()
    solves = [i for i, op in enumerate(tracer.ops) if packet(op.op) == "linalg_solve_triangular"]
    assert len(solves) == 2
    for i in solves:
        cap = tracer.captured[i]
        got = replay(tracer.ops[i].op, cap.inputs, cap.args, live_profile())["out"]
        assert_bits_equal(f"solve_triangular (op {i})", cap.outputs["out"], got)
