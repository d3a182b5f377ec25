"""Which oneDNN kernel runs each pass of a convolution (harness.impl.conv ``path``, ``direct_kernels``),
against ONEDNN_VERBOSE's implementation names, and the impl's bits on those shapes, live.

Fixed shapes, each on a rule read from oneDNN v3.12's init_conf code: jit:sse41's forward declines
(the kernel in the padding, a left padding over its unroll of 3, KW > 7 with padding and a stride)
and gemm:jit runs; jit:avx512_core's forward declines over its code size for jit:avx2; its backward
weights decline a padding over KH / 2 for jit:avx2 and take 2 input channels (its first-convolution
kernel); its backward data declines over its code size and gemm:jit runs (its AVX-512 sgemm:
harness.impl.onednn_sgemm); an input smaller than the kernel runs jit:avx512_core in every pass; one
output pixel of more than 27 taps (no padding, stride 1, two images) runs ip_convolution (refused);
strided backward data runs jit:avx512_core where brgconv_strided finds no blocking, and with one or
two input channels and a stride not dividing W brgconv_strided's exec_trans (or, where its search
finds no blocking, the kernel below it). Each level in a fresh process (ATen's capability and
oneDNN's ISA pinned together, ONEDNN_VERBOSE=1), there on 1 and 2 threads.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness.core.errors import ParityError
from harness.impl import conv
from harness.impl.profiles import KernelProfile
from tests.impl_live import live_profile, needs_modelled_mkl, needs_verified_profile, normal32, use_threads

pytestmark = pytest.mark.usefixtures("restore_threads")

# (input shape, weight shape, stride, padding) per level, and what each holds
CASES = {
    "baseline": (
        ((2, 8, 9, 14), (8, 8, 3, 3), 1, 1),  # jit:sse41 takes it
        ((2, 40, 10, 3), (16, 40, 5, 5), 1, 5),  # the kernel in the padding: gemm:jit
        ((2, 8, 9, 14), (8, 8, 7, 7), 1, 4),  # a left padding over the unroll of 3: gemm:jit
        ((3, 16, 1, 31), (8, 16, 3, 8), 2, 3),  # KW > 7 with padding and a stride: gemm:jit
        ((2, 3, 6, 14), (16, 3, 3, 5), 2, 1),  # 3 input channels, a stride: jit:sse41
    ),
    "avx512": (
        ((3, 17, 5, 40), (32, 17, 3, 17), 1, 1),  # forward over jit:avx512_core's code size: jit:avx2
        ((3, 3, 7, 12), (8, 3, 7, 8), 1, 4),  # weights: a top padding over KH / 2: jit:avx2
        ((2, 2, 4, 25), (24, 2, 8, 8), 1, 3),  # weights of 2 input channels: jit:avx512_core
        ((2, 3, 7, 30), (16, 3, 3, 16), 1, 0),  # backward data over its code size: gemm:jit
        ((2, 12, 3, 4), (32, 12, 5, 5), 1, 1),  # an input smaller than the kernel: jit:avx512_core
        ((1, 1, 10, 3), (20, 1, 8, 8), 3, 5),  # strided data: brgconv_strided finds no blocking, jit:avx512_core
        ((3, 1, 5, 2), (8, 1, 4, 4), 3, 3),  # strided data, one channel, the stride not dividing W
        ((3, 2, 1, 1), (24, 2, 7, 7), 2, 6),  # likewise two channels: brgconv_strided declines, jit:avx512_core
        ((2, 17, 4, 11), (16, 17, 4, 11), 1, 0),  # one output pixel of 44 taps: ip_convolution, refused
    ),
}
ISA = {"baseline": "sse41", "avx2": "avx2", "avx512": "avx512_core"}
REFUSED = (conv.IP_CONV,)


def predicted(case: tuple, profile: KernelProfile, level: str) -> list[str]:
    """The implementation names ONEDNN_VERBOSE gives (forward, backward data, backward weights) by the
    impl's rules."""
    xs, ws, s, p = case
    g = conv._geometry(xs, ws, (s, s), (p, p))
    kind = conv.path(xs, ws, (s, s), (p, p), profile)
    if kind in (conv.SSE41, conv.GEMM_JIT):
        forward = "ref:any" if kind == conv.GEMM_JIT and conv.gemm_jit_forward_declines(g, profile) else kind
        return [forward, conv.GEMM_JIT, conv.GEMM_JIT]
    names = {conv.BRG_STRIDED: f"brgconv_strided:{ISA[level]}"}
    return [names.get(k, k) for k in conv.direct_kernels(g, kind, profile)]


