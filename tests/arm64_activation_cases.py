"""Seeded random cases of elu (elu, selu and celu parameters) and its backward (of the input or the result),
hardswish, hardsigmoid and their backwards, maximum, minimum and clamp by tensors, fmod and remainder, for
tests/test_impl_arm64_activation.py; imports only NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads 4 -- tests/arm64_activation_cases.py [OUT.npz]``
records, under emulation, one JSON line: op -> thread count -> the SHA-256 of every output's uint32 bits over
that op's cases in order (torch.set_num_threads(1), 2, then 4, in one process); with OUT.npz also the outputs.

Contiguous operands of 1 to 100 elements (off the 4- and 8-lane vectors and the bodies' blocks of two
vectors) and of 32,767 to 70,000 (either side of the 32,768-element grain: 2 and 4 threads cut them);
every third case's values carry NaNs (quiet and signalling, both signs, payloads), infinities, signed zeros
and subnormals, in the binary ops at the same places in both operands every other such case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import unary
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import record_digests
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import record_digests

OPS = ("elu", "elu_backward", "hardswish", "hardsigmoid", "hardswish_backward", "hardsigmoid_backward",
       "maximum", "minimum", "clamp", "fmod", "remainder")  # fmt: skip
COUNT = 18
THREADS = (1, 2, 4)
ODD = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFF800456, 0x7F800001, 0x7F800000, 0xFF800000, 0, 0x80000000,
                1, 0x807FFFFF], np.uint32).view(np.float32)  # fmt: skip
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 64, 65, 100)
LARGE = (32767, 32769, 40000, 65543, 70000)
# (alpha, scale, input_scale): elu, selu, celu(alpha) as torch.nn.functional passes them
SELU = (1.6732632423543772, 1.0507009873554805, 1.0)
ARITY = {"elu_backward": 2, "hardswish_backward": 2, "hardsigmoid_backward": 2, "maximum": 2, "minimum": 2,
         "clamp": 3, "fmod": 2, "remainder": 2}  # fmt: skip


def _cases(op: str, seed: int) -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(seed)
    for k in range(COUNT):
        n = int(r.choice(LARGE)) if k % 6 == 4 else int(r.choice(SIZES))
        scale = 4.0 if op.startswith("hard") else 3.0
        xs = [(r.standard_normal(n) * scale).astype(np.float32) for _ in range(ARITY.get(op, 1))]
        if op in ("fmod", "remainder") and k % 2:
            xs[0] *= np.float32(1000.0)
        if k % 3 == 2:
            mask = r.random(n) < 0.2
            for j, x in enumerate(xs):
                if j and k % 2:  # other places in each operand
                    mask = r.random(n) < 0.2
                x[mask] = r.choice(ODD, int(mask.sum()))
        case: dict[str, Any] = {"xs": xs}
        if op.startswith("elu"):
            form, alpha = k % 3, float(r.choice([1.0, 0.5, 2.0, 1.25]))
            case["params"] = ((alpha, 1.0, 1.0), SELU, (alpha, 1.0, 1.0 / alpha))[form]
            case["is_result"] = op == "elu_backward" and k % 2 == 1
        yield case
    yield from _fixed(op)


def _fixed(op: str) -> Iterator[dict[str, Any]]:
    """Explicit cases: of 7 elements (a scalar tail on every core), elu's of inputs whose expm1f aarch64 glibc's
    contracted build rounds otherwise than x86's, fmod's and remainder's of NaNs, infinities and zeros; of 17
    (16 in the vector body on every core), elu_backward's and hardswish_backward's of two NaNs meeting."""
    if op == "elu":
        x = np.array([0xBF6E4DF1, 0xBE26CC04, 0xBFCFD931, 0xBE97194F, 0xBEAF57A5, 0xBE571117, 0xBE70E3E0],
                     np.uint32).view(np.float32)  # fmt: skip
        yield {"xs": [x], "params": (1.0, 1.0, 1.0), "is_result": False}
    elif op == "elu_backward":  # both NaN in the vector body (16 elements: N1's and V1's), is_result
        g = np.array([0x7FC00000] * 16 + [0x3F800000], np.uint32).view(np.float32)
        b = np.array([0xFFC00000] * 16 + [0xBF800000], np.uint32).view(np.float32)
        yield {"xs": [g, b], "params": (0.5, 1.0, 2.0), "is_result": True}
    elif op == "hardswish_backward":  # grad and x NaN in the vector body: which one each object keeps
        g = np.array([0x7FC00123] * 8 + [0xFFC00000] * 8 + [0x3F800000], np.uint32).view(np.float32)
        x = np.array([0x7FC00000] * 8 + [0x7F800001] * 8 + [0x3F000000], np.uint32).view(np.float32)
        yield {"xs": [g, x]}
    elif op in ("fmod", "remainder"):
        a = np.array([0x7FC00123, 0x7F800001, 0x7F800000, 5.5, 0xFFC00456, 0x7F800000, 3.0], np.float32)
        a[[0, 1, 2, 4, 5]] = np.array([0x7FC00123, 0x7F800001, 0x7F800000, 0xFFC00456, 0xFF800000], np.uint32).view(
            np.float32
        )
        b = np.array([2.0, 0xFF800123, 1.5, 0.0, 0x7FC00789, 0.0, -0.0], np.float32)
        b[[1, 4]] = np.array([0xFF800123, 0x7FC00789], np.uint32).view(np.float32)
        yield {"xs": [a, b]}


CASES = {op: (lambda op=op, s=seed: _cases(op, s)) for seed, op in enumerate(OPS, 8101)}


def impl_output(op: str, case: dict[str, Any], profile: KernelProfile) -> np.ndarray:
    xs = tuple(case["xs"])
    if op == "elu":
        return unary.elu_forward(xs[0], case["params"], profile)
    if op == "elu_backward":
        return unary.elu_backward(xs[0], xs[1], case["params"], case["is_result"], profile)
    if op.startswith("hard"):
        return unary.hard_activation(op, xs, profile)
    return unary.binary_kernel(op, xs, profile)


def torch_output(op: str, case: dict[str, Any]) -> Any:  # pragma: no cover - under emulation
    import torch

    aten = torch.ops.aten
    xs = [torch.from_numpy(x.copy()) for x in case["xs"]]
    if op == "elu":
        return aten.elu(xs[0], *case["params"])
    if op == "elu_backward":
        return aten.elu_backward(xs[0], *case["params"], case["is_result"], xs[1])
    if op in ("hardswish", "hardsigmoid"):
        return getattr(aten, op)(xs[0])
    if op.endswith("_backward"):
        return getattr(aten, op)(*xs)
    if op == "clamp":
        return torch.clamp(xs[0], xs[1], xs[2])
    return getattr(torch, op)(xs[0], xs[1])


if __name__ == "__main__":  # pragma: no cover - under emulation: op -> threads -> digest of torch's bits
    record_digests(OPS, THREADS, CASES, torch_output)
