"""Seeded cases of ``topk`` on its ``std::partial_sort`` path (k * 64 <= n: every k here) with many equal
elements, for tests/test_impl_topk_nth.py, and the digest of torch's outputs over them; imports only NumPy
(torch where it records): ``python -m tests.topk_partial_cases`` prints the digest.

Rows of 64 to 3,000 elements, k from 1 to n // 64, largest or smallest, over the last dim or the first of a
transposed copy; values drawn so that equal elements meet in libstdc++'s heap: small integers, +0 and -0, NaNs
of both signs (quiet and signalling, several payloads), infinities and subnormals among them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tests.topk_nth_cases import SPECIALS, outputs

COUNT = 60

__all__ = ["COUNT", "cases", "outputs"]


def cases() -> Iterator[dict[str, Any]]:
    r = np.random.default_rng(6402)
    for j in range(COUNT):
        n = int(r.choice([int(r.integers(64, 300)), int(r.integers(300, 3000))]))
        shape = (int(r.integers(1, 4)), n)
        mode = j % 4
        if mode == 0:
            x = r.integers(-3, 4, size=shape).astype(np.float32)
        elif mode == 1:
            x = r.choice(np.array([0.0, -0.0, 1.0, -1.0], np.float32), size=shape)
        elif mode == 2:
            x = r.integers(-2, 3, size=shape).astype(np.float32)
            mask = r.random(shape) < 0.2
            x[mask] = r.choice(SPECIALS, int(mask.sum()))
        else:
            x = r.choice(SPECIALS, size=shape)
        dim = 1
        if j % 5 == 0:
            x, dim = np.ascontiguousarray(x.T), 0
        yield {"x": x, "k": int(r.integers(1, n // 64 + 1)), "dim": dim, "largest": bool(j % 3), "sorted": bool(j % 2)}


if __name__ == "__main__":  # pragma: no cover - records torch's digest
    import torch

    from tests.arm64_sampling_cases import digest

    outs = []
    for c in cases():
        v, i = torch.topk(torch.from_numpy(c["x"]), c["k"], c["dim"], largest=c["largest"], sorted=c["sorted"])
        outs.append([outputs(v.numpy(), i.numpy())])
    print(digest(iter(outs)))
