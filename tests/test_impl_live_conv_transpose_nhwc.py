"""Live parity of harness.impl.conv_transpose's channels-last path: transposed convolutions whose input
ATen suggests channels-last (SAM's mask decoder upscales a LayerNorm2d output, NHWC in memory), forward,
grad_input, grad_weight and grad_bias bit for bit (uint32 patterns) against torch run now, in a fresh
process per ISA level (ATen capability and oneDNN ISA pinned together), at 1 and 2 threads. Cases the
impl does not model (ATen's slow_conv_transpose2d of one image, a brgemm row blocking it declines)
must raise ParityError, never give other bits. The same process also runs plain-layout ones whose
adjoint's input is one pixel of 3 channels, whose weights jit:avx2 declines at avx2 (``FLAT_ONE_PIXEL``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from harness.core.errors import ParityError
from harness.impl import conv_transpose
from harness.platform.config import collect_facts, supported_levels
from tests.impl_live import live_profile, needs_modelled_mkl, needs_verified_profile, use_threads

# (images, in channels, out channels, H, W, kernel, stride, padding, bias)
CASES = (
    (2, 4, 2, 16, 16, 2, 2, 0, True),  # SAM's upscale_conv2 (hidden 16)
    (2, 8, 4, 8, 8, 2, 2, 0, True),  # and its upscale_conv1
    (3, 5, 7, 6, 9, 3, 2, 1, True),
    (2, 12, 3, 5, 5, 3, 1, 1, False),
    (4, 3, 10, 4, 7, 4, 2, 1, True),
    (1, 4, 2, 16, 16, 2, 2, 0, True),  # one image: ATen's slow_conv_transpose2d, refused
)


def run_case(case: tuple, seed: int) -> str:
    """'exact' where the impl gives torch's bits for every output, 'refused' where it raises, else 'other'."""
    n, c, oc, h, w, k, s, pad, bias = case
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, h, w, c)).astype(np.float32)).permute(0, 3, 1, 2).requires_grad_()
    m = torch.nn.ConvTranspose2d(c, oc, k, stride=s, padding=pad, bias=bias)
    with torch.no_grad():
        m.weight.copy_(torch.from_numpy(rng.standard_normal(tuple(m.weight.shape)).astype(np.float32)))
    y = m(x)
    dy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.from_numpy(dy).contiguous(memory_format=torch.channels_last))
    xs, wv, b = x.detach().numpy(), m.weight.detach().numpy(), m.bias.detach().numpy() if bias else None
    p = live_profile()
    try:
        got = [conv_transpose.conv_transpose2d_nhwc(xs, wv, b, (s, s), (pad, pad), (0, 0), p)]
        got += conv_transpose.conv_transpose2d_nhwc_backward(dy, xs, wv, (s, s), (pad, pad), (0, 0), bias, p)
    except ParityError:
        return "refused"
    want = [y.detach(), x.grad, m.weight.grad, m.bias.grad if bias else None]
    for a, t in zip(got, want, strict=True):
        if (a is None) != (t is None):
            return "other"
        if a is not None and not np.array_equal(
            np.ascontiguousarray(a).view(np.uint32), t.contiguous().numpy().view(np.uint32)
        ):
            return "other"
    return "exact"


# forward only, (images, in channels, out channels, H, W, seed): a padded 1x1 at stride 1, whose adjoint's
# backward data oneDNN runs as gemm:jit (ONEDNN_VERBOSE: conv:any+gemm:jit), past 64 channels too; its
# backward stays refused (brgconv_1x1's forward declines the padding)
PADDED_1X1 = ((2, 50, 49, 8, 8, 51), (3, 90, 40, 6, 7, 52))


