"""Live parity of nn.LSTM's layer (harness.impl.rnn, oneDNN's RNN primitive as ``mkldnn_rnn_layer``
and ``mkldnn_rnn_layer_backward`` run it): torch run now against the impl, bit for bit (uint32
patterns), output, hy, cy and, in training, the six gradients, in a fresh process per ISA level
(ATen's capability and oneDNN's ISA pinned together), on 1 and 2 threads.

The cases run, between them (``test_cases_cover_every_path`` holds it): both directions, with and
without biases, the input product merged over the steps and per step (128 batch rows and more), the
no-copy sgemm forced (below 500 hidden units) and chosen by its checker (500 and more), one batch
row (the gemv kernels at AVX2 and AVX-512), and inference at SSE4.1 (the level whose inference
runs the same primitive).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import onednn_sgemm, rnn
from harness.impl.profiles import get_profile
from tests.impl_live import bits_note, needs_verified_profile, print_child_report
from tests.test_impl_live_conv import _level_named, _run_pinned

pytestmark = pytest.mark.usefixtures("restore_threads")

# (T, B, I, H, reverse, bias, train)
CASES = (
    (5, 3, 16, 32, False, True, True),
    (7, 4, 10, 24, True, True, True),
    (3, 2, 33, 20, False, False, True),
    (6, 5, 40, 130, False, True, True),
    (4, 1, 8, 16, False, True, True),
    (3, 130, 12, 20, False, True, True),
    (2, 7, 300, 520, True, True, True),
    (5, 3, 9, 12, False, True, False),
)
LEVELS = ("avx2", "avx512", "baseline")


def _inputs(case: tuple, seed: int) -> tuple[np.ndarray, ...]:
    """x, w_ih, w_hh, b_ih, b_hh, h0, c0, then the gradients of the output, hy and cy."""
    t_len, batch, n_in, hidden = case[:4]
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((t_len, batch, n_in), np.float32),
        rng.standard_normal((4 * hidden, n_in), np.float32) * np.float32(0.3),
        rng.standard_normal((4 * hidden, hidden), np.float32) * np.float32(0.3),
        rng.standard_normal(4 * hidden, np.float32),
        rng.standard_normal(4 * hidden, np.float32),
        *(rng.standard_normal((batch, hidden), np.float32) for _ in range(2)),
        rng.standard_normal((t_len, batch, hidden), np.float32),
        *(rng.standard_normal((batch, hidden), np.float32) for _ in range(2)),
    )


def _impl(case: tuple, arrays: tuple[np.ndarray, ...], profile) -> tuple[np.ndarray, ...]:
    """The layer's output, hy and cy; in training then its six gradients."""
    x, w_ih, w_hh, b_ih, b_hh, h0, c0, gy, ghy, gcy = arrays
    bias, reverse, train = case[5], case[4], case[6]
    b_ih, b_hh = (b_ih, b_hh) if bias else (None, None)
    out = rnn.lstm_layer(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, train, profile)
    if not train:
        return tuple(out)
    return (*out, *rnn.lstm_layer_backward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, gy, ghy, gcy, reverse, profile))


NAMES = ("out", "hy", "cy", "grad_x", "grad_w_ih", "grad_w_hh", "grad_b", "grad_h0", "grad_c0")


def _paths(case: tuple, level: str, threads: int) -> set[str]:
    """The sgemm paths and choices ``case`` takes under ``level`` (no host needed)."""
    _t_len, batch, _n_in, hidden, reverse, bias, train = case
    isa = rnn.sgemm_isa(get_profile(f"x86-{level}", threads))
    recurrent = onednn_sgemm.Call(False, False, 4 * hidden, batch, hidden, 0, 0, 0)
    force = isa != onednn_sgemm.SSE41 and hidden < 500
    path = onednn_sgemm.route(isa, threads, recurrent, force)[0]
    found = {path + (" forced" if force and path == "nocopy" else "")}
    found.add("merged" if batch < 128 else "per step")
    found.add("reverse" if reverse else "forward")
    found.add("inference" if not train else "training")
    found |= set() if bias else {"no bias"}
    return found


