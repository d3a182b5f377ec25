"""oneDNN's LSTM as torch 2.13.0 runs nn.LSTM on CPUs (``mkldnn_rnn_layer``, one call per layer and
direction), bit for bit: its forward (``lstm_layer``) and backward (``lstm_layer_backward``), on x86
and on aarch64 (below).

Shapes: x (T, B, I) the layer's input, time first; w_ih (4H, I), w_hh (4H, H), b_ih and b_hh (4H,)
in torch's gate order (i, f, g, o), which is oneDNN's (i, f, c~, o); h0, c0 (B, H).

What torch does (aten/src/ATen/native/mkldnn/RNN.cpp ``mkldnn_rnn_layer``): the bias handed to oneDNN
is ``b_ih + b_hh`` (one float add; zeros without biases), the weights are viewed as ldgoi and
reordered to ldigo (a copy), and oneDNN's RNN primitive runs one layer, one direction (``reverse``
the right-to-left one), with T iterations. oneDNN v3.12 names it "ref" (ref_rnn.cpp, f32 without
brgemm; verbose ``rnn,ref``) in training at every x86 level and in inference at SSE4.1 (from AVX2 up
inference runs its brgemm RNN, "brgemm:avx2", below):

- the layer's product for all T steps at once where B < 128 in the forward (merge_gemm_layer):
  one sgemm, gates (4H, T*B) = W_ih (4H, I) @ x (I, T*B), columns in the order the cell runs the
  steps (right to left: the input reversed in time, as copy_init_layer lays it out); otherwise one
  per step (B columns);
- per step the recurrent product added onto the step's gates (sgemm with beta 1): (4H, B) +=
  W_hh (4H, H) @ h_prev (H, B), h_prev h0 at the first step;
- the sgemms are ``extended_sgemm`` (harness/impl/onednn_sgemm.py) with all threads, the no-copy
  kernel forced (rnn.force_nocopy) at AVX2 and up in training where H < 500; at SSE4.1 the
  copy-based kernel; one batch row runs the gemv 'N' kernels;
- the postgemm (jit_uni_lstm_cell_postgemm_fwd, csrc/unary.c ``dnnl_lstm_fwd_postgemm``): gates plus
  bias, the injector's logistic and tanh, c = c_prev * f then c += i * c~, h = tanh(c) * o; FMAs
  from AVX2 up, multiplies and adds at SSE4.1. Its threads split the batch rows: no bit depends on
  them.

The backward (``mkldnn_rnn_layer_backward``, the same primitive backward; ``lstm_layer_backward``):
the forward again (its workspace: activated gates, c states), then per step from the last (the
cell's order): jit_uni_lstm_cell_postgemm_bwd (csrc/unary.c ``dnnl_lstm_bwd_postgemm``) gives the
gates' gradients dG and dc_prev; the h gradient to the step before, W_hh^T (H, 4H) @ dG (4H, B), an
sgemm (beta 0); the bias gradient, per gate element the batch rows added in order onto it (from 0
over the steps, gates_reduction). After the steps (merge_gemm_layer, merge_gemm_iter): grad_x =
W_ih^T @ dG over all steps at once (I, T*B); grad_w_ih = dG (4H, T*B) @ x^T, one sgemm with beta 1
onto zeros (the primitive accumulates into its diff weights); grad_w_hh = dG @ h_prev^T, left to
right in two sgemms onto zeros (steps 1.. against the outputs, then step 0 against h0), right to
left in one over every step. Torch returns the bias gradient for b_ih and again for b_hh.

On aarch64 (``onednn_sgemm.REF``) the same primitive and blocking run on oneDNN's ref_gemm
(``onednn_sgemm.ref_sgemm``: its register blocks, its threads' split of M, N and K) and its ref
postgemms (ref_postgemm_lstm.cpp as GCC builds it for aarch64: csrc/unary.c's postgemms of kind
``LSTM_REF_A64``): logistic ``1 / (1 + expf(-x))`` and glibc's tanhf, ``c = fma(f, c_prev, i * c~)``,
``h = o * tanhf(c)``; no forced no-copy kernel, no brgemm, no packed weights, so inference runs the
same code.

Inference from AVX2 up (``brgemm``): oneDNN's brgemm RNN (brgemm_cell_common_fwd.cpp; rnn_brgemm_utils
sets an LSTM's K blocks to the whole of I and of H), per step one brgemm kernel call per product
(``onednn_sgemm.brgemm``: per element one fused chain from 0 over K), the input's (beta 0) then h's
(beta 1); where I == H both in one call over the input's terms then h's (is_fused_layer_iter_brgemm);
with one batch row over two steps or more the input's product merged over the steps first. The
same postgemm. Its blocking and threads change no bit.

Refused (ParityError): other torch releases than 2.13.0 (other oneDNN versions, not measured); at
SSE4.1 inference where oneDNN packs the weights (its packed sgemm: T = 1,
or B >= 16 for the recurrent product).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np

from harness.core.errors import ParityError
from harness.impl import onednn_sgemm
from harness.impl._lib import f32, load, ptr
from harness.impl.nans import arith
from harness.impl.onednn_sgemm import Call
from harness.impl.profiles import IMPL_TORCH, KernelProfile


class LstmOut(NamedTuple):
    out: np.ndarray  # (T, B, H) every step's h
    hy: np.ndarray  # (B, H) the last step's h
    cy: np.ndarray  # (B, H) the last step's c


class LstmGrads(NamedTuple):
    grad_x: np.ndarray  # (T, B, I)
    grad_w_ih: np.ndarray  # (4H, I)
    grad_w_hh: np.ndarray  # (4H, H)
    grad_b: np.ndarray  # (4H,): b_ih's and b_hh's
    grad_h0: np.ndarray  # (B, H)
    grad_c0: np.ndarray  # (B, H)


class _Conf(NamedTuple):
    """rnn_conf_t's choices for one layer and direction (rnn_utils.cpp init_conf, set_conf)."""

    isa: str
    threads: int
    force: bool  # rnn.force_nocopy
    brgemm: bool  # x86 inference from AVX2 up: the brgemm RNN
    merge: bool  # rnn.merge_gemm_layer in the forward
    reverse: bool
    t_len: int
    batch: int
    n_in: int
    hidden: int
    ld_g: int  # scratch_gates_ld: get_good_ld(4H)
    ld_ws: int  # ws_states_layer_ld, ws_diff_states_*_ld: get_good_ld(max(I, H))
    ld_x: int  # the input product's source: the user's memory (I), right to left the workspace's copy


