"""Seeded random cases of batch norm on ATen's TensorIterator path (an input neither contiguous nor
channels-last: training forward, eval forward, backward), of the linear upsampling backwards over a
channels-last contiguous gradient (bilinear 2-D, trilinear 3-D), of the antialiased bicubic
interpolation and its backward, and of mul of complex64 tensors, for
tests/test_impl_arm64_layouts_aa_complex.py; imports only NumPy and the impl (torch where it records),
so that ``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_layouts_aa_complex_cases.py
[OUT.npz]`` records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's
uint32 bits over that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with
OUT.npz also the outputs themselves (each case's outputs flattened and joined, complex as (re, im); batch
norm's training forward with its updated running statistics).

Sizes off the 4- and 8-lane vectors and either side of the reductions' and loops' thread grains; every
third case's values (every second batch norm case's) carry NaNs of both signs, infinities, signed zeros and
subnormals.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import record_digests

OPS = ("bn_train", "bn_eval", "bn_backward", "bilinear2d_backward_cl", "trilinear3d_backward_cl", "bicubic_aa",
       "bicubic_aa_backward", "complex_mul")  # fmt: skip
COUNT = dict(zip(OPS, (16, 10, 16, 16, 12, 16, 16, 18), strict=True))
THREADS = (1, 2, 4)
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0x7F800000, 0xFF800000, 0, 0x80000000, 1, 0x807FFFFF],
               np.uint32).view(np.float32)  # fmt: skip


def _values(r: np.random.Generator, shape: tuple[int, ...], specials: bool, scale: float = 2.0,
            odd: np.ndarray = ODD) -> np.ndarray:  # fmt: skip
    x = (r.standard_normal(shape) * scale + 0.5).astype(np.float32)
    if specials:
        mask = r.random(shape) < 0.05
        x[mask] = r.choice(odd, int(mask.sum()))
    return x


def _bn_odd(k: int) -> np.ndarray:
    """The specials of batch norm case ``k``: infinities, signed zeros, subnormals and one NaN pattern
    (+qNaN, a payload, -qNaN in turn), or every NaN pattern at once (each sixth case: refused)."""
    if k % 6 == 5:
        return ODD
    nan = np.uint32([0x7FC00000, 0x7FC00123, 0x7FC00000, 0xFFC00000][k // 2 % 4]).view(np.float32)
    return np.concatenate([ODD[3:], [nan]])


def _bn_layout(r: np.random.Generator, k: int, specials: bool) -> dict[str, Any]:
    """A (N, C, ...) operand as memory ``base`` and the view torch takes of it: ``kind`` transposed (N, L, C)
    memory seen as (N, C, L), permuted (W, N, H, C) memory cut by a slice, or a transposed (C, N) matrix."""
    kind = ("transposed", "permuted", "matrix")[k % 3]
    n, c = int(r.integers(1, 4)), int(r.choice([2, 3, 5, 7, 9, 13, 17, 33]))
    if kind == "transposed":
        length = int(r.choice([3, 7, 19, 130, 700]))
        base = _values(r, (n, length, c), specials, odd=_bn_odd(k))
    elif kind == "permuted":
        length = int(r.choice([3, 5, 9, 40]))  # past 2: one column left would be dense
        base = _values(r, (length, n, 3, c), specials, odd=_bn_odd(k))
    else:
        base = _values(r, (c, int(r.choice([2, 5, 11, 300]))), specials, odd=_bn_odd(k))
    return {"kind": kind, "base": base}


def _bn_view(case: dict[str, Any], base: Any = None) -> Any:
    """The view of ``base`` (default the case's; a NumPy array or a torch tensor of its shape) that the
    case's operand is: the same strides and first element in NumPy and in torch."""
    base = case["base"] if base is None else base
    permute = base.permute if hasattr(base, "permute") else base.transpose
    if case["kind"] == "transposed":
        return permute(0, 2, 1)
    if case["kind"] == "permuted":
        return permute(1, 3, 2, 0)[:, :, :, 1:]
    return permute(1, 0)


def _bn_case(r: np.random.Generator, k: int, specials: bool, op: str) -> dict[str, Any]:
    case = _bn_layout(r, k, specials)
    shape = _bn_view(case).shape
    c = shape[1]
    affine = k % 4 != 3
    case["weight"] = (1 + 0.1 * r.standard_normal(c)).astype(np.float32) if affine else None
    case["bias"] = (0.1 * r.standard_normal(c)).astype(np.float32) if affine else None
    case["rm"] = (0.1 * r.standard_normal(c)).astype(np.float32)
    case["rv"] = (1 + r.random(c)).astype(np.float32)
    if op == "bn_backward":
        case["g"] = _values(r, shape, specials, 1.0, _bn_odd(k))
        case["g_t"] = k % 5 == 4  # grad_out laid out as the input's view too (else contiguous)
    return case


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT[op]):
        specials, align = k % 3 == 2, bool(k % 2)
        if op.startswith("bn_"):
            yield _bn_case(r, k, k % 2 == 1, op)
        elif op.endswith("_cl"):
            dims = 2 if op.startswith("bilinear") else 3
            ins = tuple(int(v) for v in r.integers(1, 9 if dims == 2 else 5, dims))
            outs = tuple(int(v) for v in r.integers(1, 14 if dims == 2 else 7, dims))
            n, c = int(r.integers(1, 3)), int(r.choice([2, 3, 4, 5, 7, 8, 9, 12, 17, 31]))
            scales = tuple(float(o) / i * float(r.uniform(0.9, 1.1)) for i, o in zip(ins, outs, strict=True))
            yield {"align": align, "input_size": (n, c, *ins), "g": _values(r, (n, c, *outs), specials),
                   "scales": scales if k % 4 == 2 and not align else (None,) * dims}  # fmt: skip
        elif op.startswith("bicubic_aa"):
            h, w = int(r.integers(1, 41)), int(r.integers(1, 41))
            oh, ow = int(r.integers(1, 24)), int(r.integers(1, 24))
            n, c = int(r.integers(1, 3)), int(r.integers(1, 4))
            case = {"align": align, "in": (n, c, h, w), "out": (oh, ow), "scales": (None, None)}
            if k % 4 == 2 and not align:
                case["scales"] = (oh / h * float(r.uniform(0.9, 1.1)), ow / w * float(r.uniform(0.9, 1.1)))
            shape = (n, c, oh, ow) if op.endswith("backward") else (n, c, h, w)
            case["x"] = _values(r, shape, specials and k % 6 == 5)  # a NaN or infinity in 2 of 12 (refused)
            yield case
        else:
            rows, n = int(r.integers(1, 5)), int(r.integers(1, 24))
            v = (r.standard_normal((3, rows, n, 2)) * 8).astype(np.float32)
            if specials:
                mask = r.random(v.shape) < 0.1
                v[mask] = r.choice(ODD[3:] if k % 6 == 2 else ODD, int(mask.sum()))  # NaN in half of them
            yield {"form": ("same", "row", "column", "number", "slice", "same")[k % 6], "v": v}


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 7301)}


