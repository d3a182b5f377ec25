"""Scaled dot-product attention (C kernels in csrc/attention.c): ``sdpa`` and ``sdpa_dropout``.

``F.scaled_dot_product_attention`` on CPU in torch 2.13.0: dropout 0 runs ATen's flash attention
kernel, ``_scaled_dot_product_flash_attention_for_cpu`` and its backward (``sdpa_forward`` /
``sdpa_backward``: any head size and lengths, causal or not, a float ``attn_mask``, a given scale,
grouped key/value heads, q/k/v in torch's own layouts: ``FlashCall``); dropout > 0 runs the math
path (``sdpa_math_forward``/``sdpa_math_backward``, is_causal only): q and k each scaled by
sqrt(1/sqrt(D)), ``q @ k^T`` (at::bmm), causal mask added, softmax, dropout, ``@ v``; its backward
is autograd's through those ops. Arrays are (B, H, L, D) float32; k and v (B, Hk, S, D).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.linalg import AVX2_COLUMNS_4, AVX2_K_LONG_4, check_plain_sgemm
from harness.impl.linalg import bmm as _bmm  # at::bmm: ATen's small loop or MKL per item
from harness.impl.profiles import MKL_AVX2, MKL_AVX512, MKL_SSE42, MODELLED_BLAS, NVPL, KernelProfile
from harness.impl.rng import CPUGenerator, dropout, dropout_backward
from harness.impl.rows import softmax, softmax_backward

_I64 = ctypes.c_int64
_P = ctypes.c_void_p

Arrays = Mapping[str, np.ndarray]


class _View(ctypes.Structure):
    """``sdpa_view_t``: a (B, heads, rows, D) operand by torch's strides, and its address mod 16 bytes."""

    _fields_ = [("data", _P), ("sb", _I64), ("sh", _I64), ("sr", _I64), ("off", _I64)]


class _Mask(ctypes.Structure):
    """``sdpa_mask_t``: the float mask, (B, H, L, S) strides, 0 along broadcast dimensions."""

    _fields_ = [("data", _P), ("sb", _I64), ("sh", _I64), ("sm", _I64), ("sn", _I64)]


class _Sdpa(ctypes.Structure):
    """``sdpa_t``: the flash forward's inputs."""

    _fields_ = [
        *((name, _I64) for name in ("B", "H", "Hk", "L", "S", "D")),
        ("scale", ctypes.c_float),
        ("causal", ctypes.c_int32),
        ("q", _View),
        ("k", _View),
        ("v", _View),
        ("mask", _Mask),
    ]


class _Grad(ctypes.Structure):
    """``sdpa_grad_t``: what the flash backward reads and writes beyond the forward's inputs."""

    _fields_ = [("out", _View), ("gout", _View), ("gq", _View), ("gk", _View), ("gv", _View), ("lse", _P)]


def _lib() -> ctypes.CDLL:
    lib = load("attention")
    if not getattr(lib, "_typed", False):
        lib.sdpa_flash_forward.argtypes = [Profile, ctypes.POINTER(_Sdpa), ctypes.POINTER(_View), _P]
        lib.sdpa_flash_backward.argtypes = [Profile, ctypes.POINTER(_Sdpa), ctypes.POINTER(_Grad)]
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


@dataclass(frozen=True)
class FlashCall:
    """How ``_scaled_dot_product_flash_attention_for_cpu`` is called, beyond q, k and v.

    causal: is_causal. mask: the float attn_mask (any shape that broadcasts to (B, H, L, S): 2-D or
    4-D with dimensions of 1), or None. scale: the scale argument (None: 1/sqrt(D)). offsets: where
    q, k, v and grad_out start in torch's buffers, in floats past a 16-byte boundary (0 to 3; 0 for
    tensors torch allocated, a view's storage offset moves it): MKL's small kernels peel by them.
    """

    causal: bool = True
    mask: np.ndarray | None = None
    scale: float | None = None
    offsets: Mapping[str, int] = field(default_factory=dict)

    def scale_f32(self, d: int) -> float:
        """sdp::calculate_scale as a float: float(scale), or float(1/sqrt(D)) computed in double."""
        return float(np.float32(1.0 / math.sqrt(d) if self.scale is None else self.scale))


_CAUSAL = FlashCall()


