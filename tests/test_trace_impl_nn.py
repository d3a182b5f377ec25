"""How the trace's element-wise replays read ATen's loop from the captured strides
(harness.trace.loops, harness.trace.impl_nn.inner_run): TensorIterator's dim order, the length of each
inner call and its kind. Torch-free."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from harness.trace.impl_nn import _glu_run, inner_run, loop_order
from harness.trace.impl_ops import REPLAYS
from harness.trace.loops import Loop, element_wise_loop


@pytest.mark.parametrize(
    ("shape", "stride", "run"),
    [
        ((4, 6), [6, 1], 24),  # contiguous: one run
        ((4, 6), [9, 1], 6),  # a slice of the last dim (rows 9 apart): a run per row
        ((4, 1), [9, 1], 1),  # a column of a wider tensor: ATen's basic loop, the scalar op per element
        ((4, 6), [12, 2], 1),  # every other element: the same
        ((4, 6), [0, 0], 24),  # broadcast along every dim: one scalar, the run is the others'
        ((3, 1, 5), [5, 5, 1], 15),  # a dim of size 1 has no say
    ],
)
def test_inner_run_follows_the_strides(shape: tuple[int, ...], stride: list[int], run: int) -> None:
    assert inner_run({"self.stride": stride}, ("self",), shape) == run


def test_a_permuted_dense_layout_runs_in_memory_order() -> None:
    """A transposed contiguous tensor: ATen runs it in memory order, which a kernel given its operands in C
    order cannot (refused there); ``in_loop_order`` lays them out in it."""
    with pytest.raises(ParityError, match="C order only"):
        inner_run({"self.stride": [1, 4]}, ("self",), (4, 6))
    assert loop_order({"self.stride": [1, 4]}, ("self",), (4, 6)) == [1, 0]


@pytest.mark.parametrize(
    ("shape", "inputs", "loop"),
    [
        # one dense permuted tensor: fast_set_up, one run in memory order
        ((4, 6), [((4, 6), [1, 4])], Loop((1, 0), 24, True)),
        # Mamba's gate, a channel slice of a (N, T, 2C) map transposed: rows of C along the channels
        ((4, 64, 16), [((4, 64, 16), [2048, 1, 128])], Loop((0, 2, 1), 64, True)),
        # the first input orders the dims (grad_output transposed): the second is strided there, basic loop
        ((6, 4), [((6, 4), [1, 6]), ((6, 4), [4, 1])], Loop((1, 0), 6, False)),
        # a column broadcast along the rows: read as a scalar in each row's vectorized loop
        ((3, 5), [((3, 5), [5, 1]), ((3, 1), [1, 1])], Loop((0, 1), 5, True, 2)),
        # two inputs broadcast along the inner dim: no contiguous scalar, the basic loop
        ((3, 5), [((3, 1), [1, 1]), ((1, 5), [5, 1]), ((3, 1), [1, 1])], Loop((0, 1), 5, False)),
        # a strided grad and a self expanded but along one dim: rows of 17 (the dims do not coalesce)
        (
            (4, 3, 5, 17),
            [((4, 3, 5, 17), [510, 85, 17, 1]), ((4, 3, 5, 17), [0, 0, 1, 0])],
            Loop((0, 1, 2, 3), 17, True, 2),
        ),
        # broadcast along every dim: one scalar, a single run
        ((4, 6), [((4, 6), [0, 0])], Loop((0, 1), 24, True, 1)),
        # channels-last beside contiguous: the first one's order, the second strided along C: basic loop
        ((2, 3, 4, 5), [((2, 3, 4, 5), [60, 1, 15, 3]), ((2, 3, 4, 5), [60, 20, 5, 1])], Loop((0, 2, 3, 1), 3, False)),
        # equal strides (size-1 dims): the larger dim goes outer; dims of size 1 leave the order to the others
        ((2, 1, 3), [((2, 1, 3), [3, 3, 1])], Loop((0, 1, 2), 6, True)),
    ],
)
def test_element_wise_loop_is_tensor_iterators(
    shape: tuple[int, ...], inputs: list[tuple[tuple[int, ...], list[int]]], loop: Loop
) -> None:
    assert element_wise_loop(shape, inputs) == loop


def test_an_in_place_output_is_asked_first() -> None:
    """An output the op is given (log_sigmoid_backward's empty_like(grad_output), an in-place op) orders
    the dims before the inputs do; one TensorIterator allocates follows them."""
    inputs = [((6, 4), [4, 1]), ((6, 4), [1, 6])]
    assert element_wise_loop((6, 4), inputs).order == (0, 1)
    assert element_wise_loop((6, 4), inputs, output=[1, 6]).order == (1, 0)


def test_a_nan_read_as_a_scalar_keeps_the_nan_its_loop_keeps() -> None:
    """silu_backward with grad_output broadcast along the inner dim (rows of 19: a body of 16, a tail of 3)
    and NaN there against a NaN self: at avx2 ATen's vector body keeps -self's NaN, the scalar tail over
    grad's stride 0 grad's (measured on an AMD EPYC Zen 5); aarch64 is not measured: refused."""
    g = np.full((3, 19), np.nan, np.float32)
    x = np.full((3, 19), np.uint32(0x7FC0BEEF).view(np.float32))
    args = {"grad_output.stride": [1, 0], "grad_output.shape": [3, 19], "self.stride": [19, 1], "self.shape": [3, 19]}
    inputs = {"grad_output": g, "self": x}
    out = REPLAYS["silu_backward"](inputs, args, get_profile("x86-avx2", 1))["out"].view(np.uint32)
    assert (out[:, :16] == 0xFFC0BEEF).all() and (out[:, 16:] == 0x7FC00000).all()
    with pytest.raises(ParityError, match="measured on x86 only"):
        REPLAYS["silu_backward"](inputs, args, get_profile("arm64-neon", 1))


@pytest.mark.parametrize("profile_name", ["x86-avx2", "arm64-neon", "arm64-sve256"])
def test_pow_names_the_thread_count_as_a_knob(profile_name: str) -> None:
    """pow's scalar tail (glibc's double pow of the double exponent) gives other bits than its vector lanes
    (powf of the float exponent), and 2 threads put a tail at each chunk's end: the thread count changes
    its bits, so a cause at pow may name it."""
    import numpy as np

    from harness.impl.profiles import get_profile
    from harness.impl.unary import pow_scalar_forward
    from harness.trace.impl_nn import KERNEL_OPS

    x = np.exp(np.random.default_rng(5).uniform(30.0, 80.0, 70013)).astype(np.float32)  # 0.3f - 0.3 matters
    one, two = (pow_scalar_forward(x, 0.3, get_profile(profile_name, t)) for t in (1, 2))
    assert (one.view(np.uint32) != two.view(np.uint32)).any()
    assert KERNEL_OPS["pow"][1] == ("capability", "threads")


@pytest.mark.parametrize(
    ("shape", "dim", "run"),
    [
        ((4, 6, 5), 1, 15),  # a middle dim: each half's trailing dims, a run per batch row
        ((4, 6, 5), 0, 60),  # the first dim: each half whole
        ((4, 2), 1, 1),  # a last dim of 2: halves of one element 2 apart, ATen's basic loop
        ((4, 10), 1, 5),  # a last dim: a run per row
    ],
)
def test_glu_runs_are_its_halves_inner_loops(shape: tuple[int, ...], dim: int, run: int) -> None:
    assert _glu_run({}, np.zeros(shape, np.float32), dim) == run


def test_glu_where_it_is_not_measured_is_refused() -> None:
    """NaN inputs on Linux arm64 are not measured for glu (forward or backward): one line, no bits."""
    x = np.ones((2, 4), np.float32)
    g = x[:, :2].copy()
    nan = x.copy()
    nan[0, 3] = np.nan
    for name, inp, match in (
        ("arm64-neon", nan, "glu of NaN inputs on Linux arm64 is not measured"),
        ("arm64-sve256", nan, "glu of NaN inputs on Linux arm64 is not measured"),
    ):
        for op, tensors in (("glu", {"self": inp}), ("glu_backward", {"self": inp, "grad_output": g})):
            with pytest.raises(ParityError, match=match):
                REPLAYS[op](tensors, {"dim": 1}, get_profile(name, 1))


@pytest.mark.parametrize(("profile_name", "made"), [("x86-avx2", 0xFFC00000), ("arm64-neon", 0x7FC00000)])
def test_a_nan_arithmetic_makes_is_the_architectures_default_nan(profile_name: str, made: int) -> None:
    """inf - inf, 0 * inf: x86's default NaN is -qNaN, aarch64's +qNaN (an emulated Neoverse N1, torch 2.13.0:
    sub, mul, div and add of infinities, and float64 and integer-with-float operands, 0x7fc00000 and
    0x7ff8000000000000); a NaN operand passes on as it was, on both."""
    p = get_profile(profile_name, 1)
    inf = np.array([np.inf, 0.0, np.nan, 1.0], np.float32)
    other = np.array([np.inf, np.inf, 1.0, 2.0], np.float32)
    for op, args in (("sub", {}), ("mul", {})):
        out = REPLAYS[op]({"self": inf, "other": other}, args, p)["out"].view(np.uint32)
        assert out[0 if op == "sub" else 1] == made and out[2] == 0x7FC00000, (op, [hex(v) for v in out])
    mixed = REPLAYS["mul"]({"self": np.array([0, 1], np.int64), "other": other[:2]}, {}, p)["out"].view(np.uint32)
    assert mixed[0] == made  # 0 (cast to float32) * inf
    wide = REPLAYS["sub"]({"self": inf.astype(np.float64), "other": other.astype(np.float64)}, {}, p)["out"]
    assert wide.view(np.uint64)[0] == (0x7FF8000000000000 if made == 0x7FC00000 else 0xFFF8000000000000)


def test_mse_loss_on_aarch64_takes_its_default_nan_and_replays_finite_ones() -> None:
    """mse_loss's elements are one subtraction and one product; a NaN result (inf - inf) takes aarch64's
    default NaN +qNaN, not this host's (measured under emulation: tests/arm64_select_cases.py); finite ones
    replay (0.25 and 1.0 summed: 1.25)."""
    from harness.impl.profiles import profile_for_capability
    from harness.trace.impl_ops import replay

    arm = profile_for_capability("DEFAULT", 1, "arm64")
    args = [
        {"name": "self", "tensor": "self", "stride": [1], "shape": [2], "dtype": "float32"},
        {"name": "target", "tensor": "target", "stride": [1], "shape": [2], "dtype": "float32"},
        {"name": "reduction", "value": 2},
    ]
    x = np.array([np.inf, 1.5], np.float32)
    made = replay("aten.mse_loss.default", {"self": x, "target": x}, args, arm)
    assert np.asarray(made["out"]).view(np.uint32) == 0x7FC00000
    out = replay(
        "aten.mse_loss.default", {"self": x[1:].repeat(2), "target": np.array([1.0, 0.5], np.float32)}, args, arm
    )
    assert np.asarray(out["out"]).view(np.uint32) == np.float32(1.25).view(np.uint32)


def test_maximum_and_minimum_of_integers_keep_their_dtype() -> None:
    """T5's relative position buckets: torch.min of two int64 tensors (the large-distance bucket against
    num_buckets - 1), in int64 (measured: 51 random int8 to int64 cases per level at default, avx2 and avx512
    on 1, 2 and 4 threads, broadcast, strided and the dtypes' extremes, exact); mixed integer dtypes refused."""
    big = np.array([3, 40, -(2**63), 2**63 - 1, 31], np.int64)
    cap = np.full(5, 31, np.int64)
    args = {"self.stride": [1], "self.shape": [5], "other.stride": [1], "other.shape": [5]}
    low = REPLAYS["minimum"]({"self": big, "other": cap}, args, get_profile("x86-avx2"))["out"]
    assert low.dtype == np.int64 and low.tolist() == [3, 31, -(2**63), 31, 31]
    high = REPLAYS["clamp_min"]({"self": big, "min": cap[:1]}, args, get_profile("arm64-neon"))["out"]
    assert high.tolist() == [31, 40, 31, 2**63 - 1, 31]
    with pytest.raises(ParityError, match="into float32 only"):
        REPLAYS["maximum"]({"self": big, "other": cap.astype(np.int32)}, args, get_profile("x86-avx2"))
