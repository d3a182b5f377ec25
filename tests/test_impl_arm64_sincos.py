"""sin and cos under the Linux arm64 profiles (harness.impl.unary, csrc/unary.c vml_map, csrc/vmath.h
sleef_sinf_u10/sleef_cosf_u10 and their Payne-Hanek lanes sleef_sinf_u10_ph/sleef_cosf_u10_ph), against torch
2.13.0's aarch64 wheel run under QEMU (``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_sincos_cases.py``, emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with torch.set_num_threads in
one process): the SHA-256 of torch's output bits over each op's cases, as recorded there. Torch-free.

What the recordings pin: SLEEF's u10 sinf/cosf (Sleef_sinf4_u10/cosf4_u10 in the NEON-typed objects of N1 and V2,
Sleef_sinfx_u10sve/cosfx_u10sve in V1's SVE256 one) on every element of vec::map, the tail included; a vector whose
lanes all have |x| < 125 takes the Cody-Waite branch, any other (a lane of |x| >= 125, an infinity or a NaN) the
Payne-Hanek one (rempif and its table of 1/(2*pi)) on every lane, its small lanes too; vectors of 4 lanes on N1 and V2,
8 on V1, from each thread's chunk of the 2,048-element grain; -0 kept by sin, subnormals not flushed, a NaN or an
infinity giving 0xffffffff. MKL's sin/cos (the x86 profiles) must not give these bits.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import unary
from harness.impl.profiles import get_profile
from tests import arm64_sincos_cases as cases
from tests.arm64_sampling_cases import ARM64_PROFILES, recorded, recording_grid, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike or at each
# (some vectors' lanes change with the thread chunks; V1's 8-lane vectors give other bits than N1's and V2's)
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ("sin", "arm64-neon"): "ac7e67ebf45fcd77ff54fdd7e72b126287fd76e48947660db8c07a9d9d8713f8",
    ("cos", "arm64-neon"): (
        "4a330c98e3903b1af9191f69c7d85608a04ec2941886e872c3117a1deb3d1508",
        "59b484739127660b163a99e19a5f961706708266edf45f9d94534a1a3cf888c6",
        "e507b4c18e3477781f5bf7f96c7b9fe8830631388896e192d68823e72ee53445",
    ),
    ("sin", "arm64-sve128"): "ac7e67ebf45fcd77ff54fdd7e72b126287fd76e48947660db8c07a9d9d8713f8",
    ("cos", "arm64-sve128"): (
        "4a330c98e3903b1af9191f69c7d85608a04ec2941886e872c3117a1deb3d1508",
        "59b484739127660b163a99e19a5f961706708266edf45f9d94534a1a3cf888c6",
        "e507b4c18e3477781f5bf7f96c7b9fe8830631388896e192d68823e72ee53445",
    ),
    ("sin", "arm64-sve256"): (
        "857eda91efd8fa83ce4b17c30e40a15555f15484cc9fa2ccd993de5a47af7e01",
        "857eda91efd8fa83ce4b17c30e40a15555f15484cc9fa2ccd993de5a47af7e01",
        "83fe1f1bf74c61ead9157b1afb58dcecf83d4e1386faab1f90abd7ea3fdec858",
    ),
    ("cos", "arm64-sve256"): (
        "a71afc40aaa7380f1eac630bdee40f98ab78bfde0970c0193758b400d5447b32",
        "f8e026b8c16c6ea7e4cf171c63e1cf98be042fd6a594fd81a9c6318387464c89",
        "43452b2a59396b76725e2fef5791c29f100b4ba5805d09fb06dea332c0c5cb48",
    ),
}
CASES = recording_grid(cases.OPS)
# one input in lane 0 of an otherwise zero 8-element tensor, and torch's sin and cos bits for it on N1 (V2 and V1
# gave the same): NaNs (quiet, signalling, both signs, payloads), infinities, |x| >= 125 up to the largest floats
SPECIAL = (
    (0x7FC00000, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFC00000, 0xFFFFFFFF, 0xFFFFFFFF), (0x7FC00123, 0xFFFFFFFF, 0xFFFFFFFF),
    (0xFFC00123, 0xFFFFFFFF, 0xFFFFFFFF), (0x7F800001, 0xFFFFFFFF, 0xFFFFFFFF), (0xFF800456, 0xFFFFFFFF, 0xFFFFFFFF),
    (0x7FBFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0x7F800000, 0xFFFFFFFF, 0xFFFFFFFF), (0xFF800000, 0xFFFFFFFF, 0xFFFFFFFF),
    (0x42FA0000, 0xBF1DB4D4, 0x3F49A7A8), (0xC2FA0000, 0x3F1DB4D4, 0x3F49A7A8), (0x4479C000, 0xBCD8C438, 0x3F7FE90D),
    (0x7F7FFFFF, 0xBF0599B3, 0x3F5A5F96), (0xFF7FFFFF, 0x3F0599B3, 0x3F5A5F96), (0x5F000000, 0x3F7FFB70, 0x3C41551C),
    (0x4B000000, 0x3EDD4FA3, 0xBF66D965),
)  # fmt: skip


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    replay = replayed_case_file(cases, op, profile_name, threads)
    assert replay == recorded(DIGESTS, {}, (op, profile_name), threads)


@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
@pytest.mark.parametrize("op", cases.OPS)
def test_special_inputs(op: str, profile_name: str) -> None:
    x = np.zeros((len(SPECIAL), 8), np.uint32)
    x[:, 0] = [row[0] for row in SPECIAL]
    got = [int(unary.forward(op, v.view(np.float32), get_profile(profile_name)).view(np.uint32)[0]) for v in x]
    assert [hex(g) for g in got] == [hex(row[1 if op == "sin" else 2]) for row in SPECIAL]


def test_the_payne_hanek_table_is_the_digits_of_one_over_two_pi() -> None:
    pytest.importorskip("mpmath")
    tool = Path(__file__).resolve().parent.parent / "tools" / "gen_sleef_rempitab.py"
    assert subprocess.run([sys.executable, str(tool), "--check"], check=False).returncode == 0


@pytest.mark.parametrize("op", cases.OPS)
def test_x86_mkl_does_not_give_the_arm64_bits(op: str) -> None:
    """MKL VML's sin/cos (x86, its generic path) over the cases both replay: other bits."""
    arm, x86 = get_profile("arm64-neon"), get_profile("x86-avx2")
    differ = 0
    for case in cases.CASES[op]():
        try:
            b = cases.impl_output(op, case, x86)
        except ParityError:  # |x| > 10000: VML's large-argument kernel
            continue
        differ += int((cases.impl_output(op, case, arm).view(np.uint32) != b.view(np.uint32)).sum())
    assert differ > 0
