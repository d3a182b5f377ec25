"""The fingerprint ``parity trace`` records for a tensor: a 256-bit digest of its raw C-order bytes
and, for float32 data, a float64 sum, in one pass (``harness/impl/csrc/digest.c``; torch-free).

The digest is this project's own ``mix256-v1`` (csrc/digest.c says how it is made): two inputs of
one length that differ in a single 64-bit word always get different digests, and accidental
collisions of other differences are as unlikely as for any 256-bit digest (not a cryptographic
one: it detects changes, it does not resist forgery). A trace names it (``digest`` attribute);
traces written before it carry SHA-256 digests and are read as such.
"""

from __future__ import annotations

import ctypes
import hashlib
from functools import cache
from typing import Any

import numpy as np

from harness.errors import ParityError

ALGORITHM = "mix256-v1"
LEGACY = "sha256"  # the digest of traces that do not name one


@cache
def _lib() -> ctypes.CDLL:
    from harness.impl._lib import load

    lib = load("digest")
    lib.fingerprint.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p, ctypes.c_void_p]
    lib.fingerprint.restype = None
    return lib


def fingerprint_at(address: int, nbytes: int, float32: bool) -> tuple[bytes, float]:
    """(digest, float64 sum) of the ``nbytes`` bytes at ``address``; the sum is NaN unless ``float32``
    (then ``nbytes`` counts whole float32s)."""
    out = ctypes.create_string_buffer(32)
    total = ctypes.c_double(float("nan"))
    _lib().fingerprint(address, nbytes, out, ctypes.byref(total) if float32 else None)
    return out.raw, total.value


def digest(data: Any, algorithm: str = ALGORITHM) -> bytes:
    """The digest of ``data`` (bytes, or an array's raw C-order bytes) by ``algorithm``."""
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8) if isinstance(data, np.ndarray) else bytes(data)
    if algorithm == LEGACY:
        return hashlib.sha256(raw).digest()
    if algorithm != ALGORITHM:
        raise ParityError(f"unknown digest algorithm {algorithm!r} (this version knows {ALGORITHM}, {LEGACY})")
    buf = np.frombuffer(raw, np.uint8) if len(raw) else np.zeros(1, np.uint8)
    return fingerprint_at(buf.ctypes.data, len(raw), False)[0]
