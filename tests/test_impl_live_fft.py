"""Live parity of harness.impl.fft: torch.fft's 1-D transforms (MKL DFTI on the x86 wheel), run now in
this process, against the impl's replay of ``_fft_r2c``, ``_fft_c2r`` and ``_fft_c2c``, bit for bit, on
1, 2 and 4 threads.

Random shapes with the transformed dim anywhere (so DFTI gets ATen's contiguous copy, contiguous rows
or the dense transposed view), lengths 8, 12, 16 and 24 (complex, real forward and backward) and 32
(real forward), with and
without the 1/N scale (the one the thread count moves, in the real 12-point kernels), values over six
decades; then inputs whose results hold exact zeros (their signs come from the kernels' terms), and
lengths, dims, norms and layouts the impl must refuse rather than answer.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.trace.impl_ops import replay
from tests.impl_live import SEEDS, assert_bits_equal, live_profile, needs_modelled_mkl, use_threads

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_modelled_mkl]

NORMS = {"backward": (0, 2), "forward": (2, 0)}  # torch's norm -> ATen's normalization (forward op, inverse op)


def _args(x: torch.Tensor, **values: object) -> list[dict[str, object]]:
    """A captured op's arguments: the input with its strides, then the values."""
    return [{"name": "self", "tensor": "self", "shape": list(x.shape), "stride": list(x.stride())}] + [
        {"name": k, "value": v} for k, v in values.items()
    ]


def _pairs(t: torch.Tensor) -> np.ndarray:
    return torch.view_as_real(t).numpy() if t.is_complex() else t.numpy()


def _check(kind: str, x: torch.Tensor, d: int, n: int, norm: str) -> None:
    """torch.fft's transform of x over dim d against the replay of the ATen op it runs."""
    fwd, inv = NORMS[norm]
    p = live_profile()
    if kind == "r2c":
        want = torch.fft.rfft(x, dim=d, norm=norm)
        got = replay(
            "aten._fft_r2c.default", {"self": x.numpy()}, _args(x, dim=[d], normalization=fwd, onesided=True), p
        )
    elif kind == "c2r":
        want = torch.fft.irfft(x, n=n, dim=d, norm=norm)
        got = replay(
            "aten._fft_c2r.default", {"self": _pairs(x)}, _args(x, dim=[d], normalization=inv, last_dim_size=n), p
        )
    else:
        forward = kind == "c2c_fwd"
        want = (torch.fft.fft if forward else torch.fft.ifft)(x, dim=d, norm=norm)
        normalization = fwd if forward else inv
        got = replay(
            "aten._fft_c2c.default",
            {"self": _pairs(x)},
            _args(x, dim=[d], normalization=normalization, forward=forward),
            p,
        )
    assert_bits_equal(f"{kind} n={n} dim={d} {list(x.shape)} norm={norm} t={p.threads}", _pairs(want), got["out"])


