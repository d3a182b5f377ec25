"""harness.impl.reduce.logsumexp and its replay without torch: rows of infinities as torch 2.13.0 gave them
on an AMD EPYC (ATEN_CPU_CAPABILITY default and avx2, 1 thread: an all -inf row is -inf, a row with +inf
is +inf, the max's infinity taken as 0), and what is refused in one line (AVX-512 is not measured)."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import reduce
from harness.impl.profiles import profile_for_capability
from harness.trace.impl_ops import replay

INF = np.float32(np.inf)


@pytest.mark.parametrize("cap", ["DEFAULT", "AVX2"])
def test_rows_of_infinities(cap: str) -> None:
    x = np.array([[-INF, -INF, -INF], [1.0, INF, -INF], [0.5, -INF, 2.0], [0.0, 0.0, 0.0]], np.float32)
    out = reduce.logsumexp(x, (1,), profile_for_capability(cap, 1, "x86_64"))
    assert out.view(np.uint32).tolist()[:2] == [0xFF800000, 0x7F800000]
    assert np.isfinite(out[2:]).all()


def test_refusals() -> None:
    avx2 = profile_for_capability("AVX2", 1, "x86_64")
    with pytest.raises(ParityError, match="NaN-free"):
        reduce.logsumexp(np.array([1.0, np.nan], np.float32), (0,), avx2)
    with pytest.raises(ParityError, match="non-empty"):
        reduce.logsumexp(np.zeros((0, 3), np.float32), (1,), avx2)
    x = np.ones((3, 4), np.float32)
    args = [{"name": "self", "tensor": "self", "stride": [1, 3], "shape": [3, 4]}, {"name": "dim", "value": [1]}]
    with pytest.raises(ParityError, match="C-contiguous tensors only"):
        replay("aten.logsumexp.default", {"self": x}, args, avx2)
    with pytest.raises(ParityError, match="float32 tensors only"):
        replay("aten.logsumexp.default", {"self": x.astype(np.float64)}, [{"name": "self", "tensor": "self"}], avx2)