@pytest.mark.parametrize("level", LEVELS)
def test_cases_cover_every_path(level: str) -> None:
    want = {"merged", "per step", "reverse", "forward", "no bias", "training"}
    want |= {"copy", "inference"} if level == "baseline" else {"nocopy forced", "nocopy", "gemv"}
    got = set().union(*(_paths(case, level, 1) for case in CASES if _refusal(case, level) is None))
    assert want <= got, sorted(want - got)


def _refusal(case: tuple, level: str) -> str | None:
    try:
        _impl(case, _inputs(case, 0), get_profile(f"x86-{level}"))
    except ParityError as exc:
        return str(exc)
    return None


def test_refusals() -> None:
    """What the impl does not model is refused in one line: inference from AVX2 up (oneDNN's brgemm
    RNN), SSE4.1's gemv (one batch row), aarch64."""
    inference = (5, 3, 9, 12, False, True, False)
    assert "brgemm" in (_refusal(inference, "avx2") or "")
    assert _refusal(inference, "baseline") is None
    assert "gemv" in (_refusal((4, 1, 8, 16, False, True, True), "baseline") or "")
    with pytest.raises(ParityError, match="aarch64"):
        _impl(CASES[0], _inputs(CASES[0], 0), get_profile("arm64-neon"))


def _torch_layer(case: tuple, arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    import torch

    x, w_ih, w_hh, b_ih, b_hh, h0, c0, gy, ghy, gcy = (torch.from_numpy(a) for a in arrays)
    bias, reverse, train, none, hidden = case[5], case[4], case[6], torch.zeros(0), case[3]
    b_ih, b_hh = (b_ih, b_hh) if bias else (none, none)
    with torch.set_grad_enabled(train):
        out = torch.ops.aten.mkldnn_rnn_layer(
            x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, [], 2, hidden, 1, bias, False, False, train
        )
        if not train:
            return tuple(t.numpy() for t in out[:3])
        grads = torch.ops.aten.mkldnn_rnn_layer_backward(
            x, w_ih, w_hh, b_ih, b_hh, h0, c0, *out[:3], gy, ghy, gcy, reverse, 2, hidden, 1, bias, True, False, [],
            False, out[3],
        )  # fmt: skip
    return tuple(t.detach().numpy() for t in (*out[:3], *grads[:4], *grads[5:]))


def _compare(case: tuple, i: int, profile) -> dict[str, str] | None:
    arrays = _inputs(case, 11 + i)
    try:
        got = _impl(case, arrays, profile)
    except ParityError:
        return None
    return {n: bits_note(w, g) for n, w, g in zip(NAMES, _torch_layer(case, arrays), got, strict=False)}


def _child() -> None:
    """Run in a fresh process: every case the impl models at this process's level, on 1 and 2 threads;
    per case "exact" or what differs."""
    print_child_report(CASES, _compare)


@needs_verified_profile
@pytest.mark.parametrize("level", LEVELS)
def test_level(level: str) -> None:
    """Every output of every case the impl models is torch's, bit for bit, at this level on 1 and 2
    threads."""
    rows = _run_pinned(_level_named(level), 2, "_child", [], module="tests.test_impl_live_lstm")
    failures = [f"{row['case']} {name}: {r}" for row in rows for name, r in row["got"].items() if r != "exact"]
    assert not failures, "\n".join(failures)
    modelled = [case for case in CASES if _refusal(case, level) is None]
    assert len(rows) == 2 * len(modelled) and len(modelled) >= len(CASES) - 2
    compared = sum(len(row["got"]) for row in rows)
    assert compared == 2 * sum(len(NAMES) if case[6] else 3 for case in modelled)


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    _child()
