"""Batch norm on ATen's TensorIterator path (an input neither contiguous nor channels-last: training forward,
eval forward, backward), upsample_bilinear2d_backward and upsample_trilinear3d_backward over a channels-last
contiguous gradient, _upsample_bicubic2d_aa and its backward, and mul of complex64 tensors under the Linux
arm64 profiles, through the trace's replays, against torch 2.13.0's aarch64 wheel run under QEMU
(``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_layouts_aa_complex_cases.py``,
emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with torch.set_num_threads in one process): the
SHA-256 of torch's output bits over each op's cases of tests/arm64_layouts_aa_complex_cases.py that the
impl does not refuse, as recorded there, and which cases it refuses. Torch-free.

What the recordings pin: Normalization.cpp's aarch64 build fuses the transform's last step and the
statistics' double sums (the backward's grad_input none of it), the reductions' lanes per object (the
backward's at::sum with the thread count), aarch64's default NaN; the channels-last linear backward's
vector body rounded in V1's SVE256 object only; the antialiased bicubic sums' vectorised body (4 lanes in
V2's SVE128 object, 8 in V1's, none in N1's NEON object, whose every step is fused); complex mul's product
fused one way or the other by the element's place in ATen's vector body and tail, per object.
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests import arm64_layouts_aa_complex_cases as layouts
from tests.arm64_sampling_cases import ARM64_PROFILES, digest, recorded, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike
# (or one per thread count), over the cases the impl does not refuse
DIGESTS = {
    ('bn_train', 'arm64-neon'): '6dc47e6a1afc2b71dd90b90455040d9f053b528f141eba602bd010b15fb1a644',
    ('bn_train', 'arm64-sve128'): '6dc47e6a1afc2b71dd90b90455040d9f053b528f141eba602bd010b15fb1a644',
    ('bn_train', 'arm64-sve256'): 'feeef7e61416f90c7bae0a9a63b14054a35cf8e267c0de43fc5da81ee9d3fadc',
    ('bn_eval', 'arm64-neon'): 'c0416c821a15d401ee66c4062c225c61c9aeb199005779d439c767a9df28bb53',
    ('bn_eval', 'arm64-sve128'): 'c0416c821a15d401ee66c4062c225c61c9aeb199005779d439c767a9df28bb53',
    ('bn_eval', 'arm64-sve256'): 'c0416c821a15d401ee66c4062c225c61c9aeb199005779d439c767a9df28bb53',
    ('bn_backward', 'arm64-neon'): 'ffa466cd0d7a6d5b73148533593074972c550127beff675d4f3ff651d718d239',
    ('bn_backward', 'arm64-sve128'): 'ffa466cd0d7a6d5b73148533593074972c550127beff675d4f3ff651d718d239',
    ('bn_backward', 'arm64-sve256'): '8b465e742982e6b869cee5ca72b7cf5fc70656b7398aebbabe5923006c23a6f9',
    ('bilinear2d_backward_cl', 'arm64-neon'): '02009a6249d4063fb3ab65d8c46acf3f88314650d775122221171bf616696a13',
    ('bilinear2d_backward_cl', 'arm64-sve128'): '02009a6249d4063fb3ab65d8c46acf3f88314650d775122221171bf616696a13',
    ('bilinear2d_backward_cl', 'arm64-sve256'): '57f2497654e94067d74ce2f3f2c201fc021bf29f9a0ada2a8f5febd89523e364',
    ('trilinear3d_backward_cl', 'arm64-neon'): 'f396401cce665e5ac5e8d0d3deef53b2c7ba0f573a5dd0e18fd2d7db02a8b9f4',
    ('trilinear3d_backward_cl', 'arm64-sve128'): 'f396401cce665e5ac5e8d0d3deef53b2c7ba0f573a5dd0e18fd2d7db02a8b9f4',
    ('trilinear3d_backward_cl', 'arm64-sve256'): '6bc929e516388bce3391f305168a30fe2ea851c17d182ebb2c95c50e08b9f4b6',
    ('bicubic_aa', 'arm64-neon'): '7ca3e65b3599cbc95a1e33373bc23a0826c2be88b3253c4e37bb45eca6aa128e',
    ('bicubic_aa', 'arm64-sve128'): 'c0ca7edb77ed804a438c8e5d6310a36afeb2376ecbdece4d4860c9290d8883c7',
    ('bicubic_aa', 'arm64-sve256'): '7a136ad35243c10bb0734d1072864395850bb325c6cd02e34306004731330570',
    ('bicubic_aa_backward', 'arm64-neon'): '89f67367dbfd8977ef86339c2e7cec7d7152661196ba58389a4a00c84b322876',
    ('bicubic_aa_backward', 'arm64-sve128'): '89f67367dbfd8977ef86339c2e7cec7d7152661196ba58389a4a00c84b322876',
    ('bicubic_aa_backward', 'arm64-sve256'): '89f67367dbfd8977ef86339c2e7cec7d7152661196ba58389a4a00c84b322876',
    ('complex_mul', 'arm64-neon'): 'dcdd3ff61cb064da439ca91d1d3d84a84901e3e8a667a284c92a4b85106876ae',
    ('complex_mul', 'arm64-sve128'): '19af1f575eddab69f26ed521514f2ba6bf3032acf0ed7f9dd8c9073610f18f0f',
    ('complex_mul', 'arm64-sve256'): '4d638fe5751846a9cf8265133fc32b919ee5b4294419c2902d388ae5ccf3795e',
}  # fmt: skip
REFUSED = {
    ('bn_train', 'arm64-neon'): (3, 7, 11, 13, 15),
    ('bn_train', 'arm64-sve128'): (3, 7, 11, 13, 15),
    ('bn_train', 'arm64-sve256'): (3, 7, 11, 13, 15),
    ('bn_backward', 'arm64-neon'): (1, 5, 7, 11, 13, 15),
    ('bn_backward', 'arm64-sve128'): (1, 5, 7, 11, 13, 15),
    ('bn_backward', 'arm64-sve256'): (1, 5, 7, 11, 13, 15),
    ('bicubic_aa', 'arm64-neon'): (5, 11),
    ('bicubic_aa', 'arm64-sve128'): (5, 11),
    ('bicubic_aa', 'arm64-sve256'): (5, 11),
    ('bicubic_aa_backward', 'arm64-neon'): (5, 11),
    ('bicubic_aa_backward', 'arm64-sve128'): (5, 11),
    ('bicubic_aa_backward', 'arm64-sve256'): (5, 11),
    ('complex_mul', 'arm64-neon'): (5, 11, 17),
    ('complex_mul', 'arm64-sve128'): (1, 4, 5, 6, 7, 10, 11, 13, 17),
    ('complex_mul', 'arm64-sve256'): (5, 11, 17),
}  # fmt: skip


@pytest.mark.parametrize("op", layouts.OPS)
@pytest.mark.parametrize("profile_name", ARM64_PROFILES)
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_impl_matches_the_recording(profile_name: str, op: str, threads: int) -> None:
    replay = replayed_case_file(layouts, op, profile_name, threads)
    assert replay == recorded(DIGESTS, REFUSED, (op, profile_name), threads)


@pytest.mark.parametrize("op", [op for op in layouts.OPS if op != "bicubic_aa_backward"])
def test_x86_rules_give_other_bits(op: str) -> None:
    """The x86 AVX2 profile's arithmetic (its contractions, its NaNs) over the cases N1's profile models
    misses the N1 recording of every op but the antialiased bicubic backward (fused alike on both): the
    tests above check aarch64's rules."""
    expected, skip = recorded(DIGESTS, REFUSED, (op, "arm64-neon"), 1)
    profile = get_profile("x86-avx2", 1)
    outputs = [[layouts.impl_output(op, case, profile)] for j, case in enumerate(layouts.CASES[op]()) if j not in skip]
    assert digest(iter(outputs)) != expected
