"""Live parity of harness.impl.attention: torch, run now in this process, against the impl, bit for bit.

``F.scaled_dot_product_attention(q, k, v, dropout_p, is_causal=True)``: dropout 0 (ATen's flash
kernel) and dropout > 0 (the math path, torch's generator seeded), forward and all three grads,
random shapes (head sizes that are multiples of 16) and thread counts from 1 to 16. The flash op
itself, ``_scaled_dot_product_flash_attention_for_cpu`` and its backward, on any head size
(odd ones too), lengths, causal or not, float masks of every shape it takes (rows wholly masked
too), a given scale, grouped key/value heads, and q, k, v, grad_out in the layouts models hand it
(contiguous, transposed views of (B, L, H, D), views into a wider buffer at any storage offset);
and the trace's replay of both ops (harness.trace.impl_ops) on Llama's call. The capability is
the running torch's: run under ATEN_CPU_CAPABILITY=default, avx2 and avx512 to check each. Every matrix
product there is MKL sgemm: on MKL's generic path (an AMD CPU) every case is compared; on its Intel
SSE4.2, AVX2 and AVX-512 paths (MKL_ENABLE_INSTRUCTIONS pins one) a case the impl refuses as not
modelled is passed over, and the flash cases run in this process on one thread only (FLASH_THREADS:
why), their other thread counts in fresh processes (test_flash_in_a_fresh_process). A single
(batch, head) lets MKL thread the flash kernel's calls (its thread grid is modelled); the math
path's batched products take MKL's batched gemm, whose cut of items into parts at 3 or more
threads is modelled (csrc/mkl_sgemm.h mkl_sgemm_batch_item).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.impl import attention
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, MODELLED_BLAS, NVPL
from harness.impl.rng import CPUGenerator
from tests.impl_live import (
    SEEDS,
    THREADS,
    assert_bits_equal,
    bits_note,
    live_profile,
    mkl_intel_here,
    needs_modelled_sgemm,
    needs_verified_profile,
    run_child,
    unless_refused,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile, needs_modelled_sgemm]

SETTINGS = settings(max_examples=20, deadline=None)
# On MKL's Intel paths a product the flash kernel makes inside its OpenMP region is cut by the calling
# pool thread's own MKL thread count, which torch sets per thread (ParallelOpenMP.cpp init_num_threads:
# mkl_set_num_threads_local) and a later torch.set_num_threads leaves as it was: on the Xeon, after a
# reduction on 2 threads, pool thread 1 kept 2 (MKL_VERBOSE's NThr) when the process went on at 4, and
# the flash output differed from a fresh 4-thread process's. There the in-process cases run on one
# thread, and test_flash_in_a_fresh_process takes 2, 3 and 4, one count per process as recordings do.
INTEL_HERE = mkl_intel_here()
FLASH_THREADS = st.just(1) if INTEL_HERE else THREADS
HERE_THREADS = (1,) if INTEL_HERE else (1, 2)
FRESH_THREADS = (2, 3, 4)
SEQ = st.one_of(st.integers(1, 40), st.integers(40, 260))
HEAD = st.sampled_from([16, 32, 64])


def _inputs(seed: int, shape: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]


def _torch_sdpa(q: np.ndarray, k: np.ndarray, v: np.ndarray, g: np.ndarray, p: float, torch_seed: int) -> list:
    t = [torch.from_numpy(x.copy()).requires_grad_(True) for x in (q, k, v)]
    if p:
        torch.manual_seed(torch_seed)
    out = F.scaled_dot_product_attention(*t, dropout_p=p, is_causal=True)
    out.backward(torch.from_numpy(g.copy()))
    return [out.detach().numpy(), *(x.grad.numpy() for x in t)]


def _flash_refusable(compute: Callable[[], list]) -> list | None:
    """``unless_refused(compute)``, and None where the impl refuses the flash kernels' one case it refuses on
    MKL's generic path: one work item on 3 or more threads (test_flash_outside_gemv_refused)."""

    def guarded() -> list | None:
        try:
            return compute()
        except ParityError as err:
            if attention.OUTSIDE_GEMV in str(err):
                return None
            raise

    return unless_refused(guarded)


def _check(want: list, got: list) -> None:
    for name, w, o in zip(("out", "grad_q", "grad_k", "grad_v"), want, got, strict=True):
        assert_bits_equal(name, w, o)


