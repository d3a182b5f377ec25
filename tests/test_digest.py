"""harness.core.digest: the traces' one-pass digest and float32 sum."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from harness.core.digest import ALGORITHM, LEGACY, TRACE_ALGORITHM, digest, fingerprint_at
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


def _splitmix64(seed: int, n: int) -> list[int]:
    out, x = [], seed
    for _ in range(n):
        x = (x + 0x9E3779B97F4A7C15) & _M64
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        out.append(z ^ (z >> 31))
    return out


_KEY = _splitmix64(0x243F6A8885A308D3, 16)
_SEGMENT = 1 << 18


def _finalise(h: int) -> int:
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    return h ^ (h >> 32)


def _v2_segment(seg: bytes) -> tuple[list[int], float]:
    """One segment of mix256-v2 as csrc/fingerprint_v2.h describes it: its four digest words and its sum
    (of the bytes as float32, where they are whole float32s; else 0.0)."""
    acc = list(_KEY[8:16])
    padded = seg + b"\0" * (-len(seg) % 64)
    for i, at in enumerate(range(0, len(padded), 64)):
        w = [int.from_bytes(padded[at + 8 * q : at + 8 * q + 8], "little") for q in range(8)]
        for q in range(8):
            k = w[q] ^ _KEY[(i + q) % 16]
            acc[q] = (acc[q] + (k & 0xFFFFFFFF) * (k >> 32) + w[q ^ 1]) & _M64
        if i % 16 == 15 and at + 64 <= len(seg):  # after whole stripes only
            acc = [((a ^ (a >> 47) ^ _KEY[q]) * 0x9E3779B1) & _M64 for q, a in enumerate(acc)]
    words = [_finalise(acc[j] ^ (((acc[j + 4] << 32) | (acc[j + 4] >> 32)) & _M64)) for j in range(4)]
    s = [0.0] * 16
    if len(seg) % 4 == 0:
        for e, v in enumerate(np.frombuffer(seg, np.float32).tolist()):  # Python floats are float64
            s[e % 16] += v
    lo, hi = (
        ((s[b] + s[b + 1]) + (s[b + 2] + s[b + 3])) + ((s[b + 4] + s[b + 5]) + (s[b + 6] + s[b + 7])) for b in (0, 8)
    )
    return words, lo + hi


def _mix256_v2_in_python(data: bytes) -> tuple[bytes, float]:
    """mix256-v2 as csrc/fingerprint_v2.h describes it, in Python integers (no C in common with it):
    the digest and the sum."""
    h = [(_P1 + _P2) & _M64, _P2, 0, (-_P1) & _M64]
    total = 0.0
    for at in range(0, len(data), _SEGMENT):
        words, s = _v2_segment(data[at : at + _SEGMENT])
        for j in range(4):
            a = (h[j] + words[j] * _P2) & _M64
            h[j] = ((((a << 31) | (a >> 33)) & _M64) * _P1) & _M64
        total += s
    out = b"".join(_finalise(h[j] ^ ((len(data) * _P3) & _M64)).to_bytes(8, "little") for j in range(4))
    return out, total


# lengths off the stripe (64), the scramble's 1 KiB and the segment (256 KiB)
V2_LENGTHS = [0, 1, 5, 63, 64, 65, 1000, 1023, 1024, 1088, _SEGMENT - 4, _SEGMENT, _SEGMENT + 68, 3 * _SEGMENT + 4100]


@pytest.mark.parametrize("n", V2_LENGTHS)
def test_the_trace_digest_is_the_documented_mix256_v2_byte_for_byte(n: int):
    """Whatever build of the v2 stripe loop runs here (portable, or AVX2's), the digest and sum are the
    format's: raw bytes, and float32 data (n a multiple of 4) with its sum."""
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    buf = data if n else np.zeros(1, np.uint8)
    got, got_sum = fingerprint_at(buf.ctypes.data, n, False, TRACE_ALGORITHM)
    assert got == _mix256_v2_in_python(data.tobytes())[0] == digest(data, TRACE_ALGORITHM) and np.isnan(got_sum)
    if n % 4 == 0:
        x = np.random.default_rng(n).standard_normal(n // 4).astype(np.float32) * np.float32(1e3)
        buf = x if n else np.zeros(1, np.float32)
        got, got_sum = fingerprint_at(buf.ctypes.data, n, True, TRACE_ALGORITHM)
        want, want_sum = _mix256_v2_in_python(x.tobytes())
        assert got == want
        assert np.float64(got_sum).view(np.uint64) == np.float64(want_sum).view(np.uint64)


def test_v2_tells_apart_every_single_word_change_and_every_length():
    """A changed 64-bit word anywhere (each lane, each stripe of a scramble block, either side of a
    segment's end) and every length from 0 to 130 bytes give other digests."""
    data = np.random.default_rng(5).integers(0, 256, _SEGMENT + 2048, dtype=np.uint8)
    base = digest(data, TRACE_ALGORITHM)
    seen = {base}
    words = [*range(0, 2048, 8), *range(_SEGMENT - 1024, _SEGMENT + 2048, 8)]
    for at in words:
        changed = data.copy()
        changed[at : at + 8] = np.random.default_rng(at).integers(0, 256, 8, dtype=np.uint8)
        seen.add(digest(changed, TRACE_ALGORITHM))
    assert len(seen) == 1 + len(words)
    lengths = {digest(b"\0" * n, TRACE_ALGORITHM) for n in range(131)}
    assert len(lengths) == 131 and digest(data, TRACE_ALGORITHM) == base


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


def test_the_portable_stripe_loops_give_the_avx_builds_bytes(tmp_path: Path):
    """digest.c built with -DPARITY_FP_NO_AVX (the portable loops alone, as for an emulated CPU or an
    arm64 one) gives this build's digests and sums, for both mix256 formats, at lengths off every
    stripe, scramble block and segment."""
    import ctypes
    import shutil
    import subprocess
    import sysconfig

    from harness.core import buildinfo
    from harness.core.digest import fingerprints

    cc = shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0])
    assert cc is not None, "a C compiler: the package's C objects are built with it"
    lib = next(x for x in buildinfo.libraries() if x.module.endswith("_digest"))
    out = tmp_path / "portable.so"
    cmd = [cc, *buildinfo.PORTABLE_FLAGS, "-DPARITY_FP_NO_AVX", "-fPIC", "-shared", str(lib.source), "-o", str(out)]
    cmd += [arg for inc in (*lib.includes, sysconfig.get_paths()["include"]) for arg in ("-I", str(inc))]
    subprocess.run(cmd, check=True, capture_output=True)
    portable = ctypes.CDLL(str(out))
    portable.fingerprints.argtypes = [ctypes.c_int, ctypes.c_int64, *[ctypes.c_void_p] * 5]
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(n // 4).astype(np.float32) for n in V2_LENGTHS if n % 4 == 0]
    arrays += [rng.integers(0, 256, n, dtype=np.uint8) for n in (1, 63, 1023, _SEGMENT + 5)]
    for version, algorithm in ((1, ALGORITHM), (2, TRACE_ALGORITHM)):
        want_digests, want_sums = fingerprints(arrays, algorithm)
        ptrs = np.array([a.ctypes.data for a in arrays], np.uint64)
        nbytes = np.array([a.nbytes for a in arrays], np.int64)
        float32 = np.array([a.dtype == np.float32 for a in arrays], np.uint8)
        digests, sums = np.empty((len(arrays), 32), np.uint8), np.empty(len(arrays), np.float64)
        at = (ptrs.ctypes.data, nbytes.ctypes.data, float32.ctypes.data, digests.ctypes.data, sums.ctypes.data)
        portable.fingerprints(version, len(arrays), *at)
        assert np.array_equal(digests, want_digests), algorithm
        assert np.array_equal(sums.view(np.uint64), want_sums.view(np.uint64)), algorithm
