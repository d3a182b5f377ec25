"""cumsum, sum, mean, the 1- and 2-norm and log_softmax over NaNs of several payloads under the Linux arm64 profiles,
replayed as traced ops (harness.trace.impl_ops), against torch 2.13.0's aarch64 wheel run under QEMU (``python
tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_nan_reductions_cases.py``, emulated Neoverse N1, V2
and V1; 1, 2 and 4 threads set with torch.set_num_threads in one process): the SHA-256 of torch's output bits over
the cases the impl replays, and the cases it refuses, as recorded there. Torch-free.

What the recordings pin, where two NaNs meet (aarch64's FPProcessNaNs: a signalling operand first, quieted, else
the first operand's; +qNaN of inf - inf): cumsum's double accumulator first (from the line's first NaN running sum
on, every one is that NaN); cascade_sum's contiguous runs accumulator first, the vector's lanes added onto the
scalar tail's sum lane first (its outer and strided loops refused where the order would show, as a signalling
NaN beside NaNs of other patterns); the 1-norm's
``acc + |x|``; the 2-norm's FMLA/FMADD (the addend's NaN after a signalling square), its lanes combined lane 1
first; log_softmax's reduce_all(vec::maximum) lane tree (NEON's ext/rev64, SVE256's tbl and its partial vector's
operands swapped), each element its own NaN or the max's; over another dim (``log_softmax_cols``: finite columns
too, infinities, -inf columns) the column kernel, whose max never takes a NaN and whose log of a NaN sum is SLEEF's
+qNaN: each NaN its own, quieted, the rest of its column +qNaN; its backward (``log_softmax_cols_backward``: NaNs in
the output and the gradient, 0 * inf) the FADD of ``sum + g`` (``g + sum`` in the NEON-typed objects' vector columns
and SVE256's inline scalar ones), FMLS's negated sum (N1, V2) or SVE256's unfused ``fmul``/``fsub``, and the
scalar columns' FMSUB.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests import arm64_nan_reductions_cases as cases
from tests.arm64_sampling_cases import recorded, recording_grid, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is over the cases the impl replays: one for 1,
# 2 and 4 threads alike, or one per thread count
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ("cumsum", "arm64-neon"): "0fabd14451ad96e8b47b75f9e3acfd1696515696c027059ad0932161de25cc5d",
    ("sum", "arm64-neon"): "117724d2a5c316ba6d41481de21b8839d3480ebfd31e408137e6a5002b763ac9",
    ("mean", "arm64-neon"): "072e397f6d59851c836bfd8cdedb63c5105d2cffda8dbc94bac255ada98e36eb",
    ("norm1", "arm64-neon"): (
        "6b8578ea300f01720e9e0bfcb342ed9a8d082e1fefe88be051d46d4628329470",
        "745579faa4e62d30bdec4dda9be6dd0a487d620015350f951702ca585df58412",
        "0b7e60c05ef0cca803f311360ccf67a2841d96a3a16f7fdc48e6ab707a119ff6",
    ),
    ("norm2", "arm64-neon"): "51cb3b7f9dfb3ce60f831cb1915b0ff61b1062141e6ee188bbbdcd87933ed654",
    ("log_softmax", "arm64-neon"): "7b052c679ca64301abc71c51018c4f4997dd75ee436769498eded838b177498b",
    ("log_softmax_cols", "arm64-neon"): "b91f0032107bd969503393e967049dbd27902c33fb16b7b570618bb2f878ae3b",
    ("log_softmax_cols_backward", "arm64-neon"): "7304569bedaa3269930d480c1c05319477a00168ff9d58629d733cd21518b55a",
    ("cumsum", "arm64-sve128"): "0fabd14451ad96e8b47b75f9e3acfd1696515696c027059ad0932161de25cc5d",
    ("sum", "arm64-sve128"): "117724d2a5c316ba6d41481de21b8839d3480ebfd31e408137e6a5002b763ac9",
    ("mean", "arm64-sve128"): "072e397f6d59851c836bfd8cdedb63c5105d2cffda8dbc94bac255ada98e36eb",
    ("norm1", "arm64-sve128"): (
        "6b8578ea300f01720e9e0bfcb342ed9a8d082e1fefe88be051d46d4628329470",
        "745579faa4e62d30bdec4dda9be6dd0a487d620015350f951702ca585df58412",
        "0b7e60c05ef0cca803f311360ccf67a2841d96a3a16f7fdc48e6ab707a119ff6",
    ),
    ("norm2", "arm64-sve128"): "c4bf4de85b2060a6fe238c5467acf4ac4c5b620110e0bf8a5b5586eb3efd8f89",
    ("log_softmax", "arm64-sve128"): "7b052c679ca64301abc71c51018c4f4997dd75ee436769498eded838b177498b",
    ("log_softmax_cols", "arm64-sve128"): "b91f0032107bd969503393e967049dbd27902c33fb16b7b570618bb2f878ae3b",
    ("log_softmax_cols_backward", "arm64-sve128"): "7304569bedaa3269930d480c1c05319477a00168ff9d58629d733cd21518b55a",
    ("cumsum", "arm64-sve256"): "0fabd14451ad96e8b47b75f9e3acfd1696515696c027059ad0932161de25cc5d",
    ("sum", "arm64-sve256"): "a0b59842b8b62ce3e39bb15f7526240141bca9e8b5d75522081558b90546397b",
    ("mean", "arm64-sve256"): "4c542d7685e732e6238eb457602d436232ed825bc5b2ddd43157b48fba35cdf2",
    ("norm1", "arm64-sve256"): (
        "6b8578ea300f01720e9e0bfcb342ed9a8d082e1fefe88be051d46d4628329470",
        "745579faa4e62d30bdec4dda9be6dd0a487d620015350f951702ca585df58412",
        "0b7e60c05ef0cca803f311360ccf67a2841d96a3a16f7fdc48e6ab707a119ff6",
    ),
    ("norm2", "arm64-sve256"): "4d846781b56742a533b884aa0dcb6ef04ec1bd5628f0263d00139e7c46ce025c",
    ("log_softmax", "arm64-sve256"): "8579c4925d979288ed9e363256914516b549aafd8a60b630b332ac947a17c6c4",
    ("log_softmax_cols", "arm64-sve256"): "f03a6cbd9c27dfac4f0721417de5fdb6120282dd0175e0af9a5b01aac8277711",
    ("log_softmax_cols_backward", "arm64-sve256"): (  # the inline copy at 1 thread, the OpenMP body's at 2 and 4
        "b0f08540e389c23f3ddcb7bb5dc782709aefdd547fa27a9dc3771d5509f75648",
        "f7f1b4e351e44169ad54bcc2e7d6a2954a4e7394848dc780a8a918782f503fab",
        "f7f1b4e351e44169ad54bcc2e7d6a2954a4e7394848dc780a8a918782f503fab",
    ),
}
# op -> the cases the impl refuses, the same on the three profiles
_REFUSED = {
    "sum": (1, 3, 5, 7, 10, 11, 13, 14, 15, 17, 19, 21, 22, 23, 27, 29, 31, 38, 39, 41, 43, 46, 47),
    "mean": (1, 3, 5, 7, 10, 11, 12, 13, 14, 16, 17, 19, 22, 23, 25, 27, 29, 32, 35, 38, 39, 40, 41, 43, 46),
}
# (op, profile) -> the cases the impl refuses
REFUSALS: dict[tuple[str, str], tuple] = {
    (op, profile): cases for op, cases in _REFUSED.items() for profile in ("arm64-neon", "arm64-sve128", "arm64-sve256")
}


CASES = recording_grid(cases.OPS)


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    replay = replayed_case_file(cases, op, profile_name, threads)
    assert replay == recorded(DIGESTS, REFUSALS, (op, profile_name), threads)


def test_two_threads_summing_at_once_each_get_their_own_nan_pick_verdict() -> None:
    """A sum whose outer loop meets two NaN payloads (aarch64's pick there not read) is refused and one of ones
    answered, each as often as two Python threads run them side by side: the C flag saying so is the calling
    thread's (it had been one per process, so one thread's sum could clear or set the other's verdict)."""
    import threading

    from harness.core.errors import ParityError
    from harness.impl.profiles import get_profile
    from harness.impl.reduce import sum_dims

    profile = get_profile("arm64-neon", 1)
    mixed, ones = np.ones((256, 64), np.float32), np.ones((256, 64), np.float32)
    mixed.view(np.uint32)[3, 0], mixed.view(np.uint32)[200, 0] = 0x7FC00001, 0x7FC00002

    def refused(x: np.ndarray) -> bool:
        try:
            sum_dims(x, 0, profile)
        except ParityError:
            return True
        return False

    wrong: list[str] = []

    def run(x: np.ndarray, want: bool, what: str) -> None:
        wrong.extend(what for _ in range(1500) if refused(x) != want)

    threads = [
        threading.Thread(target=run, args=(mixed, True, "mixed")),
        threading.Thread(target=run, args=(ones, False, "ones")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong, f"{len(wrong)} verdicts taken from the other thread's sum ({sorted(set(wrong))})"