@SETTINGS
@given(b=st.integers(1, 2), h=st.integers(1, 3), seq=SEQ, d=HEAD, threads=FLASH_THREADS, seed=SEEDS)
@example(b=1, h=1, seq=1, d=16, threads=3, seed=0)  # one work item on 3 threads: refused on MKL's generic path
def test_sdpa_flash(b: int, h: int, seq: int, d: int, threads: int, seed: int) -> None:
    torch.set_num_threads(threads)
    q, k, v, g = _inputs(seed, (b, h, seq, d))
    want = _torch_sdpa(q, k, v, g, 0.0, 0)
    profile = live_profile()

    def impl() -> list:
        saved = attention.sdpa_forward(q, k, v, profile)
        return [saved.out, *attention.sdpa_backward(g, q, k, v, saved, profile)]

    got = _flash_refusable(impl)
    if got is not None:
        _check(want, got)


@SETTINGS
@given(
    b=st.integers(1, 2),
    h=st.integers(1, 2),
    seq=SEQ,
    d=HEAD,
    p=st.sampled_from([0.1, 0.2, 0.5]),
    threads=THREADS,
    seed=SEEDS,
    torch_seed=st.integers(0, 2**31 - 1),
)
def test_sdpa_dropout(b: int, h: int, seq: int, d: int, p: float, threads: int, seed: int, torch_seed: int) -> None:
    torch.set_num_threads(threads)
    q, k, v, g = _inputs(seed, (b, h, seq, d))
    want = _torch_sdpa(q, k, v, g, p, torch_seed)
    profile = live_profile()

    def impl() -> list:
        out, saved = attention.sdpa_math_forward(q, k, v, p, CPUGenerator(torch_seed), profile)
        return [out, *attention.sdpa_math_backward(g, saved, profile)]

    got = unless_refused(impl)
    if got is not None:
        _check(want, got)


# ----------------------------------------------------------------------------- the flash op itself

FLASH = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default
FLASH_BACKWARD = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default
LAYOUTS = ("bhnd", "bnhd", "wide")
MASKS = (None, "float", "where", "batch", "rows", "cols")
FLASH_HEAD = st.one_of(st.sampled_from([16, 8, 64, 80]), st.integers(1, 130))
FLASH_SEQ = st.one_of(st.integers(1, 40), st.integers(1, 300), st.integers(500, 1100))


def _laid_out(rng: np.random.Generator, shape: tuple[int, int, int, int], layout: str) -> torch.Tensor:
    """A (B, X, N, D) tensor of normal values as models hand it to sdpa: contiguous ("bhnd"), a
    transposed view of (B, N, X, D) ("bnhd"), or that view inside a wider buffer at a storage
    offset ("wide": a slice of a packed projection, as nanoGPT's split of q, k and v)."""
    b, x, n, d = shape
    values = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    if layout == "bhnd":
        return values.clone()
    lead = int(rng.integers(0, 7)) if layout == "wide" else 0
    width = x * d + lead + (int(rng.integers(0, 5)) if layout == "wide" else 0)
    buf = torch.zeros(b, n, width)
    t = buf[:, :, lead : lead + x * d].view(b, n, x, d).transpose(1, 2)
    t.copy_(values)
    return t


def _flash_mask(rng: np.random.Generator, kind: str | None, b: int, lq: int, s: int) -> torch.Tensor | None:
    """None or a float attn_mask: additive values (L, S); 0/-inf as F.sdpa makes of a boolean mask,
    some rows wholly masked; (B, 1, L, S); broadcast along S (L, 1) or along L (1, S)."""
    if kind is None:
        return None
    if kind == "where":
        keep = rng.random((lq, s)) > 0.3
        keep[rng.random(lq) < 0.2] = False
        return torch.where(torch.from_numpy(keep), 0.0, float("-inf"))
    shape = {"float": (lq, s), "batch": (b, 1, lq, s), "rows": (lq, 1), "cols": (1, s)}[kind]
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def _offset(t: torch.Tensor) -> int:
    """Where t starts in torch's buffer: floats past a 16-byte boundary."""
    return t.data_ptr() % 16 // 4


@SETTINGS
@given(
    b=st.integers(1, 2),
    hk=st.integers(1, 3),
    group=st.integers(1, 4),
    lq=FLASH_SEQ,
    s_kv=st.one_of(st.none(), FLASH_SEQ),
    d=FLASH_HEAD,
    causal=st.booleans(),
    mask=st.sampled_from(MASKS),
    scale=st.one_of(st.none(), st.sampled_from([0.25, 0.3, 1.7])),
    layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 4),
    threads=FLASH_THREADS,
    seed=SEEDS,
)
@example(b=4, hk=2, group=2, lq=16, s_kv=None, d=16, causal=True, mask=None, scale=0.25,
         layouts=("bnhd", "bnhd", "bnhd", "bnhd"), threads=1, seed=0)  # fmt: skip
