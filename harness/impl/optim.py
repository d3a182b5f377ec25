"""torch.optim.AdamW's CPU step without torch (C kernel in csrc/optim.c).

``adamw_step`` updates one parameter and its two moment buffers in place, bit-identical to
torch 2.13.0's default CPU path (``_single_tensor_adam``, decoupled weight decay) under a
``KernelProfile``: the fused multiply-adds of ``lerp_``/``addcmul_`` exist on avx2/avx512 and not
on the default kernels; ``exp_avg_sq.sqrt()`` is MKL VML's (``sqrt``), not IEEE sqrt.
``AdamW`` keeps the per-parameter state of a whole optimizer with parameter groups.
``RUNNERS`` holds the ``adamw_step`` fixture runner (registered via ``rng``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.profiles import KernelProfile


class _Scalars(ctypes.Structure):
    """``adamw_scalars_t`` of csrc/optim.c."""

    _fields_ = [("decay", ctypes.c_int32)] + [
        (name, ctypes.c_float)
        for name in ("decay_factor", "lerp_weight", "beta2", "sq_value", "bc2_sqrt", "eps", "neg_step")
    ]


def _lib() -> ctypes.CDLL:
    lib = load("optim")
    if not getattr(lib, "_typed", False):
        p = ctypes.c_void_p
        lib.adamw_step_forward.argtypes = [Profile, _Scalars, p, p, p, p, ctypes.c_int64]
        lib.sqrt_forward.argtypes = [p, p, ctypes.c_int64]
        lib._typed = True
    return lib


def sqrt(x: np.ndarray) -> np.ndarray:
    """``torch.sqrt(x)`` for float32 on the fixtures' x86 host: MKL VML's generic HA kernel (an
    rsqrtps estimate refined without FMA), which is not correctly rounded (about 1 in 5 results
    differs from IEEE sqrt by 1 ULP). Same on every ATen capability; see csrc/optim.c."""
    x = f32(x)
    out = np.empty_like(x)
    _lib().sqrt_forward(ptr(x), ptr(out), x.size)
    return out


def _scalars(step: float, lr: float, beta1: float, beta2: float, eps: float, weight_decay: float) -> _Scalars:
    """The step's Python-double scalars, computed as adam.py computes them (ctypes rounds each to float)."""
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2**0.5
    decay = weight_decay != 0
    return _Scalars(
        int(decay),
        (1 - lr * weight_decay) if decay else 1.0,
        1 - beta1,
        beta2,
        1 - beta2,
        bias_correction2_sqrt,
        eps,
        -step_size,
    )


def adamw_step(
    param: np.ndarray,
    grad: np.ndarray,
    exp_avg: np.ndarray,
    exp_avg_sq: np.ndarray,
    step: int,
    *,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
    profile: KernelProfile,
) -> None:
    """One ``torch.optim.AdamW`` step of one float32 parameter, in place (param, exp_avg, exp_avg_sq).

    ``step`` is the step count after this step's increment (1 for the first step). The three
    updated arrays must be C-contiguous float32; ``grad`` is read only.
    """
    for name, a in (("param", param), ("exp_avg", exp_avg), ("exp_avg_sq", exp_avg_sq)):
        if a.dtype != np.float32 or not a.flags.c_contiguous:
            raise TypeError(f"{name} must be a C-contiguous float32 array (updated in place)")
        if a.shape != param.shape:
            raise ValueError(f"{name} has shape {a.shape}, param {param.shape}")
    grad = f32(grad)
    if grad.shape != param.shape:
        raise ValueError(f"grad has shape {grad.shape}, param {param.shape}")
    s = _scalars(float(np.float32(step)), lr, betas[0], betas[1], eps, weight_decay)
    _lib().adamw_step_forward(profile.as_c(), s, ptr(param), ptr(grad), ptr(exp_avg), ptr(exp_avg_sq), param.size)


@dataclass
class AdamWState:
    step: int = 0
    exp_avg: np.ndarray | None = None
    exp_avg_sq: np.ndarray | None = None


@dataclass
class AdamW:
    """``torch.optim.AdamW(groups, lr, betas, eps)`` on CPU with defaults (no amsgrad/maximize/foreach/fused).

    ``groups`` is a list of ``(params, weight_decay)``; params are float32 arrays updated in place.
    ``step(grads)`` takes one gradient per parameter, in the groups' order (None: skipped, as torch
    skips a parameter whose ``.grad`` is None).
    """

    groups: list[tuple[list[np.ndarray], float]]
    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    profile: KernelProfile | None = None
    state: dict[int, AdamWState] = field(default_factory=dict)

    def params(self) -> list[np.ndarray]:
        return [q for params, _ in self.groups for q in params]

    def step(self, grads: Sequence[np.ndarray | None]) -> None:
        if self.profile is None:
            raise ValueError("AdamW needs a KernelProfile")
        params = self.params()
        if len(grads) != len(params):
            raise ValueError(f"{len(grads)} gradients for {len(params)} parameters")
        decays = [wd for group, wd in self.groups for _ in group]
        for i, (q, g, wd) in enumerate(zip(params, grads, decays, strict=True)):
            if g is None:
                continue
            st = self.state.setdefault(i, AdamWState(0, np.zeros_like(q), np.zeros_like(q)))
            st.step += 1
            assert st.exp_avg is not None and st.exp_avg_sq is not None
            adamw_step(
                q,
                g,
                st.exp_avg,
                st.exp_avg_sq,
                st.step,
                lr=self.lr,
                betas=self.betas,
                eps=self.eps,
                weight_decay=wd,
                profile=self.profile,
            )


def _run_adamw_step(params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile) -> dict:
    shapes = [tuple(s) for s in params["shapes"]]
    weights = [inputs[f"param_{i}"].astype(np.float32, copy=True) for i in range(len(shapes))]
    decay = [q for q in weights if q.ndim >= 2]
    no_decay = [q for q in weights if q.ndim < 2]
    opt = AdamW(
        [(decay, float(params["weight_decay"])), (no_decay, 0.0)],
        lr=float(params["lr"]),
        betas=(float(params["betas"][0]), float(params["betas"][1])),
        eps=float(params["eps"]),
        profile=profile,
    )
    order = [next(j for j, w in enumerate(weights) if w is q) for q in opt.params()]
    for step in range(1, int(params["steps"]) + 1):
        opt.step([inputs[f"grad_{j}_step{step}"] for j in order])
    out: dict[str, np.ndarray] = {}
    for k, j in enumerate(order):
        st = opt.state[k]
        out[f"param_{j}"] = weights[j]
        out[f"exp_avg_{j}"] = st.exp_avg
        out[f"exp_avg_sq_{j}"] = st.exp_avg_sq
    return out


RUNNERS = {"adamw_step": _run_adamw_step}
