"""The connectionist temporal classification loss, torch-free: ATen's ``_ctc_loss`` and
``_ctc_loss_backward`` on the CPU (LossCTC.cpp ``ctc_loss_cpu_template`` and
``ctc_loss_backward_cpu_template``), float32, on x86.

The kernel is scalar code outside native/cpu, compiled once: no ATen capability reaches it, and its
batch split between threads gives each element to one thread whole, so the thread count reaches no
bit either. Its bits are those of its order of operations (csrc/ctc.c says it) and of the C
library's ``expf`` and ``logf``, which the impl has as its own ports of glibc's (csrc/vmath.h), so
the host's C library never reaches an output; where two NaNs meet, the one SSE keeps in the
compiled kernel's operand order, which is not the source's everywhere (csrc/ctc.c lists it). Measured
on a Zen 5 (AVX-512) against torch 2.13.0, traced and replayed, at ATen levels default, avx2 and
avx512 on 1, 2 and 4 threads: 600 random draws per level (batch 1 to 9, 1 to 39 time steps, 2 to 19
classes, targets of length 0 to 7 with runs of one label, padded or concatenated, int32 or int64, a
blank other than 0, input lengths below T, -inf log-probabilities, infinite losses, subnormals, each
reduction, zero_infinity either way; NaNs of five bit patterns in 134 draws, +inf in 57, NaN output
gradients), ``_ctc_loss`` and its backward 600 exact each, 0 other, 0 refused at every level and
thread count; log_alpha within the lengths equal to torch's in all 600. Before the operand order was
modelled, 3 of 300 losses with NaN log-probabilities kept another NaN.

On aarch64 the same scalar code gives the same finite bits; NaN results there are aarch64's flip of x86's
(nans.made_nans: made of infinities alone, every NaN the default one descends from, +qNaN there, -qNaN on
x86), NaN operands with NaN results refused. Refused: float64 (glibc's double exp and log are not correctly
rounded, the impl's are) and operands on which ATen reads memory out of bounds (a target label outside
[0, classes) within its length).

Shapes: log_probs (T, B, C); targets (B, S) padded, or 1-d, the batch's targets concatenated;
input_lengths, target_lengths (B,) integers. The loss (B,) and log_alpha (B, T, 2 * max target
length + 1), NaN where ATen leaves its at::empty memory unwritten; the gradient (T, B, C).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import f32, load, ptr
from harness.impl.nans import made_nans
from harness.impl.profiles import KernelProfile


class _Operands:
    """The checked operands of either kernel: log_probs, the flat targets with each element's
    offset and stride, the lengths and the width of log_alpha."""

    def __init__(
        self,
        op: str,
        log_probs: np.ndarray,
        targets: np.ndarray,
        input_lengths: Sequence[int],
        target_lengths: Sequence[int],
        blank: int,
        profile: KernelProfile,
    ) -> None:
        self.aarch64 = profile.aarch64
        if log_probs.dtype != np.float32:
            raise ParityError(
                f"the impl reproduces {op} of float32 only, not {log_probs.dtype} (glibc's double exp and log are "
                "not correctly rounded, the impl's are)"
            )
        if log_probs.ndim != 3:
            raise ParityError(f"{op}: log_probs of {log_probs.ndim} dims, not (T, B, C)")
        self.T, self.B, self.C = (int(n) for n in log_probs.shape)
        self.lp = f32(log_probs)
        self.il = np.asarray(input_lengths, np.int64).reshape(-1)
        self.tl = np.asarray(target_lengths, np.int64).reshape(-1)
        if self.il.size != self.B or self.tl.size != self.B:
            raise ParityError(f"{op}: {self.il.size} input and {self.tl.size} target lengths for a batch of {self.B}")
        if not 0 <= blank < self.C:
            raise ParityError(f"{op}: blank {blank} out of the {self.C} classes")
        if (self.il < 0).any() or (self.il > self.T).any() or (self.tl < 0).any():
            raise ParityError(f"{op}: input lengths outside [0, {self.T}] or a negative target length")
        if targets.ndim == 1:
            self.off = np.concatenate(([0], np.cumsum(self.tl)[:-1])).astype(np.int64)
            if int(self.tl.sum()) != targets.shape[0]:
                total = int(self.tl.sum())
                raise ParityError(f"{op}: {targets.shape[0]} concatenated targets for lengths summing to {total}")
        elif targets.ndim == 2 and targets.shape[0] == self.B and targets.shape[1] >= self.tl.max(initial=0):
            self.off = np.arange(self.B, dtype=np.int64) * targets.shape[1]
        else:
            raise ParityError(f"{op}: targets of shape {targets.shape} for a batch of {self.B}")
        if targets.dtype.kind not in "iu":
            raise ParityError(f"{op}: targets of {targets.dtype}, not integers")
        self.tg = np.ascontiguousarray(targets.reshape(-1), np.int64)
        for b in range(self.B):  # the labels the kernel reads: out of range it reads past log_probs' rows
            used = self.tg[self.off[b] : self.off[b] + self.tl[b]]
            if ((used < 0) | (used >= self.C)).any():
                raise ParityError(f"{op}: a target label outside [0, {self.C}) (ATen reads out of bounds)")
        self.blank = int(blank)
        self.S = 2 * int(self.tl.max(initial=0)) + 1

    def args(self) -> list[object]:
        return [
            ptr(self.lp), ptr(self.tg), ptr(self.off), ctypes.c_int64(1), ptr(self.il), ptr(self.tl),
            *(ctypes.c_int64(n) for n in (self.T, self.B, self.C, self.S, self.blank)),
        ]  # fmt: skip

    def alpha(self) -> tuple[np.ndarray, np.ndarray]:
        nll = np.empty(self.B, np.float32)
        la = np.full((self.B, self.T, self.S), np.nan, np.float32)
        fn = load("ctc").ctc_loss_forward
        fn.restype = None
        fn(*self.args(), ptr(nll), ptr(la))
        return nll, la


def ctc_loss(
    log_probs: np.ndarray,
    targets: np.ndarray,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
    profile: KernelProfile,
) -> tuple[np.ndarray, np.ndarray]:
    """``_ctc_loss``: (the negative log-likelihood (B,), log_alpha (B, T, S))."""
    nll, la = _Operands("_ctc_loss", log_probs, targets, input_lengths, target_lengths, blank, profile).alpha()
    return made_nans("_ctc_loss", nll, profile.aarch64, log_probs), la


def ctc_loss_backward(
    grad: np.ndarray,
    log_probs: np.ndarray,
    targets: np.ndarray,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    neg_log_likelihood: np.ndarray,
    blank: int,
    zero_infinity: bool,
    profile: KernelProfile,
) -> np.ndarray:
    """``_ctc_loss_backward``: the gradient by log_probs (T, B, C). log_alpha is the forward's,
    recomputed from the same operands (the kernel reads only what the forward wrote)."""
    ops = _Operands("_ctc_loss_backward", log_probs, targets, input_lengths, target_lengths, blank, profile)
    g = np.ascontiguousarray(np.broadcast_to(f32(np.asarray(grad)), (ops.B,)))
    nll_in = np.ascontiguousarray(np.broadcast_to(f32(np.asarray(neg_log_likelihood)), (ops.B,)))
    if profile.aarch64:  # the forward's made NaNs as this host's x86 ones (made_nans' flip, undone)
        nll_in = made_nans("_ctc_loss_backward's neg_log_likelihood", nll_in, True, log_probs, g)
    _, la = ops.alpha()
    out = np.empty((ops.T, ops.B, ops.C), np.float32)
    beta = np.empty((ops.T, ops.S), np.float32)
    fn = load("ctc").ctc_loss_backward
    fn.restype = None
    a = ops.args()
    fn(ptr(g), *a[:6], ptr(nll_in), ptr(la), *a[6:], ctypes.c_int32(int(bool(zero_infinity))), ptr(out), ptr(beta))
    return made_nans("_ctc_loss_backward", out, profile.aarch64, log_probs, g)