# one work item on 3 threads: refused (test_flash_outside_gemv_refused)
@example(b=1, hk=1, group=1, lq=1, s_kv=8, d=22, causal=False, mask=None, scale=None,
         layouts=("bhnd",) * 4, threads=3, seed=1)  # fmt: skip
def test_flash_op(
    b: int, hk: int, group: int, lq: int, s_kv: int | None, d: int, causal: bool, mask: str | None,
    scale: float | None, layouts: tuple[str, ...], threads: int, seed: int,
) -> None:  # fmt: skip
    """The op and its backward, as the dispatcher gets them (the example: Llama's layer, zoo/llama.py)."""
    s = lq if s_kv is None else s_kv
    assume(lq * s * d * b * hk * group <= 6_000_000)  # a few tenths of a second at most
    _flash_case(b, hk, group, lq, s, d, causal, mask, scale, layouts, threads, seed)


def _flash_run(
    b: int, hk: int, group: int, lq: int, s: int, d: int, causal: bool, mask: str | None,
    scale: float | None, layouts: tuple[str, ...], threads: int, seed: int,
) -> tuple[list[np.ndarray], list[np.ndarray] | None]:  # fmt: skip
    """torch's out, lse and three gradients for the case, and the impl's (None where it refuses them on
    MKL's Intel paths as not modelled)."""
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    q = _laid_out(rng, (b, hk * group, lq, d), layouts[0])
    k, v = (_laid_out(rng, (b, hk, s, d), layout) for layout in layouts[1:3])
    grad_out = _laid_out(rng, (b, hk * group, lq, d), layouts[3])
    attn_mask = _flash_mask(rng, mask, b, lq, s)
    out, lse = FLASH(q, k, v, 0.0, causal, attn_mask=attn_mask, scale=scale)
    want = FLASH_BACKWARD(grad_out, q, k, v, out, lse, 0.0, causal, attn_mask=attn_mask, scale=scale)
    profile = live_profile()
    offsets = {"q": _offset(q), "k": _offset(k), "v": _offset(v), "grad_out": _offset(grad_out)}
    call = attention.FlashCall(causal, None if attn_mask is None else attn_mask.numpy(), scale, offsets)
    arrays = [t.numpy() for t in (q, k, v)]  # torch's memory, torch's strides

    def impl() -> list[np.ndarray]:
        saved = attention.sdpa_forward(*arrays, profile, call)
        return [saved.out, saved.lse, *attention.sdpa_backward(grad_out.numpy(), *arrays, saved, profile, call)]

    return [t.contiguous().numpy() for t in (out, lse, *want)], _flash_refusable(impl)


def _flash_case(*case: Any) -> None:
    want, got = _flash_run(*case)
    if got is not None:
        _check_flash(want, got)


# Head size 1 with several heads: the gradients' rows are single floats a row of heads apart, and the
# per-block products are MKL's gemv with a strided vector or output (csrc/mkl_sgemm.h mkl_gemv_rows,
# mkl_gemv_n), single rows or keys with the leading dimensions cpublas::gemm normalises
# (csrc/attention.c blas_sgemm), and a scale given makes alpha of the K == 1 and gemv forms matter.
# (b, kv heads, group, L, S, causal, mask, scale, layouts of q, k, v, grad_out)
ALL_BHND, ALL_BNHD = ("bhnd",) * 4, ("bnhd",) * 4
HEAD_SIZE_ONE = {
    "grad_k-strided-y": (1, 2, 1, 8, 8, True, None, None, ALL_BHND),
    "grouped-grad_q": (1, 1, 2, 13, 13, True, None, None, ALL_BHND),
    "one-row-block": (1, 2, 1, 65, 65, True, None, None, ("bnhd", "bhnd", "wide", "wide")),
    "one-key-block": (1, 1, 3, 40, 513, False, None, None, ALL_BNHD),
    "one-query": (2, 3, 1, 1, 40, False, "where", 1.7, ("wide", "wide", "bnhd", "wide")),
    "scale-mask": (1, 2, 2, 37, 50, False, "float", 0.3, ALL_BNHD),
    "wide-offsets": (2, 3, 1, 200, 200, True, None, 0.25, ("wide",) * 4),
    "groups-of-4": (2, 1, 4, 33, 33, True, "rows", None, ("bhnd", "bnhd", "bhnd", "bnhd")),
    "one-head-scale": (1, 1, 1, 50, 50, True, "float", 0.3, ("bnhd", "wide", "bhnd", "bnhd")),
}


