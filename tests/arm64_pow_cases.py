"""Seeded cases of pow.Tensor_Scalar (an exponent without a special case of PowKernel.cpp) for
tests/test_impl_arm64_pow.py; imports only NumPy and the impl (torch where it records), so that ``python
tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_pow_cases.py [OUT.npz]`` records, under
emulation, the digests the test holds: one JSON line, thread count -> the SHA-256 of every output's uint32
bits over the cases in order (torch.set_num_threads(1), then 2, in one process); with OUT.npz also every
case's x and torch's out at each thread count, and the C library's double pow of each x rounded to float.

Lengths off the 4- and 8-lane vectors (scalar tails of 1 to 15 elements, 8 or more in most: V1's blocks of
16 and N1's of 8 leave other tails) and past the 32,768-element grain (2 threads split those, each part with
a tail of its own), strided operands (every element through ATen's
scalar loop: std::pow(float, double)), values over every magnitude and both signs with subnormals, 0, 1 and
-1, seven NaN payloads (both signs, signalling ones) and infinities at the front and at random places;
exponents not integers (0.3 and 0.1 are not float32s: the tail's double exponent differs from the lanes'
float), odd and even integers, negative ones and large ones (overflow and underflow).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from harness.impl import unary
from harness.impl.profiles import KernelProfile

if __package__:  # imported by the tests
    from tests.arm64_sampling_cases import digest, place_specials
else:  # run as a script (under emulation): its own folder is on the path, not the repository's
    from arm64_sampling_cases import digest, place_specials

NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800001, 0x7FBFFFFF], np.uint32)
SPECIALS = np.concatenate(
    [NANS.view(np.float32), np.float32([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 1e-40, -1e-40, 1e-45, -2.0])]
)
# (exponent, length, seed, values, strided)
CASES = (
    (0.3, 29, 1, "wide", False),
    (0.3, 70013, 2, "wide", False),
    (1.5, 4107, 3, "pos", False),
    (-1.7, 45, 4, "wide", False),
    (7.0, 4099, 5, "wide", False),
    (4.0, 1003, 6, "wide", False),
    (-3.0, 100013, 7, "near", False),
    (2.5, 3001, 8, "near", True),
    (0.3, 2001, 9, "wide", True),
    (33.3, 4111, 10, "near", False),
    (-0.25, 70007, 11, "pos", False),
    (0.1, 45, 12, "near", True),
    (-5.0, 1001, 13, "wide", True),
)


def cases() -> Iterator[dict[str, Any]]:
    for exponent, length, seed, values, strided in CASES:
        rng = np.random.default_rng(seed)
        if values == "wide":  # every magnitude, both signs
            x = np.exp(rng.uniform(-100.0, 88.0, length)) * rng.choice([-1.0, 1.0], length)
        elif values == "pos":
            x = np.exp(rng.uniform(-100.0, 88.0, length))
        else:
            x = rng.uniform(-3.0, 3.0, length)
        x = x.astype(np.float32)
        place_specials(x, SPECIALS, rng, 7)
        yield {"x": x, "exponent": exponent, "strided": strided}


def impl_outputs(case: dict[str, Any], profile: KernelProfile) -> list[np.ndarray]:
    row = 1 if case["strided"] else None  # a strided view: TensorIterator's loop one element at a time
    return [unary.pow_scalar_forward(case["x"], case["exponent"], profile, row)]


if __name__ == "__main__":  # pragma: no cover - under emulation: threads -> digest of torch's bits
    import torch

    def torch_pow(case: dict[str, Any]) -> torch.Tensor:
        x = torch.from_numpy(case["x"])
        if case["strided"]:
            x = torch.zeros(2 * x.numel()).index_put_((torch.arange(0, 2 * x.numel(), 2),), x)[::2]
        return torch.pow(x, case["exponent"])

    record: dict[int, str] = {}
    arrays: dict[str, np.ndarray] = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        outs = []
        for k, case in enumerate(cases()):
            out = torch_pow(case)
            outs.append([out])
            arrays[f"out{k}_t{threads}"] = out.contiguous().numpy().copy()
            arrays[f"x{k}"] = case["x"]
            with np.errstate(all="ignore"):
                arrays[f"dpow{k}"] = np.power(case["x"].astype(np.float64), case["exponent"]).astype(np.float32)
        record[threads] = digest(iter(outs))
    if len(sys.argv) > 1:
        np.savez(sys.argv[1], **arrays)
    print(json.dumps({"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(), **record}))