def _verbose(fn, *args) -> dict[str, str]:
    """ONEDNN_VERBOSE's convolution implementation per prop_kind while ``fn(*args)`` runs (stdout
    captured)."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile("w+") as out:
        os.dup2(out.fileno(), 1)
        try:
            fn(*args)
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        lines = out.read().splitlines()
    names = {}
    for line in lines:
        f = line.split(",")
        if len(f) > 7 and f[2:4] == ["primitive", "exec"] and f[5] == "convolution":
            names[f[7]] = f[6].removeprefix("x64:")
    return names


def _forward_backward(tx, tw, tb, s: int, p: int, rng, ran: dict) -> None:
    """torch's forward and backward of one convolution; its output and grad_output into ``ran``."""
    y = F.conv2d(tx, tw, tb, stride=s, padding=p)
    ran["y"], ran["dy"] = y.detach().numpy(), normal32(rng, tuple(y.shape))
    y.backward(torch.from_numpy(ran["dy"]))


def _kernels_child() -> None:
    """Run in a fresh process: every case of this level on 1 and 2 threads, its verbose names,
    predicted names and bits."""
    level = sys.argv[2]
    report = []
    for threads, (i, case) in ((t, c) for t in (1, 2) for c in enumerate(CASES[level])):
        use_threads(threads)
        profile = live_profile()
        xs, ws, s, p = case
        rng = np.random.default_rng(i)
        x, w, b = normal32(rng, xs), normal32(rng, ws, 0.2), normal32(rng, (ws[0],))
        tx, tw, tb = (torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
        ran: dict[str, np.ndarray] = {}
        names = _verbose(_forward_backward, tx, tw, tb, s, p, rng, ran)
        torch_out = {"out": ran["y"], "grad_input": tx.grad.numpy(), "grad_weight": tw.grad.numpy()}
        torch_out["grad_bias"] = tb.grad.numpy()
        outputs = {}
        for name, want in torch_out.items():
            try:
                if name == "out":
                    got = conv.conv2d(x, w, b, (s, s), (p, p), profile)
                else:
                    mask = tuple(n == name for n in ("grad_input", "grad_weight", "grad_bias"))
                    got = conv.conv2d_backward(ran["dy"], x, w, (s, s), (p, p), True, profile, mask)[mask.index(True)]
            except ParityError:
                outputs[name] = "refused"
                continue
            outputs[name] = int((got.view(np.uint32) != want.view(np.uint32)).sum())
        verbose = [names.get(k, "?") for k in ("forward_training", "backward_data", "backward_weights")]
        report.append(
            {"case": case, "verbose": verbose, "predicted": predicted(case, profile, level), "outputs": outputs}
        )
    print(json.dumps(report))


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("level", sorted(CASES))
def test_kernel_per_pass(level: str) -> None:
    """ONEDNN_VERBOSE names the kernel the impl predicts for every pass; the impl gives torch's bits
    for every output it does not refuse, and refuses exactly the passes it predicts ip_convolution."""
    from tests.test_impl_live_conv import _level_named, _run_pinned  # its platform levels (not in the child)

    report = _run_pinned(
        _level_named(level), 2, "_kernels_child", ["kernels", level],
        module="tests.test_impl_live_conv_kernels", env_extra={"ONEDNN_VERBOSE": "1"},
    )  # fmt: skip
    assert len(report) == 2 * len(CASES[level])
    for row in report:
        pred, outputs = row["predicted"], row["outputs"]
        # IP_CONV: ip:any with its matmul's name after it
        for v, p in zip(row["verbose"], pred, strict=True):
            assert p == v or (p == conv.IP_CONV and v.startswith("ip:any+")), row
        refused_at = level != "baseline"
        for name, result in outputs.items():
            k = pred[{"out": 0, "grad_input": 1}.get(name, 2)]
            if refused_at and k in REFUSED:
                assert result == "refused", row
            else:
                assert result == 0, row
