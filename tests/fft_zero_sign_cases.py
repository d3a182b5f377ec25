"""Zero-heavy rows for the FFTs whose zero signs from -0 are modelled (harness/impl/fft.py's _ZERO_SIGNS_READ:
rfft and irfft of every length modelled from 32 (32 to 720), fft/ifft of 8,
16, 20, 24, 28, 32, 36, 40, 48, 56, 60, 64, 72, 80, 84, 96, 100, 112, 120, 140, 144, 160, 168, 180, 192, 200, 224,
240, 252, 280, 320, 336, 360, 392, 400, 448, 480, 504, 560, 700 and 720), for tests/test_impl_fft.py.
Imports only NumPy; run as a script it records torch's outputs' digests (tests/bit_digest.py) as one JSON line,
per kind over ``operands()`` (``rows()`` laid out per kind).

Rows of 480 floats (rfft's real rows; fft's 240 complex pairs): signed zeros at six densities of -0, one to
sixteen small values (exact sums) among signed zeros, pairs that cancel (+v and -v), a value head with a
signed-zero tail and the reverse, and one residue mod 2 to 120 nonzero (Prime16's, the Fact passes' and the
recombination's residues), and one row found to tell Prime16's zero signs in rfft."""

from __future__ import annotations

import numpy as np

WIDTH = 480
# lengths whose operands are the rows cut into as many whole pieces as fit (complex: 2N floats, real: N, onesided
# bins: N + 2); complex ones wider than a row (320, 400, 448, 720) cut from every second row laid end to end
CHUNKED_C2C = (8, 16, 20, 24, 28, 32, 40, 48, 64, 80, 96, 144, 160, 192, 224, 320, 400, 448, 720)
CHUNKED_REAL = (32, 40, 48, 64, 80, 96, 160, 192, 400)
# lengths whose operands are cut from every eighth row only (the further PrimeFact plans: a lighter test)
SPARSE_C2C = (36, 60, 72, 84, 100, 120, 140, 180, 200, 252, 280, 360, 392, 504, 560, 700)
SPARSE_REAL = (56, 72, 112, 120, 144, 168, 200, 240, 280, 288, 320, 336, 360, 392, 448, 504, 560, 640, 672, 720)
CHUNKED_C2C += SPARSE_C2C
CHUNKED_REAL += SPARSE_REAL
C2C_CHUNKED_KEYS = tuple(f"c2c_{n}" for n in CHUNKED_C2C)
# lengths whose operands are also rows of signed zeros alone (signed_zeros)
SIGNED_ZEROS_C2C = (320, 400, 448, 720)
C2C_KEYS = (*C2C_CHUNKED_KEYS, *(f"c2c_{n}z" for n in SIGNED_ZEROS_C2C))
VALUES = np.array([1, -1, 0.5, 3, 2, -2, 0.25], np.float32)


def rows(count: int = 12) -> np.ndarray:
    """``count`` rows of each style, (styles * count, 480) float32, from one fixed draw."""
    rng = np.random.default_rng(4802)

    def zeros(shape: tuple[int, ...], q: float) -> np.ndarray:
        return np.where(rng.random(shape) < q, -0.0, 0.0).astype(np.float32)

    sets = [zeros((count, WIDTH), q) for q in (0.02, 0.3, 0.5, 0.7, 0.98, 0.995)]
    for k in (1, 2, 3, 5, 8, 16):
        a = zeros((count, WIDTH), float(rng.random()))
        a[np.arange(count)[:, None], rng.integers(0, WIDTH, (count, k))] = rng.choice(VALUES, (count, k))
        sets.append(a)
    for q in (0.5, 0.9):
        a = zeros((count, WIDTH), q)
        for i in range(count):
            j, v = rng.integers(0, WIDTH, 4), rng.choice(VALUES, 2)
            a[i, j] = [v[0], -v[0], v[1], -v[1]]
        sets.append(a)
    a = rng.standard_normal((count, WIDTH)).astype(np.float32)
    for i in range(count):
        c = int(rng.integers(0, WIDTH))
        if i % 2:
            a[i, c:] = zeros((WIDTH - c,), float(rng.random()))
        else:
            a[i, : WIDTH - c] = zeros((WIDTH - c,), float(rng.random()))
    sets.append(a)
    for m in (2, 3, 4, 5, 6, 8, 10, 15, 16, 20, 30, 48, 60, 80, 120):
        a = zeros((count, WIDTH), float(rng.random()))
        s = int(rng.integers(0, m))
        a[:, s::m] = rng.choice(VALUES, (count, len(range(s, WIDTH, m))))
        sets.append(a)
    # a row of 90% -0 whose rfft has a zero result that Prime16's products on residues 1 to 3 decide (1 of 4,000
    # such rows drawn: the recombination hides the 240-point transform's zero signs in the others)
    sets.append(np.where(np.random.default_rng(4803).random((4000, WIDTH)) < 0.9, -0.0, 0.0)[447:448])
    return np.concatenate(sets).astype(np.float32)