def _wide(v: np.ndarray) -> np.ndarray:
    """A slice case's wider rows: its third operand's (rows, n) complex values and 3 zeros after each row."""
    return np.ascontiguousarray(np.concatenate([v[2], np.zeros((v.shape[1], 3, 2), np.float32)], axis=1))


def _complex_operands(case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The two operands of a complex mul case (complex64 arrays of their shapes; a number's as 0-dim) and
    the trace's arguments: shapes and strides (in complex elements) as torch's views have them."""
    v, form = case["v"], case["form"]
    a = np.ascontiguousarray(v[0]).view(np.complex64)[..., 0]
    b = np.ascontiguousarray(v[1]).view(np.complex64)[..., 0]
    rows, n = a.shape
    args: dict[str, Any] = {"self.shape": [rows, n], "self.stride": [n, 1]}
    if form == "row":
        b = b[:1]
    elif form == "column":
        b = np.ascontiguousarray(b[:, :1])
    elif form == "number":
        b = np.asarray(complex(float(v[1, 0, 0, 0]), 0.0), np.complex64)
        return a, b, {**args, "other": float(v[1, 0, 0, 0])}
    elif form == "slice":  # the rows of a wider tensor, n + 3 long
        full = _wide(v).view(np.complex64)[..., 0]
        return full[:, :n], b, {**args, "self.stride": [n + 3, 1], "other.shape": [rows, n], "other.stride": [n, 1]}
    return a, b, {**args, "other.shape": list(b.shape), "other.stride": [b.shape[1], 1]}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    """The impl's outputs for one case of ``op`` through the trace's replays, flattened and joined."""
    from harness.trace.impl_nn import REPLAYS as NN

    if op.startswith("bn_"):
        x = _bn_view(case)
        t = {"input": np.ascontiguousarray(x), "running_mean": case["rm"].copy(), "running_var": case["rv"].copy()}
        t |= {k: case[k] for k in ("weight", "bias") if case[k] is not None}
        a: dict[str, Any] = {"input.stride": [s // 4 for s in x.strides], "eps": 1e-5, "momentum": 0.1}
        if op == "bn_eval":
            return NN["native_batch_norm"](t, {**a, "training": False}, profile)["out0"].reshape(-1)
        train = NN["native_batch_norm"](t, {**a, "training": True}, profile)
        if op == "bn_train":  # the running statistics too (the replay's outputs are the op's)
            from harness.impl.nn import batch_norm_generic

            stats = batch_norm_generic(x, case["weight"], case["bias"], case["rm"], case["rv"], 0.1, 1e-5, profile)
            outs = [train[k] for k in ("out0", "out1", "out2")] + [stats[3], stats[4]]
            return np.concatenate([o.reshape(-1) for o in outs])
        g_stride = a["input.stride"] if case["g_t"] else None  # grad_out in the input's layout, or contiguous
        tb = {
            "input": t["input"],
            "grad_out": np.ascontiguousarray(case["g"]),
            "save_mean": train["out1"],
            "save_invstd": train["out2"],
            **({"weight": case["weight"]} if case["weight"] is not None else {}),
        }
        affine = case["weight"] is not None
        ab = {"input.stride": a["input.stride"], "grad_out.stride": g_stride, "training": True,
              "output_mask": [True, affine, affine]}  # fmt: skip
        out = NN["native_batch_norm_backward"](tb, ab, profile)
        return np.concatenate([out[k].reshape(-1) for k in ("out0", "out1", "out2") if k in out])
    if op.endswith("_cl"):
        g = case["g"]
        c, *outs = g.shape[1:]
        stride = [int(np.prod(outs)) * c, 1, *(int(np.prod(outs[i + 1 :])) * c for i in range(len(outs)))]
        name = "upsample_bilinear2d_backward" if op.startswith("bilinear") else "upsample_trilinear3d_backward"
        keys = ("scales_h", "scales_w") if len(outs) == 2 else ("scales_d", "scales_h", "scales_w")
        args = {"align_corners": case["align"], "output_size": outs, "input_size": list(case["input_size"]),
                "grad_output.stride": stride, **dict(zip(keys, case["scales"], strict=True))}  # fmt: skip
        return NN[name]({"grad_output": g}, args, profile)["out"].reshape(-1)
    if op.startswith("bicubic_aa"):
        args = {"align_corners": case["align"], "scales_h": case["scales"][0], "scales_w": case["scales"][1]}
        if op == "bicubic_aa":
            out = NN["_upsample_bicubic2d_aa"]({"self": case["x"]}, {**args, "output_size": list(case["out"])}, profile)
        else:
            args |= {"output_size": list(case["out"]), "input_size": list(case["in"])}
            out = NN["_upsample_bicubic2d_aa_backward"]({"grad_output": case["x"]}, args, profile)
        return out["out"].reshape(-1)
    x, y, args = _complex_operands(case)
    t = {"self": np.stack([x.real, x.imag], axis=-1).astype(np.float32)}
    if "other" not in args:
        t["other"] = np.stack([y.real, y.imag], axis=-1).astype(np.float32)
    return NN["mul"](t, args, profile)["out"].reshape(-1)


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    aten, t = torch.ops.aten, torch.from_numpy
    if op.startswith("bn_"):
        base = t(case["base"].copy())
        x = _bn_view(case, base)
        assert list(x.stride()) == [s // 4 for s in _bn_view(case).strides]
        w, b = (None if case[k] is None else t(case[k].copy()) for k in ("weight", "bias"))
        rm, rv = t(case["rm"].copy()), t(case["rv"].copy())
        if op == "bn_eval":
            return aten.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)[0].reshape(-1)
        out, mean, invstd = aten.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
        if op == "bn_train":
            return torch.cat([out.contiguous().reshape(-1), mean, invstd, rm, rv])
        g = t(case["g"].copy())
        if case["g_t"]:  # the input's layout: the same view of a buffer like the input's
            view = _bn_view(case, torch.empty_like(base))
            g = view.copy_(g)
        affine = w is not None
        gx, gw, gb = aten.native_batch_norm_backward(
            g, x, w, None, None, mean, invstd, True, 1e-5, [True, affine, affine]
        )
        return torch.cat([o.contiguous().reshape(-1) for o in (gx, gw, gb) if o is not None])
    if op.endswith("_cl"):
        g = t(case["g"].copy())
        g = g.contiguous(memory_format=torch.channels_last if g.ndim == 4 else torch.channels_last_3d)
        f = aten.upsample_bilinear2d_backward if g.ndim == 4 else aten.upsample_trilinear3d_backward
        return (
            f(g, list(g.shape[2:]), list(case["input_size"]), case["align"], *case["scales"]).contiguous().reshape(-1)
        )
    if op.startswith("bicubic_aa"):
        x = t(case["x"].copy())
        if op == "bicubic_aa":
            return aten._upsample_bicubic2d_aa(x, list(case["out"]), case["align"], *case["scales"]).reshape(-1)
        return aten._upsample_bicubic2d_aa_backward(x, list(case["out"]), list(case["in"]), case["align"],
                                                    *case["scales"]).reshape(-1)  # fmt: skip
    x, y, args = _complex_operands(case)
    slice_of_wide = torch.view_as_complex(t(_wide(case["v"])))[:, : x.shape[1]]
    tx = slice_of_wide if case["form"] == "slice" else t(x.copy())
    other = args["other"] if "other" in args else t(np.ascontiguousarray(y))
    assert list(tx.stride()) == args["self.stride"]
    return torch.view_as_real(tx * other).reshape(-1)


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
