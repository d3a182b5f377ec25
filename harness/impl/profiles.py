"""Kernel profiles: a platform's float32 arithmetic as data the impl's kernels switch on.

A profile names what changes bits between platforms (see docs/impl/kernels.md): the ATen capability
(which kernel variant runs), the vector width of plain and of AVX-512-registered kernels,
whether vector multiply-adds are fused, whether the compiler contracted scalar ``a*b+c`` in
vectorised objects, and which MKL code path the BLAS calls take. The thread count is a
separate parameter (``with_threads``), as ATen's chunking depends on it, and so is the torch
release reproduced (``with_torch``; a fixture's own is its ``torch_version``), as a release may
change a kernel's bits (docs/releases.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.core.errors import ParityError

IMPL_TORCH = "2.13.0"  # the release of the impl's reference fixtures, and of a profile unless told otherwise
# The torch releases whose CPU bits the kernels reproduce (docs/releases.md), x86 and arm64 profiles
# alike. 2.12.1's x86 AVX2 objects leave the partial last vector of map2/map3_reduce_all unfused
# (layer_norm backward at avx2 and avx512, softmax backward at avx2), and its oneDNN (v3.11) runs
# gelu_tanh forward on aarch64 without SVE in its reference kernel, and its aarch64 NEON object keeps the
# sign of a NaN that 2.13.0's negates (weight_norm backward, a zero column); the rest of 2.12.1 and all of
# 2.14.1 compute as 2.13.0.
RELEASES = ("2.12.1", "2.13.0", "2.14.1")
# The per-core L2 cache, in bytes, of the host the x86 fixtures were recorded on (AMD EPYC, Zen 4:
# CPUID 0x8000001D reports 1 MiB of L2 per core), a profile's default (KernelProfile.l2_per_core).
FIXTURE_L2_PER_CORE = 1 << 20
FIXTURE_L1_PER_CORE = 32 << 10

# The CPU's RSQRTPS estimate, which the architecture leaves to the implementation and MKL VML's sqrt
# refines (csrc/optim.c vml_sqrt): the fixtures' AMD EPYC's (measured on Zen 3, a table of the
# exponent's parity and 12 mantissa bits: csrc/rsqrt_tables.h amd_rsqrt_mant); QEMU's, exact (1/sqrt(x),
# both operations rounded to nearest; the committed mklsse42 and mklavx2 sets are recorded under QEMU);
# an Intel CPU's, measured on an Intel Xeon the same way (csrc/rsqrt_tables.h intel_rsqrt_mant;
# docs/emulation.md, "On the CPU itself").
RSQRT_AMD = "amd"
RSQRT_QEMU = "qemu"
RSQRT_INTEL = "intel"
RSQRT_ESTIMATES = (RSQRT_AMD, RSQRT_QEMU, RSQRT_INTEL)

# The kernel changes behind each op whose bits moved from one release to the next, as the impl
# reproduces them (docs/releases.md): (from, to) -> {op id: change}. A pair absent here has none known.
RELEASE_CHANGES: dict[tuple[str, str], dict[str, str]] = {
    ("2.12.1", "2.13.0"): {
        "layer_norm": (
            "the AVX2 objects (layer_norm has no AVX-512 build: avx512 runs them too) fuse the partial last "
            "vector of a row into `ds` and `db` of the backward (`map2_reduce_all`/`map3_reduce_all`), which "
            "2.12.1's round twice"
        ),
        "softmax": (
            "the AVX2 objects fuse the partial last vector of the backward's sum of `g*y` where it runs outside "
            "the OpenMP region (1 thread or 1 row), which 2.12.1's round twice"
        ),
        "gelu_tanh": (
            "on aarch64 without SVE (Neoverse N1) the forward is oneDNN's eltwise: v3.12 (2.13.0) runs it in its "
            "new asimd JIT (exp-based tanh), v3.11 (2.12.1) has none and runs `ref:any`, `gelu_tanh_fwd` of "
            "`math_utils.hpp` with glibc's `tanhf` and the last product in double"
        ),
    },
    ("2.13.0", "2.14.1"): {},
}


# the kernels' builds this project's hosts have measured the newer kernels on (x86's three on an AMD Zen 5,
# aarch64's on emulated Neoverse cores): an op reproduced from measurements alone refuses the others, or
# those of its own list (KernelProfile.refuse_unmeasured)
MEASURED_BUILDS = ("default", "avx2", "avx512", "neon", "sve")


@dataclass(frozen=True)
class KernelProfile:
    name: str
    aten: str  # the kernels' build: default (x86 scalar) | avx2 | avx512 | neon (aarch64 DEFAULT) | sve
    lanes: int  # Vectorized<float>::size() for REGISTER_DISPATCH kernels
    lanes_wide: int  # lanes of kernels also registered for AVX-512 (softmax, flash attention)
    vec_fma: bool  # Vectorized::fmadd is one fused operation
    contract: bool  # scalar a*b+c contracted to an FMA in the vectorised objects (GCC, -mfma)
    blas: str  # the BLAS code path reproduced, as tagged in platform ids (platform_config.BLAS_TAGS)
    threads: int = 1
    torch: str = IMPL_TORCH  # the torch release reproduced (RELEASES)
    # MKL_CBWR=COMPATIBLE (a platform id's -cbwr-compatible): MKL's conditional-numerical-reproducibility
    # kernels, the same on every vendor's CPU (sgemm: csrc/mkl_sgemm.h mkl_cbwr_sgemm; VML gives the
    # generic path's bits there)
    mkl_cbwr: bool = False
    # the per-core L2 data cache oneDNN reads from CPUID (cache size / the logical CPUs sharing it),
    # which sizes its gemm:jit forward blocking and with it whether that convolution runs at all
    # (harness.impl.conv); the fixtures' host, an AMD EPYC (Zen 4): 1 MiB
    l2_per_core: int = FIXTURE_L2_PER_CORE
    # the per-core L1 data cache, read alike, which bounds jit_1x1:avx512_core's backward-weights
    # pixel blocking; the fixtures' host: 32 KiB
    l1_per_core: int = FIXTURE_L1_PER_CORE
    # the CPU's RSQRTPS estimate, which MKL VML's sqrt (torch.sqrt on x86) refines (RSQRT_ESTIMATES)
    rsqrt_estimate: str = RSQRT_AMD

    @property
    def aarch64(self) -> bool:
        """Whether the kernels are an aarch64 build (NEON, or SVE): ATen's, oneDNN's and GCC's code there."""
        return self.aten in ("neon", "sve")

    @property
    def libm_fma(self) -> bool:
        """Whether x86-64 glibc's libm takes its FMA builds (``__pow_fma``: its ifunc picks them on a CPU with
        FMA and AVX2), as every x86 profile's CPU but MKL's SSE4.2 path's does: that path runs on Intel CPUs
        without AVX2 (the emulated Nehalem), or with MKL pinned to SSE4_2, where the CPU is not known."""
        return not self.aarch64 and self.blas != MKL_SSE42

    @property
    def mkl_intel(self) -> bool:
        """Whether MKL's calls take one of its Intel code paths (SSE4.2, AVX2, AVX-512), whose products
        inside a parallel region read the calling pool thread's own MKL thread count."""
        return self.blas in (MKL_SSE42, MKL_AVX2, MKL_AVX512)

    def refuse_unmeasured(self, what: str, builds: tuple[str, ...] = MEASURED_BUILDS) -> None:
        """ParityError where ``what``, reproduced from measurements, runs a build none measured (any but
        ``builds``)."""
        if self.aten not in builds:
            raise ParityError(f"{what} is reproduced at the {', '.join(builds)} builds only, not {self.aten}")

    def with_threads(self, threads: int) -> KernelProfile:
        if threads < 1:
            raise ParityError(f"thread count must be >= 1, got {threads}")
        return replace(self, threads=threads)

    def with_l2_per_core(self, size: int) -> KernelProfile:
        """This profile on a host whose per-core L2 cache (as oneDNN reads it) holds ``size`` bytes."""
        if size < 4:
            raise ParityError(f"L2 cache size must be at least 4 bytes, got {size}")
        return replace(self, l2_per_core=size)

    def with_l1_per_core(self, size: int) -> KernelProfile:
        """This profile on a host whose per-core L1 data cache (as oneDNN reads it) holds ``size`` bytes."""
        if size < 64:
            raise ParityError(f"L1 cache size must be at least 64 bytes, got {size}")
        return replace(self, l1_per_core=size)

    def with_cbwr(self, mode: str) -> KernelProfile:
        """This profile under ``MKL_CBWR=mode`` ("" for none); refused for a mode the impl does not model
        (it models COMPATIBLE, on MKL's x86 path)."""
        if not mode:
            return replace(self, mkl_cbwr=False)
        if mode.upper() != "COMPATIBLE" or self.blas != MODELLED_BLAS:
            raise ParityError(
                f"no kernel profile for MKL_CBWR={mode} on {self.name}: the impl models MKL_CBWR=COMPATIBLE "
                f"with MKL ({MODELLED_BLAS}) only"
            )
        return replace(self, mkl_cbwr=True)

    def with_blas(self, blas: str) -> KernelProfile:
        """This profile with MKL's calls on code path ``blas`` (the generic path or an Intel one, on
        x86: ``MKL_ENABLE_INSTRUCTIONS`` is independent of ATen's level; the AMX path as the AVX-512
        one, ``_BLAS_AS``); refused for another."""
        known = (MODELLED_BLAS, MKL_SSE42, MKL_AVX2, MKL_AVX512)
        blas = replayed_blas(blas)
        if self.blas not in known or blas not in known:
            raise ParityError(f"no kernel profile for {self.name} on the BLAS code path {blas}")
        return replace(self, blas=blas, mkl_cbwr=self.mkl_cbwr and blas == MODELLED_BLAS)

    def with_rsqrt_estimate(self, estimate: str) -> KernelProfile:
        """This profile on a CPU whose RSQRTPS gives ``estimate`` (one of ``RSQRT_ESTIMATES``)."""
        if estimate not in RSQRT_ESTIMATES:
            raise ParityError(f"unknown RSQRTPS estimate '{estimate}' (known: {', '.join(RSQRT_ESTIMATES)})")
        return replace(self, rsqrt_estimate=estimate)

    def with_torch(self, release: str) -> KernelProfile:
        """This profile as torch ``release`` computes; refused for a release the impl has no profile for."""
        if release not in RELEASES:
            raise ParityError(
                f"the impl has no kernel profile for torch {release} (it reproduces {', '.join(RELEASES)})"
            )
        return replace(self, torch=release)

    @property
    def label(self) -> str:
        suffix = "" if self.torch == IMPL_TORCH else f" torch {self.torch}"
        cbwr = " MKL_CBWR=COMPATIBLE" if self.mkl_cbwr else ""
        blas = "" if self.blas in (MODELLED_BLAS, NVPL) else f" {self.blas}"  # a BLAS path other than the arch's own
        rsqrt = "" if self.rsqrt_estimate == RSQRT_AMD else f" rsqrtps={self.rsqrt_estimate}"
        return f"{self.name}{blas} t{self.threads}{cbwr}{rsqrt}{suffix}"

    def as_c(self):
        from harness.impl._lib import Profile

        aten = {"default": 0, "avx2": 1, "avx512": 2, "neon": 3, "sve": 4}[self.aten]
        blas = 2 if self.mkl_cbwr else {MODELLED_BLAS: 0, NVPL: 1, MKL_AVX2: 3, MKL_SSE42: 4, MKL_AVX512: 5}[self.blas]
        major, minor, patch = (int(v) for v in self.torch.split("."))
        release = major * 10000 + minor * 100 + patch
        rsqrt = {RSQRT_AMD: 0, RSQRT_QEMU: 1, RSQRT_INTEL: 2}[self.rsqrt_estimate]  # RSQRT_* of csrc/common.h
        return Profile(
            aten, self.lanes, self.lanes_wide, int(self.vec_fma), int(self.contract), self.threads, blas, release, rsqrt
        )


