"""Backward of a channels-last (NHWC) 2-D convolution as torch 2.13.0 runs it on x86 CPUs at the AVX2
level (ATEN_CPU_CAPABILITY=avx2, ONEDNN_MAX_CPU_ISA=AVX2), 1 and 2 threads: grad_input, grad_weight,
grad_bias for one group and depthwise (groups = C = OC) convolutions.

Arrays are logical NCHW float32 (x (N, C, H, W), w (OC, C / groups, KH, KW), dy (N, OC, OH, OW));
the input and grad_output are taken to be channels-last in memory (torch: ``x.is_contiguous(
memory_format=torch.channels_last)`` and not plain contiguous). ATen's mkldnn path then runs oneDNN
on nhwc ("acdb") memory. What runs (ONEDNN_VERBOSE) and what the model does:

- backward data, stride 1, kernel over 1x1: ``brg_conv_bwd:avx2+brg_conv_fwd:avx2``, oneDNN's
  forward brgemm convolution of grad_output with the weights' channels swapped and the taps inverted
  (jit_brgemm_conv_bwd.cpp, jit_brgemm_conv.cpp). Its AVX2 brgemm kernel starts each call's
  accumulators at 0 and adds C at the store (beta = 1): per element one fused chain per brgemm call
  over (the call's taps, the block's channels), the calls' sums added in order. Calls
  (``_brg_calls``): where the forward's row fits its input (W <= OW: ker_vpad) one call over all
  taps row by row. Declined where W > OW: there oneDNN runs ker_base (measured: per ow block, the
  forward taps b valid for part of the row left of those valid
  for all of it one call each (over all kernel rows), the fully valid ones one call, the rest right
  of them one call each; fits 50 of 53 measured shapes with the whole row one block) or, on some
  shapes, one chain over the valid taps (ker_vpad or blocks of one column; its ow_block search is not
  modelled). The ic block (grad_output's channels a call
  takes) is up to 40 vectors of 8 (conv._brg_bwd_ic_block): at most 64 output channels modelled,
  one block. Threads split the forward's images, rows and channel blocks, never the reduction.
- backward data, 1x1 stride 1: ``brg_conv_bwd:avx2+brgconv_1x1:avx2``: one fused chain over the
  output channels (one call; conv.py's jit_1x1 chain), on any thread count.
- backward data, stride 2: ``brgconv_strided:avx2`` (conv.py's model of it, its blocking search).
- backward data, depthwise: ``jit_dw:avx2`` (conv_grouped.py: one fused chain over the taps).
- backward weights, one group: ``jit:avx2`` (weights ABcd8b8a; jit_avx2_conv_kernel_f32.cpp
  compute_oh_loop_common: per weight one fused chain over (image, oh, ow), cpu_reducer's balance
  splitting the images between threads, the threads' sums added; the bias alike: conv.py's model);
  ``jit_1x1:avx2`` for 1x1 stride 1, 1 thread (per image kernel calls of 128 pixels, each chain
  from 0, added; conv.py). Declined: jit_1x1 on more threads (its nxc balance of jobs against the
  reduction not modelled), jit_1x1 on strided 1x1 with H, W multiples of the stride, gemm:jit
  (a kernel taller than the input).
- backward weights, depthwise: ``jit_dw:avx2`` with ``harness_nxc`` (jit_uni_dw_convolution.cpp
  execute_backward_weights_nxc; jit_uni_dw_conv_kernel_utils.cpp partition_nthr_nxc): the threads
  split (channel outer blocks of nb_ch_blocking blocks of 8, images, blocks of oh_blk_size output
  rows) by partition_nthr_nxc's search (``_dw_nxc_partition``); per thread and weight one fused chain
  over its (image, row block, row, column) in order, the bias a chain of additions alike; the main
  thread's (image part 0, row part 0) sums then the other threads' added in execute_reduction_nxc's
  order. Declined: jit:avx2 for groups where jit_dw's weights kernel declines (a kernel wider than
  3, padding over half the kernel, ...), gemm:jit, rows over 30 columns (the kernel's column
  blocking, not measured), reductions over both images and rows.
- ATen's ``_slow_conv2d`` (1 thread and 1x1 stride 1 below 16 images, or one small image; per
  group for depthwise) on channels-last memory: declined (its NHWC gemms and its grad_bias's sum
  over a channels-last tensor are not modelled).
"""

