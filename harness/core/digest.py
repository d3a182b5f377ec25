"""Tensor fingerprints: a 256-bit digest of an array's raw C-order bytes and, for float32 data, a
float64 sum, by a named algorithm (torch-free). Traces and nanoGPT fixtures name theirs.

- ``mix256-v2``: what traces are written with (``TRACE_ALGORITHM``): this project's own one-pass
  digest with the sum in the same pass (``harness/core/csrc/fingerprint_v2.h`` says how both are
  made). No lane is a chain longer than one addition a stripe, and the bytes go in segments of
  256 KiB that threads may take apart (the recorder fingerprints one large tensor on ATen's threads).
  Two inputs of one length that differ in a single 64-bit word always get different digests.
- ``mix256-v1``: what nanoGPT fixtures are written with (``ALGORITHM``), and traces recorded before
  ``mix256-v2`` (``harness/core/csrc/fingerprint.h``): every lane one chain of multiplies, about
  5 cycles a 32-byte stripe whatever the memory gives. Two inputs of one length that differ in a
  single 64-bit word always get different digests.
- ``sha256``: SHA-256, with NumPy's float64 sum (``np.add.reduce(a, dtype=float64)``, pairwise).
  What traces and fixtures written before ``mix256-v1`` carry (``LEGACY``); about 1.4 GB/s.

Accidental collisions of other differences are as unlikely as for any 256-bit digest (neither mix256
is a cryptographic digest: each detects changes, neither resists forgery). Digests and sums are
compared only between fingerprints of one algorithm (``python benchmarks/digest_speed.py`` prints
each one's speed).
"""

from __future__ import annotations

import ctypes
import hashlib
import operator
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from harness.core import clib
from harness.core.errors import ParityError

ALGORITHM = "mix256-v1"  # what new nanoGPT fixtures are written with
TRACE_ALGORITHM = "mix256-v2"  # what new traces are written with
LEGACY = "sha256"  # the digest of traces and fixtures that do not name one
ALGORITHMS = (ALGORITHM, TRACE_ALGORITHM, LEGACY)
_VERSIONS = {ALGORITHM: 1, TRACE_ALGORITHM: 2}  # the C functions' numbers for the mix256 formats


@cache
def _lib() -> ctypes.CDLL:
    lib = clib.load("core", "digest")
    # addresses, not ndpointer: its per-call checks cost more than fingerprinting a small array
    lib.fingerprints.argtypes = [ctypes.c_int, ctypes.c_int64, *[ctypes.c_void_p] * 5]
    lib.fingerprints.restype = None
    return lib


def check_algorithm(algorithm: str) -> str:
    """``algorithm`` if this version knows it, else a one-line error."""
    if algorithm not in ALGORITHMS:
        raise ParityError(f"unknown digest algorithm {algorithm!r} (this version knows {', '.join(ALGORITHMS)})")
    return algorithm


@cache
def _fingerprint_function() -> Callable[[int, int, bool, int], tuple[bytes, float]]:
    """The C function (``harness.core._digest``, a Python module too): no ctypes call per tensor."""
    return clib.module("core", "digest").fingerprint


def _version(algorithm: str) -> int:
    """The C functions' number for a mix256 ``algorithm``."""
    version = _VERSIONS.get(check_algorithm(algorithm))
    if version is None:
        raise ParityError(f"{algorithm} is not made in one pass with a sum (use digest())")
    return version


def fingerprint_at(address: int, nbytes: int, float32: bool, algorithm: str = ALGORITHM) -> tuple[bytes, float]:
    """The mix256 ``algorithm``'s (digest, float64 sum) of the ``nbytes`` bytes at ``address``; the sum
    is NaN unless ``float32`` (then ``nbytes`` counts whole float32s)."""
    return _fingerprint_function()(address, nbytes, float32, _version(algorithm))


def _contiguous(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The arrays as C-contiguous buffers: the arrays themselves where they are, else copies."""
    return [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]


def _raw(data: Any) -> bytes | np.ndarray:
    return np.ascontiguousarray(data).reshape(-1).view(np.uint8) if isinstance(data, np.ndarray) else bytes(data)


def digest(data: Any, algorithm: str = ALGORITHM) -> bytes:
    """The digest of ``data`` (bytes, or an array's raw C-order bytes) by ``algorithm``."""
    raw = _raw(data)
    if check_algorithm(algorithm) == LEGACY:
        return hashlib.sha256(raw).digest()
    buf = np.frombuffer(raw, np.uint8) if len(raw) else np.zeros(1, np.uint8)
    return fingerprint_at(buf.ctypes.data, len(raw), False, algorithm)[0]


class Batch:
    """A list of arrays as one C call takes them: C-contiguous buffers (the arrays themselves where
    they are, else copies, kept alive here), their addresses, sizes and float32 flags."""

    def __init__(self, arrays: Sequence[np.ndarray]) -> None:
        self.items = tuple(arrays)
        self.arrays = _contiguous(arrays)
        self.ptrs = np.array([a.ctypes.data for a in self.arrays], np.uint64)
        self.nbytes = np.array([a.nbytes for a in self.arrays], np.int64)
        self.float32 = np.array([a.dtype == np.float32 for a in self.arrays], np.uint8)
        self.addresses = (self.ptrs.ctypes.data, self.nbytes.ctypes.data, self.float32.ctypes.data)

    def holds(self, arrays: Sequence[np.ndarray]) -> bool:
        """Whether ``arrays`` are this batch's very array objects (an array keeps its memory)."""
        return len(arrays) == len(self.items) and all(map(operator.is_, arrays, self.items))


def fingerprints(arrays: Sequence[np.ndarray] | Batch, algorithm: str = ALGORITHM) -> tuple[np.ndarray, np.ndarray]:
    """Per array, its digest and float64 sum (NaN for data that is not float32), as an (n, 32) uint8
    and an (n,) float64 array. ``arrays`` may be a ``Batch`` made once for arrays that keep their
    memory (then only their current bytes are read)."""
    batch = arrays if isinstance(arrays, Batch) else None
    if check_algorithm(algorithm) == LEGACY:
        bufs = batch.arrays if batch else _contiguous(arrays)
        sha256, add, f64 = hashlib.sha256, np.add.reduce, np.float64
        digests = b"".join([sha256(a.reshape(-1).view(np.uint8)).digest() for a in bufs])
        sums = np.array([add(a, None, f64) if a.dtype == np.float32 else np.nan for a in bufs], f64)
        return np.frombuffer(digests, np.uint8).reshape(len(bufs), 32), sums
    batch = batch or Batch(arrays)
    n = len(batch.arrays)
    digests, sums = np.empty((n, 32), np.uint8), np.empty(n, np.float64)
    if n:
        at = batch.addresses
        _lib().fingerprints(_version(algorithm), n, at[0], at[1], at[2], digests.ctypes.data, sums.ctypes.data)
    return digests, sums