def _postgemm(conf: _Conf, direction: str, ptrs: int) -> Callable[..., None]:
    """The cell's postgemm (csrc/unary.c ``dnnl_lstm_{fwd,bwd}_postgemm``) as f(mb, dhc, pointers...):
    x86's JIT kernels, FMAs from AVX2 up, or aarch64's ref postgemms."""
    fn = getattr(load("unary"), f"dnnl_lstm_{direction}_postgemm")
    fn.argtypes = [ctypes.c_int32, ctypes.c_int64, ctypes.c_int64, *[ctypes.c_void_p] * ptrs]
    kind = (
        2 if conf.isa == onednn_sgemm.REF else int(conf.isa != onednn_sgemm.SSE41)
    )  # LSTM_REF_A64, LSTM_JIT_FMA, _SSE41
    return partial(fn, kind)


def good_ld(dim: int) -> int:
    """rnn_utils::get_good_ld for float32: rounded up to 16, plus 16 where a multiple of 256."""
    ld = -(-dim // 16) * 16
    return ld + 16 if ld % 256 == 0 else ld


def _conf(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, reverse: bool, train: bool,
          profile: KernelProfile) -> _Conf:  # fmt: skip
    if profile.torch != IMPL_TORCH:
        raise ParityError(
            f"the impl reproduces nn.LSTM's oneDNN layer for torch {IMPL_TORCH} (oneDNN v3.12), "
            f"not torch {profile.torch}"
        )
    isa = onednn_sgemm.isa_of(profile)
    t_len, batch, n_in = x.shape
    hidden = w_hh.shape[1]
    if w_ih.shape != (4 * hidden, n_in) or w_hh.shape != (4 * hidden, hidden):
        raise ParityError(f"lstm: weights {w_ih.shape} and {w_hh.shape} do not fit input {x.shape}")
    if not train and isa == onednn_sgemm.SSE41 and (t_len == 1 or batch >= 16):
        raise ParityError("lstm inference with oneDNN's packed weights (T = 1 or B >= 16) is not modelled")
    brgemm = not train and isa in (onednn_sgemm.AVX2, onednn_sgemm.AVX512)
    force = isa in (onednn_sgemm.AVX2, onednn_sgemm.AVX512) and hidden < 500  # training only
    merge = (batch == 1 and t_len >= 2) if brgemm else batch < 128
    ld_g, ld_ws = good_ld(4 * hidden), good_ld(max(hidden, n_in))
    ld_x = ld_ws if reverse else n_in
    return _Conf(isa, profile.threads, force, brgemm, merge, reverse, t_len, batch, n_in, hidden, ld_g, ld_ws, ld_x)


def _rows(a: np.ndarray, ld: int) -> np.ndarray:
    """The 2-D ``a``'s rows, each padded to ``ld`` floats, flat: a column-major matrix with leading
    dimension ``ld`` whose columns are ``a``'s rows."""
    out = np.zeros((a.shape[0], ld), np.float32)
    out[:, : a.shape[1]] = a
    return out.reshape(-1)


def _sgemm(conf: _Conf, call: Call, a: np.ndarray, ao: int, b: np.ndarray, bo: int, beta: int,
           out: np.ndarray, oo: int) -> None:  # fmt: skip
    if conf.brgemm:
        onednn_sgemm.brgemm(call, a, ao, b, bo, beta, out, oo)
    elif conf.isa == onednn_sgemm.REF:
        m, n, k, lda, ldb, ldc = call.m, call.n, call.k, call.lda, call.ldb, call.ldc
        onednn_sgemm.ref_sgemm(call.ta, call.tb, m, n, k, a[ao:], lda, b[bo:], ldb, beta, out[oo:], ldc, conf.threads)
    else:
        onednn_sgemm.sgemm(conf.isa, conf.threads, call, a, ao, b, bo, beta, out, oo, conf.force)


def _steps(conf: _Conf, x: np.ndarray) -> np.ndarray:
    """The cell's order of the steps: right to left reversed in time (copy_init_layer)."""
    return x[::-1] if conf.reverse else x


def _bias(b_ih: np.ndarray | None, b_hh: np.ndarray | None, gates_n: int) -> np.ndarray:
    if b_ih is None or b_hh is None:
        return np.zeros(gates_n, np.float32)
    return f32(b_ih).reshape(-1) + f32(b_hh).reshape(-1)


def _forward(conf: _Conf, x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, bias: np.ndarray, h0: np.ndarray,
             c0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Every step in the cell's order: h and c before and after (T+1, B, H), the activated gates (T,
    B, 4H), and the inputs in that order, each row padded to ``ld_x`` (the input product's source)."""
    t_len, batch, n_in, hidden = conf.t_len, conf.batch, conf.n_in, conf.hidden
    gates_n, ld_g, ld_x = 4 * hidden, conf.ld_g, conf.ld_x
    ld_w = good_ld(gates_n)  # ldigo weights: get_good_ld(G*O)
    ld_h = conf.ld_ws if conf.reverse else hidden
    a_ih, a_hh = _rows(f32(w_ih).T, ld_w), _rows(f32(w_hh).T, ld_w)
    steps = _steps(conf, f32(x))
    src = _rows(steps.reshape(t_len * batch, n_in), ld_x)
    gates = np.zeros(t_len * batch * ld_g, np.float32)
    if conf.merge:
        _sgemm(conf, Call(False, False, gates_n, t_len * batch, n_in, ld_w, ld_x, ld_g), a_ih, 0, src, 0, 0, gates, 0)
    h = np.empty((t_len + 1, batch, hidden), np.float32)
    c = np.empty((t_len + 1, batch, hidden), np.float32)
    ws = np.empty((t_len, batch, gates_n), np.float32)
    h[0], c[0] = f32(h0).reshape(batch, hidden), f32(c0).reshape(batch, hidden)
    postgemm = _postgemm(conf, "fwd", 6)
    fused = conf.brgemm and not conf.merge and n_in == hidden  # one brgemm over the input's and h's terms
    a_cat = np.concatenate((a_ih, a_hh)) if fused else a_ih
    for i in range(t_len):
        go = i * batch * ld_g
        if fused:
            b_cat = np.concatenate((steps[i].reshape(batch, n_in), h[i]), axis=1).reshape(-1)
            _sgemm(conf, Call(False, False, gates_n, batch, 2 * n_in, ld_w, 2 * n_in, ld_g), a_cat, 0, b_cat, 0, 0,
                   gates, go)  # fmt: skip
        elif not conf.merge:
            call = Call(False, False, gates_n, batch, n_in, ld_w, ld_x, ld_g)
            _sgemm(conf, call, a_ih, 0, src, i * batch * ld_x, 0, gates, go)
        if not fused:
            call = Call(False, False, gates_n, batch, hidden, ld_w, ld_h, ld_g)
            _sgemm(conf, call, a_hh, 0, _rows(h[i], ld_h), 0, 1, gates, go)
        g = np.ascontiguousarray(gates[go : go + batch * ld_g].reshape(batch, ld_g)[:, :gates_n])
        postgemm(batch, hidden, ptr(g), ptr(bias), ptr(c[i]), ptr(c[i + 1]), ptr(h[i + 1]), ptr(ws[i]))
    return h, c, ws, src


def lstm_layer(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray | None,
               b_hh: np.ndarray | None, h0: np.ndarray, c0: np.ndarray, reverse: bool, train: bool,
               profile: KernelProfile) -> LstmOut:  # fmt: skip
    """``mkldnn_rnn_layer``'s forward for one LSTM layer and direction (the module docstring)."""
    conf = _conf(x, w_ih, w_hh, reverse, train, profile)
    h, c, _, _ = _forward(conf, x, w_ih, w_hh, _bias(b_ih, b_hh, w_ih.shape[0]), h0, c0)
    return LstmOut(_steps(conf, h[1:]).copy(), h[-1].copy(), c[-1].copy())


def lstm_layer_backward(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray | None,
                        b_hh: np.ndarray | None, h0: np.ndarray, c0: np.ndarray, grad_out: np.ndarray,
                        grad_hy: np.ndarray, grad_cy: np.ndarray, reverse: bool,
                        profile: KernelProfile) -> LstmGrads:  # fmt: skip
    """``mkldnn_rnn_layer_backward`` for one LSTM layer and direction (the module docstring); the
    gradients of the output (T, B, H), hy and cy (B, H) given (zeros where torch has none)."""
    conf = _conf(x, w_ih, w_hh, reverse, True, profile)
    t_len, batch, n_in, hidden, ld_g, ld_ws = conf.t_len, conf.batch, conf.n_in, conf.hidden, conf.ld_g, conf.ld_ws
    gates_n = 4 * hidden
    h, c, ws, src = _forward(conf, x, w_ih, w_hh, _bias(b_ih, b_hh, gates_n), h0, c0)
    dy = np.ascontiguousarray(_steps(conf, f32(grad_out).reshape(t_len, batch, hidden)))
    dgates = np.zeros(t_len * batch * ld_g, np.float32)
    dh = f32(grad_hy).reshape(batch, hidden).copy()
    dc = f32(grad_cy).reshape(batch, hidden).copy()
    grad_b = np.zeros(gates_n, np.float32)
    a_hh, a_ih = _rows(f32(w_hh), good_ld(hidden)), _rows(f32(w_ih), good_ld(n_in))  # ldgoi: get_good_ld(I)
    postgemm = _postgemm(conf, "bwd", 8)
    for i in reversed(range(t_len)):
        dg = np.empty((batch, gates_n), np.float32)
        dc_prev = np.empty((batch, hidden), np.float32)
        postgemm(batch, hidden, ptr(ws[i]), ptr(c[i]), ptr(c[i + 1]), ptr(dy[i]), ptr(dh), ptr(dc), ptr(dg),
                 ptr(dc_prev))  # fmt: skip
        go = i * batch * ld_g
        dgates[go : go + batch * ld_g] = _rows(dg, ld_g)
        dh_prev = np.zeros(batch * ld_ws, np.float32)
        _sgemm(conf, Call(False, False, hidden, batch, gates_n, good_ld(hidden), ld_g, ld_ws), a_hh, 0, dgates, go, 0,
               dh_prev, 0)  # fmt: skip
        dh, dc = dh_prev.reshape(batch, ld_ws)[:, :hidden].copy(), dc_prev
        for row in dg:  # gates_reduction: the batch rows in order (two NaNs of other payloads: refused)
            grad_b = arith("add", grad_b, row, None, "lstm backward's bias gradient")
    dx = np.zeros(t_len * batch * ld_ws, np.float32)
    call = Call(False, False, n_in, t_len * batch, gates_n, good_ld(n_in), ld_g, ld_ws)
    _sgemm(conf, call, a_ih, 0, dgates, 0, 0, dx, 0)
    ld_dw = good_ld(gates_n)  # the diff weights, ldigo
    dw_ih = np.zeros(n_in * ld_dw, np.float32)
    call = Call(False, True, gates_n, n_in, t_len * batch, ld_g, conf.ld_x, ld_dw)
    _sgemm(conf, call, dgates, 0, src, 0, 1, dw_ih, 0)
    dw_hh = np.zeros(hidden * ld_dw, np.float32)
    if reverse:  # every step's h_prev from the workspace
        states = _rows(h[:t_len].reshape(t_len * batch, hidden), ld_ws)
        call = Call(False, True, gates_n, hidden, t_len * batch, ld_g, ld_ws, ld_dw)
        _sgemm(conf, call, dgates, 0, states, 0, 1, dw_hh, 0)
    else:  # steps 1.. against the outputs, then step 0 against h0 (user memory, ld H)
        if t_len > 1:
            call = Call(False, True, gates_n, hidden, (t_len - 1) * batch, ld_g, hidden, ld_dw)
            _sgemm(conf, call, dgates, batch * ld_g, h[1:t_len].reshape(-1), 0, 1, dw_hh, 0)
        call = Call(False, True, gates_n, hidden, batch, ld_g, hidden, ld_dw)
        _sgemm(conf, call, dgates, 0, h[0].reshape(-1), 0, 1, dw_hh, 0)
    grad_x = dx.reshape(t_len, batch, ld_ws)[:, :, :n_in]
    return LstmGrads(
        np.ascontiguousarray(_steps(conf, grad_x)),
        np.ascontiguousarray(dw_ih.reshape(n_in, ld_dw)[:, :gates_n].T),
        np.ascontiguousarray(dw_hh.reshape(hidden, ld_dw)[:, :gates_n].T),
        grad_b,
        dh,
        dc,
    )
