"""Torch-free: harness/impl/pool.py's average pooling and nearest upsampling where no live torch can
show it here: the source-index rules per build, and the refusals (tests/test_impl_live_nn.py checks the
bits against torch)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import pool
from harness.impl.profiles import get_profile
from harness.trace.impl_ops import replay
from tests.bit_digest import bits_sha256


def test_nearest_exact_generic_source_is_fused_at_avx2_only() -> None:
    """2 -> 41: output 20's source `scale*(20 + 0.5) - 0.5` is 0.5 within a rounding; the default build
    rounds the product first and reads element 0, the AVX2 object's fma reads element 1 (measured under
    torch 2.13.0 at default and avx2, and at avx512, which runs the AVX2 object: UpSampleKernel.cpp's
    kernels are REGISTER_DISPATCH only); the channels-last kernel's and the backward's rule, in double,
    reads 0 at every level."""
    rule, idx_rule = pool.NEAREST_EXACT_GENERIC, pool.NEAREST_EXACT_IDX
    default, avx2, avx512 = get_profile("x86-baseline"), get_profile("x86-avx2"), get_profile("x86-avx512")
    assert pool.nearest_source(2, 41, None, rule, default)[20] == 0
    assert pool.nearest_source(2, 41, None, rule, avx2)[20] == 1
    assert pool.nearest_source(2, 41, None, idx_rule, avx2)[20] == 0
    x = np.arange(2, dtype=np.float32).reshape(1, 1, 2)
    outs = [pool.upsample_nearest(x, (41,), (None,), True, False, p) for p in (default, avx2, avx512)]
    assert [float(out.sum()) for out in outs] == [20.0, 21.0, 21.0]
    assert float(pool.upsample_nearest(x, (41,), (None,), True, True, avx512).sum()) == 20.0  # channels-last's rule


def test_nearest_legacy_rules_agree_but_where_nearest_idx_shortcuts() -> None:
    """`nearest_idx` copies equal sizes and halves twice the size; the generic kernel's `floorf(scale*i)`
    gives the same indices there (no level moves them: one product), but a scale factor given with an
    equal size (1.0001 of 3000: `floorf(i * float(1/1.0001))`) reads element i - 1 from i = 1 on in the
    generic kernel, while the backward (nearest_idx) adds each gradient to its own index (measured: torch
    2.13.0 gives 2999 of 3000 outputs shifted, and the gradient unchanged)."""
    p = get_profile("x86-avx2")
    assert np.array_equal(pool.nearest_source(7, 14, None, pool.NEAREST_GENERIC, p), np.arange(14) // 2)
    generic = pool.nearest_source(3000, 3000, 1.0001, pool.NEAREST_GENERIC, p)
    assert np.array_equal(pool.nearest_source(3000, 3000, 1.0001, pool.NEAREST_IDX, p), np.arange(3000))
    assert (generic != np.arange(3000)).any()


def test_avg_pool_order_and_divisor() -> None:
    """A sum from +0 in row-major order, one division by the divisor; the channels-first kernel adds the
    quotient to 0 (a negative divisor_override's -0 comes out +0 there, -0 channels-last)."""
    x = np.array([[[[1e8, 1.0], [-1e8, 1.0]]]], np.float32)
    assert pool.avg_pool(x, 2)[0, 0, 0, 0] == np.float32((np.float32(1e8 + 1.0) - np.float32(1e8)) + 1.0) / 4
    z = np.zeros((1, 1, 2, 2), np.float32)
    assert np.signbit(pool.avg_pool(z, 2, divisor_override=-3, channels_last=True)).all()
    assert not np.signbit(pool.avg_pool(z, 2, divisor_override=-3)).any()
    g = np.ones((1, 1, 2, 2), np.float32)
    gx = pool.avg_pool_backward(g, (1, 1, 3, 3), 2, 1, 0)  # overlapping windows: 4 quarters in the middle
    assert gx[0, 0, 1, 1] == 1.0 and gx[0, 0, 0, 0] == 0.25


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pool.avg_pool(np.ones((1, 1, 4, 4), np.float32), 2, 1, 2), "pad at most half"),
        (lambda: pool.avg_pool(np.ones((1, 1, 4, 4), np.float32), 2, divisor_override=0), "must not be 0"),
        (lambda: pool.avg_pool(np.ones((4, 4), np.float32), 2), "float32 of 3 or 4 dims"),
        (lambda: pool.avg_pool_backward(np.ones((1, 1, 3, 3), np.float32), (1, 1, 4, 4), 2), "the windows give"),
        (lambda: pool.upsample_nearest(np.ones((1, 1, 4), np.float32), (8, 8), (None,), True, False,
                                       get_profile("x86-avx2")), "2 spatial dims"),
        (lambda: pool.upsample_nearest_backward(np.ones((1, 2, 8), np.float32), (1, 1, 4), (None,), False,
                                                get_profile("x86-avx2")), "for input"),
        (lambda: pool.upsample_nearest_backward(np.full((1, 1, 1, 1, 2), np.nan, np.float32), (1, 1, 1, 1, 1),
                                                (None,) * 3, False, get_profile("x86-baseline")),
         "two NaN gradients reaching one element at the default build"),
    ],
)  # fmt: skip
def test_bad_arguments_are_refused(call, message: str) -> None:
    with pytest.raises(ParityError, match=message):
        call()


