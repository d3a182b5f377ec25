"""Seeded random cases of mish and its backward, lerp (a number or a tensor weight), addcmul, addcdiv, sinc, atan2,
exponential_ (a seeded generator per case), prelu's kernel and its backward (operands of one shape),
smooth_l1_loss and huber_loss (reductions none, mean and sum), _ctc_loss and its backward, reflection and
replication padding's backwards, unfold_backward, nll_loss2d (class weights or none) and its backward,
_cdist_forward (p = 0, 1, 2, inf) and its backward,
for tests/test_impl_arm64_pointwise.py; imports only NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_pointwise_cases.py [OUT.npz]``
records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits over
that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs.

Contiguous operands of 1 to 100 elements (off the 4- and 8-lane vectors and the bodies' blocks of two
vectors) and of 32,767 to 70,000 (either side of the 32,768-element grain: 2 and 4 threads cut them);
every third case's values carry NaNs (quiet and signalling, both signs, payloads), infinities, signed zeros
and subnormals, in the binary and ternary ops at the same places in every operand every other such case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import ctc, nn, optim, rng, unary
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import cdist_case, record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import cdist_case, record_digests

OPS = ("mish", "mish_backward", "lerp", "lerp_tensor", "addcmul", "addcdiv", "sinc", "atan2", "exponential", "prelu",
       "prelu_backward", "smooth_l1_loss", "huber_loss", "ctc_loss", "ctc_loss_backward", "padding_backward",
       "unfold_backward", "nll_loss2d", "nll_loss2d_backward", "cdist", "cdist_backward")  # fmt: skip
COUNT = 18
THREADS = (1, 2, 4)
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001, 0x7F800000, 0xFF800000, 0, 0x80000000,
                1, 0x807FFFFF], np.uint32).view(np.float32)  # fmt: skip
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 64, 65, 100)
LARGE = (32767, 32769, 40000, 65543, 70000)
ARITY = {"smooth_l1_loss": 2, "huber_loss": 2, "prelu": 2, "prelu_backward": 3, "atan2": 2, "mish_backward": 2,
         "lerp": 2, "lerp_tensor": 3, "addcmul": 3, "addcdiv": 3}  # fmt: skip
WEIGHTS = (0.3, 0.7, -0.25, 1.5, 0.5, 0.125)
VALUES = (1.0, 0.5, -2.5, 0.1, 3.0)
BETAS = (1.0, 0.5, 2.0, 0.1, 3.0)


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT):
        n = int(r.choice(LARGE)) if k % 6 == 4 else int(r.choice(SIZES))
        if op.startswith("ctc"):
            yield _ctc_case(r, k)
            continue
        if op.startswith("nll"):
            yield _nll_case(r, k)
            continue
        if op.startswith("cdist"):
            yield cdist_case(r, k, SIZES, ODD, (0.0, 1.0, 2.0, float("inf")))
            continue
        if op in ("padding_backward", "unfold_backward"):
            yield _fold_case(op, r, k)
            continue
        if op == "exponential":  # a generator seeded per case, lambd of a few magnitudes
            yield {"seed": int(r.integers(1, 2**40)), "n": n, "lambd": float(r.choice([1.0, 2.0, 0.37, 150.0]))}
            continue
        scale = 40.0 if op == "sinc" and k % 2 else 3.0
        xs = [(r.standard_normal(n) * scale).astype(np.float32) for _ in range(ARITY.get(op, 1))]
        if op == "lerp_tensor":
            xs[2] = r.uniform(-0.5, 1.5, n).astype(np.float32)
        if k % 3 == 2:
            mask = r.random(n) < 0.2
            for j, x in enumerate(xs):
                if j and k % 2:  # other places in each operand
                    mask = r.random(n) < 0.2
                x[mask] = r.choice(ODD, int(mask.sum()))
        case: dict[str, Any] = {"xs": xs}
        if op == "lerp":
            case["w"] = float(r.choice(WEIGHTS))
        elif op in ("addcmul", "addcdiv"):
            case["w"] = float(r.choice(VALUES))
        elif op in ("smooth_l1_loss", "huber_loss"):  # beta / delta, reduction none, mean, sum in turn
            case["w"], case["reduction"] = float(r.choice(BETAS)), k % 3
        yield case
    yield from _fixed(op)


def _fixed(op: str) -> Iterator[dict[str, Any]]:
    """Explicit cases of 17 elements (16 in the vector body on every core): mish_backward's NaN x under a NaN
    dy and under a number, and of -inf (inf * 0 in the bracket)."""
    if op == "mish_backward":
        dy = np.array([0x7FC00123] * 4 + [0xFF800456] * 4 + [0x3F800000] * 9, np.uint32).view(np.float32)
        x = np.array([0xFFC00000, 0x7F800001, 0xFF800000, 0x7FC00000] * 4 + [0x7F800001], np.uint32).view(np.float32)
        yield {"xs": [dy, x]}


def _ctc_case(r: np.random.Generator, k: int) -> dict[str, Any]:
    """log_probs (T, B, C) log-softmaxed normals (every third case with -inf entries, one in six with +inf),
    padded (B, S) targets of classes 1 to C - 1 (blank 0), lengths up to T, a gradient per batch element."""
    t, b, c = int(r.integers(1, 40)), int(r.integers(1, 5)), int(r.integers(2, 12))
    z = r.standard_normal((t, b, c)) * 2.0
    lp = (z - np.log(np.exp(z).sum(-1, keepdims=True))).astype(np.float32)
    if k % 3 == 2:
        lp[r.random(lp.shape) < 0.1] = np.float32(-np.inf)
    if k % 6 == 5:
        lp[r.random(lp.shape) < 0.02] = np.float32(np.inf)
    il = r.integers(0, t + 1, b) if k % 4 == 3 else np.full(b, t)
    tl = np.minimum(r.integers(0, max(1, t // 2) + 1, b), il)
    targets = r.integers(1, c, (b, max(1, int(tl.max(initial=0))))) if c > 1 else np.zeros((b, 1), np.int64)
    return {"lp": lp, "targets": targets.astype(np.int64), "il": il.tolist(), "tl": tl.tolist(),
            "grad": r.standard_normal(b).astype(np.float32), "zero_infinity": bool(k % 2)}  # fmt: skip


def _fold_case(op: str, r: np.random.Generator, k: int) -> dict[str, Any]:
    """reflection / replication padding's backward (1-D to 3-D pads of (N, C, *spatial)) and unfold_backward
    (a window size and step over one dim, overlapping or not); every third gradient with NaNs and infinities."""
    if op == "padding_backward":
        dims, mode = k % 3 + 1, ("reflection", "replication")[k % 2]
        spatial = [int(r.integers(2, 9 if dims > 1 else 40)) for _ in range(dims)]
        pads = [int(r.integers(0, s)) for s in spatial for _ in range(2)][::-1]  # (last dim's lo, hi, ...)
        shape = [int(r.integers(1, 3)), int(r.integers(1, 5)), *spatial]
        out = [s + pads[2 * (dims - 1 - d)] + pads[2 * (dims - 1 - d) + 1] for d, s in enumerate(spatial)]
        g = (r.standard_normal(shape[:2] + out) * 3.0).astype(np.float32)
        case = {"mode": mode, "shape": shape, "padding": pads}
    else:
        shape = [int(r.integers(1, 6)) for _ in range(int(r.integers(1, 4)))]
        dim = int(r.integers(0, len(shape)))
        shape[dim] = int(r.integers(3, 60))
        size, step = int(r.integers(1, shape[dim] + 1)), int(r.integers(1, 6))
        folds = (shape[dim] - size) // step + 1
        gshape = [*shape[:dim], folds, *shape[dim + 1 :], size]
        g = (r.standard_normal(gshape) * 3.0).astype(np.float32)
        case = {"shape": shape, "dim": dim, "size": size, "step": step}
    if k % 3 == 2:
        mask = r.random(g.shape) < 0.2
        g[mask] = r.choice(ODD, int(mask.sum()))
    return {**case, "g": g}


def _nll_case(r: np.random.Generator, k: int) -> dict[str, Any]:
    """nll_loss2d of input (N, C, H, W) log-softmaxed normals, targets with ignored pixels (ignore_index -100),
    class weights every other case, reductions none, mean and sum in turn."""
    n, c, h, w = (int(r.integers(1, 4)), int(r.integers(2, 9)), int(r.integers(1, 40)), int(r.integers(1, 40)))
    z = r.standard_normal((n, c, h, w)) * 2.0
    x = (z - np.log(np.exp(z).sum(1, keepdims=True))).astype(np.float32)
    target = r.integers(0, c, (n, h, w))
    target[r.random(target.shape) < 0.1] = -100
    weight = r.uniform(0.1, 3.0, c).astype(np.float32) if k % 2 else None
    return {"x": x, "target": target, "weight": weight, "reduction": k % 3, "grad": r.standard_normal(
        (n, h, w) if k % 3 == 0 else ()).astype(np.float32)}  # fmt: skip


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 9101)}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    if op == "exponential":
        return rng.exponential_(rng.CPUGenerator(case["seed"]), case["n"], case["lambd"])
    if op.startswith("cdist"):
        dist = nn.cdist(case["x1"], case["x2"], case["p"], profile)
        if op == "cdist":
            return dist
        return nn.cdist_backward(case["grad"], case["x1"], case["x2"], case["p"], dist, profile)
    if op.startswith("nll"):
        from harness.impl import rows

        how = ("none", "mean", "sum")[case["reduction"]]
        loss, total = rows.nll_loss2d(case["x"], case["target"], case["weight"], how, -100, profile)
        if op == "nll_loss2d":
            return np.concatenate([loss.reshape(-1), total.reshape(-1)])
        return rows.nll_loss2d_backward(case["grad"], case["x"].shape, case["target"], case["weight"], how, -100,
                                        total, profile)  # fmt: skip
    if op == "padding_backward":
        from harness.trace.impl_nn import REPLAYS as NN

        args = {"padding": case["padding"]}
        t = {"grad_output": case["g"], "self": np.zeros(case["shape"], np.float32)}
        return NN[f"{case['mode']}_pad{len(case['padding']) // 2}d_backward"](t, args, profile)["out"]
    if op == "unfold_backward":
        from harness.trace.impl_nn import REPLAYS as NN

        args = {"input_sizes": case["shape"], "dim": case["dim"], "size": case["size"], "step": case["step"]}
        return NN["unfold_backward"]({"grad_in": case["g"]}, args, profile)["out"]
    if op == "ctc_loss":
        return ctc.ctc_loss(case["lp"], case["targets"], case["il"], case["tl"], 0, profile)[0]
    if op == "ctc_loss_backward":
        nll = ctc.ctc_loss(case["lp"], case["targets"], case["il"], case["tl"], 0, profile)[0]
        return ctc.ctc_loss_backward(case["grad"], case["lp"], case["targets"], case["il"], case["tl"], nll, 0,
                                     case["zero_infinity"], profile)  # fmt: skip
    xs = tuple(case["xs"])
    if op == "mish":
        return unary.mish(xs[0], None, profile)
    if op == "mish_backward":
        return unary.mish(xs[1], xs[0], profile)
    if op == "sinc":
        return nn.sinc(xs[0], profile)
    if op == "atan2":
        return unary.binary_kernel("atan2", xs, profile)
    if op == "prelu":
        return nn.prelu(xs[0], xs[1], profile)
    if op in ("smooth_l1_loss", "huber_loss"):
        from harness.trace.impl_ops import REPLAYS

        args = {"reduction": case["reduction"], "beta" if op == "smooth_l1_loss" else "delta": case["w"]}
        return REPLAYS[op]({"self": xs[0], "target": xs[1]}, args, profile)["out"]
    if op == "prelu_backward":  # (grad, x, weight) -> grad_input and grad_weight, one after the other
        return np.concatenate(nn.prelu_backward(xs[0], xs[1], xs[2], profile))
    if op == "lerp_tensor":
        return optim.pointwise("lerp", xs[0], xs[1], xs[2], 0.0, profile)
    return optim.pointwise(op, xs[0], xs[1], xs[2] if len(xs) > 2 else None, case["w"], profile)


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    aten = torch.ops.aten
    if op == "exponential":
        g = torch.Generator().manual_seed(case["seed"])
        return torch.empty(case["n"]).exponential_(case["lambd"], generator=g)
    if op.startswith("cdist"):
        x1, x2 = torch.from_numpy(case["x1"].copy()), torch.from_numpy(case["x2"].copy())
        dist = aten._cdist_forward(x1, x2, case["p"], None)
        if op == "cdist":
            return dist
        return aten._cdist_backward(torch.from_numpy(case["grad"].copy()), x1, x2, case["p"], dist)
    if op.startswith("nll"):
        x, target = torch.from_numpy(case["x"].copy()), torch.from_numpy(case["target"].copy())
        weight = None if case["weight"] is None else torch.from_numpy(case["weight"].copy())
        loss, total = aten.nll_loss2d_forward(x, target, weight, case["reduction"], -100)
        if op == "nll_loss2d":
            return torch.cat([loss.reshape(-1), total.reshape(-1)])
        grad = torch.from_numpy(case["grad"].copy())
        return aten.nll_loss2d_backward(grad, x, target, weight, case["reduction"], -100, total)
    if op == "padding_backward":
        name = f"{case['mode']}_pad{len(case['padding']) // 2}d_backward"
        return getattr(aten, name)(torch.from_numpy(case["g"].copy()), torch.zeros(case["shape"]), case["padding"])
    if op == "unfold_backward":
        g = torch.from_numpy(case["g"].copy())
        return aten.unfold_backward(g, case["shape"], case["dim"], case["size"], case["step"])
    if op.startswith("ctc"):
        lp, targets = torch.from_numpy(case["lp"].copy()), torch.from_numpy(case["targets"].copy())
        nll, alpha = aten._ctc_loss(lp, targets, case["il"], case["tl"], 0, case["zero_infinity"])
        if op == "ctc_loss":
            return nll
        grad = torch.from_numpy(case["grad"].copy())
        return aten._ctc_loss_backward(grad, lp, targets, case["il"], case["tl"], nll, alpha, 0, case["zero_infinity"])
    xs = [torch.from_numpy(x.copy()) for x in case["xs"]]
    if op in ("mish", "sinc"):
        return getattr(aten, op)(xs[0])
    if op == "mish_backward":
        return aten.mish_backward(xs[0], xs[1])
    if op == "atan2":
        return torch.atan2(xs[0], xs[1])
    if op == "prelu":
        return aten._prelu_kernel(xs[0], xs[1])
    if op in ("smooth_l1_loss", "huber_loss"):
        return getattr(aten, op)(xs[0], xs[1], case["reduction"], case["w"])
    if op == "prelu_backward":
        return torch.cat(aten._prelu_kernel_backward(xs[0], xs[1], xs[2]))
    if op == "lerp_tensor":
        return torch.lerp(xs[0], xs[1], xs[2])
    if op == "lerp":
        return torch.lerp(xs[0], xs[1], case["w"])
    return getattr(torch, op)(xs[0], xs[1], xs[2], value=case["w"])


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
