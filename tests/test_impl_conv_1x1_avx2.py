"""oneDNN's jit_1x1:avx2 backward (NCHW, stride 1) against torch's recorded bits (torch 2.13.0 on an AMD
EPYC, ATEN_CPU_CAPABILITY=avx2, ONEDNN_MAX_CPU_ISA=AVX2): grad_weight split only between the threads
that cpu_reducer's balance puts on one weight job (PoolFormer's 1x1 at 2 threads: 2 jobs, one thread
each), grad_input in kernel calls of 64 output channels, each call's chain added.

Inputs: x, w, dy from ``np.random.default_rng(seed)``, each ``standard_normal * 2**integers(-10, 10)``
as float32; the digests are SHA-256 of torch's grad_input, grad_weight and grad_bias as uint32.
Before this model, the first two cases' grad_weight and the last two's grad_input differed.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from harness.impl import conv
from harness.impl.profiles import profile_for_capability

CASES = (
    ("pf-1x1-t2", 2, (4, 128, 4, 4), (32, 128, 1, 1), 501, (
        "ff81389ac8b624610b8e67895c623c4f28c4b6948ecefb624eaa29492d45306c",
        "013910726bf496d2ae9dc3a1120e2d5488fdde4e6137234962b84ef003437a34",
        "153f4e12bc1044302e6aa4e7c66999c4f8dd169c9a56b2a5a7bcb3e0bfecd15a")),
    ("pf-1x1-t4", 4, (4, 128, 4, 4), (32, 128, 1, 1), 502, (
        "b5f68713dcf865ef4f8340825f608ac990722cb3bd856600d5f157fa666327d3",
        "ace13bdb426d442d03c4292b8d1b723410b5d09d942053d4c6d0e80a2a03213d",
        "deb4603b7bed4c82072a007fdbe15c0db5128b1a04aa40a95ecf4750ed4f3f04")),
    ("oc-chunks-t2", 2, (3, 24, 5, 7), (136, 24, 1, 1), 503, (
        "699aa1d68ebd81592721055c2d2fcfee62845840891529bd124729dc50419570",
        "b05e783701a953388a838375cba3b57582c74dc1832123dcdf5e884489b504a0",
        "0b418f6128a7075d89b84269b5244e814e73f884a18c72d466c1a7e53e978ab9")),
    ("n16-t1-calls", 1, (16, 40, 15, 14), (72, 40, 1, 1), 504, (
        "33ba36fdd6fb01a5d65e3406027db2d67a21113d4eeda33c3911470dc401c019",
        "c35609e7997b89ff0b94a799ad2c1db43334f8a2c98e77b5aae5dc5ea72e4e7a",
        "7b19e8ed09603dce05d21f1bae16a780bf7ad5fea147ea130345e060660aa805")),
)  # fmt: skip


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, np.float32).view(np.uint32).tobytes()).hexdigest()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_recorded_bits(case) -> None:
    _name, threads, xs, ws, seed, want = case
    rng = np.random.default_rng(seed)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    x, w = values(xs), values(ws)
    dy = values((xs[0], ws[0], xs[2], xs[3]))
    profile = profile_for_capability("AVX2", threads, "x86_64")
    assert conv.path(x.shape, w.shape, (1, 1), (0, 0), profile) == conv.AVX2
    got = conv.conv2d_backward(dy, x, w, (1, 1), (0, 0), True, profile)
    assert [_digest(g) for g in got] == list(want)


def test_reducer_groups() -> None:
    """PoolFormer's shape has 2 weight jobs: one thread each on 2 threads, two each on 4."""
    g = conv._geometry((4, 128, 4, 4), (32, 128, 1, 1), (1, 1), (0, 0))
    assert conv._avx2_1x1_jobs(g) == (2, 2048)
    assert [conv._avx2_1x1_group_threads(g, t) for t in (2, 4)] == [1, 2]
    assert conv._avx2_1x1_group_threads(conv._geometry((3, 24, 5, 7), (136, 24, 1, 1), (1, 1), (0, 0)), 2) == 2
