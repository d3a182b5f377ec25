"""The impl's unary kernels against torch running in this process, bit for bit.

Covered (verified exact on the committed x86 fixtures): exp, log, tanh, rsqrt, gelu (erf) and
gelu (tanh), forward and backward; silu (no fixture op: traces of real models reach it), forward
and backward, here only, also on random bit patterns. The forward of exp/log/tanh is MKL VML (vsExp/vsLn/vsTanh):
checked only where MKL runs a code path the impl reproduces (needs_modelled_vml: the generic one on
AMD CPUs, or the Intel AVX2 or AVX-512 one, under live_profile), on the
fixtures' distributions and on random bit patterns (log: every positive float; tanh and exp:
every float, exp's overflow, underflow and subnormal results included, and uniformly over the
range where its results are finite and normal).
gelu (erf) of more than one element runs oneDNN, whose ISA follows ONEDNN_MAX_CPU_ISA, not
ATEN_CPU_CAPABILITY: under the baseline profile it is checked only with oneDNN pinned to SSE41;
on AVX-512 it takes oneDNN's AVX-512 minimax path, which the impl reproduces (checked there too).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.impl import unary
from tests.impl_live import (
    THREADS,
    assert_bits_equal,
    live_profile,
    needs_modelled_vml,
    needs_verified_profile,
    use_threads,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

_SHAPES = st.one_of(
    st.tuples(st.integers(1, 70)),
    st.tuples(st.integers(1, 40), st.integers(1, 600)),
    st.tuples(st.integers(60, 80), st.integers(400, 600)),  # above 32768 elements: thread chunks
)

_TORCH = {
    "exp": torch.exp,
    "log": torch.log,
    "tanh": torch.tanh,
    "rsqrt": torch.rsqrt,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
}
_POSITIVE = {"log", "rsqrt"}
_MKL_VML = {"exp", "log", "tanh"}


def _inputs(op: str, shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32) * np.float32(3)
    if op in _POSITIVE:
        x = np.abs(x) + np.float32(1e-3)
    return x, rng.standard_normal(shape).astype(np.float32)


def _onednn_as_profile(aten: str) -> bool:
    """oneDNN runs the ISA the baseline profile assumes (SSE4.1) only when pinned so."""
    return aten != "default" or os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper() == "SSE41"


def _torch(op: str, x: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    out = _TORCH[op](xt)
    out.backward(torch.from_numpy(g))
    return out.detach().numpy(), xt.grad.numpy()


@pytest.mark.parametrize("op", ["rsqrt", "gelu", "gelu_tanh", "exp", "log", "tanh", "silu"])
@settings(max_examples=12, deadline=None)
@given(shape=_SHAPES, seed=st.integers(0, 2**31 - 1), threads=THREADS)
def test_unary_matches_torch(op: str, shape: tuple[int, ...], seed: int, threads: int) -> None:
    """forward (but MKL VML's, see test_vml_forward_matches_torch) and backward given torch's out."""
    use_threads(threads)
    profile = live_profile()
    if op == "gelu" and not _onednn_as_profile(profile.aten) and np.prod(shape) > 1:
        pytest.skip("oneDNN is not pinned to the profile's ISA")
    x, g = _inputs(op, shape, seed)
    out, grad_x = _torch(op, x, g)
    if op not in _MKL_VML:
        assert_bits_equal(f"{op} out", out, unary.forward(op, x, profile))
    assert_bits_equal(f"{op} grad_x", grad_x, unary.backward(op, g, x, out, profile))


def _bit_patterns(op: str, n: int, seed: int) -> np.ndarray:
    """Random float32 bit patterns over the op's reproduced domain, plus its special values."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1e-40, 3e38], np.float32)
    if op == "log":
        x = np.abs(x)  # every positive float (negative inputs are among the special values)
    if op == "exp":  # every float, and as many again where the results are finite and normal
        edges = np.float32([87.33654, 87.33655, 88.72283, 88.72284, -87.33654, -87.33655, -103.97207, -103.97208])
        special = np.concatenate([special, edges])
        x = np.concatenate([x, rng.uniform(-87.3, 88.7, n).astype(np.float32)])
    return np.concatenate([x, special])


@needs_modelled_vml
@pytest.mark.parametrize("op", sorted(_MKL_VML))
@settings(max_examples=8, deadline=None)
@given(shape=_SHAPES, seed=st.integers(0, 2**31 - 1), threads=THREADS)
def test_vml_forward_matches_torch(op: str, shape: tuple[int, ...], seed: int, threads: int) -> None:
    use_threads(threads)
    x, _ = _inputs(op, shape, seed)
    bits = _bit_patterns(op, 4096, seed)
    profile = live_profile()
    for name, v in (("fixture-like", x), ("bit patterns", bits)):
        expected = _TORCH[op](torch.from_numpy(v.copy())).numpy()
        assert_bits_equal(f"{op} out ({name})", expected, unary.forward(op, v, profile))


def _every_float(lo: float, hi: float) -> np.ndarray:
    """Every float32 in [lo, hi] (same sign), in order of their bit patterns."""
    a, b = sorted(int(np.float32(v).view(np.uint32)) for v in (lo, hi))
    return np.arange(a, b + 1, dtype=np.uint64).astype(np.uint32).view(np.float32)


@needs_modelled_vml
def test_vml_exp_matches_torch_on_every_float_of_its_scalar_fallback() -> None:
    """exp where VML leaves its vector path (|x| > 87.3365: overflow to inf, results below 2^-126 down to
    subnormals and zero) on every float there up to where the result is inf or zero, at 1 thread."""
    use_threads(1)
    profile = live_profile()
    for lo, hi in ((87.3, 89.0), (-87.3, -104.5)):
        x = _every_float(lo, hi)
        expected = torch.exp(torch.from_numpy(x.copy())).numpy()
        assert_bits_equal(f"exp out on [{lo}, {hi}]", expected, unary.forward("exp", x, profile))


def _overlaid_bit_patterns(op: str, shape: tuple[int, ...], seed: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """x: normal values times ``scale`` with random bit patterns laid over half the elements and the
    special values over the last (so that each lands in the vector body or the scalar tail); a
    gradient with a tenth of its elements NaN."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32) * np.float32(scale)
    flat = x.reshape(-1)
    bits = _bit_patterns(op, flat.size, seed)
    spots = rng.random(flat.size) < 0.5
    flat[spots] = bits[: flat.size][spots]
    flat[-min(flat.size, 11) :] = bits[-11:][-min(flat.size, 11) :]  # the special values, in the tail
    g = rng.standard_normal(shape).astype(np.float32)
    g.reshape(-1)[rng.random(flat.size) < 0.1] = np.float32(np.nan)
    return x, g


@settings(max_examples=12, deadline=None)
@given(shape=_SHAPES, seed=st.integers(0, 2**31 - 1), threads=THREADS)
def test_silu_matches_torch_on_bit_patterns(shape: tuple[int, ...], seed: int, threads: int) -> None:
    """silu forward and backward where exp(-x) overflows, underflows or is not finite: random bit
    patterns and the special values, laid over a tensor of ``shape`` so that each lands in the vector
    body or the scalar tail."""
    use_threads(threads)
    x, g = _overlaid_bit_patterns("silu", shape, seed, 3.0)
    out, grad_x = _torch("silu", x, g)
    profile = live_profile()
    assert_bits_equal("silu out", out, unary.forward("silu", x, profile))
    assert_bits_equal("silu grad_x", grad_x, unary.backward("silu", g, x, out, profile))


def test_silu_backward_nan_operands_in_body_and_tail() -> None:
    """Where two NaNs meet in silu's backward, the order of the operands decides the bits: every pair
    of (dy, x) among NaNs of either sign and payload, infinities, zero and one, in the vector body (64
    elements) and alone (a scalar tail)."""
    use_threads(1)
    specials = np.array([0x7FC12345, 0xFFC54321, 0x7F800000, 0xFF800000, 0x00000000, 0x3F800000], np.uint32)
    dy, x = (a.reshape(-1).view(np.float32) for a in np.meshgrid(specials, specials))
    profile = live_profile()
    for name, (gs, xs) in {
        "body": (np.resize(dy, 64), np.resize(x, 64)),
        **{f"tail {i}": (dy[i : i + 1], x[i : i + 1]) for i in range(dy.size)},
    }.items():
        expected = torch.ops.aten.silu_backward(torch.from_numpy(gs.copy()), torch.from_numpy(xs.copy())).numpy()
        assert_bits_equal(f"silu grad_x ({name})", expected, unary.backward("silu", gs, xs, xs, profile))
        expected = F.silu(torch.from_numpy(xs.copy())).numpy()
        assert_bits_equal(f"silu out ({name})", expected, unary.forward("silu", xs, profile))


@settings(max_examples=12, deadline=None)
@given(shape=_SHAPES, seed=st.integers(0, 2**31 - 1), threads=THREADS)
def test_log_sigmoid_matches_torch(shape: tuple[int, ...], seed: int, threads: int) -> None:
    """F.logsigmoid forward (out and buffer) and backward, on normal inputs with random bit patterns and
    the special values laid over half the elements (exp(-|x|) under- and overflowing, NaNs), and NaNs
    in the gradient; shapes off the vector width and above the thread chunks' grain."""
    use_threads(threads)
    x, g = _overlaid_bit_patterns("log_sigmoid", shape, seed, 8.0)
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    out = F.logsigmoid(xt)
    out.backward(torch.from_numpy(g))
    _, buffer = torch.ops.aten.log_sigmoid_forward(torch.from_numpy(x.copy()))
    profile = live_profile()
    mine, mine_buffer = unary.log_sigmoid_forward(x, profile)
    assert_bits_equal("log_sigmoid out", out.detach().numpy(), mine)
    assert_bits_equal("log_sigmoid buffer", buffer.numpy(), mine_buffer)
    assert_bits_equal("log_sigmoid grad_x", xt.grad.numpy(), unary.log_sigmoid_backward(g, x, mine_buffer, profile))


@settings(max_examples=8, deadline=None)
@given(shape=_SHAPES, seed=st.integers(0, 2**31 - 1), threads=THREADS, beta=st.sampled_from([1.0, 0.5, 2.0]))
def test_softplus_and_log1p_match_torch(shape: tuple[int, ...], seed: int, threads: int, beta: float) -> None:
    """softplus forward and backward (threshold 20) and log1p on normal inputs with random bit patterns and the
    special values laid over half the elements and NaNs in the gradient: the vector body (two vectors a step:
    16 elements at avx2, 32 in the AVX-512 objects) and the scalar tail, above the thread chunks' grain too."""
    use_threads(threads)
    x, g = _overlaid_bit_patterns("softplus", shape, seed, 8.0)
    xt, gt = torch.from_numpy(x.copy()), torch.from_numpy(g.copy())
    profile = live_profile()
    expected = F.softplus(xt, beta, 20.0).numpy()
    assert_bits_equal("softplus out", expected, unary.softplus_forward(x, beta, 20.0, profile))
    expected = torch.ops.aten.softplus_backward(gt, xt, beta, 20.0).numpy()
    assert_bits_equal("softplus grad_x", expected, unary.softplus_backward(g, x, beta, 20.0, profile))
    assert_bits_equal("log1p out", torch.log1p(xt).numpy(), unary.forward("log1p", x, profile))


def test_log_sigmoid_backward_nan_places() -> None:
    """Where a NaN buffer meets a NaN grad, the element's place in ATen's loop picks the NaN: one pair
    at every place of a 40-element tensor (two two-vector steps of the body, then the scalar tail, at 8
    lanes; one step of 2 x 16 and a tail of 8 in the AVX-512 object)."""
    use_threads(1)
    profile = live_profile()
    for k in range(40):
        x, g = np.ones(40, np.float32), np.ones(40, np.float32)
        x.view(np.uint32)[k], g.view(np.uint32)[k] = 0xFFE1BF63, 0x7FC00000
        _, buffer = torch.ops.aten.log_sigmoid_forward(torch.from_numpy(x.copy()))
        expected = torch.ops.aten.log_sigmoid_backward(torch.from_numpy(g), torch.from_numpy(x.copy()), buffer)
        mine = unary.log_sigmoid_backward(g, x, buffer.numpy(), profile)
        assert_bits_equal(f"log_sigmoid grad_x (NaN pair at {k})", expected.numpy(), mine)


@settings(max_examples=12, deadline=None)
@given(
    shape=_SHAPES,
    seed=st.integers(0, 2**31 - 1),
    threads=THREADS,
    slope=st.sampled_from([0.01, 0.2, -0.3, 0.0, 1e-3]),
    strided=st.booleans(),
)
def test_leaky_relu_matches_torch(shape: tuple[int, ...], seed: int, threads: int, slope: float, strided: bool) -> None:
    """leaky_relu forward and leaky_relu_backward on inputs with random bit patterns and the special
    values (signalling NaNs in the gradient where x > 0 included), contiguous or every other element of
    a wider tensor (ATen's basic loop); shapes off the vector width and above the thread chunks' grain."""
    use_threads(threads)
    x, g = _overlaid_bit_patterns("leaky_relu", shape, seed, 8.0)
    g.reshape(-1)[:: max(1, g.size // 7)] = np.uint32(0x7F800001).view(np.float32)  # signalling NaNs
    step = 2 if strided else 1
    xt = torch.from_numpy(np.repeat(x.reshape(-1), step))[::step]
    gt = torch.from_numpy(np.repeat(g.reshape(-1), step))[::step]
    profile = live_profile()
    row = 1 if strided else None
    expected = torch.ops.aten.leaky_relu(xt, slope).numpy()
    assert_bits_equal("leaky_relu out", expected, unary.leaky_relu_forward(x.reshape(-1), slope, profile, row))
    expected = torch.ops.aten.leaky_relu_backward(gt, xt, slope, False).numpy()
    mine = unary.leaky_relu_backward(g.reshape(-1), x.reshape(-1), slope, profile, row)
    assert_bits_equal("leaky_relu grad_x", expected, mine)


_POW_EXPONENTS = [-1.5, 1.5, 0.25, -0.75, 2.5, -3.0, 0.3, 4.0, 1 / 3, -2.5, 7.0, -4.0, 1e-3, 40.0, -0.1, 0.5 + 2**-20]


def _pow_bases(n: int, seed: int) -> np.ndarray:
    """Positive values over many binades, negative ones, random bit patterns (subnormals, infinities,
    NaNs among them) and the special values 0, -0, 1, -1, inf, -inf, NaN."""
    rng = np.random.default_rng(seed)
    x = np.exp(rng.uniform(-40, 40, n)).astype(np.float32)
    x[rng.random(n) < 0.2] *= np.float32(-1)
    spots = rng.random(n) < 0.3
    x[spots] = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)[spots]
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.0, -2.0, 1e-45], np.float32)
    x[rng.integers(0, n, special.size)] = special
    return x


@settings(max_examples=20, deadline=None)
@given(
    vectors=st.sampled_from([1, 2, 3, 4, 64, 2048, 4096]),
    tail=st.integers(0, 15),
    seed=st.integers(0, 2**31 - 1),
    threads=st.sampled_from([1, 2, 4]),
    exponent=st.sampled_from(_POW_EXPONENTS),
)
def test_pow_of_a_scalar_exponent_matches_torch(
    vectors: int, tail: int, seed: int, threads: int, exponent: float
) -> None:
    """pow(x, exponent) for exponents PowKernel.cpp has no special case for, on pairs of 8-lane vectors (16
    floats; 4096 of them: two chunks of the default grain at 2 and 4 threads) and up to 15 elements
    more (each thread chunk's scalar tail: std::pow(float, double); the AVX-512 object's steps take 32, so
    an odd count of pairs leaves 16 more there), and its gradient: autograd's
    grad * (exponent * pow(x, exponent - 1)), one more such pow (where exponent - 1 has no special
    case) and two products."""
    use_threads(threads)
    x = _pow_bases(16 * vectors + tail, seed)
    profile = live_profile()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    out = torch.pow(xt, exponent)
    g = np.random.default_rng(seed + 1).standard_normal(x.size).astype(np.float32)
    out.backward(torch.from_numpy(g))
    assert_bits_equal(f"pow(x, {exponent})", out.detach().numpy(), unary.pow_scalar_forward(x, exponent, profile))
    if exponent - 1 in (0.5, 3.0):  # the backward's pow takes a special case of its own (sqrt, x*x*x)
        return
    with np.errstate(all="ignore"):
        grad = g * (np.float32(exponent) * unary.pow_scalar_forward(x, exponent - 1, profile))
    assert_bits_equal(f"pow(x, {exponent}) grad_x", xt.grad.numpy(), grad)


@pytest.mark.parametrize("exponent", [*_POW_EXPONENTS, 5.0, -7.0, 1e9, -1e9, 2.0**-40])
def test_pow_scalar_tail_special_values_match_torch(exponent: float) -> None:
    """A scalar tail (15 elements past a pair of 8-lane vectors, all 31 in the AVX-512 object; 1 thread) of
    C99's special bases and of bases whose power overflows or underflows float or double, as glibc's double
    pow answers them."""
    use_threads(1)
    special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 3e38, -3e38, -2.0, 0.5]
    nans = np.array([0x7F800001, 0xFFA00001, 0x7FC12345], np.uint32).view(np.float32)  # signalling and quiet
    x = np.concatenate([_pow_bases(16, 7), np.array(special, np.float32)[:12], nans])
    expected = torch.pow(torch.from_numpy(x.copy()), exponent).numpy()
    assert_bits_equal(f"pow(x, {exponent}) tail", expected, unary.pow_scalar_forward(x, exponent, live_profile()))


