"""torch's CPU random numbers without torch: the mt19937 generator and its samplers (csrc/rng.c).

``CPUGenerator`` holds the state of ``at::CPUGeneratorImpl`` (seeded as ``torch.manual_seed`` seeds
it); every sampler (``normal_``/``randn``, ``uniform_``, ``randint``, ``bernoulli_mask``,
``dropout``) draws from it in torch's order, so a sequence of calls on one generator reproduces
the same sequence of torch calls after ``torch.manual_seed``. Float results are bit-identical to
torch 2.13.0 on x86 and Linux arm64 under a ``KernelProfile``: ``normal_``/``uniform_`` differ
between the default (scalar) and AVX2 kernels, AVX-512 CPUs run the AVX2 kernels, aarch64 runs the
scalar fill with fused multiply-adds; the draws are serial, so the thread count changes nothing.

``RUNNERS`` maps the op ids ``randn``, ``dropout`` and ``adamw_step`` (from ``optim``) to fixture runners.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from harness.impl._lib import Profile, f32, load, ptr
from harness.impl.profiles import KernelProfile

_I64 = ctypes.c_int64
_P = ctypes.c_void_p
_D = ctypes.c_double


class _GenState(ctypes.Structure):
    """``gen_t`` of csrc/rng.c: at::mt19937's words, position and seed, plus the normal caches."""

    _fields_ = [
        ("state", ctypes.c_uint32 * 624),
        ("left", ctypes.c_int32),
        ("next", ctypes.c_uint32),
        ("seed", ctypes.c_uint64),
        ("next_double_normal", ctypes.c_double),
        ("has_next_double_normal", ctypes.c_int32),
        ("next_float_normal", ctypes.c_float),
        ("has_next_float_normal", ctypes.c_int32),
    ]


def _lib() -> ctypes.CDLL:
    lib = load("rng")
    if not getattr(lib, "_typed", False):
        gen = ctypes.POINTER(_GenState)
        lib.gen_seed.argtypes = [gen, ctypes.c_uint64]
        lib.gen_random.argtypes = [gen]
        lib.gen_random.restype = ctypes.c_uint32
        lib.gen_random64.argtypes = [gen]
        lib.gen_random64.restype = ctypes.c_uint64
        lib.normal_forward.argtypes = [Profile, gen, _P, _I64, _D, _D]
        lib.normal_serial_forward.argtypes = [Profile, gen, _P, _I64, _D, _D]
        lib.uniform_forward.argtypes = [Profile, gen, _P, _I64, _D, _D]
        lib.exponential_forward.argtypes = [gen, _P, _I64, _D]
        lib.randint_forward.argtypes = [gen, _P, _I64, _I64, ctypes.c_uint64]
        lib.bernoulli_forward.argtypes = [gen, _P, _I64, _D]
        lib.dropout_forward.argtypes = [gen, _P, _P, _P, _I64, _D]
        lib.dropout_backward.argtypes = [_P, _P, _P, _I64]
        lib._typed = True
    return lib


@cache
def _profile_c(profile: KernelProfile) -> Profile:
    """``profile.as_c()``, built once per profile (it is passed on every draw)."""
    return profile.as_c()


class CPUGenerator:
    """The state of torch's CPU generator (``at::CPUGeneratorImpl``: mt19937 + normal cache).

    ``CPUGenerator(s)`` is the default generator right after ``torch.manual_seed(s)``.
    """

    def __init__(self, seed: int = 67280421310721) -> None:
        self._state = _GenState()
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> CPUGenerator:
        """``torch.manual_seed(seed)``: re-seed the engine (low 32 bits) and drop the cached normal."""
        _lib().gen_seed(ctypes.byref(self._state), seed & 0xFFFFFFFFFFFFFFFF)
        return self

    def initial_seed(self) -> int:
        return int(self._state.seed)

    def random(self) -> int:
        """``CPUGeneratorImpl::random()``: the next 32-bit word."""
        return int(_lib().gen_random(ctypes.byref(self._state)))

    def random64(self) -> int:
        """``CPUGeneratorImpl::random64()``: two words, the first as the high half."""
        return int(_lib().gen_random64(ctypes.byref(self._state)))

    @property
    def next_double_normal_sample(self) -> float | None:
        """The cached second sample of the scalar (double) Box-Muller sampler, if any."""
        return float(self._state.next_double_normal) if self._state.has_next_double_normal else None

    def clone(self) -> CPUGenerator:
        other = CPUGenerator.__new__(CPUGenerator)
        other._state = _GenState.from_buffer_copy(self._state)
        return other

    @property
    def _ref(self) -> Any:
        return ctypes.byref(self._state)


def normal_(gen: CPUGenerator, n: int, mean: float, std: float, profile: KernelProfile) -> np.ndarray:
    """``torch.empty(n).normal_(mean, std)`` (contiguous float32), drawn from ``gen``.

    ``mean``/``std`` are Python floats as torch receives them (cast to float for n >= 16).
    Any shape: reshape the result; only the element count matters.
    """
    out = np.empty(n, np.float32)
    _lib().normal_forward(_profile_c(profile), gen._ref, ptr(out), n, mean, std)
    return out