# MKL's generic path ("Intel(R) Architecture processors"), as it runs on the fixtures' AMD host
# whatever MKL_ENABLE_INSTRUCTIONS says; Intel CPUs run other, vendor-specific kernels.
MODELLED_BLAS = "mklgeneric"  # that path's tag in platform ids (platform_config.BLAS_TAGS)
# NVIDIA Performance Libraries, the BLAS of the Linux aarch64 wheel (BLAS_INFO=nvpl).
NVPL = "nvpl"
# MKL's "Intel(R) AVX2 enabled processors" path (GenuineIntel CPUs with AVX2 and FMA): its sgemm is
# modelled (csrc/mkl_sgemm.h mkl_avx2_sgemm), and so are its VML exp, log, sin and cos (csrc/vmath.h
# mkl_avx2_vml_*) and its VML sqrt (csrc/optim.c vml_sqrt, from the CPU's rsqrt_estimate); the
# sgemm shapes not measured there run the generic path's kernels.
MKL_AVX2 = "mklavx2"
# MKL's "Intel(R) SSE4.2 enabled processors" path (GenuineIntel CPUs without AVX2, or MKL pinned to
# SSE4_2): its sgemm is modelled where measured (csrc/mkl_sgemm.h mkl_sse42_sgemm), and its VML
# sqrt (csrc/optim.c vml_sqrt); the rest of its VML and the sgemm shapes not measured there run the
# generic path's kernels.
MKL_SSE42 = "mklsse42"
# MKL's "Intel(R) AVX-512 enabled processors" path (GenuineIntel CPUs with AVX-512, MKL pinned to
# AVX512): its sgemm is modelled where measured on an Intel Xeon, one thread (csrc/mkl_sgemm.h
# mkl_avx512_sgemm), and its VML exp, log, tanh and sqrt (csrc/vmath.h mkl_avx512_vml_*, csrc/optim.c
# vml_sqrt_z0); the other sgemm shapes run the generic path's kernels.
MKL_AVX512 = "mklavx512"

