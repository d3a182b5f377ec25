"""Scaled dot-product attention (C kernels in csrc/attention.c): ``sdpa`` and ``sdpa_dropout``.

``F.scaled_dot_product_attention(q, k, v, dropout_p, is_causal=True)`` on CPU in torch 2.13.0:
dropout 0 runs ATen's flash attention kernel (``sdpa_forward``/``sdpa_backward``); dropout > 0
runs the math path (``sdpa_math_forward``/``sdpa_math_backward``): q and k each scaled by
sqrt(1/sqrt(D)), ``q @ k^T`` (at::bmm), causal mask added, softmax, dropout, ``@ v``; its backward
is autograd's through those ops. Arrays are (B, H, L, D) float32.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.linalg import bmm as _bmm  # at::bmm: ATen's small loop or MKL per item
from harness.impl.profiles import KernelProfile
from harness.impl.rng import CPUGenerator, dropout, dropout_backward
from harness.impl.rows import softmax, softmax_backward

_I64 = ctypes.c_int64
_P = ctypes.c_void_p

Arrays = Mapping[str, np.ndarray]


def _lib() -> ctypes.CDLL:
    lib = load("attention")
    if not getattr(lib, "_typed", False):
        lib.sdpa_flash_forward.argtypes = [Profile, _I64, _I64, _I64, _I64, _I64, _P, _P, _P, _P, _P]
        lib.sdpa_flash_backward.argtypes = [Profile, *[_I64] * 5, *[_P] * 9]
        lib._typed = True
    return lib


def _dims(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[int, int, int, int, int]:
    if q.ndim != 4 or k.shape != v.shape or q.shape[:2] != k.shape[:2] or q.shape[3] != k.shape[3]:
        raise ParityError(f"sdpa: expected q (B,H,L,D) and k, v (B,H,S,D), got {q.shape}, {k.shape}, {v.shape}")
    b, h, lq, d = q.shape
    return b, h, lq, k.shape[2], d


# ----------------------------------------------------------------------------- flash path (dropout 0)


@dataclass
class FlashSaved:
    """What the flash forward keeps for its backward: the output and the row logsumexp."""

    out: np.ndarray
    lse: np.ndarray


def sdpa_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, profile: KernelProfile) -> FlashSaved:
    """``F.scaled_dot_product_attention(q, k, v, is_causal=True)`` (flash kernel): out and logsumexp."""
    q, k, v = f32(q), f32(k), f32(v)
    b, h, lq, s, d = _dims(q, k, v)
    out = np.empty_like(q)
    lse = np.empty((b, h, lq), np.float32)
    _lib().sdpa_flash_forward(profile.as_c(), b, h, lq, s, d, ptr(q), ptr(k), ptr(v), ptr(out), ptr(lse))
    return FlashSaved(out, lse)


def sdpa_backward(
    grad_out: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, saved: FlashSaved, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients (grad_q, grad_k, grad_v) of the flash forward for ``grad_out``."""
    q, k, v, grad_out = f32(q), f32(k), f32(v), f32(grad_out)
    b, h, lq, s, d = _dims(q, k, v)
    gq, gk, gv = np.empty_like(q), np.empty_like(k), np.empty_like(v)
    arrays = (q, k, v, saved.out, saved.lse, grad_out, gq, gk, gv)
    _lib().sdpa_flash_backward(profile.as_c(), b, h, lq, s, d, *map(ptr, arrays))
    return gq, gk, gv


# ----------------------------------------------------------------------------- math path (dropout > 0)


@dataclass
class MathSaved:
    """The math path's tensors its backward needs (per (B,H) item, rows of length S)."""

    q2: np.ndarray  # q * sqrt(scale), (N, L, D)
    k2: np.ndarray  # k * sqrt(scale), (N, S, D)
    v: np.ndarray  # (N, S, D)
    attn: np.ndarray  # softmax, (N, L, S)
    noise: np.ndarray  # dropout's scaled mask, (N, L, S)
    attn_d: np.ndarray  # attn * noise
    root_scale: np.float32


