"""Live parity of harness.impl.rng and harness.impl.optim: torch, run now in this process, against the impl.

One ``torch.manual_seed`` and one impl ``CPUGenerator`` with the same seed, then the same sequence
of draws on both (randn/normal_/uniform_ of any size, randint, bernoulli_, dropout forward and
backward): every result bit for bit. The draws are serial in torch, so any thread count must agree.
AdamW and torch.sqrt go through MKL VML's sqrt, reproduced for the kernel MKL runs on AMD x86
hosts (the fixtures' kind); on other hosts (Intel: MKL's AVX2/AVX-512 kernels) those tests skip.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.impl import optim, rng
from tests.impl_live import (
    THREADS,
    assert_bits_equal,
    live_profile,
    needs_modelled_mkl,
    needs_verified_profile,
    use_threads,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

SETTINGS = settings(max_examples=25, deadline=None)
SEEDS = st.integers(0, 2**64 - 1)
SIZES = st.one_of(st.integers(1, 40), st.integers(1, 5000), st.sampled_from([32767, 32768, 33001, 70001]))


def _seeded(seed: int) -> rng.CPUGenerator:
    torch.manual_seed(seed)
    return rng.CPUGenerator(seed)


@SETTINGS
@given(seed=SEEDS, n=SIZES)
def test_randn(seed: int, n: int) -> None:
    gen = _seeded(seed)
    assert_bits_equal(f"randn({n})", torch.randn(n).numpy(), rng.randn(gen, n, live_profile()))


@SETTINGS
@given(seed=SEEDS, n=SIZES, mean=st.floats(-3, 3), std=st.floats(0, 2))
def test_normal_mean_std(seed: int, n: int, mean: float, std: float) -> None:
    gen = _seeded(seed)
    expected = torch.empty(n).normal_(mean, std).numpy()
    assert_bits_equal(f"normal_({n}, {mean}, {std})", expected, rng.normal_(gen, n, mean, std, live_profile()))


@SETTINGS
@given(seed=SEEDS, n=SIZES, low=st.floats(-3, 3), width=st.floats(0.01, 5))
def test_uniform(seed: int, n: int, low: float, width: float) -> None:
    gen = _seeded(seed)
    expected = torch.empty(n).uniform_(low, low + width).numpy()
    assert_bits_equal(f"uniform_({n})", expected, rng.uniform_(gen, n, low, low + width, live_profile()))


@SETTINGS
@given(
    seed=SEEDS,
    shape=st.lists(st.integers(1, 70), min_size=1, max_size=3).map(tuple),
    p=st.one_of(st.sampled_from([0.0, 0.1, 0.2, 0.5, 1.0]), st.floats(0, 1)),
    threads=THREADS,
)
def test_dropout(seed: int, shape: tuple[int, ...], p: float, threads: int) -> None:
    use_threads(threads)
    data = np.random.default_rng(seed % 2**32)
    x = data.standard_normal(shape).astype(np.float32)
    grad_out = data.standard_normal(shape).astype(np.float32)
    gen = _seeded(seed)
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    out = F.dropout(xt, p=p, training=True)
    out.backward(torch.from_numpy(grad_out))
    assert xt.grad is not None
    mine, noise = rng.dropout(x, p, gen, live_profile())
    assert_bits_equal("dropout out", out.detach().numpy(), mine)
    assert_bits_equal("dropout grad_x", xt.grad.numpy(), rng.dropout_backward(grad_out, noise))


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, calls=st.lists(st.tuples(st.integers(0, 4), SIZES), min_size=2, max_size=6))
def test_one_generator_sequence(seed: int, calls: list[tuple[int, int]]) -> None:
    """Mixed draws from one state, as a training script makes them (init, dropout masks, ...)."""
    profile = live_profile()
    gen = _seeded(seed)
    for kind, n in calls:
        if kind == 0:
            assert_bits_equal("randn", torch.randn(n).numpy(), rng.randn(gen, n, profile))
        elif kind == 1:
            assert_bits_equal(
                "normal_", torch.empty(n).normal_(0.0, 0.02).numpy(), rng.normal_(gen, n, 0.0, 0.02, profile)
            )
        elif kind == 2:
            assert_bits_equal("bernoulli_", torch.empty(n).bernoulli_(0.8).numpy(), rng.bernoulli_mask(gen, (n,), 0.8))
        elif kind == 3:
            assert np.array_equal(torch.randint(0, n + 7, (n,)).numpy(), rng.randint(gen, 0, n + 7, n))
        else:
            assert_bits_equal(
                "uniform_", torch.empty(n).uniform_(-0.1, 0.1).numpy(), rng.uniform_(gen, n, -0.1, 0.1, profile)
            )
    assert_bits_equal("randn after", torch.randn(7).numpy(), rng.randn(gen, 7, profile))  # still in step


@needs_modelled_mkl
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=SIZES)
def test_sqrt(seed: int, n: int) -> None:
    data = np.random.default_rng(seed)
    x = (data.random(n) * 10.0 ** data.integers(-40, 38, n)).astype(np.float32)
    assert_bits_equal("sqrt", torch.from_numpy(x).sqrt().numpy(), optim.sqrt(x))


@needs_modelled_mkl
@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shapes=st.lists(st.one_of(st.tuples(st.integers(1, 200), st.integers(1, 200)), st.tuples(SIZES)), max_size=3),
    steps=st.integers(1, 3),
    lr=st.sampled_from([1e-3, 6e-4, 3e-2]),
    betas=st.sampled_from([(0.9, 0.99), (0.9, 0.95), (0.3, 0.4)]),
    weight_decay=st.sampled_from([0.0, 0.1]),
    threads=THREADS,
)
def test_adamw(
    seed: int,
    shapes: list[tuple[int, ...]],
    steps: int,
    lr: float,
    betas: tuple[float, float],
    weight_decay: float,
    threads: int,
) -> None:
    use_threads(threads)
    data = np.random.default_rng(seed)
    shapes = [(3, 5), *shapes]
    weights = [(data.standard_normal(s) * 0.02).astype(np.float32) for s in shapes]
    grads = [[data.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(steps)]
    params = [torch.from_numpy(w.copy()).requires_grad_(True) for w in weights]
    decay = [q for q in params if q.dim() >= 2]
    no_decay = [q for q in params if q.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=lr, betas=betas, eps=1e-8)
    mine = [w.copy() for w in weights]
    impl = optim.AdamW(
        [([q for q in mine if q.ndim >= 2], weight_decay), ([q for q in mine if q.ndim < 2], 0.0)],
        lr=lr,
        betas=betas,
        eps=1e-8,
        profile=live_profile(),
    )
    order = [next(j for j, w in enumerate(mine) if w is q) for q in impl.params()]
    for step in range(steps):
        for q, g in zip(params, grads[step], strict=True):
            q.grad = torch.from_numpy(g)
        opt.step()
        impl.step([grads[step][j] for j in order])
    for k, j in enumerate(order):
        state = opt.state[params[j]]
        assert_bits_equal(f"param_{j}", params[j].detach().numpy(), mine[j])
        assert_bits_equal(f"exp_avg_{j}", state["exp_avg"].numpy(), impl.state[k].exp_avg)
        assert_bits_equal(f"exp_avg_sq_{j}", state["exp_avg_sq"].numpy(), impl.state[k].exp_avg_sq)
