"""Live parity of nn.LSTM's layer (harness.impl.rnn, oneDNN's RNN primitive as ``mkldnn_rnn_layer``
and ``mkldnn_rnn_layer_backward`` run it): torch run now against the impl, bit for bit (uint32
patterns), output, hy, cy and, in training, the six gradients, in a fresh process per ISA level
(ATen's capability and oneDNN's ISA pinned together), on 1 and 2 threads; the cases are
tests/lstm_cases.py's (``test_cases_cover_every_path`` holds what they take at each level).
"""

from __future__ import annotations

import sys

import pytest

from harness.core.errors import ParityError
from harness.impl import onednn_sgemm
from harness.impl.profiles import get_profile
from tests.impl_live import bits_note, needs_verified_profile, print_child_report
from tests.lstm_cases import CASES, NAMES, impl_outputs, torch_outputs
from tests.test_impl_live_conv import _level_named, _run_pinned

pytestmark = pytest.mark.usefixtures("restore_threads")

LEVELS = ("avx2", "avx512", "baseline")


def _paths(case: tuple, level: str, threads: int) -> set[str]:
    """The sgemm paths and choices ``case`` takes under ``level`` (no host needed)."""
    _name, _t, batch, n_in, hidden, reverse, bias, train, _seed = case
    isa = onednn_sgemm.isa_of(get_profile(f"x86-{level}", threads))
    if not train and isa != onednn_sgemm.SSE41:  # the brgemm RNN
        kind = "merged" if batch == 1 else "fused" if n_in == hidden else "apart"
        return {f"brgemm {kind}", "reverse" if reverse else "forward"}
    recurrent = onednn_sgemm.Call(False, False, 4 * hidden, batch, hidden, 0, 0, 0)
    force = isa != onednn_sgemm.SSE41 and hidden < 500
    path = onednn_sgemm.route(isa, threads, recurrent, force)[0]
    found = {path + (" forced" if force and path == "nocopy" else "")}
    found.add("merged" if batch < 128 else "per step")
    found.add("reverse" if reverse else "forward")
    found.add("inference" if not train else "training")
    return found | (set() if bias else {"no bias"})


def _refusal(case: tuple, level: str) -> str | None:
    try:
        impl_outputs(case, get_profile(f"x86-{level}"))
    except ParityError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("level", LEVELS)
def test_cases_cover_every_path(level: str) -> None:
    want = {"merged", "per step", "reverse", "forward", "no bias", "training"}
    want |= {"copy", "gemv", "inference"} if level == "baseline" else {"nocopy forced", "nocopy", "gemv"}
    want |= set() if level == "baseline" else {"brgemm merged", "brgemm fused", "brgemm apart"}
    got = set().union(*(_paths(case, level, 1) for case in CASES if _refusal(case, level) is None))
    assert want <= got, sorted(want - got)


def test_refusals() -> None:
    """What the impl does not model on x86 is refused in one line: at SSE4.1 its packed sgemm
    (inference over one step or 16 batch rows and more); any other torch release (another oneDNN).
    One hidden unit (the backward's h gradient a gemv 'T') is modelled at every level
    (tests/test_impl_sse41_gemv_t.py holds torch's bits at SSE4.1)."""
    assert _refusal(("hidden-1", 2, 3, 4, 1, False, True, True, 5), "baseline") is None
    assert _refusal(("hidden-1", 2, 3, 4, 1, False, True, True, 5), "avx2") is None
    assert "packed" in (_refusal(("packed", 1, 3, 9, 12, False, True, False, 5), "baseline") or "")
    assert all(_refusal(case, level) is None for case in CASES for level in LEVELS)
    with pytest.raises(ParityError, match=r"not torch 2\.14\.1"):
        impl_outputs(CASES[0], get_profile("x86-avx2").with_torch("2.14.1"))


def _compare(case: tuple, i: int, profile) -> dict[str, str] | None:
    try:
        got = impl_outputs(case, profile)
    except ParityError:
        return None
    return {n: bits_note(w, g) for n, w, g in zip(NAMES, torch_outputs(case), got, strict=False)}


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
    assert len(rows) == 2 * len(modelled) and len(modelled) == len(CASES)
    compared = sum(len(row["got"]) for row in rows)
    assert compared == 2 * sum(len(NAMES) if case[7] else 3 for case in modelled)


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    _child()
