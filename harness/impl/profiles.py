"""Kernel profiles: a platform's float32 arithmetic as data the impl's kernels switch on.

A profile names what changes bits between platforms (see KERNELS.md): the ATen capability
(which kernel variant runs), the vector width of plain and of AVX-512-registered kernels,
whether vector multiply-adds are fused, whether the compiler contracted scalar ``a*b+c`` in
vectorised objects, and which MKL code path the BLAS calls take. The thread count is a
separate parameter (``with_threads``), as ATen's chunking depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.errors import ParityError


@dataclass(frozen=True)
class KernelProfile:
    name: str
    aten: str  # ATEN_CPU_CAPABILITY: default | avx2 | avx512
    lanes: int  # Vectorized<float>::size() for REGISTER_DISPATCH kernels
    lanes_wide: int  # lanes of kernels also registered for AVX-512 (softmax, flash attention)
    vec_fma: bool  # Vectorized::fmadd is one fused operation
    contract: bool  # scalar a*b+c contracted to an FMA in the vectorised objects (GCC, -mfma)
    mkl: str  # the MKL code path reproduced (MKL picks it from the CPU vendor and model, not from ATen)
    threads: int = 1

    def with_threads(self, threads: int) -> KernelProfile:
        if threads < 1:
            raise ParityError(f"thread count must be >= 1, got {threads}")
        return replace(self, threads=threads)

    @property
    def label(self) -> str:
        return f"{self.name} t{self.threads}"

    def as_c(self):
        from harness.impl._lib import Profile

        aten = {"default": 0, "avx2": 1, "avx512": 2}[self.aten]
        return Profile(aten, self.lanes, self.lanes_wide, int(self.vec_fma), int(self.contract), self.threads)


# MKL's generic path ("Intel(R) Architecture processors"), as it runs on the fixtures' AMD host
# whatever MKL_ENABLE_INSTRUCTIONS says; Intel CPUs run other, vendor-specific kernels.
MKL_GENERIC = "generic"
MODELLED_BLAS = "mklgeneric"  # that path's tag in platform ids (platform_config.BLAS_TAGS)

PROFILES: dict[str, KernelProfile] = {
    p.name: p
    for p in (
        KernelProfile("x86-avx512", "avx512", 8, 16, True, True, MKL_GENERIC),
        KernelProfile("x86-avx2", "avx2", 8, 8, True, True, MKL_GENERIC),
        KernelProfile("x86-baseline", "default", 8, 8, False, False, MKL_GENERIC),
    )
}

# platform-id ISA level -> profile
_LEVEL_PROFILE = {"avx512": "x86-avx512", "avx2": "x86-avx2", "baseline": "x86-baseline"}


def get_profile(name: str, threads: int = 1) -> KernelProfile:
    if name not in PROFILES:
        raise ParityError(f"unknown kernel profile '{name}' (known: {', '.join(PROFILES)})")
    return PROFILES[name].with_threads(threads)


# torch.backends.cpu.get_cpu_capability() -> profile
_CAPABILITY_PROFILE = {"AVX512": "x86-avx512", "AVX2": "x86-avx2", "DEFAULT": "x86-baseline"}


def profile_for_capability(capability: str, threads: int) -> KernelProfile:
    """The profile of a running torch on x86, from its reported ATen capability."""
    if capability not in _CAPABILITY_PROFILE:
        raise ParityError(
            f"no kernel profile for ATen capability '{capability}' (known: {', '.join(_CAPABILITY_PROFILE)})"
        )
    return get_profile(_CAPABILITY_PROFILE[capability], threads)


def profile_for_platform(platform_id: str) -> KernelProfile:
    """The profile and thread count of a fixture's platform id, e.g. linux-x86_64-avx2-mklgeneric-t2."""
    from harness.platform_config import parse_platform_id

    config = parse_platform_id(platform_id)
    if config.arch != "x86_64" or config.isa not in _LEVEL_PROFILE:
        raise ParityError(
            f"no kernel profile for platform {platform_id}: the impl has profiles for x86_64 "
            f"({', '.join(_LEVEL_PROFILE)}) only"
        )
    if config.blas not in ("", MODELLED_BLAS):
        raise ParityError(
            f"no kernel profile for platform {platform_id}: its matrix products ran the BLAS code path "
            f"{config.blas}; the impl reproduces MKL's generic path ({MODELLED_BLAS}, as on AMD CPUs)"
        )
    return get_profile(_LEVEL_PROFILE[config.isa], config.threads)
