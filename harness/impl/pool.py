"""2-D pooling as torch 2.13.0's CPU kernels compute it, float32: max_pool2d_with_indices and its
backward (cpu/MaxPoolKernel.cpp), _adaptive_avg_pool2d and its backward (cpu/AdaptiveAvgPoolKernel.cpp).
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
No step depends on the thread count (parallel over planes or outputs only); the ATen capability only
through ``lanes``, where the channels-last vector body ends (the arithmetic is the same on x86 and
aarch64: no multiply-add to contract).
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError

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


def _windows(out_size: int, in_size: int) -> list[tuple[int, int]]:
    """start_index / end_index of AdaptivePooling.h: floor(o*in/out), ceil((o+1)*in/out)."""
    return [((o * in_size) // out_size, -(-((o + 1) * in_size) // out_size)) for o in range(out_size)]


def adaptive_avg_pool2d(
    x: np.ndarray, output_size: tuple[int, int], channels_last: bool = False, lanes: int = LANES
) -> np.ndarray:
    """_adaptive_avg_pool2d (an output size other than 1x1; torch takes mean over H, W for 1x1).
    ``channels_last``: ``suggests_channels_last`` of the input's strides; ``lanes``: the profile's."""
    planes, lead = _planes(x)
    oh, ow = (int(v) for v in output_size)
    h, w = planes.shape[1:]
    out = np.empty((planes.shape[0], oh, ow), np.float32)
    cl = _cl_body(x, channels_last, lanes)
    for i, (r0, r1) in enumerate(_windows(oh, h)):
        for j, (c0, c1) in enumerate(_windows(ow, w)):
            s = np.zeros(planes.shape[0], np.float32)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    s = s + planes[:, r, c]
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
    grad_out: np.ndarray, input_shape: tuple[int, ...], channels_last: bool = False, lanes: int = LANES
) -> np.ndarray:
    """grad_x of _adaptive_avg_pool2d; ``channels_last``: ``suggests_channels_last`` of grad_out's
    strides; ``lanes``: the profile's."""
    g, _ = _planes(grad_out)
    h, w = input_shape[-2:]
    oh, ow = g.shape[1:]
    gx = np.zeros((g.shape[0], h, w), np.float32)
    cl = _cl_body(np.empty((*input_shape[:-2], 0, 0)), channels_last, lanes) if len(input_shape) == 4 else None
    for i, (r0, r1) in enumerate(_windows(oh, h)):
        for j, (c0, c1) in enumerate(_windows(ow, w)):
            kh, kw = np.float32(r1 - r0), np.float32(c1 - c0)
            delta = g[:, i, j] / kh / kw
            if cl is not None:
                delta = np.where(cl, g[:, i, j] / np.float32((r1 - r0) * (c1 - c0)), delta)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    gx[:, r, c] = gx[:, r, c] + delta
    return gx.reshape(input_shape)
