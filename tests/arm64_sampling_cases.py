"""Seeded random cases of grid_sampler_2d (and its backward), upsample_bicubic2d (and its backward),
upsample_bilinear2d_backward (channels-first) and channels-last native_group_norm (and its backward),
for tests/test_impl_arm64_sampling.py; imports only NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_sampling_cases.py`` records,
under emulation, the digests the test holds: one JSON line, op -> thread count -> the SHA-256 of every
output's uint32 bits over the op's cases in order (torch.set_num_threads(1), then 2, in one process).

Shapes off every vector width (4 and 8 lanes), grid_sampler's modes, paddings and align_corners drawn,
its grid contiguous, the x and y planes of an (N, 2, h, w) tensor or the rows of a wider tensor, its
grad_input asked for or not; bicubic and bilinear sizes up and down, with and without scale factors,
bicubic channels-last inputs too; group norm 4-D and 5-D, either side of the forward's 1024 and the
backward's 2048 pixels, with weight and bias or neither.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from harness.core.errors import ParityError
from harness.impl import nn, rows
from harness.impl.profiles import KernelProfile, get_profile

OPS = ("grid_sample", "upsample_bicubic2d", "bilinear_backward", "group_norm_cl", "bicubic_backward")
COUNTS = dict(zip(OPS, (48, 36, 36, 24, 36), strict=True))
GRID_SPECIALS = np.float32([1e10, -1e10, 3e9, -3e9, 1.0, -1.0, 0.0])
PIXELS = ((3, 5), (7, 9), (16, 16), (31, 33), (32, 33), (45, 46), (1, 1025), (2, 1100), (3, 700), (48, 48))


def _grid_values(r: np.random.Generator, shape: tuple[int, ...], h: int, w: int) -> np.ndarray:
    kind = int(r.integers(0, 4))
    if kind == 0:
        g = r.uniform(-1.1, 1.1, shape)
    elif kind == 1:
        g = r.uniform(-2.5, 2.5, shape)
    elif kind == 2:  # on pixel centres and corners, or just off them
        g = np.stack(
            [r.integers(-1, w + 1, shape[:-1]) / max(w - 1, 1) * 2 - 1,
             r.integers(-1, h + 1, shape[:-1]) / max(h - 1, 1) * 2 - 1], -1,
        ) + r.choice([0.0, 0.5 / max(w, 1), 1e-7], shape)  # fmt: skip
    else:
        g = r.standard_normal(shape) * 0.7
    g = g.astype(np.float32)
    k = int(r.integers(0, 3))
    g.reshape(-1)[r.integers(0, g.size, k)] = r.choice(GRID_SPECIALS, k)
    return g


def grid_strides(n: int, h: int, w: int, layout: int) -> tuple[int, int, int, int] | None:
    """The (N, h, w, 2) grid's element strides: None contiguous (layout 0); the x and y planes of an
    (N, 2, h, w) tensor (1); the first w of each row of an (N, h, w + 3, 2) tensor (2)."""
    if layout == 0:
        return None
    if layout == 1:
        return (2 * h * w, w, 1, h * w)
    return (h * (w + 3) * 2, (w + 3) * 2, 2, 1)


def _scaled_sizes(r: np.random.Generator, h: int, w: int) -> tuple[int, int, tuple[float | None, float | None]]:
    if r.integers(0, 3) == 0:
        sh, sw = float(r.choice([0.5, 1.5, 2.0, 2.7, 3.0])), float(r.choice([0.75, 1.3, 2.0, 2.5]))
        return max(1, int(h * sh)), max(1, int(w * sw)), (sh, sw)
    return int(r.integers(1, 14)), int(r.integers(1, 14)), (None, None)


def cases(op: str) -> Iterator[dict[str, Any]]:
    """The op's cases in order, each its operands and arguments."""
    if op == "bicubic_backward":  # the forward's cases, each with a gradient of its output
        for k, case in enumerate(cases("upsample_bicubic2d")):
            n, c = case["x"].shape[:2]
            yield {
                **case,
                "go": np.random.default_rng(500 + k).standard_normal((n, c, *case["size"])).astype(np.float32),
            }
        return
    for k in range(COUNTS[op]):
        r = np.random.default_rng(OPS.index(op) * 1000 + k)
        n, c, h, w = int(r.integers(1, 4)), int(r.integers(1, 6)), int(r.integers(1, 10)), int(r.integers(1, 10))
        if op == "grid_sample":
            gh, gw = int(r.integers(1, 8)), int(r.integers(1, 12))
            yield {
                "x": r.standard_normal((n, c, h, w)).astype(np.float32),
                "grid": _grid_values(r, (n, gh, gw, 2), h, w),
                "go": r.standard_normal((n, c, gh, gw)).astype(np.float32),
                "mode": 0 if k < 12 else int(r.integers(0, 2)), "padding": int(r.integers(0, 2)),
                "align": bool(r.integers(0, 2)), "layout": int(r.integers(0, 3)), "input_grad": bool(r.integers(0, 4)),
            }  # fmt: skip
        elif op == "upsample_bicubic2d":
            oh, ow, scales = _scaled_sizes(r, h, w)
            x = (r.standard_normal((n, c, h, w)) * 2).astype(np.float32)
            yield {"x": x, "size": (oh, ow), "scales": scales, "align": bool(r.integers(0, 2)),
                   "channels_last": bool(r.integers(0, 2))}  # fmt: skip
        elif op == "bilinear_backward":
            c = max(c, 2)  # one channel would be channels-last contiguous too (ATen's vectorised kernel)
            oh, ow, scales = _scaled_sizes(r, h, w)
            if scales[0] is None and r.integers(0, 5) == 0:
                oh = h  # an equal size copies
            ow = 2 if oh * ow == 1 else ow  # one pixel: the vectorised kernel too
            yield {"go": r.standard_normal((n, c, oh, ow)).astype(np.float32), "input_size": (n, c, h, w),
                   "scales": scales, "align": bool(r.integers(0, 2))}  # fmt: skip
        else:
            groups = int(r.choice([1, 2, 3, 4]))
            c = groups * int(r.choice([1, 2, 3, 5, 8, 9]))
            c = max(c, 2)  # one channel (or one pixel) is contiguous too: ATen takes the NCHW kernel
            groups = groups if c % groups == 0 else 1
            if k % 4 == 3:  # 5-D
                if k % 8 == 7:
                    spatial: tuple[int, ...] = (3, 23, 31)
                else:
                    spatial = (int(r.integers(1, 4)), int(r.integers(2, 20)), int(r.integers(1, 30)))
            else:
                spatial = PIXELS[k % len(PIXELS)]
            shape = (int(r.integers(1, 3)), c, *spatial)
            x = (r.standard_normal(shape) * r.choice([1.0, 3.0]) + r.choice([0.0, 2.0])).astype(np.float32)
            affine = bool(r.integers(0, 4))
            yield {
                "x": x, "dy": r.standard_normal(shape).astype(np.float32), "groups": groups,
                "weight": r.standard_normal(c).astype(np.float32) if affine else None,
                "bias": r.standard_normal(c).astype(np.float32) if affine else None,
                "eps": float(r.choice([1e-5, 1e-6])),
            }  # fmt: skip


