"""Seeded cases of harness/impl/scatter.py's ops against torch in this process, shared by
tests/test_impl_live_scatter.py (its operand builders) and its avx512 test, whose child
(``avx512_child``) runs here in a fresh process at ATEN_CPU_CAPABILITY=avx512: this module imports only
torch, NumPy and the impl, so that the child starts quickly.

At avx512 every kernel these ops run is ``REGISTER_DISPATCH`` only (ScatterGatherKernel.cpp,
IndexKernel.cpp, BinaryOpsKernel.cpp's and the add ufunc's kernels, UpSampleKernel.cpp; im2col.h is
no dispatch stub), so the AVX2 objects run there: the cases pin the rules that come of it.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable
from functools import partial

import numpy as np
import torch

from harness.core.errors import ParityError
from harness.impl import pool, scatter
from harness.impl.profiles import KernelProfile, profile_for_capability


def values(rng: np.random.Generator, shape: tuple[int, ...] | list[int]) -> np.ndarray:
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    x[rng.random(shape) < 0.05] = 0.0
    return x


def strided(x: np.ndarray, flip: bool) -> torch.Tensor:
    """x as a torch tensor, laid out transposed (first and last dims swapped in memory) where ``flip``."""
    if flip and x.ndim >= 2:
        return torch.from_numpy(np.swapaxes(x, 0, -1).copy()).transpose(0, -1)  # a copy: in-place ops leave x
    return torch.from_numpy(x.copy())


SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)


def with_specials(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """x with NaN, infinities and both zeros at about 15% of its elements."""
    x = x.copy()
    spots = rng.random(x.shape) < 0.15
    x[spots] = SPECIALS[rng.integers(0, SPECIALS.size, int(spots.sum()))]
    return x


def scatter_case(rng: np.random.Generator, shape: tuple[int, ...], dim: int) -> tuple[np.ndarray, ...]:
    """self, index (three times as long along dim: every target repeated) and src."""
    ishape = list(shape)
    ishape[dim] = 3 * shape[dim] + 1
    index = rng.integers(0, shape[dim], ishape).astype(np.int64)
    return values(rng, shape), index, values(rng, ishape)


def index_case(
    rng: np.random.Generator, shape: tuple[int, ...], dim: int
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """dim wrapped, a 1-D index three times as long as self along it (every slice repeated), self, source."""
    dim = dim % len(shape)
    index = rng.integers(0, shape[dim], 3 * shape[dim] + 1).astype(np.int64)
    sshape = list(shape)
    sshape[dim] = index.size
    return dim, index, values(rng, shape), values(rng, sshape)


# the avx512 test's cases
AVX512_CASES = ("expanded", "serial", "index_add", "index_copies", "index_put", "fold", "nearest")


def avx512_outputs(
    case: str, rng: np.random.Generator, profile: KernelProfile
) -> list[tuple[str, torch.Tensor, Callable[[], np.ndarray]]]:
    """(name, torch's output, the impl's as a thunk) of one of AVX512_CASES, NaN, infinities and signed
    zeros among the operands (but index_reduce's and the copies')."""
    out: list[tuple[str, torch.Tensor, Callable[[], np.ndarray]]] = []
    if case == "expanded":  # amax/amin's vector maximum (the AVX2 object's all-ones NaN), sums' NaN
        x, src = with_specials(rng, values(rng, (5, 17))), with_specials(rng, values(rng, (40, 17)))
        ti = torch.from_numpy(rng.integers(0, 5, 40))[:, None].expand(40, 17)
        index, tx, ts = np.ascontiguousarray(ti.numpy()), torch.from_numpy(x), torch.from_numpy(src)
        for reduce in scatter.REDUCES:
            for inc in (True, False):
                want = tx.scatter_reduce(0, ti, ts, reduce, include_self=inc)
                impl = partial(scatter.scatter_reduce, x, 0, index, src, reduce, inc, list(ti.stride()), True, profile)
                out.append((f"expanded {reduce} {inc}", want, impl))
    elif case == "serial":
        x, index, src = scatter_case(rng, (9, 17), 1)
        x, src = with_specials(rng, x), with_specials(rng, src)
        tx, ti, ts = strided(x, True), torch.from_numpy(index), strided(src, True)
        for reduce in scatter.REDUCES:
            want = tx.scatter_reduce(1, ti, ts, reduce, include_self=False)
            impl = partial(scatter.scatter_reduce, x, 1, index, src, reduce, False, list(ti.stride()), False, profile)
            out.append((f"serial {reduce}", want, impl))
        out.append(("scatter", tx.scatter(1, ti, ts), partial(scatter.scatter, x, 1, index, src)))
    elif case == "index_add":  # a middle dim (add_stub's fmadd: where two NaNs meet, its pick) and dim 0
        for first in (1, 0):
            dim, index, x, source = index_case(rng, (5, 9, 17), first)
            x, source = with_specials(rng, x), with_specials(rng, source)
            for a in (1.0, 0.3):
                want = torch.from_numpy(x).index_add(dim, torch.from_numpy(index), torch.from_numpy(source), alpha=a)
                impl = partial(scatter.index_add, x, dim, index, source, a, profile)
                out.append((f"index_add dim {dim} alpha {a}", want, impl))
    elif case == "index_copies":
        _, index, x, source = index_case(rng, (3, 17), 1)
        tx, ti, ts = torch.from_numpy(x), torch.from_numpy(index), torch.from_numpy(source)
        out.append(("index_copy", tx.index_copy(1, ti, ts), partial(scatter.index_copy, x, 1, index, source, 1)))
        out.append(("index_fill", tx.index_fill(1, ti[:4], -2.5), partial(scatter.index_fill, x, 1, index[:4], -2.5)))
        for reduce in scatter.INDEX_REDUCES:
            want = tx.index_reduce(1, ti, ts, reduce, include_self=False)
            out.append(
                (f"index_reduce {reduce}", want, partial(scatter.index_reduce, x, 1, index, source, reduce, False))
            )
        mask = rng.random(x.shape) < 0.5
        want = tx.masked_scatter(torch.from_numpy(mask), ts.reshape(-1))
        out.append(("masked_scatter", want, partial(scatter.masked_scatter, x, mask, source)))
    elif case == "index_put":
        x, rows = with_specials(rng, values(rng, (7, 17))), rng.integers(-7, 7, 30)
        v = with_specials(rng, values(rng, (30, 17)))
        tx, tr, tv = torch.from_numpy(x), torch.from_numpy(rows), torch.from_numpy(v)
        want = tx.index_put((tr,), tv, accumulate=True)
        out.append(("index_put", want, partial(scatter.index_put, x, [rows], v, profile.threads, True)))
        want = tx.clone().put_(tr, tv[:, 0].contiguous(), accumulate=True)
        out.append(("put_", want, partial(scatter.put, x, rows, v[:, 0].copy(), profile.threads, True)))
    elif case == "fold":
        img, geometry = with_specials(rng, values(rng, (2, 3, 9, 17))), ((3, 2), (1, 2), (1, 0), (2, 1))
        cols = torch.nn.functional.unfold(torch.from_numpy(img), *geometry)
        out.append(("im2col", cols, partial(scatter.im2col, img, *geometry)))
        folded = torch.nn.functional.fold(cols, (9, 17), *geometry)
        out.append(("col2im", folded, partial(scatter.col2im, cols.numpy(), (9, 17), *geometry)))
    else:  # nearest-exact's generic forward, 2 -> 41 (its source fused: element 1 at output 20), and 2-D
        for x, size in (
            (np.arange(2, dtype=np.float32).reshape(1, 1, 2), (41,)),
            (values(rng, (1, 3, 5, 7)), (9, 130)),
        ):
            want = torch.nn.functional.interpolate(torch.from_numpy(x), size=size, mode="nearest-exact")
            impl = partial(pool.upsample_nearest, x, size, (None,) * len(size), True, False, profile)
            out.append((f"nearest-exact {size}", want, impl))
    return out


def _note(want: torch.Tensor, got: np.ndarray) -> str:
    want_bits = np.ascontiguousarray(want.detach().numpy()).view(np.uint32)
    same = got.shape == want_bits.shape and np.array_equal(want_bits, np.asarray(got, np.float32).view(np.uint32))
    return "exact" if same else "differ"


def avx512_child() -> None:
    """Run in a fresh process at the avx512 level by test_avx512_level: each case's outputs at 1 and 2
    threads, "exact" or "differ" (or the refusal, which must not come), as one JSON line."""
    rows = []
    for threads in (1, 2):
        torch.set_num_threads(threads)
        profile = profile_for_capability(torch.backends.cpu.get_cpu_capability(), threads, platform.machine())
        for i, case in enumerate(AVX512_CASES):
            notes = {"profile": profile.name}
            for name, want, thunk in avx512_outputs(case, np.random.default_rng(2026 + i), profile):
                try:
                    notes[name] = _note(want, thunk())
                except ParityError as err:
                    notes[name] = f"refused: {err}"
            rows.append({"case": f"{case} at {threads} threads", "got": notes})
    print(json.dumps(rows))
