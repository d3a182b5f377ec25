"""torch.optim's Adam, AdamW and SGD CPU steps without torch (C kernels in csrc/optim.c).

``adam_step`` and ``sgd_step`` update one parameter and its state in place, bit-identical to
torch 2.13.0 under a ``KernelProfile``, by any of torch's three paths (``PATHS``: the for-loop,
CPU's default; foreach, the same bits on CPU; fused, a kernel of its own), with weight decay
(AdamW's decoupled or Adam's L2), amsgrad, maximize, and for SGD momentum, dampening and nesterov.
The fused multiply-adds of ``lerp_``/``addcmul_``/``add(alpha=)`` exist on avx2/avx512 and not on
the default kernels; the for-loop's ``sqrt`` is MKL VML's (``sqrt``), the fused kernel's IEEE. On the
Linux arm64 profiles (measured on emulated Neoverse N1, V1, V2) everything is IEEE and fused per object,
with aarch64's NaNs (see csrc/optim.c).
``Adam``/``AdamW``/``SGD`` keep the per-parameter state of a whole optimizer with parameter groups.
``RUNNERS`` holds the ``adamw_step`` fixture runner (registered via ``rng``).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.profiles import IMPL_TORCH, MKL_AVX512, MKL_SSE42, KernelProfile, get_profile


class _AdamScalars(ctypes.Structure):
    """``adam_scalars_t`` of csrc/optim.c."""

    _fields_ = [(name, ctypes.c_int32) for name in ("decay", "amsgrad", "maximize")] + [
        (name, ctypes.c_float)
        for name in (
            "decay_factor",
            "weight_decay",
            "lerp_weight",
            "beta2",
            "sq_value",
            "bc2_sqrt",
            "eps",
            "neg_step",
        )
    ]


class _SgdScalars(ctypes.Structure):
    """``sgd_scalars_t`` of csrc/optim.c."""

    _fields_ = [(name, ctypes.c_int32) for name in ("decay", "momentum_on", "first", "nesterov", "maximize")] + [
        (name, ctypes.c_float) for name in ("weight_decay", "momentum", "keep", "neg_lr")
    ]


def _lib() -> ctypes.CDLL:
    lib = load("optim")
    if not getattr(lib, "_typed", False):
        p = ctypes.c_void_p
        for name in ("adam_step_forward", "fused_adam_forward"):
            getattr(lib, name).argtypes = [Profile, _AdamScalars, p, p, p, p, p, ctypes.c_int64]
        for name in ("sgd_step_forward", "fused_sgd_forward"):
            getattr(lib, name).argtypes = [Profile, _SgdScalars, p, p, p, ctypes.c_int64]
        lib.sqrt_forward.argtypes = [Profile, p, p, ctypes.c_int64]
        lib.sqrt_f64_forward.argtypes = [Profile, p, p, ctypes.c_int64]
        lib.elementwise_forward.argtypes = [Profile, ctypes.c_int32, p, p, p, ctypes.c_float, p, ctypes.c_int64]
        lib._typed = True
    return lib


def sqrt(x: np.ndarray, profile: KernelProfile | None = None) -> np.ndarray:
    """``torch.sqrt(x)`` for float32 under ``profile`` (default: the fixtures' x86 host, whose MKL
    VML runs its generic HA kernel, an rsqrtps estimate refined without FMA, not correctly rounded:
    about 1 in 5 results differs from IEEE sqrt by 1 ULP). On x86 the bits depend on MKL's code path
    and the CPU's RSQRTPS estimate, not on the ATen capability; IEEE on aarch64. See csrc/optim.c."""
    profile = profile or get_profile("x86-avx2")
    x = f32(x)
    out = np.empty_like(x)
    _lib().sqrt_forward(profile.as_c(), ptr(x), ptr(out), x.size)
    return out


