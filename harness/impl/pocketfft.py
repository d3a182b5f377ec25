"""ATen's CPU FFT on the Linux arm64 wheel (``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``: pocketfft, the wheel has no
MKL), as its GCC build runs pocketfft's complex and real plans (csrc/pocketfft.c says the order of operations).
Torch-free.

Shape legend: x any shape, the transformed dims ``dim`` (ascending, distinct); complex tensors as complex64 or
complex128, or float32 / float64 arrays with a trailing (re, im) pair as a trace captures them. ATen hands
pocketfft::c2c the tensor with its strides and the dims; pocketfft runs one 1-D pass per dim in the order
given (the first with ATen's factor, 1/N or 1/sqrt(N) of the product of the lengths in the transform's
precision, the others with 1), each over rows copied in and out (several rows at once in NEON lanes, the rest
one by one: the same arithmetic per row), on one thread (ATen passes no thread count): neither the strides nor
the thread count move its bits.
The twiddles are aarch64 glibc's double ``sincos`` of the octant-reduced angles (the impl's own port,
csrc/dmath.h ``glibc_sincos_a64``: no host C library is called, so any host gives the same bits).

``_fft_r2c`` (onesided, float32): pocketfft::r2c runs the real plan over the last dim (with the factor), then the
complex forward transform over the other dims (factor 1); ``_fft_c2r``: the complex backward transform over all dims but
the last (factor 1), then the real backward plan over the last (with the factor, 1/N of the output's lengths).
The real plan (rfftp: radf2, 3, 4, 5 forward, radb2, 3, 4, 5 backward) reads and writes FFTPACK's halfcomplex order;
the imaginary parts of bin 0 and (N even) bin N/2 are +0 out of r2c and not read by c2r.

Modelled: complex transforms of lengths whose factors are 2, 3 and 5 (cfftp's pass8, pass4, pass2, pass3 and
pass5), float32 and float64; real ones of float32 lengths whose factors are 2, 3 and 5 (rfftp's radf/radb 2, 3,
4 and 5; the other dims' complex passes as above); both directions, the three norm modes, any number of dims.
Refused in one line: a length with another prime factor (pass7, pass11, the generic passes, Bluestein), a real
transform of float64, c2r rows through the scalar copy (a row count off the 4 lanes) of a plan whose radb3 or
radb5 runs over more than 9 values (GCC vectorised that inner loop: not read), a NaN or an infinity read (which
NaN the sums keep is not modelled) and a result that overflows.
"""

from __future__ import annotations

import ctypes
from fractions import Fraction
from functools import lru_cache

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import load, ptr

NONE, BY_ROOT_N, BY_N = 0, 1, 2  # ATen's fft_norm_mode

# pi as aarch64's long double (IEEE binary128) holds it: the 113-bit significand and its scale
_PI_QUAD = Fraction(0x1921FB54442D18469898CC51701B8, 1 << 111)


@lru_cache(maxsize=256)
def angle(n: int) -> float:
    """sincos_2pibyn's ``ang``: 0.25 * pi / n in binary128 (ties to even at 113 bits), then rounded to double."""
    q = _PI_QUAD / (4 * n)
    shift = 112 - (q.numerator.bit_length() - q.denominator.bit_length())
    scaled = q * Fraction(2) ** shift  # in [2^111, 2^113): one bit to spare below the 113-bit significand
    if scaled >= 1 << 113:
        scaled, shift = scaled / 2, shift - 1
    elif scaled < 1 << 112:
        scaled, shift = scaled * 2, shift + 1
    whole, part = divmod(scaled, 1)
    if part > Fraction(1, 2) or (part == Fraction(1, 2) and whole % 2):
        whole += 1
    return float(Fraction(int(whole)) / Fraction(2) ** shift)  # float() of a Fraction rounds to nearest, even


def modelled_length(n: int) -> bool:
    """Whether pocketfft's complex plan for ``n`` runs only the passes modelled (factors 2, 3 and 5)."""
    if n < 1:
        return False
    for p in (2, 3, 5):
        while n % p == 0:
            n //= p
    return n == 1


