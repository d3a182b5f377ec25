"""The SHA-256 of a float32 array's uint32 bit patterns (C order): how the Torch-free tests hold the
outputs torch gave, so that an impl's result is compared with them bit for bit."""

from __future__ import annotations

import hashlib

import numpy as np


def bits_sha256(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, np.float32).view(np.uint32).tobytes()).hexdigest()
