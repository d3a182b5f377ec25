"""oneDNN's LSTM as torch 2.13.0 runs nn.LSTM on x86 CPUs (``mkldnn_rnn_layer``, one call per layer
and direction), bit for bit: its forward (training and inference).

Shapes: x (T, B, I) the layer's input, time first; w_ih (4H, I), w_hh (4H, H), b_ih and b_hh (4H,)
in torch's gate order (i, f, g, o), which is oneDNN's (i, f, c~, o); h0, c0 (B, H).

What torch does (aten/src/ATen/native/mkldnn/RNN.cpp ``mkldnn_rnn_layer``): the bias handed to oneDNN
is ``b_ih + b_hh`` (one float add; zeros without biases), the weights are viewed as ldgoi and
reordered to ldigo (a copy), and oneDNN's RNN primitive runs one layer, one direction (``reverse``
the right-to-left one), with T iterations. oneDNN v3.12 names it "ref" (ref_rnn.cpp, f32 without
brgemm; verbose ``rnn,ref``) in training at every x86 level, in inference at SSE4.1 (from AVX2 up
inference runs its brgemm RNN, "brgemm:avx2", on blocked weights: refused):

- the layer's product for all T steps at once where B < 128 in the forward (merge_gemm_layer):
  one sgemm, gates (4H, T*B) = W_ih (4H, I) @ x (I, T*B), columns in the order the cell runs the
  steps (right to left: the input reversed in time, as copy_init_layer lays it out); otherwise one
  per step (B columns);
- per step the recurrent product added onto the step's gates (sgemm with beta 1): (4H, B) +=
  W_hh (4H, H) @ h_prev (H, B), h_prev h0 at the first step;
- the sgemms are ``extended_sgemm`` (harness/impl/onednn_sgemm.py) with all threads, the no-copy
  kernel forced (rnn.force_nocopy) at AVX2 and up in training where H < 500; at SSE4.1 the
  copy-based kernel (its gemv not modelled: B = 1 is refused there);
- the postgemm (jit_uni_lstm_cell_postgemm_fwd, csrc/unary.c ``dnnl_lstm_fwd_postgemm``): gates plus
  bias, the injector's logistic and tanh, c = c_prev * f then c += i * c~, h = tanh(c) * o; FMAs
  from AVX2 up, multiplies and adds at SSE4.1. Its threads split the batch rows: no bit depends on
  them.

Refused (ParityError): inference from AVX2 up (brgemm), inference where oneDNN packs the weights (its
packed sgemm: T = 1, or B >= 16 for the recurrent product), aarch64 (oneDNN's aarch64 RNN is not
modelled), and SSE4.1 with B = 1.
The backward (``mkldnn_rnn_layer_backward``) is not modelled.
"""

from __future__ import annotations

import ctypes
from typing import NamedTuple

import numpy as np

from harness.core.errors import ParityError
from harness.impl import onednn_sgemm
from harness.impl._lib import f32, load, ptr
from harness.impl.onednn_sgemm import Call
from harness.impl.profiles import KernelProfile


class LstmOut(NamedTuple):
    out: np.ndarray  # (T, B, H) every step's h
    hy: np.ndarray  # (B, H) the last step's h
    cy: np.ndarray  # (B, H) the last step's c


def _postgemm() -> ctypes._CFuncPtr:
    fn = load("unary").dnnl_lstm_fwd_postgemm
    p, i = ctypes.c_void_p, ctypes.c_int64
    fn.argtypes = [ctypes.c_int32, i, i, p, p, p, p, p, p]
    return fn


def sgemm_isa(profile: KernelProfile) -> str:
    """oneDNN's x86 ISA under ``profile`` (its platform levels pin ATen's capability and oneDNN's ISA
    together: baseline SSE4.1); ParityError on aarch64."""
    isa = {"avx512": onednn_sgemm.AVX512, "avx2": onednn_sgemm.AVX2, "default": onednn_sgemm.SSE41}.get(profile.aten)
    if isa is None:
        raise ParityError(f"oneDNN's RNN on {profile.aten} (aarch64) is not modelled")
    return isa


