"""The impl's LSTM layer (harness.impl.rnn, oneDNN's RNN primitive on aarch64: ref_gemm and its ref
postgemms) under the Linux arm64 profiles, against digests of torch's outputs recorded under emulation
(torch 2.13.0 aarch64 wheel, emulated Neoverse N1, V1 and V2, 1 and 2 threads;
``python tools/emulate_arm64.py run --cores C --threads N -- tests/lstm_cases.py``): out, hy, cy and,
in training, the six gradients equal as uint32 bit patterns, case by case. Torch-free.

The x86 profiles must not reproduce them: the test fails if the aarch64 branch (ref_gemm, glibc's
expf and tanhf) falls back to x86's JIT arithmetic.
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.lstm_cases import CASES, digest, impl_outputs

CORES = {"n1": "arm64-neon", "v1": "arm64-sve256", "v2": "arm64-sve128"}

# torch's outputs under emulation on N1, 1 thread: case -> digests in tests/lstm_cases.py NAMES order
ONE_THREAD: dict[str, str] = {
    "tagger-layer": "3ae9344baa3e228b 28b27d64afe2f454 35f2dfa5c8db68c8 1b60c097bbd1851b b824424591db5fe1 "
    "7c4283d689357d9e 6856fc192b568fe1 2e910d1555f480c4 da4d78344702dbc4",
    "reverse": "487c881d9542fb67 f8d9d5bf1fdc6abf dbd85fda78bdcd23 5e19b7ae234dec6d 1f43a9adbb561131 "
    "b8c7e5cc5f76c65b 917a37aec4fd5de5 478a8c8f5e226bfd b252bc8ffdf11c68",
    "no-bias": "8afc2025b617c37a 4b6cd258d8467aa3 52bb96f2c1ef048b a668dfcd73af24c0 e0ac6b4d12a55299 "
    "73c6aa4ce3c773c8 75c6717b64617d6c d8f91fca1a0d22aa 286ac8c813406cd3",
    "one-row": "2c06229e9a6d7c0c 8bd47558af24fe21 19952178b771408d 90c8b41026ef38f1 054037e7257c3dae "
    "5584f81a48139e66 6406e5acb1929934 6076864209ca5a2f 3059b06dd3ccf0e3",
    "inference": "24d57a7c5cdc8063 b8e100476e06797e 53c3105e59d9c1de",
    "inference-fused": "6dbf106d2dff5baf 70ed0ca20b347260 07347ec5a2753838",
    "inference-one-row": "5e1d67bf70912caf ca9614f4d1f89d7f e7cf0038c91cb984",
    "long-wide": "a2a242c7f54c12d4 9eb49dce0a6d378c 1a5e65b6fea2d493 193f654655fc70d7 7be262114ad9e9cd "
    "f39049f54f773d4a a8638f872d768f24 34e790574b179293 bc48376514f0410f",
    "hidden-130": "c39e0e6729e818c4 a6399e3f38c634de 21c94bd3aceef323 639e96954429def2 238ab8e4a8dc61b1 "
    "8e2672ab7da068dc b2225bc662f5e885 ea9c039c17b74fd6 65a54924e2a46afe",
    "batch-130": "d15b874bb63b304b 14bb76cf5dfbea88 4916db67151b8768 f84a16267524222b b1551f010861c27f "
    "e24e367555483577 d2872251e3e0212b f8a7997388132f3d dd5a45815b2a3d21",
    "hidden-520": "3260f57176455704 02ac4f5b6b6a1705 0be296e80ccd0a00 43b30cb66a3ca90e 3bda1c85c7eae2dc "
    "b61a18c4e129b7f9 068fe37b01e012ce 1b3fe2d2c8f86129 1b40b6f22be6388a",
}
# on 2 threads: the cases whose bits changed (ref_gemm's split of K); the others recorded equal
TWO_THREADS: dict[str, str] = {**ONE_THREAD}
TWO_THREADS.update(
    {
        "one-row": "2c06229e9a6d7c0c 8bd47558af24fe21 19952178b771408d 90c8b41026ef38f1 054037e7257c3dae "
        "9b10e0e8eec54796 6406e5acb1929934 6076864209ca5a2f 3059b06dd3ccf0e3",
        "hidden-130": "c39e0e6729e818c4 a6399e3f38c634de 21c94bd3aceef323 1338441fd076968b 238ab8e4a8dc61b1 "
        "8e2672ab7da068dc b2225bc662f5e885 ea9c039c17b74fd6 65a54924e2a46afe",
    }
)
RECORDED = {1: ONE_THREAD, 2: TWO_THREADS}
# V1 on 1 thread and V2 on 1 and 2 threads were recorded too: the same digests as N1's on as many
# threads (the primitive's code on aarch64 is scalar C++ and ref_gemm, nothing SVE)
RECORDED_ON = {("n1", 1): 1, ("n1", 2): 2, ("v1", 1): 1, ("v2", 1): 1, ("v2", 2): 2}


def _digests(case: tuple, profile_name: str, threads: int) -> str:
    return " ".join(digest(x) for x in impl_outputs(case, get_profile(profile_name, threads)))


@pytest.mark.parametrize(("core", "threads"), sorted(RECORDED_ON))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch_under_emulation(case: tuple, core: str, threads: int) -> None:
    assert _digests(case, CORES[core], threads) == RECORDED[RECORDED_ON[(core, threads)]][case[0]]


def test_x86_arithmetic_does_not_give_aarch64_bits() -> None:
    """x86's JIT postgemm (the injector's exp and tanh) and sgemm give other bits than N1's torch in
    every training case."""
    want = RECORDED[1]
    for case in CASES:
        if case[7]:
            assert _digests(case, "x86-avx2", 1) != want[case[0]], case[0]


def test_thread_count_reaches_the_bits() -> None:
    """ref_gemm's split of K over 2 threads changes some case's bits on N1, and the impl follows it."""
    changed = [c[0] for c in CASES if RECORDED[1][c[0]] != RECORDED[2][c[0]]]
    assert changed
