"""2-D convolution of channels-last tensors (``aten.convolution`` where the input or the weight is
NHWC in memory), forward, as torch 2.13.0 runs it on x86 CPUs at the baseline (SSE4.1), AVX2 and
AVX-512 levels; the backward is harness.impl.conv_nhwc_backward.

Shapes (logical NCHW float32 arrays holding the values; their memory in torch was channels-last)::

    x   input          (N, C, H, W)        C = IC input channels
    w   weight         (OC, C / G, KH, KW) G = groups: 1, C = OC (depthwise), or groups of several
                                           channels (the forward at AVX2 and SSE4.1)
    b   bias           (OC,) or None
    y   output         (N, OC, OH, OW)     OH = (H + 2*PH - KH) // SH + 1, OW likewise
    stride (SH, SW), padding (PH, PW); dilation 1 (dilated ones: harness.impl.conv_nhwc_dilated, through
    the brgemm and gemm:jit models below with the taps apart), not transposed.

Which layout: ATen's ``_convolution`` asks ``mkldnn_conv_use_channels_last`` (oneDNN) or
``thnn_conv_use_channels_last`` (slow_conv2d): channels-last where the input's or the weight's
``suggest_memory_format()`` is ChannelsLast (harness.impl.strides ``suggests_channels_last``). A 1-D
convolution's (N, C, W) operands are 3-D when ATen asks, never channels-last: a (N, C, W) transposed from (N, W, C), as
Mamba-2's causal convolution has it, is made contiguous and runs the NCHW kernels. The backend
is chosen as for NCHW (harness.impl.conv ``path``): ATen's ``thnn`` for a 1x1 kernel at stride 1
below 16 images on 1 thread, or one small image; else oneDNN on nhwc memory.

One input channel or one pixel is the same memory in both layouts, so the rule alone decides.
``x.contiguous(memory_format=torch.channels_last)`` of one keeps its NCHW strides (it counts as
channels-last contiguous already) and runs as NCHW. Models make channels-last strides otherwise:
adaptive_avg_pool2d(1) of a channels-last map gives (C, 1, C, C) (UperNet's pyramid pooling), a
channels-last convolution's one-channel output (H*W, 1, W, 1), and ``Module.to(memory_format=
torch.channels_last)`` gives a weight of one input channel (KH*KW, 1, KW, 1), which makes the
convolution channels-last whatever the input's strides. Those run the kernels below on acdb memory
(ONEDNN_VERBOSE: src, dst and diff_dst acdb; at SSE4.1 ``jit_1x1:sse41``, ``jit:sse41``, ``gemm:jit``;
at AVX2 ``brgconv_1x1:avx2``, ``brg_conv_fwd:avx2``; or slow_conv2d's channels-last frame: measured
for (N, C, 1, 1) and (N, 1, H, W), 1x1 and 3x3 kernels, 1 and 2 threads, forward and backward),
and the models below give their bits: 1,134 random ones built so, at both levels on 1 and 2 threads,
3,538 outputs of the forward and the gradients bit for bit, none other, 584 refused by the bounds
below and conv_nhwc_backward's.

What runs (measured with ONEDNN_VERBOSE, torch 2.13.0, oneDNN v3.12), and its bits:

- ATen's ``thnn`` at both levels (``slow_conv2d_update_output_frame``, is_channels_last): the batch's
  im2col rows (OH*OW, KH*KW*C) per image in (kh, kw, channel) order in one buffer (a 1x1 kernel at
  stride 1 reads the input as it lies), the output filled with the bias, then per image MKL ``sgemm``
  ('T', 'N', m = OC, n = OH*OW, k = KH*KW*C, beta 1 with a bias) through ``cpublas::gemm``, the
  buffers 64-byte aligned as torch's allocator gives (MKL's kernels peel by alignment).
- AVX2, oneDNN ``brg_conv_fwd:avx2`` (kxk) and ``brgconv_1x1:avx2`` (1x1): per output element one
  fused chain from 0 over the taps (kh, kw) row by row, at a tap over the channels (the brgemm
  batch), the bias added last. Input channels in the ic blocks of select_ic_block
  (``_avx2_ic_block``), each block's calls' chains from 0 added to C in order, as at AVX-512
  (3,000 channels at a 1x1 kernel ran blocks of 320). One
  brgemm call holds every tap within ``_one_call`` (kernel within the input, padding within half the
  kernel; or one pixel) and where exec_vpad runs; elsewhere exec_base's ker_base calls by column
  block (``_brg_column_calls``: the partial taps a call each, the full taps one call), each call's
  chain from 0 added onto the output with its accumulator the first operand (a NaN of the call
  stays), the bias last (``_brg_blocked_chain``). brg_conv_fwd's exec type, column block and ic block
  are those init_conf's search keeps (``exec_search`` below, through ``brg_search_blocks``: exec_vpad
  tried where each side's padding is under KW strides and kept where its column block's input fits the
  row, else exec_base; est_eff over output-channel blocks, kernel-row blocks KH and 1 and column blocks
  by the thread count; select_ic_block with the unroll its object last set), the one search
  brg_conv_bwd's W > OW grad_input (harness.impl.conv_nhwc_backward) and the dilated forward
  (harness.impl.conv_nhwc_dilated) run. brgconv_1x1 (a 1x1 kernel without padding; calc_blocks_1x1, not
  that search): modelled where every output-channel block it may take gives the same ic block
  (``_avx2_ic_blocks``; random draws of 300 to 3,000 channels, seed 5: 6, 12 and 12 of several blocks
  bit for bit at 1, 2 and 4 threads, none other), the rest refused. Before the search, the column block
  was taken where whole rows divide among the threads or every block the search may take gave the same
  calls (150 random draws, seed 3: 91, 80 and 62 bit for bit at 1, 2 and 4 threads, the rest refused by
  the column block) and the ic block where every output-channel block gave the same; see "Measured with
  the search" below.
- AVX2, oneDNN ``brdgmm_dw:avx2`` (depthwise): per output one fused chain from 0 over the taps
  (kh, kw) row by row, the bias added last.
- AVX-512 (measured on a Zen 5: L1d 48 KiB, L2 1 MiB a core), oneDNN ``brg_conv_fwd:avx512_core``,
  ``brgconv_1x1:avx512_core`` and ``brdgmm_dw:avx512_core``: AVX2's order. Per output and ic block one
  fused chain from 0 over the taps row by row, at a tap the block's channels; the blocks' sums added
  in order onto the output (beta 1), the bias last (``_brg_blocked_chain``). The ic block is
  select_ic_block's at avx512_core (``_avx512_ic_block``): at most 80 vectors of 16, fewer where the
  unroll's input row outgrows 7/8 of L1 (a kernel wider than 1) or the batch's weights and inputs
  outgrow 3/4 of L2 (both the host's, ``KernelProfile.l1_per_core`` / ``l2_per_core``), then the
  most vectors whose blocks fill half the last; the taps' brgemm calls as at AVX2 (measured as there:
  106, 87 and 66 of 110 bit for bit at 1, 2 and 4 threads, none other); measured by fitting per-block
  chains to torch's bits
  (1,500 channels at a 3x3 kernel: blocks of 1,232; 480 at a 3x3 kernel 30 columns wide: 352; 3,000 at
  a 1x1: 1,280). It depends on the output-channel block oneDNN's search (est_eff) picks: brg_conv_fwd's
  is the search's (``brg_search_blocks``, as at AVX2); brgconv_1x1's modelled where every block
  fast_check_oc_block lets it try gives the same ic block (``avx512_ic_blocks``).
- SSE4.1, oneDNN ``jit:sse41`` / ``jit_1x1:sse41`` on nhwc where harness.impl.conv ``path`` picks
  jit:sse41: the NCHW kernel's chain (from the bias over blocks of 8 channels, (kh, kw), channel,
  unfused); else ``gemm:jit`` nspc (gemm_convolution.cpp ``execute_forward_thr_nspc``): per work item
  (image, block of output rows, block of columns; ``_fwd_nspc_conf``, by the host's L2) one sgemm
  ('N', 'T' or 'N', OC, pixels, KH*KW*C), K in (kh, kw, c) order with zeros in the padding (the
  SSE4.1 copy kernel: K blocks of 256, each block's chain of rounded products from 0 added to C; its
  gemv 'T' for one pixel or channel, harness.impl.onednn_sgemm), the bias added after.
- SSE4.1 depthwise, ``jit_dw:sse41`` (channel tails allowed on nxc): per output one unfused chain
  from the bias over (kh, kw); where the kernel lies outside the input, ``gemm:jit`` nspc with groups:
  per (image, channel) a gemv over the im2col columns, the bias added after.

- groups of several channels (not depthwise; ``_avx2_groups_forward``): at AVX2 ``brg_conv_fwd:avx2`` /
  ``brgconv_1x1:avx2`` group by group, each group the one-group brgemm chain above with the blocks the
  one-group search keeps (up to 64 channels a group); at SSE4.1 ``jit:sse41`` group by group where each
  group has whole blocks of 8 input and output channels (oneDNN reorders to blocked memory:
  harness.impl.conv_grouped's model), else ``gemm:jit`` nspc per group, init_conf's pixel blocks and outer
  threading weighing every group's images. Measured on a Zen 5 (2 to 8 groups of 2 to 64 channels a side,
  kernels 1 to 7, strides 1 and 2, 1 to 3 images, 30% with NaN, infinities, -0 and subnormals; 1, 2 and 4
  threads): every forward bit for bit, none other (docs/impl/kernels.md has the counts). Refused on several
  threads where the search with every group's work (oneDNN's est_eff counts mb * ngroups work items; the model
  searches one group's) could pick another blocking than one group's: 4 groups of 3 channels, a 2x2 kernel at
  stride 2 padded 2 over a 1x11 input on 4 threads gave other bits (18 of 168) with one group's column blocks.
- at AVX-512 (``_avx512_groups_forward``) oneDNN's avx512_core brgemm kernels decline groups of up to 16
  input channels ("grouped convolutions with small ic") and ``jit:avx512_core`` runs them on nxc memory
  (ONEDNN_VERBOSE) in a channel block (``avx512_group_block``: init_conf tries its smaller vectors, 8 then 4
  dividing both sides, only where the group has fewer than 16 channels each side; else 16, the channels not
  padded): per output one fused chain from 0 over (block, kh, kw, channel), the blocks in one chain (its
  loop over them runs inside one call on nxc; over blocked NCHW memory each block's sum is added), the
  bias added last. Where its checks decline the group (conv_grouped ``_avx512_group_forward_takes``, with
  that block: a kernel wholly in the padding, a padded 1x1, its unroll's padding and code-size bounds)
  oneDNN runs brg_conv_fwd:avx2, modelled as at AVX2 above (AVX2's parameters); where those checks are not
  settled, refused; over 16 input channels a group brg_conv_fwd:avx512_core / brgconv_1x1:avx512_core run
  (refused). Measured on a Zen 5 (3, 4 or 8 groups of 2 to 20 input and 1 to 32 output channels, kernels 1
  to 5, strides 1 and 2, padding to half the kernel plus 1, 1 to 3 images, with and without bias, NaN
  payloads, infinities, -0 and subnormals in a third to a half; through the trace replay at 1, 2 and 4
  threads): every forward it models bit for bit, none other, every kernel as ONEDNN_VERBOSE named it. The
  backward is refused but at SSE4.1 and AVX2 (harness.impl.conv_nhwc_backward).

Refused (ParityError naming the kernel): aarch64; groups other than 1 and depthwise but the forward above;
slow_conv2d per group (a 1x1 depthwise kernel at stride 1 on 1 thread); at AVX2 and AVX-512 brgconv_1x1's ic blocks
that hang on the output-channel block its search picks; brg_conv_fwd where the search finds no blocking,
keeps kernel-row blocks under KH, or exec_base's kw blocks split (weights over 3/4 of L2); at AVX-512
ip_convolution (``ip:any+_matmul:avx512_core``: one output pixel of a kernel the size of its
unpadded input, more than 27 taps, more than one image; an inner product: the brgemm chain gave other bits in
12 of 20 such forwards), and ``_avx512_trans``: one input channel (channels-last strides) with a kernel wider than 1
or padding (exec_trans with its weights relocated, Adcb16a, whose bits fit no tap order tried in most
draws; padded taps computed on zeros: an infinite weight there gives NaN), one output column of a
kernel one wide with padding (exec_trans with the pixels flat, not measured);
at SSE4.1 a padding jit_dw's forward declines. Measured at AVX-512 (random draws, see
docs/impl/kernels.md; 200 at each of 1, 2 and 4 threads, a fifth with NaN, infinities, zeros of
both signs and subnormals): every oneDNN forward the module models bit for bit (112, 136, 131), none
other; 126 refused (79 several brgemm calls, since modelled where the column block is known, 25 ic
blocks by the picked output-channel block, 18 exec_trans, 4 slow_conv2d per group); slow_conv2d's 89
forwards bit for bit but 6 with NaN operands, whose NaNs carry the other sign (MKL's sgemm model,
the same at AVX2).

Measured with the search (brg_conv_fwd's blocks from ``exec_search``; on a Zen 5, traced and replayed):
WavLM's first TDNN layer at its released size (conv1d over a weight transposed from (O, K, I), 512 channels,
kernel 5, undilated; 49 to 249 columns, 1 and 2 images: 5 shapes) every forward and backward bit for bit at
avx2 and avx512 on 1, 2, 4 and 8 threads (before: every forward refused at avx512, select_ic_block's 336 or
512 channels by the output-channel block; 3 of 5 backwards refused at both, brg_conv_bwd's W > OW past 60
columns). Random undilated draws (64 to 512 channels a side, kernels 1 to 5, strides 1 and 2, 1-D over a
transposed weight and 2-D channels-last, a fifth with NaN, infinities, ±0 and subnormals; 12 a level and
thread count): forwards 45 and 43 of 48 bit for bit at avx2 and avx512 over 1, 2, 4 and 8 threads (before 27
and 21), backwards 38 and 34 (before 37 and 33), none other; refused by a block 4 and 2 passes (before 24
and 26), all brg_conv_bwd's or brgconv_strided's grad_input ic blocks; the rest NaN results of either kind
and the weights' passes over NaN or infinite operands. The rules before gave other bits at avx512 where the
search keeps exec_base over a strided padded row (``old_vs_new.py``: 150 random small shapes at avx2 and
avx512 on 1, 2, 4 and 8 threads, 1,200 forwards; 973 modelled before give the same bits, 220 refused before
are modelled, 7 at avx512 changed, each other against torch before, as a 1x6 kernel at stride 2 padded by 6
in 6,923 of 8,400 outputs, and bit for bit now).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv, conv_grouped
from harness.impl import onednn_sgemm as og
from harness.impl._lib import aligned, f32, ptr
from harness.impl.profiles import KernelProfile, profile_for_capability

# oneDNN's brgemm convolution at AVX2 (jit_brgemm_conv_utils.cpp): its L2 taken as 2 MiB whatever the
# host's, three quarters of it; the unroll (estimate_ur) by the output-channel block
_BRG_L2 = (2 << 20) * 3 // 4
_BRG_UR = {8: 14, 16: 6, 24: 4, 32: 3}


def _unmodelled_level(profile: KernelProfile, levels: tuple[str, ...] = ("default", "avx2")) -> str:
    """The level this module does not model among ``levels`` ("" for those of torch 2.13.0)."""
    if profile.aarch64 or profile.aten not in levels or profile.torch != "2.13.0":
        return f"the {'aarch64' if profile.aarch64 else profile.aten} level (torch {profile.torch})"
    return ""


def _level(profile: KernelProfile) -> str:
    """The modelled level of ``profile`` ("sse41", "avx2" or "avx512"; ``_unmodelled_level`` said "")."""
    return {"avx2": "avx2", "avx512": "avx512"}.get(profile.aten, "sse41")


def common_declines(x_shape, w_shape, stride, groups: int, profile: KernelProfile,
                    levels: tuple[str, ...] = ("default", "avx2")) -> str:  # fmt: skip
    """What neither direction models ("" where none applies): a level not in ``levels``, groups of
    several channels (not depthwise), ATen's slow_conv2d per group."""
    why = _unmodelled_level(profile, levels)
    if why:
        return why
    c = x_shape[1]
    if groups != 1 and not (groups == c == w_shape[0] and w_shape[1] == 1):
        return f"{groups} groups of {c // groups} channels (not depthwise)"
    if groups != 1 and conv_grouped._thnn_per_group(x_shape, w_shape, stride, profile):
        return "ATen's slow_conv2d per group"
    return ""


