"""ATen's CPU FFT on the x86 wheel (``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``: MKL DFTI) for the lengths
measured bit for bit, as DFTI runs them on its generic code path (an AMD CPU). Torch-free. The arm64 wheel
has no MKL: its pocketfft transforms are harness/impl/pocketfft.py's (``fft`` hands an arm64 profile there).

Shape legend: x any shape, one transformed dim ``dim`` of length N; complex tensors are float32 arrays
with a trailing (re, im) pair, as a trace captures them. ATen hands DFTI the other dims collapsed into
B = numel / N contiguous rows (one descriptor, B transforms), so this module moves ``dim`` last, runs
the rows through csrc/fft.c (which says each kernel's order of operations) and moves it back.

Modelled: N = 8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 144, 168, 192, 336, 480 and 720 (c2c, r2c, c2r;
480's real kernels run the 240-point complex transform, its complex one DFTI's 5 x (4 x (3 x 8)) plan), and 128, 256,
512 and 1024 (DFTI's radix-4 FFT, its radix-8 passes; the real kernels its N/2-point transform with the
recombination passes, on every path); no
normalisation, 1/N or 1/sqrt(N) (float32 of the double; DFTI multiplies after the transform, its real
kernels then those of its threaded path over contiguous rows on any thread count); several dims as
1-D passes (``_fft_dims``). Where ATen's rows are a view of its input, DFTI gets them with their
strides: contiguous rows, or a dense transposed layout (the transformed dim outermost). DFTI's
12-point real kernels take a 1/N scale inside (their 3-point DFTs) on one thread or one transform of
contiguous rows; with two or more transforms on two or more threads (its threaded path), or from
strided rows, it scales their outputs after the transform: the thread knob of ``_fft_r2c`` and
``_fft_c2r``. The complex and backward kernels of 8 to 1024 (and the real forward ones built on a
complex one: 20, 32 to 1024) give other signs to some zero results from inputs holding -0 (the zero
signs of DFTI's Prime16, Prime8, Prime4, Fact3, Fact5 and Fact7 passes, its 8-, 16- and 32-point and radix-4 FFT
kernels (64 to 1024) and recombinations are read, other lengths' plans' kernels not all), the real forward ones of 8, 16
and 20 (and of 64 on the threaded path) to some zero results from any input: such a result is refused (from
-0 but where every kernel's zero signs are read, ``_ZERO_SIGNS_READ``: every complex length, rfft and irfft
of every length from 32 (480: NeuCodec's); not irfft of 8, 16, 20 and 24 nor rfft of 20), as is a NaN
or an infinity read or given. DFTI's threaded path over contiguous rows (two or more threads and rows, not
strided) runs its own real codelets of N = 8 to 64 (``xs_f<N>_1df``/``_1db``, one row per call, the rows split
between the threads, as gdb shows): the forward ones of 8, 16 and 64 are modelled there (the thread knob of
``_fft_r2c``), the backward ones and the forward one of 32 are refused there.
Everything else is refused in one line.
"""

from __future__ import annotations

import ctypes

import numpy as np

from harness.core.errors import ParityError
from harness.impl._lib import f32, load, ptr
from harness.impl.profiles import IMPL_TORCH, MODELLED_BLAS, KernelProfile

