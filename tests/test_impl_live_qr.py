"""Live parity of harness.impl.qr: torch.linalg.qr, run now in this process, against the impl, bit for
bit, on 1 and 2 threads (MKL's sgeqrf_pfnr splits the rows between 2 threads from 21 columns).

Random shapes of 1 to 32 columns and up to 900 rows, so that each of MKL's unblocked sgeqrf paths
runs (its small routine, sgeqr2, sgeqrf_pfnr); the shapes MKL runs on paths the impl refuses (more
than 32 columns, its panel path, its other 2-thread path) must be refused, not answered.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.impl import qr as qr_module
from tests.impl_live import SEEDS, assert_bits_equal, live_profile, needs_modelled_mkl, normal32, use_threads

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_modelled_mkl]


def _refused_here(m: int, n: int, threads: int) -> bool:
    """Whether the impl's rules (harness.impl.qr) refuse this shape on this thread count."""
    return n > 32 or (n >= 21 and m > 20 and (m * n > 25000 or (threads == 2 and m + n >= 200)))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 32), extra=st.integers(0, 900), seed=SEEDS, threads=st.integers(1, 2))
def test_qr(n: int, extra: int, seed: int, threads: int) -> None:
    use_threads(threads)
    m = n + extra
    rng = np.random.default_rng(seed)
    a = normal32(rng, (m, n), float(rng.choice([0.02, 1.0, 30.0])))
    try:
        q, r = qr_module.qr(a, live_profile())
    except ParityError as err:
        assert _refused_here(m, n, threads), f"{m}x{n} at {threads} threads refused: {err}"
        return
    q_torch, r_torch = torch.linalg.qr(torch.from_numpy(a.copy()))
    assert_bits_equal(f"Q of {m}x{n} at {threads} threads", q_torch.numpy(), q)
    assert_bits_equal(f"R of {m}x{n} at {threads} threads", r_torch.numpy(), r)
