"""Live: ``binary_cross_entropy_with_logits`` replayed through harness/trace/impl_ops.py (ATen's own ops
on the impl's log_sigmoid, then the sum kernel's mean or sum) against torch in this process, bit for
bit, and the same op traced by ``parity trace`` and replayed (``--verify-cause``'s path).

Logits scaled by 20 (both tails of log_sigmoid), a tenth of them infinite, NaN or a signed zero in
half the cases; targets soft or 0/1; weight and pos_weight absent, of the input's shape or broadcast
along the last dim; reductions none, mean and sum; sizes past the 32768-element grain; thread counts
1 to 16. Run under ATEN_CPU_CAPABILITY=default and avx2 to cover each profile measured.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.trace.impl_ops import replay
from tests.impl_live import SEEDS, THREADS, assert_bits_equal, live_profile, needs_verified_profile, use_threads
from tests.test_impl_live_nn import _replays_match

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

SHAPES = st.one_of(
    st.tuples(st.integers(1, 70)),
    st.tuples(st.integers(1, 9), st.integers(1, 300)),
    st.tuples(st.integers(2, 4), st.integers(9000, 20000)),  # past 32768 elements: the reduction's threads
)
WEIGHTS = st.sampled_from(["none", "full", "row"])


def _case(seed: int, shape: tuple[int, ...], specials: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 20).astype(np.float32)
    if specials:
        pick = rng.random(shape) < 0.1
        x[pick] = rng.choice(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32), int(pick.sum()))
    target = rng.uniform(0, 1, shape).astype(np.float32)
    if rng.random() < 0.5:
        target = np.round(target)
    return x, target


def _weight(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray | None:
    if kind == "none":
        return None
    return rng.uniform(0.2, 3.0, shape if kind == "full" else shape[-1:]).astype(np.float32)


@settings(max_examples=15, deadline=None)
@given(shape=SHAPES, weight=WEIGHTS, pos_weight=WEIGHTS, reduction=st.integers(0, 2), specials=st.booleans(),
       seed=SEEDS, threads=THREADS)  # fmt: skip
def test_bce_with_logits_matches_torch(
    shape: tuple[int, ...], weight: str, pos_weight: str, reduction: int, specials: bool, seed: int, threads: int
) -> None:
    use_threads(threads)
    x, target = _case(seed, shape, specials)
    rng = np.random.default_rng(seed + 1)
    w, pw = _weight(rng, weight, shape), _weight(rng, pos_weight, shape)
    want = F.binary_cross_entropy_with_logits(
        torch.from_numpy(x), torch.from_numpy(target), None if w is None else torch.from_numpy(w),
        reduction=("none", "mean", "sum")[reduction], pos_weight=None if pw is None else torch.from_numpy(pw),
    )  # fmt: skip
    tensors = {"self": x, "target": target} | {k: v for k, v in (("weight", w), ("pos_weight", pw)) if v is not None}
    args = [{"name": name, "tensor": name} for name in tensors] + [{"name": "reduction", "value": reduction}]
    op = "aten.binary_cross_entropy_with_logits.default"
    if reduction and np.isnan(want.numpy()).any():  # which NaN the sum keeps: refused in one line
        with pytest.raises(ParityError, match="which NaN the mean or sum of its loss keeps is not modelled"):
            replay(op, tensors, args, live_profile())
        return
    got = replay(op, tensors, args, live_profile())["out"]
    assert_bits_equal(f"bce_with_logits {shape} {weight} {pos_weight} {reduction}", want.numpy(), got)


def test_traced_bce_with_logits_replays() -> None:
    """As TAPAS's cell selection calls it (Bernoulli.log_prob: reduction none), with weights and a mean,
    and a sum (these two of NaNs zeroed: over NaNs the mean or sum is refused)."""
    x, target = _case(7, (4, 2048), True)
    rng = np.random.default_rng(8)
    w, pw = _weight(rng, "full", (4, 2048)), _weight(rng, "row", (4, 2048))

    def program() -> None:
        xt, tt = torch.from_numpy(x), torch.from_numpy(target)
        F.binary_cross_entropy_with_logits(xt, tt, reduction="none")
        F.binary_cross_entropy_with_logits(xt.nan_to_num(), tt, torch.from_numpy(w), pos_weight=torch.from_numpy(pw))
        F.binary_cross_entropy_with_logits(xt.nan_to_num(), tt, reduction="sum")

    assert _replays_match(program, {"binary_cross_entropy_with_logits"}, 3) == 3