def impl_outputs(op: str, case: dict[str, Any], profile: KernelProfile) -> list[np.ndarray]:
    """What the impl gives for one case, in the order torch_outputs lists torch's."""
    if op == "grid_sample":
        x, g, go, a = case["x"], case["grid"], case["go"], (case["align"], profile, case["mode"], case["padding"])
        out = nn.grid_sample(x, g, *a)
        stride = grid_strides(g.shape[0], g.shape[1], g.shape[2], case["layout"])
        gx, gg = nn.grid_sample_backward(go, x, g, case["align"], case["input_grad"], profile, stride, *a[2:])
        return [out, gg] if gx is None else [out, gx, gg]
    if op == "upsample_bicubic2d":
        return [nn.upsample_bicubic2d(case["x"], case["size"], case["align"], profile, case["scales"])]
    if op == "bilinear_backward":
        go, size, align, scales = case["go"], case["input_size"], case["align"], case["scales"]
        return [nn.upsample_bilinear2d_backward(go, size, align, profile, scales)]
    if op == "bicubic_backward":
        return [nn.upsample_bicubic2d_backward(case["go"], case["x"].shape, case["align"], profile, case["scales"])]
    x, w, groups = case["x"], case["weight"], case["groups"]
    y, mean, rstd = rows.group_norm(x, w, case["bias"], groups, case["eps"], profile, channels_last=True)
    gx, gw, gb = rows.group_norm_backward(case["dy"], x, mean, rstd, w, groups, profile, channels_last=True)
    return [y, mean, rstd, gx] + ([] if w is None else [gw, gb])


