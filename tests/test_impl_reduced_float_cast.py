"""Casts to and from float16 and bfloat16 on x86 (aten._to_copy through the trace's replay: harness.impl.unary
cast_to_f16, cast_to_bf16, cast_from_f16) against torch 2.13.0's bits recorded on an AMD EPYC Zen 5:
tests/reduced_float_cast_cases.py's 72 cases, a digest per level and thread count, and its 39 ``copy_`` cases
(aten.copy_ into float16 and bfloat16 destinations of three layouts), a digest per level. A float32 NaN cast to float16
keeps its payload's top bits through F16C in the AVX2 / AVX-512 objects and in Copy.cpp's FBGEMM path, but becomes
sign|0x7E00 in the default build's copy kernel; to bfloat16 it is 0xFFFF in the AVX objects' vectors and 0x7FC0
elsewhere; a float16 NaN widened in FBGEMM's tails (each thread's chunk's last len % 8) is 0x7FFFFFFF, so the
level, the layout and the thread count reach the bits. No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from harness.trace.impl_ops import knob_free, replay
from tests import reduced_float_cast_cases
from tests.bit_digest import bits_sha256

DIGESTS = {
    ("x86-baseline", 1): "7f7b304b51c19fe437506d34d124491fa01f346fb66961bec2d0897f2d4d1f0b",
    ("x86-baseline", 2): "d7499cf19d08798dc4d28aa5630f31c6ed4cb953403f9cb0d5732a403435d102",
    ("x86-baseline", 4): "2937eb67e115be86c98818ffbcab3610ac4b34fc3a9159e25fd955cc19d402a1",
    ("x86-avx2", 1): "964bc986d6290030dab35bcea458e89dc3b7c280ce4b6698d872cb14ba7dc3b2",
    ("x86-avx2", 2): "373666b28cb89c4364229222c62fccad3a4670191daf712cde72e31c69890546",
    ("x86-avx2", 4): "62575143f0caea4376755b2341a22aff3883d09b44eb0a973b9539edeba98e6f",
    ("x86-avx512", 1): "964bc986d6290030dab35bcea458e89dc3b7c280ce4b6698d872cb14ba7dc3b2",
    ("x86-avx512", 2): "373666b28cb89c4364229222c62fccad3a4670191daf712cde72e31c69890546",
    ("x86-avx512", 4): "62575143f0caea4376755b2341a22aff3883d09b44eb0a973b9539edeba98e6f",
}
# copy_ into float16 and bfloat16 (tests/reduced_float_cast_cases.py's copy_cases, 39 cases): the same digest
# at every thread count (no FBGEMM tail of a float16 widening among them)
COPY_DIGESTS = {
    "x86-baseline": "cf5fbc51c59db585b4546e4b3d307209f4dc1341b81b261affd690e7dafaf02b",
    "x86-avx2": "d14bdd118d0462c7c8d57a1d2f3f4c7b06df258aa032b949fe86f51e2185f4e5",
    "x86-avx512": "d14bdd118d0462c7c8d57a1d2f3f4c7b06df258aa032b949fe86f51e2185f4e5",
}


@pytest.mark.parametrize(
    ("name", "threads"), [("x86-baseline", 1), ("x86-baseline", 4), ("x86-avx2", 2), ("x86-avx512", 4)]
)
def test_reduced_float_casts_reproduce_the_recorded_bits(name: str, threads: int) -> None:
    profile = get_profile(name, threads)
    outs = [reduced_float_cast_cases.replay(case, profile) for case in reduced_float_cast_cases.cases()]
    assert bits_sha256(reduced_float_cast_cases.digest_words(outs)) == DIGESTS[(name, threads)]
    copies = [reduced_float_cast_cases.replay_copy(case, profile) for case in reduced_float_cast_cases.copy_cases()]
    assert bits_sha256(reduced_float_cast_cases.digest_words(copies)) == COPY_DIGESTS[name]


def test_a_cast_to_float16_is_no_longer_taken_as_knob_free_and_aarch64_nans_are_refused() -> None:
    """copy_ into float16 from float32 is not knob-free (replayed), nor are relu and clamp of a reduced float;
    float16 to float32 and sign keep their bits-kept standing; a NaN cast to or from a reduced float on aarch64 is
    refused in one line, a float64 NaN to bfloat16 too."""
    assert not knob_free("aten.copy_.default", ["float16", "float32"], ["float16"])
    assert not knob_free("aten._to_copy.default", ["float64"], ["float16"])
    assert knob_free("aten._to_copy.default", ["float16"], ["float32"])
    # element-wise ops computed through float: a reduced float's NaN by the level's conversion
    assert not knob_free("aten.relu.default", ["bfloat16"], ["bfloat16"])
    assert not knob_free("aten.clamp.default", ["float16"], ["float16"])
    assert knob_free("aten.relu.default", ["float32"], ["float32"])
    assert knob_free("aten.sign.default", ["float16"], ["float16"])
    nan = np.array([np.nan, 1.0], np.float32)
    args = [{"name": "self", "tensor": "self", "dtype": "float32", "shape": [2], "stride": [1]},
            {"name": "dtype", "value": "torch.float16"}]  # fmt: skip
    with pytest.raises(ParityError, match="aarch64"):
        replay("aten._to_copy.default", {"self": nan}, args, get_profile("arm64-neon", 1))
    # a NaN widened from bfloat16 or float16 on aarch64, as the kernel index's ARM64 entry says
    for src, bits in (("bfloat16", np.array([0x7FC1, 0x3F80], np.uint16)), ("float16", np.array([0x7E01, 0x3C00]))):
        widen = [{**args[0], "dtype": src}, {"name": "dtype", "value": "torch.float32"}]
        inputs = {"self": bits.astype(np.uint16).view(np.uint16 if src == "bfloat16" else np.float16)}
        with pytest.raises(ParityError, match="aarch64"):
            replay("aten._to_copy.default", inputs, widen, get_profile("arm64-neon", 1))
    args[0]["dtype"], args[1]["value"] = "float64", "torch.bfloat16"
    with pytest.raises(ParityError, match="float64 NaN"):
        replay("aten._to_copy.default", {"self": nan.astype(np.float64)}, args, get_profile("x86-avx2", 1))
    # copy_ between the two reduced floats, or across complex dtypes: refused in one line
    args = [{"name": "self", "tensor": "self", "dtype": "float16", "shape": [2], "stride": [1]},
            {"name": "src", "tensor": "src", "dtype": "bfloat16", "shape": [2], "stride": [1]}]  # fmt: skip
    with pytest.raises(ParityError, match="copy_ from bfloat16 to float16"):
        replay("aten.copy_.default", {"src": np.zeros(2, np.uint16)}, args, get_profile("x86-avx2", 1))
