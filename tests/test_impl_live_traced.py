"""Live: ops of real models, recorded by ``parity trace`` and replayed through the impl, bit for bit.

A small program runs under the recorder with every op captured; each captured op that
harness/trace/impl_ops.py ``REPLAYS`` and the program is about is run again through the impl under
the running torch's profile (``--verify-cause``'s path), and its outputs must be the traced ones.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.impl.profiles import MKL_AVX2, MKL_SSE42, MODELLED_BLAS, KernelProfile
from harness.trace.impl_ops import packet, replay
from harness.trace.recorder import Tracer, recording
from tests.impl_live import (
    THREADS,
    assert_bits_equal,
    live_profile,
    needs_modelled_mkl,
    needs_modelled_sgemm,
    needs_modelled_vml,
    needs_verified_profile,
    unless_refused,
    use_threads,
)

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

# through the dispatcher hook (csrc/hook.cpp) or through Python's dispatch mode
backends = pytest.mark.parametrize("backend", ["dispatcher-hook", "dispatch-mode"])


def _traced(backend: str, program: Callable[[], object]) -> Tracer:
    """``program`` traced through ``backend`` with its first 400 ops' tensors captured: the tracer."""
    hook = "1" if backend == "dispatcher-hook" else "0"
    with mock.patch.dict(os.environ, {"PARITY_TRACE_HOOK": hook}), recording(capture=list(range(400))) as tracer:
        program()
    return tracer


def _replays_match(backend: str, program: Callable[[], object], ops: set[str], least: int) -> None:
    """Trace ``program`` with every op captured; replay those of ``ops``; at least ``least`` of them
    (those the impl refuses as not modelled on MKL's Intel path here counted, and passed over)."""
    tracer = _traced(backend, program)
    assert tracer.backend == backend, tracer.backend_note
    profile = live_profile()
    seen = 0
    for index, op in enumerate(tracer.ops):
        if packet(op.op) not in ops:
            continue
        cap = tracer.captured[index]
        seen += 1
        got = unless_refused(lambda op=op, cap=cap: replay(op.op, cap.inputs, cap.args, profile))
        if got is None:
            continue
        assert sorted(got) == sorted(cap.outputs), op.op
        for name, value in got.items():
            assert_bits_equal(f"{op.op} {name} (op {index})", cap.outputs[name], value.reshape(cap.outputs[name].shape))
    assert seen >= least, f"{seen} of {sorted(ops)} replayed, expected at least {least}"


SHAPES = st.lists(st.integers(1, 70), min_size=1, max_size=3).map(tuple)