def sqrt_f64(x: np.ndarray, profile: KernelProfile) -> np.ndarray:
    """``torch.sqrt(x)`` (and ``x ** 0.5``) of float64 under ``profile``: on x86 MKL VML's vmdSqrt (VML_HA),
    which MKL picks by CPU: its generic kernel (an AMD CPU; MKL_CBWR=COMPATIBLE too) refines the CPU's RSQRTPS
    of x's top 23 mantissa bits by a degree-4 correction without FMA, not correctly rounded (about 1 in 120
    random doubles an ULP off IEEE sqrt); zeros, subnormals, x from 2^1022, infinities, NaNs and negatives its
    rare path (negatives and -inf give +qNaN 0x7ff8000000000000). Elementwise: no level, thread count or
    layout reaches a bit. MKL's Intel AVX2 path (dSqrt_L9HAynn) the same steps fused, from the CPU's estimate
    too. IEEE on aarch64 (vsqrtq_f64, fsqrt). MKL's Intel SSE4.2 and AVX-512 paths' kernels (dSqrt_H8HAynn,
    Z0HAynn) not read: refused. See csrc/optim.c vml_sqrt_d."""
    if profile.blas in (MKL_SSE42, MKL_AVX512):
        raise ParityError(f"float64 sqrt on MKL's {profile.blas} path: its vdSqrt kernel not read")
    x = np.ascontiguousarray(x, np.float64)
    out = np.empty_like(x)
    _lib().sqrt_f64_forward(profile.as_c(), ptr(x), ptr(out), x.size)
    return out


ELEMENTWISE = ("lerp", "addcmul", "addcdiv", "maximum", "add", "sqrt")
"""The per-tensor kernels of the optimizers' ``_foreach_*`` ops (csrc/optim.c ``elementwise_forward``)."""


def elementwise(
    op: str,
    a: np.ndarray,
    b: np.ndarray | None,
    c: np.ndarray | None,
    weight: float,
    profile: KernelProfile,
) -> np.ndarray:
    """One ATen element-wise kernel on same-shaped contiguous float32 tensors, under TensorIterator's
    cut: ``lerp`` (a.lerp(b, weight)), ``addcmul``/``addcdiv`` (a + weight*b*c, a + weight*b/c),
    ``maximum`` (a, b), ``add`` (a + weight*b, the ``alpha`` form), ``sqrt`` (a)."""
    if op not in ELEMENTWISE:
        raise ValueError(f"unknown element-wise kernel {op!r}")
    if op in ("maximum", "add"):
        measured(profile, f"the {op} kernel")
    a = f32(a)
    operands = [None if x is None else f32(x) for x in (b, c)]
    for x in operands:
        if x is not None and x.shape != a.shape:
            raise ValueError(f"{op}: operand of shape {x.shape}, expected {a.shape}")
    out = np.empty_like(a)
    _lib().elementwise_forward(
        profile.as_c(), ELEMENTWISE.index(op), ptr(a), *(None if x is None else ptr(x) for x in operands),
        weight, ptr(out), a.size,
    )  # fmt: skip
    return out


POINTWISE = ("lerp", "addcmul", "addcdiv")
"""The ATen element-wise kernels ``pointwise`` runs over TensorIterator's runs (csrc/optim.c pointwise_forward)."""


def pointwise(
    op: str,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray | None,
    weight: float,
    profile: KernelProfile,
    row: int | None = None,
) -> np.ndarray:
    """``elementwise``'s ``lerp`` (by a number ``weight``, or by a tensor ``c``), ``addcmul`` and ``addcdiv``
    (``weight`` their value) of float32 operands of one shape in ATen's loop order, ``row`` the length of the
    runs ATen's loop takes one at a time (1: its basic loop, the scalar form on every element; default one
    flat run). x86 only: aarch64's bits are measured over one contiguous run (``elementwise``)."""
    measured(profile, f"the {op} kernel")
    xs = [f32(a), f32(b)] + ([] if c is None else [f32(c)])
    if len({x.shape for x in xs}) > 1:
        raise ValueError(f"{op}: operands of shapes {[x.shape for x in xs]}, expected one shape")
    met = _nans_met(op, xs, weight)
    if met:
        raise ParityError(
            f"{op}: in {met} elements two NaNs of other bits meet (operands', or an operation's default NaN): which "
            "one ATen's objects keep there is not modelled"
        )
    out = np.empty_like(xs[0])
    fn = _lib().pointwise_forward
    fn.restype = None
    n = out.size
    fn(profile.as_c(), ctypes.c_int32(ELEMENTWISE.index(op)), *(ptr(x) for x in xs[:2]),
       None if c is None else ptr(xs[2]), ctypes.c_float(weight), ptr(out), ctypes.c_int64(n),
       ctypes.c_int64(max(1, row or n)))  # fmt: skip
    return out


_DEFAULT_NAN = np.uint32(0xFFC00000)  # x86's NaN of an invalid operation