PROFILES: dict[str, KernelProfile] = {
    p.name: p
    for p in (
        KernelProfile("x86-avx512", "avx512", 8, 16, True, True, MODELLED_BLAS),
        KernelProfile("x86-avx2", "avx2", 8, 8, True, True, MODELLED_BLAS),
        KernelProfile("x86-baseline", "default", 8, 8, False, False, MODELLED_BLAS),
        # aarch64: FMA is in the base ISA, so GCC contracts a*b+c everywhere and Vectorized::fmadd
        # is vfmaq/svmla; ATen's DEFAULT build there is NEON (Vectorized<float> of 4 lanes), its SVE
        # builds take the vector length of the machine (SVE128: 4 lanes, SVE256: 8).
        KernelProfile("arm64-neon", "neon", 4, 4, True, True, NVPL),
        KernelProfile("arm64-sve128", "sve", 4, 4, True, True, NVPL),
        KernelProfile("arm64-sve256", "sve", 8, 8, True, True, NVPL),
    )
}

# platform-id ISA level -> profile
_LEVEL_PROFILE = {
    "avx512": "x86-avx512",
    "avx2": "x86-avx2",
    "baseline": "x86-baseline",
    "neon": "arm64-neon",  # a real Linux arm64 machine without SVE
    "neoverse-n1": "arm64-neon",
    "neoverse-v2": "arm64-sve128",
    "neoverse-v1": "arm64-sve256",
}
_ARCH_BLAS = {"x86_64": MODELLED_BLAS, "arm64": NVPL}
# MKL's Intel paths the impl models in part, each at the ISA level whose MKL_ENABLE_INSTRUCTIONS pins it
_INTEL_BLAS_LEVEL = {MKL_SSE42: "baseline", MKL_AVX2: "avx2", MKL_AVX512: "avx512"}
# MKL's "AVX-512 ... and Intel(R) AMX" path (Intel CPUs with AMX, MKL unpinned): AMX has no float32
# tiles, and its float32 sgemm, gemv, batched products and VML exp, log, tanh and sqrt gave the
# AVX-512 path's bits on an Intel Xeon (1,340 random products of up to 700 x 700 x 3,000 and 600
# random op cases, 1 to 4 threads: docs/emulation.md, "On the CPU itself"), so it is replayed as that path.
MKL_AMX = "mklamx"
_BLAS_AS = {MKL_AMX: MKL_AVX512}