def sdpa_math_forward(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, dropout_p: float, gen: CPUGenerator, profile: KernelProfile
) -> tuple[np.ndarray, MathSaved]:
    """``_scaled_dot_product_attention_math`` with is_causal and dropout (``gen``: rng.CPUGenerator
    as torch's default generator stands): q2 = q*s, k2 = k*s with s = float(sqrt(1/sqrt(D)));
    attn = q2 @ k2^T, plus the causal mask (0 / -inf); softmax; dropout (bernoulli_(1-p), /(1-p), *);
    out = attn_d @ v."""
    q, k, v = f32(q), f32(k), f32(v)
    b, h, lq, s, d = _dims(q, k, v)
    rs = np.float32(math.sqrt(1.0 / math.sqrt(d)))
    q2 = (q * rs).reshape(b * h, lq, d)
    k2 = (k * rs).reshape(b * h, s, d)
    v3 = v.reshape(b * h, s, d)
    scores = _bmm(q2, k2.transpose(0, 2, 1), profile)
    scores = scores + np.where(np.tril(np.ones((lq, s), bool)), np.float32(0), np.float32(-np.inf))
    attn = softmax(scores, profile)
    attn_d, noise = dropout(attn, dropout_p, gen, profile)
    out = _bmm(attn_d, v3, profile).reshape(b, h, lq, d)
    return out, MathSaved(q2, k2, v3, attn, noise, attn_d, rs)


def sdpa_math_backward(
    grad_out: np.ndarray, saved: MathSaved, profile: KernelProfile
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Autograd through the math path: bmm backward (grad @ v^T, attn_d^T @ grad), dropout's
    grad * noise, softmax backward, bmm backward (grad_s @ k2, q2^T @ grad_s), then * s."""
    shape = grad_out.shape
    g = f32(grad_out).reshape(saved.q2.shape)
    grad_attn_d = _bmm(g, saved.v.transpose(0, 2, 1), profile)
    grad_v = _bmm(saved.attn_d.transpose(0, 2, 1), g, profile)
    grad_s = softmax_backward(dropout_backward(grad_attn_d, saved.noise), saved.attn, profile)
    grad_q2 = _bmm(grad_s, saved.k2, profile)
    grad_kt = _bmm(saved.q2.transpose(0, 2, 1), grad_s, profile)
    grad_q = (grad_q2 * saved.root_scale).reshape(shape)
    grad_k = np.ascontiguousarray((grad_kt * saved.root_scale).transpose(0, 2, 1)).reshape(
        shape[0], shape[1], -1, shape[3]
    )
    return grad_q, grad_k, grad_v.reshape(grad_k.shape)


def _run_sdpa_dropout(params: Mapping[str, Any], t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    _check_params(params, dropout=True)
    gen = CPUGenerator(int(params["torch_seed"]))
    out, saved = sdpa_math_forward(t["q"], t["k"], t["v"], float(params["dropout_p"]), gen, profile)
    gq, gk, gv = sdpa_math_backward(t["grad_out"], saved, profile)
    return {"out": out, "grad_q": gq, "grad_k": gk, "grad_v": gv}


def _run_sdpa(params: Mapping[str, Any], t: Arrays, profile: KernelProfile) -> dict[str, np.ndarray]:
    _check_params(params, dropout=False)
    saved = sdpa_forward(t["q"], t["k"], t["v"], profile)
    gq, gk, gv = sdpa_backward(t["grad_out"], t["q"], t["k"], t["v"], saved, profile)
    return {"out": saved.out, "grad_q": gq, "grad_k": gk, "grad_v": gv}


def _check_params(params: Mapping[str, Any], dropout: bool) -> None:
    if not params.get("is_causal", False):
        raise ParityError("sdpa: the impl reproduces is_causal=True only")
    if bool(params.get("dropout_p", 0.0)) != dropout:
        raise ParityError(f"sdpa: unexpected dropout_p {params.get('dropout_p')}")


RUNNERS = {"sdpa": _run_sdpa, "sdpa_dropout": _run_sdpa_dropout}