@backends
@settings(max_examples=6, deadline=None)
@given(
    shape=st.one_of(SHAPES, st.sampled_from([(40, 1000), (3, 33000)])), seed=st.integers(0, 2**32 - 1), threads=THREADS
)
@example(shape=(700, 1), seed=0, threads=1)  # the slice a column of a wider tensor: ATen's scalar loop
def test_silu_forward_and_backward_replay(backend: str, shape: tuple[int, ...], seed: int, threads: int) -> None:
    """silu, silu_ and silu_backward, on contiguous tensors and on a slice of the last dim (Mamba's
    causal convolution cut to the sequence: TensorIterator's rows, each a loop of its own; cut to one
    step, a column a row apart: the scalar op on every element)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32) * 4)
    wider = torch.from_numpy(rng.standard_normal((*shape[:-1], shape[-1] + 3)).astype(np.float32) * 4)

    def program() -> None:
        xt = x.clone().requires_grad_(True)
        y = F.silu(xt)
        y.backward(torch.ones_like(y) * 0.5)
        F.silu(x.clone(), inplace=True)  # nn.SiLU(inplace=True)
        wt = wider.clone().requires_grad_(True)
        z = F.silu(wt[..., : shape[-1]])
        z.backward(torch.full_like(z, 0.25))

    _replays_match(backend, program, {"silu", "silu_", "silu_backward"}, 5)


@backends
@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 4), t=st.integers(1, 40), c=st.integers(1, 70), seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(n=4, t=16, c=64, seed=0, threads=1)  # Mamba's gate: 9 of 4,096 elements were other bits
def test_element_wise_ops_of_a_channel_slice_replay_in_atens_loop_order(
    backend: str, n: int, t: int, c: int, seed: int, threads: int
) -> None:
    """silu, sigmoid and softplus (and their backwards) of half the channels of a (N, T, 2C) map
    transposed to (N, 2C, T) (Mamba's gate and its SSM input): TensorIterator walks the channels
    innermost, rows of C contiguous elements, not the C order of the logical shape."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, t, 2 * c)).astype(np.float32) * 4)

    def program() -> None:
        xt = x.clone().requires_grad_(True)
        gate = xt.transpose(1, 2)[:, :c]
        out = F.silu(gate) + torch.sigmoid(gate) + F.softplus(xt.transpose(1, 2)[:, c:])
        out.backward(torch.full_like(out, 0.5))

    ops = {"silu", "silu_backward", "sigmoid", "sigmoid_backward", "softplus", "softplus_backward"}
    _replays_match(backend, program, ops, 6)


def _payload_nans(rng: np.random.Generator, shape: tuple[int, ...], share: float) -> torch.Tensor:
    """Values of ``shape`` with ``share`` of them NaN: random payloads, both signs, quiet and signalling."""
    v = (rng.standard_normal(shape) * 4).astype(np.float32)
    m = rng.random(shape) < share
    k = int(m.sum())
    quiet = np.where(rng.random(k) < 0.5, 0x400000, 0).astype(np.uint32)
    sign = rng.integers(0, 2, k).astype(np.uint32) << 31
    v[m] = (0x7F800000 | sign | quiet | rng.integers(1, 1 << 22, k).astype(np.uint32)).view(np.float32)
    return torch.from_numpy(v)


@pytest.mark.parametrize("threads", [1, 2])
def test_nans_read_as_a_scalar_replay(threads: int) -> None:
    """silu_backward, gelu_backward (tanh), softplus_backward, tanh_backward and log_sigmoid_backward with one
    input broadcast along the inner dim (ATen's vectorized loop reads it as a scalar), NaNs of random
    payloads in both operands: which NaN each place of the loop keeps (vector body, GCC's tail loops) replays
    bit for bit; rows of 45 and 23 (tails of 13 and 7 or 23). Before, a NaN read as a scalar was refused, and
    tanh_backward's and softplus_backward's NaNs where two met came out other."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    aten = torch.ops.aten

    def program() -> None:
        for rows, n in ((6, 45), (4, 23)):
            col, full = _payload_nans(rng, (rows, 1), 0.5).expand(rows, n), _payload_nans(rng, (rows, n), 0.4)
            for g, x in ((col, full), (full, col)):
                aten.silu_backward(g, x)
                aten.gelu_backward(g, x, approximate="tanh")
                aten.softplus_backward(g, x, 1.0, 20.0)
                aten.tanh_backward(g, x)
                aten.log_sigmoid_backward(g, x, aten.log_sigmoid_forward(x)[1])
            aten.log_sigmoid_backward(full, full, col)  # the buffer read as a scalar

    ops = {"silu_backward", "gelu_backward", "softplus_backward", "tanh_backward", "log_sigmoid_backward"}
    _replays_match("dispatcher-hook", program, ops, 22)


@pytest.mark.parametrize("threads", [1, 2])
def test_mish_lerp_addcmul_addcdiv_atan2_replay_in_tensor_iterators_loop(threads: int) -> None:
    """mish and its backward (NaNs of random payloads in both operands, x read as a scalar along rows of 45:
    SLEEF's exp, log1p and tanh in the vector body, glibc's in the tails, 16 lanes at avx512), lerp by a
    number on both sides of 0.5 and by a tensor (a strided end, a weight broadcast along the rows), addcmul
    and addcdiv of a transposed and an expanded operand, in place too, atan2 with NaNs of random payloads in
    both operands (SLEEF's atan2f in the vector body, glibc's in the tails), past the 32,768-element grain:
    each replays bit for bit in TensorIterator's loop. Before, none of them had a replay but the in-place
    ones over one contiguous run."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    aten = torch.ops.aten

    def t(*shape: int) -> torch.Tensor:
        return torch.from_numpy((rng.standard_normal(shape) * 4).astype(np.float32))

    def program() -> None:
        x, col = _payload_nans(rng, (6, 45), 0.2), _payload_nans(rng, (6, 1), 0.5).expand(6, 45)
        F.mish(x)
        F.mish(t(33, 40).t())
        aten.mish_backward(_payload_nans(rng, (6, 45), 0.2), x)
        aten.mish_backward(x, col)
        aten.mish_backward(col, x)
        big = _payload_nans(rng, (40000,), 0.01)
        torch.lerp(big, t(40000), 0.3)
        torch.lerp(x, t(6, 90)[:, ::2], 0.7)
        torch.lerp(t(7, 37), t(37), t(7, 1) * 0.4)
        torch.addcmul(big, t(40000), t(1), value=-0.5)
        torch.addcdiv(x, t(45, 6).t(), t(45), value=3)
        x.addcmul_(t(6, 45), t(6, 1), value=0.25)
        t(37, 21).t().lerp_(t(21, 37), 0.9)
        torch.atan2(big, _payload_nans(rng, (40000,), 0.01))
        torch.atan2(t(6, 90)[:, ::2], col)

    ops = {"mish", "mish_backward", "lerp", "lerp_", "addcmul", "addcmul_", "addcdiv", "atan2"}
    _replays_match("dispatcher-hook", program, ops, 14)


@pytest.mark.parametrize("threads", [1, 4])
def test_rotary_sin_cos_tables_replay(threads: int) -> None:
    """A rotary position table (Llama's: cat(outer(positions, inv_freq)) twice, then .cos() and .sin()), its
    in-place forms and sin/cos of a strided slice: MKL VML's vsSin/vsCos (csrc/vmath.h mkl_vml_sinf/cosf) on
    MKL's generic path, bit for bit (refused, and passed over, on its Intel paths); a 2,049-position table,
    arguments up to 2,048 (past the 2,048-element VML chunks, 8 and 16 lanes)."""
    use_threads(threads)

    def program() -> None:
        inv_freq = 1.0 / (10000 ** (torch.arange(0, 64, 2, dtype=torch.int64).float() / 64))
        freqs = torch.outer(torch.arange(2049, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        emb.cos()
        emb.sin()
        emb[:, ::3].clone().sin_()
        emb[5:, 1:33].cos_()

    _replays_match("dispatcher-hook", program, {"sin", "cos", "sin_", "cos_"}, 4)


@pytest.mark.parametrize("threads", [1, 4])
def test_long_context_rotary_sin_cos_tables_replay(threads: int) -> None:
    """A long context's rotary table (base 500,000, positions up to 131,071: arguments past 10000 take the VML
    kernels' large-argument branch, csrc/vmath.h mkl_vml_sincosf_large), its cos and sin and an in-place sin_ of a
    strided slice, bit for bit."""
    use_threads(threads)

    def program() -> None:
        inv_freq = 1.0 / (500000 ** (torch.arange(0, 64, 2, dtype=torch.int64).float() / 64))
        freqs = torch.outer(torch.arange(0, 131072, 61, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        emb.cos()
        emb.sin()
        emb[:, ::3].clone().sin_()

    _replays_match("dispatcher-hook", program, {"sin", "cos", "sin_"}, 3)


@pytest.mark.parametrize("threads", [1, 4])
def test_float64_sine_position_embedding_replays(threads: int) -> None:
    """A DETR-style sine position embedding in float64 (RT-DETR v2's and D-FINE's: a grid's coordinates over
    10000 ** (2 * (arange(d) // 2) / d), then sin and cos of alternate columns) and sin/cos of large, strided and
    special float64 arguments: MKL VML's vmdSin/vmdCos (csrc/dmath.h mkl_vml_sincos_d, its Payne-Hanek branch past
    65536.0035), bit for bit (refused, and passed over, on MKL's Intel paths)."""
    use_threads(threads)

    def program() -> None:
        dim_t = 10000 ** (2 * torch.div(torch.arange(128, dtype=torch.float64), 2, rounding_mode="floor") / 128)
        x = torch.arange(33, dtype=torch.float64).repeat(40)
        pos = (x[:, None] * (2 * math.pi / 33)) / dim_t
        pos[:, 0::2].sin()
        pos[:, 1::2].cos()
        big = torch.tensor([1e5, -3e9, 2.0**1000, float("inf"), float("nan"), -0.0, 65536.5], dtype=torch.float64)
        torch.cat([big, pos.flatten()[:70001]]).sin()
        torch.cat([big, pos.flatten()[:4099]]).cos()

    _replays_match("dispatcher-hook", program, {"sin", "cos"}, 4)


@pytest.mark.parametrize("threads", [1, 4])
def test_erfinv_and_an_inverse_cdf_truncated_normal_replay(threads: int) -> None:
    """erfinv and erfinv_ (MKL VML's vsErfInv, csrc/vmath.h mkl_vml_erfinvf) in the inverse-CDF truncated normal
    of older torch.nn.init.trunc_normal_ (uniform_, erfinv_, mul_, add_, clamp_) on small tensors, Normal.icdf
    (Gemma 3n's activation sparsity), erfinv of a strided slice and of +-1 and past it: the whole chain bit for bit,
    erfinv replayed exactly at least 8 times (on MKL's Intel AVX-512 path refused, and passed over)."""
    use_threads(threads)
    mean, std, a, b = 0.0, 0.02, -0.04, 0.04
    cdf = [(1.0 + math.erf(v / math.sqrt(2.0))) / 2.0 for v in ((a - mean) / std, (b - mean) / std)]

    def program() -> None:
        torch.manual_seed(3)
        for n in (1, 3, 5, 8, 9, 16, 17):
            t = torch.empty(n)
            t.uniform_(2 * cdf[0] - 1, 2 * cdf[1] - 1)
            t.erfinv_()
            t.mul_(std * math.sqrt(2.0))
            t.add_(mean)
            t.clamp_(min=a, max=b)
        torch.distributions.Normal(0.0, 1.0).icdf(torch.tensor([0.95, 0.5, 0.01]))
        torch.erfinv(torch.linspace(-0.99, 0.99, 24)[::3])
        torch.erfinv(torch.tensor([1.0, -1.0, 1.5, float("nan"), 0.0, -0.0]))

    tracer = _traced("dispatcher-hook", program)
    profile = live_profile()
    exact = 0
    for index, op in enumerate(tracer.ops):
        if packet(op.op) not in {"erfinv", "erfinv_", "uniform_", "mul_", "add_", "clamp_"}:
            continue
        cap = tracer.captured[index]
        got = unless_refused(lambda op=op, cap=cap: replay(op.op, cap.inputs, cap.args, profile))
        if got is None:
            continue
        for name, value in got.items():
            assert_bits_equal(f"{op.op} {name} (op {index})", cap.outputs[name], value.reshape(cap.outputs[name].shape))
        exact += packet(op.op) in ("erfinv", "erfinv_")
    if profile.blas in (MODELLED_BLAS, MKL_SSE42, MKL_AVX2):
        assert exact >= 8, exact


@pytest.mark.parametrize("threads", [1, 4])
def test_log2_acos_and_their_backwards_replay(threads: int) -> None:
    """log2 and acos (MKL VML's vsLog2/vsAcos on MKL's generic path, csrc/vmath.h mkl_vml_log2f/acosf) over
    sizes off 4, 8 and 16 lanes and past a 32,768-element grain, a strided view, their in-place forms, NaN
    payloads, +-inf, +-0, subnormals, negatives and |x| > 1; Swin v2's log-spaced relative coordinates
    (``sign(x) * log2(|x| + 1) / log2(8)``) and YOSO's ``1 - acos(u) / pi``, both through autograd, whose
    backwards' ``mul``, ``div`` and ``rsqrt`` are replayed too (acos's ``neg`` has no replay). Refused, and passed
    over, off the generic path."""
    use_threads(threads)
    special = np.array(
        [0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FA00001, 0xFFC0DEAD, 0x3F800001, 0xBF800000],
        np.uint32,
    ).view(np.float32)

    def program() -> None:
        g = torch.Generator().manual_seed(5)
        x = torch.rand(32771, generator=g) * 3 - 1.5
        x[:10] = torch.from_numpy(special)
        torch.log2(x)
        torch.acos(x)
        torch.log2(x[1::3].abs() * 1e6)
        torch.acos(x[:37].clone().clamp_(-1, 1)).log2_()
        torch.exp(x[:1000] * 40).acos_()
        coords = torch.arange(-7, 8, dtype=torch.float32).repeat(3, 1).requires_grad_()
        table = torch.sign(coords) * torch.log2(coords.abs() + 1.0) / np.log2(8)
        table.sum().backward()
        u = (torch.rand(17, 9, generator=g) * 1.98 - 0.99).requires_grad_()
        (1 - torch.acos(u) / np.pi).pow(2).sum().backward()

    _replays_match("dispatcher-hook", program, {"log2", "log2_", "acos", "acos_", "mul", "div", "rsqrt"}, 12)


@backends
@pytest.mark.parametrize("threads", [1, 2])
def test_element_wise_ops_over_mixed_layouts_replay_in_tensor_iterators_loop(backend: str, threads: int) -> None:
    """Element-wise ops whose operands disagree on their layout (harness.trace.loops): a transposed grad
    against a contiguous output (the first operand orders the dims, the other is strided there: the basic
    loop), channels-last against contiguous, a strided grad against a self expanded along one dim (rows
    of 17, self read as a scalar), an expanded vector, a tanh output broadcast along the rows (its
    vector body unfused on x86), a transposed map past the 32,768-element grain, pow of a number to a
    transposed exponent (its contiguous out asked first: the basic loop) and of a transposed base, casts to and
    from float16 and bfloat16 of NaN payloads over transposed, strided and sliced views, and bfloat16 and
    float16 pow (to a number, and to a broadcast tensor)."""
    use_threads(threads)
    rng = np.random.default_rng(threads)

    def t(*shape: int) -> torch.Tensor:
        return torch.from_numpy((rng.standard_normal(shape) * 4).astype(np.float32))

    def program() -> None:
        aten = torch.ops.aten
        aten.sigmoid_backward(t(33, 40).t(), t(40, 33))
        aten.softplus_backward(t(4, 6, 5, 17)[:, ::2], t(1, 1, 5, 1).expand(4, 3, 5, 17), 1.0, 20.0)
        aten.silu_backward(t(2, 5, 6, 7).contiguous(memory_format=torch.channels_last), t(2, 5, 6, 7))
        aten.gelu(t(1).expand(17))
        aten.tanh_backward(t(20, 37), t(20, 1).tanh().expand(20, 37))
        aten.silu(t(70, 521).t())
        aten.pow(2.5, t(40, 17).t())
        aten.pow(t(17, 40).abs().t(), t(40, 1).expand(40, 17))
        # casts of NaN payloads (F16C's, c10's, FBGEMM's bits) and bfloat16 / float16 pow (4 casts feed them)
        nans = torch.from_numpy(np.array([0x7FE00000, 0xFFA00001, 0x7F802000, 0x7FC00000], np.uint32).view(np.float32))
        x = torch.cat([t(33 * 40 - 4).reshape(-1), nans]).reshape(33, 40)
        aten._to_copy(x.t(), dtype=torch.float16)
        aten._to_copy(x[:, ::3], dtype=torch.float16)
        aten._to_copy(x[:, :37], dtype=torch.bfloat16)
        aten._to_copy(x[:, :37].half(), dtype=torch.float32)
        aten.pow(x.to(torch.bfloat16).t(), 1.5)
        aten.pow(x.half()[:, :35].abs(), x[:1, :35].half().expand(33, 35))

    ops = {"sigmoid_backward", "softplus_backward", "silu_backward", "gelu", "tanh_backward", "silu", "pow", "_to_copy"}
    _replays_match(backend, program, ops, 18)


@backends
@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 4), t=st.integers(1, 40), c=st.integers(1, 70), seed=st.integers(0, 2**32 - 1), threads=THREADS)
def test_log_sigmoid_of_a_channel_slice_replays_with_its_nan_places(
    backend: str, n: int, t: int, c: int, seed: int, threads: int
) -> None:
    """log_sigmoid forward (out and buffer) and backward of half the channels of a (N, T, 2C) map
    transposed to (N, 2C, T), a tenth of the inputs and of the gradient NaN: the forward takes the
    input made contiguous, the backward walks the strided operands in TensorIterator's order, which
    decides where a NaN buffer meets a NaN grad."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, t, 2 * c)).astype(np.float32) * 8
    x[rng.random(x.shape) < 0.1] = np.float32(np.nan)
    g = rng.standard_normal((n, c, t)).astype(np.float32)
    g[rng.random(g.shape) < 0.1] = np.float32(np.nan)

    def program() -> None:
        xt = torch.from_numpy(x.copy()).requires_grad_(True)
        F.logsigmoid(xt.transpose(1, 2)[:, c:]).backward(torch.from_numpy(g))

    _replays_match(backend, program, {"log_sigmoid_forward", "log_sigmoid_backward"}, 2)


@backends
@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 4), t=st.integers(1, 40), c=st.integers(1, 70), seed=st.integers(0, 2**32 - 1), threads=THREADS)
def test_leaky_relu_of_a_channel_slice_replays_with_its_nan_places(
    backend: str, n: int, t: int, c: int, seed: int, threads: int
) -> None:
    """leaky_relu forward and backward of half the channels of a (N, T, 2C) map transposed to (N, 2C, T),
    a tenth of the inputs NaN and a tenth of the gradient signalling NaNs: TensorIterator's order over
    the strided operands decides which of those the vector body quiets."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, t, 2 * c)).astype(np.float32) * 8
    x[rng.random(x.shape) < 0.1] = np.float32(np.nan)
    g = rng.standard_normal((n, c, t)).astype(np.float32)
    g[rng.random(g.shape) < 0.1] = np.uint32(0x7F800001).view(np.float32)

    def program() -> None:
        xt = torch.from_numpy(x.copy()).requires_grad_(True)
        F.leaky_relu(xt.transpose(1, 2)[:, c:], 0.2).backward(torch.from_numpy(g))

    _replays_match(backend, program, {"leaky_relu", "leaky_relu_backward"}, 2)


def _specials(rng: np.random.Generator, shape: tuple[int, ...], share: float) -> np.ndarray:
    """Normal draws times 4 with ``share`` of them NaN of both signs and a payload, infinities, signed zeros and
    subnormals."""
    x = rng.standard_normal(shape).astype(np.float32) * 4
    bits = np.array([0x7FC00000, 0xFFC00000, 0x7FC01234, 0x7F800000, 0xFF800000, 0x80000000, 0, 0x00001234],
                    np.uint32)  # fmt: skip
    at = rng.random(shape) < share
    x[at] = bits[rng.integers(0, bits.size, int(at.sum()))].view(np.float32)
    return x


@backends
@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 3), t=st.integers(1, 40), c=st.integers(1, 50), seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(n=1, t=37, c=1, seed=0, threads=1)  # vector bodies and tails of 16 and 32 lanes
def test_elu_selu_and_in_place_elu_replay_with_their_nan_places(
    backend: str, n: int, t: int, c: int, seed: int, threads: int
) -> None:
    """elu, selu and elu_ (is_result) forward and backward of half the channels of a (N, T, 2C) map
    transposed: Vectorized expm1 / exp in the vector body, glibc's in the tails, and a NaN input's
    branch (the backward's NaN in the body, grad * scale in the tails) where TensorIterator's order puts
    it."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = _specials(rng, (n, t, 2 * c), 0.1)
    g = _specials(rng, (n, c, t), 0.1)

    def program() -> None:
        xt = torch.from_numpy(x.copy()).requires_grad_(True)
        view = xt.transpose(1, 2)[:, c:]
        (F.elu(view, 0.7) + F.selu(view)).backward(torch.from_numpy(g))
        F.elu(view * 1.0, inplace=True).backward(torch.from_numpy(g))

    _replays_match(backend, program, {"elu", "elu_", "elu_backward"}, 5)


@backends
@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 3), t=st.integers(1, 40), c=st.integers(1, 50), seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(n=1, t=37, c=1, seed=0, threads=1)
def test_hardswish_and_hardsigmoid_replay_with_their_nan_places(
    backend: str, n: int, t: int, c: int, seed: int, threads: int
) -> None:
    """hardswish and hardsigmoid forward and backward over a transposed channel slice with NaNs: the AVX2
    and AVX-512 objects' all-ones NaN of vec::maximum, the product's NaN by vector of its block of two,
    hardswish's 16 lanes at avx512."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = _specials(rng, (n, t, 2 * c), 0.1)
    g = _specials(rng, (n, c, t), 0.1)

    def program() -> None:
        xt = torch.from_numpy(x.copy()).requires_grad_(True)
        view = xt.transpose(1, 2)[:, c:]
        (F.hardswish(view) + F.hardsigmoid(view)).backward(torch.from_numpy(g))

    ops = {"hardswish", "hardsigmoid", "hardswish_backward", "hardsigmoid_backward"}
    _replays_match(backend, program, ops, 4)


@backends
@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 3), t=st.integers(1, 40), c=st.integers(1, 50), seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(n=1, t=37, c=1, seed=0, threads=1)
def test_minimum_maximum_and_clamp_by_tensors_replay(
    backend: str, n: int, t: int, c: int, seed: int, threads: int
) -> None:
    """maximum, minimum, clamp by two tensors and by one, clamp_min / clamp_max by a tensor, over a
    transposed slice and a broadcast row: NaNs (all ones in the AVX2 / AVX-512 lanes, 0x7fc00000 in the
    tails) and zeros of both signs (the vector body keeps the second, the tail the first)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = _specials(rng, (n, t, 2 * c), 0.15)
    lo, hi = _specials(rng, (n, c, t), 0.15), _specials(rng, (t,), 0.15)

    def program() -> None:
        view = torch.from_numpy(x).transpose(1, 2)[:, c:]
        low, high = torch.from_numpy(lo), torch.from_numpy(hi)
        torch.maximum(view, low), torch.minimum(low, view), torch.clamp(view, low, high)
        torch.clamp(view, max=high), torch.clamp_min(low, high)

    _replays_match(backend, program, {"maximum", "minimum", "clamp", "clamp_min"}, 5)


@backends
@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 3), t=st.integers(1, 40), c=st.integers(1, 50), seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(n=1, t=37, c=1, seed=0, threads=1)
def test_fmod_and_remainder_replay(backend: str, n: int, t: int, c: int, seed: int, threads: int) -> None:
    """fmod and remainder by a transposed slice, a broadcast row and a number, finite operands with zeros
    of both signs and subnormals (SLEEF's fmodf in the vector lanes, glibc's in the tails; remainder keeps
    a -0 mod); the NaN lanes SLEEF's steps leave are refused, so none are drawn."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, t, 2 * c)).astype(np.float32) * 20
    x[rng.random(x.shape) < 0.1] = np.array([0.0, -0.0, 1e-42], np.float32)[rng.integers(0, 3)]
    d = rng.standard_normal((n, c, t)).astype(np.float32) * 3
    d[d == 0] = 1.0
    row = rng.standard_normal(t).astype(np.float32) + 4

    def program() -> None:
        view = torch.from_numpy(x).transpose(1, 2)[:, c:]
        torch.fmod(view, torch.from_numpy(d)), torch.remainder(view, torch.from_numpy(row))
        torch.remainder(torch.from_numpy(d), -1.5), view.fmod(0.75)

    _replays_match(backend, program, {"fmod", "remainder"}, 4)


@backends
@settings(max_examples=4, deadline=None)
@given(shape=st.one_of(SHAPES, st.sampled_from([(3, 33000)])), reduction=st.sampled_from(["mean", "sum", "none"]),
       seed=st.integers(0, 2**32 - 1), threads=THREADS)  # fmt: skip
@example(shape=(3, 33000), reduction="mean", seed=0, threads=4)  # the mean's thread split
def test_mse_loss_and_its_backward_replay(
    backend: str, shape: tuple[int, ...], reduction: str, seed: int, threads: int
) -> None:
    """F.mse_loss (its elements, then the mean's or sum's cascade over them) and its backward, one kind
    of NaN among the inputs (several kinds in one reduction are refused)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, target = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
    x[rng.random(shape) < 0.01] = np.float32(np.nan)

    def program() -> None:
        xt = torch.from_numpy(x).requires_grad_(True)
        loss = F.mse_loss(xt, torch.from_numpy(target), reduction=reduction)
        (loss if reduction != "none" else loss.sum()).backward()

    _replays_match(backend, program, {"mse_loss", "mse_loss_backward"}, 2)


@backends
@settings(max_examples=4, deadline=None)
@given(shape=st.one_of(SHAPES, st.sampled_from([(3, 33000)])), reduction=st.sampled_from(["mean", "sum", "none"]),
       seed=st.integers(0, 2**32 - 1), threads=THREADS)  # fmt: skip
@example(shape=(3, 33000), reduction="mean", seed=0, threads=4)  # the mean's thread split
def test_binary_cross_entropy_and_its_backward_replay(
    backend: str, shape: tuple[int, ...], reduction: str, seed: int, threads: int
) -> None:
    """F.binary_cross_entropy (glibc's log1pf and logf per element, then the mean's or sum's cascade) and its
    backward, probabilities with 0, 1 and logs below -100 among them."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = np.clip(10.0 ** rng.uniform(-60, 0, shape), 0, 1).astype(np.float32)
    x[rng.random(shape) < 0.05] = np.float32(1.0)
    x[rng.random(shape) < 0.05] = np.float32(0.0)
    target = rng.random(shape).astype(np.float32)

    def program() -> None:
        xt = torch.from_numpy(x).requires_grad_(True)
        loss = F.binary_cross_entropy(xt, torch.from_numpy(target), reduction=reduction)
        (loss if reduction != "none" else loss.sum()).backward()

    _replays_match(backend, program, {"binary_cross_entropy", "binary_cross_entropy_backward"}, 2)


@backends
@settings(max_examples=3, deadline=None)
@given(shape=SHAPES, reduction=st.sampled_from(["mean", "sum", "none"]), huber=st.booleans(),
       beta=st.sampled_from([1.0, 0.5, 0.1]), seed=st.integers(0, 2**32 - 1), threads=THREADS)  # fmt: skip
@example(shape=(12, 39), reduction="none", huber=True, beta=1.0, seed=1, threads=1)  # NaN grads in the tail
def test_smooth_l1_and_huber_loss_and_their_backwards_replay(
    backend: str, shape: tuple[int, ...], reduction: str, huber: bool, beta: float, seed: int, threads: int
) -> None:
    """F.smooth_l1_loss / F.huber_loss and their backwards: the backward's vector body and scalar tail
    differ (the double beta, and GCC's SSE blocks of the tail flip a NaN grad's sign)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, target = (rng.standard_normal(shape).astype(np.float32) * 2 for _ in range(2))
    weight = rng.standard_normal(shape).astype(np.float32)
    weight[rng.random(shape) < 0.2] = -np.float32(np.nan)

    def program() -> None:
        xt = torch.from_numpy(x).requires_grad_(True)
        loss_fn = F.huber_loss if huber else F.smooth_l1_loss
        kw = {"delta": beta} if huber else {"beta": beta}
        loss = loss_fn(xt, torch.from_numpy(target), reduction=reduction, **kw)
        (loss if reduction != "none" else (loss * torch.from_numpy(weight)).sum()).backward()

    name = "huber_loss" if huber else "smooth_l1_loss"
    _replays_match(backend, program, {name, f"{name}_backward"}, 2)


@backends
def test_exponential_replay(backend: str) -> None:
    """exponential_ (PhiMoE's router jitter): two draws in a row, one off the 8/16 lanes, one past the grain."""

    def program() -> None:
        torch.manual_seed(7)
        torch.empty(3, 13).exponential_(2.0), torch.empty(40000).exponential_()

    _replays_match(backend, program, {"exponential_"}, 2)


@pytest.mark.parametrize("threads", [1, 4])
def test_atanh_and_its_backward_replay(threads: int) -> None:
    """torch.atanh and atanh_ (SLEEF's atanhf in the vector body, glibc's in the tail and over a strided
    view; past the grain, so each thread's chunk has a tail of its own at 4 threads) and atanh's backward
    (grad / (1 - x^2): pow, rsub, div), over NaN payloads of both signs, infinities, +-1, subnormals and -0."""
    use_threads(threads)
    x = np.random.default_rng(threads).uniform(-1.2, 1.2, 70001).astype(np.float32)
    x[:12] = [np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 0.0, -0.0, 1e-41, -1e-41, 2.0, 0.4999]
    x[12:14] = np.array([0x7FA00001, 0xFF812345], np.uint32).view(np.float32)

    def program() -> None:
        t = torch.from_numpy(x)
        torch.atanh(t), torch.atanh(t[:301].view(7, 43).t()), t[:999].clone().atanh_()
        y = t[100:1100].clone().requires_grad_(True)
        torch.atanh(y).backward(torch.full_like(y, 0.5))

    _replays_match("dispatcher-hook", program, {"atanh", "atanh_", "pow", "sub_", "div", "mul"}, 7)


@needs_modelled_vml
@pytest.mark.parametrize("threads", [1, 4])
def test_windows_and_polar_replay(threads: int) -> None:
    """torch.hann_window (arange, a product, MKL VML's cos, a product and a sum), torch.kaiser_window (i0 in
    float with glibc's expf, contracted in the AVX2 object) and torch.polar (glibc's sincosf times abs, the
    sincosf NaN first; a broadcast abs) over NaN payloads, infinities, -0 and subnormals."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    r, theta = (rng.standard_normal(40000).astype(np.float32) * 5 for _ in range(2))
    r[:6], theta[:6] = [np.nan, 1.0, np.inf, -0.0, 1e-41, np.nan], [1.0, -np.nan, 0.5, -0.0, 3e38, np.inf]

    def program() -> None:
        torch.hann_window(400), torch.hann_window(2049, periodic=False), torch.hann_window(1)
        torch.kaiser_window(16), torch.kaiser_window(4097, False, 14.0), torch.kaiser_window(9, True, 3.5)
        torch.polar(torch.from_numpy(r), torch.from_numpy(theta))
        torch.polar(torch.from_numpy(r[:1]), torch.from_numpy(theta[::3]))

    _replays_match("dispatcher-hook", program, {"hann_window", "kaiser_window", "polar"}, 8)


@backends
def test_sinc_replay(backend: str) -> None:
    """torch.sinc (NeuCodec): glibc's sinf of pi * x in float, over zeros, NaNs, infinities and a column view."""
    x = np.random.default_rng(3).standard_normal((9, 21)).astype(np.float32) * 4
    x[0, :6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-41]

    def program() -> None:
        t = torch.from_numpy(x)
        torch.sinc(t), torch.sinc(t.t()[3:])

    _replays_match(backend, program, {"sinc"}, 2)


@backends
@settings(max_examples=2, deadline=None)
@given(b=st.integers(1, 6), t=st.integers(1, 20), c=st.integers(2, 9), seed=st.integers(0, 2**32 - 1),
       reduction=st.sampled_from(["mean", "sum", "none"]), threads=st.integers(1, 4))  # fmt: skip
@example(b=5, t=9, c=6, seed=3, reduction="mean", threads=2)
def test_ctc_loss_and_its_backward_replay(
    backend: str, b: int, t: int, c: int, seed: int, reduction: str, threads: int
) -> None:
    """F.ctc_loss (LossCTC.cpp's alpha recursion with glibc's expf and logf) and its backward (beta, the
    collected alpha + beta, exp(lp) - exp(ab + nll - lp)): a blank other than 0, targets with repeated
    labels and of length 0, input lengths below T, -inf log-probabilities, an impossible alignment (an
    infinite loss, zeroed or not), two NaNs meeting (the compiled kernel's operand order). On aarch64 its NaN
    results are refused (measured there without NaNs: tests/test_impl_arm64_pointwise.py)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    lp = torch.from_numpy(rng.standard_normal((t, b, c)).astype(np.float32) * 3).log_softmax(2)
    lp[torch.from_numpy(rng.random((t, b, c)) < 0.1)] = float("-inf")
    blank = int(rng.integers(0, c))
    label = (blank + 1) % c
    target_lengths = [int(n) for n in rng.integers(0, 4, b)]
    target_lengths[0] = min(2, t)  # the same label twice: the blank between them is needed
    drawn = torch.from_numpy(rng.integers(0, c - 1, (b, 4)))
    targets = drawn + (drawn >= blank).long()  # labels other than the blank
    targets[0, :2] = label
    input_lengths = [int(n) for n in rng.integers(0, t + 1, b)]
    input_lengths[0] = input_lengths[-1] = t
    # two NaNs meet in element 0's alpha at t = 1: libtorch's sum keeps the second exponential's (the blank's)
    lp[0, 0, blank], lp[0, 0, label] = torch.from_numpy(np.array([0x7FC00001, 0xFFC00002], np.uint32).view(np.float32))
    if b > 1:  # impossible: a target longer than its input
        target_lengths[1], input_lengths[1] = 3, min(input_lengths[1], 2)

    def program() -> None:
        for zero_infinity in (False, True):
            x = lp.clone().requires_grad_(True)
            loss = F.ctc_loss(x, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
            (loss if reduction != "none" else loss.sum()).backward()

    if live_profile().aarch64:
        with pytest.raises(ParityError, match="measured on x86 only"):
            _replays_match(backend, program, {"_ctc_loss", "_ctc_loss_backward"}, 4)
        return
    _replays_match(backend, program, {"_ctc_loss", "_ctc_loss_backward"}, 4)


@needs_modelled_vml  # logsumexp's exp and log are VML's on x86
@backends
@settings(max_examples=6, deadline=None)
@given(b=st.integers(1, 3), m=st.integers(1, 40), n=st.integers(1, 70), seed=st.integers(0, 2**32 - 1), threads=THREADS)
def test_log_space_sinkhorn_replays_its_logsumexps(
    backend: str, b: int, m: int, n: int, seed: int, threads: int
) -> None:
    """SuperGlue's log-space Sinkhorn: scores with a dustbin row and column, three rounds of logsumexp over
    the rows and over the columns of a fresh (contiguous) sum, a tenth of the scores masked to float32's
    lowest; and a transposed view's logsumexp, which the impl refuses in one line."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal((b, m + 1, n + 1)).astype(np.float32) * 3
    scores[rng.random(scores.shape) < 0.1] = np.finfo(np.float32).min  # SuperGlue's masked_fill

    def program() -> None:
        cost = torch.from_numpy(scores.copy()).requires_grad_(True)
        u, v = torch.zeros(b, m + 1), torch.zeros(b, n + 1)
        for _ in range(3):
            u = -torch.logsumexp(cost + v.unsqueeze(1), dim=2)
            v = -torch.logsumexp(cost + u.unsqueeze(2), dim=1, keepdim=True).squeeze(1)
        (cost + u.unsqueeze(2) + v.unsqueeze(1)).clamp(min=-50).sum().backward()

    _replays_match(backend, program, {"logsumexp"}, 6)
    with recording(capture=list(range(8))) as tracer:
        torch.logsumexp(torch.from_numpy(scores[0].copy()).t(), dim=0)
    index = next(i for i, op in enumerate(tracer.ops) if packet(op.op) == "logsumexp")
    cap = tracer.captured[index]
    with pytest.raises(ParityError, match="C-contiguous tensors only"):
        replay(tracer.ops[index].op, cap.inputs, cap.args, live_profile())


@backends
@settings(max_examples=6, deadline=None)
@given(shape=st.one_of(SHAPES, st.sampled_from([(768, 64), (3, 11, 1000)])), seed=st.integers(0, 2**32 - 1))
def test_initialisers_replay_from_the_captured_generator_state(backend: str, shape: tuple[int, ...], seed: int) -> None:
    """uniform_, normal_ and randn of any size, as nn.init and model code call them; trunc_normal_'s
    redraws included."""

    def program() -> None:
        torch.manual_seed(seed)
        w = torch.empty(shape)
        if len(shape) >= 2:
            torch.nn.init.kaiming_uniform_(w, a=5**0.5)
            torch.nn.init.xavier_normal_(w)
        torch.nn.init.uniform_(w, -0.1, 0.3)
        torch.nn.init.trunc_normal_(w, std=1.0, a=-0.5)
        torch.nn.init.normal_(w, std=0.02)
        torch.randn(shape)

    _replays_match(backend, program, {"uniform_", "normal_", "randn"}, 4)


@needs_modelled_vml  # log, exp and tanh are VML's on x86
@backends
@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 3000), threads=st.integers(1, 2))
def test_unary_ops_of_integer_tensors_replay(backend: str, n: int, threads: int) -> None:
    """Jamba initialises its state matrix as ``log(arange(1, N + 1))`` of an int64 tensor: ATen casts the
    integers to the float32 result first, and the replay does so too."""
    use_threads(threads)

    def program() -> None:
        ramp = torch.arange(1, n + 1)
        torch.log(ramp)
        torch.exp(ramp % 40 - 20)
        torch.tanh(ramp % 7 - 3)

    _replays_match(backend, program, {"log", "exp", "tanh"}, 3)


# (op, scales of x, x's first elements: the edges of its domain)
SLEEF_UNARY = {
    "log1p": ([1e-3, 1.0, 100.0, 1e30], [-1.0, float("inf"), -1.5]),
    "lgamma": ([1e-3, 1.0, 10.0, 1e30], [-3.0, float("inf"), -2.5, -0.0, float("-inf")]),
    "expm1": ([1e-4, 1.0, 10.0, 40.0], [-0.0, float("inf"), 88.72283, 88.722839, -16.635532, float("-inf")]),
}


@backends
@pytest.mark.parametrize("op", sorted(SLEEF_UNARY))
@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 5000), scale=st.integers(0, 3), seed=st.integers(0, 2**32 - 1), threads=st.integers(1, 2))
@example(n=19, scale=1, seed=0, threads=1)  # 16 in two vectors, 3 past them: SLEEF's lanes still
def test_sleef_unary_ops_replay(backend: str, op: str, n: int, scale: int, seed: int, threads: int) -> None:
    """Informer's Student-t likelihood runs ``log1p`` and ``lgamma``, Zamba2's time-step initialisation
    ``expm1`` (each also in place): ATen maps Vectorized's op over every element (SLEEF's at AVX2, the
    C library's in the default build), those past the last whole vector too, a strided view copied in
    chunks and mapped alike; the domain's edges (expm1: both sides of SLEEF's +inf and -1 bounds),
    infinities and NaNs included (at AVX-512 the ops' AVX-512 objects: SLEEF's AVX-512 variants, the AVX2 bits but
    for log1p's NaN)."""
    use_threads(threads)
    scales, edges = SLEEF_UNARY[op]
    rng = np.random.default_rng(seed)
    x = torch.from_numpy((rng.standard_normal(n) * scales[scale]).astype(np.float32))
    x[:: max(1, n // 4)] = float("nan")
    x[: min(n, len(edges))] = torch.tensor(edges)[: min(n, len(edges))]

    def program() -> None:
        getattr(torch, op)(x)
        getattr(torch, op)(x[::2])
        getattr(x.clone(), f"{op}_")()

    _replays_match(backend, program, {op, f"{op}_"}, 3)


@backends
@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 5000), scale=st.integers(0, 3), seed=st.integers(0, 2**32 - 1), threads=st.integers(1, 4))
@example(n=19, scale=1, seed=0, threads=1)
def test_digamma_and_the_lgamma_backward_replay(backend: str, n: int, scale: int, seed: int, threads: int) -> None:
    """The Time Series Transformer's negative binomial likelihood runs ``lgamma``, whose backward is
    ``digamma`` then ``mul``: ATen's calc_digamma per element (negatives reflected, the asymptotic series'
    Horner step contracted in the AVX2 object only), whole, strided and in place, with poles, zeros,
    infinities and NaNs. Measured on x86 only (avx512 runs the avx2 object): elsewhere refused."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(n) * [1.0, 3.0, 20.0, 1e6][scale] + [0.0, 1.46, 5.0, 0.0][scale]
    x = torch.from_numpy(values.astype(np.float32))
    x[:: max(1, n // 4)] = float("nan")
    edges = [0.0, -0.0, -3.0, float("inf"), float("-inf"), 10.0, 1.513097]
    x[: min(n, len(edges))] = torch.tensor(edges)[: min(n, len(edges))]
    counts = torch.from_numpy(rng.poisson(3.0, n).astype(np.float32))

    def program() -> None:
        torch.digamma(x)
        torch.digamma(x[::2])
        x.clone().digamma_()
        total = (x.abs() + 0.5).requires_grad_(True)
        torch.lgamma(total + counts).sum().backward()  # the backward's digamma

    if live_profile().aten in ("default", "avx2", "avx512"):
        _replays_match(backend, program, {"digamma", "digamma_"}, 4)
        return
    with pytest.raises(ParityError, match="builds only, not "):
        _replays_match(backend, program, {"digamma", "digamma_"}, 4)


def test_a_replay_of_operands_the_impl_does_not_take_is_refused_in_one_line() -> None:
    """A float64 input, which no kernel of the impl takes: a ParityError naming it, not a traceback."""
    from harness.core.errors import ParityError

    x = torch.ones(3, dtype=torch.float64) * 2
    with recording(capture=[0]) as tracer:
        torch.log(x)
    cap = tracer.captured[0]
    assert tracer.ops[0].op == "aten.log.default"
    with pytest.raises(ParityError, match=r"float32 \(or integer\) tensors only, not float64"):
        replay(tracer.ops[0].op, cap.inputs, cap.args, live_profile())


@backends
@settings(max_examples=6, deadline=None)
@given(rows=st.integers(1, 40), n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1), threads=st.integers(1, 2))
def test_layer_norm_without_weight_or_bias_replays(backend: str, rows: int, n: int, seed: int, threads: int) -> None:
    """``nn.LayerNorm(bias=False)`` (ModernBERT), a bias alone, and neither (``elementwise_affine=False``):
    ATen's scalar loop, whose unswitched forms the impl models (a constant row included: its -0 products
    come out +0), and their backward (without a weight ATen's own branch, asked for no weight gradient)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((rows, n)).astype(np.float32) * 3)
    x[0] = 1.5  # a constant row: x - mean is 0
    w = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).requires_grad_()
    b = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).requires_grad_()
    dy = torch.from_numpy(rng.standard_normal((rows, n)).astype(np.float32))

    def program() -> None:
        for weight, bias in ((w, None), (None, b), (None, None)):
            F.layer_norm(x.requires_grad_(), (n,), weight, bias).backward(dy)

    _replays_match(backend, program, {"native_layer_norm", "native_layer_norm_backward"}, 6)