# ------------------------------------------------------- shared: buffers, ATen's slow_conv2d, oneDNN's sgemm
def _nhwc_buffer(a: np.ndarray) -> np.ndarray:
    """A (N, C, H, W) array's channels-last memory in a fresh aligned buffer (flat)."""
    out = aligned(a.size)
    out[:] = a.transpose(0, 2, 3, 1).reshape(-1)
    return out


def _im2col_rows(x1: np.ndarray, kh, kw, sh, sw, ph, pw, oh, ow, dh: int = 1, dw: int = 1) -> np.ndarray:
    """One image (C, H, W) -> (OH*OW, KH*KW*C): per output pixel its taps (kh, kw, c), zeros in the padding;
    the taps ``dh`` rows and ``dw`` columns apart (a dilation)."""
    c, h, w = x1.shape
    padded = np.zeros((max(h + 2 * ph, dh * (kh - 1) + sh * (oh - 1) + 1),
                       max(w + 2 * pw, dw * (kw - 1) + sw * (ow - 1) + 1), c), np.float32)  # fmt: skip
    padded[ph : ph + h, pw : pw + w] = x1.transpose(1, 2, 0)
    rows = np.empty((oh, ow, kh, kw, c), np.float32)
    for i in range(kh):
        for j in range(kw):
            y, x = i * dh, j * dw
            rows[:, :, i, j] = padded[y : y + sh * (oh - 1) + 1 : sh, x : x + sw * (ow - 1) + 1 : sw]
    return rows.reshape(oh * ow, kh * kw * c)


def thnn_columns(x: np.ndarray, g: conv.Geometry) -> np.ndarray:
    """slow_conv2d's channels-last columns of the batch, flat in one aligned buffer: per image its
    (OH*OW, KH*KW*C) rows (the input's own memory for a 1x1 kernel at stride 1 without padding)."""
    n, _c, _h, _wd, _oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    if (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0):
        return _nhwc_buffer(x)
    size = oh * ow * kh * kw * g.c
    cols = aligned(n * size)
    for t in range(n):
        cols[t * size : (t + 1) * size] = _im2col_rows(x[t], kh, kw, sh, sw, ph, pw, oh, ow).reshape(-1)
    return cols


def _thnn_forward(x, w, b, g, profile: KernelProfile):
    """slow_conv2d_forward channels-last: per image gemm('T', 'N', OC, OH*OW, K) of the weight's (kh, kw, c)
    rows and the image's columns (the input itself for 1x1 stride 1 without padding, else the batch's
    column buffer at the image's offset) onto the bias rows (beta 1) in the batch's output buffer."""
    from harness.impl.linalg import cpublas_gemm

    n, c, _h, _wd, oc, kh, kw, oh, ow, _sh, _sw, _ph, _pw = g
    k, m = c * kh * kw, oh * ow
    prof = profile if n == 1 else profile.with_threads(1)  # parallel_for over the images, as for NCHW
    wcl = _nhwc_buffer(w)  # (OC, KH*KW*C) rows
    cols = thnn_columns(x, g)
    y = aligned(n * m * oc)
    for t in range(n):
        out = y[t * m * oc : (t + 1) * m * oc]
        if b is not None:
            out.reshape(m, oc)[:] = b
        cpublas_gemm("t", "n", oc, m, k, wcl, k, cols[t * m * k :], k, 1.0 if b is not None else 0.0, out, oc, prof)
    return f32(y.reshape(n, oh, ow, oc).transpose(0, 3, 1, 2))


