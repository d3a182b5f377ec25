"""oneDNN's SSE4.1 gemv 'T' kernel (jit_sse41_gemv_t_f32_kern; csrc/conv.c ``dnnl_gemv_t_sse41``) as its
sgemm runs it for an sgemm with one row, against torch's recorded bits (torch 2.13.0 on an AMD EPYC,
ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41; ONEDNN_VERBOSE named ``x64:gemm:jit`` for every
convolution here).

Grouped convolutions through gemm:jit's forward over all groups (``conv._vector_gemm_jit_forward``, its
sgemms harness.impl.onednn_sgemm's): on 2 threads the blocking's split falls inside an image and leaves a
piece of one output pixel (m = 1); with one-pixel images every piece is one. ``groups3-t2`` and
``k700-strided-t2`` take a 1x1 kernel without im2col, so x is strided by the image's pixels and
gemv_kernel_driver hands the kernel copies of 512 terms (K = 700: 512, then 188); the 3x3 cases have K = 63
(56 terms in the lanes, then pieces of 4, 2 and 1). Before the kernel was modelled every case here was
refused (ParityError). The LSTM layer with one hidden unit runs the kernel in its backward (the h
gradient: W_hh^T @ dG with four terms), refused before too.

Inputs: x, w, b from ``np.random.default_rng(seed)``, each ``standard_normal * 2**integers(-10, 10)`` as
float32; the digests are SHA-256 of torch's output as uint32; the LSTM's are tests/lstm_cases.py's.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import conv, conv_grouped
from harness.impl.profiles import get_profile, profile_for_capability
from tests.bit_digest import bits_sha256
from tests.lstm_cases import digest as lstm_digest
from tests.lstm_cases import impl_outputs

# (name, threads, x shape, w shape, groups, seed, SHA-256 of torch's output)
CASES = (
    ("groups3-t2", 2, (3, 30, 1, 3), (12, 10, 1, 1), 3, 701,
     "32dc05d66986bdb2a3bbce60888c939513df1994b7b4de7a163e10b50fdf3cc1"),
    ("k700-strided-t2", 2, (1, 2100, 1, 3), (15, 700, 1, 1), 3, 702,
     "99dfdd3bb537434b9d57431b99b92387e7c1550db9cca51fb11c27733e9f0f3c"),
    ("k63-one-pixel-t1", 1, (5, 28, 3, 3), (28, 7, 3, 3), 4, 703,
     "2952a93fc2de4d0d2d3367a0f9dc497b2d194ea98cb8aa1f7751a6f926c2fb4e"),
    ("k63-one-pixel-t2", 2, (5, 28, 3, 3), (28, 7, 3, 3), 4, 704,
     "ca064de6d63512903019fe61f962f32af7bc79b548c944b9c0bee18dcde15d3a"),
)  # fmt: skip

# LSTM ("hidden-1", T 2, B 3, I 4, H 1, forward, bias, training, seed 5), the same bits on 1 and 2 threads:
# out, hy, cy, grad_x, grad_w_ih, grad_w_hh, grad_b, grad_h0, grad_c0
LSTM_HIDDEN_1 = (
    "5cbbecf8765b9d2d cacdb02c2d026e84 7cd9c8092d8e32a4 1318c48e8006bc75 2d7ee47811e141b6 0804fa9c24bf82e6 "
    "0eafb6cad26f7d41 514974bbf8827c4d 72e8db39f18bd120"
)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_recorded_bits(case) -> None:
    _name, threads, xs, ws, groups, seed, want = case
    rng = np.random.default_rng(seed)

    def values(shape):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-10, 10, shape)).astype(np.float32)

    x, w, b = values(xs), values(ws), values(ws[:1])
    profile = profile_for_capability("DEFAULT", threads, "x86_64")
    g = conv_grouped._group_geometry(xs, ws, (1, 1), (0, 0), groups)
    calls = conv._vector_gemm_jit_calls(g, profile, 0, groups)
    assert any(call.m == 1 and call.n > 1 for call, _ in calls)  # an sgemm with one row: gemv 'T'
    assert bits_sha256(conv._vector_gemm_jit_forward(x, w, b, g, profile, groups)) == want


@pytest.mark.parametrize("threads", [1, 2])
def test_lstm_one_hidden_unit(threads: int) -> None:
    case = ("hidden-1", 2, 3, 4, 1, False, True, True, 5)
    got = impl_outputs(case, get_profile("x86-baseline", threads))
    assert " ".join(lstm_digest(o) for o in got) == LSTM_HIDDEN_1