@backends
@settings(max_examples=4, deadline=None)
@given(
    n=st.integers(1, 4),
    c_g=st.sampled_from([(12, 1), (32, 4), (6, 3), (20, 2)]),
    hw=st.sampled_from([(1, 1), (5, 7), (16, 16), (3, 50)]),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_group_norm_replays(backend: str, n: int, c_g: tuple, hw: tuple, seed: int, threads: int) -> None:
    """nn.GroupNorm (affine and not): aten.native_group_norm and its backward, contiguous NCHW."""
    _group_norm_replays(backend, n, c_g, hw, seed, threads, torch.contiguous_format)


def _group_norm_replays(
    backend: str, n: int, c_g: tuple, hw: tuple, seed: int, threads: int, layout: torch.memory_format
) -> None:
    """nn.GroupNorm, affine and not, on x and dy of ``layout``, forward and backward: every
    native_group_norm and its backward replays."""
    use_threads(threads)
    c, groups = c_g
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, c, *hw)).astype(np.float32) * 2 + 0.5)
    dy = torch.from_numpy(rng.standard_normal((n, c, *hw)).astype(np.float32))
    x, dy = x.contiguous(memory_format=layout), dy.contiguous(memory_format=layout)
    affine = torch.nn.GroupNorm(groups, c)
    with torch.no_grad():
        affine.weight.copy_(torch.from_numpy(rng.standard_normal(c).astype(np.float32)))
        affine.bias.copy_(torch.from_numpy(rng.standard_normal(c).astype(np.float32)))
    plain = torch.nn.GroupNorm(groups, c, affine=False)

    def program() -> None:
        for layer in (affine, plain):
            layer(x.requires_grad_()).backward(dy)

    _replays_match(backend, program, {"native_group_norm", "native_group_norm_backward"}, 4)