def _nans_met(op: str, xs: list[np.ndarray], weight: float) -> int:
    """How many elements of ``pointwise``'s op see two NaNs of other bits (quieted) meet: its operands' (a
    number weight or value as one), or the default NaN of an operation none of whose inputs is NaN (lerp's
    end - self, weight * diff; addcmul's and addcdiv's product or quotient)."""
    w = np.float32(weight)
    with np.errstate(all="ignore"):
        if op == "lerp":
            start, end = xs[0], xs[1]
            wt = xs[2] if len(xs) > 2 else np.full_like(start, w)
            diff = end - start
            coeff = np.where(np.abs(wt) < 0.5, wt, wt - np.float32(1))
            made = [
                np.isnan(diff) & ~np.isnan(start) & ~np.isnan(end),
                np.isnan(coeff * diff) & ~np.isnan(diff) & ~np.isnan(coeff),
            ]
            given = [start, end, wt]
        else:
            scaled = w * xs[1]
            inner = scaled * xs[2] if op == "addcmul" else scaled / xs[2]
            made = [np.isnan(inner) & ~np.isnan(scaled) & ~np.isnan(xs[2])]
            given = [xs[0], xs[1], xs[2], np.full_like(xs[0], w)]
    patterns = [np.where(np.isnan(x), x.view(np.uint32) | np.uint32(0x00400000), np.uint32(0)) for x in given]
    patterns += [np.where(m, _DEFAULT_NAN, np.uint32(0)) for m in made]
    met = np.zeros(xs[0].shape, bool)
    for i, a in enumerate(patterns):
        for b in patterns[i + 1 :]:
            met |= (a != 0) & (b != 0) & (a != b)
    return int(np.count_nonzero(met))


PATHS = ("for-loop", "foreach", "fused")
"""torch.optim's implementations: the for-loop (the CPU default: torch 2.13.0 picks foreach only
when every parameter is on CUDA or another foreach device, never on CPU), ``foreach=True`` (on CPU
the slow path of each ``_foreach_*`` op: the same per-tensor kernels, the same bits as the
for-loop) and ``fused=True`` (``_fused_adam_``/``_fused_adamw_``/``_fused_sgd_``, one kernel of its own)."""


@dataclass(frozen=True)
class AdamConfig:
    """The hyperparameters of torch.optim.Adam / AdamW (``decoupled``: AdamW's decay of the weights;
    else Adam's L2 term added to the gradient)."""

    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    decoupled: bool = True
    amsgrad: bool = False
    maximize: bool = False
    path: str = "for-loop"
    lr_is_tensor: bool = False  # fused only: a float32 tensor lr, read as the double of its value

    def __post_init__(self) -> None:
        if self.path not in PATHS:
            raise ValueError(f"path must be one of {', '.join(PATHS)}, not {self.path!r}")
        if self.lr_is_tensor and self.path != "fused":
            raise ValueError(
                "a tensor lr is reproduced for the fused path only (foreach refuses it without capturable, "
                "the for-loop turns the step's scalars into tensor arithmetic)"
            )


def _adam_scalars(cfg: AdamConfig, weight_decay: float, step: float) -> _AdamScalars:
    """The step's Python-double scalars, computed as adam.py (or FusedAdamKernel.cpp, in double) computes
    them; ctypes rounds each to float as ATen does."""
    lr = float(np.float32(cfg.lr)) if cfg.lr_is_tensor else cfg.lr
    beta1, beta2 = cfg.betas
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    # adam.py: bc2 ** 0.5; the fused kernel: std::sqrt(bc2)
    bc2_sqrt = math.sqrt(bias_correction2) if cfg.path == "fused" else bias_correction2**0.5
    decay = 0 if weight_decay == 0 else 1 if cfg.decoupled else 2
    return _AdamScalars(
        decay,
        int(cfg.amsgrad),
        int(cfg.maximize),
        (1 - lr * weight_decay) if decay == 1 else 1.0,
        weight_decay,
        1 - beta1,
        beta2,
        1 - beta2,
        bc2_sqrt,
        cfg.eps,
        -step_size,
    )


def measured(profile: KernelProfile, what: str) -> None:
    """The optimizer variants beyond nanoGPT's AdamW are measured against torch 2.13.0 only (x86:
    default, avx2, avx512; Linux arm64: emulated Neoverse N1, V1, V2); another release is refused, not
    answered with guesses."""
    if profile.torch != IMPL_TORCH:
        raise ParityError(
            f"the impl reproduces {what} for torch {IMPL_TORCH} only, not profile {profile.name} "
            f"(torch {profile.torch})"
        )


