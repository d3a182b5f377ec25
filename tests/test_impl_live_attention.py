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
product there is MKL sgemm; its order was measured on MKL's "Intel(R) Architecture processors" path
only (the one MKL takes on the AMD machine that made the fixtures), so the tests are skipped where
MKL says it runs another (an Intel AVX2 or AVX-512 machine) or the AVX-512 profile runs. A single
(batch, head) lets MKL thread the flash kernel's calls (its thread grid is modelled); the math
path's batched products take MKL's batched gemm, whose cut of items into parts at 3 or more
threads is modelled (csrc/mkl_sgemm.h mkl_sgemm_batch_item).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.impl import attention
from harness.impl.profiles import MKL_AVX2, MKL_SSE42, NVPL
from harness.impl.rng import CPUGenerator
from tests.impl_live import (
    SEEDS,
    THREADS,
    assert_bits_equal,
    live_profile,
    needs_modelled_mkl,
    needs_verified_profile,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile, needs_modelled_mkl]

SETTINGS = settings(max_examples=20, deadline=None)
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


def _check(want: list, got: list) -> None:
    for name, w, o in zip(("out", "grad_q", "grad_k", "grad_v"), want, got, strict=True):
        assert_bits_equal(name, w, o)


@SETTINGS
@given(b=st.integers(1, 2), h=st.integers(1, 3), seq=SEQ, d=HEAD, threads=THREADS, seed=SEEDS)
def test_sdpa_flash(b: int, h: int, seq: int, d: int, threads: int, seed: int) -> None:
    torch.set_num_threads(threads)
    q, k, v, g = _inputs(seed, (b, h, seq, d))
    want = _torch_sdpa(q, k, v, g, 0.0, 0)
    profile = live_profile()
    saved = attention.sdpa_forward(q, k, v, profile)
    _check(want, [saved.out, *attention.sdpa_backward(g, q, k, v, saved, profile)])


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
    out, saved = attention.sdpa_math_forward(q, k, v, p, CPUGenerator(torch_seed), profile)
    _check(want, [out, *attention.sdpa_math_backward(g, saved, profile)])


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
    threads=THREADS,
    seed=SEEDS,
)
@example(b=4, hk=2, group=2, lq=16, s_kv=None, d=16, causal=True, mask=None, scale=0.25,
         layouts=("bnhd", "bnhd", "bnhd", "bnhd"), threads=1, seed=0)  # fmt: skip
def test_flash_op(
    b: int, hk: int, group: int, lq: int, s_kv: int | None, d: int, causal: bool, mask: str | None,
    scale: float | None, layouts: tuple[str, ...], threads: int, seed: int,
) -> None:  # fmt: skip
    """The op and its backward, as the dispatcher gets them (the example: Llama's layer, zoo/llama.py)."""
    s = lq if s_kv is None else s_kv
    assume(lq * s * d * b * hk * group <= 6_000_000)  # a few tenths of a second at most
    _flash_case(b, hk, group, lq, s, d, causal, mask, scale, layouts, threads, seed)


def _flash_case(
    b: int, hk: int, group: int, lq: int, s: int, d: int, causal: bool, mask: str | None,
    scale: float | None, layouts: tuple[str, ...], threads: int, seed: int,
) -> None:  # fmt: skip
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
    saved = attention.sdpa_forward(*arrays, profile, call)
    got = attention.sdpa_backward(grad_out.numpy(), *arrays, saved, profile, call)
    _check_flash([out, lse, *want], [saved.out, saved.lse, *got])


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


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", HEAD_SIZE_ONE.values(), ids=HEAD_SIZE_ONE.keys())
def test_flash_head_size_one(case: tuple, threads: int) -> None:
    b, hk, group, lq, s, causal, mask, scale, layouts = case
    _flash_case(b, hk, group, lq, s, 1, causal, mask, scale, layouts, threads, seed=lq * 31 + s)


def _check_flash(want: list[torch.Tensor], got: list[np.ndarray]) -> None:
    for name, w, o in zip(("out", "lse", "grad_q", "grad_k", "grad_v"), want, got, strict=True):
        assert_bits_equal(name, w.contiguous().numpy(), o)


@pytest.mark.parametrize("blas", [MKL_AVX2, MKL_SSE42, "cbwr", NVPL])
def test_flash_head_size_one_refused(blas: str) -> None:
    """Head size 1 with several heads where the BLAS's gemv with a strided vector or output is not
    modelled (MKL's Intel paths and MKL_CBWR=COMPATIBLE, unmeasured; NVPL with a one-row query block,
    33 rows, measured to differ): the backward refused; on NVPL the forward too when v's rows are
    strided (a (B, S, H, D) layout)."""
    lq = 33 if blas == NVPL else 3
    q = np.zeros((1, 2, lq, 1), np.float32)
    profile = live_profile().with_cbwr("COMPATIBLE") if blas == "cbwr" else replace(live_profile(), blas=blas)
    saved = attention.sdpa_forward(q, q, q, profile)
    with pytest.raises(ParityError, match="head size 1"):
        attention.sdpa_backward(q, q, q, q, saved, profile)
    v = np.zeros((1, lq, 2, 1), np.float32).transpose(0, 2, 1, 3)
    if blas == NVPL:
        with pytest.raises(ParityError, match="head size 1, v's rows strided"):
            attention.sdpa_forward(q, v, v, profile)
    else:
        attention.sdpa_forward(q, v, v, profile)


def test_flash_replay_llama() -> None:
    """The trace's replay of Llama's call (zoo/llama.py: 4 query heads of 16 on 2 key/value heads,
    (B, L, H, D) layouts, scale given) from captured tensors and recorded strides, at 1 and 2 threads."""
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

    for threads in (1, 2):
        torch.set_num_threads(threads)
        profile = live_profile()
        out, lse = FLASH(q, k, v, 0.0, True, scale=0.25)
        grads = FLASH_BACKWARD(grad_out, q, k, v, out, lse, 0.0, True, scale=0.25)
        forward = replay(str(FLASH), *record(query=q, key=k, value=v), profile)
        backward = replay(
            str(FLASH_BACKWARD), *record(grad_out=grad_out, query=q, key=k, value=v, out=out, logsumexp=lse), profile
        )
        _check_flash([out, lse, *grads], [forward["out0"], forward["out1"], *(backward[f"out{i}"] for i in range(3))])