from __future__ import annotations

import ctypes

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv, conv_grouped
from harness.impl._lib import f32, load, ptr
from harness.impl.profiles import KernelProfile

_I = ctypes.c_int64
_P = ctypes.c_void_p
_LIB = None


def _lib() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        lib = load("conv_nhwc")
        lib.nhwc_dw_weights.argtypes = [_I] * 12 + [_P, _P, _P, _I, _I, _I, _P, _P]
        lib.nhwc_dw_weights.restype = None
        _LIB = lib
    return _LIB


def _kinds(x_shape, w_shape, stride, padding, groups: int, prof: KernelProfile) -> tuple[str, str]:
    """(backward data, backward weights) kernels torch runs, as named in ONEDNN_VERBOSE, or a name
    starting with ``decline:``."""
    _n, c, h, wd = x_shape
    oc, cg, kh, kw = w_shape
    sh, sw = stride
    _ph, _pw = padding
    one = (kh, kw) == (1, 1)
    if groups == 1:
        if conv.path(x_shape, w_shape, stride, padding, prof) == conv.THNN:
            return ("decline:ATen's slow_conv2d on channels-last memory",) * 2
        g = conv._geometry(x_shape, w_shape, stride, padding)
        if (sh, sw) != (1, 1):
            data = "brgconv_strided:avx2"
        elif one:
            data = "brg_conv_bwd:avx2+brgconv_1x1:avx2"
        else:
            data = "brg_conv_bwd:avx2+brg_conv_fwd:avx2"
        if one and (sh, sw) == (1, 1):
            weights = "jit_1x1:avx2"
        elif one and h % sh == 0 and wd % sw == 0:
            weights = "decline:jit_1x1:avx2 on a strided 1x1 kernel"
        elif conv._avx2_weights_declines(g):
            weights = "decline:gemm:jit"
        else:
            weights = "jit:avx2"
        return data, weights
    if not (groups == c == oc and cg == 1):
        return ("decline:groups of several channels",) * 2
    if conv_grouped._thnn_per_group(x_shape, w_shape, stride, prof):
        return ("decline:ATen's slow_conv2d per group on channels-last memory",) * 2
    g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
    if conv_grouped.dw_weights_declines(g):
        weights = "decline:jit:avx2 (groups, aBCde8c8b) where jit_dw's weights kernel declines, or gemm:jit"
    else:
        weights = "jit_dw:avx2"
    return "jit_dw:avx2", weights


def declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """ "" where ``conv2d_backward`` models the case under ``profile``, else a one-line reason."""
    if profile.aarch64 or profile.aten != "avx2" or profile.torch != "2.13.0":
        level = "aarch64" if profile.aarch64 else profile.aten
        return f"the {level} level (torch {profile.torch})"
    threads = profile.threads
    x_shape, w_shape = tuple(int(v) for v in x_shape), tuple(int(v) for v in w_shape)
    stride, padding = tuple(int(v) for v in stride), tuple(int(v) for v in padding)
    _n, c, h, wd = x_shape
    oc, _cg, kh, kw = w_shape
    if threads not in (1, 2):
        return f"{threads} threads not modelled (1 and 2 measured)"
    if c == 1 or h * wd == 1:
        return "channels-last is ambiguous for one channel or one pixel (torch may take the NCHW path)"
    if any(s not in (1, 2) for s in stride) or any(p not in (0, 1, 2, 3) for p in padding):
        return "stride or padding outside the measured range"
    oh, ow = (h + 2 * padding[0] - kh) // stride[0] + 1, (wd + 2 * padding[1] - kw) // stride[1] + 1
    if oh < 1 or ow < 1:
        return "empty output"
    if oc > 64 or c > 64:
        return "more than 64 channels not measured (brgemm ic blocks, jit_dw channel blocking)"
    data, weights = _kinds(x_shape, w_shape, stride, padding, groups, profile)
    for kind in (data, weights):
        if kind.startswith("decline:"):
            return kind[len("decline:") :]
    if data == "brg_conv_bwd:avx2+brg_conv_fwd:avx2" and wd > ow:
        return (
            "brg_conv_bwd where the forward's row outgrows its input (W > OW): ker_base or ker_vpad by its ow "
            "blocking, not modelled"
        )
    if weights == "jit_1x1:avx2" and threads > 1:
        return "jit_1x1:avx2 backward weights on more than one thread (its nxc reducer balance) not modelled"
    if weights == "jit_dw:avx2":
        g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
        if ow > 30:
            return "jit_dw backward weights over rows of more than 30 columns (column blocks) not measured"
        _nthr_g, nthr_mb, nthr_oh, _ = _dw_nxc_partition(g, c, threads)
        if nthr_mb > 1 and nthr_oh > 1:
            return "jit_dw nxc reduction over both images and rows not modelled"
    return ""