def _flash_dims(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[int, ...]:
    """(B, H, Hk, L, S, D) of q (B,H,L,D) and k, v (B,Hk,S,D), H a multiple of Hk (grouped heads)."""
    ok = q.ndim == 4 and k.shape == v.shape and k.ndim == 4 and q.shape[0] == k.shape[0] and q.shape[3] == k.shape[3]
    if not ok or k.shape[1] == 0 or q.shape[1] % k.shape[1]:
        raise ParityError(f"sdpa: expected q (B,H,L,D) and k, v (B,Hk,S,D), Hk dividing H, got {q.shape}, {k.shape}")
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.dtype != np.float32 or x.strides[3] != 4 or any(s % 4 or s < 0 for s in x.strides):
            raise ParityError(f"sdpa: {name} must be float32 with its last dimension contiguous")
    b, h, lq, d = q.shape
    return b, h, k.shape[1], lq, k.shape[2], d


def _view(x: np.ndarray, off: int = 0) -> _View:
    """A (B, heads, rows, D) float32 array as the kernels read it (its own strides, not copied)."""
    sb, sh, sr = (s // 4 for s in x.strides[:3])
    return _View(x.ctypes.data, sb, sh, sr, off % 4)


def _mask(mask: np.ndarray | None, shape: tuple[int, int, int, int]) -> _Mask:
    """The mask broadcast to (B, H, L, S) (strides 0 along broadcast dimensions; a view of ``mask``'s memory)."""
    if mask is None:
        return _Mask(None, 0, 0, 0, 0)
    if mask.dtype != np.float32 or mask.ndim not in (2, 4):
        raise ParityError(f"sdpa: the flash kernel takes a 2-D or 4-D float32 attn_mask, got {mask.dtype} {mask.shape}")
    try:
        full = np.broadcast_to(mask, shape)
    except ValueError as err:
        raise ParityError(f"sdpa: attn_mask {mask.shape} does not broadcast to {shape}") from err
    return _Mask(full.ctypes.data, *(s // 4 for s in full.strides))


def _args(q: np.ndarray, k: np.ndarray, v: np.ndarray, call: FlashCall) -> _Sdpa:
    """The kernels' ``sdpa_t`` over the arrays' own memory (q, k, v and ``call.mask`` stay alive meanwhile)."""
    b, h, hk, lq, s, d = _flash_dims(q, k, v)
    off = call.offsets
    views = (_view(q, off.get("q", 0)), _view(k, off.get("k", 0)), _view(v, off.get("v", 0)))
    return _Sdpa(b, h, hk, lq, s, d, call.scale_f32(d), int(call.causal), *views, _mask(call.mask, (b, h, lq, s)))


def _check_intel_threads(profile: KernelProfile, backward: bool) -> None:
    """ParityError where the flash kernel's products on one of MKL's Intel paths are not modelled at
    the profile's thread count (random flash_attention and sdpa cases on an Intel Xeon at 3 and 4
    threads): the AVX-512 path on 3 or more threads (39 of 258 outputs differed, the backward's and one
    forward's), and the backward on the AVX2 and SSE4.2 paths on 3 or 5 and more threads (12 and 1
    differed at 3; at 4 threads they are bit-exact)."""
    threads = profile.threads
    avx512 = profile.blas == MKL_AVX512 and threads >= 3
    other = backward and profile.blas in (MKL_AVX2, MKL_SSE42) and threads not in (1, 2, 4)
    if avx512 or other:
        raise ParityError(
            f"sdpa: the impl does not reproduce the flash {'backward' if backward else 'forward'} on MKL's Intel "
            f"path ({profile.blas}) on {threads} threads: how MKL cuts its products there is not modelled"
        )


# the words of ``_check_outside_gemv``'s refusal (tests/test_impl_live_attention.py passes over it)
OUTSIDE_GEMV = "a single-row product outside the kernel's OpenMP region on MKL's generic path"


def _check_outside_gemv(profile: KernelProfile, a: _Sdpa, backward: bool) -> None:
    """ParityError where the flash kernel has one work item (parallel_for's team of one: MKL sees no
    parallel region and may use every thread) and a one-row query or key block makes its products
    single-row gemvs, on MKL's generic path on 3 or more threads: how MKL cuts such a gemv between its
    threads is not modelled (measured on an AMD Zen 5: one query row, one head, one image, head sizes 22
    to 80 and 8 or 40 keys, 1 to 4 outputs of ``out`` differed at 3, 4 and 8 threads, none at 1 and 2;
    2 images, or 5 query rows, bit for bit)."""
    one_item = _work_items(a, backward) == 1
    if profile.blas == MODELLED_BLAS and profile.threads >= 3 and one_item and _single_row_block(a.L, a.S):
        raise ParityError(
            f"sdpa: the impl does not reproduce the flash {'backward' if backward else 'forward'} with one work "
            f"item and {OUTSIDE_GEMV} on {profile.threads} threads: how MKL cuts that gemv is not modelled"
        )


def sdpa_forward(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, profile: KernelProfile, call: FlashCall = _CAUSAL
) -> FlashSaved:
    """``_scaled_dot_product_flash_attention_for_cpu`` (dropout 0): out (B,H,L,D) and logsumexp (B,H,L).

    q (B,H,L,D), k and v (B,Hk,S,D) in any layout whose last dimension is contiguous (their strides
    are torch's: the kernel reads them as they are); ``call`` says the rest (default: is_causal, no
    mask, scale 1/sqrt(D))."""
    _check_intel_threads(profile, backward=False)
    _check_intel_strided_vector(profile, v)
    strided_v = v.shape[-1] == 1 and _strided_rows(v)
    if profile.blas == NVPL and strided_v and _single_row_block(q.shape[2], v.shape[2]):
        # PV with head size 1 is a gemv on v's strided rows: NVPL's single-output form there is not modelled
        raise ParityError(
            "sdpa: the impl does not reproduce the flash forward with head size 1, v's rows strided (a (B, S, H, D) "
            f"layout with several key/value heads) and a one-row query or key block on {profile.name}: NVPL's gemv"
        )
    args = _args(q, k, v, call)
    _check_intel_products(profile, args, backward=False)
    _check_outside_gemv(profile, args, backward=False)
    out = np.empty(q.shape, np.float32)
    lse = np.empty(q.shape[:3], np.float32)
    _lib().sdpa_flash_forward(profile.as_c(), ctypes.byref(args), ctypes.byref(_view(out)), ptr(lse))
    return FlashSaved(out, lse)


def _zeros_blhd(shape: tuple[int, ...]) -> np.ndarray:
    """Zeros of (B,H,N,D) ``shape`` laid out (B,N,H,D), as the backward's gradients start."""
    b, h, n, d = shape
    return np.zeros((b, n, h, d), np.float32).transpose(0, 2, 1, 3)


def _grad_out_as_read(grad_out: np.ndarray, off: int) -> tuple[np.ndarray, int]:
    """grad_out as the backward reads it: its (B,L,H,D) transpose made contiguous (a copy at offset 0)
    unless it already is."""
    t = grad_out.transpose(0, 2, 1, 3)
    if t.flags.c_contiguous:
        return grad_out, off
    return np.ascontiguousarray(t).transpose(0, 2, 1, 3), 0


def _q_split(lq: int) -> int:
    """The flash kernels' query block (qSplitSize: 32, 64 or 256 rows by L)."""
    return min(32 if lq < 192 else (64 if lq < 768 else 256), lq)


def _blocks(lq: int, s: int) -> tuple[set[int], set[int]]:
    """The row counts of the flash kernels' query blocks (qSplitSize: 32, 64 or 256 rows by L) and key
    blocks (512 rows): a full block's and the last one's."""
    qs, kvs = _q_split(lq), min(512, s)
    return {qs, lq - (lq - 1) // qs * qs}, {kvs, s - (s - 1) // kvs * kvs}


def _block_pairs(lq: int, s: int, causal: bool) -> set[tuple[int, int]]:
    """(query rows, key rows) of every block the flash kernels multiply: each query block against the
    key blocks of 512 that start before its last row (causal) or anywhere; a block's rows run to 512 or
    the last key whatever the causal mask leaves of it."""
    qs, pairs = _q_split(lq), set()
    for m in range(0, lq, qs):
        qb = min(qs, lq - m)
        keys = min(m + qb, s) if causal else s
        pairs.update((qb, min(512, s - n)) for n in range(0, keys, 512))  # a block runs past the causal keys
    return pairs


def _work_items(a: _Sdpa, backward: bool) -> int:
    """The flash kernel's parallel_for items: (batch, head, query block) forward, (batch, kv head) backward."""
    return a.B * a.Hk if backward else a.B * a.H * -(-a.L // _q_split(a.L))


def _check_intel_products(profile: KernelProfile, a: _Sdpa, backward: bool) -> None:
    """ParityError where a product of the flash kernels falls outside what csrc/mkl_sgemm.h models of
    MKL's Intel path on the profile's threads (linalg.check_plain_sgemm: shapes whose cut between
    threads, or alpha's place, is not modelled): the products of a call made outside the kernel's OpenMP
    region (one item: parallel_for runs it inline) and the AVX2 and AVX-512 paths' calls inside it, which
    MKL decides as on the profile's threads (the SSE4.2 path runs those on one thread). Measured on the
    Xeon: the backward's grad_k and grad_v of last query blocks of 3 and 4 rows on 4 threads (AVX2), and
    its scaled q k^T of 5 query rows against 512 keys on 2 (AVX-512), which the impl had got wrong."""
    items = _work_items(a, backward)
    if profile.blas not in (MKL_AVX2, MKL_AVX512, MKL_SSE42) or (items > 1 and profile.blas == MKL_SSE42):
        return
    d, scale = a.D, (a.scale if backward else 1.0)
    for qb, kb in _block_pairs(a.L, a.S, bool(a.causal)):
        # (M, N, K, A transposed, B transposed, alpha): q k^T, then P v (forward) or grad_q, then grad_k
        shapes = [(qb, kb, d, False, True, scale), (qb, d, kb, False, False, scale)]
        if backward:
            shapes.append((kb, d, qb, True, False, a.scale))
        for m, n, k, ta, tb, alpha in shapes:
            if m == n == 1 and profile.blas != MKL_AVX2:  # cpublas's one-element form: the C's (AVX-512)
                if profile.blas == MKL_SSE42:
                    raise ParityError(
                        "sdpa: the impl does not reproduce the flash kernels' one-element products (one query row "
                        "against one key) on MKL's Intel SSE4.2 path: their order is not modelled there (with "
                        "operands off a 16-byte boundary they differed)"
                    )
                continue
            try:
                check_plain_sgemm(profile, m, n, k, ta, tb, alpha)
                outside_only = k >= AVX2_K_LONG_4 or n >= AVX2_COLUMNS_4
                if items > 1 and profile.blas == MKL_AVX2 and profile.threads == 4 and outside_only:
                    raise ParityError(
                        f"gemm {m}x{n}x{k} inside the kernel's OpenMP region: MKL's Intel AVX2 path on 4 threads "
                        "from K = 640 or 768 columns is measured outside it only"
                    )
            except ParityError as err:
                raise ParityError(
                    f"sdpa: the impl does not reproduce the flash {'backward' if backward else 'forward'} here: {err}"
                ) from None


def _single_row_block(lq: int, s: int) -> bool:
    """Whether the flash kernels' last query block or key block has one row: a product there is a
    single-output gemv."""
    blocks_q, blocks_kv = _blocks(lq, s)
    return 1 in blocks_q or 1 in blocks_kv


def _strided_rows(*xs: np.ndarray) -> bool:
    """Whether any of these (B, H, N, 1) tensors steps more than one float from row to row: with head
    size 1 each is a vector of the flash kernels' gemv products, read with that stride (incx > 1)."""
    return any(x.ndim == 4 and x.shape[2] > 1 and x.strides[2] != x.itemsize for x in xs)


def _check_intel_strided_vector(profile: KernelProfile, *xs: np.ndarray) -> None:
    """ParityError where head size 1 makes a strided vector of MKL's gemv on its Intel SSE4.2 or AVX-512
    path (one head of a (B, L, H, D) layout wider than the head, as a slice of a packed projection):
    its order there is not modelled (measured on an Intel Xeon, one head, head size 1, L = S = 50: 1 to
    37 of 50 outputs differed where v, q or k was such a slice; the AVX2 path's gemv matched)."""
    if profile.blas in (MKL_SSE42, MKL_AVX512) and xs[0].shape[-1] == 1 and _strided_rows(*xs):
        raise ParityError(
            f"sdpa: the impl does not reproduce the flash kernels with head size 1 and rows a stride apart on "
            f"MKL's Intel path ({profile.blas}): the BLAS's gemv with a strided vector is not modelled there"
        )


def _sse42_tiny_scaled(lq: int, s: int, d: int, scale: float) -> bool:
    """Whether the flash backward's scaled products (grad_q: q block x D x key block, grad_k: key block x
    D x q block, beta 1) meet MKL's SSE4.2 tiny addmm (M, N, K all 10 or less, K >= 4) with a scale other
    than 1: an order of summation not modelled (csrc/mkl_sgemm.h mkl_sse42_sgemm)."""
    blocks_q, blocks_kv = _blocks(lq, s)
    small = [(m, n) for m in blocks_q for n in blocks_kv if 2 <= m <= 10 and 2 <= n <= 10 and max(m, n) >= 4]
    return scale != 1.0 and 2 <= d <= 10 and bool(small)


def _strided_gemv_modelled(profile: KernelProfile, lq: int, s: int) -> bool:
    """Whether the impl models the BLAS's gemv with a strided vector or output (flash attention's
    head-size-1 products with several heads): MKL's generic path (csrc/mkl_sgemm.h mkl_gemv_rows,
    mkl_gemv_n); NVPL's (csrc/nvpl_sgemm.h nvpl_gemv_strided) except its single-output form, which
    a one-row query or key block makes."""
    if profile.blas == NVPL:
        return not _single_row_block(lq, s)
    return profile.blas == MODELLED_BLAS and not profile.mkl_cbwr


def sdpa_backward(
    grad_out: np.ndarray,
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    saved: FlashSaved,
    profile: KernelProfile,
    call: FlashCall = _CAUSAL,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_scaled_dot_product_flash_attention_for_cpu_backward``: (grad_q, grad_k, grad_v) for
    ``grad_out`` (B,H,L,D), q, k, v and ``call`` as the forward had them. The gradients start as
    zeros in torch's (B,L,H,D) layout; they are returned (B,H,L,D) contiguous."""
    if grad_out.shape != q.shape or grad_out.dtype != np.float32:
        raise ParityError(f"sdpa: grad_out must be float32 {q.shape}, got {grad_out.dtype} {grad_out.shape}")
    _check_intel_threads(profile, backward=True)
    _check_intel_strided_vector(profile, q, k, v)
    if (
        q.shape[3] == 1
        and max(q.shape[1], k.shape[1]) > 1
        and not _strided_gemv_modelled(profile, q.shape[2], k.shape[2])
    ):
        # grad rows of one float, heads apart: the BLAS's gemv with a strided y, modelled for MKL's generic path only
        raise ParityError(
            "sdpa: the impl does not reproduce the flash backward with head size 1 and several heads on "
            f"{profile.name} (BLAS {profile.blas}{' MKL_CBWR' if profile.mkl_cbwr else ''}): the BLAS's gemv with a "
            "strided output is not modelled there (measured on MKL's generic path, and on NVPL without a one-row "
            "query or key block)"
        )
    if profile.blas == MKL_SSE42 and _sse42_tiny_scaled(q.shape[2], k.shape[2], q.shape[3], call.scale_f32(q.shape[3])):
        raise ParityError(
            "sdpa: the impl does not reproduce the flash backward on MKL's Intel SSE4.2 path where its scaled "
            "products are tiny (q and key blocks and head size 10 or less): MKL's order there is not modelled"
        )
    args = _args(q, k, v, call)
    _check_intel_products(profile, args, backward=True)
    _check_outside_gemv(profile, args, backward=True)
    gout, gout_off = _grad_out_as_read(grad_out, call.offsets.get("grad_out", 0))
    grads = [_zeros_blhd(x.shape) for x in (q, k, v)]
    lse = np.ascontiguousarray(saved.lse, np.float32)
    views = (_view(saved.out), _view(gout, gout_off), *map(_view, grads))
    _lib().sdpa_flash_backward(profile.as_c(), ctypes.byref(args), ctypes.byref(_Grad(*views, ptr(lse))))
    gq, gk, gv = (np.ascontiguousarray(x) for x in grads)
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
    scores += np.where(np.tril(np.ones((lq, s), bool)), np.float32(0), np.float32(-np.inf))  # _bmm's own array
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
