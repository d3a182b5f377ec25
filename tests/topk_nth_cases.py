"""Seeded cases of ``topk`` on its ``std::nth_element`` path (k * 64 > n: every k here) for
tests/test_impl_topk_nth.py, and the digest of torch's outputs over them; imports only NumPy (torch where it
records): ``python tests/topk_nth_cases.py`` prints the digest.

Rows of 1 to 300 elements, k from 1 to n, largest or smallest, sorted or not; values drawn to make
libstdc++'s introselect decide: many equal ones (small integers, +0 and -0), NaNs of both signs (quiet and
signalling, several payloads), infinities and subnormals, and plain normal draws. The cases the impl refuses
(none: the nth_element path is followed step by step) are listed by the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

SPECIALS = np.array(
    [0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFFA00002, 0x7FC01234, 0x7F800000, 0xFF800000, 0x00000001, 0x80000003,
     0x00000000, 0x80000000], np.uint32,
).view(np.float32)  # fmt: skip
COUNT = 120


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(8409)
    for j in range(COUNT):
        n = int(r.choice([int(r.integers(1, 17)), int(r.integers(17, 80)), int(r.integers(80, 300))]))
        shape = (int(r.integers(1, 4)), n)
        mode = j % 4
        if mode == 0:
            x = r.standard_normal(shape).astype(np.float32)
        elif mode == 1:
            x = r.integers(-3, 4, size=shape).astype(np.float32)
        elif mode == 2:
            x = r.standard_normal(shape).astype(np.float32)
            mask = r.random(shape) < 0.3
            x[mask] = r.choice(SPECIALS, int(mask.sum()))
        else:
            x = r.choice(np.array([0.0, -0.0, 1.0, -1.0], np.float32), size=shape)
        yield {"x": x, "k": int(r.integers(n // 64 + 1, n + 1)), "largest": bool(j % 3), "sorted": bool(j % 5 < 2)}


def outputs(values: Any, indices: Any) -> np.ndarray:
    """One case's values and indices as one float32 row (the indices are below 2**24)."""
    return np.concatenate([np.asarray(values, np.float32).reshape(-1), np.asarray(indices, np.float32).reshape(-1)])


if __name__ == "__main__":  # pragma: no cover - records torch's digest
    import torch
    from arm64_sampling_cases import digest  # run as a script: its own folder is on the path

    outs = []
    for c in cases():
        v, i = torch.topk(torch.from_numpy(c["x"]), c["k"], 1, largest=c["largest"], sorted=c["sorted"])
        outs.append([outputs(v.numpy(), i.numpy())])
    print(digest(iter(outs)))
