"""erf, log2, acos, hann_window and _cdist_backward of other p than 0, 1, 2 and inf under the Linux arm64 profiles,
against torch 2.13.0's aarch64 wheel run under QEMU (``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_vml_cases.py``, emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with torch.set_num_threads in
one process): the SHA-256 of torch's output bits over each op's cases that the impl does not refuse, as recorded
there, and which cases it refuses. Torch-free.

What the recordings pin: ATen's NEON Vectorized<float>::erf in N1's and V2's objects (A&S 7.1.26, exp_u20 or, for
a 4-lane vector holding |x| past 9.35, SLEEF's expf: the groups start at each thread's chunk and each run of the
loop), SLEEF's erff in V1's SVE256 object; SLEEF's log2f and acosf lanes on every core (vec::map, every element a
lane, NaN rules included); hann_window over SLEEF's cosf; _cdist_backward's Vectorized pow (SLEEF's powf) for p =
0.5, 1.5, 3 and 0.25, its NaN results included. MKL's vsErf/vsLog2/vsAcos (the x86 profiles) must not give these bits.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl.profiles import get_profile
from tests import arm64_vml_cases as cases
from tests.arm64_sampling_cases import recorded, recording_grid, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike
# (or one per thread count), over the cases the impl does not refuse
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ('erf', 'arm64-neon'): (
        'd554e237845d3d85e31aa4ef7fd712866a097b012b34861abdf0ecae69dfb832',
        'd62766cf2ec869bf2d20f2e98d67e97ebb690fc234dba3f03dc2cf67de1ac575',
        'd60ee3d50f68eebd429401307dba5b537984e8ad881ba6dc3d7b0ba3df9ecbca',
    ),
    ('log2', 'arm64-neon'): '57ac883777f681297f29d77f89b11f0147360aba237d8aec1bf53fa40462dc50',
    ('acos', 'arm64-neon'): 'bd5b0e867d052f9e2521518a920fe4e0745abf20ab7ff82caa87d2ce0e728fd0',
    ('hann_window', 'arm64-neon'): '3e7a72f52a26886e24f813221e2a306d42617658d4b84ff5e379ba5cf2f74d08',
    ('cdist_backward', 'arm64-neon'): '31636f6b6f7035f5ea5d404777be4e1cf8beb5ea0eb9a9a29c249bb830491ad7',
    ('erf', 'arm64-sve128'): (
        'd554e237845d3d85e31aa4ef7fd712866a097b012b34861abdf0ecae69dfb832',
        'd62766cf2ec869bf2d20f2e98d67e97ebb690fc234dba3f03dc2cf67de1ac575',
        'd60ee3d50f68eebd429401307dba5b537984e8ad881ba6dc3d7b0ba3df9ecbca',
    ),
    ('log2', 'arm64-sve128'): '57ac883777f681297f29d77f89b11f0147360aba237d8aec1bf53fa40462dc50',
    ('acos', 'arm64-sve128'): 'bd5b0e867d052f9e2521518a920fe4e0745abf20ab7ff82caa87d2ce0e728fd0',
    ('hann_window', 'arm64-sve128'): '3e7a72f52a26886e24f813221e2a306d42617658d4b84ff5e379ba5cf2f74d08',
    ('cdist_backward', 'arm64-sve128'): '31636f6b6f7035f5ea5d404777be4e1cf8beb5ea0eb9a9a29c249bb830491ad7',
    ('erf', 'arm64-sve256'): 'ec92a0bb43dc361c9fdf6627562f6f7946cee208e2ba6e0d652bd383fdcbad14',
    ('log2', 'arm64-sve256'): '57ac883777f681297f29d77f89b11f0147360aba237d8aec1bf53fa40462dc50',
    ('acos', 'arm64-sve256'): 'bd5b0e867d052f9e2521518a920fe4e0745abf20ab7ff82caa87d2ce0e728fd0',
    ('hann_window', 'arm64-sve256'): '3e7a72f52a26886e24f813221e2a306d42617658d4b84ff5e379ba5cf2f74d08',
    ('cdist_backward', 'arm64-sve256'): 'c6aed473d904cedec6c2dd267bc44eb929ec536542610aacb07bf222abe91416',
}  # fmt: skip
# no case refused (_cdist_backward's NaN results modelled in the objects' orders, csrc/nn.c)
REFUSED: dict[tuple[str, str], tuple] = {}
CASES = recording_grid(cases.OPS)


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    replay = replayed_case_file(cases, op, profile_name, threads)
    assert replay == recorded(DIGESTS, REFUSED, (op, profile_name), threads)


@pytest.mark.parametrize("op", ("erf", "log2", "acos"))
def test_x86_mkl_does_not_give_the_arm64_bits(op: str) -> None:
    """MKL VML's erf/log2/acos (x86, its generic path) over the cases the arm64 profiles replay: other bits."""
    arm, x86 = get_profile("arm64-neon"), get_profile("x86-avx2")
    differ = 0
    for case in cases.CASES[op]():
        a, b = cases.impl_output(op, case, arm), cases.impl_output(op, case, x86)
        differ += int((a.view(np.uint32) != b.view(np.uint32)).sum())
    assert differ > 0