def normal_serial(gen: CPUGenerator, n: int, mean: float, std: float, profile: KernelProfile) -> np.ndarray:
    """``normal_(mean, std)`` of a float32 tensor that is not contiguous (``randn_like`` of a transposed one):
    normal_kernel's serial branch, one ``normal_distribution<double>`` sample per element, in TensorIterator's
    order (memory order, for a dense layout)."""
    out = np.empty(n, np.float32)
    _lib().normal_serial_forward(_profile_c(profile), gen._ref, ptr(out), n, mean, std)
    return out


def randn(gen: CPUGenerator, n: int, profile: KernelProfile) -> np.ndarray:
    """``torch.randn(n)``: ``normal_(gen, n, 0.0, 1.0, profile)``."""
    return normal_(gen, n, 0.0, 1.0, profile)


def uniform_(gen: CPUGenerator, n: int, low: float, high: float, profile: KernelProfile) -> np.ndarray:
    """``torch.empty(n).uniform_(low, high)`` (float32), drawn from ``gen``: one 32-bit word per element.

    Also what ``nn.init.kaiming_uniform_``/``nn.Linear``'s default init draw (``uniform_(-bound, bound)``).
    """
    out = np.empty(n, np.float32)
    _lib().uniform_forward(_profile_c(profile), gen._ref, ptr(out), n, low, high)
    return out


def exponential_(gen: CPUGenerator, n: int, lambd: float) -> np.ndarray:
    """``torch.empty(n).exponential_(lambd)`` (contiguous float32), drawn from ``gen``: DistributionTemplates.h's
    default kernel, serial, one ``random64()`` per element (csrc/rng.c exponential_forward: ``-1 / lambd *
    log1p(-u)`` in double of the 53-bit uniform, rounded to float). Measured on a Zen 5 (MKL's VSL path not
    taken there): the same bits at default, avx2 and avx512 on 1, 2 and 4 threads."""
    out = np.empty(n, np.float32)
    _lib().exponential_forward(gen._ref, ptr(out), n, lambd)
    return out


def randint(gen: CPUGenerator, low: int, high: int, n: int) -> np.ndarray:
    """``torch.randint(low, high, (n,))`` (int64), drawn from ``gen``: ``word % (high - low) + low``,
    one 32-bit word per element (a 64-bit one when ``high - low >= 2**32``)."""
    if high <= low:
        raise ValueError(f"randint: empty range [{low}, {high})")
    out = np.empty(n, np.int64)
    _lib().randint_forward(gen._ref, ptr(out), n, low, high - low)
    return out


def bernoulli_mask(gen: CPUGenerator, shape: tuple[int, ...], p: float) -> np.ndarray:
    """``torch.empty(shape).bernoulli_(p)`` (float32 0/1, contiguous): one random64 per element, 1 where u < p."""
    out = np.empty(shape, np.float32)
    _lib().bernoulli_forward(gen._ref, ptr(out), out.size, p)
    return out


def dropout(x: np.ndarray, p: float, gen: CPUGenerator, profile: KernelProfile) -> tuple[np.ndarray, np.ndarray]:
    """``F.dropout(x, p, training=True)`` on CPU; returns ``(out, noise)``.

    ``noise`` is torch's scaled mask (0 or ``1/(1-p)`` as float32), what the backward multiplies by.
    p == 0 draws nothing and returns x; p == 1 draws nothing and returns ``x * 0``.
    The profile is accepted for a uniform signature: the draws are serial and the arithmetic is
    one correctly rounded division and product per element on every profile.
    """
    del profile
    x = f32(x)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0.0 or x.size == 0:
        return x.copy(), np.ones_like(x)
    if p == 1.0:
        return x * np.float32(0.0), np.zeros_like(x)
    out = np.empty_like(x)
    noise = np.empty_like(x)
    _lib().dropout_forward(gen._ref, ptr(x), ptr(out), ptr(noise), x.size, p)
    return out, noise


def dropout_backward(grad_out: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Gradient of ``dropout`` for ``grad_out``: ``grad_out * noise``."""
    grad_out, noise = f32(grad_out), f32(noise)
    dx = np.empty_like(grad_out)
    _lib().dropout_backward(ptr(grad_out), ptr(noise), ptr(dx), grad_out.size)
    return dx


# ----------------------------------------------------------------------------- fixture runners


def _run_randn(params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile) -> dict:
    gen = CPUGenerator(int(params["torch_seed"]))
    return {"out": randn(gen, int(params["n"]), profile)}


def _run_dropout(params: Mapping[str, Any], inputs: Mapping[str, np.ndarray], profile: KernelProfile) -> dict:
    gen = CPUGenerator(int(params["torch_seed"]))
    out, noise = dropout(inputs["x"], float(params["p"]), gen, profile)
    return {"out": out, "grad_x": dropout_backward(inputs["grad_out"], noise)}


def _runners() -> dict:
    from harness.impl.optim import RUNNERS as OPTIM_RUNNERS

    return {"randn": _run_randn, "dropout": _run_dropout, **OPTIM_RUNNERS}


RUNNERS = _runners()