@pytest.mark.parametrize("threads", HERE_THREADS)
@pytest.mark.parametrize("case", HEAD_SIZE_ONE.values(), ids=HEAD_SIZE_ONE.keys())
def test_flash_head_size_one(case: tuple, threads: int) -> None:
    b, hk, group, lq, s, causal, mask, scale, layouts = case
    _flash_case(b, hk, group, lq, s, 1, causal, mask, scale, layouts, threads, lq * 31 + s)


def test_flash_outside_gemv_refused() -> None:
    """One work item (one image, one head, one query row) on 3 or more threads: MKL's generic path may
    cut the single-row gemvs between its threads outside the kernel's OpenMP region (measured: 1 to 4
    outputs of ``out`` differed at 3, 4 and 8 threads): both passes refused; 2 images, 5 query rows or
    2 threads modelled."""
    q, kv = np.zeros((1, 1, 1, 22), np.float32), np.zeros((1, 1, 8, 22), np.float32)
    generic = replace(live_profile(), blas=MODELLED_BLAS)
    for threads in (3, 4, 8):
        with pytest.raises(ParityError, match="single-row product outside the kernel's OpenMP region"):
            attention.sdpa_forward(q, kv, kv, generic.with_threads(threads))
        saved = attention.sdpa_forward(q, kv, kv, generic.with_threads(2))
        with pytest.raises(ParityError, match="single-row product outside"):
            attention.sdpa_backward(q, q, kv, kv, saved, generic.with_threads(threads))
    for shape in ((2, 1, 1, 22), (1, 1, 5, 22)):
        q2 = np.zeros(shape, np.float32)
        attention.sdpa_forward(q2, np.zeros((shape[0], 1, 8, 22), np.float32), np.zeros((shape[0], 1, 8, 22),
                               np.float32), generic.with_threads(4))  # fmt: skip


FLASH_OUTPUTS = ("out", "lse", "grad_q", "grad_k", "grad_v")


def _check_flash(want: list[np.ndarray], got: list[np.ndarray]) -> None:
    for name, w, o in zip(FLASH_OUTPUTS, want, got, strict=True):
        assert_bits_equal(name, w, o)


@pytest.mark.parametrize("blas", [MKL_AVX2, MKL_SSE42, MKL_AVX512, "cbwr", NVPL])
def test_flash_head_size_one_refused(blas: str) -> None:
    """Head size 1 with several heads where the BLAS's gemv with a strided vector or output is not
    modelled (MKL's Intel paths and MKL_CBWR=COMPATIBLE, unmeasured; NVPL with a one-row query block,
    33 rows, measured to differ): the backward refused. v's rows strided (a (B, S, H, D) layout) make
    a strided vector of the forward's gemv: refused on NVPL with a one-row block, and on MKL's Intel
    SSE4.2 and AVX-512 paths (measured to differ)."""
    lq = 33 if blas == NVPL else 3
    q = np.zeros((1, 2, lq, 1), np.float32)
    generic = replace(live_profile(), blas=MODELLED_BLAS, threads=1)
    profile = generic.with_cbwr("COMPATIBLE") if blas == "cbwr" else replace(generic, blas=blas)
    saved = attention.sdpa_forward(q, q, q, profile)
    with pytest.raises(ParityError, match="head size 1"):
        attention.sdpa_backward(q, q, q, q, saved, profile)
    v = np.zeros((1, lq, 2, 1), np.float32).transpose(0, 2, 1, 3)
    refusal = {
        NVPL: "head size 1, v's rows strided",
        MKL_SSE42: "rows a stride apart",
        MKL_AVX512: "rows a stride apart",
    }
    if blas in refusal:
        with pytest.raises(ParityError, match=refusal[blas]):
            attention.sdpa_forward(q, v, v, profile)
    else:
        attention.sdpa_forward(q, v, v, profile)