KINDS = {"c2c": 0, "r2c": 1, "c2r": 2}
_BASE = (8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 144, 168, 192, 336, 480, 720)
# ct_odd's Cooley-Tukey order (the largest odd prime outermost) measured at more lengths: complex ones, and
# real ones (the half-length complex transform with the recombination passes)
_ODD_C2C = (28, 36, 56, 60, 72, 84, 100, 112, 120, 140, 160, 180, 200, 224, 240, 252, 280, 320, 360, 392, 400)
_ODD_C2C += (448, 504, 560, 700)
_ODD_REAL = (56, 72, 112, 120, 160, 200, 224, 240, 280, 288, 320, 360, 392, 400, 448, 504, 560, 640, 672)
# DFTI's radix-4 FFT (owns_cRadix4{Fwd,Inv}Norm_32fc): the complex transforms of these powers of two, and the
# halves of the real ones
_RADIX4 = (128, 256, 512, 1024)
LENGTHS = {
    "c2c": tuple(sorted({*_BASE, *_ODD_C2C, *_RADIX4})),
    "r2c": tuple(sorted({*_BASE, *_ODD_REAL, *_RADIX4})),
    "c2r": tuple(sorted({*_BASE, *_ODD_REAL, *_RADIX4})),
}
NONE, BY_ROOT_N, BY_N = 0, 1, 2  # ATen's fft_norm_mode
# where every kernel's zero signs are known, a zero result from -0 is answered; other lengths refuse it. Read from
# DFTI's code: Prime16, Prime8 and Prime4, its Fact3, Fact4, Fact5 and Fact7 passes, both recombinations, its 8-, 16-
# and 32-point FFT kernels (fft/ifft of 8, 16 and 32; rfft/irfft of 32 and 64 with the recombinations) and its
# radix-4 FFT (64). gdb shows the PrimeFact plans of 20, 28, 36, 40, 60, 72, 84, 96, 100, 112, 120, 140, 144, 180,
# 192, 200, 240, 252, 280, 320, 360, 392, 400, 448, 480, 504, 560, 700 and 720 and of the real kernels' halves
# (28 to 360) made of those kernels in ct_odd's order (the largest odd prime
# outermost, Prime4, Prime8 or Prime16 innermost). The plans of 24, 48, 80 and 160 were not traced: they are taken
# to run those kernels in ct_odd's order, which 36,000 zero-heavy rows per op and length at default, avx2 and avx512
# on 1, 2 and 4 threads gave bit for bit (0 other); 8 to 192 up to 27,000 rows per op and length, 0 other. The radix-4
# FFT of 128 to 1024 (and the halves of the real ones) read forward and backward: its 4-point pass, radix-4 and
# radix-8 butterflies and its table (dumped with gdb: (cos, -sin), -0 where the sine is zero, +0 where the cosine is)
_ZERO_SIGNS_READ = frozenset(
    {
        *((kind, n) for kind in ("r2c", "c2r") for n in (32, 40, 48, 64, 80, 96, 160, 192, 224, 400, 480)),
        *((kind, n) for kind in ("r2c", "c2r") for n in (200, 240, 320, 336, 448, 720)),
        *((kind, n) for kind in ("r2c", "c2r") for n in (56, 72, 112, 120, 144, 168, 280, 288, 360, 392, 504, 560)),
        *((kind, n) for kind in ("r2c", "c2r") for n in (640, 672)),
        *(("c2c", n) for n in (8, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 112, 160, 168, 224)),
        *(("c2c", n) for n in (96, 144, 192, 240, 320, 336, 400, 448, 480, 720)),
        *(("c2c", n) for n in (36, 60, 72, 84, 100, 120, 140, 180, 200, 252, 280, 360, 392, 504, 560, 700)),
        *((kind, n) for kind in ("c2c", "r2c", "c2r") for n in _RADIX4),
    }
)


def _pairs(x: np.ndarray, what: str) -> np.ndarray:
    """A complex operand as float32 (..., 2) pairs (complex64 is viewed so)."""
    if x.dtype == np.complex64:
        return np.ascontiguousarray(x).view(np.float32).reshape(*x.shape, 2)
    if x.dtype != np.float32 or x.ndim < 1 or x.shape[-1] != 2:
        raise ParityError(f"FFT: {what} must be complex64, or float32 (re, im) pairs, not {x.dtype} {x.shape}")
    return x