def _brg_calls(g: conv.Geometry) -> list[list[tuple[int, int]]]:
    """brg_conv_bwd's brgemm calls at stride 1, each a list of forward taps (a, b) (backward tap
    (KH - 1 - a, KW - 1 - b)), in order (see the module's docstring)."""
    kh, kw = g.kh, g.kw
    fwd_ow, fwd_iw, lpad = g.w, g.ow, kw - 1 - g.pw
    if fwd_ow <= fwd_iw:
        return [[(a, b) for a in range(kh) for b in range(kw)]]
    valid, full = [], []
    for b in range(kw):
        count = sum(1 for o in range(fwd_ow) if 0 <= o - lpad + b < fwd_iw)
        if count:
            valid.append(b)
        if count == fwd_ow:
            full.append(b)
    left = [b for b in valid if not full or b < full[0]]
    right = [b for b in valid if full and b > full[-1]]
    calls = [[(a, b) for a in range(kh)] for b in left]
    if full:
        calls.append([(a, b) for a in range(kh) for b in full])
    calls += [[(a, b) for a in range(kh)] for b in right]
    return calls


def _brg_bwd_data(dy: np.ndarray, w: np.ndarray, g: conv.Geometry) -> np.ndarray:
    """grad_input of brg_conv_bwd:avx2 (stride 1, one ic block): per call a fused chain from 0 over
    (taps, output channels), the calls' sums added (csrc/conv.c conv_bwd_data_terms, -1 ends a chain)."""
    kh, kw, oc = g.kh, g.kw, g.oc
    terms = []
    for call in _brg_calls(g):
        terms.extend((o, kh - 1 - a, kw - 1 - b) for a, b in call for o in range(oc))
        terms.append((-1, 0, 0))
    t = np.array(terms, np.int64).reshape(-1, 3)
    gx = np.empty((g.n, g.c, g.h, g.w), np.float32)
    conv._lib().conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(t), len(t), 1)
    return gx