def torch_outputs(op: str, case: dict[str, Any]) -> list[np.ndarray]:  # pragma: no cover - under emulation
    import torch

    aten = torch.ops.aten
    t = torch.from_numpy
    if op == "grid_sample":
        g = case["grid"]
        if case["layout"] == 1:
            grid = t(np.ascontiguousarray(np.moveaxis(g, -1, 1))).permute(0, 2, 3, 1)
        elif case["layout"] == 2:
            wide = np.zeros((g.shape[0], g.shape[1], g.shape[2] + 3, 2), np.float32)
            wide[:, :, : g.shape[2]] = g
            grid = t(wide)[:, :, : g.shape[2]]
        else:
            grid = t(g)
        expected = grid_strides(g.shape[0], g.shape[1], g.shape[2], case["layout"])
        assert expected is None or tuple(grid.stride()) == expected
        x, a = t(case["x"]), (case["mode"], case["padding"], case["align"])
        out = aten.grid_sampler_2d(x, grid, *a)
        gx, gg = aten.grid_sampler_2d_backward(t(case["go"]), x, grid, *a, [case["input_grad"], True])
        return [out, gg] if not case["input_grad"] else [out, gx, gg]
    if op == "upsample_bicubic2d":
        x = t(case["x"])
        if case["channels_last"]:
            x = x.contiguous(memory_format=torch.channels_last)
        return [aten.upsample_bicubic2d(x, list(case["size"]), case["align"], *case["scales"])]
    if op == "bilinear_backward":
        go = t(case["go"])
        size = list(case["input_size"])
        return [aten.upsample_bilinear2d_backward(go, list(go.shape[2:]), size, case["align"], *case["scales"])]
    if op == "bicubic_backward":
        go, size = t(case["go"]), list(case["x"].shape)
        return [aten.upsample_bicubic2d_backward(go, list(case["size"]), size, case["align"], *case["scales"])]
    x = t(case["x"])
    fmt = torch.channels_last if x.ndim == 4 else torch.channels_last_3d
    x, dy = x.contiguous(memory_format=fmt), t(case["dy"]).contiguous(memory_format=fmt)
    assert x.stride(1) == 1 and dy.stride(1) == 1
    n, c, hxw, groups = x.shape[0], x.shape[1], x[0, 0].numel(), case["groups"]
    w, b = (None if v is None else t(v) for v in (case["weight"], case["bias"]))
    y, mean, rstd = aten.native_group_norm(x, w, b, n, c, hxw, groups, case["eps"])
    mask = [True, w is not None, w is not None]
    gx, gw, gb = aten.native_group_norm_backward(dy, x, mean, rstd, w, n, c, hxw, groups, mask)
    return [y, mean, rstd, gx] + ([] if w is None else [gw, gb])