def _reads_negative_zero(kind: str, data: np.ndarray, d: int, n: int) -> bool:
    """Whether DFTI's complex or backward kernel (8 to 1024; r2c of 20 and 32 to 1024) reads a -0 (c2r leaves the
    imaginary parts of bins 0 and N/2 unread): the signs of its zero results are then not modelled
    (measured at 24: every difference lies in a result that is zero on both sides, 190 of 400 zero-heavy
    c2c inputs, 87 of 400 c2r)."""
    bins = np.moveaxis(data, d, 0)
    read = [bins] if kind != "c2r" else [bins[..., 0], np.delete(bins, [0, n // 2], axis=0)[..., 1]]
    return any(bool(np.any(np.signbit(v) & (v == 0))) for v in read)


def _reads_finite(kind: str, data: np.ndarray, d: int, n: int) -> bool:
    """Whether every value DFTI's kernel reads is finite (c2r leaves the imaginary parts of bins 0 and N/2
    unread): a NaN or an infinity spreads through its sums in an order whose NaN operands are not modelled."""
    bins = np.moveaxis(data, d, 0)
    if kind != "c2r":
        return bool(np.isfinite(bins).all())
    return bool(np.isfinite(bins[..., 0]).all() and np.isfinite(np.delete(bins, [0, n // 2], axis=0)[..., 1]).all())


def _zero_result(out: np.ndarray, n: int) -> bool:
    """Whether an onesided result (..., N/2+1, 2) holds a zero other than the imaginary parts of bins 0 and
    N/2 (always +0): DFTI's real forward kernels of 8, 16, 20 (and of 64 on its threaded path) drop the
    terms of the absent imaginary parts, which gives some zero results -0 where the complex kernel on +0
    gives +0 (measured: every difference from ones, zeros and small integers lies in a result zero on
    both sides), so such a result is refused."""
    return bool(np.any(out[..., 1 : n // 2, :] == 0) or np.any(out[..., [0, n // 2], 0] == 0))


def _scale(normalization: int, n: int) -> float:
    """DFTI's scale: ATen's 1/N or 1/sqrt(N) in double, as float32 (N: the product of the lengths)."""
    if normalization == NONE:
        return 1.0
    if normalization == BY_N:
        return float(np.float32(1.0 / n))
    if normalization == BY_ROOT_N:
        return float(np.float32(1.0 / np.sqrt(float(n))))
    raise ParityError(f"FFT with normalization {normalization}: ATen's modes are 0, 1 and 2")


def strided_rows(shape: tuple[int, ...], stride: list[int] | None, d: int) -> bool:
    """Whether DFTI gets ATen's rows as a strided view of the input (True) or as contiguous rows (False).
    ATen orders the other dims by stride (largest first), moves ``dim`` d last and reshapes to one batch
    dim: a copy where they do not collapse into one stride (or an expanded dim, stride 0, is among
    them), else a view whose strides DFTI takes. ParityError for views DFTI may take another way."""
    if stride is None:  # an operand without its strides: C-contiguous
        stride = [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    if len(stride) != len(shape):
        raise ParityError(f"FFT: strides {list(stride)} do not fit the input's shape {list(shape)}")
    n, n_stride = shape[d], stride[d]
    batch = sorted(
        ((t, s) for i, (s, t) in enumerate(zip(shape, stride, strict=True)) if i != d and s != 1), reverse=True
    )
    if any(t == 0 for t, _ in batch) or any(t * s != batch[i - 1][0] for i, (t, s) in enumerate(batch) if i):
        return False  # reshape copies
    count = int(np.prod([s for _, s in batch])) if batch else 1
    distance = batch[-1][0] if batch else n
    if n == 1 or (n_stride == 1 and (count == 1 or distance == n)):
        return False
    if count > 1 and n_stride == count and distance == 1:
        return True
    raise ParityError(f"FFT of a view with strides {list(stride)}: DFTI's handling of that layout is not modelled")


def fft(kind: str, x: np.ndarray, dim: list[int], normalization: int, profile: KernelProfile, *,
        forward: bool = True, last_dim_size: int = 0, stride: list[int] | None = None) -> np.ndarray:  # fmt: skip
    """``_fft_<kind>`` of x over ``dim``; complex results as float32 (..., 2) pairs. ``stride``: the
    input's strides (in elements) where the caller held a view, else it is taken as C-contiguous.
    On an arm64 profile: pocketfft's transforms (harness/impl/pocketfft.py), in the input's precision (complex
    results as its pairs)."""
    if profile.aarch64:
        return _fft_aarch64(kind, x, dim, normalization, profile, forward=forward, last_dim_size=last_dim_size)
    if len(dim) > 1:
        return _fft_dims(
            kind, x, dim, normalization, profile, forward=forward, last_dim_size=last_dim_size, stride=stride
        )
    return _fft_1d(kind, x, dim, normalization, profile, forward=forward, last_dim_size=last_dim_size, stride=stride)


def _fft_aarch64(kind: str, x: np.ndarray, dim: list[int], normalization: int, profile: KernelProfile, *,
                 forward: bool, last_dim_size: int) -> np.ndarray:  # fmt: skip
    """The arm64 wheel's FFT (pocketfft): its plans for lengths of factors 2, 3 and 5; the rest refused."""
    from harness.impl import pocketfft

    if profile.torch != IMPL_TORCH:
        raise ParityError(
            f"FFT under torch {profile.torch} on arm64: measured with torch {IMPL_TORCH}'s pocketfft only"
        )
    if kind == "r2c":
        return pocketfft.r2c(x, dim, normalization)
    if kind == "c2r":
        return pocketfft.c2r(x, dim, normalization, last_dim_size)
    return pocketfft.c2c(x, dim, normalization, forward)


def _pass_count(kind: str, x: np.ndarray, dim: list[int]) -> tuple[list[int], int]:
    """The transformed dims, wrapped and checked (distinct, ascending: ATen's order), and the tensor's rank."""
    ndim = x.ndim - (0 if kind == "r2c" else 1)
    if any(not -ndim <= int(d) < ndim for d in dim):
        raise ParityError(f"FFT: dims {list(dim)} out of range for {ndim} dims")
    dims = [int(d) % ndim for d in dim]
    if dims != sorted(set(dims)):
        raise ParityError(f"FFT over dims {list(dim)}: the impl models distinct ascending dims only")
    return dims, ndim


def _fft_dims(kind: str, x: np.ndarray, dim: list[int], normalization: int, profile: KernelProfile, *,
              forward: bool, last_dim_size: int, stride: list[int] | None) -> np.ndarray:  # fmt: skip
    """A transform over two or more dims. c2r: ATen runs the backward c2c over all but the last dim (its
    own descriptor and scale), then the 1-D c2r over the last, from the c2c result's layout. c2c and
    r2c: one multi-dim DFTI descriptor, which runs 1-D passes, the last dim first (r2c: its real kernel
    as on one thread; of 12, 24, 64 and 128 to 1024 only), then the complex kernel over each other dim, last to
    first, and multiplies by its scale after one pass (``_scaled_pass``). Where that pass is not
    identified, the transform is answered only if every pass gives the same bits, else refused."""
    dims, ndim = _pass_count(kind, _pairs(x, "the input") if kind != "r2c" else f32(x), dim)
    if kind == "c2r":
        y = fft("c2c", x, dims[:-1], normalization, profile, forward=False, stride=stride)
        laid = _c2c_out_stride(y.shape[:ndim], stride, dims[:-1])
        return _fft_1d("c2r", y, dims[-1:], normalization, profile, last_dim_size=last_dim_size, stride=laid)
    if kind == "r2c" and x.shape[dims[-1]] not in (12, 24, 64, *_RADIX4):
        raise ParityError(
            f"FFT r2c over several dims with a last length of {x.shape[dims[-1]]}: DFTI's real pass is not modelled"
        )
    first = _fft_1d(kind, x, dims[-1:], NONE, profile, forward=forward, one_thread=True)
    lengths = [x.shape[d] for d in dims[::-1]]  # in the order of the passes
    scale = np.float32(_scale(normalization, int(np.prod(lengths))))
    trailing = dims == list(range(ndim - len(dims), ndim)) and (stride is None or _contiguous(x.shape[:ndim], stride))
    known = _scaled_pass(lengths) if trailing and (kind == "c2c" or len(dims) == 2) else None
    candidates = [-1] if normalization == NONE else [known] if known is not None else list(range(len(dims)))
    results = []
    for scaled in candidates:
        y = first * scale if scaled == 0 else first
        for i, d in enumerate(dims[-2::-1], start=1):
            y = _fft_1d("c2c", y, [d], NONE, profile, forward=forward)
            y = y * scale if i == scaled else y
        results.append(y)
    if any(not np.array_equal(r.view(np.uint32), results[0].view(np.uint32)) for r in results[1:]):
        raise ParityError(
            f"FFT {kind} over dims {dims} of {list(x.shape[:ndim])} with a scale of {scale}: the pass DFTI scales "
            "in is not measured for these lengths and layout"
        )
    return results[0]


def _c2c_out_stride(shape: tuple[int, ...], stride: list[int] | None, dims: list[int]) -> list[int]:
    """The strides of ATen's c2c result over ``dims``: its memory holds the other dims first, ordered by
    the input's strides (largest first), then the transformed dims (ATen's permuted, collapsed layout)."""
    given = stride if stride is not None else [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    batch = [i for i in range(len(shape)) if i not in dims]
    if len({given[i] for i in batch if shape[i] != 1}) < sum(shape[i] != 1 for i in batch):
        raise ParityError(f"FFT over dims {dims} of a view with strides {list(given)}: ATen's order is not modelled")
    order = sorted(batch, key=lambda i: -given[i]) + list(dims)
    out = [0] * len(shape)
    size = 1
    for i in reversed(order):
        out[i] = size
        size *= shape[i]
    return out


def _contiguous(shape: tuple[int, ...], stride: list[int]) -> bool:
    """Whether strides (in elements) are C-contiguous for shape (dims of 1 take any stride)."""
    want = [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    return len(stride) == len(shape) and all(s == w or n == 1 for s, w, n in zip(stride, want, shape, strict=True))


def _scaled_pass(lengths: list[int]) -> int | None:
    """The pass (0: the last dim's) after which DFTI's multi-dim descriptor multiplies by its scale, as
    measured for lengths of 8 to 64 but 48: over two dims the shorter one's (the last dim's on a tie);
    over three the innermost 8's, else the first dim's (the last pass), but for lengths of 12 and 16
    only (which vary). None where not measured (other lengths, 4 dims or more)."""
    if not set(lengths) <= {8, 12, 16, 24, 32, 64}:  # not tabulated
        return None
    if len(lengths) == 2:
        return lengths.index(min(lengths))
    if len(lengths) == 3 and 8 in lengths:
        return lengths.index(8)
    if len(lengths) == 3 and not set(lengths) <= {12, 16}:
        return 2
    return None


def _fft_1d(kind: str, x: np.ndarray, dim: list[int], normalization: int, profile: KernelProfile, *,
            forward: bool = True, last_dim_size: int = 0, stride: list[int] | None = None,
            one_thread: bool = False) -> np.ndarray:  # fmt: skip
    """The 1-D transform; ``one_thread``: DFTI's real kernels as on one thread (its multi-dim descriptor)."""
    if profile.aarch64 or profile.blas != MODELLED_BLAS or profile.mkl_cbwr:
        raise ParityError(f"FFT under {profile.label}: the impl models MKL DFTI's generic code path (an AMD CPU) only")
    if profile.torch != IMPL_TORCH:
        raise ParityError(f"FFT under torch {profile.torch}: measured with torch {IMPL_TORCH}'s MKL only")
    real_in = kind == "r2c"
    data = f32(x) if real_in else _pairs(x, "the input")
    if real_in and x.dtype != np.float32:
        raise ParityError(f"FFT: r2c takes float32, not {x.dtype}")
    if len(dim) != 1:
        raise ParityError(f"FFT over {len(dim)} dims: a transform over no dim is not modelled")
    (d,), ndim = _pass_count(kind, data, dim)
    n = last_dim_size if kind == "c2r" else data.shape[d]
    if n not in LENGTHS[kind]:
        raise ParityError(f"FFT {kind} of length {n}: DFTI's kernels for it are not modelled (only {LENGTHS[kind]})")
    if kind == "c2r" and data.shape[d] != n // 2 + 1:
        raise ParityError(f"FFT c2r of length {n} from {data.shape[d]} bins: the impl takes exactly N/2+1")
    # the real forward kernels of 20 and up (24 but) run complex ones on their even/odd pairs (32 and 64: DFTI's 16-
    # and 32-point FFT kernels), so their zero results from -0 follow those kernels' zero signs
    halves = n >= 20 and n != 24
    if not _reads_finite(kind, data, d, n):
        raise ParityError(f"FFT {kind} of length {n} of a NaN or an infinity: which NaN DFTI gives is not modelled")
    negative_zero = n != 12 and (kind != "r2c" or halves) and _reads_negative_zero(kind, data, d, n)
    scale = _scale(normalization, n)
    rows = np.ascontiguousarray(np.moveaxis(data, d, ndim - 1))
    batch = rows.size // (rows.shape[ndim - 1] * (1 if real_in else 2)) if rows.size else 0
    width = {"c2c": (n, 2), "r2c": (n // 2 + 1, 2), "c2r": (n,)}[kind]
    out = np.zeros((*rows.shape[: ndim - 1], *width), np.float32)
    strided = strided_rows(tuple(data.shape[:ndim]), stride, d)
    threaded = profile.threads >= 2 and batch >= 2 and not one_thread  # DFTI splits the transforms between threads
    # DFTI's threaded path's kernels over contiguous rows: split between threads, or scaled by 1/sqrt(N)
    threaded_rows = (threaded or normalization == BY_ROOT_N) and not strided
    if threaded_rows and ((kind == "c2r" and n in (8, 16, 32, 64)) or (kind, n) == ("r2c", 32)):
        raise ParityError(
            f"FFT {kind} of length {n} on DFTI's threaded path (2+ threads, 2+ contiguous rows) or scaled by "
            "1/sqrt(N) (contiguous rows): not modelled"
        )
    fn = load("fft").fft_mkl_def
    fn.restype = ctypes.c_int
    if batch:
        rc = fn(
            ctypes.c_int(KINDS[kind]), ctypes.c_int(n), ctypes.c_int64(batch), ptr(rows), ptr(out),
            ctypes.c_int(-1 if forward else 1), ctypes.c_float(scale),
            ctypes.c_int(0 if threaded or strided or normalization != BY_N else 1),
            ctypes.c_int(threaded_rows),
        )  # fmt: skip
        if rc != 0:
            raise ParityError(f"FFT {kind} of length {n}: not modelled")
    if not np.isfinite(out).all():
        raise ParityError(f"FFT {kind} of length {n} to an infinity or a NaN: DFTI's overflow is not modelled")
    if kind == "r2c" and (n in (8, 16, 20) or (n == 64 and threaded_rows)) and _zero_result(out, n):
        raise ParityError(f"FFT r2c of length {n} to a zero result: the sign of that zero is not modelled")
    if negative_zero and (kind, n) not in _ZERO_SIGNS_READ and np.any(out == 0):  # only zero results take it
        raise ParityError(f"FFT {kind} of length {n} from -0 to a zero result: the sign of that zero is not modelled")
    return np.ascontiguousarray(np.moveaxis(out, ndim - 1, d))