def cfftp_factors(n: int) -> list[int]:
    """cfftp's factors of n in the order its passes run: 8s, then 4s, one 2 swapped with the first, then odd ones."""
    out, left = [], n
    while left % 8 == 0:
        out, left = [*out, 8], left // 8
    while left % 4 == 0:
        out, left = [*out, 4], left // 4
    if left % 2 == 0:
        out, left = [2, *out[1:], out[0]] if out else [2], left // 2
    d = 3
    while d * d <= left:
        while left % d == 0:
            out, left = [*out, d], left // d
        d += 2
    return [*out, left] if left > 1 else out


def _scalar_double_pass8(n: int, count: int, real: type) -> bool:
    """Whether float64 rows go through the scalar copy (an odd row count leaves one) of a plan whose pass8 runs
    after its pass2 with twiddles (l1 = 2, ido > 1): measured other there (fft of 48 backward, 128 forward)."""
    factors = cfftp_factors(n)
    return real is np.float64 and count % 2 == 1 and factors[:1] == [2] and 8 in factors and n > 16


def _lane_rows(count: int, real: type) -> int:
    """How many of ``count`` rows pocketfft runs in NEON lanes (4 float32 rows at once, 2 float64): the whole
    groups, first; the rest one by one through the scalar instantiation, which GCC contracted otherwise."""
    lanes = 4 if real is np.float32 else 2
    return count // lanes * lanes


def _rfftp_factors(n: int) -> list[int]:
    """rfftp's factors of ``n`` in plan order: 4 while n % 4 == 0, one 2 (moved to the front), odd divisors."""
    out: list[int] = []
    while n % 4 == 0:
        out.append(4)
        n //= 4
    if n % 2 == 0:
        n //= 2
        out.append(2)
        out[0], out[-1] = out[-1], out[0]
    d = 3
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 2
    return out + ([n] if n > 1 else [])


def _scalar_radb_modelled(n: int) -> None:
    """Refuse c2r rows through the scalar copy of a plan whose radb3 or radb5 runs more than 4 inner steps (ido
    over 9): GCC vectorised those inner loops there, not read (c2r of 45, 125, 250, 300, 375, 600, 625, 750 and
    1,000 measured other in their scalar rows; ido 1 to 5 exact)."""
    l1 = 1
    for f in _rfftp_factors(n):
        ido = n // (l1 * f)
        if f in (3, 5) and ido > 9:
            raise ParityError(
                f"FFT c2r of length {n} on arm64 over a row count off the 4 lanes: pocketfft's scalar radb{f} "
                f"over {ido} values (GCC's vectorised inner loop) is not modelled"
            )
        l1 *= f


def _pairs(x: np.ndarray) -> np.ndarray:
    """A complex operand as (..., 2) pairs of its precision (complex64 -> float32, complex128 -> float64)."""
    if x.dtype in (np.complex64, np.complex128):
        real = np.float32 if x.dtype == np.complex64 else np.float64
        return np.ascontiguousarray(x).view(real).reshape(*x.shape, 2)
    if x.dtype not in (np.float32, np.float64) or x.ndim < 1 or x.shape[-1] != 2:
        raise ParityError(f"FFT: the input must be complex, or float (re, im) pairs, not {x.dtype} {x.shape}")
    return x


def factor(normalization: int, n: int, real: type) -> float:
    """ATen's compute_fct in the transform's precision: 1, 1/N or 1/sqrt(N) (N the product of the lengths)."""
    one = real(1)
    if normalization == NONE:
        return float(one)
    if normalization == BY_N:
        return float(one / real(n))
    if normalization == BY_ROOT_N:
        return float(one / np.sqrt(real(n)))
    raise ParityError(f"FFT with normalization {normalization}: ATen's modes are 0, 1 and 2")