def cdist_case(
    r: np.random.Generator, k: int, sizes: tuple[int, ...], specials: np.ndarray, ps: tuple[float, ...],
    equal_columns: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Case ``k`` of cdist and its backward: x1 (d, r1, m) and x2 (d, r2, m), m from ``sizes``, p from ``ps`` in
    turn; every third case with ``specials`` at 5% of the places; with ``equal_columns`` the case after each of
    those with x2's first m/2 columns x1's first row's (zero differences); its backward's grad of the distances'
    shape."""
    d, r1, r2, m = int(r.integers(1, 3)), int(r.integers(1, 9)), int(r.integers(1, 9)), int(r.choice(sizes))
    x1 = (r.standard_normal((d, r1, m)) * 2.0).astype(np.float32)
    x2 = (r.standard_normal((d, r2, m)) * 2.0).astype(np.float32)
    if k % 3 == 2:
        for x in (x1, x2):
            mask = r.random(x.shape) < 0.05
            x[mask] = r.choice(specials, int(mask.sum()))
    elif k % 3 == 1 and equal_columns:
        x2[..., : m // 2] = x1[:, :1, : m // 2]
    grad = r.standard_normal((d, r1, r2)).astype(np.float32)
    return {"x1": x1, "x2": x2, "p": ps[k % len(ps)], "grad": grad}


def place_specials(x: np.ndarray, specials: np.ndarray, rng: np.random.Generator, count: int) -> None:
    """Put ``specials`` at the front of ``x`` (as many as fit) and ``count`` of them at random places."""
    front = min(x.size, specials.size)
    x[:front] = specials[:front]
    x[rng.integers(0, x.size, count)] = rng.choice(specials, count)


# the emulated cores' profiles (Neoverse N1, V2, V1) and the thread counts each recording was taken at
ARM64_PROFILES = ("arm64-neon", "arm64-sve128", "arm64-sve256")
RECORDED_THREADS = (1, 2, 4)


def recording_grid(ops: Iterable[str]) -> list[tuple[str, str, int]]:
    """Every (op, profile, threads) a case file's recordings cover."""
    return [(op, name, threads) for op in ops for name in ARM64_PROFILES for threads in RECORDED_THREADS]


def replayed_case_file(cases: Any, op: str, profile_name: str, threads: int) -> tuple[str, tuple[int, ...]]:
    """``replayed`` of a case file's ``CASES[op]()`` through its ``impl_output`` under ``profile_name`` at
    ``threads``."""
    profile = get_profile(profile_name, threads)
    return replayed(cases.CASES[op](), lambda case, prof: cases.impl_output(op, case, prof), profile)


def replayed(
    cases: Iterable[Any], output: Callable[[Any, KernelProfile], Any], profile: KernelProfile
) -> tuple[str, tuple[int, ...]]:
    """The digest of the impl's output for each case it does not refuse (``digest``) and the indices of the cases
    it refuses: what ``recorded`` gives of a recording."""
    outputs, refused = [], []
    for j, case in enumerate(cases):
        try:
            outputs.append([output(case, profile)])
        except ParityError:
            refused.append(j)
    return digest(iter(outputs)), tuple(refused)


def recorded(
    digests: dict[Any, str | tuple[str, ...]], refusals: dict[Any, Any], key: Any, threads: int
) -> tuple[str, tuple[int, ...]]:
    """A recording's digest and refused cases at ``threads`` (1, 2 or 4): one for every thread count, or one
    per thread count."""
    expected, refused = digests[key], refusals.get(key, ())
    at = RECORDED_THREADS.index(threads)
    return (expected if isinstance(expected, str) else expected[at],
            refused[at] if refused and isinstance(refused[0], tuple) else refused)  # fmt: skip


def digest(outputs: Iterator[list[Any]]) -> str:
    """The SHA-256 of every output's float32 bits (C order, logical layout) in order."""
    h = hashlib.sha256()
    for outs in outputs:
        for out in outs:
            a = out.detach().contiguous().numpy() if hasattr(out, "detach") else out
            h.update(np.ascontiguousarray(a, np.float32).view(np.uint32).tobytes())
    return h.hexdigest()


def record_digests(ops: tuple[str, ...], threads: tuple[int, ...], cases: dict[str, Any],
                   output: Any) -> None:  # fmt: skip  # pragma: no cover - under emulation
    """Print op -> thread count -> the digest of torch's ``output(op, case)`` over ``cases[op]()`` (one
    output a case), each thread count set in this process in turn; with a path argument also save every
    output's uint32 bits there (npz, keys op/threads/case)."""
    import torch

    record: dict[str, dict[int, str]] = {op: {} for op in ops}
    bits: dict[str, np.ndarray] = {}
    for t in threads:
        torch.set_num_threads(t)
        for op in ops:
            outs = [[output(op, c)] for c in cases[op]()]
            record[op][t] = digest(iter(outs))
            for j, (out,) in enumerate(outs):
                bits[f"{op}/{t}/{j}"] = out.contiguous().numpy().view(np.uint32)
    if len(sys.argv) > 1:
        np.savez(sys.argv[1], **bits)
    print(json.dumps(record))


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    import torch

    record: dict[str, dict[int, str]] = {op: {} for op in OPS}
    bits: dict[str, np.ndarray] = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for op in OPS:
            outs = [torch_outputs(op, case) for case in cases(op)]
            record[op][threads] = digest(iter(outs))
            for k, o in enumerate(outs):
                for j, a in enumerate(o):
                    bits[f"t{threads}/{op}/{k}/{j}"] = a.detach().contiguous().numpy().view(np.uint32)
    if len(sys.argv) > 1:
        np.savez(sys.argv[1], **bits)
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
