"""Pooling and nearest resampling as torch 2.13.0's CPU kernels compute them, float32: max_pool2d_with_indices
and its backward (cpu/MaxPoolKernel.cpp), _adaptive_avg_pool2d and its backward (cpu/AdaptiveAvgPoolKernel.cpp),
avg_pool2d / avg_pool3d and their backwards (cpu/AvgPoolKernel.cpp), upsample_nearest1d/2d/3d and
_upsample_nearest_exact1d/2d/3d and their backwards (cpu/UpSampleKernel.cpp, cpu/UpSampleMoreKernel.cpp).
Torch-free, NumPy only: every step is a selection or one IEEE operation per element, so the order
of operations is all there is to reproduce, and NumPy keeps it (vectorised over the planes, never
across the terms of one sum).

Shape legend: x (N, C, H, W) or (C, H, W) in logical order whatever its memory layout;
out, indices (N, C, OH, OW); grad_out like out; grad_x like x. ``channels_last``: torch's kernel took its
channels-last path, by c10's suggest_memory_format of the tensor's strides (harness.impl.strides;
changes the bits only where that kernel computes otherwise: adaptive average pooling's division).

- max_pool2d_with_indices (cpu_max_pool, and cpu_max_pool_channels_last element for element alike):
  per output, the window's valid rows and columns from ``oh*sH - pH`` in steps of the dilation, in
  row-major order; a value wins when it is greater than the maximum so far or NaN (so the last NaN
  wins); the maximum starts at -inf and the index at the window's first valid element.
- backward (cpu_max_pool_backward): grad_x zero, then ``grad_x[index] += grad_out`` over the
  outputs of each plane in order (overlapping windows add in that order; channels-last alike).
- _adaptive_avg_pool2d: window rows ``floor(oh*H/OH)`` to ``ceil((oh+1)*H/OH)``, columns alike; a float
  sum from 0 in row-major order, then ``sum / kh / kw`` (two divisions); channels-last: the same
  sums, divided once by ``float(kh*kw)`` in the vector body (channels below ``C - C % lanes``) and twice
  in the scalar tail.
- backward: grad_x zero, then per output in order ``grad_x[window] += grad_out / kh / kw``;
  channels-last: ``grad_x + grad_out / float(kh*kw)`` in the vector body, the two divisions in the tail.
- avg_pool2d / avg_pool3d (cpu_avg_pool, cpu_avg_pool_channels_last): per output, the window from
  ``o*s - p`` of ``k`` elements per dim, cut at ``in + p`` (the size counted with count_include_pad)
  and then at the input (the size counted without); a float sum from +0 over the window's input elements
  in row-major order (depth, row, column), ``sum / float(divisor)`` (divisor_override where given); the
  channels-first kernel writes ``0 + sum / divisor`` (a -0 quotient, only of a negative divisor_override,
  comes out +0), the channels-last one the quotient (its vector body and scalar tail compute alike).
- backward (cpu_avg_pool_backward and its channels-last twin, by grad_output's suggested layout):
  grad_x zero, then per plane, per output in row-major order, ``delta = grad_out / float(divisor)``
  added to each input element of its window in row-major order (the channels-last vector body adds
  ``gout / divisor`` alike); so an element's terms arrive in the outputs' order.
- nearest upsampling, forward: a gather by per-dim source indices (``nearest_source`` of csrc/nn.c: the
  rule of the kernel ATen takes: the generic TensorIterator kernel, or the channels-last one for a
  channels-last 4-D input of more than 3 channels or any 2-D output with OH + OW <= 128, 5-D channels-last
  of more than 3 channels; 1-D always generic); backward (cpu_upsample_nearest_backward and its
  channels-last twin): grad_x zero, then per plane each output's gradient added to its source element,
  outputs in row-major order (the source by nearest_idx / nearest_exact_idx).
No step depends on the thread count (parallel over planes or outputs only); the ATen capability only
through ``lanes``, where the channels-last vector body ends (adaptive average pooling), and through the
contraction of nearest-exact's generic forward source to ``fma(scale, i + 0.5, -0.5)`` (the x86 AVX2
object, which avx512 runs too, UpSampleKernel.cpp's kernels being REGISTER_DISPATCH only, and every
aarch64 one fuse it, x86's default build does not; the arithmetic is otherwise the same on x86 and
aarch64: no multiply-add to contract).
"""