def get_profile(name: str, threads: int = 1, torch: str = IMPL_TORCH) -> KernelProfile:
    if name not in PROFILES:
        raise ParityError(f"unknown kernel profile '{name}' (known: {', '.join(PROFILES)})")
    return PROFILES[name].with_threads(threads).with_torch(torch)


# (arch, torch.backends.cpu.get_cpu_capability()) -> profile
_CAPABILITY_PROFILE = {
    ("x86_64", "AVX512"): "x86-avx512",
    ("x86_64", "AVX2"): "x86-avx2",
    ("x86_64", "DEFAULT"): "x86-baseline",
    ("arm64", "DEFAULT"): "arm64-neon",
    ("arm64", "SVE128"): "arm64-sve128",
    ("arm64", "SVE256"): "arm64-sve256",
}


def profile_for_capability(
    capability: str, threads: int, arch: str = "x86_64", torch: str = IMPL_TORCH
) -> KernelProfile:
    """The profile of a running torch, from its architecture and reported ATen capability."""
    from harness.platform.config import normalize_arch

    arch = normalize_arch(arch)
    if (arch, capability) not in _CAPABILITY_PROFILE:
        known = ", ".join(f"{a} {c}" for a, c in _CAPABILITY_PROFILE)
        raise ParityError(f"no kernel profile for ATen capability '{capability}' on {arch} (known: {known})")
    return get_profile(_CAPABILITY_PROFILE[(arch, capability)], threads, torch)


