"""Seeded random cases of erfinv, atanh, kaiser_window, polar (ops over the C library's erff, expf, logf, log1pf
and sincosf) and smooth_l1_loss's and huber_loss's backwards, for tests/test_impl_arm64_libm.py; imports only
NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_libm_cases.py [OUT.npz]``
records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits over
that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs.

Contiguous operands of 1 to 100 elements (off the 4- and 8-lane vectors and the bodies' blocks of two vectors)
and of 32,767 to 70,000 (either side of the 32,768-element grain, where 2 and 4 threads move the backwards' scalar
tails); every fourth atanh case strided (every element
through the scalar loop); every third case's values carry NaNs (quiet and signalling, both signs, payloads),
infinities, signed zeros, subnormals and +-1. erfinv and atanh draw over (-1.2, 1.2), a third of them over every
magnitude below 1 and next to +-1; kaiser_window lengths as above, periodic or not, beta 0 to 200; polar an abs
of any sign and angles to 10^5; smooth_l1_loss's and huber_loss's backwards reductions none, mean and sum in turn
(a grad of the loss's shape under none, a number else), beta / delta of a few magnitudes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import factories, nn, unary
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import record_digests

OPS = ("erfinv", "atanh", "kaiser_window", "polar", "smooth_l1_loss_backward", "huber_loss_backward")
BETAS = (1.0, 0.5, 2.0, 0.1, 3.0)
COUNT = 18
THREADS = (1, 2, 4)
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001, 0xFFA00001, 0x7F800000, 0xFF800000, 0,
                0x80000000, 1, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0xBF7FFFFF],
               np.uint32).view(np.float32)  # fmt: skip
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 64, 65, 100)
LARGE = (32767, 32769, 40000, 65543, 70000)


def _values(r: np.random.Generator, n: int, k: int) -> np.ndarray:
    """(-1.2, 1.2); every third case over every magnitude below 1 (bit patterns) and next to +-1."""
    if k % 3 == 1:
        mag = r.integers(0, 0x3F800000, n, dtype=np.uint32)
        near = np.uint32(0x3F800000) - r.integers(1, 1 << 12, n, dtype=np.uint32)
        bits = np.where(r.random(n) < 0.3, near, mag) | (r.integers(0, 2, n, dtype=np.uint32) << 31)
        return bits.astype(np.uint32).view(np.float32)
    return r.uniform(-1.2, 1.2, n).astype(np.float32)


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT):
        n = int(r.choice(LARGE)) if k % 6 == 4 else int(r.choice(SIZES))
        if op == "kaiser_window":
            yield {"n": n, "periodic": bool(k % 2), "beta": float(r.choice([0.0, 1.0, 5.0, 8.6, 12.0, 14.0])
                                                                   if k % 3 else r.uniform(0.0, 200.0))}  # fmt: skip
            continue
        if op.endswith("_backward"):  # self, target, grad (a number under mean and sum), beta; reductions in turn
            xs = [(r.standard_normal(n) * 3.0).astype(np.float32) for _ in range(2)]
            xs.append((r.standard_normal(n if (k // 3) % 3 == 0 else ()) * 2.0).astype(np.float32).reshape(-1))
        elif op == "polar":
            xs = [(r.standard_normal(n) * 3.0).astype(np.float32),
                  (r.standard_normal(n) * (1e5 if k % 2 else 4.0)).astype(np.float32)]  # fmt: skip
        else:
            xs = [_values(r, 2 * n if op == "atanh" and k % 4 == 3 else n, k)]
        if k % 3 == 2:
            mask = r.random(n) < 0.2
            for j, x in enumerate(xs):
                if j and k % 2:  # other places in each operand
                    mask = r.random(n) < 0.2
                if x.size >= mask.size:
                    x[: mask.size][mask] = r.choice(ODD, int(mask.sum()))
        strided = op == "atanh" and k % 4 == 3
        yield {"xs": xs, "strided": strided, "reduction": (k // 3) % 3, "w": float(r.choice(BETAS))}


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 9301)}
ERFINV_SAMPLE = 1 << 20


def cdist_cases() -> Iterator[tuple[np.ndarray, np.ndarray, float]]:
    """48 _cdist_forward operands (x1 (d, r1, m), x2 (d, r2, m), p) of p = 0.5, 1.5, 3 and 0.25 in turn (each
    term aarch64 glibc's powf, the finish glibc's pow), m off the 4- and 8-lane blocks; no NaN."""
    r = np.random.default_rng(5)
    for k in range(48):
        d, r1, r2 = 1 + k % 2, int(r.integers(1, 9)), int(r.integers(1, 9))
        m = int(r.choice([1, 3, 4, 5, 8, 9, 17, 33, 100]))
        x1 = (r.standard_normal((d, r1, m)) * 2).astype(np.float32)
        x2 = (r.standard_normal((d, r2, m)) * 2).astype(np.float32)
        yield x1, x2, (0.5, 1.5, 3.0, 0.25)[k % 4]


def erfinv_sample(n: int = ERFINV_SAMPLE) -> np.ndarray:
    """1,441,813 erfinv inputs: the specials (NaNs of both signs and kinds, infinities, +-0, subnormals, +-1 and
    past it, either side of calc_erfinv's 0.7), n bit patterns of (-1, 1) over every magnitude, n/8 within 2^16
    ULPs of +-1 and n/4 uniform values."""
    r = np.random.default_rng(77)
    mag = r.integers(0, 0x3F800000, n, dtype=np.uint32)
    sign = r.integers(0, 2, n, dtype=np.uint32) << 31
    near1 = (0x3F800000 - r.integers(1, 1 << 16, n // 8, dtype=np.uint32)) | (
        r.integers(0, 2, n // 8, dtype=np.uint32) << 31
    )
    unif = r.uniform(-1, 1, n // 4).astype(np.float32).view(np.uint32)
    odd = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001, 0xFFA00001, 0x7F800000, 0xFF800000,
                    0, 0x80000000, 1, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x40000000, 0xC0000000,
                    0x3F333333, 0x3F333334, 0x3F333332, 0xBF333333], np.uint32)  # fmt: skip
    return np.concatenate([odd, mag | sign, near1, unif]).view(np.float32)


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    if op == "kaiser_window":
        return factories.kaiser_window(case["n"], case["periodic"], case["beta"], profile)
    xs = case["xs"]
    if op.endswith("_backward"):
        from harness.trace.impl_ops import REPLAYS

        args = {"reduction": case["reduction"], "beta" if op.startswith("smooth") else "delta": case["w"]}
        t = {"self": xs[0], "target": xs[1], "grad_output": xs[2].reshape(xs[0].shape if xs[2].size > 1 else ())}
        return REPLAYS[op](t, args, profile)["out"]
    if op == "polar":
        return nn.polar(xs[0], xs[1], profile)
    if case["strided"]:  # x[::2]: TensorIterator's basic loop, the scalar lambda on every element
        return unary.forward(op, xs[0][::2].copy(), profile, row=1)
    return unary.forward(op, xs[0], profile)


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    if op == "kaiser_window":
        return torch.kaiser_window(case["n"], case["periodic"], case["beta"])
    xs = [torch.from_numpy(x.copy()) for x in case["xs"]]
    if op.endswith("_backward"):
        g = xs[2].reshape(xs[0].shape if xs[2].numel() > 1 else ())
        return getattr(torch.ops.aten, op)(g, xs[0], xs[1], case["reduction"], case["w"])
    if op == "polar":
        return torch.view_as_real(torch.polar(xs[0], xs[1]))
    return getattr(torch, op)(xs[0][::2] if case["strided"] else xs[0])


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