from __future__ import annotations

import ctypes
import itertools

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import f32, load, ptr
from harness.impl.nans import arith
from harness.impl.nn import area_pixel_scale
from harness.impl.profiles import KernelProfile

# Vectorized<float>::size() of these kernels (plain REGISTER_DISPATCH): 8 on every x86 level and on
# aarch64 SVE256, 4 on aarch64 NEON and SVE128 (a profile's ``lanes``)
LANES = 8


def _pair(v: int | list[int] | tuple[int, ...], name: str) -> tuple[int, int]:
    v = [v] if isinstance(v, int) else list(v)
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise ParityError(f"max_pool2d: {name} must have 1 or 2 values, not {v}")
    return int(v[0]), int(v[1])


def pooling_output_size(size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """ATen's pooling_output_shape."""
    span = dilation * (kernel - 1) + 1
    num = size + 2 * pad - span + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _planes(x: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    if x.ndim not in (3, 4) or x.dtype != np.float32:
        raise ParityError(f"2-D pooling of float32 (C, H, W) or (N, C, H, W) only, not {x.dtype}{list(x.shape)}")
    return x.reshape(-1, x.shape[-2], x.shape[-1]), x.shape[:-2]


def max_pool2d_with_indices(
    x: np.ndarray,
    kernel_size: int | list[int],
    stride: int | list[int] | None = None,
    padding: int | list[int] = 0,
    dilation: int | list[int] = 1,
    ceil_mode: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """(out, indices int64): indices into each plane's H*W, as torch returns them."""
    planes, lead = _planes(x)
    (kh, kw), (ph, pw), (dh, dw) = (
        _pair(kernel_size, "kernel_size"),
        _pair(padding, "padding"),
        _pair(dilation, "dilation"),
    )
    sh, sw = _pair(stride, "stride") if stride not in (None, []) else (kh, kw)
    h, w = planes.shape[1:]
    oh = pooling_output_size(h, kh, ph, sh, dh, ceil_mode)
    ow = pooling_output_size(w, kw, pw, sw, dw, ceil_mode)
    rows0 = np.arange(oh) * sh - ph
    cols0 = np.arange(ow) * sw - pw
    first_r = np.where(rows0 < 0, rows0 + (-rows0 + dh - 1) // dh * dh, rows0)
    first_c = np.where(cols0 < 0, cols0 + (-cols0 + dw - 1) // dw * dw, cols0)
    out = np.full((planes.shape[0], oh, ow), -np.inf, np.float32)
    idx = np.broadcast_to((first_r[:, None] * w + first_c[None, :]).astype(np.int64), out.shape).copy()
    for i in range(kh):
        r = rows0 + i * dh
        r_ok = (r >= 0) & (r < h)
        for j in range(kw):
            c = cols0 + j * dw
            ok = r_ok[:, None] & ((c >= 0) & (c < w))[None, :]
            if not ok.any():
                continue
            rr, cc = np.clip(r, 0, h - 1), np.clip(c, 0, w - 1)
            val = planes[:, rr[:, None], cc[None, :]]
            take = ok[None] & ((val > out) | np.isnan(val))
            out = np.where(take, val, out)
            idx = np.where(take, (rr[:, None] * w + cc[None, :]).astype(np.int64), idx)
    return out.reshape(*lead, oh, ow), idx.reshape(*lead, oh, ow)


def max_pool2d_backward(grad_out: np.ndarray, indices: np.ndarray, input_shape: tuple[int, ...]) -> np.ndarray:
    """grad_x of max_pool2d_with_indices: each plane's grad_out added at its indices, outputs in order."""
    if grad_out.dtype != np.float32 or grad_out.shape != indices.shape:
        raise ParityError(f"max_pool2d backward: grad_out {grad_out.dtype}{list(grad_out.shape)} vs indices")
    h, w = input_shape[-2:]
    g = grad_out.reshape(-1, grad_out.shape[-2] * grad_out.shape[-1])
    ind = indices.reshape(g.shape).astype(np.int64)
    gx = np.zeros((g.shape[0], h * w), np.float32)
    keep = ind != -1
    if np.any(keep & ((ind < 0) | (ind >= h * w))):  # a window of padding only (dilation, ceil_mode)
        raise ParityError("max_pool2d backward: an index outside its plane (ATen writes into the next plane)")
    flat = (np.arange(g.shape[0], dtype=np.int64)[:, None] * (h * w) + ind)[keep]
    np.add.at(gx.reshape(-1), flat, g[keep])  # sequential, in C order of the outputs: ATen's order
    return gx.reshape(input_shape)


# (pass, channels_last, ATen build) -> which NaN a sum keeps where two meet (nans.arith: 0 the running
# sum's, 1 the new term's), measured against torch 2.13.0 on a Zen 5 with NaNs of three payloads (5 cases
# of each of three shapes per entry, 0 other). Not listed, two of other payloads are refused: the
# channels-last forward (either choice alone gave other bits in 5 of 5 cases at default, 1 of 5 at
# avx2), the channels-last backward at default (5 of 5 either way) and at avx512 (its own object: 1 of 5
# with the term's), aarch64. NumPy's own choice gave other bits before (avx2: every backward case).
_ADAPTIVE_KEEPS = {
    **{("forward", False, b): 0 for b in ("default", "avx2", "avx512")},
    **{("backward", False, b): int(b != "default") for b in ("default", "avx2", "avx512")},
    ("backward", True, "avx2"): 1,
}


def _windows(out_size: int, in_size: int) -> list[tuple[int, int]]:
    """start_index / end_index of AdaptivePooling.h: floor(o*in/out), ceil((o+1)*in/out)."""
    return [((o * in_size) // out_size, -(-((o + 1) * in_size) // out_size)) for o in range(out_size)]


def adaptive_avg_pool2d(
    x: np.ndarray, output_size: tuple[int, int], channels_last: bool = False, lanes: int = LANES,
    profile: KernelProfile | None = None,
) -> np.ndarray:  # fmt: skip
    """_adaptive_avg_pool2d (an output size other than 1x1; torch takes mean over H, W for 1x1).
    ``channels_last``: ``suggests_channels_last`` of the input's strides; ``lanes``: the profile's.
    Two NaNs meeting in a sum: ``_ADAPTIVE_KEEPS`` (measured), else two of other payloads refused."""
    planes, lead = _planes(x)
    oh, ow = (int(v) for v in output_size)
    h, w = planes.shape[1:]
    out = np.empty((planes.shape[0], oh, ow), np.float32)
    cl = _cl_body(x, channels_last, lanes)
    keep = _ADAPTIVE_KEEPS.get(("forward", channels_last, profile.aten)) if profile else None
    for i, (r0, r1) in enumerate(_windows(oh, h)):
        for j, (c0, c1) in enumerate(_windows(ow, w)):
            s = np.zeros(planes.shape[0], np.float32)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    s = arith("add", s, planes[:, r, c], keep, "_adaptive_avg_pool2d")
            kh, kw = np.float32(r1 - r0), np.float32(c1 - c0)
            twice = s / kh / kw
            if cl is not None:
                twice = np.where(cl, s / np.float32((r1 - r0) * (c1 - c0)), twice)
            out[:, i, j] = twice
    return out.reshape(*lead, oh, ow)


def _cl_body(x: np.ndarray, channels_last: bool, lanes: int) -> np.ndarray | None:
    """Per plane (n, c): whether channel c lies in the channels-last kernel's vector body."""
    if not channels_last or x.ndim != 4:
        return None
    n, c = x.shape[:2]
    body = np.arange(c) < c - c % lanes
    return np.tile(body, n)


def adaptive_avg_pool2d_backward(
    grad_out: np.ndarray, input_shape: tuple[int, ...], channels_last: bool = False, lanes: int = LANES,
    profile: KernelProfile | None = None,
) -> np.ndarray:  # fmt: skip
    """grad_x of _adaptive_avg_pool2d; ``channels_last``: ``suggests_channels_last`` of grad_out's
    strides; ``lanes``: the profile's. Two NaNs meeting: as ``adaptive_avg_pool2d``."""
    g, _ = _planes(grad_out)
    h, w = input_shape[-2:]
    oh, ow = g.shape[1:]
    gx = np.zeros((g.shape[0], h, w), np.float32)
    cl = _cl_body(np.empty((*input_shape[:-2], 0, 0)), channels_last, lanes) if len(input_shape) == 4 else None
    keep = _ADAPTIVE_KEEPS.get(("backward", channels_last, profile.aten)) if profile else None
    for i, (r0, r1) in enumerate(_windows(oh, h)):
        for j, (c0, c1) in enumerate(_windows(ow, w)):
            kh, kw = np.float32(r1 - r0), np.float32(c1 - c0)
            delta = g[:, i, j] / kh / kw
            if cl is not None:
                delta = np.where(cl, g[:, i, j] / np.float32((r1 - r0) * (c1 - c0)), delta)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    gx[:, r, c] = arith("add", gx[:, r, c], delta, keep, "_adaptive_avg_pool2d_backward")
    return gx.reshape(input_shape)


# -- average pooling (avg_pool2d, avg_pool3d) ---------------------------------------------------------

# (dims, channels_last, ATen build) -> which NaN an element's sum keeps where two meet (0: the running
# sum's, 1: the new term's; nans.arith), measured against torch 2.13.0 on a Zen 5 (AVX-512 runs the AVX2
# object): the forward's scalar sums keep the sum's; the backward's += keeps grad_input's at the default
# build (SSE's two-operand ADDSS) and the term's at avx2 and avx512 for 2-D, the term's channels-last at
# avx2 and avx512, the sum's for 3-D. Not listed: refused (channels-last forward and 3-D: neither choice
# alone, or unmeasured; the channels-last 2-D backward at default: 16 of 4543 NaN elements of other bits
# with either; aarch64).
_SUM_KEEPS = {(d, False, b): 0 for d in (2, 3) for b in ("default", "avx2", "avx512")}
_GRAD_KEEPS = {
    **{(2, False, b): int(b != "default") for b in ("default", "avx2", "avx512")},
    **{(2, True, b): 1 for b in ("avx2", "avx512")},
    **{(3, False, b): 0 for b in ("default", "avx2", "avx512")},
}


def _spatial(v: int | list[int] | tuple[int, ...] | None, dims: int, name: str, op: str) -> tuple[int, ...]:
    v = [v] if isinstance(v, int) else list(v or [])
    if len(v) == 1:
        v = v * dims
    if len(v) != dims or any(not isinstance(e, int) for e in v):
        raise ParityError(f"{op}: {name} must have 1 or {dims} integers, not {v}")
    return tuple(int(e) for e in v)


class AvgPoolWindows:
    """The windows of an avg_pool2d (``dims`` 2) or avg_pool3d (``dims`` 3) over the spatial ``size``: the
    output size ``out``, each output's ``divisor`` (float) and the buffer slices its window reads."""

    def __init__(
        self, size: tuple[int, ...], kernel_size: int | list[int], stride: int | list[int] | None,
        padding: int | list[int], ceil_mode: bool, count_include_pad: bool, divisor_override: int | None,
    ) -> None:  # fmt: skip
        dims = len(size)
        op = f"avg_pool{dims}d"
        self.k = _spatial(kernel_size, dims, "kernel_size", op)
        self.s = _spatial(stride, dims, "stride", op) if stride not in (None, []) else self.k
        self.p = _spatial(padding, dims, "padding", op)
        if (
            min(self.k) < 1
            or min(self.s) < 1
            or min(self.p) < 0
            or any(2 * p > k for p, k in zip(self.p, self.k, strict=True))
        ):
            raise ParityError(f"{op}: kernel {self.k}, stride {self.s}, padding {self.p} (pad at most half the kernel)")
        if divisor_override is not None and int(divisor_override) == 0:
            raise ParityError(f"{op}: divisor_override must not be 0")
        self.size = size
        self.out = tuple(
            pooling_output_size(n, k, p, s, 1, ceil_mode)
            for n, k, p, s in zip(size, self.k, self.p, self.s, strict=True)
        )
        if min(self.out) < 1:
            raise ParityError(f"{op}: output size {self.out} of input {size}")
        padded, counted = [], []
        for n, o, k, s, p in zip(size, self.out, self.k, self.s, self.p, strict=True):
            start = np.arange(o, dtype=np.int64) * s - p
            end = np.minimum(start + k, n + p)
            padded.append(end - start)
            counted.append(np.minimum(end, n) - np.maximum(start, 0))
        per_dim = padded if count_include_pad else counted
        if divisor_override is not None:
            divisor = np.full(self.out, int(divisor_override), np.int64)
        else:
            divisor = per_dim[0].reshape(-1, *([1] * (dims - 1)))
            for d in range(1, dims):
                divisor = divisor * per_dim[d].reshape(*([1] * d), -1, *([1] * (dims - 1 - d)))
        self.divisor = np.broadcast_to(divisor, self.out).astype(np.float32)  # int64 -> float, rounded
        self.empty = np.zeros(self.out, bool)
        for d, c in enumerate(counted):
            self.empty |= (c <= 0).reshape(*([1] * d), -1, *([1] * (dims - 1 - d)))

    def buffer(self, planes: int) -> np.ndarray:
        """Zeros over every window's reach: the input at offset ``p`` per dim."""
        reach = [max(n + 2 * p, (o - 1) * s + k) for n, o, s, k, p in zip(
            self.size, self.out, self.s, self.k, self.p, strict=True)]  # fmt: skip
        return np.zeros((planes, *reach), np.float32)

    def inner(self) -> tuple[slice, ...]:
        return tuple(slice(p, p + n) for p, n in zip(self.p, self.size, strict=True))

    def taps(self, reverse: bool = False) -> list[tuple[slice, ...]]:
        """Per window offset (row-major, or its reverse), the buffer's slice each output reads there."""
        offsets = list(itertools.product(*(range(k) for k in self.k)))
        if reverse:
            offsets.reverse()
        return [
            tuple(slice(i, i + (o - 1) * s + 1, s) for i, o, s in zip(off, self.out, self.s, strict=True))
            for off in offsets
        ]


def _pool_planes(x: np.ndarray, dims: int, op: str) -> tuple[np.ndarray, tuple[int, ...]]:
    if x.dtype != np.float32 or x.ndim not in (dims + 1, dims + 2):
        raise ParityError(f"{op}: float32 of {dims + 1} or {dims + 2} dims only, not {x.dtype}{list(x.shape)}")
    return x.reshape(-1, *x.shape[-dims:]), x.shape[:-dims]


def avg_pool(
    x: np.ndarray, kernel_size: int | list[int], stride: int | list[int] | None = None, padding: int | list[int] = 0,
    ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
    dims: int = 2, channels_last: bool = False, profile: KernelProfile | None = None,
) -> np.ndarray:  # fmt: skip
    """avg_pool2d (``dims`` 2: (C, H, W) or (N, C, H, W)) or avg_pool3d (``dims`` 3); ``channels_last``:
    ATen ran its channels-last kernel (suggest_memory_format of the input). Where two NaNs meet in a
    sum, the sum's (the first's) is kept on x86 (measured at default and avx2); channels-last, on
    aarch64 or without a ``profile``, two of other payloads meeting are refused (``_SUM_KEEPS``)."""
    planes, lead = _pool_planes(x, dims, f"avg_pool{dims}d")
    win = AvgPoolWindows(planes.shape[1:], kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    buf = win.buffer(planes.shape[0])
    buf[(slice(None), *win.inner())] = planes
    total = np.zeros((planes.shape[0], *win.out), np.float32)
    keep = _SUM_KEEPS.get((dims, channels_last, profile.aten)) if profile else None
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, overflow: IEEE's answers, as torch's
        for tap in win.taps():  # window offsets in row-major order; a tap in the padding adds +0 (a sum
            # from +0 is never -0, so that changes no bit)
            total = arith("add", total, buf[(slice(None), *tap)], keep, f"avg_pool{dims}d")
        out = total / win.divisor
    if not channels_last:
        out = np.float32(0) + out
    out = np.where(win.empty, np.float32(0), out)
    return out.reshape(*lead, *win.out)


def avg_pool_backward(
    grad_out: np.ndarray, input_shape: tuple[int, ...], kernel_size: int | list[int],
    stride: int | list[int] | None = None, padding: int | list[int] = 0, ceil_mode: bool = False,
    count_include_pad: bool = True, divisor_override: int | None = None, dims: int = 2,
    channels_last: bool = False, profile: KernelProfile | None = None,
) -> np.ndarray:  # fmt: skip
    """grad_x of avg_pool2d / avg_pool3d (either kernel: they add alike). ``channels_last``: the kernel
    ATen ran (suggest_memory_format of grad_output). Where two NaNs meet in an element's sum, the NaN
    ATen's kernel keeps (``_GRAD_KEEPS``, measured); unmeasured kernels refuse two of other payloads."""
    op = f"avg_pool{dims}d_backward"
    g, _ = _pool_planes(grad_out, dims, op)
    input_shape = tuple(int(v) for v in input_shape)
    if len(input_shape) != grad_out.ndim or input_shape[:-dims] != grad_out.shape[:-dims]:
        raise ParityError(f"{op}: grad_output {list(grad_out.shape)} for input {list(input_shape)}")
    win = AvgPoolWindows(
        input_shape[-dims:], kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )
    if tuple(g.shape[1:]) != win.out:
        raise ParityError(f"{op}: grad_output {list(grad_out.shape)}, but the windows give {list(win.out)}")
    buf = win.buffer(g.shape[0])
    keep = _GRAD_KEEPS.get((dims, channels_last, profile.aten)) if profile else None
    with np.errstate(invalid="ignore", over="ignore"):
        delta = np.where(win.empty, np.float32(0), g / win.divisor)
        # each tap's outputs reach distinct elements; the taps in reverse row-major order bring an element's
        # terms in the order of their outputs (row-major), ATen's order
        for tap in win.taps(reverse=True):
            view = (slice(None), *tap)
            buf[view] = arith("add", buf[view], delta, keep, op)
    return np.ascontiguousarray(buf[(slice(None), *win.inner())]).reshape(input_shape)


# -- nearest upsampling ---------------------------------------------------------------------------

# nearest_source's rules (csrc/nn.c)
NEAREST_GENERIC, NEAREST_IDX, NEAREST_EXACT_GENERIC, NEAREST_EXACT_IDX = 0, 1, 2, 3


def nearest_source(size_in: int, size_out: int, scale: float | None, rule: int, profile: KernelProfile) -> np.ndarray:
    """The source index of each output index of one dim (int64), by ``rule``; the scale is
    compute_scales_value<float> (area_pixel_compute_scale without aligned corners)."""
    idx = np.empty(size_out, np.int64)
    fn = load("nn").nearest_source
    fn.restype = None
    fn(profile.as_c(), ctypes.c_int64(size_in), ctypes.c_int64(size_out),
       ctypes.c_float(area_pixel_scale(size_in, size_out, False, scale)), ctypes.c_int32(rule), ptr(idx))  # fmt: skip
    return idx


def _nearest_dims(x: np.ndarray, dims: int, op: str) -> None:
    if x.dtype != np.float32 or x.ndim != dims + 2:
        raise ParityError(f"{op}: float32 (N, C, {dims} spatial dims) only, not {x.dtype}{list(x.shape)}")


def _nearest_name(dims: int, exact: bool) -> str:
    return f"{'_upsample_nearest_exact' if exact else 'upsample_nearest'}{dims}d"


def upsample_nearest(
    x: np.ndarray, output_size: tuple[int, ...], scales: tuple[float | None, ...], exact: bool,
    channels_last_kernel: bool, profile: KernelProfile,
) -> np.ndarray:  # fmt: skip
    """upsample_nearest{1,2,3}d (``exact`` False) or _upsample_nearest_exact{1,2,3}d of float32 (N, C, *spatial);
    ``channels_last_kernel``: ATen took its channels-last kernel (harness/trace/impl_nn.py decides which)."""
    dims = len(output_size)
    _nearest_dims(x, dims, _nearest_name(dims, exact))
    if len(scales) != dims:
        raise ParityError(f"{_nearest_name(dims, exact)}: {dims} scales, not {list(scales)}")
    if channels_last_kernel:
        rule = NEAREST_EXACT_IDX if exact else NEAREST_IDX
    else:
        rule = NEAREST_EXACT_GENERIC if exact else NEAREST_GENERIC
    sizes = zip(x.shape[2:], output_size, scales, strict=True)
    idx = [nearest_source(n, int(o), s, rule, profile) for n, o, s in sizes]
    return np.ascontiguousarray(f32(x)[(slice(None), slice(None), *np.ix_(*idx))])


def upsample_nearest_backward(
    grad_out: np.ndarray, input_size: tuple[int, ...], scales: tuple[float | None, ...], exact: bool,
    profile: KernelProfile,
) -> np.ndarray:  # fmt: skip
    """grad_x of nearest upsampling (either kernel: nearest_idx / nearest_exact_idx, the same order)."""
    dims = len(input_size) - 2
    op = _nearest_name(dims, exact) + "_backward"
    _nearest_dims(grad_out, dims, op)
    if tuple(grad_out.shape[:2]) != tuple(input_size[:2]) or len(scales) != dims:
        raise ParityError(f"{op}: grad_output {list(grad_out.shape)} for input {list(input_size)}")
    rule = NEAREST_EXACT_IDX if exact else NEAREST_IDX
    spatial = tuple(int(n) for n in input_size[2:])
    idx = [nearest_source(n, o, s, rule, profile) for n, o, s in zip(spatial, grad_out.shape[2:], scales, strict=True)]
    flat = np.ravel_multi_index(np.ix_(*idx), spatial).reshape(-1)
    planes = grad_out.shape[0] * grad_out.shape[1]
    g = f32(grad_out).reshape(planes, -1)
    gx = np.zeros((planes, int(np.prod(spatial))), np.float32)
    target = (np.arange(planes, dtype=np.int64)[:, None] * gx.shape[1] + flat[None, :]).reshape(-1)
    if dims == 3 and profile.aten == "default" and (np.bincount(target[np.isnan(g.reshape(-1))]) > 1).any():
        raise ParityError(
            f"{op}: two NaN gradients reaching one element at the default build are not modelled (its 3-D kernel"
            " keeps neither the first's NaN nor the last's)"
        )
    np.add.at(gx.reshape(-1), target, g.reshape(-1))  # sequential: planes, then outputs in row-major order
    return gx.reshape(tuple(int(v) for v in input_size))
