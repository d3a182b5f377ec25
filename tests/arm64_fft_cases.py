"""Seeded random complex FFTs for tests/test_impl_arm64_fft.py: ``_fft_c2c`` of complex64 and complex128 tensors
over one, two or three dims, forward and backward, unscaled, by 1/sqrt(N) and by 1/N, at lengths of 1 to 1,000
whose factors are 2, 3 and 5 (the zoo's: FNet's 16 x 64, 12, 24 and 480; the powers of 2 to 1,024) and some
with 7, 11, 13 or a large prime (refused), row counts off the NEON lanes (4 float32, 2 float64), the
transformed dim inner, outer or both, contiguous or a transposed view; values of several scales with zeros of
both signs, small integers and subnormals mixed in, a few with NaNs of both signs (quiet and signalling) or
infinities; then 80 float32 r2c and c2r of lengths with a factor 5 (rfftp's radf5 and radb5). Imports only
NumPy (torch where it records): ``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_fft_cases.py OUT.npz`` saves, under emulation, torch's bits of every case at 1, 2
and 4 threads (``torch.set_num_threads`` in one process; keys ``name/threads``, complex results as
``view_as_real``)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

SEED = 11
COUNT = 160
REAL_COUNT = 120
LENGTHS = (1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 18, 20, 24, 25, 27, 30, 32, 36, 40, 45, 48, 50, 60, 64, 75,
           80, 81, 96, 100, 120, 125, 128, 144, 160, 192, 200, 240, 243, 256, 360, 480, 512, 625, 720, 768, 1000,
           1024)  # fmt: skip
# float32 real lengths with a factor 5 (rfftp's radf5 and radb5; 25, 50, 75, ... run them with ido > 1 too)
FIVES = (5, 10, 15, 20, 25, 30, 40, 45, 50, 60, 75, 80, 100, 120, 125, 150, 160, 200, 240, 250, 300, 320, 375, 400,
         480, 500, 600, 625, 640, 720, 750, 800, 960, 1000)  # fmt: skip
FIVE_COUNT = 80
REFUSED = (7, 11, 13, 14, 22, 28, 97, 101)
SPECIAL = np.array([0x7FC00000, 0xFFC00000, 0x7FA00005, 0xFF800003, 0x7F800000, 0xFF800000], np.uint32).view(np.float32)


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: type, specials: bool) -> np.ndarray:
    real = np.float32 if dtype == np.complex64 else np.float64
    x = rng.standard_normal((*shape, 2)) * rng.choice([1.0, 1e-3, 1e4])
    kind = rng.random((*shape, 2))
    x[kind < 0.08] = 0.0
    x[(kind >= 0.08) & (kind < 0.14)] = -0.0
    x[(kind >= 0.14) & (kind < 0.2)] = np.round(x[(kind >= 0.14) & (kind < 0.2)])
    if rng.random() < 0.2:
        x[(kind >= 0.2) & (kind < 0.25)] = np.finfo(real).smallest_subnormal * rng.integers(1, 9)
    x = x.astype(real)
    if specials:
        mask = rng.random((*shape, 2)) < 0.05
        with np.errstate(invalid="ignore"):  # casting a signalling NaN warns
            x[mask] = rng.choice(SPECIAL, size=int(mask.sum())).astype(real)
    return np.ascontiguousarray(x).view(dtype).reshape(shape)


def cases() -> list[dict[str, Any]]:
    """Each case: name, kind (c2c, r2c or c2r), x (its logical values: complex, or real for r2c), dim, norm (0
    none, 1 by_root_n, 2 by_n), forward (c2c), n (c2r's last_dim_size) and trans (torch is handed
    ``x.transpose(0, -1).contiguous().transpose(0, -1)``, a strided view)."""
    return _complex_cases() + _real_cases() + _real_five_cases()


def _shape(rng: np.random.Generator, lengths: list[int]) -> tuple[tuple[int, ...], list[int]]:
    """A shape holding the transformed lengths and two batch dims, in a random order, and the dims."""
    rows = int(rng.choice([1, 2, 3, 4, 5, 6, 7, 9, 13]))
    budget = max(1, 200_000 // max(1, int(np.prod(lengths)) * rows))
    extra = int(min(rng.choice([1, 2, 3]), budget))
    shape_dims = [("n", n) for n in lengths] + [("b", rows), ("b", extra)]
    order = rng.permutation(len(shape_dims))
    shape = tuple(shape_dims[j][1] for j in order)
    return shape, [int(k) for k, j in enumerate(order) if shape_dims[j][0] == "n"]


def _real_cases() -> list[dict[str, Any]]:
    """r2c and c2r: the zoo's (Autoformer's 24 and 12, NeuCodec's 480) and random ones as above; c2r's last dim's
    bins hold n // 2 + 1 values, the transformed dims in ascending order (the last one the real one)."""
    rng = np.random.default_rng(SEED + 1)
    out: list[dict[str, Any]] = []
    for i in range(REAL_COUNT):
        kind = "r2c" if i % 2 == 0 else "c2r"
        dtype = np.complex64 if rng.random() < 0.7 else np.complex128
        ndims = int(rng.choice([1, 1, 1, 2, 3]))
        pool = REFUSED if rng.random() < 0.1 else LENGTHS
        small = tuple(n for n in pool if n <= (1024 if ndims == 1 else 64))
        lengths = [int(rng.choice(small)) for _ in range(ndims)]
        if i < 6:
            lengths = [(24, 12, 480)[i // 2]]
        shape, dim = _shape(rng, lengths)
        n = shape[dim[-1]]
        specials = rng.random() < 0.08
        if kind == "r2c":
            x = _values(rng, shape, dtype, specials).real.copy()
        else:
            x = _values(rng, tuple(n // 2 + 1 if k == dim[-1] else s for k, s in enumerate(shape)), dtype, specials)
        out.append({"name": f"{kind}{i}", "kind": kind, "x": x, "dim": dim, "norm": int(rng.integers(0, 3)),
                    "forward": kind == "r2c", "n": n, "trans": bool(rng.random() < 0.3)})  # fmt: skip
    return out


def _real_five_cases() -> list[dict[str, Any]]:
    """r2c and c2r of float32 lengths with a factor 5 (all of FIVES in turn, then random ones), over the last
    transformed dim of one or two (the other length with a 5 too), rows off the NEON lanes, as ``_real_cases``."""
    rng = np.random.default_rng(SEED + 2)
    out: list[dict[str, Any]] = []
    for i in range(FIVE_COUNT):
        kind = "r2c" if i % 2 == 0 else "c2r"
        n = FIVES[(i // 2) % len(FIVES)] if i < 2 * len(FIVES) else int(rng.choice(FIVES))
        lengths = [n] if rng.random() < 0.8 else [int(rng.choice((5, 10, 15, 20, 40))), n]
        shape, dim = _shape(rng, lengths)
        n = shape[dim[-1]]
        specials = rng.random() < 0.05
        if kind == "r2c":
            x = _values(rng, shape, np.complex64, specials).real.copy()
        else:
            x = _values(rng, tuple(n // 2 + 1 if k == dim[-1] else s for k, s in enumerate(shape)), np.complex64,
                        specials)  # fmt: skip
        out.append({"name": f"{kind}5_{i}", "kind": kind, "x": x, "dim": dim, "norm": int(rng.integers(0, 3)),
                    "forward": kind == "r2c", "n": n, "trans": bool(rng.random() < 0.3)})  # fmt: skip
    return out


def _complex_cases() -> list[dict[str, Any]]:
    rng = np.random.default_rng(SEED)
    out: list[dict[str, Any]] = [
        {"name": "fnet", "kind": "c2c", "n": 0, "x": _values(rng, (2, 16, 64), np.complex64, False),
         "dim": [1, 2], "norm": 0, "forward": True, "trans": False},
        {"name": "fnet_backward", "kind": "c2c", "n": 0, "x": _values(rng, (2, 16, 64), np.complex64, False),
         "dim": [1, 2], "norm": 0, "forward": False, "trans": False},
    ]  # fmt: skip
    for i in range(COUNT):
        dtype = np.complex64 if rng.random() < 0.7 else np.complex128
        ndims = int(rng.choice([1, 1, 1, 2, 3]))
        pool = REFUSED if rng.random() < 0.1 else LENGTHS
        small = tuple(n for n in pool if n <= (1024 if ndims == 1 else 64))
        lengths = [int(rng.choice(small)) for _ in range(ndims)]
        rows = int(rng.choice([1, 2, 3, 4, 5, 6, 7, 9, 13]))
        budget = max(1, 200_000 // max(1, int(np.prod(lengths)) * rows))
        extra = int(min(rng.choice([1, 2, 3]), budget))
        # the transformed dims and the batch dims, in a random order
        shape_dims = [("n", n) for n in lengths] + [("b", rows), ("b", extra)]
        order = rng.permutation(len(shape_dims))
        shape = tuple(shape_dims[j][1] for j in order)
        dim = sorted(int(k) for k, j in enumerate(order) if shape_dims[j][0] == "n")
        specials = rng.random() < 0.08
        out.append(
            {
                "kind": "c2c",
                "name": f"c{i}",
                "x": _values(rng, shape, dtype, specials),
                "dim": dim,
                "norm": int(rng.integers(0, 3)),
                "forward": bool(rng.random() < 0.5),
                "trans": bool(rng.random() < 0.3),
                "n": 0,
            }
        )
    return out


def record(path: str) -> None:
    """Under emulation: torch's bits of every case at 1, 2 and 4 threads."""
    import torch

    saved: dict[str, np.ndarray] = {}
    for threads in (1, 2, 4):
        torch.set_num_threads(threads)
        for c in cases():
            t = torch.from_numpy(c["x"].copy())
            if c["trans"]:
                t = t.transpose(0, -1).contiguous().transpose(0, -1)
            try:
                if c["kind"] == "r2c":
                    y = torch.ops.aten._fft_r2c(t, c["dim"], c["norm"], True)
                elif c["kind"] == "c2r":
                    y = torch.ops.aten._fft_c2r(t, c["dim"], c["norm"], c["n"])
                else:
                    y = torch.ops.aten._fft_c2c(t, c["dim"], c["norm"], c["forward"])
                y = torch.view_as_real(y) if y.is_complex() else y
                saved[f"{c['name']}/{threads}"] = y.contiguous().numpy()
            except RuntimeError as err:
                print(c["name"], err, file=sys.stderr)
    np.savez_compressed(path, **saved)


if __name__ == "__main__":
    record(sys.argv[1])