def replayed_blas(blas: str) -> str:
    """The BLAS code path the impl replays ``blas`` as (``_BLAS_AS``: MKL's AMX path as its AVX-512 one)."""
    return _BLAS_AS.get(blas, blas)


def _replayed_as(config):
    """``config`` with its BLAS code path as the impl replays it."""
    return replace(config, blas=replayed_blas(config.blas))


def _cache_size(provenance, key: str) -> int:
    """A cache size a trace's provenance records (0 where absent); refused where it is not a whole number."""
    value = provenance.get(key, 0) or 0
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ParityError(f"the trace's provenance has {key} = {value!r}, not a size in bytes") from None


def profile_for_trace(provenance) -> KernelProfile:
    """The profile of a traced run, from its provenance: ATen's capability as the run reported it,
    its thread count, architecture and torch release, MKL's code path as observed (the platform id's
    BLAS part, ``MKL_CBWR``), on the CPU that ran it (``rsqrt_estimate_of``). MKL's Intel paths are
    independent of ATen's level (``MKL_ENABLE_INSTRUCTIONS`` against ``ATEN_CPU_CAPABILITY``), so a
    run may pair any of them with any level. The per-core L1 and L2 caches oneDNN blocked its
    convolutions for are the run's own where its provenance names them (traces from before that, and
    runs under emulation, keep the fixtures' host's). A BLAS the impl does not model (Accelerate, OpenBLAS)
    keeps the arch's own: the impl's products then do not give its bits, and the verdict says so,
    while its other ops are reproduced as on any CPU."""
    from harness.platform.config import parse_platform_id

    profile = profile_for_capability(
        str(provenance.get("capability")), int(provenance.get("threads", 1)), str(provenance.get("arch")),
        str(provenance.get("torch_version", IMPL_TORCH)),
    )  # fmt: skip
    try:
        config = _replayed_as(parse_platform_id(str(provenance.get("platform_id", ""))))
    except ParityError:  # a trace from before platform ids: the arch's own BLAS path
        config = None
    if config is not None and config.blas in _INTEL_BLAS_LEVEL and not config.mkl_cbwr:
        profile = profile.with_blas(config.blas)
    elif config is not None and config.mkl_cbwr:
        profile = profile.with_cbwr(config.mkl_cbwr)
    if not provenance.get("emulation"):  # under QEMU oneDNN reads the emulated CPU's caches, not the host's
        l1, l2 = _cache_size(provenance, "l1d_per_core"), _cache_size(provenance, "l2_per_core")
        profile = profile.with_l1_per_core(l1) if l1 else profile
        profile = profile.with_l2_per_core(l2) if l2 else profile
    return profile.with_rsqrt_estimate(
        rsqrt_estimate_of({"platform_id": provenance.get("platform_id", ""), "provenance": provenance})
    )