def test_flash_replay_llama() -> None:
    """The trace's replay of Llama's call (zoo/llama.py: 4 query heads of 16 on 2 key/value heads,
    (B, L, H, D) layouts, scale given) from captured tensors and recorded strides, at 1 and 2 threads
    (HERE_THREADS: 1 on an Intel host)."""
    from harness.trace.impl_ops import replay

    rng = np.random.default_rng(5)
    q = _laid_out(rng, (4, 4, 16, 16), "bnhd")
    k, v = (_laid_out(rng, (4, 2, 16, 16), "bnhd") for _ in range(2))
    grad_out = _laid_out(rng, (4, 4, 16, 16), "bnhd")

    def record(**tensors: torch.Tensor) -> tuple[dict[str, np.ndarray], list[dict]]:
        args = [{"name": n, "tensor": n, "stride": list(t.stride())} for n, t in tensors.items()]
        values = [{"name": "dropout_p", "value": 0.0}, {"name": "is_causal", "value": True},
                  {"name": "attn_mask", "value": None}, {"name": "scale", "value": 0.25}]  # fmt: skip
        return {n: t.detach().contiguous().numpy() for n, t in tensors.items()}, args + values

    for threads in HERE_THREADS:
        torch.set_num_threads(threads)
        profile = live_profile()
        out, lse = FLASH(q, k, v, 0.0, True, scale=0.25)
        grads = FLASH_BACKWARD(grad_out, q, k, v, out, lse, 0.0, True, scale=0.25)
        forward = replay(str(FLASH), *record(query=q, key=k, value=v), profile)
        backward = replay(
            str(FLASH_BACKWARD), *record(grad_out=grad_out, query=q, key=k, value=v, out=out, logsumexp=lse), profile
        )
        want = [t.contiguous().numpy() for t in (out, lse, *grads)]
        _check_flash(want, [forward["out0"], forward["out1"], *(backward[f"out{i}"] for i in range(3))])


def _fresh_cases(count: int) -> list[tuple]:
    """The head-size-one cases, then ``count`` flash cases drawn from a seeded generator as
    test_flash_op draws them: (b, kv heads, group, L, S, D, causal, mask, scale, layouts)."""
    rng = np.random.default_rng(20261205)
    cases = [(b, hk, g, lq, s, 1, *rest) for b, hk, g, lq, s, *rest in HEAD_SIZE_ONE.values()]
    while len(cases) < len(HEAD_SIZE_ONE) + count:
        b, hk, group = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
        lq, s = (int(rng.choice([rng.integers(1, 41), rng.integers(1, 301), rng.integers(500, 1101)])) for _ in "ls")
        d = int(rng.choice([16, 8, 64, 80, rng.integers(1, 131)]))
        causal, mask = bool(rng.integers(2)), MASKS[int(rng.integers(len(MASKS)))]
        scale = (None, 0.25, 0.3, 1.7)[int(rng.integers(4))]
        layouts = tuple(LAYOUTS[int(i)] for i in rng.integers(0, len(LAYOUTS), 4))
        if lq * s * d * b * hk * group <= 6_000_000:
            cases.append((b, hk, group, lq, s, d, causal, mask, scale, layouts))
    return cases


def _fresh_child() -> None:
    """Run in a fresh process by test_flash_in_a_fresh_process: each case on the thread count in argv,
    "exact", "refused" or which outputs differ, as one JSON line."""
    threads, count = int(sys.argv[1]), int(sys.argv[2])
    rows = []
    for i, case in enumerate(_fresh_cases(count)):
        want, got = _flash_run(*case, threads, 1000 + i)
        notes = (
            [] if got is None else [f"{n} {bits_note(w, o)}" for n, w, o in zip(FLASH_OUTPUTS, want, got, strict=True)]
        )
        differ = [note for note in notes if not note.endswith(" exact")]
        rows.append({"case": repr(case), "got": "refused" if got is None else "; ".join(differ) or "exact"})
    print(json.dumps(rows))


@pytest.mark.parametrize("threads", FRESH_THREADS)
def test_flash_in_a_fresh_process(threads: int) -> None:
    """The flash op and its backward on ``threads`` threads in a process that runs no other count (as
    a recording or a trace does): the head-size-one cases and 24 random ones, each torch's bits (or,
    on MKL's Intel paths, refused as not modelled)."""
    rows = run_child("tests.test_impl_live_attention", "_fresh_child", [str(threads), "24"])
    failures = [f"{row['case']}: {row['got']}" for row in rows if row["got"] not in ("exact", "refused")]
    assert not failures, "\n".join(failures)
    assert len(rows) == len(HEAD_SIZE_ONE) + 24
