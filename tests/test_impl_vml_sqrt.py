"""MKL VML's sqrt (``torch.sqrt`` on x86, csrc/optim.c vml_sqrt) on MKL's Intel paths: the AVX2
path's fused refinement (sSqrt_L9HAynn), the SSE4.2 path's unfused one (sSqrt_H8HAynn) and, under
MKL_CBWR=COMPATIBLE, the generic path's (sSqrt_EXHAynn), each from the CPU's RSQRTPS estimate: QEMU's
exact one, against torch's bits recorded under `qemu-x86_64 -cpu Haswell-v4` (ATEN_CPU_CAPABILITY=avx2)
and `-cpu Nehalem-v2` (default), and an Intel Xeon's (csrc/rsqrt_tables.h intel_rsqrt_mant), against
torch's bits recorded on that Xeon; and whose estimate a fixture's profile takes from its provenance.
No torch, no recording."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.ops import read_op_fixture
from harness.impl import optim
from harness.impl.op_registry import run_case
from harness.impl.profiles import (
    RSQRT_AMD,
    RSQRT_INTEL,
    RSQRT_QEMU,
    profile_for_fixture,
    profile_for_platform,
    rsqrt_estimate_of,
)
from harness.store.paths import DEFAULT_FIXTURES
from tests.impl_intel_mkl import digest

AVX2 = "linux-x86_64-avx2-mklavx2-t1"
SSE42 = "linux-x86_64-baseline-mklsse42-t1"
CBWR = "linux-x86_64-avx2-mklgeneric-t1-cbwr-compatible"
AVX512 = "linux-x86_64-avx512-mklavx512-t1"

# SHA-256 of torch.sqrt's output bits (little-endian uint32) for every 1024th bit pattern from 517
# (4,194,304 inputs: every sign, exponent, zero, subnormal, infinity and NaN class), recorded with
# torch 2.13.0 under QEMU 7.2 on each path, one tensor.
STRIDED_DIGEST = {
    AVX2: "8cae45483403513834a0d4d92beb81f2ed3e40a19129445940cae9c671e0cce3",
    SSE42: "6cc81809f3e63036ea35c49d8b9df7d00e35236aee4936a33b2afbc7ff5c1294",
}

# (input bits, AVX2 path's output, SSE4.2 path's output), single values from the same recordings:
# where the fused refinement and the unfused one part (the AVX2 path's is correctly rounded here).
MEASURED = (
    (0x00800605, 0x20000303, 0x20000302),
    (0x15AFCA05, 0x2A9600DD, 0x2A9600DC),
    (0x2AC01A05, 0x351CCF10, 0x351CCF0F),
    (0x3FCB4E05, 0x3FA15105, 0x3FA15106),
    (0x54D4AA05, 0x4A24FCE8, 0x4A24FCE7),
    (0x69E28205, 0x54AA45FA, 0x54AA45F9),
)


def _strided() -> np.ndarray:
    return (np.arange(0, 2**32, 1024, dtype=np.uint64) + 517).astype(np.uint32).view(np.float32)


def _digest(out: np.ndarray) -> str:
    return digest(out, 64)


@pytest.mark.parametrize("platform", [AVX2, SSE42])
def test_vml_sqrt_from_qemus_estimate_is_torchs_under_emulation(platform: str) -> None:
    profile = profile_for_platform(platform).with_rsqrt_estimate(RSQRT_QEMU)
    x = _strided()
    assert _digest(optim.sqrt(x, profile)) == STRIDED_DIGEST[platform]
    # the estimate is part of the model: the AMD table's gives other bits on either path
    assert _digest(optim.sqrt(x, profile.with_rsqrt_estimate(RSQRT_AMD))) != STRIDED_DIGEST[platform]


@pytest.mark.parametrize("platform,column", [(AVX2, 1), (SSE42, 2)])
def test_vml_sqrt_single_values(platform: str, column: int) -> None:
    profile = profile_for_platform(platform).with_rsqrt_estimate(RSQRT_QEMU)
    x = np.array([m[0] for m in MEASURED], dtype=np.uint32).view(np.float32)
    want = [m[column] for m in MEASURED]
    assert optim.sqrt(x, profile).view(np.uint32).tolist() == want
    for i, value in enumerate(x):  # element-wise: alone, each gives the same bits
        assert int(optim.sqrt(np.array([value]), profile).view(np.uint32)[0]) == want[i]


def _attrs(platform: str, **prov: str) -> dict:
    return {"platform_id": platform, "torch_version": "2.13.0", "provenance": prov}


def test_rsqrt_estimate_comes_from_the_provenance() -> None:
    qemu = "qemu-x86_64 version 7.2.22; QEMU_CPU=Haswell-v4; QEMU emulation of GenuineIntel family 6 model 60"
    assert rsqrt_estimate_of(_attrs(AVX2, emulation=qemu, cpu_model="Intel Core Processor (Haswell)")) == RSQRT_QEMU
    assert rsqrt_estimate_of(_attrs(AVX2, cpu_model="Intel(R) Xeon(R) Gold 6338")) == RSQRT_INTEL
    assert rsqrt_estimate_of(_attrs(SSE42)) == RSQRT_INTEL  # only Intel CPUs take MKL's Intel paths
    generic = "linux-x86_64-avx2-mklgeneric-t1"
    assert rsqrt_estimate_of(_attrs(generic, cpu_model="AMD EPYC 9R14 96-Core Processor")) == RSQRT_AMD
    assert rsqrt_estimate_of(_attrs(generic, cpu_model="Intel(R) Xeon(R) Platinum 8375C")) == RSQRT_INTEL
    # a trace's provenance: its own BLAS path, and no usable platform id in an old one
    assert rsqrt_estimate_of({"provenance": {"blas_path": "mklavx2"}}) == RSQRT_INTEL
    assert rsqrt_estimate_of({"platform_id": "", "provenance": {"cpu_model": "AMD EPYC"}}) == RSQRT_AMD
    assert profile_for_fixture(_attrs(AVX2, emulation=qemu)).rsqrt_estimate == RSQRT_QEMU
    assert profile_for_fixture(_attrs(AVX2, emulation=qemu)).label == "x86-avx2 mklavx2 t1 rsqrtps=qemu"


# The same digest of the same inputs, recorded with torch 2.13.0 on an Intel Xeon (AVX-512, AMX; CPUID
# family 6 model 167), one thread, each path pinned as the recorder pins it: MKL_ENABLE_INSTRUCTIONS=AVX2
# (sSqrt_L9HAynn), SSE4_2 (sSqrt_H8HAynn) and, with MKL_CBWR=COMPATIBLE, the generic kernel
# (sSqrt_EXHAynn, the same steps as H8's: the same bits), and AVX512 (sSqrt_Z0HAynn, from VRSQRT14PS,
# not RSQRTPS). Kernel names read with gdb breakpoints.
SILICON_DIGEST = {
    AVX2: "92a5566ec84de68e2e8307014c61665433bfc5cc2d47db641559277fe51c3b7c",
    SSE42: "0ecd55c81d06913beaa17ea593e22fac2cde7cd14e40c2bb106b136a8ac9f2e6",
    CBWR: "0ecd55c81d06913beaa17ea593e22fac2cde7cd14e40c2bb106b136a8ac9f2e6",
    AVX512: "89db20b0f301aa76b65a5a60869851374d64e126f8c8696d8aac4168521cd6f9",
}


@pytest.mark.parametrize("platform", [AVX2, SSE42, CBWR])
def test_vml_sqrt_from_an_intel_cpus_estimate_is_its_torch_sqrt(platform: str) -> None:
    profile = profile_for_platform(platform)
    x = _strided()
    assert _digest(optim.sqrt(x, profile.with_rsqrt_estimate(RSQRT_INTEL))) == SILICON_DIGEST[platform]
    # QEMU's estimate and the AMD table's give other bits (the fused AVX2 path too: 1,931 and 878 elements)
    for other in (RSQRT_QEMU, RSQRT_AMD):
        assert _digest(optim.sqrt(x, profile.with_rsqrt_estimate(other))) != SILICON_DIGEST[platform]


def test_vml_sqrt_on_the_avx512_path_is_the_xeons() -> None:
    """The Z0 kernel refines VRSQRT14PS (the Xeon's table), whatever the RSQRTPS estimate."""
    x = _strided()
    for estimate in (RSQRT_INTEL, RSQRT_QEMU, RSQRT_AMD):
        profile = profile_for_platform(AVX512).with_rsqrt_estimate(estimate)
        assert _digest(optim.sqrt(x, profile)) == SILICON_DIGEST[AVX512]
    assert _digest(optim.sqrt(x, profile_for_platform("linux-x86_64-avx512-mklgeneric-t1"))) != SILICON_DIGEST[AVX512]


def test_an_unknown_estimate_is_refused_and_arm64_is_ieee() -> None:
    profile = profile_for_platform(AVX2)
    with pytest.raises(ParityError, match="unknown RSQRTPS estimate"):
        profile.with_rsqrt_estimate("zen5")
    # arm64 has no MKL: IEEE sqrt whatever the estimate
    arm = profile_for_platform("linux-arm64-neoverse-n1-nvpl-t1").with_rsqrt_estimate(RSQRT_INTEL)
    x = np.array([2.0, 3.0], dtype=np.float32)
    assert np.array_equal(optim.sqrt(x, arm), np.sqrt(x))


# SHA-256 of the adamw_step outputs that part from the committed linux-x86_64-baseline-mklsse42-t1 set
# (recorded under `qemu-x86_64 -cpu Nehalem-v2`) when its inputs are recorded on the Intel Xeon above
# (`parity generate --isa baseline --threads 1`, MKL's Intel SSE4.2 path): the Xeon's RSQRTPS is not
# QEMU's exact one. Every other output of that recording, exp_avg and exp_avg_sq among them, has the
# emulated bits (so at 2 and 4 threads, and on the AVX2 path every output).
SSE42_SILICON_PARAMS = {  # "case output": digest
    "3_steps_65x64_65x509_384 param_0": "5bc2594b33305584325e10540bde9ce972cd35c3137dd7622f7b67f91c8d0a0d",
    "3_steps_65x64_65x509_384 param_1": "4b70be4bf963be81fbd5e8c0d1f05609ba45b037ea18966fd437b4a7d89164c8",
    "3_steps_65x64_65x509_384 param_2": "8b808a9ed5e7c9487c83fe8a2cd3f5e1cfdeeafd80c52b15873db6c309419d1c",
    "2_steps_17x33_33_betas0.95 param_0": "879f961b37221b8114398680922d1d203e5c301d76a955f81d47aede7f01387a",
    "2_steps_17x33_33_betas0.95 param_1": "3cffe9705aa7f42c5d2575362d3c8bb632839769b56d6d72a6e04ab361233cb1",
}


def test_the_sse42_paths_emulation_differs_from_silicon_by_the_estimate_alone() -> None:
    """The emulated SSE4.2 set's AdamW inputs under the Intel table give the Xeon's outputs, under
    QEMU's estimate the emulated ones."""
    fixture = read_op_fixture(DEFAULT_FIXTURES / f"torch-2.13.0/{SSE42}.h5", ops=["adamw_step"])
    emulated = profile_for_fixture(fixture.attrs)
    assert emulated.rsqrt_estimate == RSQRT_QEMU
    for key, rec in fixture.cases.items():
        under_qemu = run_case(rec.op, rec.params, rec.inputs, emulated)
        on_silicon = run_case(rec.op, rec.params, rec.inputs, emulated.with_rsqrt_estimate(RSQRT_INTEL))
        for name, want in rec.outputs.items():
            assert np.array_equal(under_qemu[name].view(np.uint32), want.view(np.uint32)), (key, name)
            xeon = SSE42_SILICON_PARAMS.get(f"{rec.case} {name}", _digest(want))
            assert _digest(on_silicon[name]) == xeon, (key, name)


# SHA-256 of the adamw_step outputs that part from the native run when the committed
# linux-x86_64-avx2-mklgeneric-t1 set's inputs are recorded under `qemu-x86_64 -cpu EPYC-Milan`
# (`tools/emulate_x86.py --model EPYC-Milan --isa avx2 --threads 1`, the faithfulness check: MKL's
# generic path, whose VML sqrt refines QEMU's estimate there and the EPYC's own natively); every
# other output of that recording has the native bits.
EPYC_MILAN_PARAMS = {  # "case output": digest
    "3_steps_65x64_65x509_384 param_0": "cfd606ccdcded569b8e886e743dd4be2c3a9513afebdf740ed5270f6221e7c44",
    "3_steps_65x64_65x509_384 param_1": "cc312ef32dbdb8ad17ba3f0e1eaef412f9e2305c6c1568a55063716068dac4e0",
    "3_steps_65x64_65x509_384 param_2": "06e1b93192cfc49e9bada722e2441b2e91383f240de94c123b7699c09c8a399b",
    "2_steps_17x33_33_betas0.95 param_0": "1e88fb9b4a2fda193ecdbd69401eb8da880521f07d81a4c2d075bd33bfef50fc",
}


def test_the_generic_paths_emulation_differs_from_silicon_by_the_estimate_alone() -> None:
    """The faithfulness check's one difference: the native set's AdamW inputs under QEMU's estimate
    give the emulated recording's outputs, under the AMD table's the native ones."""
    fixture = read_op_fixture(DEFAULT_FIXTURES / "torch-2.13.0/linux-x86_64-avx2-mklgeneric-t1.h5", ops=["adamw_step"])
    native = profile_for_fixture(fixture.attrs)
    assert native.rsqrt_estimate == RSQRT_AMD
    for key, rec in fixture.cases.items():
        under_qemu = run_case(rec.op, rec.params, rec.inputs, native.with_rsqrt_estimate(RSQRT_QEMU))
        on_silicon = run_case(rec.op, rec.params, rec.inputs, native)
        for name, want in rec.outputs.items():
            assert np.array_equal(on_silicon[name].view(np.uint32), want.view(np.uint32)), (key, name)
            emulated = EPYC_MILAN_PARAMS.get(f"{rec.case} {name}", _digest(want))
            assert _digest(under_qemu[name]) == emulated, (key, name)
