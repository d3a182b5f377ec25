"""``torch.nn.init``'s initialisers without torch: torch 2.13.0's bounds, draws and order, bit for bit.

Each function returns a new float32 array of ``shape`` (C-contiguous, as a fresh parameter is)
holding what ``torch.nn.init.<name>(torch.empty(shape), ...)`` writes after the draws before it on
the same generator: the bounds are computed in Python doubles exactly as torch/nn/init.py computes
them, then drawn through harness.impl.rng (``uniform_``, ``normal_``), which reproduces each ATen
kernel per profile. ``trunc_normal_`` follows 2.13's rejection sampling (no erfinv): normal draws
redrawn where they fall outside ``[a, b]`` when that interval holds more than 0.3 of the mass,
otherwise uniform candidates on ``[a, b]`` accepted against the normal density with ``log`` of a
second uniform (MKL VML's ``vsLn`` on x86, harness.impl.unary).
"""

from __future__ import annotations

import math

import numpy as np

from harness.impl import rng
from harness.impl.profiles import KernelProfile
from harness.impl.unary import forward as unary_forward

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """``torch.nn.init.calculate_gain``."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, bool) or not isinstance(param, int | float):
            raise ValueError(f"negative_slope {param} not a valid number")
        else:
            slope = param
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of ``shape``: dims 1 and 0 times the receptive field (dims 2...)."""
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    field = math.prod(shape[2:])
    return shape[1] * field, shape[0] * field


def uniform_(
    gen: rng.CPUGenerator, shape: tuple[int, ...], profile: KernelProfile, *, a: float = 0.0, b: float = 1.0
) -> np.ndarray:
    """``nn.init.uniform_(t, a, b)``."""
    return rng.uniform_(gen, math.prod(shape), a, b, profile).reshape(shape)


def normal_(
    gen: rng.CPUGenerator, shape: tuple[int, ...], profile: KernelProfile, *, mean: float = 0.0, std: float = 1.0
) -> np.ndarray:
    """``nn.init.normal_(t, mean, std)``."""
    return rng.normal_(gen, math.prod(shape), mean, std, profile).reshape(shape)


def xavier_uniform_(
    gen: rng.CPUGenerator, shape: tuple[int, ...], profile: KernelProfile, *, gain: float = 1.0
) -> np.ndarray:
    """``nn.init.xavier_uniform_``: ``uniform_(-a, a)``, ``a = sqrt(3) * gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = fans(shape)
    bound = math.sqrt(3.0) * (gain * math.sqrt(2.0 / float(fan_in + fan_out)))
    return uniform_(gen, shape, profile, a=-bound, b=bound)


def xavier_normal_(
    gen: rng.CPUGenerator, shape: tuple[int, ...], profile: KernelProfile, *, gain: float = 1.0
) -> np.ndarray:
    """``nn.init.xavier_normal_``: ``normal_(0, gain * sqrt(2 / (fan_in + fan_out)))``."""
    fan_in, fan_out = fans(shape)
    return normal_(gen, shape, profile, std=gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(shape: tuple[int, ...], a: float, mode: str, nonlinearity: str) -> float:
    if mode.lower() not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = fans(shape)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan_in if mode.lower() == "fan_in" else fan_out)


def kaiming_uniform_(
    gen: rng.CPUGenerator,
    shape: tuple[int, ...],
    profile: KernelProfile,
    *,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
) -> np.ndarray:
    """``nn.init.kaiming_uniform_`` (``nn.Linear``'s and ``nn.Conv*``'s weights: ``a = sqrt(5)``);
    a zero-element shape draws nothing."""
    if 0 in shape:
        return np.empty(shape, np.float32)
    bound = math.sqrt(3.0) * _kaiming_std(shape, a, mode, nonlinearity)
    return uniform_(gen, shape, profile, a=-bound, b=bound)


def kaiming_normal_(
    gen: rng.CPUGenerator,
    shape: tuple[int, ...],
    profile: KernelProfile,
    *,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
) -> np.ndarray:
    """``nn.init.kaiming_normal_``; a zero-element shape draws nothing."""
    if 0 in shape:
        return np.empty(shape, np.float32)
    return normal_(gen, shape, profile, std=_kaiming_std(shape, a, mode, nonlinearity))


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(
    gen: rng.CPUGenerator,
    shape: tuple[int, ...],
    profile: KernelProfile,
    *,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
) -> np.ndarray:
    """``nn.init.trunc_normal_`` of torch 2.13 (rejection sampling; every draw over the whole tensor).

    Mass ``p = cdf(b) - cdf(a)`` above 0.3: ``normal_(mean, std)``, then while any element lies outside
    ``[float32(a), float32(b)]``, a fresh ``normal_`` over the whole tensor replaces those elements.
    Otherwise: ``uniform_(a, b)`` candidates ``c``; ``pending = log(uniform_(0, 1)) > ((c - mean) / std)^2
    * -0.5 - log_peak`` (float32, one rounding per operation); while any is pending, new candidates
    replace the pending elements and a new test (drawn for every element) replaces their verdicts.
    """
    n = math.prod(shape)
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        lo, hi = np.float32(a), np.float32(b)
        result = rng.normal_(gen, n, mean, std, profile)
        while True:
            outside = (result < lo) | (result > hi)
            if not outside.any():
                return result.reshape(shape)
            result = np.where(outside, rng.normal_(gen, n, mean, std, profile), result)
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_density(c: np.ndarray) -> np.ndarray:
        z = (c - np.float32(mean)) / np.float32(std)
        return (z * z) * np.float32(-0.5) - np.float32(log_peak)

    def accept_test(c: np.ndarray) -> np.ndarray:
        return unary_forward("log", rng.uniform_(gen, n, 0.0, 1.0, profile), profile) > log_density(c)

    result = rng.uniform_(gen, n, a, b, profile)
    pending = accept_test(result)
    while pending.any():
        candidates = rng.uniform_(gen, n, a, b, profile)
        result = np.where(pending, candidates, result)
        pending = np.where(pending, accept_test(candidates), pending)
    return result.reshape(shape)
