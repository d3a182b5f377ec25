"""torch.atanh, torch.polar, torch.hann_window and torch.kaiser_window against torch 2.13.0's bits recorded on an
AMD EPYC Zen 5 (SHA-256 digests over tests/atanh_polar_window_cases.py's inputs): atanh at default, avx2 and
avx512 on 1 and 4 threads, contiguous (SLEEF's vector body, glibc's tails where the threads' chunks end) and
strided (glibc's atanhf on every element); kaiser_window at default and avx2/avx512 (the AVX2 object's
contractions); polar and hann_window the same at every level. No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.impl import unary
from harness.impl.factories import hann_window, kaiser_window
from harness.impl.nn import polar
from harness.impl.profiles import get_profile
from tests.atanh_polar_window_cases import HANN, KAISER, atanh_cases, polar_cases
from tests.bit_digest import bits_sha256

GLIBC = "2da78f190fc3b988476383728d235672957f15e46f46953db6b2951126e20877"  # default, and every strided run
ATANH = {
    ("x86-baseline", 1): GLIBC,
    ("x86-baseline", 4): GLIBC,
    ("x86-avx2", 1): "6d9c2d176caf4023b21c6990456f90a033d805e818fef7a570c25821d2b20996",
    ("x86-avx2", 4): "39faab271d4e7946c9b6babccb272fad2fb153a79188c54425728b37ca9c35b7",
    ("x86-avx512", 1): "89f9becec00ea163c8d8467168dd704fb170ca81bd305d91e1d36951c47a4a9c",
    ("x86-avx512", 4): "e1198777b2d7604927ca3d6e356bdfca1b9c2b7eeb8db4f0029b7285bfd5dc1f",
}
POLAR = "b51ae825e546a0503d8b9d9c473b23861d153b67a4b2a17d97a108077de5033c"
HANN_DIGEST = "0dc594940a7feea3fabdabd7b2a8a3a44cee07e72150c4ee5ae4215a1529bfa6"
KAISER_DIGEST = {
    "x86-baseline": "c3d7063049063487c94c99168657e7ad9194e388644c37ec10518ef97511a893",
    "x86-avx2": "54dd679985422e3927c7ae47c0a69af1b29ab107eb3d0443df0277923cfbe64e",
    "x86-avx512": "54dd679985422e3927c7ae47c0a69af1b29ab107eb3d0443df0277923cfbe64e",
}


@pytest.mark.parametrize(("name", "threads"), sorted(ATANH))
def test_atanh_reproduces_the_recorded_bits(name: str, threads: int) -> None:
    x, profile = atanh_cases(), get_profile(name, threads)
    assert bits_sha256(unary.forward("atanh", x, profile)) == ATANH[(name, threads)]
    assert bits_sha256(unary.forward("atanh", x, profile, row=1)) == GLIBC  # a strided run: the basic loop


def test_atanh_special_values() -> None:
    """SLEEF's all-ones NaNs (x's sign xored in for |x| > 1 and infinities), glibc's default NaN and x quieted."""
    x = np.array([np.inf, -np.inf, 2.0, -2.0, 1.0, -1.0, -0.0, 1e-41], np.float32)
    x = np.concatenate([x, np.array([0x7FA00001, 0xFFC12345], np.uint32).view(np.float32)])
    sleef = unary.forward("atanh", np.tile(x, 4), get_profile("x86-avx2")).view(np.uint32)[:10]
    glibc = unary.forward("atanh", x, get_profile("x86-avx2"), row=1).view(np.uint32)
    assert [hex(v) for v in sleef] == [
        "0xffffffff", "0x7fffffff", "0xffffffff", "0x7fffffff", "0x7f800000", "0xff800000", "0x80000000",
        "0x1be0", "0xffffffff", "0xffffffff",
    ]  # fmt: skip
    assert [hex(v) for v in glibc] == [
        "0xffc00000", "0xffc00000", "0xffc00000", "0xffc00000", "0x7f800000", "0xff800000", "0x80000000",
        "0x1be0", "0x7fe00001", "0xffc12345",
    ]  # fmt: skip


def test_polar_reproduces_the_recorded_bits() -> None:
    abs_, angle = polar_cases()
    for name in ("x86-baseline", "x86-avx2", "x86-avx512"):
        assert bits_sha256(polar(abs_, angle, get_profile(name))) == POLAR


@pytest.mark.parametrize("name", sorted(KAISER_DIGEST))
def test_windows_reproduce_the_recorded_bits(name: str) -> None:
    profile = get_profile(name)
    assert bits_sha256(np.concatenate([hann_window(n, p, profile) for n, p in HANN])) == HANN_DIGEST
    kaiser = np.concatenate([kaiser_window(n, p, b, profile) for n, p, b in KAISER])
    assert bits_sha256(kaiser) == KAISER_DIGEST[name]