def run_padded_1x1(case: tuple) -> str:
    """The forward of a ``PADDED_1X1`` case: 'exact', 'refused' or 'other'."""
    n, c, oc, h, w, seed = case
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, h, w, c)).astype(np.float32)).permute(0, 3, 1, 2)
    wt, b = rng.standard_normal((c, oc, 1, 1)).astype(np.float32), rng.standard_normal(oc).astype(np.float32)
    y = torch.nn.functional.conv_transpose2d(x, torch.from_numpy(wt), torch.from_numpy(b), stride=1, padding=1)
    try:
        got = conv_transpose.conv_transpose2d_nhwc(x.numpy(), wt, b, (1, 1), (1, 1), (0, 0), live_profile())
    except ParityError:
        return "refused"
    same = np.array_equal(np.ascontiguousarray(got).view(np.uint32), y.contiguous().numpy().view(np.uint32))
    return "exact" if same else "other"


# (input shape, weight shape, stride) of plain (nchw) transposed convolutions whose adjoint's input is one
# pixel of 3 channels (a 1x1 input and kernel with a stride, 3 output channels): at avx2 jit:avx2's weights
# decline that flat case ("unsupported format tag") and gemm:jit runs (conv._avx2_flat_one_pixel; before,
# the impl ran jit:avx2's model: 1 or 2 of 6 grad_weight elements other in 5 of 6 seeds of the first); and
# a neighbour of two pixels that jit:avx2 takes
FLAT_ONE_PIXEL = (
    ((2, 2, 1, 1), (2, 3, 1, 1), (1, 4)),
    ((3, 5, 1, 1), (5, 3, 1, 1), (3, 1)),
    ((2, 2, 1, 2), (2, 3, 1, 1), (1, 4)),
)


def run_flat_one_pixel(case: tuple, seed: int) -> str:
    """grad_input, grad_weight and grad_bias of a ``FLAT_ONE_PIXEL`` case: 'exact', 'refused' or 'other'."""
    x_shape, w_shape, stride = case
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
    tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w).requires_grad_()
    tb = torch.zeros(w_shape[1], requires_grad=True)
    y = torch.nn.functional.conv_transpose2d(tx, tw, tb, stride)
    dy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.from_numpy(dy))
    try:
        got = conv_transpose.conv_transpose2d_backward(dy, x, w, stride, (0, 0), (0, 0), True, live_profile())
    except ParityError:
        return "refused"
    same = all(
        np.array_equal(np.asarray(a).view(np.uint32), t.numpy().view(np.uint32))
        for a, t in zip(got, (tx.grad, tw.grad, tb.grad), strict=True)
    )
    return "exact" if same else "other"


def _child() -> None:
    """Run in a fresh process: every case at 1 and 2 threads."""
    rows = []
    for threads in (1, 2):
        use_threads(threads)
        for i, case in enumerate(CASES):
            want = "refused" if case[0] == 1 else "exact"
            rows.append({"case": f"{case} at {threads} threads", "want": want, "got": run_case(case, 41 + i)})
        for case in PADDED_1X1:  # on 1 thread ATen's slow_conv_transpose2d (a 1x1 at stride 1): refused
            want = "refused" if threads == 1 else "exact"
            rows.append({"case": f"forward {case} at {threads} threads", "want": want, "got": run_padded_1x1(case)})
        for i, case in enumerate(FLAT_ONE_PIXEL):
            rows.append(
                {"case": f"plain {case} at {threads} threads", "want": "exact", "got": run_flat_one_pixel(case, 70 + i)}
            )
    print(json.dumps(rows))


LEVELS = [lvl for lvl in supported_levels(collect_facts()) if lvl.arch == "x86_64" and lvl.name in ("baseline", "avx2")]


@needs_modelled_mkl
@needs_verified_profile
@pytest.mark.parametrize("level", LEVELS, ids=[lvl.name for lvl in LEVELS])
def test_level(level) -> None:
    from tests.test_impl_live_conv import _run_pinned  # its fresh-process runner (not in the child)

    rows = _run_pinned(level, 2, "_child", [], module="tests.test_impl_live_conv_transpose_nhwc")
    failures = [f"{r['case']}: {r['got']}, expected {r['want']}" for r in rows if r["got"] != r["want"]]
    assert not failures, "\n".join(failures)