def unmodelled_blas(provenance) -> str:
    """The BLAS code path a traced run took where the impl does not model it (MKL's AMX or AVX path,
    Accelerate, OpenBLAS): its tag, else ""."""
    from harness.platform.config import parse_platform_id

    try:
        config = _replayed_as(parse_platform_id(str(provenance.get("platform_id", ""))))
    except ParityError:
        return ""
    modelled = (_ARCH_BLAS.get(config.arch, ""), *_INTEL_BLAS_LEVEL) if config.arch == "x86_64" else (NVPL,)
    return "" if config.blas in ("", *modelled) else config.blas


def profile_for_fixture(attrs) -> KernelProfile:
    """The profile, thread count and torch release of a fixture, from its attributes' platform id
    and torch_version (refused when the impl has no profile for that release), on the CPU that
    recorded it (``rsqrt_estimate_of``)."""
    profile = profile_for_platform(str(attrs["platform_id"]), str(attrs["torch_version"]))
    return profile.with_rsqrt_estimate(rsqrt_estimate_of(attrs))


def rsqrt_estimate_of(attrs) -> str:
    """Whose RSQRTPS estimate a fixture's torch.sqrt refined, from its provenance: QEMU's where its
    process ran under qemu-x86_64, an Intel CPU's where the CPU was Intel's (its model name, or
    MKL's Intel code path), else the AMD table's."""
    from harness.platform.config import parse_platform_id

    prov = attrs.get("provenance") or {}
    if str(prov.get("emulation", "") or "").startswith("qemu-x86_64"):
        return RSQRT_QEMU
    try:
        blas = str(prov.get("blas_path", "")) or parse_platform_id(str(attrs.get("platform_id", ""))).blas
    except ParityError:  # an id from before platform ids (a trace's provenance may lack one)
        blas = ""
    intel_cpu = blas in (MKL_AVX2, MKL_SSE42) or "intel" in str(prov.get("cpu_model", "")).lower()
    return RSQRT_INTEL if intel_cpu else RSQRT_AMD


def profile_for_platform(platform_id: str, torch: str = IMPL_TORCH) -> KernelProfile:
    """The profile and thread count of a fixture's platform id, e.g. linux-x86_64-avx2-mklgeneric-t2,
    as torch release ``torch`` computes."""
    from harness.platform.config import parse_platform_id

    config = _replayed_as(parse_platform_id(platform_id))
    if config.os != "linux" or config.arch not in _ARCH_BLAS or config.isa not in _LEVEL_PROFILE:
        raise ParityError(
            f"no kernel profile for platform {platform_id}: the impl has profiles for Linux x86_64 "
            f"(baseline, avx2, avx512) and Linux arm64 (neoverse-n1, neoverse-v1, neoverse-v2) only"
        )
    if config.arch == "x86_64" and _INTEL_BLAS_LEVEL.get(config.blas) == config.isa and not config.mkl_cbwr:
        return replace(get_profile(_LEVEL_PROFILE[config.isa], config.threads, torch), blas=config.blas)
    if config.blas not in ("", _ARCH_BLAS[config.arch]):
        raise ParityError(
            f"no kernel profile for platform {platform_id}: its matrix products ran the BLAS code path "
            f"{config.blas}; the impl reproduces {_ARCH_BLAS[config.arch]} on {config.arch}"
            + (" (MKL's generic path, as on AMD CPUs)" if config.arch == "x86_64" else "")
        )
    return get_profile(_LEVEL_PROFILE[config.isa], config.threads, torch).with_cbwr(config.mkl_cbwr)