def _sgemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, nthr: int, isa: str = og.SSE41) -> None:
    """oneDNN's extended_sgemm at ``isa`` (SSE4.1, or AVX2 for gemm:jit's weights there) on flat float32
    arrays (column-major; harness.impl.onednn_sgemm, its gemv kernels included)."""
    og.sgemm(isa, nthr, og.Call(ta, tb, m, n, k, lda, ldb, ldc), a, 0, b, 0, int(beta), c, 0)


def _per_channel(a: np.ndarray) -> np.ndarray:
    return f32(a.transpose(1, 0, 2, 3)[:, :, None])  # (C, N, 1, H, W)


# ------------------------------------------------------------------------------------ AVX2
def _brg_chain(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry) -> np.ndarray:
    """oneDNN's brgemm convolution with C in one ic block: per output one fused chain from 0 over
    (kh, kw, channel), the bias last (``_brg_blocked_chain`` of one block)."""
    return _brg_blocked_chain(x, w, b, g, g.c)


def _depthwise(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding) -> np.ndarray:
    """oneDNN's brdgmm_dw: per channel the one-channel brgemm chain over the taps, the bias last."""
    outs = []
    for ch in range(x.shape[1]):
        xb = np.ascontiguousarray(x[:, ch : ch + 1])
        bb = None if b is None else np.ascontiguousarray(b[ch : ch + 1])
        g = conv._geometry(xb.shape, w[ch : ch + 1].shape, stride, padding)
        outs.append(_brg_chain(xb, np.ascontiguousarray(w[ch : ch + 1]), bb, g))
    return np.concatenate(outs, axis=1)


def _one_call(g: conv.Geometry, dil: tuple[int, int] = (1, 1)) -> bool:
    """Where every tap of an output lies in one brgemm call (measured at AVX2): the kernel within the
    input and the padding within half the kernel on each side; or an input of one pixel, where each
    output reads one tap, whatever calls the others take (a 3x3 or 5x5 kernel padded by half over a
    pooled (N, C, 1, 1): 140 of 140 bit for bit). Dilated (``dil``): no padding (every tap of every output
    in the input: one call whatever the blocks); the padding within half the kernel's extent gave other
    bits (a 3x3 kernel dilated by 4, padding 3)."""
    if dil != (1, 1):
        return (g.ph, g.pw) == (0, 0)
    return (g.h, g.w) == (1, 1) or (g.kh <= g.h and g.kw <= g.w and 2 * g.ph < g.kh and 2 * g.pw < g.kw)