def good_ld(dim: int) -> int:
    """rnn_utils::get_good_ld for float32: rounded up to 16, plus 16 where a multiple of 256."""
    ld = -(-dim // 16) * 16
    return ld + 16 if ld % 256 == 0 else ld


def lstm_layer(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray | None,
               b_hh: np.ndarray | None, h0: np.ndarray, c0: np.ndarray, reverse: bool, train: bool,
               profile: KernelProfile) -> LstmOut:  # fmt: skip
    """``mkldnn_rnn_layer``'s forward for one LSTM layer and direction (the module docstring)."""
    isa = sgemm_isa(profile)
    x, w_ih, w_hh = f32(x), f32(w_ih), f32(w_hh)
    t_len, batch, n_in = x.shape
    hidden = w_hh.shape[1]
    gates_n = 4 * hidden
    if w_ih.shape != (gates_n, n_in) or w_hh.shape != (gates_n, hidden):
        raise ParityError(f"lstm: weights {w_ih.shape} and {w_hh.shape} do not fit input {x.shape}")
    if not train and isa != onednn_sgemm.SSE41:
        raise ParityError("lstm inference at AVX2 and up runs oneDNN's brgemm RNN (blocked weights): not modelled")
    if not train and (t_len == 1 or batch >= 16):
        raise ParityError("lstm inference with oneDNN's packed weights (T = 1 or B >= 16) is not modelled")
    if isa == onednn_sgemm.SSE41 and batch == 1:
        raise ParityError("lstm at SSE4.1 with one batch row runs oneDNN's SSE4.1 gemv: not modelled")
    bias = (
        np.zeros(gates_n, np.float32)
        if b_ih is None or b_hh is None
        else (f32(b_ih).reshape(-1) + f32(b_hh).reshape(-1)).astype(np.float32)
    )
    force = isa != onednn_sgemm.SSE41 and hidden < 500  # training only from AVX2 up
    merge = batch < 128
    ld_w, ld_g = good_ld(gates_n), good_ld(gates_n)
    ld_ws = good_ld(max(hidden, n_in))
    # column-major A (4H, K) with lda ld_w: w.T laid out row by row, padded
    a_ih = np.zeros((n_in, ld_w), np.float32)
    a_ih[:, :gates_n] = w_ih.T
    a_hh = np.zeros((hidden, ld_w), np.float32)
    a_hh[:, :gates_n] = w_hh.T
    steps = x[::-1] if reverse else x
    # the inputs: user memory (ld I) left to right, the workspace's copy (its ld) right to left
    ld_x = ld_ws if reverse else n_in
    src = np.zeros((t_len * batch, ld_x), np.float32)
    src[:, :n_in] = steps.reshape(t_len * batch, n_in)
    src = src.reshape(-1)
    gates = np.zeros(t_len * batch * ld_g, np.float32)
    threads = profile.threads
    if merge:
        call = Call(False, False, gates_n, t_len * batch, n_in, ld_w, ld_x, ld_g)
        onednn_sgemm.sgemm(isa, threads, call, a_ih.reshape(-1), 0, src, 0, 0, gates, 0, force)
    ld_h = ld_ws if reverse else hidden
    h_prev = np.zeros((batch, ld_ws if reverse else hidden), np.float32)
    h_prev[:, :hidden] = f32(h0).reshape(batch, hidden)
    c_prev = f32(c0).reshape(batch, hidden).copy()
    out = np.empty((t_len, batch, hidden), np.float32)
    postgemm, fma = _postgemm(), int(isa != onednn_sgemm.SSE41)
    for step in range(t_len):
        go = step * batch * ld_g
        if not merge:
            call = Call(False, False, gates_n, batch, n_in, ld_w, ld_x, ld_g)
            onednn_sgemm.sgemm(isa, threads, call, a_ih.reshape(-1), 0, src, step * batch * ld_x, 0, gates, go, force)
        call = Call(False, False, gates_n, batch, hidden, ld_w, ld_h, ld_g)
        hp = h_prev.reshape(-1)
        onednn_sgemm.sgemm(isa, threads, call, a_hh.reshape(-1), 0, hp, 0, 1, gates, go, force)
        g = np.ascontiguousarray(gates[go : go + batch * ld_g].reshape(batch, ld_g)[:, :gates_n])
        c_new = np.empty((batch, hidden), np.float32)
        h_new = np.empty((batch, hidden), np.float32)
        postgemm(fma, batch, hidden, ptr(g), ptr(bias), ptr(c_prev), ptr(c_new), ptr(h_new), None)
        out[step] = h_new
        h_prev = np.zeros_like(h_prev)
        h_prev[:, :hidden] = h_new
        c_prev = c_new
    if reverse:
        out = out[::-1].copy()
    return LstmOut(out, out[-1 if not reverse else 0].copy() if t_len else h0.copy(), c_prev)
