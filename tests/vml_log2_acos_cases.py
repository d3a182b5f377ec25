"""Inputs of MKL VML's vsLog2/vsAcos (torch.log2/acos on x86, MKL's generic path) for tests/test_impl_vml_log2_acos.py,
which holds the digests of torch's outputs over them; imports only NumPy (torch where it records):
``python -m tests.vml_log2_acos_cases`` on an AMD x86 CPU (MKL's generic path, AMD's RCPPS/RSQRTPS) prints them.

The inputs, float32 bit patterns, each op's own (``cases(op)``):
- log2: the 116 inputs whose bits RCPPS's estimate decides (``RCPPS_DECIDES``), the first and last mantissa of
  each of RCPPS's 4,096 buckets (the top 12 mantissa bits, where the kernel's k may change) at 8 exponents, every
  float of [1 - 2^-9, 1 + 2^-8] (the cancellation next to 1), every 61st positive subnormal (the scalar routine's
  table), and every 8,191st bit pattern (NaN payloads of both signs, quiet and signalling, infinities, negatives,
  zeros);
- acos: every 13th float of [0.5, 1] and every 1,999th of [0, 0.5) (RSQRTPS's buckets of (1 - |x|)/2, the two
  branches and their border), both signs (a third negated), and every 8,191st bit pattern (|x| > 1, NaNs).
"""

from __future__ import annotations

import numpy as np

from tests.bit_digest import bits_sha256

# the 116 positive normals whose log2 bits AMD's RCPPS decides: k from it differs from rint(184/1.f) and the other
# k gives other bits (csrc/vmath.h vm_amd_rcpps_k; found over every mantissa and exponent)
RCPPS_DECIDES = (
    0x3F805966, 0x3F8059AA, 0x3F8059DF, 0x3F805C7F, 0x3F805D2A, 0x3F805D51, 0x3F805DB9, 0x3F805E4F, 0x3F805E69,
    0x3F805E92, 0x3F805EF8, 0x3F805F22, 0x3F805F9E, 0x3F805FDD, 0x3F810876, 0x3F810997, 0x3F827C35, 0x3F827EF6,
    0x3F857008, 0x3F888234, 0x3F0957C2, 0x3F0AF665, 0x3E900B49, 0x40100B49, 0x3FA2FF9D, 0x3BA6711E, 0x3C26711E,
    0x3CA6711E, 0x3D26711E, 0x41A6711E, 0x4226711E, 0x42A6711E, 0x4326711E, 0x3FADD633, 0x3F3D3477, 0x3F3D34F4,
    0x37BD3793, 0x383D3793, 0x38BD3793, 0x393D3793, 0x39BD3793, 0x3A3D3793, 0x3ABD3793, 0x3B3D3793, 0x43BD3793,
    0x443D3793, 0x44BD3793, 0x453D3793, 0x45BD3793, 0x463D3793, 0x46BD3793, 0x473D3793, 0x3EBEB69F, 0x403EB69F,
    0x3F451213, 0x2FCDB044, 0x304DB044, 0x30CDB044, 0x314DB044, 0x31CDB044, 0x324DB044, 0x32CDB044, 0x334DB044,
    0x33CDB044, 0x344DB044, 0x34CDB044, 0x354DB044, 0x35CDB044, 0x364DB044, 0x36CDB044, 0x374DB044, 0x47CDB044,
    0x484DB044, 0x48CDB044, 0x494DB044, 0x49CDB044, 0x4A4DB044, 0x4ACDB044, 0x4B4DB044, 0x4BCDB044, 0x4C4DB044,
    0x4CCDB044, 0x4D4DB044, 0x4DCDB044, 0x4E4DB044, 0x4ECDB044, 0x4F4DB044, 0x3ECF7E78, 0x404F7E78, 0x3F5525D0,
    0x3ED710AE, 0x405710AE, 0x3F5912AC, 0x3F5917CF, 0x3FE16486, 0x3FE1669C, 0x3F616714, 0x3EE39023, 0x40639023,
    0x3FE39545, 0x3F680E9F, 0x3F6A5BA5, 0x3F6A5F92, 0x3F6CB6B8, 0x3F6F1819, 0x3F6F19D3, 0x3F79382A, 0x3F793857,
    0x3F793884, 0x3F7939A3, 0x3EFBE716, 0x407BE716, 0x3F7BE71C, 0x3F7E9DDB, 0x3F7E9DE1, 0x3F7E9FB8,
)  # fmt: skip


def _bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.uint64).astype(np.uint32)


def cases(op: str) -> np.ndarray:
    """The float32 inputs of ``op`` (log2, acos), in order."""
    every = _bits(np.arange(0, 1 << 32, 8191, dtype=np.uint64))
    if op == "log2":
        t = np.arange(4096, dtype=np.uint32) << np.uint32(11)
        edges = np.concatenate([t, t | np.uint32(0x7FF)])
        exps = np.array([1, 2, 100, 126, 127, 128, 200, 254], np.uint32) << np.uint32(23)
        buckets = (exps[:, None] | edges[None, :]).ravel()
        near1 = np.arange(0x3F7FC000, 0x3F808000, dtype=np.uint32)
        sub = np.arange(1, 0x00800000, 61, dtype=np.uint32)
        x = np.concatenate([np.array(RCPPS_DECIDES, np.uint32), buckets, near1, sub, every])
    elif op == "acos":
        big = np.arange(0x3F000000, 0x3F800001, 13, dtype=np.uint32)
        small = np.arange(0, 0x3F000000, 1999, dtype=np.uint32)
        x = np.concatenate([big, small])
        x = np.concatenate([x, x[::3] | np.uint32(0x80000000), every])
    else:
        raise ValueError(op)
    return x.view(np.float32)


if __name__ == "__main__":
    import torch

    torch.set_num_threads(1)
    for op in ("log2", "acos"):
        x = cases(op)
        print(op, len(x), bits_sha256(getattr(torch, op)(torch.from_numpy(x)).numpy()))