def _dims(dim: list[int], ndim: int) -> list[int]:
    """The transformed dims, wrapped and checked (distinct)."""
    if any(not -ndim <= int(d) < ndim for d in dim):
        raise ParityError(f"FFT: dims {list(dim)} out of range for {ndim} dims")
    dims = [int(d) % ndim for d in dim]
    if len(set(dims)) != len(dims):
        raise ParityError(f"FFT over dims {list(dim)}: a dim given twice")
    return dims


def _real_modelled(kind: str, real: type) -> None:
    """Refuse what the real plan does not reproduce: float64 (its scalar and lane copies' contraction not pinned
    down: 18 of 39 r2c and 18 of 45 c2r measured cases other)."""
    if real is not np.float32:
        raise ParityError(f"FFT {kind} of float64 on arm64: pocketfft's real plan in double is not modelled")


def _check(kind: str, lengths: list[int], read: np.ndarray) -> None:
    """Refuse a length with a factor other than 2, 3 and 5 and a NaN or an infinity among the values read."""
    for n in lengths:
        if not modelled_length(n):
            raise ParityError(
                f"FFT {kind} of length {n} on arm64: pocketfft's passes for factors other than 2, 3 and 5 "
                "(pass7, pass11, the generic passes, Bluestein) are not modelled"
            )
    if not np.isfinite(read).all():
        raise ParityError(
            f"FFT {kind} of a NaN or an infinity on arm64: which NaN pocketfft's sums give is not modelled"
        )


def _finite(kind: str, y: np.ndarray) -> np.ndarray:
    if not np.isfinite(y).all():
        raise ParityError(f"FFT {kind} on arm64 to an infinity or a NaN: pocketfft's overflow is not modelled")
    return np.ascontiguousarray(y)


def c2c(x: np.ndarray, dim: list[int], normalization: int, forward: bool) -> np.ndarray:
    """``_fft_c2c`` of x over ``dim`` as the arm64 wheel's pocketfft gives it; (..., 2) pairs of x's precision."""
    data = _pairs(x)
    dims = _dims(dim, data.ndim - 1)
    _check("c2c", [data.shape[d] for d in dims], data)
    real = np.float32 if data.dtype == np.float32 else np.float64
    fct = factor(normalization, int(np.prod([data.shape[d] for d in dims])), real)
    return _finite("c2c", _c2c_passes(data, dims, fct, forward))


def _c2c_passes(data: np.ndarray, dims: list[int], fct: float, forward: bool) -> np.ndarray:
    """pocketfft's complex passes over ``dims`` in order, the first with ``fct``, of (..., 2) pairs."""
    ndim = data.ndim - 1
    real = np.float32 if data.dtype == np.float32 else np.float64
    fn = load("pocketfft").pocketfft_c2c_f if real is np.float32 else load("pocketfft").pocketfft_c2c_d
    fn.restype = ctypes.c_int
    scalar = ctypes.c_float if real is np.float32 else ctypes.c_double
    y = np.array(data, dtype=real)
    for i, d in enumerate(dims):
        rows = np.ascontiguousarray(np.moveaxis(y, d, ndim - 1))
        n = rows.shape[ndim - 1]
        count = rows.size // (2 * n) if rows.size else 0
        if _scalar_double_pass8(n, count, real):
            raise ParityError(
                f"FFT c2c of length {n} in float64 on arm64 over an odd row count: pocketfft's scalar pass8 after "
                "pass2 is not modelled"
            )
        if count:
            rc = fn(ctypes.c_int64(n), ctypes.c_int64(count), ptr(rows), ctypes.c_int(1 if forward else 0),
                    scalar(fct if i == 0 else 1.0), ctypes.c_int64(_lane_rows(count, real)),
                    ctypes.c_double(angle(n)))  # fmt: skip
            if rc != 0:
                raise ParityError(f"FFT c2c of length {n} on arm64: pocketfft's plan for it is not modelled")
        y = np.moveaxis(rows, ndim - 1, d)
    return y