def test_replays_take_the_arm64_profiles() -> None:
    """Every aarch64 object fuses nearest-exact's generic source as x86's AVX2 object does (measured on
    emulated N1, V1 and V2: the fused index in all 90 pairs where the two rules part); average pooling is
    one set of bits everywhere."""
    args = [{"name": "self", "tensor": "self", "stride": [2, 2, 1], "shape": [1, 1, 2]},
            {"name": "output_size", "value": [41]}]  # fmt: skip
    inputs = {"self": np.arange(2, dtype=np.float32).reshape(1, 1, 2)}
    for name in ("arm64-neon", "arm64-sve128", "arm64-sve256"):
        out = replay("aten._upsample_nearest_exact1d.default", inputs, args, get_profile(name))["out"]
        assert float(out.sum()) == 21.0, name
    pool_args = [{"name": "self", "tensor": "self", "stride": [16, 16, 4, 1], "shape": [1, 1, 4, 4]},
                 {"name": "kernel_size", "value": [2, 2]}]  # fmt: skip
    x = {"self": np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)}
    outs = [replay("aten.avg_pool2d.default", x, pool_args, get_profile(n))["out"] for n in ("x86-avx2", "arm64-neon")]
    assert np.array_equal(outs[0], outs[1]) and outs[0][0, 0, 0, 0] == 2.5


def test_a_pooling_layout_neither_contiguous_nor_channels_last_is_refused_as_pooling() -> None:
    """EfficientLoFTR's max pool over a batch-sliced view (strides [4096, 64, 8, 1] of a (2, 32, 8, 8)
    tensor): refused in one line that names pooling (it had named batch norm, whose layout check it shares)."""
    x = np.arange(2 * 32 * 64, dtype=np.float32).reshape(2, 32, 8, 8)
    args = [{"name": "self", "tensor": "self", "stride": [4096, 64, 8, 1], "shape": [2, 32, 8, 8]},
            {"name": "kernel_size", "value": [2, 2]}]  # fmt: skip
    with pytest.raises(ParityError, match=r"reproduces pooling on contiguous or channels-last tensors, not self"):
        replay("aten.max_pool2d_with_indices.default", {"self": x}, args, get_profile("x86-avx2"))


def test_max_pool_of_a_view_with_gaps_that_suggests_channels_last() -> None:
    """Hiera's (SAM 2's) query pooling: q sliced from a fused (batch, H, W, 3, C) qkv and permuted to (batch, C, H,
    W), strides [720, 1, 120, 24]: ATen copies it into dense channels-last first (``input.contiguous(memory_format)``),
    so it pools as that copy; torch 2.13.0's output, indices and gradient (recorded at avx2 on a Zen 5, a NaN
    payload among the inputs) as digests."""
    rng = np.random.default_rng(20261207)
    qkv = rng.standard_normal((2, 6, 5, 3, 8)).astype(np.float32)
    qkv.reshape(-1)[::17] = np.array([0x7FC12345], np.uint32).view(np.float32)[0]
    q = qkv[:, :, :, 0, :].transpose(0, 3, 1, 2)
    args = [{"name": "self", "tensor": "self", "stride": [720, 1, 120, 24], "shape": [2, 8, 6, 5]},
            {"name": "kernel_size", "value": [2, 2]}, {"name": "stride", "value": [2, 2]}]  # fmt: skip
    profile = get_profile("x86-avx2")
    got = replay("aten.max_pool2d_with_indices.default", {"self": np.ascontiguousarray(q)}, args, profile)
    g = rng.standard_normal(got["out0"].shape).astype(np.float32)
    back = replay(
        "aten.max_pool2d_with_indices_backward.default",
        {"grad_output": g, "self": np.ascontiguousarray(q), "indices": got["out1"]},
        [{"name": "grad_output", "tensor": "grad_output"}, *args, {"name": "indices", "tensor": "indices"}],
        profile,
    )["out"]
    assert bits_sha256(got["out0"]) == "60030e4f0fc5de2531143a820e169291888fef5e987408b91c7e928a1f33916d"
    assert hashlib.sha256(np.ascontiguousarray(got["out1"], np.int64).tobytes()).hexdigest() == (
        "f6fc17497d7fe506c04802909a84cb8c15d37f34802a7a68ccb9e8e7b5094b87"
    )
    assert bits_sha256(back) == "4e64971a4ba102362f32789a219a4ca407f1344e24ca770a234903f825cf5913"