def _dw_nxc_partition(g: conv.Geometry, c: int, threads: int) -> tuple[int, int, int, int]:
    """(nthr_g, nthr_mb, nthr_oh, oh_blk_size) of jit_uni_dw_conv_bwd_weights_kernel's
    partition_nthr_nxc (prioritize_threading = true) at AVX2: channel blocks of 8, nb_ch_blocking =
    min(nb_ch, min(4, 15 // (2 * KW))) (is_fast_depthwise)."""
    nb_ch = -(-c // 8)
    ch_outer = -(-nb_ch // min(nb_ch, min(4, 15 // (2 * g.kw))))
    mb, oh = g.n, g.oh
    best_eff, best_imb = np.float32(0.0), np.float32(1.0)
    res = (1, 1, 1, oh)
    for cur_g in range(min(ch_outer, threads), 0, -1):
        avail_mb = threads // cur_g
        for cur_mb in range(min(mb, avail_mb), 0, -1):
            div_mb = avail_mb // cur_mb
            prev_under = False
            avail_oh = min(oh, div_mb)
            for oh_block in range(oh, 0, -1):
                g_blk, mb_blk, oh_blks = -(-ch_outer // cur_g), -(-mb // cur_mb), -(-oh // oh_block)
                cur_oh = min(avail_oh, oh_blks)
                eff = np.float32(cur_g * cur_mb * cur_oh) / np.float32(threads)
                if prev_under and avail_oh < oh_blks:
                    break
                imb_g = np.float32(abs(g_blk * cur_g - ch_outer)) / np.float32(ch_outer)
                imb_mb = np.float32(abs(mb_blk * cur_mb - mb)) / np.float32(mb)
                imb_oh = np.float32(abs(oh_block * cur_oh - oh)) / np.float32(oh)
                imb = np.float32(
                    imb_g * np.float32(mb * oh)
                    + imb_mb * np.float32(ch_outer * oh)
                    + imb_oh * np.float32(ch_outer * mb)
                )
                if best_eff <= eff:
                    if best_eff == eff and best_imb <= imb:
                        continue  # the C++ loop's continue: prev_under_blocked keeps its value
                    res = (cur_g, cur_mb, cur_oh, oh_block)
                    best_imb, best_eff = imb, eff
                prev_under = oh_block * cur_oh < oh
    return res


def _dw_nxc_weights(dy, x, g: conv.Geometry, c: int, threads: int, has_bias: bool):
    """jit_dw:avx2's grad_weight and grad_bias under harness_nxc (see the module's docstring)."""
    _nthr_g, nthr_mb, nthr_oh, oh_blk = _dw_nxc_partition(g, c, threads)
    nb_oh = -(-g.oh // oh_blk)
    mb_parts = conv._balance211(g.n, nthr_mb)
    oh_parts = conv._balance211(nb_oh, nthr_oh)
    blocks = []  # per ithr_block = ithr_mb * nthr_oh + ithr_oh: the pixels in order
    for im in range(nthr_mb):
        for io in range(nthr_oh):
            pix = [
                (b, r, q)
                for b in range(mb_parts[im], mb_parts[im + 1])
                for blk in range(oh_parts[io], oh_parts[io + 1])
                for r in range(blk * oh_blk, min(g.oh, (blk + 1) * oh_blk))
                for q in range(g.ow)
            ]
            blocks.append(np.array(pix, np.int64).reshape(-1, 3))
    lib = _lib()
    gws, gbs = [], []
    for pix in blocks:
        gw = np.zeros((c, 1, g.kh, g.kw), np.float32)
        gb = np.zeros(c, np.float32)
        lib.nhwc_dw_weights(g.n, c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, ptr(dy), ptr(x),
                            ptr(pix), len(pix), 0, c, ptr(gw), ptr(gb))  # fmt: skip
        gws.append(gw)
        gbs.append(gb)
    gw, gb = gws[0], gbs[0]
    thr_work = nthr_mb * nthr_oh
    for r in range(thr_work - 1):  # execute_reduction_nxc: buffer k holds thread block k + 1
        k = (r % nthr_mb) * nthr_oh + (r // nthr_mb) % nthr_oh
        gw = gw + gws[k + 1]
        gb = gb + gbs[k + 1]
    return gw, (gb if has_bias else None)


def conv2d_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask):
    """(grad_input, grad_weight, grad_bias) of the channels-last convolution, None where ``mask``
    leaves one out (or no bias); ParityError where ``declines`` gives a reason."""
    dy, x, w = f32(np.asarray(dy)), f32(np.asarray(x)), f32(np.asarray(w))
    stride, padding = tuple(int(v) for v in stride), tuple(int(v) for v in padding)
    reason = declines(x.shape, w.shape, stride, padding, groups, profile)
    if reason:
        raise ParityError(f"conv2d backward (channels-last): not modelled: {reason}")
    mask = tuple(bool(m) for m in mask)
    prof, threads = profile, profile.threads
    data, _weights = _kinds(x.shape, w.shape, stride, padding, groups, profile)
    gx = gw = gb = None
    if groups == 1:
        g = conv._geometry(x.shape, w.shape, stride, padding)
        if mask[0]:
            if data == "brg_conv_bwd:avx2+brg_conv_fwd:avx2":
                gx = _brg_bwd_data(dy, w, g)
            else:  # brgconv_1x1 (jit_1x1's chain), brgconv_strided:avx2
                gx = conv.conv2d_backward(dy, x, w, stride, padding, False, prof, (True, False, False))[0]
        if mask[1] or (mask[2] and has_bias):
            _, gw, gb = conv.conv2d_backward(dy, x, w, stride, padding, has_bias, prof, (False, mask[1], mask[2]))
    else:
        if mask[0]:
            gx = conv_grouped.conv2d_backward(dy, x, w, stride, padding, groups, False, prof, (True, False, False))[0]
        if mask[1] or (mask[2] and has_bias):
            g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
            gw, gb = _dw_nxc_weights(dy, x, g, x.shape[1], threads, has_bias and mask[2])
    return gx, (gw if mask[1] else None), (gb if (mask[2] and has_bias) else None)