def test_pow_scalar_tail_on_a_rounding_boundary() -> None:
    """Tail powers exactly halfway between two floats: 103041**1.5 = 321**3 = 33076161 and
    707281**1.25 = 29**5 = 20511149 (25-bit odd integers) are doubles, which glibc's pow returns
    exactly, rounded to even; (2**-128)**(75/64) = 2**-150, halfway between 0 and the least subnormal,
    is one too (glibc's steps, csrc/dmath.h glibc_pow_d, give it; no proof needed on x86)."""
    use_threads(1)
    x = np.linspace(0.5, 9.5, 23, dtype=np.float32)
    x[18:20] = [103041.0, 707281.0]
    for exponent in (1.5, 1.25, -1.5):
        expected = torch.pow(torch.from_numpy(x.copy()), exponent).numpy()
        mine = unary.pow_scalar_forward(x, exponent, live_profile())
        assert_bits_equal(f"pow(x, {exponent}) tail", expected, mine)
    x[20] = 2.0**-128
    expected = torch.pow(torch.from_numpy(x.copy()), 75 / 64).numpy()
    assert expected[20] == 0  # the tie went to even
    assert_bits_equal("pow(x, 75/64) tail", expected, unary.pow_scalar_forward(x, 75 / 64, live_profile()))


def _replay_pow(op: str, inputs: dict[str, torch.Tensor], number: float | None = None) -> np.ndarray:
    from harness.trace.impl_ops import replay

    args = [{"name": "self", "value": number}] if number is not None else []
    args += [{"name": k, "tensor": k, "stride": list(v.stride()), "shape": list(v.shape)} for k, v in inputs.items()]
    arrays = {k: np.ascontiguousarray(v.numpy()) for k, v in inputs.items()}
    return replay(f"aten.pow.{op}", arrays, args, live_profile())["out"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_pow_of_a_tensor_exponent_matches_torch(threads: int) -> None:
    """aten.pow.Scalar (a number to a tensor's power: Llama's rotary frequencies 10000 ** (arange(0, d, 2) / d),
    and bases 1 (ones), -2, NaN, 0), over 2 default grains and 45 elements (thread chunks, each with a scalar
    tail of glibc powf) and a transposed exponent (C order: the scalar op throughout); pow.Tensor_Tensor of
    random bits, NaN bases to NaN exponents among them (glibc's tail keeps the base's payload)."""
    use_threads(threads)
    n = 2 * 32768 + 45
    rng = np.random.default_rng(threads)
    e = _pow_bases(n, threads)
    e[: n // 2] = np.arange(0, n // 2, dtype=np.float32) / np.float32(n)  # rotary frequencies' exponents
    b = _pow_bases(n, threads + 10)
    b[-8:] = np.array([0x7FC12345, 0xFFC00001] * 4, np.uint32).view(np.float32)
    e[-8:] = np.array([0x7FC54321, 0xFFC00003, 0.0, 1.0] * 2, np.float32)
    e[-8:-6] = np.array([0x7FC54321, 0xFFC00003], np.uint32).view(np.float32)
    for number in (10000.0, 1.0, -2.0, float("nan"), 0.0):
        et = torch.from_numpy(e.copy())
        assert_bits_equal(
            f"pow({number}, e)", torch.pow(number, et).numpy(), _replay_pow("Scalar", {"exponent": et}, number)
        )
    et = torch.from_numpy(e[: 45 * 1457].reshape(1457, 45).copy()).T
    assert_bits_equal(
        "pow(10000, e.T)", torch.pow(10000.0, et).numpy(), _replay_pow("Scalar", {"exponent": et}, 10000.0)
    )
    slope, powers = torch.tensor(0.70710677), torch.arange(1, 38, dtype=torch.int32)  # BLOOM's ALiBi slopes
    expected = torch.pow(slope, powers).numpy()
    assert_bits_equal("pow(s, int32)", expected, _replay_pow("Tensor_Tensor", {"self": slope, "exponent": powers}))
    bt, et = torch.from_numpy(b.copy()), torch.from_numpy(rng.permutation(e))
    expected = torch.pow(bt, et).numpy()
    assert_bits_equal("pow(b, e)", expected, _replay_pow("Tensor_Tensor", {"self": bt, "exponent": et}))