def _brg_ow_range(g: conv.Geometry, ow0: int, m: int, kw: int, dw: int = 1) -> tuple[int, int]:
    """get_ow_range: the output columns [s, f) of the block of ``m`` from ``ow0`` where tap ``kw`` (the taps
    ``dw`` apart) lies in the input."""
    iw_lp = ow0 * g.sw - g.pw + kw * dw
    iw_rp = iw_lp + (m - 1) * g.sw - g.w + 1
    s, off = ow0, 0
    if iw_lp < 0:
        off = -(iw_lp // g.sw)  # div_up(-iw_lp, SW)
        s += off
    if iw_rp > 0:
        off += -(-iw_rp // g.sw)
    return min(s, ow0 + m), min(max(s, s + m - off), ow0 + m)


def _brg_column_calls(g: conv.Geometry, ow_block: int, col: int,
                      dw: int = 1) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]:  # fmt: skip
    """ker_base's brgemm calls that reach output column ``col`` (exec_base, blocks of ``ow_block``
    columns; jit_brgemm_conv.cpp): get_kw_range splits the taps kw into those in the input for part
    of the block left of those in it for all the block, those, and the rest; the first and the last
    one call a tap, the middle one call. Returns (the left taps, the middle taps, the right taps) that
    reach ``col`` and whether the block's first call reaches it (else the column starts from the zeros
    perform_outwork writes)."""
    ow0 = col - col % ow_block
    m = min(ow_block, g.ow - ow0)
    spans = [_brg_ow_range(g, ow0, m, kw, dw) for kw in range(g.kw)]
    reach = [kw for kw, (s, f) in enumerate(spans) if s < f]
    if not reach:
        return (), (), (), False
    full = [kw for kw in reach if spans[kw][1] - spans[kw][0] == m]
    full_s, full_f = (full[0], full[-1] + 1) if full else (reach[-1] + 1, reach[-1] + 1)
    hit = [kw for kw in reach if spans[kw][0] <= col < spans[kw][1]]
    left = tuple(kw for kw in hit if kw < full_s)
    right = tuple(kw for kw in hit if kw >= full_f)
    return left, tuple(range(full_s, full_f)), right, reach[0] in hit


def _brg_kw_whole(g: conv.Geometry, profile: KernelProfile) -> bool:
    """Whether exec_base's kw block is the whole kernel row for every output-channel block (iterate_ker_block:
    the weights of KW taps over every input channel under its L2, three quarters of 2 MiB at AVX2, of
    the host's at AVX-512)."""
    simd, l2 = (16, profile.l2_per_core * 3 // 4) if _level(profile) == "avx512" else (8, _BRG_L2)
    return g.c * 4 * simd * 4 * g.kw < l2


def _select_ic_block(
    g: conv.Geometry,
    oc_block: int,
    ur: int,
    l1: int,
    l2: int,
    simd: int,
    most_vectors: int,
    out_ur: int | None,
    dw: int = 1,
) -> int:
    """brgemm convolution's select_ic_block for ``oc_block`` output channels and an unroll of ``ur`` pixels
    (the whole kernel in the batch; ``l1`` 7/8 of the host's L1, ``l2`` the L2 it reckons with), in vectors
    of ``simd`` channels: at most ``most_vectors``, fewer where the input row of the unroll outgrows L1 (a
    kernel wider than 1) or the batch's weights and inputs outgrow L2 (less the output rows of ``out_ur``,
    the unroll the search last set, ``ur`` where None); at AVX2 (``simd`` 8) all the channels where they
    fill at most 256 vectors and the weights and input row per channel take under 1,400 bytes; then the
    most vectors whose blocks fill at least half of the last. ``dw``: the taps' dilation (the unroll's input
    row spans the kernel's extent)."""
    vectors = -(-g.c // simd)
    os_blocking = (g.kh, g.kw, g.ph, g.pw, g.sh, g.sw) == (1, 1, 0, 0, 1, 1)  # calc_blocks_1x1: the pixels flat
    inp_ur = ur if os_blocking else min(g.w, (ur - 1) * min(g.kw, g.sw) + (g.kw - 1) * dw + 1)  # get_inp_size
    wei_per_ic = g.kh * g.kw * oc_block * 4
    inp_per_ic = g.kh * inp_ur * 4
    most = min(most_vectors, vectors)
    if g.kw > 1:
        most = min(most, max(1, l1 // (inp_ur * 4 * simd)))
    out = ur if out_ur is None else out_ur
    most = min(most, max(1, (l2 - out * oc_block * 4) // ((wei_per_ic + inp_per_ic) * simd)))
    if simd == 8 and vectors <= 256 and wei_per_ic + inp_per_ic < 1400:
        most = vectors
    nb = next(nb for nb in range(most, 0, -1) if vectors / (-(-vectors // nb) * nb) >= 0.5)
    return min(g.c, nb * simd)


def _avx2_ic_block(g: conv.Geometry, oc_block: int, ur: int, l1: int, out_ur: int | None = None, dw: int = 1) -> int:
    """select_ic_block at AVX2 (``_select_ic_block``): vectors of 8, at most 40, the L2 it assumes (``_BRG_L2``)."""
    return _select_ic_block(g, oc_block, ur, l1, _BRG_L2, 8, 40, out_ur, dw)


def _avx2_ic_blocks(g: conv.Geometry, profile: KernelProfile) -> set[int]:
    """The ic blocks select_ic_block may give at AVX2 (``_avx2_ic_block``), for each output-channel block
    (8 to 32) oneDNN's search may take, at the smallest and the largest unroll (3,000 channels at a 1x1
    kernel: blocks of 320, measured)."""
    l1 = profile.l1_per_core * 7 // 8
    os_blocking = (g.kh, g.kw, g.ph, g.pw, g.sh, g.sw) == (1, 1, 0, 0, 1, 1)
    sp = g.oh * g.ow if os_blocking else g.ow
    blocks = (8, 16, 24, 32)[: -(-g.oc // 8)]
    return {_avx2_ic_block(g, ob, ur, l1) for ob in blocks for ur in (1, min(_BRG_UR[ob], sp))}


# ---------------------------------------------------------------------------------- AVX-512
# oneDNN's brgemm convolution at avx512_core (jit_brgemm_conv_utils.cpp brg_blocking_t): estimate_ur
# by the output-channel block, the most vectors of 16 channels an ic block takes
_BRG512_UR = {16: 28, 32: 14, 48: 9, 64: 6}
_BRG512_MOST = 80


def _avx512_ic_block(
    g: conv.Geometry, oc_block: int, ur: int, l1: int, l2: int, out_ur: int | None = None, dw: int = 1
) -> int:
    """select_ic_block at avx512_core (``_select_ic_block``): vectors of 16, at most 80."""
    return _select_ic_block(g, oc_block, ur, l1, l2, 16, _BRG512_MOST, out_ur, dw)


def _avx512_oc_blocks(g: conv.Geometry) -> list[int]:
    """The output-channel blocks oneDNN's search tries at avx512_core (fast_check_oc_block and its
    1x1 twin): 16 and 32 always; 48 and 64 where OC rounded to 16 divides by them and, for 64 on a
    kernel over 1x1, under 192 channels, for 48 at most 384 and an input of over 81 pixels a stride
    step (1x1: 48 where OC fills 95% of its blocks, 64 from 64 output pixels a stride step)."""
    rnd_oc = -(-g.oc // 16) * 16
    one_by_one = (g.kh, g.kw, g.ph, g.pw) == (1, 1, 0, 0)
    blocks = []
    for ob in (16, 32, 48, 64)[: min(4, rnd_oc // 16)]:
        if ob == 64:
            ok = rnd_oc % 64 == 0 and (g.oh * g.ow >= 64 * g.sh * g.sw if one_by_one else rnd_oc < 192)
        elif ob == 48:
            ok = (
                (g.oc / (-(-g.oc // 48) * 48) >= 0.95)
                if one_by_one
                else (rnd_oc % 48 == 0 and rnd_oc <= 384 and g.h * g.w > 81 * g.sh * g.sw)
            )
        else:
            ok = True
        if ok:
            blocks.append(ob)
    return blocks


def _avx512_trans(g: conv.Geometry) -> bool:
    """Where oneDNN's brg_conv_fwd:avx512_core runs what the model does not: exec_trans with its weights
    relocated (Adcb16a) for one input channel and a kernel wider than 1 (its bits fit the taps column
    by column in one draw, no order tried in others); one input channel with padding, whose padded taps
    it computes on zeros (an infinite weight there gives NaN, measured); and exec_trans with the
    pixels flat (one output column, a kernel one wide, taller than 1) with padding, not measured."""
    padded = (g.ph, g.pw) != (0, 0)
    one_by_one = (g.kh, g.kw) == (1, 1)
    return (g.c == 1 and (g.kw > 1 or padded)) or (g.ow == 1 and g.kw == 1 and not one_by_one and padded)


def avx512_ic_blocks(g: conv.Geometry, profile: KernelProfile) -> set[int]:
    """The ic blocks select_ic_block may give at avx512_core: for each output-channel block the search
    tries, at the smallest and the largest unroll (the block only grows as the unroll shrinks). L1 is
    taken as 7/8 of the host's, L2 as 3/4 (measured on a Zen 5: 48 KiB, 1 MiB)."""
    l1, l2 = profile.l1_per_core * 7 // 8, profile.l2_per_core * 3 // 4
    one_by_one = (g.kh, g.kw, g.ph, g.pw) == (1, 1, 0, 0)
    sp = g.oh * g.ow if one_by_one and (g.sh, g.sw) == (1, 1) else g.ow
    return {_avx512_ic_block(g, ob, ur, l1, l2) for ob in _avx512_oc_blocks(g) for ur in (1, min(_BRG512_UR[ob], sp))}


def _brg_blocked_chain(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry, ic_block: int,
                       ow_block: int = 1, dil: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """oneDNN's brgemm convolution (brg_conv_fwd / brgconv_1x1) per ic block (ker_base per ic chunk, in
    order) by its brgemm calls: per output and call one fused chain from 0 over the call's taps (kernel
    rows outer, taps kw inner, the block's channels innermost), each call's sum added onto the output
    (the kernel's beta 1; a column the first call misses starts from perform_outwork's zeros), the
    bias last (csrc/conv.c conv_fwd_terms, a part a call). ``ow_block`` 1: one call over every tap
    (exec_vpad, a kernel row block of KH); else exec_base's calls over blocks of ``ow_block`` columns
    (``_brg_column_calls``), their kernel rows all of KH, the partial taps' calls a row each where the
    kernel is taller than wide (kh_block_pad 1). ``dil``: the taps that far apart (a dilated convolution
    of one call, harness.impl.conv_nhwc_dilated)."""
    n, c, _h, _w, oc, kh, kw, oh, ow = g[:9]
    if ow_block == 1:
        taps = [(i, j) for i in range(kh) for j in range(kw)]
        parts = [[(k, i, j) for i, j in taps for k in range(c0, min(c, c0 + ic_block))] for c0 in range(0, c, ic_block)]
        return _brg_calls_sum(x, w, b, g, parts, True, dil)
    pad_rows = kh > kw  # the partial taps' calls a row each: rows of the same kernel rows in the input alike
    row_classes: dict[tuple[int, ...], list[int]] = {}
    for r in range(oh):
        top = r * g.sh - g.ph
        rows = tuple(i for i in range(kh) if 0 <= top + i * dil[0] < g.h)
        row_classes.setdefault(rows if pad_rows else (), []).append(r)
    col_classes: dict[tuple, list[int]] = {}
    for col in range(ow):
        col_classes.setdefault(_brg_column_calls(g, ow_block, col, dil[1]), []).append(col)
    y = np.empty((n, oc, oh, ow), np.float32)
    for rows, where_r in row_classes.items():
        for (left, middle, right, first), where_c in col_classes.items():
            blocks = [(i,) for i in rows] if pad_rows else [tuple(range(kh))]
            calls = [[(i, j) for i in block] for block in blocks for j in left]
            calls += [[(i, j) for i in range(kh) for j in middle]] * bool(middle)
            calls += [[(i, j) for i in block] for block in blocks for j in right]
            parts = [[(k, i, j) for i, j in taps for k in range(c0, min(c, c0 + ic_block))]
                     for c0 in range(0, c, ic_block) for taps in calls]  # fmt: skip
            at = np.ix_(range(n), range(oc), where_r, where_c)
            y[at] = _brg_calls_sum(x, w, b, g, parts, first, dil)[at]
    return y


def _brg_calls_sum(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, g: conv.Geometry,
                   parts: list[list[tuple[int, int, int]]], first: bool,
                   dil: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """The brgemm calls' sums onto the output: each part's fused chain from 0 (csrc/conv.c
    conv_fwd_terms), added to the sum before as the kernel stores with beta 1, its accumulator the first
    operand (where both are NaN the call's NaN stays); the first onto perform_outwork's zeros where
    ``first`` is false; the bias last, the sum its first operand. Taps ``dil`` apart."""
    lib = conv._lib()
    total = None if first else np.zeros((g.n, g.oc, g.oh, g.ow), np.float32)
    with np.errstate(invalid="ignore"):
        for terms in parts or [[]]:
            t = np.array(terms, np.int64).reshape(-1, 3)
            acc = np.empty((g.n, g.oc, g.oh, g.ow), np.float32)
            lib.conv_fwd_terms_dilated(*g, *dil, ptr(x), ptr(w), None, ptr(acc), ptr(t), len(t), 1, 0)
            total = acc if total is None else np.where(np.isnan(acc), acc, acc + total)
        return total if b is None else np.where(np.isnan(total), total, total + b[:, None, None])


# ------------------------------------------------ oneDNN's blocking search (brg_conv_fwd, brg_conv_bwd's forward)
# the brgemm forward's search (jit_brgemm_conv_utils.cpp init_conf, f32): the cost constants of
# brg_blocking_t (L1_k, L2_k; L3_k and mem_k both 17) and sizeof(brgemm_batch_element_t)
_L1_K, _L2_K, _MEM_K = np.float32(1.0), np.float32(2.3), np.float32(17.0)


class FwdBlocking(NamedTuple):
    """The blocking brg_conv_bwd's forward search keeps: output-channel block (of the forward: grad_input's
    channels), its ow block (grad_input's columns), kernel rows a brgemm call takes, the efficiency, the ic
    block (grad_output's channels a call takes) select_ic_block gave it."""

    oc_block: int
    ow_block: int
    kh_block: int
    eff: float
    ic_block: int = 0


def _brgemm_rows(m: int, n: int, k: int, l1: int, vpad: int, simd: int = 16) -> tuple[int, int] | None:
    """(bd_block, adj_ld_block2) of brgemm_blocking, f32, at avx512_core (``simd`` 16: 32 registers) or
    AVX2 (8: 16 registers), for an M x N x K call whose rows may start or end ``vpad`` rows in the virtual
    padding (exec_vpad): vectors of ``simd`` of N a row from 4 down until the last row block covers the
    padding, the most rows the registers hold (calculate_max_bcast_block: at AVX2 4 vectors a row load
    one vector at a time, n_bcast_1_load), then the block of the best M-rounding times microkernel
    efficiency whose rows of A fit the (whole) L1; None where no row block covers the padding (the
    kernel declines)."""
    f = np.float32
    regs = 2 * simd
    ldb = n // simd
    most = adj = 0
    for try_ld in range(4, 0, -1):
        adj = max(1, try_ld if ldb // try_ld else ldb % try_ld)
        one_load = simd == 8 and adj == 4
        most = min((regs - 1) // (adj + 1) if one_load else (regs - adj - 1) // adj, regs // adj)
        tail = m % most
        if (tail or most) >= vpad:
            break
    if (m % most or most) < vpad:
        return None
    best, block = f(0), most
    for rows in range(most, max(1, vpad) - 1, -1):
        disb = f(m) / f(conv._rnd_up(m, rows))
        micro = f(f(adj) * f(rows)) / f((adj + rows) * most)
        if 4 * rows * k <= l1 and disb * micro > best:
            block, best = rows, f(disb * micro)
    return block, adj


def _loop_order(fg: conv.Geometry, threads: int, simd: int, l2: int) -> str:
    """init_conf's loop_order for brg_conv_bwd's forward ``fg``: at AVX2 (``simd`` 8) "gcndhw" where there
    are more images than threads and both the input and the weights outgrow its L2; else "ngcdhw" where
    the input is smaller than the weights, else "ndhwgc"."""
    src, wei = fg.h * fg.w * 4 * fg.c, fg.oc * fg.kh * fg.kw * 4 * fg.c
    if simd == 8 and fg.n > threads and src > l2 and wei > l2:
        return "gcndhw"
    return "ngcdhw" if src < wei else "ndhwgc"


def _fwd_eff(fg: conv.Geometry, threads: int, l1: int, l2: int, oc_block: int, ow_block: int, kh_block: int,
             ic_block: int, ur: int, adj: int, simd: int = 16, order: str = "", dw: int = 1) -> np.float32:  # fmt: skip
    """brg_blocking_t::est_eff of the brgemm forward ``fg`` (brg_conv_bwd's at stride 1, or brg_conv_fwd's;
    od 1, oh_block 1, kw_block KW) in float32 as oneDNN computes it: oc-block rounding, microkernel, row
    rounding, thread balance, unroll rounding, cache traffic of its loops (io_k against 7/8 of L1 and 3/4
    of L2) and brgemm efficiency; vectors of ``simd`` floats (16 registers to a vector of 8), the loops in
    ``order`` (``_loop_order``); the input a row of outputs reads (get_inp_size) by the column stride and
    the taps' dilation ``dw``."""
    f = np.float32
    up, rnd = conv._div_up, conv._rnd_up
    mb, ic, _ih, iw, oc, kh, kw, oh, ow = fg[:9]
    order = order or _loop_order(fg, threads, simd, l2)
    ndhwgc = order == "ndhwgc"
    sp, sp_block = ow, ow_block
    nb_sp, nb_oc, nb_ic, nb_kh = up(sp, sp_block), up(oc, oc_block), up(ic, ic_block), up(kh, kh_block)

    def inp_w(out_w: int, ker_w: int) -> int:
        return min(iw, (out_w - 1) * min(ker_w, fg.sw) + (ker_w - 1) * dw + 1)

    def rnd_inp(out_w: int, ker_w: int, vic: int) -> int:
        vsp = inp_w(out_w, ker_w)
        return rnd(vsp * vic, simd) if fg.sw == 1 and vic >= ic else vsp * rnd(vic, simd)

    micro = f(f(adj) * f(ur)) / f((ur + adj) * 2 * simd)
    ur_eff = f(sp_block) / f(rnd(sp_block, ur))
    brgemm_eff = f(f(f(1) + f(f(ur) * f(f(2) - min(f(1.9), f(f(ur) / f(sp_block)))) / f(64))) / f(2))
    sp_amount = oh * nb_sp
    work = mb * nb_oc * sp_amount
    sp_eff = f(sp) / f(rnd(sp, sp_block))
    job = up(work, threads)
    # the threads' balance item by item (balance211), whatever the work per thread: torch 2.13.0's oneDNN takes
    # it where a thread has more items than there are threads too (work / rnd_up(work, threads) there gave
    # other exec types than torch's at 8 and 16 threads: 8 of 20 exec_vpad picks on a Zen 5)
    u = np.arange(work)
    if ndhwgc:
        ocb, owb = u % nb_oc, (u // nb_oc) % nb_sp
    else:  # the images outside the output-channel blocks (ngcdhw) or inside them (gcndhw)
        ocb, owb = (u // (sp_amount * (mb if order == "gcndhw" else 1))) % nb_oc, u % nb_sp
    sizes = np.minimum(sp - owb * sp_block, sp_block) * np.minimum(oc - ocb * oc_block, oc_block)
    starts = np.array(conv._balance211(work, threads))  # threads past the work take none
    jobs = np.array([sizes[starts[t] : starts[t + 1]].sum() for t in range(threads)], np.int64)
    job_eff = f(1) if jobs.max() == 0 else f(f(int(jobs.sum())) / f(int(jobs.max()) * threads))
    ocbs = oc_block * ic_block
    loops = []  # (src, dst, weights), each (itersize, repeatn, overlap), innermost first
    src_is = rnd_inp(ur, kw, ic_block)
    loops.append(((inp_w(ur, kw) * simd, 1, simd), (0, 1, 1), (oc_block, 1, 1)))
    loops.append(((src_is, 1, kw), (0, 1, 1), (ocbs, 1, 1)))
    loops.append(((src_is, 1, 1), (0, 1, 1), (kw * ocbs, 1, 1)))
    wei_is = kh_block * kw * ocbs
    loops.append(((kh_block * src_is, 1, 1), (ur * oc_block, 1, 1), (wei_is, up(sp_block, ur), 1)))
    loops.append(((kh_block * rnd_inp(sp_block, kw, ic_block), 1, 1), (sp_block * oc_block, nb_kh, 1), (wei_is, 1, 1)))
    loops.append(
        ((kh * rnd_inp(sp_block, kw, ic_block), 1, 1), (sp_block * oc_block, nb_ic, 1), (kh * kw * ocbs, 1, 1))
    )
    nb_oc_thr = min(nb_oc, up(job, 1 if ndhwgc else sp_amount))
    nsimd_oc_thr = up(min(oc, nb_oc_thr * oc_block), simd)
    dim_sp = nb_oc if ndhwgc else 1
    nb_sp_thr = min(nb_sp, up(job, dim_sp))
    sp_thr = min(sp, nb_sp_thr * sp_block)
    nb_oh_thr = min(oh, up(job, nb_sp * dim_sp))
    oh_thr = min(oh, nb_oh_thr)
    nb_od_thr = min(1, up(job, oh * nb_sp * dim_sp))
    src_is = kh * rnd_inp(sp_block, kw, ic)
    wei_op = kh * kw * adj * ic
    if ndhwgc:
        loops.append(((src_is, nb_oc_thr, 1), (sp_block * oc_block, 1, 1), (kh * kw * oc_block * ic, 1, 1)))
        wei_op = kh * kw * nsimd_oc_thr * ic
    rnd_oc_sp = simd * (nsimd_oc_thr if ndhwgc else adj)
    loops.append(((src_is, 1, 1), (sp_block * rnd_oc_sp, 1, 1), (wei_op * simd, nb_sp_thr, 1)))
    src_is = kh * rnd_inp(sp_thr, kw, ic)
    loops.append(((src_is, 1, 1), (sp_thr * rnd_oc_sp, 1, 1), (wei_op * simd, nb_oh_thr, 1)))
    loops.append(((oh_thr * src_is, 1, 1), (oh_thr * sp_thr * rnd_oc_sp, 1, 1), (wei_op * simd, nb_od_thr, 1)))
    if not ndhwgc:
        loops.append(
            ((oh_thr * src_is, nb_oc_thr, 1), (oc_block * oh_thr * sp_thr, 1, 1), (kh * kw * oc_block * ic, 1, 1))
        )
    mb_thr = min(mb, up(job, sp_amount * nb_oc))
    loops.append(((oh_thr * src_is, 1, 1), (oh_thr * sp_thr * nsimd_oc_thr * simd, 1, 1),
                  (kh * kw * nsimd_oc_thr * simd * ic, mb_thr, 1)))  # fmt: skip
    src_op = mb_thr * oh_thr * sp_thr * kh * kw * ic
    dst_op = mb_thr * oh_thr * sp_thr * nsimd_oc_thr
    wei_op = kh * kw * nsimd_oc_thr * ic
    loops.append(((src_op, 1, 1), (dst_op * simd, 1, 1), (wei_op * simd, 1, 1)))

    costs = conv.loop_costs(loops, (src_op, dst_op, wei_op), l1, l2, (_L1_K, _L2_K, _MEM_K))
    calls = f(f(f(f(1000) * f(job)) * f(nb_ic)) * f(nb_kh))
    cache_eff = f(f(mb * oh * sp * ic * oc) / f(threads * f(f(f(f(costs[0] + costs[1]) + costs[2]) + calls))))
    eff = f(f(oc) / f(rnd(oc, oc_block)))
    for term in (micro, sp_eff, job_eff, ur_eff, cache_eff, brgemm_eff):
        eff = f(eff * term)
    return eff


class _SearchLevel(NamedTuple):
    """What brg_conv_bwd's forward search reads of its level: floats a vector, 7/8 of the host's L1, its L2
    (3/4 of the host's at avx512_core, of 2 MiB at AVX2), the output-channel blocks it tries, estimate_ur
    by the block, and select_ic_block (output-channel block, unroll -> ic block)."""

    simd: int
    l1: int
    l2: int
    oc_blocks: list[int]
    ur: dict[int, int]
    ic_block: Callable[[conv.Geometry, int, int, int, int], int]


def _search_level(fg: conv.Geometry, profile: KernelProfile) -> _SearchLevel:
    """``_SearchLevel`` of brg_conv_bwd's forward ``fg`` at the profile's level. AVX2 (init_conf's
    try_exec_type): blocks of 4 down to 1 vectors of 8 (2 where loop_gcndhw or the output has 150 x 150
    pixels or more), every one fast_check_oc_block lets through (its 48 and 64 are avx512_core's);
    avx512_core: conv_nhwc ``_avx512_oc_blocks``."""
    l1 = profile.l1_per_core * 7 // 8
    if _level(profile) == "avx512":
        l2 = profile.l2_per_core * 3 // 4
        return _SearchLevel(16, l1, l2, _avx512_oc_blocks(fg), _BRG512_UR,
                            lambda g, ob, u, out, d: _avx512_ic_block(g, ob, u, l1, l2, out, d))  # fmt: skip
    l2 = _BRG_L2
    first = 2 if _loop_order(fg, profile.threads, 8, l2) == "gcndhw" or fg.oh * fg.ow >= 150 * 150 else 4
    blocks = [8 * v for v in range(1, min(conv._div_up(fg.oc, 8), first) + 1)]
    return _SearchLevel(8, l1, l2, blocks, _BRG_UR,
                        lambda g, ob, ur, out, dw: _avx2_ic_block(g, ob, ur, l1, out, dw))  # fmt: skip


def _fwd_blocking(fg: conv.Geometry, profile: KernelProfile, vpad: bool, dw: int = 1) -> FwdBlocking | None:
    """init_conf's search (try_exec_type) for the brgemm forward ``fg`` (brg_conv_bwd's, or brg_conv_fwd's
    with its taps ``dw`` columns apart) as exec_vpad (``vpad``) or exec_base, at avx512_core or AVX2
    (``_search_level``): output-channel blocks from the most vectors down, per block calc_blocks over
    kernel-row blocks KH then 1 and ow blocks div_up(OW, ns) up to the threads' cap, each with
    select_ic_block's ic block and brgemm_blocking's unroll, scored by ``_fwd_eff``; the first best kept
    at each level. select_ic_block reads the unroll its object last set (0 before the first,
    brgemm_blocking's rows after: the L2 it leaves the output rows). None where nothing fits (exec_vpad:
    the brgemm kernel declines)."""
    f = np.float32
    threads = profile.threads
    lv = _search_level(fg, profile)
    order = _loop_order(fg, threads, lv.simd, lv.l2)
    mb, ic, _ih, _iw, oc, kh, kw, oh, ow = fg[:9]
    ext_kw = (kw - 1) * dw + 1
    max_vpad = max(fg.pw, conv._end_pad(fg.pw, ow, fg.w, fg.sw, ext_kw)) if vpad else 0
    best: FwdBlocking | None = None
    for oc_block in reversed(lv.oc_blocks):
        nb_oc = conv._div_up(oc, oc_block)
        cap = int(f(f(mb * nb_oc * oh * ow) + f(f(0.9) * threads) - 1) / f(f(0.9) * threads))
        cap = min(max(1, cap), ow)
        found: FwdBlocking | None = None
        last_ur = 0  # brg_blocking_t::ur: the unroll estimate_brgemm_ur last set on this block's object
        for kh_block in [kh, 1] if kh != 1 else [kh]:
            prev = 0
            for ns in range(1, ow + 1):
                spb = conv._div_up(ow, ns)
                if spb == prev or spb > cap:
                    continue
                prev = spb
                ic_block = lv.ic_block(fg._replace(kh=kh_block), oc_block, min(spb, lv.ur[oc_block]), last_ur, dw)
                k = ic_block if ic >= ic_block else ic % ic_block
                n = oc_block if oc >= oc_block else oc % oc_block
                rows = _brgemm_rows(spb, n, k, profile.l1_per_core, max_vpad, lv.simd)
                last_ur = rows[0] if rows is not None else last_ur
                tail = ow % spb
                if rows is None or (
                    max_vpad and tail and _brgemm_rows(tail, n, k, profile.l1_per_core, max_vpad, lv.simd) is None
                ):
                    continue
                eff = _fwd_eff(fg, threads, lv.l1, lv.l2, oc_block, spb, kh_block, ic_block, *rows, lv.simd, order, dw)
                if found is None or eff > f(found.eff) or found.eff == 0:
                    found = FwdBlocking(oc_block, spb, kh_block, float(eff), ic_block)
        # get_brgemm_ur: every (M, N) kernel of the blocking, the oc tail's too, must take the padding
        if found is not None and max_vpad:
            sizes = [(m, n) for m in (found.ow_block, ow % found.ow_block) for n in (oc_block * (oc >= oc_block),
                     oc % oc_block) if m and n]  # fmt: skip
            if any(_brgemm_rows(m, n, 1, profile.l1_per_core, max_vpad, lv.simd) is None for m, n in sizes):
                continue
        if found is not None and (best is None or f(found.eff) > f(best.eff)):
            best = found
    return best


def exec_search(fg: conv.Geometry, profile: KernelProfile, dw: int = 1) -> tuple[bool, FwdBlocking] | None:
    """init_conf's choice for the brgemm forward ``fg`` (taps ``dw`` columns apart) at avx512_core or AVX2:
    (exec_vpad, the blocking ``_fwd_blocking`` keeps). exec_vpad is tried where the padding of each side is
    under KW strides, and kept where its ow block's input columns fit the input (else the kernel would
    need virtual padding on both sides); else exec_base. None where neither finds a blocking."""
    r_pad = conv._end_pad(fg.pw, fg.ow, fg.w, fg.sw, (fg.kw - 1) * dw + 1)
    if -(-fg.pw // fg.sw) < fg.kw and -(-r_pad // fg.sw) < fg.kw:
        vpad = _fwd_blocking(fg, profile, True, dw)
        if vpad is not None and (vpad.ow_block - 1) * fg.sw + 1 <= fg.w:
            return True, vpad
    base = _fwd_blocking(fg, profile, False, dw)
    return None if base is None else (False, base)


def brg_1x1(g: conv.Geometry) -> bool:
    """Whether oneDNN runs brgconv_1x1 (a 1x1 kernel without padding; its own blocking, calc_blocks_1x1, not
    ``exec_search``): its ic block by ``avx512_ic_blocks`` / ``_avx2_ic_blocks``, its taps one call."""
    return (g.kh, g.kw, g.ph, g.pw) == (1, 1, 0, 0)


def brg_search_blocks(g: conv.Geometry, profile: KernelProfile, dil: tuple[int, int] = (1, 1)) -> tuple[int, int] | str:
    """brg_conv_fwd's (ic block, column block) by the blocking init_conf's search keeps (``exec_search``, its
    taps ``dil`` apart): the column block 1 where one brgemm call holds every tap (exec_vpad, or
    ``_one_call``), else exec_base's block (``_brg_blocked_chain``). Where the model does not hold, what
    does not (a clause for a ParityError): the search finds no blocking, keeps kernel rows in blocks under
    KH (calls a row each), or exec_base's kw blocks split (the weights over L2)."""
    searched = exec_search(g, profile, dil[1])
    if searched is None:
        return "whose blocking search finds none"
    vpad, blocking = searched
    one_call = vpad or _one_call(g, dil)
    if blocking.kh_block != g.kh or not (one_call or _brg_kw_whole(g, profile)):
        which = f"kernel rows in blocks of {blocking.kh_block}" if blocking.kh_block != g.kh else "kw blocks"
        return (
            f"with a {g.kh}x{g.kw} kernel, padding ({g.ph}, {g.pw}) on a {g.h}x{g.w} input (its taps in several "
            f"brgemm calls: {which})"
        )
    return blocking.ic_block, 1 if one_call else blocking.ow_block


# ---------------------------------------------------------------------------------- SSE4.1
def _fwd_nspc_conf(g, threads: int, l2_bytes: int, dilated: bool = False, groups: int = 1) -> tuple[int, int, bool]:
    """(oh_block, ow_block, outer_threading) of gemm_convolution_utils.cpp init_conf (f32 nspc forward);
    ``dilated``: no pixel blocking (is_blocking_applicable takes no dilation). ``g`` is one group's
    geometry: the work its threading weighs counts every group's images."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, _ph, _pw = g
    ks, os_, is_ = kh * kw, oh * ow, h * wd
    simd_w, ds = 4, 4
    l2 = l2_bytes // ds
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    h_block, w_block, outer = oh, ow, False
    if not plain and not dilated and oc * c * ks < l2 // 2:
        row = (c * ow * ks * ds + 2 * (c * wd + oc * ow) * ds) * 5 + oc * ow * ds + c * wd * ds
        h_block = min(max(1, conv._div_up(l2, row)), oh)
        if h_block == 1:
            col = c * ks * ds + 2 * (c + oc) * ds
            w_block = min(max(1, conv._div_up(l2, col)), ow)
        if h_block != oh:
            h_block = max(1, conv._rnd_dn(h_block, 4))
        if w_block != ow:
            w_block = max(1, conv._rnd_dn(w_block, simd_w))
        thr_eff, tr = 0.0, np.float32(0.9)
        if w_block == ow:
            while True:
                nb_h = conv._div_up(oh, h_block)
                work = groups * n * nb_h
                disb = np.float32(oh) / np.float32(conv._div_up(oh, h_block) * h_block)
                thr_eff = np.float32(work) / np.float32(conv._div_up(work, threads) * threads)
                thr_eff = (thr_eff + disb) / np.float32(2)
                if thr_eff >= tr:
                    break
                h_block = 0 if h_block < 4 else conv._rnd_dn(h_block - 4, 4)
                if h_block <= 0:
                    break
        if thr_eff < tr:
            h_block = 1
            while True:
                nb_w = conv._div_up(ow, w_block)
                work = groups * n * oh * nb_w
                disb = np.float32(ow) / np.float32(conv._div_up(ow, w_block) * w_block)
                thr_eff = np.float32(work) / np.float32(conv._div_up(work, threads) * threads)
                thr_eff = (thr_eff + disb) / np.float32(2)
                if thr_eff > tr:
                    break
                w_block = 0 if w_block < simd_w else conv._rnd_dn(w_block - simd_w, simd_w)
                if w_block <= 0:
                    break
        h_block, w_block = max(1, h_block), max(1, w_block)
        inner = conv._div_up(os_, simd_w) * conv._div_up(oc, simd_w)
        inner_eff = np.float32(inner) / np.float32(conv._div_up(inner, threads) * threads)
        if thr_eff >= inner_eff / 2:
            outer = True
        else:
            h_block, w_block = oh, ow
        if h_block != 1:
            w_block = ow
    if not outer:
        outer_work = groups * n
        outer_eff = np.float32(outer_work) / np.float32(conv._div_up(outer_work, threads) * threads)
        inner = conv._div_up(is_, simd_w) * conv._div_up(c, simd_w)
        inner_eff = np.float32(inner) / np.float32(conv._div_up(inner, threads) * threads)
        outer = (is_ // threads < 64 and n != 1) and (outer_eff / inner_eff >= 1 or (os_ * c * oc) // threads < 65536)
    return h_block, w_block, outer


def _gemm_forward(x, w, b, g, profile: KernelProfile, dil: tuple[int, int] = (1, 1), groups: int = 1):
    """gemm:jit nspc forward (see the module's docstring); its im2col's taps ``dil`` apart. ``groups``: x,
    w, b and ``g`` are one group's of that many (init_conf's threading weighs them all)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    ks = kh * kw
    threads = profile.threads
    h_block, w_block, outer = _fwd_nspc_conf(g, threads, profile.l2_per_core, dil != (1, 1), groups)
    nthr_gemm = 1 if outer or threads == 1 else threads
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    wf = f32(w.transpose(2, 3, 1, 0)).reshape(-1)  # hwio: A[i, p] = wf[i + p*oc]
    y = np.zeros((n, oh, ow, oc), np.float32)
    K = ks * c
    for im in range(n):
        rows = _im2col_rows(x[im], kh, kw, sh, sw, ph, pw, oh, ow, *dil).reshape(oh, ow, K)
        for r0 in range(0, oh, h_block):
            for c0 in range(0, ow, w_block):
                hs, ws_ = min(h_block, oh - r0), min(w_block, ow - c0)
                N = hs * ws_
                blk = f32(rows[r0 : r0 + hs, c0 : c0 + ws_]).reshape(N, K)
                out = np.zeros(N * oc, np.float32)
                if plain:  # B 'N': src rows, ldb = K
                    _sgemm(False, False, oc, N, K, wf, oc, blk.reshape(-1), K, 0, out, oc, nthr_gemm)
                else:  # B 'T': col[p*N + j]
                    _sgemm(False, True, oc, N, K, wf, oc, f32(blk.T).reshape(-1), N, 0, out, oc, nthr_gemm)
                res = out.reshape(hs, ws_, oc)
                if b is not None:
                    res = res + b
                y[im, r0 : r0 + hs, c0 : c0 + ws_] = res
    return f32(y.transpose(0, 3, 1, 2))


def _dw_forward(x, w, b, g1):
    """jit_dw:sse41 forward (nhwc): per output one chain from the bias over (kh, kw), unfused."""
    from harness.impl._lib import ptr

    lib = conv._lib()
    c = x.shape[1]
    xs = _per_channel(x)
    y = np.empty((c, g1.n, 1, g1.oh, g1.ow), np.float32)
    for ch in range(c):
        wc = f32(w[ch : ch + 1])
        bc = None if b is None else f32(b[ch : ch + 1])
        lib.conv_fwd_direct(*g1, ptr(xs[ch]), ptr(wc), None if bc is None else ptr(bc), ptr(y[ch]), 1, 0, 1)
    return f32(y[:, :, 0].swapaxes(0, 1))


def _dw_gemm_forward(x, w, b, g1, threads):
    """gemm:jit nspc forward with groups = C (where jit_dw declines: a kernel outside the input): per
    (image, group) one sgemm of M = 1 (gemv 'N' over the im2col columns: per output one unfused chain
    from 0 over (kh, kw), zeros in the padding), the bias added after. No pixel blocking (depthwise)."""
    n, _c, _h, _wd, _oc, kh, kw, oh, ow, sh, sw, ph, pw = g1
    c = x.shape[1]
    ks, os_ = kh * kw, oh * ow
    y = np.empty((n, c, oh, ow), np.float32)
    for im in range(n):
        for ch in range(c):
            rows = _im2col_rows(x[im, ch : ch + 1], kh, kw, sh, sw, ph, pw, oh, ow)  # (os, ks)
            out = np.zeros(os_, np.float32)
            _sgemm(False, True, 1, os_, ks, f32(w[ch].reshape(-1)), 1, f32(rows.T).reshape(-1), os_, 0, out, 1, 1)
            if b is not None:
                out = out + b[ch]
            y[im, ch] = out.reshape(oh, ow)
    return y


def sse41_kinds(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> tuple[str, str, str]:
    """At SSE4.1 the (forward, backward data, backward weights) kernels, or ('refuse: why', ...)."""
    n, c, h, wd = x_shape
    oc, cg, kh, kw = w_shape
    if groups == 1:
        kind = conv.path(x_shape, w_shape, stride, padding, profile)
        if kind == conv.THNN:
            return "thnn", "thnn", "thnn"
        return ("jit:sse41" if kind == conv.SSE41 else "gemm:jit"), "gemm:jit", "gemm:jit"
    if not (groups == c == oc and cg == 1):
        return ("refuse: groups other than 1 and depthwise (groups = channels = output channels)",) * 3
    g1 = conv._geometry((n, 1, h, wd), (1, 1, kh, kw), stride, padding)
    strided = tuple(stride) != (1, 1)
    if not (strided or n >= 16 or (kh, kw) != (1, 1) or profile.threads > 1):
        return ("refuse: 1x1 depthwise at stride 1 on 1 thread (ATen's slow_conv2d per group)",) * 3
    if conv._kernel_outside_src(g1):  # jit_dw's forward and weights decline (gemm:jit nspc with groups), its
        # grad_input's init_conf takes any padding
        return "gemm:jit_dw", "jit_dw", "gemm:jit_dw"
    fwd = "jit_dw"
    if conv_grouped.dw_forward_declines(g1, 3):
        fwd = "refuse: jit_dw forward declines the padding (gemm:jit with groups)"
    data = "jit_dw"
    if conv_grouped.dw_weights_declines(g1):
        weights = "gemm:jit_dw"
    elif g1.ow > 30:
        weights = "refuse: jit_dw weights over 30 columns (its width unrolling)"
    else:
        weights = "jit_dw"
    return fwd, data, weights


# ------------------------------------------------ AVX2 and SSE4.1: groups of several channels
def _avx2_groups(x_shape, w_shape, groups: int, profile: KernelProfile) -> bool:
    """A forward of groups of 2 or more input channels each (not depthwise) at AVX2 or SSE4.1: at AVX2
    oneDNN's brg_conv_fwd:avx2 or brgconv_1x1:avx2 runs it on nxc memory (init_conf's small-ic rule for
    groups declines at avx512_core, not at avx2), at SSE4.1 jit:sse41 group by group where the NCHW
    model's route has it (groups of whole blocks of 8; oneDNN reorders to blocked memory), else gemm:jit
    nspc over the groups (ONEDNN_VERBOSE on a Zen 5)."""
    return (
        groups > 1
        and x_shape[1] // groups > 1
        and _level(profile) in ("avx2", "sse41")
        and not _unmodelled_level(profile)
    )


def _sse41_groups_kind(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """At SSE4.1 the kernel of a forward of groups of several channels: "jit" (jit:sse41 group by group,
    harness.impl.conv_grouped's model), "gemm" (gemm:jit nspc), or "refuse: why"."""
    fwd = conv_grouped.path(x_shape, w_shape, stride, padding, groups, profile)[0]
    if fwd in (conv.SSE41 + conv_grouped.PER_GROUP, conv_grouped.DIRECT_1X1_GROUPS):
        return "jit"
    g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
    if conv.gemm_jit_forward_declines(g, profile, groups):
        return "refuse: oneDNN's ref:any forward for groups"
    return "gemm"


def _avx2_groups_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """Why the AVX2 or SSE4.1 forward of groups of several channels is not modelled ("" where it is)."""
    level = _level(profile)
    head = f"conv2d (channels-last): {groups} groups of {x_shape[1] // groups} channels at {level}"
    if conv_grouped._thnn_per_group(x_shape, w_shape, stride, profile):
        return f"{head}: ATen's slow_conv2d per group is not modelled"
    if level == "sse41":
        kind = _sse41_groups_kind(x_shape, w_shape, stride, padding, groups, profile)
        return f"{head}: {kind[len('refuse: ') :]} is not modelled" if kind.startswith("refuse") else ""
    if x_shape[1] // groups > _AVX2_GROUP_IC or w_shape[0] // groups > _AVX2_GROUP_IC:
        return f"{head}: over {_AVX2_GROUP_IC} channels a group (the brgemm blocking over the groups not measured)"
    g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
    if brg_1x1(g):
        blocks = _avx2_ic_blocks(g, profile)
        if len(blocks) > 1:
            return f"{head}: brgconv_1x1's ic blocks of {' or '.join(map(str, sorted(blocks)))} are not modelled"
        return ""
    why = brg_search_blocks(g, profile)
    if isinstance(why, str):
        return f"{head}: oneDNN's brg_conv_fwd {why} is not modelled"
    if profile.threads > 1 and brg_search_blocks(g._replace(n=g.n * groups), profile) != why:
        # its search weighs every group's work (est_eff: mb * ngroups * nb_oc * sp_amount), the model one
        # group's: 4 groups of 3 channels, a 2x2 kernel at stride 2 padded 2 over a 1x11 input on 4 threads
        # gave other bits (18 of 168) where one group's search splits the columns for the threads
        return (
            f"{head}: brg_conv_fwd's blocking search where all the groups' work could change its pick is not modelled"
        )
    return ""


# the channels a group the AVX2 grouped forward was measured over (one ic block a group)
_AVX2_GROUP_IC = 64


def _avx2_groups_forward(x, w, b, stride, padding, groups: int, profile: KernelProfile) -> np.ndarray:
    """brg_conv_fwd:avx2 / brgconv_1x1:avx2 over groups of several channels on nxc memory: group by group
    the one-group brgemm chain (``_brg_blocked_chain``) with the blocks the one-group search keeps, the
    group's bias last; the groups' outputs side by side. At SSE4.1 jit:sse41 group by group
    (harness.impl.conv_grouped) or gemm:jit nspc (execute_forward_thr_nspc: per group the one-group
    sgemms ``_gemm_forward`` runs, init_conf's pixel blocks and outer threading over every group's
    images: with one group's, a 7x7 kernel over 8 groups of 3 images on 2 threads had other bits)."""
    sse41 = _level(profile) == "sse41"
    if sse41 and _sse41_groups_kind(x.shape, w.shape, stride, padding, groups, profile) == "jit":
        return conv_grouped.conv2d(x, w, b, stride, padding, groups, profile)
    g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
    cg, ocg = g.c, g.oc
    outs = []
    for k in range(groups):
        xg = np.ascontiguousarray(x[:, k * cg : (k + 1) * cg])
        wg = np.ascontiguousarray(w[k * ocg : (k + 1) * ocg])
        bg = None if b is None else np.ascontiguousarray(b[k * ocg : (k + 1) * ocg])
        if sse41:
            outs.append(_gemm_forward(xg, wg, bg, g, profile, groups=groups))
        elif brg_1x1(g):
            outs.append(_brg_blocked_chain(xg, wg, bg, g, _avx2_ic_blocks(g, profile).pop()))
        else:
            ic_block, ow_block = brg_search_blocks(g, profile)  # _avx2_groups_declines said it holds
            outs.append(_brg_blocked_chain(xg, wg, bg, g, ic_block, ow_block))
    return np.concatenate(outs, axis=1)


# ------------------------------------------------------------- AVX-512: groups of several channels
def _avx512_groups(x_shape, w_shape, groups: int, profile: KernelProfile) -> bool:
    """A forward of groups of 2 or more input channels each (not depthwise) at AVX512_CORE."""
    return (
        groups > 1
        and x_shape[1] // groups > 1
        and _level(profile) == "avx512"
        and not _unmodelled_level(profile, ("avx512",))
    )


def avx512_group_block(cg: int, ocg: int) -> int:
    """jit:avx512_core's channel block for a group of ``cg`` input and ``ocg`` output channels on nxc memory
    (jit_avx512_common_conv_fwd_kernel init_conf): its smaller vectors (8, else 4, dividing both) only where
    the group has fewer than 16 channels each side and they are not whole vectors of 16; else 16, the
    channels not padded (nxc's tails)."""
    if cg < 16 and ocg < 16:
        return next((b for b in (8, 4) if cg % b == 0 and ocg % b == 0), 16)
    return 16


# the input channels a group jit:avx512_core runs on nxc (above them oneDNN's avx512_core brgemm kernels take the
# group: brg_conv_fwd / brgconv_1x1, not modelled) and the output channels a group measured
_AVX512_GROUP_IC = 16
_AVX512_GROUP_OC = 32


def _avx512_groups_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """Why the AVX512_CORE forward of groups of several channels is not modelled ("" where it is): modelled
    where jit:avx512_core runs it (oneDNN's avx512_core brgemm kernels decline groups of up to 16 input
    channels, "grouped convolutions with small ic") and its checks take the group
    (conv_grouped ``_avx512_group_forward_takes`` with the nxc block ``avx512_group_block``)."""
    head = f"conv2d (channels-last): {groups} groups of {x_shape[1] // groups} channels at avx512"
    if conv_grouped._thnn_per_group(x_shape, w_shape, stride, profile):
        return f"{head}: ATen's slow_conv2d per group is not modelled"
    cg, ocg = x_shape[1] // groups, w_shape[0] // groups
    if cg > _AVX512_GROUP_IC:
        return (
            f"{head}: oneDNN's brg_conv_fwd:avx512_core or brgconv_1x1:avx512_core over {_AVX512_GROUP_IC} input "
            "channels a group is not modelled"
        )
    if ocg > _AVX512_GROUP_OC:
        return f"{head}: over {_AVX512_GROUP_OC} output channels a group (not measured)"
    g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
    takes = conv_grouped._avx512_group_forward_takes(g, avx512_group_block(cg, ocg))
    if takes is None:
        return f"{head}: where jit:avx512_core's checks are not settled is not modelled"
    if not takes:  # brg_conv_fwd:avx2 group by group, as at AVX2
        why = _avx2_groups_declines(x_shape, w_shape, stride, padding, groups, avx2_profile(profile))
        return f"{why} (brg_conv_fwd:avx2 where jit:avx512_core declines at avx512)" if why else ""
    return ""


def avx2_profile(profile: KernelProfile) -> KernelProfile:
    """``profile``'s threads and caches at the AVX2 level: oneDNN's AVX2 kernels, which its list reaches at
    avx512_core where the avx512_core ones decline."""
    avx2 = profile_for_capability("AVX2", profile.threads, "x86_64", profile.torch)
    return avx2.with_l1_per_core(profile.l1_per_core).with_l2_per_core(profile.l2_per_core)


def _avx512_groups_forward(x, w, b, stride, padding, groups: int, profile: KernelProfile) -> np.ndarray:
    """jit:avx512_core over groups of several channels on nxc memory: per group and output one fused chain
    from 0 over (channel block of ``avx512_group_block``, kh, kw, channel), the blocks in one chain (the
    kernel's loop over them inside one call, where over blocked NCHW memory each block's sum is added), the
    bias added last (conv_grouped ``_terms_groups_forward``); where its checks decline the group,
    brg_conv_fwd:avx2 group by group (``_avx2_groups_forward`` with AVX2's parameters)."""
    g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
    if not conv_grouped._avx512_group_forward_takes(g, avx512_group_block(g.c, g.oc)):
        return _avx2_groups_forward(x, w, b, stride, padding, groups, avx2_profile(profile))
    terms = conv._terms_blocked(g.c, g.kh, g.kw, avx512_group_block(g.c, g.oc))
    return conv_grouped._terms_groups_forward(x, w, b, g, groups, terms[terms[:, 0] >= 0], 0)


# ------------------------------------------------------------------------------- interface
def declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """Why this channels-last forward is not modelled under ``profile`` ("" where it is)."""
    if _avx2_groups(x_shape, w_shape, groups, profile):
        return _avx2_groups_declines(x_shape, w_shape, stride, padding, groups, profile)
    if _avx512_groups(x_shape, w_shape, groups, profile):
        return _avx512_groups_declines(x_shape, w_shape, stride, padding, groups, profile)
    why = common_declines(x_shape, w_shape, stride, groups, profile, ("default", "avx2", "avx512"))
    if why:
        return f"conv2d (channels-last): {why} is not modelled"
    level, c = _level(profile), x_shape[1]
    thnn = groups == 1 and conv.path(x_shape, w_shape, stride, padding, profile) == conv.THNN
    if level == "sse41":
        kind = sse41_kinds(x_shape, w_shape, stride, padding, groups, profile)[0]
        return f"conv2d (channels-last): {kind[len('refuse: ') :]} is not modelled" if kind.startswith("refuse") else ""
    if groups == 1 and not thnn:
        g = conv._geometry(x_shape, w_shape, stride, padding)
        if level == "avx512" and conv._ip_convolution(g):
            return (
                f"conv2d (channels-last): oneDNN's ip_convolution at avx512_core over a {g.kh}x{g.kw} kernel the "
                "size of its input (ip:any+_matmul: an inner product) is not modelled"
            )
        if level == "avx512" and _avx512_trans(g):
            return (
                f"conv2d (channels-last): oneDNN's brg_conv_fwd:avx512_core over {c} input channel(s), a "
                f"{g.kh}x{g.kw} kernel, padding ({g.ph}, {g.pw}), {g.ow} output column(s) (exec_trans: weights "
                "relocated for one channel, padding taps computed on zeros) is not modelled"
            )
        if not brg_1x1(g):
            why = brg_search_blocks(g, profile)
            return (
                f"conv2d (channels-last): oneDNN's brg_conv_fwd {why} is not modelled" if isinstance(why, str) else ""
            )
        ic_blocks = avx512_ic_blocks(g, profile) if level == "avx512" else _avx2_ic_blocks(g, profile)
        if len(ic_blocks) > 1:
            return (
                f"conv2d (channels-last): oneDNN's brgconv_1x1 at {level} over {c} input channels (ic blocks of "
                f"{' or '.join(map(str, sorted(ic_blocks)))} by the output-channel block its search picks) is not "
                "modelled"
            )
    return ""


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride, padding, groups: int,
           profile: KernelProfile) -> np.ndarray:  # fmt: skip
    """``aten.convolution`` on channels-last memory: y (N, OC, OH, OW) (logical NCHW). ParityError
    where ``declines`` names a reason."""
    x, w = f32(x), f32(w)
    b = None if b is None else f32(b)
    stride, padding = tuple(stride), tuple(padding)
    why = declines(x.shape, w.shape, stride, padding, groups, profile)
    if why:
        raise ParityError(why)
    if groups == 1 and conv.path(x.shape, w.shape, stride, padding, profile) == conv.THNN:
        return _thnn_forward(x, w, b, conv._geometry(x.shape, w.shape, stride, padding), profile)
    if _avx2_groups(x.shape, w.shape, groups, profile):
        return _avx2_groups_forward(x, w, b, stride, padding, groups, profile)
    if _avx512_groups(x.shape, w.shape, groups, profile):
        return _avx512_groups_forward(x, w, b, stride, padding, groups, profile)
    if _level(profile) != "sse41":
        if groups != 1:
            return _depthwise(x, w, b, stride, padding)
        g = conv._geometry(x.shape, w.shape, stride, padding)
        if not brg_1x1(g):
            ic_block, ow_block = brg_search_blocks(g, profile)  # declines said it holds
            return _brg_blocked_chain(x, w, b, g, ic_block, ow_block)
        ic_blocks = avx512_ic_blocks(g, profile) if _level(profile) == "avx512" else _avx2_ic_blocks(g, profile)
        return _brg_blocked_chain(x, w, b, g, ic_blocks.pop())
    kind = sse41_kinds(x.shape, w.shape, stride, padding, groups, profile)[0]
    if kind == "jit:sse41":
        return conv.conv2d(x, w, b, stride, padding, profile, conv.SSE41)
    if kind == "gemm:jit":
        return _gemm_forward(x, w, b, conv._geometry(x.shape, w.shape, stride, padding), profile)
    g1 = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
    if kind == "gemm:jit_dw":
        return _dw_gemm_forward(x, w, b, g1, profile.threads)
    return _dw_forward(x, w, b, g1)