def _updated(name: str, a: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    if a is None or a.dtype != np.float32 or not a.flags.c_contiguous:
        raise TypeError(f"{name} must be a C-contiguous float32 array (updated in place)")
    if a.shape != shape:
        raise ValueError(f"{name} has shape {a.shape}, param {shape}")
    return a


def adam_step(
    param: np.ndarray,
    grad: np.ndarray,
    exp_avg: np.ndarray,
    exp_avg_sq: np.ndarray,
    step: int,
    cfg: AdamConfig,
    profile: KernelProfile,
    *,
    weight_decay: float | None = None,
    max_exp_avg_sq: np.ndarray | None = None,
) -> None:
    """One torch.optim.Adam/AdamW step of one float32 parameter, in place (param, exp_avg, exp_avg_sq
    and, under amsgrad, max_exp_avg_sq), by ``cfg.path``. ``step`` is the step count after this step's
    increment (1 for the first step); ``weight_decay`` (the parameter group's) overrides ``cfg``'s.
    ``grad`` is read only."""
    for name, a in (("param", param), ("exp_avg", exp_avg), ("exp_avg_sq", exp_avg_sq)):
        _updated(name, a, param.shape)
    if cfg.amsgrad:
        _updated("max_exp_avg_sq", max_exp_avg_sq, param.shape)
    grad = f32(grad)  # read only (the fused kernels write it only under a grad_scale, not reproduced)
    if grad.shape != param.shape:
        raise ValueError(f"grad has shape {grad.shape}, param {param.shape}")
    wd = cfg.weight_decay if weight_decay is None else weight_decay
    if cfg.path == "fused" or cfg.amsgrad or cfg.maximize or (wd != 0 and not cfg.decoupled):
        measured(profile, "Adam's fused path, amsgrad, maximize and L2 decay")
    x86_threads = cfg.path == "fused" and cfg.maximize and profile.threads > 1 and not profile.aarch64
    if x86_threads and not all(np.isfinite(a).all() for a in (grad, exp_avg, exp_avg_sq)):
        raise ParityError(
            "the impl does not model which NaN x86's fused Adam with maximize keeps on more than one thread "
            "(the kernel's OpenMP copy keeps another in v*beta2 + (c2*g)*g): a non-finite grad or moment"
        )
    s = _adam_scalars(cfg, wd, float(np.float32(step)))
    kernel = _lib().fused_adam_forward if cfg.path == "fused" else _lib().adam_step_forward
    mx = ptr(max_exp_avg_sq) if cfg.amsgrad and max_exp_avg_sq is not None else None
    kernel(profile.as_c(), s, ptr(param), ptr(grad), ptr(exp_avg), ptr(exp_avg_sq), mx, param.size)


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
    """One ``torch.optim.AdamW`` step (defaults: for-loop path, no amsgrad/maximize) of one float32
    parameter, in place; see ``adam_step``."""
    adam_step(param, grad, exp_avg, exp_avg_sq, step, AdamConfig(lr, betas, eps, weight_decay), profile)


def _with_grads(
    groups: list[tuple[list[np.ndarray], float]],
    grads: Sequence[np.ndarray | None],
    profile: KernelProfile | None,
    name: str,
) -> Iterator[tuple[int, np.ndarray, np.ndarray, float]]:
    """(index, param, grad, the group's weight decay) of each parameter with a gradient, in the
    groups' order (torch skips a parameter whose ``.grad`` is None)."""
    if profile is None:
        raise ValueError(f"{name} needs a KernelProfile")
    params = [(q, wd) for group, wd in groups for q in group]
    if len(grads) != len(params):
        raise ValueError(f"{len(grads)} gradients for {len(params)} parameters")
    for i, ((q, wd), g) in enumerate(zip(params, grads, strict=True)):
        if g is not None:
            yield i, q, g, wd


@dataclass
class AdamWState:
    step: int = 0
    exp_avg: np.ndarray | None = None
    exp_avg_sq: np.ndarray | None = None
    max_exp_avg_sq: np.ndarray | None = None


@dataclass
class Adam:
    """``torch.optim.Adam``/``AdamW`` on CPU over float32 parameters updated in place.

    ``groups`` is a list of ``(params, weight_decay)``. ``step(grads)`` takes one gradient per
    parameter, in the groups' order (None: skipped, as torch skips a parameter whose ``.grad`` is None).
    """

    groups: list[tuple[list[np.ndarray], float]]
    config: AdamConfig = AdamConfig()
    profile: KernelProfile | None = None
    state: dict[int, AdamWState] = field(default_factory=dict)

    def params(self) -> list[np.ndarray]:
        return [q for params, _ in self.groups for q in params]

    def step(self, grads: Sequence[np.ndarray | None]) -> None:
        for i, q, g, wd in _with_grads(self.groups, grads, self.profile, type(self).__name__):
            mx = np.zeros_like(q) if self.config.amsgrad else None
            st = self.state.setdefault(i, AdamWState(0, np.zeros_like(q), np.zeros_like(q), mx))
            st.step += 1
            assert st.exp_avg is not None and st.exp_avg_sq is not None
            adam_step(
                q,
                g,
                st.exp_avg,
                st.exp_avg_sq,
                st.step,
                self.config,
                self.profile,
                weight_decay=wd,
                max_exp_avg_sq=st.max_exp_avg_sq,
            )


@dataclass
class AdamW(Adam):
    """``torch.optim.AdamW(groups, lr, betas, eps)`` on CPU with defaults (for-loop path, no
    amsgrad/maximize): nanoGPT's optimizer, its ``lr`` set before each step by the schedule."""

    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8

    def step(self, grads: Sequence[np.ndarray | None]) -> None:
        # lr, betas and eps may be changed between steps (a learning-rate schedule), as a param group's
        self.config = AdamConfig(self.lr, self.betas, self.eps)
        super().step(grads)


@dataclass(frozen=True)
class SgdConfig:
    """The hyperparameters of torch.optim.SGD."""

    lr: float = 1e-3
    momentum: float = 0.0
    dampening: float = 0.0
    weight_decay: float = 0.0
    nesterov: bool = False
    maximize: bool = False
    path: str = "for-loop"

    def __post_init__(self) -> None:
        if self.path not in PATHS:
            raise ValueError(f"path must be one of {', '.join(PATHS)}, not {self.path!r}")


def sgd_step(
    param: np.ndarray,
    grad: np.ndarray,
    momentum_buf: np.ndarray | None,
    first: bool,
    cfg: SgdConfig,
    profile: KernelProfile,
    *,
    weight_decay: float | None = None,
) -> None:
    """One torch.optim.SGD step of one float32 parameter, in place (param and, with momentum,
    momentum_buf, which ``first`` fills with the step's gradient as torch creates the buffer)."""
    measured(profile, "SGD")
    _updated("param", param, param.shape)
    if cfg.momentum != 0:
        _updated("momentum_buf", momentum_buf, param.shape)
    grad = f32(grad)
    if grad.shape != param.shape:
        raise ValueError(f"grad has shape {grad.shape}, param {param.shape}")
    wd = cfg.weight_decay if weight_decay is None else weight_decay
    s = _SgdScalars(
        int(wd != 0), int(cfg.momentum != 0), int(first), int(cfg.nesterov), int(cfg.maximize),
        wd, cfg.momentum, 1 - cfg.dampening, -cfg.lr,
    )  # fmt: skip
    kernel = _lib().fused_sgd_forward if cfg.path == "fused" else _lib().sgd_step_forward
    buf = ptr(momentum_buf) if cfg.momentum != 0 and momentum_buf is not None else None
    kernel(profile.as_c(), s, ptr(param), ptr(grad), buf, param.size)


@dataclass
class SGD:
    """``torch.optim.SGD`` on CPU over float32 parameters updated in place; ``groups`` and ``step``
    as ``Adam``'s."""

    groups: list[tuple[list[np.ndarray], float]]
    config: SgdConfig = SgdConfig()
    profile: KernelProfile | None = None
    momentum_buffers: dict[int, np.ndarray] = field(default_factory=dict)

    def params(self) -> list[np.ndarray]:
        return [q for params, _ in self.groups for q in params]

    def step(self, grads: Sequence[np.ndarray | None]) -> None:
        for i, q, g, wd in _with_grads(self.groups, grads, self.profile, "SGD"):
            first = i not in self.momentum_buffers
            buf = self.momentum_buffers.setdefault(i, np.zeros_like(q)) if self.config.momentum != 0 else None
            sgd_step(q, g, buf, first, self.config, self.profile, weight_decay=wd)


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