def _real_pass(data: np.ndarray, d: int, n: int, fct: float, r2c: bool) -> np.ndarray:
    """rfftp over dim d: r2c of reals (length n) to n/2+1 (re, im) pairs, or c2r of n/2+1 pairs to n reals."""
    real = np.float32 if data.dtype == np.float32 else np.float64
    ndim = data.ndim if r2c else data.ndim - 1
    rows = np.ascontiguousarray(np.moveaxis(data, d, ndim - 1))
    batch = rows.shape[: ndim - 1]
    out = np.zeros((*batch, n // 2 + 1, 2) if r2c else (*batch, n), real)
    count = int(np.prod(batch)) if batch else 1
    if not r2c and _lane_rows(count, real) < count:
        _scalar_radb_modelled(n)
    if count and n:
        lib = load("pocketfft")
        fn = lib.pocketfft_real_f if real is np.float32 else lib.pocketfft_real_d
        fn.restype = ctypes.c_int
        scalar = ctypes.c_float if real is np.float32 else ctypes.c_double
        rc = fn(ctypes.c_int64(n), ctypes.c_int64(count), ptr(rows), ptr(out), ctypes.c_int(int(r2c)), scalar(fct),
                ctypes.c_int64(_lane_rows(count, real)), ctypes.c_double(angle(n)))  # fmt: skip
        if rc != 0:
            raise ParityError(f"FFT of length {n} on arm64: pocketfft's real plan for it is not modelled")
    return np.moveaxis(out, ndim - 1, d)


def r2c(x: np.ndarray, dim: list[int], normalization: int) -> np.ndarray:
    """``_fft_r2c`` (onesided) of real x over ``dim``: the real plan over the last dim, then the complex passes."""
    if x.dtype not in (np.float32, np.float64):
        raise ParityError(f"FFT r2c takes float32 or float64, not {x.dtype}")
    dims = _dims(dim, x.ndim)
    lengths = [x.shape[d] for d in dims]
    _check("r2c", lengths, x)
    _real_modelled("r2c", x.dtype.type)
    fct = factor(normalization, int(np.prod(lengths)), x.dtype.type)
    y = _real_pass(x, dims[-1], x.shape[dims[-1]], fct, True)
    if len(dims) > 1:
        y = _c2c_passes(y, dims[:-1], 1.0, True)
    return _finite("r2c", y)


def c2r(x: np.ndarray, dim: list[int], normalization: int, last_dim_size: int) -> np.ndarray:
    """``_fft_c2r`` of x over ``dim`` to ``last_dim_size`` reals along the last: the complex backward passes over
    the others, then the real backward plan (with the factor) over the last."""
    data = _pairs(x)
    dims = _dims(dim, data.ndim - 1)
    n = int(last_dim_size)
    if data.shape[dims[-1]] != n // 2 + 1:
        raise ParityError(f"FFT c2r of length {n} from {data.shape[dims[-1]]} bins: the impl takes exactly N/2+1")
    lengths = [data.shape[d] for d in dims[:-1]] + [n]
    _check("c2r", lengths, np.zeros(0))
    _real_modelled("c2r", data.dtype.type)
    bins = np.moveaxis(data, dims[-1], 0)
    unread = [0] + ([n // 2] if n % 2 == 0 else [])  # the imaginary parts rfftp's input copy leaves unread
    read_im = np.delete(bins, unread, axis=0)[..., 1]
    real = np.float32 if data.dtype == np.float32 else np.float64
    if len(dims) > 1:  # the complex passes read every value
        _check("c2r", lengths, data)
        data = _c2c_passes(data, dims[:-1], 1.0, False)
        if not np.isfinite(data).all():
            raise ParityError("FFT c2r on arm64 to an infinity or a NaN in its complex passes: not modelled")
    else:
        _check("c2r", lengths, np.concatenate([bins[..., 0].ravel(), read_im.ravel()]))
    fct = factor(normalization, int(np.prod(lengths)), real)
    return _finite("c2r", _real_pass(data, dims[-1], n, fct, False))
