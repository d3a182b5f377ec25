"""Live parity of harness.impl.init: ``torch.nn.init``'s initialisers and ``nn.Linear``-style init
sequences, drawn by torch now in this process and by the impl from the same seed, bit for bit.

Shapes of 1 to 4 dims with sizes around the 16-element blocks of ATen's normal fill (1..70, odd,
above 16, above the 32768-element grain); threads from 1 to 16 (the draws are serial: no thread
count may change a bit). ``trunc_normal_`` is checked on both of 2.13's samplers; the uniform one
takes ``log`` through MKL VML, so it needs MKL's modelled code path.
"""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.impl import init
from harness.impl.rng import CPUGenerator
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
SIZES = st.one_of(st.integers(1, 70), st.sampled_from([15, 16, 17, 31, 33, 47, 4097]))
SHAPES = st.one_of(
    st.lists(SIZES, min_size=2, max_size=4).map(tuple).filter(lambda s: math.prod(s) <= 200_000),
    st.sampled_from([(768, 64), (3, 11, 1000), (64, 3, 7, 7)]),
)


def _seeded(seed: int) -> CPUGenerator:
    torch.manual_seed(seed)
    return CPUGenerator(seed)


# name -> (torch's initialiser, the impl's), keyword arguments drawn below
INITS = {
    "uniform_": (torch.nn.init.uniform_, init.uniform_),
    "normal_": (torch.nn.init.normal_, init.normal_),
    "xavier_uniform_": (torch.nn.init.xavier_uniform_, init.xavier_uniform_),
    "xavier_normal_": (torch.nn.init.xavier_normal_, init.xavier_normal_),
    "kaiming_uniform_": (torch.nn.init.kaiming_uniform_, init.kaiming_uniform_),
    "kaiming_normal_": (torch.nn.init.kaiming_normal_, init.kaiming_normal_),
    "trunc_normal_": (torch.nn.init.trunc_normal_, init.trunc_normal_),
}
KWARGS = {
    "uniform_": st.fixed_dictionaries({"a": st.floats(-2, 0), "b": st.floats(0.01, 2)}),
    "normal_": st.fixed_dictionaries({"mean": st.floats(-1, 1), "std": st.sampled_from([0.02, 1.0, 0.5])}),
    "xavier_uniform_": st.fixed_dictionaries({"gain": st.sampled_from([1.0, 5 / 3, math.sqrt(2.0)])}),
    "xavier_normal_": st.fixed_dictionaries({"gain": st.sampled_from([1.0, 0.5])}),
    "kaiming_uniform_": st.fixed_dictionaries(
        {"a": st.sampled_from([0, math.sqrt(5), 0.2]), "mode": st.sampled_from(["fan_in", "fan_out"])},
        optional={"nonlinearity": st.sampled_from(["relu", "leaky_relu", "linear", "tanh"])},
    ),
    "kaiming_normal_": st.fixed_dictionaries(
        {"mode": st.sampled_from(["fan_in", "fan_out"])},
        optional={"nonlinearity": st.sampled_from(["relu", "leaky_relu", "selu"])},
    ),
    # the normal sampler with rejections (a, b within a std or two) and without (ViT's std=0.02)
    "trunc_normal_": st.fixed_dictionaries(
        {"std": st.sampled_from([0.02, 1.0, 0.7]), "a": st.sampled_from([-2.0, -1.0, -0.5]), "b": st.just(2.0)}
    ),
}


@pytest.mark.parametrize("name", sorted(INITS))
@SETTINGS
@given(data=st.data(), seed=SEEDS, shape=SHAPES, threads=THREADS)
def test_initialiser(name: str, data: st.DataObject, seed: int, shape: tuple[int, ...], threads: int) -> None:
    use_threads(threads)
    kwargs = data.draw(KWARGS[name])
    torch_init, impl_init = INITS[name]
    gen = _seeded(seed)
    expected = torch_init(torch.empty(shape), **kwargs).numpy()
    assert_bits_equal(f"{name}{shape} {kwargs}", expected, impl_init(gen, shape, live_profile(), **kwargs))
    assert_bits_equal("randn after", torch.randn(5).numpy(), init.normal_(gen, (5,), live_profile()))  # in step


@needs_modelled_mkl
@pytest.mark.filterwarnings("ignore:mean is more than 2 std")
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, shape=SHAPES, a=st.floats(1.0, 3.0), width=st.floats(0.1, 1.5), threads=THREADS)
def test_trunc_normal_far_in_the_tail(seed: int, shape: tuple[int, ...], a: float, width: float, threads: int) -> None:
    """[a, a + width] beyond the mean holds at most 0.3 of the mass: uniform candidates accepted against
    the density, log through MKL VML; several rounds of redraws."""
    use_threads(threads)
    gen = _seeded(seed)
    expected = torch.nn.init.trunc_normal_(torch.empty(shape), mean=0.0, std=1.0, a=a, b=a + width).numpy()
    got = init.trunc_normal_(gen, shape, live_profile(), mean=0.0, std=1.0, a=a, b=a + width)
    assert_bits_equal(f"trunc_normal_{shape} [{a}, {a + width}]", expected, got)
    assert_bits_equal("randn after", torch.randn(17).numpy(), init.normal_(gen, (17,), live_profile()))


@SETTINGS
@given(seed=SEEDS, dims=st.lists(st.integers(1, 300), min_size=2, max_size=5), threads=THREADS)
def test_a_linear_stack_initialised_in_order(seed: int, dims: list[int], threads: int) -> None:
    """``nn.Linear(i, o)`` layers made in turn (weight ``kaiming_uniform_(a=sqrt(5))``, bias
    ``uniform_(-1/sqrt(i), 1/sqrt(i))``), then an ``nn.Embedding`` (``normal_``): one generator."""
    use_threads(threads)
    gen = _seeded(seed)
    layers = [torch.nn.Linear(i, o) for i, o in itertools.pairwise(dims)]
    embedding = torch.nn.Embedding(dims[-1], dims[0])
    profile = live_profile()
    for layer, (i, o) in zip(layers, itertools.pairwise(dims), strict=True):
        weight = init.kaiming_uniform_(gen, (o, i), profile, a=math.sqrt(5))
        bound = 1 / math.sqrt(i)
        assert_bits_equal("weight", layer.weight.detach().numpy(), weight)
        assert_bits_equal("bias", layer.bias.detach().numpy(), init.uniform_(gen, (o,), profile, a=-bound, b=bound))
    assert_bits_equal("embedding", embedding.weight.detach().numpy(), init.normal_(gen, (dims[-1], dims[0]), profile))


def test_zero_element_and_one_dim_shapes_as_torch() -> None:
    gen = _seeded(5)
    profile = live_profile()
    with pytest.warns(UserWarning):
        torch.nn.init.kaiming_uniform_(torch.empty(0, 3))
    assert init.kaiming_uniform_(gen, (0, 3), profile).shape == (0, 3)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        torch.nn.init.xavier_uniform_(torch.empty(7))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(gen, (7,), profile)
    assert_bits_equal("after", torch.randn(3).numpy(), init.normal_(gen, (3,), profile))  # nothing drawn
