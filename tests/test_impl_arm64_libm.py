"""erfinv, atanh, kaiser_window, polar and smooth_l1_loss's and huber_loss's backwards under the Linux arm64
profiles, against torch 2.13.0's aarch64 wheel run under QEMU (``python tools/emulate_arm64.py run --cores C
--threads 4 -- tests/arm64_libm_cases.py``, emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with
torch.set_num_threads in one process): the SHA-256 of torch's output bits over each op's cases that the impl
does not refuse, as recorded there, and which cases it refuses. Torch-free.

An erfinv sample of 1,441,813 inputs (arm64_libm_cases.erfinv_sample) and 48 cdists of other p than 0, 1, 2 and inf
(arm64_libm_cases.cdist_cases: aarch64 glibc's powf per term) recorded on the three cores alike at one thread.

What the recordings pin: ATen's scalar calc_erfinv as GCC contracts it for aarch64 (no MKL there), over aarch64
glibc's erff, expf and logf; SLEEF's advsimd/SVE atanhf in atanh's vector lanes and aarch64 glibc's atanhf (its
contracted log1pf, the default NaN +qNaN past 1) in the tails and strided runs; kaiser_window's i0 contracted in
every aarch64 build; polar's aarch64 sincosf and FMUL's NaN order; the backwards' blocks of two of the core's
vectors and their tails (no sign flip of a NaN grad, an invalid product's +qNaN).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.impl import nn, unary
from harness.impl.profiles import get_profile
from tests import arm64_libm_cases as cases
from tests.arm64_sampling_cases import ARM64_PROFILES, recorded, recording_grid, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike
# (or one per thread count), over the cases the impl does not refuse
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ('erfinv', 'arm64-neon'): 'e3fe183a382f6f12dc447ceff270308e15fe8f2be67c2e29b0df464610740a55',
    ('atanh', 'arm64-neon'): 'f84ff37e05e80d1d9745985e314a9289be6eb2a18710e06e8b55900a1eccc1ae',
    ('kaiser_window', 'arm64-neon'): 'fb4be2aa5613ccf2beec32657f80d451609493858d608eaa80fb395afa3ca37f',
    ('polar', 'arm64-neon'): '5fcba44fbd53d0490b0171f4b7c480464cb2295050fd912b96e38b490f8a77e5',
    ('smooth_l1_loss_backward', 'arm64-neon'): (
        '4889a2ae54ebb87867a45833417b2aab11f79c790a20e8582ca64f100f8a6998',
        '4889a2ae54ebb87867a45833417b2aab11f79c790a20e8582ca64f100f8a6998',
        'd9f454a05a3635fe2edd3ef3af3f0ddbdddf4a8be7234a5e803e955c9d5f57ab',
    ),
    ('huber_loss_backward', 'arm64-neon'): '7611537bddb34ff834043253161f90ea591501d8f998da13a5ece67ed94f4393',
    ('erfinv', 'arm64-sve128'): 'e3fe183a382f6f12dc447ceff270308e15fe8f2be67c2e29b0df464610740a55',
    ('atanh', 'arm64-sve128'): 'f84ff37e05e80d1d9745985e314a9289be6eb2a18710e06e8b55900a1eccc1ae',
    ('kaiser_window', 'arm64-sve128'): 'fb4be2aa5613ccf2beec32657f80d451609493858d608eaa80fb395afa3ca37f',
    ('polar', 'arm64-sve128'): '5fcba44fbd53d0490b0171f4b7c480464cb2295050fd912b96e38b490f8a77e5',
    ('smooth_l1_loss_backward', 'arm64-sve128'): (
        '4889a2ae54ebb87867a45833417b2aab11f79c790a20e8582ca64f100f8a6998',
        '4889a2ae54ebb87867a45833417b2aab11f79c790a20e8582ca64f100f8a6998',
        'd9f454a05a3635fe2edd3ef3af3f0ddbdddf4a8be7234a5e803e955c9d5f57ab',
    ),
    ('huber_loss_backward', 'arm64-sve128'): '7611537bddb34ff834043253161f90ea591501d8f998da13a5ece67ed94f4393',
    ('erfinv', 'arm64-sve256'): 'e3fe183a382f6f12dc447ceff270308e15fe8f2be67c2e29b0df464610740a55',
    ('atanh', 'arm64-sve256'): 'c0d5693976d4b0574eca89366f1c361acf0476200e61680f4d331fa1391d5199',
    ('kaiser_window', 'arm64-sve256'): 'fb4be2aa5613ccf2beec32657f80d451609493858d608eaa80fb395afa3ca37f',
    ('polar', 'arm64-sve256'): '5fcba44fbd53d0490b0171f4b7c480464cb2295050fd912b96e38b490f8a77e5',
    ('smooth_l1_loss_backward', 'arm64-sve256'): (
        '5a7f4cb0d82a6b4dc0314da4758b15bf480f709ed1acaa2e65656a2d25a3dfd8',
        '20eaf4064f59fb5a4f8c170b6fb758131ef2f92fe935a4f28bbf23580bbd718d',
        '20eaf4064f59fb5a4f8c170b6fb758131ef2f92fe935a4f28bbf23580bbd718d',
    ),
    ('huber_loss_backward', 'arm64-sve256'): '7611537bddb34ff834043253161f90ea591501d8f998da13a5ece67ed94f4393',
}  # fmt: skip
REFUSED: dict[tuple[str, str], tuple] = {
    ('smooth_l1_loss_backward', 'arm64-neon'): (2,),
    ('huber_loss_backward', 'arm64-neon'): (2,),
    ('smooth_l1_loss_backward', 'arm64-sve128'): (2,),
    ('huber_loss_backward', 'arm64-sve128'): (2,),
    ('smooth_l1_loss_backward', 'arm64-sve256'): (2,),
    ('huber_loss_backward', 'arm64-sve256'): (2,),
}  # fmt: skip
# torch.erfinv's output bits over arm64_libm_cases.erfinv_sample() (1,441,813 inputs), the same on N1, V2 and V1
ERFINV_SAMPLE_DIGEST = "4b0661679d6f947c08bd9f446164e172d7345c4e052db1816b31a4977f677bf1"
# aten._cdist_forward's bits over arm64_libm_cases.cdist_cases() (p = 0.5, 1.5, 3, 0.25), one thread, every core
CDIST_DIGEST = "846f8d98b16761043be4554a29825f8e6e139d97c52759a4588bf50902f5f613"
CASES = recording_grid(cases.OPS)


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    replay = replayed_case_file(cases, op, profile_name, threads)
    assert replay == recorded(DIGESTS, REFUSED, (op, profile_name), threads)


@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
def test_erfinv_over_the_recorded_sample(profile_name: str) -> None:
    out = unary.forward("erfinv", cases.erfinv_sample(), get_profile(profile_name))
    assert hashlib.sha256(np.ascontiguousarray(out).view(np.uint32).tobytes()).hexdigest() == ERFINV_SAMPLE_DIGEST


@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
def test_cdist_of_other_p_matches_the_recording(profile_name: str) -> None:
    h = hashlib.sha256()
    for x1, x2, p in cases.cdist_cases():
        h.update(np.ascontiguousarray(nn.cdist(x1, x2, p, get_profile(profile_name))).view(np.uint32).tobytes())
    assert h.hexdigest() == CDIST_DIGEST

    x1 = np.full((1, 2, 5), np.nan, np.float32)  # NaN distances: FABD's NaN, the sum's and pow's (passed on)
    out = nn.cdist(x1, -x1, 1.5, get_profile(profile_name))
    assert (np.ascontiguousarray(out).view(np.uint32) == 0x7FC00000).all()
