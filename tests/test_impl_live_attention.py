"""Live parity of harness.impl.attention: torch, run now in this process, against the impl, bit for bit.

``F.scaled_dot_product_attention(q, k, v, dropout_p, is_causal=True)``: dropout 0 (ATen's flash
kernel) and dropout > 0 (the math path, torch's generator seeded), forward and all three grads,
random shapes (head sizes that are multiples of 16) and thread counts from 1 to 16. Every matrix
product there is MKL sgemm; its order was measured on MKL's "Intel(R) Architecture processors" path
only (the one MKL takes on the AMD machine that made the fixtures), so the tests are skipped where
MKL says it runs another (an Intel AVX2 or AVX-512 machine) or the AVX-512 profile runs. A single
(batch, head) lets MKL thread the flash kernel's calls (its thread grid is modelled); the math
path's batched products leave out the item shapes whose cut into parts is not modelled
(tests.impl_live.batch_split_modelled).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.impl import attention
from harness.impl.rng import CPUGenerator
from tests.impl_live import (
    SEEDS,
    THREADS,
    assert_bits_equal,
    batch_split_modelled,
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
    # the math path's bmm items: scores and their grads (seq x seq), out and grads (seq x d), grad k (d x seq)
    shapes = ((seq, seq), (seq, d), (d, seq))
    assume(all(batch_split_modelled(b * h, r, c, threads) for r, c in shapes))
    torch.set_num_threads(threads)
    q, k, v, g = _inputs(seed, (b, h, seq, d))
    want = _torch_sdpa(q, k, v, g, p, torch_seed)
    profile = live_profile()
    out, saved = attention.sdpa_math_forward(q, k, v, p, CPUGenerator(torch_seed), profile)
    _check(want, [out, *attention.sdpa_math_backward(g, saved, profile)])
