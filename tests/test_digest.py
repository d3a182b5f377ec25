"""harness.core.digest: the traces' one-pass digest and float32 sum."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from harness.core.digest import ALGORITHM, LEGACY, digest, fingerprint_at
from harness.core.errors import ParityError


def _sum_in_documented_order(x: np.ndarray) -> float:
    """float64 partials by index mod 8, each in index order, then paired as csrc/fingerprint.h says."""
    s = [0.0] * 8
    for i, v in enumerate(x.astype(np.float64).tolist()):
        s[i % 8] += v
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 31, 32, 33, 1000])
def test_sum_follows_its_documented_order_and_digest_its_bytes(n: int):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32) * np.float32(1e3)
    buf = x if n else np.zeros(1, np.float32)
    got_digest, got_sum = fingerprint_at(buf.ctypes.data, x.nbytes, True)
    assert np.float64(got_sum).view(np.uint64) == np.float64(_sum_in_documented_order(x)).view(np.uint64)
    assert got_digest == digest(x) and len(got_digest) == 32
    assert np.isnan(fingerprint_at(buf.ctypes.data, x.nbytes, False)[1])


_M64 = (1 << 64) - 1
_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def _mix256_in_python(data: bytes) -> bytes:
    """mix256-v1 as csrc/fingerprint.h describes it, in Python integers (no C in common with it)."""
    acc = [(_P1 + _P2) & _M64, _P2, 0, (-_P1) & _M64]
    padded = data + b"\0" * (-len(data) % 32)
    for at in range(0, len(padded), 32):
        for q in range(4):
            w = int.from_bytes(padded[at + 8 * q : at + 8 * q + 8], "little")
            a = (acc[q] + w * _P2) & _M64
            acc[q] = ((((a << 31) | (a >> 33)) & _M64) * _P1) & _M64
    out = b""
    for q in range(4):
        h = acc[q] ^ ((len(data) * _P3) & _M64)
        h ^= h >> 33
        h = (h * _P2) & _M64
        h ^= h >> 29
        h = (h * _P3) & _M64
        h ^= h >> 32
        out += h.to_bytes(8, "little")
    return out


@pytest.mark.parametrize("n", [0, 1, 5, 31, 32, 33, 64, 100, 257, 4099])
def test_the_digest_is_the_documented_mix256_byte_for_byte(n: int):
    """Whatever build of the stripe loop runs here (csrc/fingerprint.h: portable, or AVX's), the bytes
    and sums are the format's; float32 data (n a multiple of 4) with its sum too."""
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    buf = data if n else np.zeros(1, np.uint8)
    assert fingerprint_at(buf.ctypes.data, n, False)[0] == _mix256_in_python(data.tobytes())
    if n % 4 == 0:
        x = np.random.default_rng(n).standard_normal(n // 4).astype(np.float32)
        buf = x if n else np.zeros(1, np.float32)
        got_digest, got_sum = fingerprint_at(buf.ctypes.data, n, True)
        assert got_digest == _mix256_in_python(x.tobytes())
        assert np.float64(got_sum).view(np.uint64) == np.float64(_sum_in_documented_order(x)).view(np.uint64)


def test_every_single_bit_flip_and_every_length_changes_the_digest():
    data = np.random.default_rng(1).integers(0, 256, 97, dtype=np.uint8)
    base = digest(data)
    seen = {base}
    for i in range(len(data) * 8):
        flipped = data.copy()
        flipped[i // 8] ^= np.uint8(1 << (i % 8))
        seen.add(digest(flipped))
    assert len(seen) == 1 + len(data) * 8
    lengths = {digest(b"\0" * n) for n in range(70)}  # zero padding is told apart by the length
    assert len(lengths) == 70 and digest(data) == base  # and the same bytes give the same digest


def test_legacy_traces_are_checked_with_sha256_and_unknown_algorithms_refused():
    assert digest(b"abc", LEGACY) == hashlib.sha256(b"abc").digest()
    assert digest(np.arange(3, dtype=np.float32), LEGACY) == hashlib.sha256(np.arange(3, dtype=np.float32)).digest()
    with pytest.raises(ParityError, match="unknown digest algorithm 'md5'"):
        digest(b"abc", "md5")


def test_traces_of_two_digest_algorithms_are_not_compared(tmp_path: Path):
    from harness.formats.trace import Trace
    from harness.trace.diff import diff_traces

    old = Trace(tmp_path / "old.h5", {"trace_version": 1}, [])
    new = Trace(tmp_path / "new.h5", {"trace_version": 2, "digest": ALGORITHM}, [])
    assert (old.digest_algorithm, new.digest_algorithm) == (LEGACY, ALGORITHM)
    with pytest.raises(ParityError, match=r"holds mix256-v1 digests and .* sha256 ones"):
        diff_traces(old, new)
    assert diff_traces(new, new).root_cause is None


def test_fingerprints_of_a_batch_are_each_arrays_own_and_legacy_sums_numpys():
    from harness.core.digest import Batch, fingerprints

    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(n).astype(np.float32) for n in (0, 1, 33, 1000)]
    arrays += [rng.standard_normal((4, 6)).astype(np.float32)[:, ::2], np.array([True, False, True])]
    for algorithm in (ALGORITHM, LEGACY):
        digests, sums = fingerprints(arrays, algorithm)
        assert digests.shape == (len(arrays), 32) and digests.dtype == np.uint8
        assert [bytes(d) for d in digests] == [digest(a, algorithm) for a in arrays]
        assert np.isnan(sums[-1])
        for a, s in zip(arrays[:-1], sums[:-1], strict=True):
            if algorithm == LEGACY:  # NumPy's own float64 sum, bit for bit
                assert np.float64(s).view(np.uint64) == np.add.reduce(a, None, np.float64).view(np.uint64)
            else:
                assert s == _sum_in_documented_order(np.ascontiguousarray(a).reshape(-1))
    batch = Batch(arrays)
    assert batch.holds(arrays) and batch.holds(list(arrays))
    assert not batch.holds([a.copy() for a in arrays]) and not batch.holds(arrays[:-1])
    arrays[2][0] += 1  # a batch reads the arrays' bytes as they are now
    assert bytes(fingerprints(batch)[0][2]) == digest(arrays[2])