@backends
@settings(max_examples=2, deadline=None)
@given(
    n=st.integers(1, 3),
    c_g=st.sampled_from([(12, 4), (32, 8), (6, 3), (20, 2), (9, 1)]),
    hw=st.sampled_from([(5, 7), (1, 1), (3, 50), (32, 40), (48, 48)]),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
@example(n=2, c_g=(32, 8), hw=(5, 7), seed=0, threads=1)
@example(n=1, c_g=(20, 2), hw=(48, 48), seed=1, threads=2)
def test_group_norm_channels_last_replays(backend: str, n: int, c_g: tuple, hw: tuple, seed: int, threads: int) -> None:
    """nn.GroupNorm (affine and not) on channels-last activations, as in diffusion UNets: ATen's channels-last
    kernels (a group at a time, or per-thread sums past 1024 and 2048 pixels); a (N, C, 1, 1) map stays
    NCHW in memory, and so in ATen."""
    _group_norm_replays(backend, n, c_g, hw, seed, threads, torch.channels_last)


def test_a_random_op_on_a_strided_tensor_is_refused() -> None:
    """ATen fills a non-contiguous tensor element by element (normal_: with its scalar sampler): not
    what the impl draws, so the replay says so instead of giving other bits."""
    from harness.core.errors import ParityError

    torch.manual_seed(3)
    w = torch.empty(40, 30).t()
    with recording(capture=[0]) as tracer:
        w.normal_()
    cap = tracer.captured[0]
    assert tracer.ops[0].op == "aten.normal_.default"
    with pytest.raises(ParityError, match="contiguous"):
        replay(tracer.ops[0].op, cap.inputs, cap.args, live_profile())


def test_mul_of_complex_spectra_replays() -> None:
    """Autoformer's autocorrelation multiplies two spectra (complex64, captured as float32 (re, im) pairs):
    the impl's mul of real tensors gave 1,513 of 1,664 elements other bits; now ATen's complex product
    (``complex_mul``) replays bit for bit, as the real product does."""
    rng = np.random.default_rng(8)
    q, k = (torch.from_numpy(rng.standard_normal((4, 13, 8)).astype(np.float32)) for _ in range(2))
    with recording(capture=list(range(20))) as tracer:
        _ = torch.fft.rfft(q, dim=1) * torch.fft.rfft(k, dim=1)
        _ = q * k
    muls = [i for i, op in enumerate(tracer.ops) if packet(op.op) == "mul"]
    assert len(muls) == 2
    for index in muls:
        op, cap = tracer.ops[index], tracer.captured[index]
        got = replay(op.op, cap.inputs, cap.args, live_profile())["out"]
        assert_bits_equal("mul", cap.outputs["out"], got.reshape(cap.outputs["out"].shape))


@pytest.mark.parametrize("threads", [1, 2])
def test_add_of_a_bool_mask_scaled_by_alpha_replays(threads: int) -> None:
    """PhiMoE's router, ``torch.add(0.3333, mask, alpha=0.6667)``, and a float32 tensor (NaN, infinities,
    -0, denormals) plus alpha times a mask: alpha times a bool is exact, so ATen's fused multiply-add and
    the plain sum round alike. The impl had refused both (alpha 1 only)."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    x = rng.standard_normal(33000).astype(np.float32)
    x[:6] = [np.nan, np.inf, -np.inf, -0.0, 1e-40, -3e38]
    mask, small = torch.from_numpy(rng.random(33000) < 0.5), torch.from_numpy(rng.random(77) < 0.5)
    xt = torch.from_numpy(x)
    with recording(capture=[0, 1]) as tracer:
        torch.add(0.3333, small, alpha=0.6667)
        torch.add(xt, mask, alpha=-1.7)
    for index in (0, 1):
        op, cap = tracer.ops[index], tracer.captured[index]
        assert op.op == "aten.add.Tensor", op.op
        got = replay(op.op, cap.inputs, cap.args, live_profile())["out"]
        assert_bits_equal(f"add (op {index})", cap.outputs["out"], got.reshape(cap.outputs["out"].shape))


def test_remainder_and_clamp_of_integer_tensors_replay() -> None:
    """NeuCodec's ``remainder`` of int64 positions by an int32 tensor and Wav2Vec2-BERT's ``clamp`` of
    int64 relative distances by ints: exact integer arithmetic (the floored remainder, negative operands
    and the dtype's extremes included), which the impl had refused (float32 only)."""
    rng = np.random.default_rng(5)
    a = torch.from_numpy(np.concatenate([rng.integers(-300, 300, 61), [2**63 - 1, -(2**63), 0]]))
    b = torch.from_numpy(rng.choice(np.array([-7, -3, 2, 5, 2**31 - 1, -(2**31)], np.int32), 64))
    with recording(capture=[0, 1, 2]) as tracer:
        torch.remainder(a, b)
        torch.clamp(a, min=-64, max=8)
        torch.clamp(a, max=-5)
    for index in (0, 1, 2):
        op, cap = tracer.ops[index], tracer.captured[index]
        got = replay(op.op, cap.inputs, cap.args, live_profile())["out"]
        assert got.dtype == np.int64 and np.array_equal(got, cap.outputs["out"]), op.op


@pytest.mark.parametrize("threads", [1, 4])
def test_glu_backward_of_a_transposed_gradient_replays(threads: int) -> None:
    """Wav2Vec2-BERT's adapter: glu's backward with grad_output transposed back (strides [640, 1, 32]).
    Its strides move no bit of the finite elements (the impl had refused any strided grad_output); a NaN
    meeting another NaN there is refused (its loop keeps another operand's NaN than the contiguous one)."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    x = torch.from_numpy(rng.standard_normal((4, 64, 20)).astype(np.float32) * 3)
    g = torch.from_numpy(rng.standard_normal((4, 20, 32)).astype(np.float32)).transpose(1, 2)
    nan_x = x.clone()
    nan_x[1, 3, 5] = nan_x[1, 35, 5] = float("nan")
    with recording(capture=[0, 1]) as tracer:
        torch.ops.aten.glu_backward(g, x, 1)
        torch.ops.aten.glu_backward(g, nan_x, 1)
    op, cap = tracer.ops[0], tracer.captured[0]
    assert_bits_equal("glu_backward", cap.outputs["out"], replay(op.op, cap.inputs, cap.args, live_profile())["out"])
    op, cap = tracer.ops[1], tracer.captured[1]
    with pytest.raises(ParityError, match="a NaN meeting another NaN"):
        replay(op.op, cap.inputs, cap.args, live_profile())


def test_batch_norm_backward_of_one_pixel_suggesting_channels_last_replays() -> None:
    """UperNet's pyramid pooling: a channels-last map pooled to (2, 16, 1, 1) keeps strides (16, 1, 16, 16),
    both contiguous and channels-last but suggesting channels-last, and its batch norm's backward (grad_out
    contiguous, suggesting contiguous) takes ATen's TensorIterator path (grad_weight 2 of 16 elements other
    bits at 8 threads under either kernel's model): it replays bit for bit, as the same input of contiguous
    strides does (the kernels' path)."""
    rng = np.random.default_rng(7)
    x = torch.from_numpy(rng.standard_normal((2, 16, 4, 4)).astype(np.float32))
    strided = F.adaptive_avg_pool2d(x.contiguous(memory_format=torch.channels_last), 1)
    for pooled, stride in ((strided, [16, 1, 16, 16]), (strided.clone(memory_format=torch.contiguous_format), None)):
        leaf = pooled.detach().requires_grad_()
        w, b = torch.ones(16, requires_grad=True), torch.zeros(16, requires_grad=True)
        with recording(capture=list(range(40))) as tracer:
            F.batch_norm(leaf, None, None, w, b, training=True).backward(torch.ones(2, 16, 1, 1))
        index = next(i for i, op in enumerate(tracer.ops) if packet(op.op) == "native_batch_norm_backward")
        op, cap = tracer.ops[index], tracer.captured[index]
        if stride:
            assert [a["stride"] for a in cap.args if a["name"] == "input"] == [stride]
        got = replay(op.op, cap.inputs, cap.args, live_profile())
        for name, value in got.items():
            assert_bits_equal(f"{name}", cap.outputs[name], value)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_norm_1d_over_a_transposed_sequence_replays(threads: int) -> None:
    """PatchTST, PatchTSMixer, SuperGlue and SpeechT5 run nn.BatchNorm1d over ``x.transpose(1, 2)`` of a
    (B, L, C) sequence: (B, C, L) of strides (L*C, 1, C), neither contiguous nor channels-last, so ATen takes
    Normalization.cpp's TensorIterator path, forward and backward; traced, both replay bit for bit."""
    use_threads(threads)
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    bn = torch.nn.BatchNorm1d(19)
    with torch.no_grad():
        bn.weight.copy_(torch.from_numpy((1 + 0.1 * rng.standard_normal(19)).astype(np.float32)))
        bn.bias.copy_(torch.from_numpy((0.1 * rng.standard_normal(19)).astype(np.float32)))
    seq = torch.from_numpy((rng.standard_normal((3, 37, 19)) * 2 + 0.5).astype(np.float32))

    def program() -> None:
        leaf = seq.clone().requires_grad_(True)
        (bn(leaf.transpose(1, 2)).transpose(1, 2) ** 2).sum().backward()

    tracer = _traced("dispatcher-hook", program)
    profile = live_profile()
    seen = set()
    for index, op in enumerate(tracer.ops):
        name = packet(op.op)
        if "batch_norm" not in name or index not in tracer.captured:
            continue
        cap = tracer.captured[index]
        if name != "native_batch_norm_backward":
            assert [a["stride"] for a in cap.args if a["name"] == "input"] == [[37 * 19, 1, 19]]
        for key, value in replay(op.op, cap.inputs, cap.args, profile).items():
            assert_bits_equal(f"{op.op} {key}", cap.outputs[key], value.reshape(cap.outputs[key].shape))
        seen.add(name)
    assert len(seen) == 2, seen


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_of_a_view_with_rows_apart_replays(approximate: str) -> None:
    """wav2vec2's positional convolution cut by its last column: gelu over (4, 32, 39) of strides
    (1280, 40, 1) runs ATen's GeluKernelImpl in rows of 39 (oneDNN's eltwise takes contiguous input
    only; each row a vector body and a scalar tail), its backward against grad_output (1248, 1, 32) the
    basic loop (the scalar lambda throughout); NaN, +-inf and -0 among the values, in bodies and tails.
    Replayed bit for bit, as the contiguous tensor's gelu."""
    rng = np.random.default_rng(5)
    values = rng.standard_normal((4, 32, 40)).astype(np.float32) * 3
    values[0, :6, 0], values[1, :6, 38] = (
        [np.nan, -np.inf, np.inf, -0.0, -np.nan, 1e-40],
        [np.nan, -np.inf, np.inf, -0.0, -np.nan, 9.0],
    )
    base = torch.from_numpy(values)
    grads = (torch.ones(4, 39, 32).transpose(1, 2), torch.ones(4, 32, 39))  # wav2vec2's, and contiguous
    for view, grad in ((base[..., :-1], grads[0]), (base[..., :-1].contiguous(), grads[1])):
        x = view.detach().requires_grad_()

        def program(x: torch.Tensor = x, grad: torch.Tensor = grad) -> None:
            F.gelu(x, approximate=approximate).backward(grad)

        with recording(capture=list(range(40))) as tracer:
            program()
        ops = [(i, op) for i, op in enumerate(tracer.ops) if packet(op.op) in ("gelu", "gelu_backward")]
        assert [packet(op.op) for _, op in ops] == ["gelu", "gelu_backward"]
        for i, op in ops:
            cap = tracer.captured[i]
            got = replay(op.op, cap.inputs, cap.args, live_profile())
            assert_bits_equal(f"{op.op} out", cap.outputs["out"], got["out"])


@backends
@settings(max_examples=6, deadline=None)
@given(
    b=st.integers(1, 2),
    heads=st.integers(1, 3),
    t=st.integers(1, 40),
    d=st.sampled_from([8, 16, 24]),
    seed=st.integers(0, 2**32 - 1),
    threads=THREADS,
)
def test_masked_attention_replays(backend: str, b: int, heads: int, t: int, d: int, seed: int, threads: int) -> None:
    """SDPA's math path with a boolean mask that masks whole queries (``_safe_softmax``, its backward
    ``_softmax_backward_data``), and a mask applied by hand as models write it (``masked_fill`` with
    ``-inf``, ``torch.where``)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    q = torch.from_numpy(rng.standard_normal((b, heads, t, d)).astype(np.float32))
    mask = torch.from_numpy(rng.random((t, t)) < 0.7) & torch.ones(t, t, dtype=torch.bool).tril()
    mask[rng.integers(0, t)] = False

    def program() -> None:
        qt = q.clone().requires_grad_(True)
        torch.manual_seed(seed)
        out = F.scaled_dot_product_attention(qt, qt, qt, attn_mask=mask, dropout_p=0.2)
        scores = (qt @ qt.transpose(-2, -1)).masked_fill(~mask, float("-inf"))
        kept = torch.where(mask, scores, torch.zeros(()))
        (out.sum() + torch.softmax(scores, -1).sum() + kept.sum()).backward()

    _replays_match(backend, program, {"_safe_softmax", "_softmax_backward_data", "masked_fill", "where"}, 4)


@needs_modelled_sgemm  # small convolutions run ATen's im2col and MKL's sgemm
@backends
@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1, 4),
    c=st.integers(1, 20),
    o=st.integers(1, 36),
    w=st.integers(4, 60),
    k=st.integers(1, 10),
    stride=st.integers(1, 5),
    padding=st.integers(0, 3),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_one_dimensional_convolution_replays(
    backend: str, n: int, c: int, o: int, w: int, k: int, stride: int, padding: int, bias: bool, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """``nn.Conv1d`` (Whisper's and Wav2Vec2's front ends): ATen runs it as the 2-D convolution of
    (N, C, 1, W) with stride (1, s) and padding (0, p), forward and every gradient."""
    k = min(k, w + 2 * padding)
    layer = torch.nn.Conv1d(c, o, k, stride=stride, padding=padding, bias=bias)
    refused = _ip_convolution((n, c, 1, w), (o, c, 1, k), (1, stride), (0, padding))
    _convolution_replays(backend, layer, (n, c, w), seed, threads, refused)


@needs_modelled_sgemm  # slow_conv_transpose2d runs MKL's sgemm
@backends
@settings(max_examples=6, deadline=None)
@given(
    dims=st.integers(1, 2),
    n=st.integers(1, 3),
    c=st.sampled_from([1, 3, 8, 16]),
    o=st.sampled_from([1, 3, 4, 8, 16]),
    size=st.integers(1, 9),
    k=st.integers(1, 4),
    stride=st.integers(1, 2),
    padding=st.integers(0, 3),
    output_padding=st.integers(0, 1),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
@example(dims=2, n=2, c=8, o=8, size=5, k=3, stride=2, padding=1, output_padding=1, bias=True, seed=0, threads=1)
@example(dims=1, n=1, c=3, o=4, size=7, k=2, stride=1, padding=0, output_padding=0, bias=True, seed=1, threads=1)
@example(dims=2, n=2, c=3, o=4, size=4, k=3, stride=1, padding=1, output_padding=0, bias=True, seed=2, threads=2)
@example(dims=1, n=3, c=3, o=3, size=9, k=3, stride=1, padding=0, output_padding=0, bias=True, seed=3, threads=1)
# ViTPose's classic decoder (zoo/vitpose.py): kernel 4, stride 2, padding 1, no bias, on 1 and 2 threads
@example(dims=2, n=2, c=32, o=16, size=4, k=4, stride=2, padding=1, output_padding=0, bias=False, seed=4, threads=1)
@example(dims=2, n=2, c=16, o=16, size=8, k=4, stride=2, padding=1, output_padding=0, bias=False, seed=5, threads=2)
def test_transposed_convolution_replays(
    backend: str, dims: int, n: int, c: int, o: int, size: int, k: int, stride: int, padding: int,
    output_padding: int, bias: bool, seed: int, threads: int,
) -> None:  # fmt: skip
    """``nn.ConvTranspose2d`` and ``nn.ConvTranspose1d`` (decoders, GAN generators, EnCodec's upsampling):
    ATen's slow_conv_transpose2d or oneDNN's deconvolution (the adjoint convolution's kernels), forward
    and every gradient; a 1-D one as 2-D over rows of height 1; grad_bias per image over a plain-layout
    grad_output (3 output channels: jit:avx2's flat input; gemm:jit), one chain over a blocked one. Where
    the impl refuses a pass the replay must raise that refusal."""
    from harness.impl import conv_transpose

    padding, output_padding = min(padding, k - 1), min(output_padding, stride - 1)
    layer_type = torch.nn.ConvTranspose1d if dims == 1 else torch.nn.ConvTranspose2d
    layer = layer_type(c, o, k, stride=stride, padding=padding, output_padding=output_padding, bias=bias)
    x_shape = (n, c, size) if dims == 1 else (n, c, size, size)
    x4, w4 = (n, c, 1 if dims == 1 else size, size), (c, o, 1 if dims == 1 else k, k)
    pair = (lambda v: (0, v)) if dims == 1 else (lambda v: (v, v))
    stride2 = (1, stride) if dims == 1 else (stride, stride)
    out = [(s - 1) * stride - 2 * padding + k + output_padding for s in x_shape[2:]]
    assume(min(out) >= 1)
    use_threads(threads)
    why = conv_transpose.refusals(x4, w4, stride2, pair(padding), pair(output_padding), live_profile())
    _transposed_replays(backend, layer, x_shape, why, bias, seed)


def _transposed_replays(
    backend: str, layer: torch.nn.Module, x_shape: tuple[int, ...], why: tuple, bias: bool, seed: int
) -> None:
    """Trace ``layer``'s forward and backward on a random input; replay its convolution and
    convolution_backward: bit for bit, or the refusal ``why`` names for the pass (forward, grad_input,
    grad_weight, grad_bias)."""
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal(x_shape).astype(np.float32))

    def program() -> None:
        y = layer(x.clone().requires_grad_(True))
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    tracer = _traced(backend, program)
    seen = 0
    for index, op in enumerate(tracer.ops):
        if packet(op.op) not in ("convolution", "convolution_backward"):
            continue
        seen += 1
        cap = tracer.captured[index]
        refusal = why[0] if packet(op.op) == "convolution" else why[1] or why[2] or (why[3] if bias else None)
        if refusal is not None:
            with pytest.raises(ParityError, match=re.escape(refusal)):
                replay(op.op, cap.inputs, cap.args, live_profile())
            continue
        got = replay(op.op, cap.inputs, cap.args, live_profile())
        assert sorted(got) == sorted(cap.outputs), op.op
        for name, value in got.items():
            assert_bits_equal(f"{op.op} {name} (op {index})", cap.outputs[name], value.reshape(cap.outputs[name].shape))
    assert seen == 2


@needs_modelled_sgemm  # slow_conv_transpose2d runs MKL's sgemm
@backends
@settings(max_examples=6, deadline=None)
@given(
    dims=st.integers(1, 2),
    n=st.integers(1, 3),
    c=st.sampled_from([2, 3, 8, 16]),
    o=st.sampled_from([1, 4, 8]),
    size=st.integers(2, 9),
    k=st.integers(1, 8),
    stride=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    threads=st.sampled_from([1, 2, 4]),
)
@example(dims=1, n=2, c=16, o=8, size=8, k=8, stride=4, seed=0, threads=4)  # EnCodec's decoder, on 4 threads
# one output channel: brg_deconv:avx2's brgconv_strided:avx2 where the AVX-512 one finds no blocking
@example(dims=2, n=1, c=2, o=1, size=2, k=8, stride=4, seed=0, threads=1)
def test_transposed_convolution_of_a_permuted_input_replays(
    backend: str, dims: int, n: int, c: int, o: int, size: int, k: int, stride: int, seed: int, threads: int
) -> None:
    """EnCodec's decoder: its LSTM's states (T, N, C) permuted to (N, C, T) into ``nn.ConvTranspose1d``
    (and a 2-D map of strides neither contiguous nor channels-last): ATen copies the input to NCHW
    before oneDNN's deconvolution or slow_conv_transpose2d, so forward and backward replay bit for bit."""
    from harness.impl import conv_transpose

    layer_type = torch.nn.ConvTranspose1d if dims == 1 else torch.nn.ConvTranspose2d
    torch.manual_seed(seed % 2**31)  # the layer's weights from torch's global RNG
    layer = layer_type(c, o, k, stride=stride)
    x4, w4 = (n, c, 1 if dims == 1 else size, size), (c, o, 1 if dims == 1 else k, k)
    stride2 = (1, stride) if dims == 1 else (stride, stride)
    use_threads(threads)
    whys = conv_transpose.refusals(x4, w4, stride2, (0, 0), (0, 0), live_profile())
    why = whys[0]
    rng = np.random.default_rng(seed)
    lying = (size, n, c) if dims == 1 else (size, n, c, size)  # (T, N, C): an LSTM's output
    x = torch.from_numpy(rng.standard_normal(lying).astype(np.float32))
    order = (1, 2, 0) if dims == 1 else (1, 2, 0, 3)

    def program() -> None:
        y = layer(x.clone().requires_grad_(True).permute(*order))
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    tracer = _traced(backend, program)
    ops = {packet(op.op): i for i, op in enumerate(tracer.ops) if packet(op.op).startswith("convolution")}
    assert sorted(ops) == ["convolution", "convolution_backward"]
    fwd, bwd = tracer.captured[ops["convolution"]], tracer.captured[ops["convolution_backward"]]
    stride = next(arg["stride"] for arg in fwd.args if arg["name"] == "input")
    assert list(stride) != list(torch.empty(fwd.inputs["input"].shape).stride())  # not contiguous
    if why is not None:
        with pytest.raises(ParityError, match=re.escape(why)):
            replay("aten.convolution.default", fwd.inputs, fwd.args, live_profile())
    else:
        got = replay("aten.convolution.default", fwd.inputs, fwd.args, live_profile())
        assert_bits_equal("convolution out", fwd.outputs["out"], got["out"].reshape(fwd.outputs["out"].shape))
    why = whys[1] or whys[2] or whys[3]
    if why is not None:
        with pytest.raises(ParityError, match=re.escape(why)):
            replay("aten.convolution_backward.default", bwd.inputs, bwd.args, live_profile())
        return
    got = replay("aten.convolution_backward.default", bwd.inputs, bwd.args, live_profile())
    for name, want in bwd.outputs.items():
        assert_bits_equal(f"convolution_backward {name}", want, got[name].reshape(want.shape))


@needs_modelled_sgemm
@backends
@pytest.mark.parametrize("threads", [1, 2])
def test_products_of_views_at_offsets_replay(backend: str, threads: int) -> None:
    """FastSpeech2-Conformer's relative-position attention: ``bmm`` of a (B, T, 2T - 1) slice of a padded
    (B, T, 2T) tensor, its rows 4 bytes past 16-byte boundaries, and ``mm``/``addmm`` of a slice with a
    leading dimension wider than its rows. MKL peels its sums by the operands' addresses and strides: the
    replay lays each operand out with the trace's strides and address past 64 bytes."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    padded = torch.from_numpy(rng.standard_normal((6, 14, 29)).astype(np.float32))
    pos = torch.from_numpy(rng.standard_normal((6, 8, 27)).astype(np.float32)).transpose(1, 2)
    rows = torch.from_numpy(rng.standard_normal((9, 31)).astype(np.float32))
    bias = torch.from_numpy(rng.standard_normal(9).astype(np.float32))

    def program() -> None:
        torch.bmm(padded[:, :, 1:28], pos)
        torch.mm(padded[0, :, 2:29], rows[:, 3:30].t())
        torch.addmm(bias, padded[1, :, 1:28], rows[:, 1:28].t())

    _replays_match(backend, program, {"bmm", "mm", "addmm"}, 3)


@needs_modelled_sgemm  # small convolutions run ATen's im2col and MKL's sgemm
@backends
@pytest.mark.parametrize(
    ("n", "c", "o", "k", "w", "threads", "dilation", "padding"),
    [
        (1, 9, 16, 1, 20, 2, 1, 0),
        (2, 19, 18, 2, 16, 1, 1, 0),
        (1, 17, 19, 4, 24, 4, 1, 0),
        (2, 20, 24, 3, 40, 2, 2, 0),  # oneDNN's brgemm kernels (gemm:jit at SSE4.1), dilated
        (1, 12, 10, 5, 30, 1, 3, 0),  # one small image: slow_conv_dilated2d
        (2, 288, 16, 5, 60, 4, 4, 0),  # the ic block init_conf's search picks (at AVX-512 on 4 threads 272)
        (2, 20, 24, 3, 45, 4, 2, 3),  # padded: exec_base's column block by the search (at AVX-512 on 4 threads 24)
        (2, 20, 24, 5, 45, 4, 1, 3),  # undilated, padded: the column block by the search (refused before it)
        (2, 20, 24, 5, 70, 1, 1, 0),  # undilated, W > OW past 60 columns: brg_conv_bwd's forward searched
    ],
)
def test_convolution_of_a_transposed_weight_replays(
    backend: str, n: int, c: int, o: int, k: int, w: int, threads: int, dilation: int, padding: int
) -> None:
    """WavLM's TDNN: ``conv1d`` over a weight kept as (O, K, I) and transposed to (O, I, K). ATen views
    the weight as it lies, which suggests channels-last, so the convolution runs channels-last though
    input and grad_output are contiguous; where slow_conv2d runs, grad_bias sums grad_output as it lies.
    Its x-vector layers are dilated (2 and 3): harness.impl.conv_nhwc_dilated; its first layer (kernel 5) is not:
    harness.impl.conv_nhwc. Both take the ic block and column block oneDNN's blocking search picks by the thread
    count (conv_nhwc ``exec_search``), grad_input where W > OW too."""
    use_threads(threads)
    rng = np.random.default_rng(k)
    kernel = torch.from_numpy(rng.standard_normal((o, k, c)).astype(np.float32)).requires_grad_(True)
    bias = torch.from_numpy(rng.standard_normal(o).astype(np.float32)).requires_grad_(True)
    x = torch.from_numpy(rng.standard_normal((n, c, w)).astype(np.float32))

    def program() -> None:
        y = F.conv1d(x.clone().requires_grad_(True), kernel.transpose(1, 2), bias, dilation=dilation, padding=padding)
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@needs_modelled_sgemm  # slow_conv_transpose2d runs MKL's sgemm
@backends
@pytest.mark.parametrize(("dims", "c", "o", "k", "size", "threads"), [(2, 14, 5, 2, 16, 2), (1, 15, 6, 1, 14, 1)])
def test_transposed_convolution_of_a_transposed_gradient_replays(
    backend: str, dims: int, c: int, o: int, k: int, size: int, threads: int
) -> None:
    """SAM-HQ's upscaling: a transposed convolution whose output is read channels-last, so its gradient
    comes back of other strides. ATen copies it to NCHW for the kernels; slow_conv_transpose2d (here, one
    image) sums grad_bias over it as it lies, oneDNN's deconvolution over the copy."""
    use_threads(threads)
    layer_type = torch.nn.ConvTranspose1d if dims == 1 else torch.nn.ConvTranspose2d
    torch.manual_seed(k)  # the layer's weights from torch's global RNG
    layer = layer_type(c, o, k, stride=2)
    rng = np.random.default_rng(size)
    x = torch.from_numpy(rng.standard_normal((1, c, *(size,) * dims)).astype(np.float32))

    def program() -> None:
        y = layer(x.clone().requires_grad_(True)).transpose(1, -1)
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@needs_modelled_sgemm  # slow_conv_transpose2d per group runs MKL's sgemm
@backends
@settings(max_examples=8, deadline=None)
@given(
    dims=st.integers(1, 2),
    n=st.integers(1, 3),
    groups=st.sampled_from([2, 3, 4, 8]),
    cg=st.sampled_from([1, 2, 3, 8, 9]),
    og=st.sampled_from([1, 2, 3, 8]),
    size=st.integers(1, 9),
    k=st.integers(1, 4),
    stride=st.integers(1, 3),
    padding=st.integers(0, 3),
    output_padding=st.integers(0, 2),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
@example(dims=1, n=2, groups=8, cg=1, og=1, size=7, k=4, stride=2, padding=0, output_padding=0, bias=False, seed=0,
         threads=1)  # fmt: skip
@example(dims=2, n=2, groups=3, cg=2, og=3, size=5, k=3, stride=3, padding=1, output_padding=2, bias=True, seed=1,
         threads=2)  # fmt: skip
@example(dims=2, n=1, groups=4, cg=2, og=3, size=4, k=1, stride=1, padding=0, output_padding=0, bias=True, seed=2,
         threads=1)  # fmt: skip
@example(dims=1, n=3, groups=2, cg=9, og=2, size=9, k=3, stride=2, padding=1, output_padding=1, bias=True, seed=3,
         threads=1)  # fmt: skip
def test_grouped_transposed_convolution_replays(
    backend: str, dims: int, n: int, groups: int, cg: int, og: int, size: int, k: int, stride: int, padding: int,
    output_padding: int, bias: bool, seed: int, threads: int,
) -> None:  # fmt: skip
    """``nn.ConvTranspose1d`` and ``nn.ConvTranspose2d`` with ``groups`` (Mimi's depthwise upsampler):
    ATen's slow_conv_transpose2d per group, or oneDNN's deconvolution (the adjoint grouped convolution's
    kernels), forward and every gradient; where the impl refuses a pass the replay must raise that
    refusal."""
    from harness.impl import conv_transpose

    padding, output_padding = min(padding, k - 1), min(output_padding, stride - 1)
    c, o = cg * groups, og * groups
    layer_type = torch.nn.ConvTranspose1d if dims == 1 else torch.nn.ConvTranspose2d
    layer = layer_type(c, o, k, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)
    x_shape = (n, c, size) if dims == 1 else (n, c, size, size)
    x4, w4 = (n, c, 1 if dims == 1 else size, size), (c, og, 1 if dims == 1 else k, k)
    pair = (lambda v: (0, v)) if dims == 1 else (lambda v: (v, v))
    stride2 = (1, stride) if dims == 1 else (stride, stride)
    assume((size - 1) * stride - 2 * padding + k + output_padding >= 1)
    use_threads(threads)
    why = conv_transpose.refusals(x4, w4, stride2, pair(padding), pair(output_padding), live_profile(), groups)
    _transposed_replays(backend, layer, x_shape, why, bias, seed)


@needs_modelled_sgemm  # small convolutions run ATen's im2col and MKL's sgemm
@backends
@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1, 3),
    c=st.integers(2, 24),
    o=st.integers(1, 24),
    w=st.integers(3, 40),
    k=st.sampled_from([1, 3, 5]),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_transposed_one_dimensional_convolution_replays(
    backend: str, n: int, c: int, o: int, w: int, k: int, seed: int, threads: int
) -> None:
    """``nn.Conv1d`` over transposed hidden states, its gradient transposed too (ConvBERT's separable
    convolution, Mamba's): ATen makes them contiguous for the kernels, but slow_conv2d (1 thread, small
    inputs) sums grad_bias from grad_output as it lies, in another order."""
    use_threads(threads)
    layer = torch.nn.Conv1d(c, o, k, padding=k // 2)
    if _ip_convolution((n, c, 1, w), (o, c, 1, k), (1, 1), (0, k // 2))(live_profile()):
        return
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, w, c)).astype(np.float32))

    def program() -> None:
        y = layer(x.clone().requires_grad_(True).transpose(1, 2))
        y.backward(torch.from_numpy(rng.standard_normal((n, y.shape[2], o)).astype(np.float32)).transpose(1, 2))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@needs_modelled_sgemm  # one thread runs ATen's slow_conv2d per group: MKL's sgemm on each group's slices
@backends
@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1, 3),
    groups=st.sampled_from([2, 4]),
    cg=st.sampled_from([8, 16, 3, 10]),
    og=st.sampled_from([8, 16, 5]),
    w=st.integers(3, 30),
    k=st.sampled_from([1, 1, 3]),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
@example(n=1, groups=2, cg=16, og=16, w=12, k=1, seed=0, threads=1)  # SqueezeBERT's query, one image
@example(n=2, groups=4, cg=16, og=16, w=12, k=1, seed=1, threads=2)  # and on 2 threads: jit:avx2 per group
def test_grouped_convolution_of_transposed_states_replays(
    backend: str, n: int, groups: int, cg: int, og: int, w: int, k: int, seed: int, threads: int
) -> None:
    """SqueezeBERT's grouped ``nn.Conv1d`` over transposed hidden states, its gradient transposed too: on
    1 thread ATen's slow_conv2d per group (each group's operands narrowed, views where contiguous,
    MKL's sgemm peeling by their offsets; grad_bias summed per group as its channels-last copy lies),
    on 2 threads oneDNN's kernels over every group (jit:avx2 group by group where each group has whole
    blocks of 8 channels, 1x1 too; gemm:jit where it has not)."""
    from harness.impl import conv_grouped

    use_threads(threads)
    kinds = conv_grouped.path(
        (n, cg * groups, 1, w), (og * groups, cg, 1, k), (1, 1), (0, k // 2), groups, live_profile()
    )
    if any(kind.startswith("refuse:") for kind in kinds):
        return
    layer = torch.nn.Conv1d(cg * groups, og * groups, k, padding=k // 2, groups=groups)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, w, cg * groups)).astype(np.float32))

    def program() -> None:
        y = layer(x.clone().requires_grad_(True).transpose(1, 2))
        y.backward(
            torch.from_numpy(rng.standard_normal((n, y.shape[2], og * groups)).astype(np.float32)).transpose(1, 2)
        )

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@needs_modelled_sgemm
@backends
@settings(max_examples=6, deadline=None)
@given(
    n=st.integers(1, 3),
    groups=st.sampled_from([1, 2, 4]),
    c=st.sampled_from([8, 16]),
    h=st.integers(2, 12),
    k=st.sampled_from([1, 3]),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_convolution_of_a_permuted_input_replays(
    backend: str, n: int, groups: int, c: int, h: int, k: int, seed: int, threads: int
) -> None:
    """Nystromformer's convolution over its heads-permuted values: a 2-D input of strides neither
    contiguous nor channels-last, which ATen copies to NCHW for every backend, forward and backward."""
    from harness.impl import conv_grouped

    use_threads(threads)
    channels = c * groups
    kinds = conv_grouped.path((n, channels, h, 6), (channels, c, k, 1), (1, 1), (k // 2, 0), groups, live_profile())
    if any(kind.startswith("refuse:") for kind in kinds):
        return
    layer = torch.nn.Conv2d(channels, channels, (k, 1), padding=(k // 2, 0), groups=groups)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, h, channels, 6)).astype(np.float32))

    def program() -> None:
        y = layer(x.clone().requires_grad_(True).permute(0, 2, 1, 3))
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


@backends
@settings(max_examples=4, deadline=None)
@given(
    n=st.integers(1, 2),
    c=st.sampled_from([3, 8]),
    e=st.sampled_from([16, 24]),
    frames=st.sampled_from([2, 4]),
    size=st.sampled_from([8, 12]),
    seed=st.integers(0, 2**32 - 1),
    threads=st.sampled_from([1, 2, 4]),
)
@example(n=2, c=3, e=16, frames=4, size=8, seed=0, threads=4)
def test_a_3d_patch_embedding_backward_over_transposed_tokens_replays(
    backend: str, n: int, c: int, e: int, frames: int, size: int, seed: int, threads: int
) -> None:
    """VideoMAE's and ViViT's patch embedding: ``nn.Conv3d`` at a stride of its kernel, its output
    flattened and transposed to tokens, so the gradient comes back with the channels innermost. ATen
    takes the layout from the input and the weight (NCDHW) and oneDNN's backward an NCDHW copy of
    grad_output: every gradient replays bit for bit."""
    use_threads(threads)
    layer = torch.nn.Conv3d(c, e, (2, 4, 4), stride=(2, 4, 4))
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, c, frames, size, size)).astype(np.float32))
    tokens_grad = torch.from_numpy(rng.standard_normal((n, frames // 2 * (size // 4) ** 2, e)).astype(np.float32))

    def program() -> None:
        tokens = layer(x.clone().requires_grad_(True)).flatten(2).transpose(1, 2)
        tokens.backward(tokens_grad)

    tracer = _traced(backend, program)
    index = next(i for i, op in enumerate(tracer.ops) if packet(op.op) == "convolution_backward")
    cap = tracer.captured[index]
    stride = next(arg["stride"] for arg in cap.args if arg["name"] == "grad_output")
    assert stride[1] == 1 < e  # the channels innermost: not NCDHW
    got = replay(tracer.ops[index].op, cap.inputs, cap.args, live_profile())
    assert sorted(got) == sorted(cap.outputs) == ["out0", "out1", "out2"]
    for name, value in got.items():
        assert_bits_equal(f"convolution_backward {name}", cap.outputs[name], value.reshape(cap.outputs[name].shape))


def test_one_channel_of_stride_one_makes_a_1d_convolution_channels_last() -> None:
    """(N, W, 1) transposed to (N, 1, W) is contiguous with stride 1 on its channel: its 2-D view reads
    as channels-last, and oneDNN runs its nhwc kernels (acdb, measured); two channels transposed are
    copied to NCHW first."""
    from harness.impl.strides import suggests_channels_last
    from harness.trace.impl_ops import _view4d_stride

    assert suggests_channels_last(*_view4d_stride((4, 1, 18), [18, 1, 1]))
    assert not suggests_channels_last(*_view4d_stride((4, 1, 18), [18, 18, 1]))
    assert not suggests_channels_last(*_view4d_stride((4, 2, 18), [36, 1, 2]))


def _convolution_replays(
    backend: str, layer: torch.nn.Module, x_shape: tuple[int, ...], seed: int, threads: int,
    refused: Callable[[KernelProfile], bool],
) -> None:  # fmt: skip
    """``layer`` on a random x of ``x_shape``, forward and backward from a random gradient, on ``threads``
    threads: its convolution and convolution_backward replay, unless the impl ``refused`` a pass under
    this profile."""
    use_threads(threads)
    if refused(live_profile()):
        return
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal(x_shape).astype(np.float32))

    def program() -> None:
        y = layer(x.clone().requires_grad_(True))
        y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))

    _replays_match(backend, program, {"convolution", "convolution_backward"}, 2)


def _ip_convolution(x4: tuple, w4: tuple, stride: tuple, padding: tuple) -> Callable[[KernelProfile], bool]:
    """Whether a pass of this 2-D convolution is ip_convolution under a profile, which the impl refuses
    (docs/impl/kernels.md)."""
    from harness.impl import conv

    geometry = conv._geometry(x4, w4, stride, padding)
    return lambda p: any(conv.unmodelled_passes(geometry, conv.path(x4, w4, stride, padding, p), p))


@backends
@settings(max_examples=6, deadline=None)
@given(
    dims=st.integers(1, 2),
    n=st.integers(1, 3),
    c=st.integers(1, 12),
    o=st.integers(1, 20),
    size=st.integers(6, 20),
    k=st.integers(2, 5),
    mode=st.sampled_from(["valid", "same"]),
    stride=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_padding_by_name_replays(
    backend: str, dims: int, n: int, c: int, o: int, size: int, k: int, mode: str, stride: int, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """A convolution with ``padding="valid"`` (EfficientNet's stem, after its own ``ZeroPad2d``) or
    ``"same"`` reaches ``convolution`` with a one-element padding list, which stands for every spatial
    dim: it replays, forward and every gradient, as the convolution with that padding on each."""
    stride = 1 if mode == "same" else stride  # torch refuses strided "same"
    pad = (k - 1) // 2 if mode == "same" else 0  # "same" with an even kernel pads its right end apart
    one = dims == 1
    x4, w4 = (n, c, 1 if one else size, size), (o, c, 1 if one else k, k)
    refused = _ip_convolution(x4, w4, (1 if one else stride, stride), (0 if one else pad, pad))
    layer = (torch.nn.Conv1d if one else torch.nn.Conv2d)(c, o, k, stride=stride, padding=mode)
    _convolution_replays(backend, layer, (n, c, size) if one else x4, seed, threads, refused)


@backends
@settings(max_examples=6, deadline=None)
@given(
    n=st.integers(1, 3),
    c=st.sampled_from([8, 13, 32]),
    size=st.integers(5, 14),
    stride=st.integers(1, 2),
    bias=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_depthwise_convolution_replays(
    backend: str, n: int, c: int, size: int, stride: int, bias: bool, seed: int, threads: int
) -> None:
    """MobileNetV2's 3x3 depthwise convolution (``groups`` = channels, padding 1): the traced
    ``convolution`` and ``convolution_backward`` replay with their ``groups``, every pass the impl
    models (harness.impl.conv_grouped)."""
    from harness.impl import conv_grouped

    def refused(p: KernelProfile) -> bool:  # SSE4.1's gemm:jit grad_weight (channels not a multiple of 8)
        kinds = conv_grouped.path((n, c, size, size), (c, 1, 3, 3), (stride, stride), (1, 1), c, p)
        return any(kind.startswith("refuse:") for kind in kinds)

    layer = torch.nn.Conv2d(c, c, 3, stride=stride, padding=1, groups=c, bias=bias)
    _convolution_replays(backend, layer, (n, c, size, size), seed, threads, refused)


@needs_modelled_sgemm  # each group's product is MKL's sgemm
@backends
@settings(max_examples=6, deadline=None)
@given(
    groups=st.integers(1, 6),
    rows=st.integers(1, 150),
    k=st.integers(1, 32).map(lambda x: 4 * x),  # _grouped_mm asks for rows of whole 16 bytes
    n=st.integers(1, 50).map(lambda x: 4 * x),
    stored_transposed=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    threads=THREADS,
)
def test_grouped_mm_replays(
    backend: str, groups: int, rows: int, k: int, n: int, stored_transposed: bool, seed: int, threads: int
) -> None:
    """A mixture-of-experts layer as transformers 5 runs it on the CPU (Mixtral, Qwen-MoE): the rows
    sorted by expert through ``torch._grouped_mm`` with the experts' (groups, K, N) weights (or their
    (groups, N, K) storage, transposed), some experts given no row; forward, and the backward's
    grouped products of the input's gradient (2-D x 3-D) and the weights' (2-D x 2-D, one per expert)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    ends = [*np.sort(rng.integers(0, rows + 1, groups - 1)).tolist(), rows]
    offs = torch.tensor(ends, dtype=torch.int32)
    x = torch.from_numpy(rng.standard_normal((rows, k)).astype(np.float32))
    shape = (groups, n, k) if stored_transposed else (groups, k, n)
    w = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    grad = torch.from_numpy(rng.standard_normal((rows, n)).astype(np.float32))

    def program() -> None:
        xt, wt = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
        y = torch._grouped_mm(xt, wt.transpose(1, 2) if stored_transposed else wt, offs=offs)
        y.backward(grad)

    _replays_match(backend, program, {"_grouped_mm"}, 3)


@backends
@settings(max_examples=5, deadline=None)
@given(
    layers=st.integers(1, 2),
    bidirectional=st.booleans(),
    batch_first=st.booleans(),
    bias=st.booleans(),
    sizes=st.tuples(st.integers(1, 6), st.integers(2, 9), st.integers(1, 20), st.integers(1, 40)),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(1, 2),
)
def test_lstm_layers_replay(
    backend: str, layers: int, bidirectional: bool, batch_first: bool, bias: bool, sizes: tuple, seed: int,
    threads: int,
) -> None:  # fmt: skip
    """nn.LSTM in training (its parameters need gradients), forward and backward: every
    ``mkldnn_rnn_layer`` and ``mkldnn_rnn_layer_backward`` it runs, one per layer and direction (the
    reverse one right to left), replays through harness.impl.rnn."""
    use_threads(threads)
    t_len, batch, n_in, hidden = sizes
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed % 1000)
    lstm = torch.nn.LSTM(n_in, hidden, layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional)
    shape = (batch, t_len, n_in) if batch_first else (t_len, batch, n_in)
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    grad = torch.from_numpy(rng.standard_normal((*shape[:2], hidden * (1 + bidirectional))).astype(np.float32))

    def program() -> None:
        out, (hy, _cy) = lstm(x)
        loss = (out * grad).sum() if seed % 2 else out.sum() + hy.sum()  # without, then with grad_hy
        loss.backward()

    ops = {"mkldnn_rnn_layer", "mkldnn_rnn_layer_backward"}
    _replays_match(backend, program, ops, 2 * layers * (1 + bidirectional))


# programs whose first difference between the avx2 and baseline builds is one op the impl replays
# (``data(shape, seed)``: fixed inputs that no torch generator draws)
PROGRAMS = {
    "aten.uniform_.default": "w = torch.empty(64, 48)\ntorch.nn.init.kaiming_uniform_(w, a=5 ** 0.5)\nw.sum()\n",
    "aten.randn.default": "torch.randn(7, 33).sum()\n",
    "aten.silu.default": "y = torch.nn.functional.silu(data((40, 70), 0))\n",  # its sum may come out equal
    "aten.convolution.default": "torch.nn.functional.conv1d(data((2, 8, 30), 2), data((16, 8, 3), 3), padding=1)\n",
    "aten.mkldnn_rnn_layer.default": "lstm = torch.nn.LSTM(8, 16, batch_first=True)\nwith torch.no_grad():\n"
    "    for i, w in enumerate(lstm.parameters()):\n        w.copy_(data(tuple(w.shape), 5 + i) * 0.3)\n"
    "lstm(data((3, 5, 8), 4))[0].sum()\n",
    "aten._safe_softmax.default": "q = data((2, 2, 9, 16), 1)\nm = torch.ones(9, 9, dtype=torch.bool).tril()\n"
    "m[3] = False\ntorch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m, dropout_p=0.1).sum()\n",
    "aten.grid_sampler_2d.default": "torch.nn.functional.grid_sample(data((2, 3, 9, 11), 6),"
    " data((2, 5, 7, 2), 7) * 0.6, align_corners=False).sum(1)\n",  # its sum() comes out equal
    "aten.upsample_bicubic2d.default": "torch.nn.functional.interpolate(data((1, 8, 4, 4), 8), size=(5, 6),"
    " mode='bicubic').sum(1)\n",
}
# the knob each reports: the capability, but oneDNN's ISA for what oneDNN computes
PROGRAMS["aten._upsample_nearest_exact1d.default"] = (  # 2 -> 41: output 20's source is 1 only where fused
    "torch.nn.functional.interpolate(data((1, 3, 2), 9), size=41, mode='nearest-exact').sum(1)\n"
)
KNOB = {"aten.convolution.default": "onednn_isa", "aten.mkldnn_rnn_layer.default": "onednn_isa"}
PRELUDE = """import numpy as np
import torch


def data(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape, np.float32))


torch.manual_seed(0)
"""


# the programs whose products are MKL's: on MKL's Intel paths (another at each level) a product parts first
MKL_PROGRAMS = {"aten._safe_softmax.default"}


@pytest.mark.parametrize(
    "op", [pytest.param(op, marks=[needs_modelled_mkl] if op in MKL_PROGRAMS else []) for op in sorted(PROGRAMS)]
)
def test_avx2_vs_baseline_root_cause_is_verified_by_the_impl(
    op: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``parity trace`` the program under the avx2 and baseline builds, ``parity diff --verify-cause``:
    the root cause is the op, its knob the capability (oneDNN's ISA), and the impl's replay under each side's profile
    gives each side's bits."""
    from harness.cli import main
    from harness.platform.config import collect_facts, supported_levels

    if not {"avx2", "baseline"} <= {level.name for level in supported_levels(collect_facts())}:
        pytest.skip("needs a CPU with AVX2")
    script = tmp_path / "program.py"
    script.write_text(PRELUDE + PROGRAMS[op], encoding="utf-8")
    traces = []
    for level in ("avx2", "baseline"):
        traces.append(tmp_path / f"{level}.h5")
        argv = ["trace", "--platform", f"linux-x86_64-{level}-t1", "--out", str(traces[-1])]
        assert main([*argv, "--", sys.executable, str(script)]) == 0
    report = tmp_path / "diff.json"
    assert main(["diff", *map(str, traces), "--verify-cause", "--output", str(report)]) == 1
    capsys.readouterr()
    root = json.loads(report.read_text(encoding="utf-8"))["root_cause"]
    assert (root["op"], root["knobs"]) == (op, [KNOB.get(op, "capability")])
    assert root["verified"] is True, root["verification"]


@needs_modelled_sgemm  # bmm's products are MKL's from 400 multiplies
@backends
@settings(max_examples=6, deadline=None)
@given(
    b=st.integers(1, 4), h=st.integers(1, 3), t=st.integers(1, 24), d=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1), threads=THREADS,
)  # fmt: skip
@example(b=2, h=2, t=16, d=16, seed=0, threads=2)  # GPT-2's eager attention at the zoo's size
@example(b=1, h=1, t=3, d=5, seed=1, threads=1)  # 45 multiplies: ATen's own loop
def test_attention_products_replay_with_their_layouts(
    backend: str, b: int, h: int, t: int, d: int, seed: int, threads: int
) -> None:
    """The eager attention's ``q @ k^T`` and ``p @ v`` (at::bmm of a transposed, an expanded and a
    contiguous operand, forward and backward), then a language model's loss: the embedding's gather,
    nll_loss forward and backward (mean, an ignored target), each replayed from its captured tensors."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    q, k, v = (torch.from_numpy(rng.standard_normal((b, h, t, d)).astype(np.float32)) for _ in range(3))
    table = torch.from_numpy(rng.standard_normal((11, d)).astype(np.float32))
    idx = torch.from_numpy(rng.integers(0, 11, (b * h, t)))
    target = torch.from_numpy(rng.integers(0, t, b * h * t))
    target[0] = -100

    def program() -> None:
        qt, kt, vt = (x.clone().requires_grad_(True) for x in (q, k, v))
        p = torch.softmax(qt @ kt.transpose(-1, -2) / d**0.5, dim=-1)
        out = p @ vt
        logits = out.reshape(-1, t, d) @ F.embedding(idx, table).transpose(1, 2)  # (b*h, t, t): t classes
        loss = F.cross_entropy(logits.reshape(-1, t), target)
        loss.backward()

    _replays_match(backend, program, {"bmm", "embedding", "nll_loss_forward", "nll_loss_backward"}, 7)


@needs_modelled_sgemm  # baddbmm's products from 400 multiplies and mv's are MKL's
@pytest.mark.parametrize(("t", "threads"), [(4, 1), (16, 2)])  # 4: ATen's small loop; 16: MKL's batched gemm
def test_alibi_scores_and_matrix_vector_products_replay(t: int, threads: int) -> None:
    """BLOOM's attention scores, ``baddbmm(alibi, q, k^T, beta=1, alpha=1/sqrt(D))`` with the ALiBi bias
    broadcast over the queries, again with beta 0.5, alpha 1/8 and a NaN in the bias (scaled first
    above the small loop) and with beta 0 (the bias unread); then ``torch.mv`` of a row-major matrix
    and ``torch.addmv`` of a transposed one (beta 0.5): each replayed from its captured tensors."""
    use_threads(threads)
    rng = np.random.default_rng(t)
    heads, d = 8, 16
    q, k = (torch.from_numpy(rng.standard_normal((heads, t, d)).astype(np.float32)) for _ in range(2))
    alibi = torch.from_numpy(rng.standard_normal((heads, 1, t)).astype(np.float32))
    bias = alibi.clone()
    bias[0, 0, 1] = float("nan")
    mat = torch.from_numpy(rng.standard_normal((3 * t, 20)).astype(np.float32))
    vec, row, s = (torch.from_numpy(rng.standard_normal(n).astype(np.float32)) for n in (20, 3 * t, 20))

    def program() -> None:
        torch.baddbmm(alibi, q, k.transpose(1, 2), beta=1.0, alpha=d**-0.5)
        torch.baddbmm(bias, q, k.transpose(1, 2), beta=0.5, alpha=0.125)
        torch.baddbmm(bias, q, k.transpose(1, 2), beta=0.0, alpha=0.125)
        torch.mv(mat, vec)
        torch.addmv(s, mat.t(), row, beta=0.5, alpha=0.125)

    _replays_match("dispatcher-hook", program, {"baddbmm", "mv", "addmv"}, 5)


@pytest.mark.filterwarnings("ignore:var\\(\\)")  # one element a row: NaN or inf, replayed too
@backends
@settings(max_examples=6, deadline=None)
@given(shape=SHAPES, seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(shape=(3, 70000), seed=0, threads=4)  # one output of many elements: the threaded double sum
def test_var_replays_over_any_dims(backend: str, shape: tuple[int, ...], seed: int, threads: int) -> None:
    """torch.var over every dim, the last, the first (kept), as the variance of a batch of features, with
    corrections 1 (the default), 0 and 2: each divides by its own count, none replayed as another."""
    use_threads(threads)
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 3 + 1)

    def program() -> None:
        torch.var(x)
        torch.var(x, dim=-1)
        torch.var(x, dim=0, keepdim=True)
        torch.var(x.transpose(0, -1), dim=-1)
        torch.var(x, dim=-1, correction=0)
        torch.var(x, correction=2)

    _replays_match(backend, program, {"var"}, 6)


PROMOTED = [torch.int64, torch.int32, torch.int16, torch.uint8, torch.bool, torch.float32, torch.float64]


def _tensor_of(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.from_numpy(np.asarray(rng.random(shape) < 0.5))
    if dtype.is_floating_point:
        return torch.from_numpy(np.asarray(rng.standard_normal(shape) * 1e3)).to(dtype)
    info = torch.iinfo(dtype)  # the whole range: sums and products wrap
    return torch.from_numpy(np.asarray(rng.integers(info.min, info.max, shape, endpoint=True))).to(dtype)


@backends
@settings(max_examples=8, deadline=None)
@given(
    a=st.sampled_from(PROMOTED), b=st.sampled_from(PROMOTED), form=st.sampled_from(["dims", "zero-dim", "number"]),
    op=st.sampled_from(["add", "sub", "mul", "div"]), n=st.integers(1, 70), seed=st.integers(0, 2**32 - 1),
)  # fmt: skip
@example(a=torch.int64, b=torch.int64, form="number", op="add", n=1, seed=0)  # num_batches_tracked.add_(1)
@example(a=torch.float32, b=torch.bool, form="dims", op="mul", n=33, seed=0)  # a mask multiplied in
@example(a=torch.int32, b=torch.float32, form="dims", op="mul", n=9, seed=0)  # float32 in torch, float64 in NumPy
def test_integer_bool_and_mixed_arithmetic_replays(
    backend: str, a: torch.dtype, b: torch.dtype, form: str, op: str, n: int, seed: int
) -> None:
    """add, sub, mul, div (and in place where torch allows) of integer, bool and mixed operands: a tensor
    with dims, a zero-dim tensor or a Python number as the second, in torch's promoted dtype."""
    rng = np.random.default_rng(seed)
    x = _tensor_of(a, (n,), rng)
    y = {"dims": _tensor_of(b, (n,), rng), "zero-dim": _tensor_of(b, (), rng), "number": [True, 3, -7, 2.5][n % 4]}[
        form
    ]
    calls = [lambda: getattr(torch, op)(x, y), lambda: getattr(x.clone(), f"{op}_")(y)]
    runnable = []
    for call in calls:
        try:
            call()
        except RuntimeError:  # torch refuses it (bool sub, a float result into an integer tensor)
            continue
        runnable.append(call)
    if runnable:
        _replays_match(backend, lambda: [call() for call in runnable], {op, f"{op}_"}, len(runnable))


@backends
@settings(max_examples=8, deadline=None)
@given(
    a=st.sampled_from(PROMOTED), b=st.sampled_from(PROMOTED), form=st.sampled_from(["dims", "zero-dim", "number"]),
    n=st.integers(1, 70), seed=st.integers(0, 2**32 - 1),
)  # fmt: skip
@example(a=torch.int64, b=torch.int64, form="dims", n=5, seed=0)  # positions chosen between two index tensors
@example(a=torch.bool, b=torch.float32, form="number", n=7, seed=0)  # a bool mask filled (masked_fill of bool)
def test_where_and_masked_fill_of_any_dtype_replay(
    backend: str, a: torch.dtype, b: torch.dtype, form: str, n: int, seed: int
) -> None:
    """torch.where of two operands of any of these dtypes (cast to their common dtype), and masked_fill
    of a tensor of dtype ``a`` (the value cast to it)."""
    rng = np.random.default_rng(seed)
    cond = torch.from_numpy(np.asarray(rng.random(n) < 0.5))
    x = _tensor_of(a, (n,), rng)
    y = {"dims": _tensor_of(b, (n,), rng), "zero-dim": _tensor_of(b, (), rng), "number": [True, 3, -7, 2.5][n % 4]}[
        form
    ]

    def program() -> None:
        torch.where(cond, x, y)
        x.masked_fill(cond, [True, 3, -7][n % 3])
        x.clone().masked_fill_(cond, torch.tensor(True if a == torch.bool else 5))

    _replays_match(backend, program, {"where", "masked_fill", "masked_fill_"}, 3)


@backends
@settings(max_examples=6, deadline=None)
@given(
    dtype=st.sampled_from(PROMOTED[:5]), shape=st.lists(st.integers(1, 40), max_size=3).map(tuple),
    want=st.sampled_from([None, torch.int32, torch.int64, torch.float32]), seed=st.integers(0, 2**32 - 1),
    threads=THREADS,
)  # fmt: skip
@example(dtype=torch.bool, shape=(4, 16), want=None, seed=0, threads=2)  # a mask's count of positions
@example(dtype=torch.bool, shape=(2, 40), want=torch.float32, seed=0, threads=1)  # DAB-DETR's mask.cumsum(1, float32)
@example(dtype=torch.float32, shape=(3, 9), want=torch.int32, seed=0, threads=1)  # Qwen3-Next's counts to int32
def test_integer_sums_replay(
    backend: str, dtype: torch.dtype, shape: tuple[int, ...], want: torch.dtype | None, seed: int, threads: int
) -> None:
    """sum (whole, over a dim, kept) and cumsum of bool and integer tensors: exact int64 sums, or in the
    dtype asked for, wrapping; into float32 (counts: cumsum's running sums in double, rounded); a float
    tensor into an integer dtype, truncated first."""
    use_threads(threads)
    x = _tensor_of(dtype, shape, np.random.default_rng(seed))
    if want == torch.float32 and dtype != torch.bool:  # counts, whose sums float32 holds exactly
        x = x % 100

    def program() -> None:
        torch.sum(x, dtype=want)
        if x.ndim:
            torch.sum(x, dim=-1, keepdim=True)
            torch.cumsum(x, dim=0, dtype=want)

    _replays_match(backend, program, {"sum", "cumsum"}, 3 if x.ndim else 1)


@backends
@settings(max_examples=6, deadline=None)
@given(
    dtype=st.sampled_from([torch.int64, torch.int32, torch.uint8, torch.bool]), rows=st.integers(1, 30),
    cols=st.sampled_from([1, 7, 40]), n=st.integers(1, 60), accumulate=st.booleans(), seed=st.integers(0, 2**32 - 1),
)  # fmt: skip
@example(dtype=torch.int64, rows=4, cols=1, n=50, accumulate=True, seed=0)  # counts per class: repeats summed
@example(dtype=torch.bool, rows=3, cols=7, n=40, accumulate=True, seed=1)  # a bool sum: an or
def test_index_put_into_integer_tensors_replays(
    backend: str, dtype: torch.dtype, rows: int, cols: int, n: int, accumulate: bool, seed: int
) -> None:
    """index_put_ of rows (repeated indices) into an integer or bool tensor: summed exactly (wrapping) or
    the last write kept; a bool tensor's sum is an or (ATen's ``+=`` on bool)."""
    rng = np.random.default_rng(seed)
    x, values = _tensor_of(dtype, (rows, cols), rng), _tensor_of(dtype, (n, cols), rng)
    idx = torch.from_numpy(rng.integers(0, rows, n))
    _replays_match(backend, lambda: x.clone().index_put_((idx,), values, accumulate=accumulate), {"index_put_"}, 1)


@backends
def test_reductions_of_a_zero_dim_tensor_over_dim_0_replay(backend: str) -> None:
    """sum, mean, var, logsumexp and the 2-norm of a 0-d tensor over dim 0 or -1 (one element; the replays
    had broken on the dim's modulo)."""
    x = torch.tensor(2.5)

    def program() -> None:
        x.sum(0)
        x.mean(-1, keepdim=True)
        x.var(0)
        torch.logsumexp(x, 0)
        torch.linalg.vector_norm(x, dim=0)

    _replays_match(backend, program, {"sum", "mean", "var", "logsumexp", "linalg_vector_norm"}, 5)


@backends
def test_clamp_by_numbers_replays(backend: str) -> None:
    """clip_grad_norm_'s ``clamp(coef, max=1.0)`` and clamps by numbers over NaN payloads, infinities and
    signed zeros at the bounds (x's own bits kept there), a strided view, clamp_min and in place."""
    x = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, 0.5, -3.0, 2.5] * 5, np.float32)
    x.view(np.uint32)[0] = np.uint32(0xFFC01234)

    def program() -> None:
        t = torch.from_numpy(x)
        torch.clamp(t, max=1.0)
        torch.clamp(t[::2], -0.0, 1.0)
        torch.clamp_min(t, 0.0)
        t.clone().clamp_(min=-1.0, max=0.5)

    _replays_match(backend, program, {"clamp", "clamp_min", "clamp_"}, 4)


@backends
def test_cross_entropy_of_an_empty_batch_replays(backend: str) -> None:
    """An empty batch's mean loss is ATen's +qNaN (the replay had computed 0/0, x86's -qNaN); every target
    ignored is 0/0."""
    x = torch.randn(0, 3)

    def program() -> None:
        torch.nn.functional.cross_entropy(x, torch.zeros(0, dtype=torch.int64))
        torch.nn.functional.cross_entropy(torch.randn(2, 3), torch.full((2,), -100))

    _replays_match(backend, program, {"nll_loss_forward"}, 2)


@backends
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_integer_division_keeps_the_tensors_dtype(backend: str, mode: str) -> None:
    """An int32 tensor divided by a zero-dim int64 tensor or a Python int, with a rounding mode: the
    result is int32 (a zero-dim tensor of the same kind does not widen it), the quotient exact."""
    x = torch.arange(-20, 43, dtype=torch.int32).reshape(7, 9)

    def program() -> None:
        torch.div(x, torch.tensor(-3), rounding_mode=mode)
        torch.div(x.t(), 4, rounding_mode=mode)
        torch.div(x, torch.tensor([5, -2, 7, 3, -1, 2, 9, -4, 6], dtype=torch.int16), rounding_mode=mode)

    _replays_match(backend, program, {"div"}, 3)


@backends
@settings(max_examples=6, deadline=None)
@given(n=st.sampled_from([1, 8, 17, 100, 40000]), floor=st.sampled_from([float("nan"), -0.0, 0.0, -3.4e38, 0.5]),
       seed=st.integers(0, 2**32 - 1), threads=THREADS)  # fmt: skip
@example(n=17, floor=-0.0, seed=0, threads=1)  # a vector and a tail, zeros of both signs met
def test_maximum_with_a_zero_dim_floor_replays(backend: str, n: int, floor: float, seed: int, threads: int) -> None:
    """torch.maximum(w, torch.tensor(floor)): XGLM's attention weights kept above float32's minimum."""
    use_threads(threads)
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    at = np.arange(0, n, max(1, n // 4))[:4]
    x[at] = np.array([np.nan, -0.0, 0.0, np.inf], np.float32)[: at.size]
    _replays_match(backend, lambda: torch.maximum(torch.from_numpy(x), torch.tensor(floor)), {"maximum"}, 1)


@backends
@settings(max_examples=8, deadline=None)
@given(
    shape=st.lists(st.sampled_from([1, 2, 3, 7, 8, 16, 17, 33]), min_size=2, max_size=4).map(tuple),
    widen=st.integers(0, 3), perm_seed=st.integers(0, 2**32 - 1), seed=st.integers(0, 2**32 - 1), threads=THREADS,
)  # fmt: skip
@example(shape=(100, 33, 7), widen=0, perm_seed=0, seed=0, threads=1)  # reversed: the kept dims in the output's order
@example(shape=(2, 17, 32), widen=1, perm_seed=1, seed=0, threads=2)  # ViT's patch tokens past the class token
def test_sums_of_permuted_and_gapped_views_replay(
    backend: str, shape: tuple[int, ...], widen: int, perm_seed: int, seed: int, threads: int
) -> None:
    """sum and mean over views torch reads as they lie: a slice of a wider tensor (a gap between rows),
    permuted; the kept dims iterate in the contiguous output's order, the reduced ones by stride."""
    use_threads(threads)
    rng, prng = np.random.default_rng(seed), np.random.default_rng(perm_seed)
    wide = (*shape[:-1], shape[-1] + widen) if widen else shape
    base = torch.from_numpy(rng.standard_normal(wide).astype(np.float32))[..., widen : widen + shape[-1]]
    x = base.permute(*prng.permutation(len(shape)).tolist())
    dims = sorted(prng.choice(len(shape), int(prng.integers(1, len(shape) + 1)), replace=False).tolist())

    def program() -> None:
        torch.sum(x, dim=dims)
        torch.mean(x, dim=dims[:1], keepdim=True)
        torch.sum(x)

    _replays_match(backend, program, {"sum", "mean"}, 3)


@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 23), rows=st.integers(1, 5), seed=st.integers(0, 2**32 - 1), threads=st.integers(1, 4))
@example(n=7, rows=3, seed=0, threads=1)  # a tail of 7: the last one's numerators not contracted (div)
@example(n=21, rows=2, seed=1, threads=2)  # a vector body of 16 and a tail of 5
def test_complex_add_sub_and_div_replay(n: int, rows: int, seed: int, threads: int) -> None:
    """add, sub (alpha 1, -1 and 2) and div of complex64 tensors (rotary and complex-valued models): add as
    ``self + alpha * other`` with a complex product by alpha + 0i (an infinite component makes the other one
    NaN), div element by element with c10::complex's Smith ratio, contracted at avx2 and avx512 but for the
    numerators of an odd inner loop's last element; contiguous, broadcast, a column (read as a scalar), a
    number, a real tensor, in place, with infinities, zeros of both signs and subnormals."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((3, rows, n + 3, 2)).astype(np.float32) * 8
    v[rng.random(v.shape) < 0.1] = rng.choice(np.array([np.inf, -np.inf, 0.0, -0.0, 1e-40], np.float32))
    x, y = (torch.view_as_complex(torch.from_numpy(np.ascontiguousarray(w))) for w in v[:2])
    real = torch.from_numpy(v[2, :, :n, 0].copy())

    def program() -> None:
        a, b = x[:, :n].contiguous(), y[:, :n].contiguous()
        a + b
        torch.sub(a, y[:1, :n], alpha=2)
        a / b
        a / b[:, :1]  # one element along each row: read as a scalar
        a / 0.5
        a - real
        a.clone().div_(b)
        a.clone().add_(b, alpha=-1)

    _replays_match("dispatcher-hook", program, {"add", "add_", "sub", "div", "div_"}, 8)


@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 23), rows=st.integers(1, 5), seed=st.integers(0, 2**32 - 1), threads=THREADS)
@example(n=7, rows=3, seed=0, threads=1)  # a tail of 3 pairs and an odd one; of a broadcast scalar, 1, 4 and 2
@example(n=21, rows=2, seed=1, threads=2)  # a vector body of 16 and a tail of 5
@example(n=1, rows=2, seed=2, threads=1)  # rows of one element
def test_complex_mul_replays_with_its_fused_tail(n: int, rows: int, seed: int, threads: int) -> None:
    """mul of complex64 tensors (DeepSeek-V2's and Llama 4's rotary products: ``view_as_complex`` times the
    broadcast frequencies): at avx2 and avx512 each run's tail is fused where its vector body is not, and
    differently where an operand is a broadcast scalar; contiguous, broadcast, a row slice, a number, in place,
    with infinities, zeros of both signs and subnormals among the values."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((3, rows, n + 3, 2)).astype(np.float32) * 8
    v[rng.random(v.shape) < 0.1] = rng.choice(np.array([np.inf, -np.inf, 0.0, -0.0, 1e-40], np.float32))
    x, y, wide = (torch.view_as_complex(torch.from_numpy(np.ascontiguousarray(w))) for w in v)

    def program() -> None:
        a, b = x[:, :n].contiguous(), y[:, :n].contiguous()
        a * b
        a * y[:1, :n]  # the other broadcast over the rows
        a * b[:, :1]  # one element along each row: ATen's scalar loop body
        if n > 1:  # rows a slice of wider rows (of one element, a column: ATen's basic loop, refused at avx2)
            wide[:, :n] * b
        a * 0.5
        a.clone().mul_(b)

    _replays_match("dispatcher-hook", program, {"mul", "mul_"}, 6 if n > 1 else 5)


@pytest.mark.parametrize("threads", [1, 4])
def test_router_selections_and_extremes_replay(threads: int) -> None:
    """A mixture-of-experts router's selections (topk of softmax, histc of the chosen experts, the unstable
    sort of their ids, max over a dim) and full extremes, sorts and std: the chosen elements' bits and int64
    indices; full max/min with NaNs of several payloads and a signalling one across the 32768 grain (the
    chunks' ``max_impl`` NaN at 4 threads, the AVX2 object's all-ones NaN, the default object's lowest
    lane's NaN, quieted)."""
    use_threads(threads)
    rng = np.random.default_rng(threads)
    logits = torch.from_numpy(rng.standard_normal((37, 8)).astype(np.float32))
    v = rng.standard_normal(40001).astype(np.float32)
    v[[5, 12, 700, 39000]] = np.array([0xFFA00003, 0x7FC00001, 0xFFC00002, 0x7F800001], np.uint32).view(np.float32)
    v[[3, 4, 40]] = np.array([0.0, -0.0, np.inf], np.float32)
    x = torch.from_numpy(v)

    def program() -> None:
        probs = torch.softmax(logits, -1)
        _, chosen = torch.topk(probs, 2, dim=-1)
        torch.histc(chosen.float(), bins=8, min=0, max=7)
        torch.sort(chosen.reshape(-1))  # 74 expert ids, many equal: std::sort's introsort decides their order
        torch.histc(logits, bins=10)
        torch.max(probs, -1)
        torch.min(logits, 0, keepdim=True)
        torch.max(x)
        torch.min(x[:37])
        torch.aminmax(x[:100])
        torch.aminmax(logits, dim=0)
        torch.amax(logits, -1)
        torch.sort(logits, -1, descending=True)
        torch.sort(x[:1000], stable=True)
        torch.std(logits, 0)
        torch.std(logits)

    ops = {"topk", "histc", "max", "min", "aminmax", "amax", "sort", "std"}
    _replays_match("dispatcher-hook", program, ops, 15)