def signed_zeros_480() -> np.ndarray:
    """120 rows of 480 complex signed zeros, -0 at densities from 0.02 to 0.995 (fft/ifft of 480: where Prime8's
    blocks' operand order decides a zero's sign)."""
    rng = np.random.default_rng(4804)
    q = np.linspace(0.02, 0.995, 120)[:, None, None]
    return np.where(rng.random((120, WIDTH, 2)) < q, -0.0, 0.0).astype(np.float32)


def signed_zeros(n: int) -> np.ndarray:
    """40 rows of n complex signed zeros, -0 at densities from 0.02 to 0.995 (fft/ifft of the long PrimeFact plans:
    every pass's zero signs reach the result)."""
    q = np.linspace(0.02, 0.995, 40)[:, None, None]
    return np.where(np.random.default_rng(4805 + n).random((40, n, 2)) < q, -0.0, 0.0).astype(np.float32)


def _chunks(a: np.ndarray, width: int) -> np.ndarray:
    """Each row of ``a`` cut into as many pieces of ``width`` as fit, (rows * pieces, width); wider than a row:
    the rows laid end to end, cut so."""
    if width > a.shape[1]:
        return np.ascontiguousarray(a.reshape(-1)[: a.size // width * width]).reshape(-1, width)
    return np.ascontiguousarray(a[:, : a.shape[1] // width * width]).reshape(-1, width)


def operands() -> dict[str, np.ndarray]:
    """``rows()`` as each recorded transform reads them: rfft's real rows of 480; 240 complex pairs (fft/ifft of
    240); two rows as 480 complex pairs (fft/ifft of 480: 180 rows); 481 floats and a -0 as 241 onesided bins
    (irfft of 480); a row's first 224, 112 and 336 floats as 112, 56 and 168 complex pairs, two rows' first 672 as
    336 (fft/ifft); a row's first 224 floats (rfft of 224) and 226 as 113 bins (irfft of 224); signed_zeros_480();
    the rows (every eighth for SPARSE_C2C and SPARSE_REAL, every second for complex ones wider than a row) cut into
    pieces (_chunks) for fft/ifft of CHUNKED_C2C and rfft/irfft of CHUNKED_REAL; signed_zeros(n) for fft/ifft of
    SIGNED_ZEROS_C2C."""
    a = rows()
    sparse, wide = a[::8], a[::2]
    src = {n: sparse if n in SPARSE_C2C else wide if 2 * n > WIDTH else a for n in CHUNKED_C2C}
    chunked = {f"c2c_{n}": _chunks(src[n], 2 * n).reshape(-1, n, 2) for n in CHUNKED_C2C}
    chunked |= {f"r2c_{n}": _chunks(sparse if n in SPARSE_REAL else a, n) for n in CHUNKED_REAL}
    chunked |= {
        f"c2r_{n}": _chunks(sparse if n in SPARSE_REAL else a, n + 2).reshape(-1, n // 2 + 1, 2) for n in CHUNKED_REAL
    }
    chunked |= {f"c2c_{n}z": signed_zeros(n) for n in SIGNED_ZEROS_C2C}
    return chunked | {
        "r2c_480": a,
        "c2c_240": a.reshape(len(a), 240, 2),
        "c2c_480": a[: len(a) // 2 * 2].reshape(-1, 480, 2),
        "c2r_480": np.pad(a, ((0, 0), (0, 2)), constant_values=-0.0).reshape(-1, 241, 2),
        "c2c_112": np.ascontiguousarray(a[:, :224]).reshape(-1, 112, 2),
        "c2c_56": np.ascontiguousarray(a[:, :112]).reshape(-1, 56, 2),
        "c2c_168": np.ascontiguousarray(a[:, :336]).reshape(-1, 168, 2),
        "c2c_336": np.ascontiguousarray(a[: len(a) // 2 * 2].reshape(-1, 960)[:, :672]).reshape(-1, 336, 2),
        "c2c_480z": signed_zeros_480(),
        "r2c_224": np.ascontiguousarray(a[:, :224]),
        "c2r_224": np.ascontiguousarray(a[:, :226]).reshape(-1, 113, 2),
    }


def _record() -> dict[str, str]:
    """torch's rfft and irfft of the operands, fft and ifft (norm="forward": unscaled) of the complex ones."""
    import torch

    from tests.bit_digest import bits_sha256

    ops = {k: torch.from_numpy(v) for k, v in operands().items()}
    out = {}
    for n in (480, 224, *CHUNKED_REAL):
        out[f"r2c_{n}"] = bits_sha256(torch.view_as_real(torch.fft.rfft(ops[f"r2c_{n}"])).numpy())
    for key in ("c2c_240", "c2c_480", "c2c_112", "c2c_56", "c2c_168", "c2c_336", "c2c_480z", *C2C_KEYS):
        z = torch.view_as_complex(ops[key])
        out[key] = bits_sha256(torch.view_as_real(torch.fft.fft(z)).numpy())
        out["i" + key] = bits_sha256(torch.view_as_real(torch.fft.ifft(z, norm="forward")).numpy())
    for n in (480, 224, *CHUNKED_REAL):
        bins = torch.view_as_complex(ops[f"c2r_{n}"])
        out[f"c2r_{n}"] = bits_sha256(torch.fft.irfft(bins, n=n, norm="forward").numpy())
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(_record()))