@settings(max_examples=60, deadline=None)
@given(
    seed=SEEDS,
    threads=st.sampled_from([1, 2, 4]),
    n=st.sampled_from([8, 12, 16, 24, 32, 64]),
    batch=st.lists(st.integers(1, 5), min_size=0, max_size=3),
    where=st.integers(0, 3),
    norm=st.sampled_from(sorted(NORMS)),
    decade=st.integers(-3, 3),
)
def test_live_fft_random_cases_bit_for_bit(
    seed: int, threads: int, n: int, batch: list[int], where: int, norm: str, decade: int
) -> None:
    """Every length modelled, complex, real forward and backward: bit for bit, or on DFTI's threaded path
    over contiguous rows (2+ threads and rows), where c2r of 8 to 64 and r2c of 32 run kernels not
    modelled, refused in one line."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    d = min(where, len(batch))
    shape = [*batch[:d], n, *batch[d:]]
    half = [*batch[:d], n // 2 + 1, *batch[d:]]
    x = torch.from_numpy((rng.standard_normal(shape) * 10.0**decade).astype(np.float32))
    h = torch.from_numpy((rng.standard_normal((*half, 2)) * 10.0**decade).astype(np.float32))
    c = torch.from_numpy((rng.standard_normal((*shape, 2)) * 10.0**decade).astype(np.float32))
    cases = [("r2c", x), ("c2r", torch.view_as_complex(h))]
    cases += [("c2c_fwd", torch.view_as_complex(c)), ("c2c_bwd", torch.view_as_complex(c))]
    for kind, t in cases:
        try:
            _check(kind, t, d, n, norm)
        except ParityError as err:
            assert "threaded path" in str(err) and threads >= 2 and x.numel() >= 2 * n, str(err)
            assert kind == "c2r" or (kind, n) == ("r2c", 32), str(err)


@pytest.mark.parametrize("threads", [1, 2])
def test_live_fft_signed_zeros_and_exact_results(threads: int) -> None:
    """Inputs whose transforms hold exact zeros (ones, zeros of both signs, small integers with zeros):
    the signs of the zeros are the kernels' own terms (the real kernels drop the absent parts)."""
    use_threads(threads)
    rng = np.random.default_rng(5)
    for n in (12, 24):
        for batch in (1, 6):
            shape = (batch, n)
            for x in (
                np.ones(shape),
                np.zeros(shape),
                -np.zeros(shape),
                rng.integers(-2, 3, shape) * 1.0,
                rng.integers(-1, 2, shape) * rng.choice([0.0, 1.0, 0.5], shape),
            ):
                for norm in sorted(NORMS):
                    _check("r2c", torch.from_numpy(x.astype(np.float32)), 1, n, norm)
            for h in (
                np.ones((batch, n // 2 + 1, 2)),
                np.zeros((batch, n // 2 + 1, 2)),
                rng.integers(-2, 3, (batch, n // 2 + 1, 2)) * 1.0,
            ):
                for norm in sorted(NORMS):
                    _check("c2r", torch.view_as_complex(torch.from_numpy(h.astype(np.float32))), 1, n, norm)
        h = rng.integers(-2, 3, (3, n // 2 + 1, 2)).astype(np.float32)
        h[:, [0, n // 2], 1] = -0.0  # imaginary parts DFTI does not read: no refusal
        _check("c2r", torch.view_as_complex(torch.from_numpy(h)), 1, n, "backward")
        c = rng.standard_normal((3, n, 2)).astype(np.float32)
        c[:, ::5, 1] = -0.0  # -0 read, no result zero: replayed (a zero's sign reaches only zero results)
        _check("c2c_fwd", torch.view_as_complex(torch.from_numpy(c)), 1, n, "backward")
        _check("c2r", torch.view_as_complex(torch.from_numpy(c[:, : n // 2 + 1].copy())), 1, n, "backward")


@pytest.mark.parametrize("threads", [1, 2])
def test_live_fft_power_of_two_exact_results(threads: int) -> None:
    """N = 8, 16, 32 and 64 on inputs whose transforms hold exact zeros: complex and backward bit for bit (zero
    signs included) where no -0 is read; the zero results of the real forward kernels of 8 and 16 (and of
    64 on DFTI's threaded path) refused in one line."""
    use_threads(threads)
    rng = np.random.default_rng(7)
    for n in (8, 16, 32, 64):
        for batch in (1, 6):
            for a in (np.ones((batch, n, 2)), np.zeros((batch, n, 2)), rng.integers(0, 3, (batch, n, 2)) * 1.0):
                c = torch.view_as_complex(torch.from_numpy(a.astype(np.float32)))
                for norm in sorted(NORMS):
                    _check("c2c_fwd", c, 1, n, norm)
                    _check("c2c_bwd", c, 1, n, norm)
                    if threads == 1 or batch == 1:  # c2r off DFTI's threaded path
                        _check("c2r", c[:, : n // 2 + 1].contiguous(), 1, n, norm)
            if n >= 32 and (threads == 1 or batch == 1):  # off DFTI's threaded path: zero results replayed
                _check("r2c", torch.ones(batch, n), 1, n, "backward")
                continue
            with pytest.raises(ParityError, match=r"zero result|threaded path") as err:  # 32: the threaded path
                _check("r2c", torch.ones(batch, n), 1, n, "backward")
            assert "\n" not in str(err.value)


def _refused(op: str, x: np.ndarray, shape: torch.Tensor, **values: object) -> None:
    with pytest.raises(ParityError) as err:
        replay(f"aten._fft_{op}.default", {"self": x}, _args(shape, **values), live_profile())
    assert "\n" not in str(err.value), str(err.value)


def test_live_fft_refuses_what_is_not_modelled() -> None:
    """Lengths, dims, norms and layouts DFTI takes other ways are refused in one line, not answered."""
    real, pairs = np.zeros((2, 12), np.float32), np.zeros((2, 24, 2), np.float32)
    _refused("r2c", np.zeros((3, 128), np.float32), torch.zeros(3, 128), dim=[1], normalization=0, onesided=True)
    _refused("r2c", np.zeros((12, 12), np.float32), torch.zeros(12, 12), dim=[0, 1], normalization=0, onesided=True)
    _refused("r2c", real, torch.zeros(2, 12), dim=[1], normalization=1, onesided=True)  # 1/sqrt(N)
    _refused("r2c", real, torch.zeros(2, 12), dim=[1], normalization=0, onesided=False)
    _refused("c2c", np.zeros((2, 128, 2), np.float32), torch.zeros(2, 128), dim=[1], normalization=0, forward=True)
    _refused("c2c", -np.zeros((2, 16, 2), np.float32), torch.zeros(2, 16), dim=[1], normalization=2, forward=False)
    _refused("c2c", -pairs, torch.zeros(2, 24), dim=[1], normalization=0, forward=True)  # -0: zero signs
    _refused("c2r", -np.zeros((2, 13, 2), np.float32), torch.zeros(2, 13), dim=[1], normalization=0, last_dim_size=24)
    use_threads(2)  # DFTI's threaded path over contiguous rows: c2r of 8 to 64, r2c of 32 not modelled
    _refused("c2r", np.ones((3, 5, 2), np.float32), torch.zeros(3, 5), dim=[1], normalization=2, last_dim_size=8)
    _refused("c2r", np.ones((3, 17, 2), np.float32), torch.zeros(3, 17), dim=[1], normalization=0, last_dim_size=32)
    _refused("r2c", np.ones((3, 32), np.float32), torch.zeros(3, 32), dim=[1], normalization=0, onesided=True)
    sliced = torch.zeros(4, 20)[:, :12]  # rows of 12 at a distance of 20: a view DFTI may take another way
    _refused("r2c", sliced.numpy().copy(), sliced, dim=[1], normalization=2, onesided=True)
