"""What an x86 CPU says of itself through CPUID: vendor, brand, family, model and feature flags.

Under QEMU user-mode emulation the instruction answers for the emulated CPU (``-cpu MODEL``) while
``/proc/cpuinfo`` is the host's, so an emulated x86 process is described by running this module in
it: ``python -m harness.platform.cpuid`` prints one JSON line. The flags are named as Linux names
them in ``/proc/cpuinfo``, for the features that steer dispatch (``CPUID_FLAGS``), so that
``platform_config.supported_levels`` reads them as it reads a real machine's. The instruction is
run from a page of machine code through ctypes (no compiler needed); ``decode`` is pure.
"""

from __future__ import annotations

import json
import platform
import struct
from dataclasses import dataclass

from harness.core.errors import ParityError

# (leaf, subleaf, register, bit, Linux flag): the features that steer dispatch in ATen, MKL and oneDNN
CPUID_FLAGS: tuple[tuple[int, int, str, int, str], ...] = (
    (1, 0, "edx", 0, "fpu"), (1, 0, "edx", 4, "tsc"), (1, 0, "edx", 8, "cx8"), (1, 0, "edx", 15, "cmov"),
    (1, 0, "edx", 23, "mmx"), (1, 0, "edx", 24, "fxsr"), (1, 0, "edx", 25, "sse"), (1, 0, "edx", 26, "sse2"),
    (1, 0, "ecx", 0, "pni"), (1, 0, "ecx", 1, "pclmulqdq"), (1, 0, "ecx", 9, "ssse3"), (1, 0, "ecx", 12, "fma"),
    (1, 0, "ecx", 13, "cx16"), (1, 0, "ecx", 19, "sse4_1"), (1, 0, "ecx", 20, "sse4_2"), (1, 0, "ecx", 22, "movbe"),
    (1, 0, "ecx", 23, "popcnt"), (1, 0, "ecx", 25, "aes"), (1, 0, "ecx", 26, "xsave"), (1, 0, "ecx", 28, "avx"),
    (1, 0, "ecx", 29, "f16c"), (1, 0, "ecx", 30, "rdrand"),
    (7, 0, "ebx", 3, "bmi1"), (7, 0, "ebx", 5, "avx2"), (7, 0, "ebx", 8, "bmi2"), (7, 0, "ebx", 9, "erms"),
    (7, 0, "ebx", 16, "avx512f"), (7, 0, "ebx", 17, "avx512dq"), (7, 0, "ebx", 18, "rdseed"), (7, 0, "ebx", 19, "adx"),
    (7, 0, "ebx", 21, "avx512ifma"), (7, 0, "ebx", 28, "avx512cd"), (7, 0, "ebx", 29, "sha_ni"),
    (7, 0, "ebx", 30, "avx512bw"), (7, 0, "ebx", 31, "avx512vl"),
    (7, 0, "ecx", 1, "avx512vbmi"), (7, 0, "ecx", 6, "avx512_vbmi2"), (7, 0, "ecx", 8, "gfni"),
    (7, 0, "ecx", 9, "vaes"), (7, 0, "ecx", 10, "vpclmulqdq"), (7, 0, "ecx", 11, "avx512_vnni"),
    (7, 0, "ecx", 12, "avx512_bitalg"), (7, 0, "ecx", 14, "avx512_vpopcntdq"),
    (7, 0, "edx", 23, "avx512_fp16"), (7, 0, "edx", 22, "amx_bf16"), (7, 0, "edx", 24, "amx_tile"),
    (7, 0, "edx", 25, "amx_int8"),
    (7, 1, "eax", 4, "avx_vnni"), (7, 1, "eax", 5, "avx512_bf16"),
    (0x80000001, 0, "ecx", 0, "lahf_lm"), (0x80000001, 0, "ecx", 5, "abm"), (0x80000001, 0, "ecx", 6, "sse4a"),
    (0x80000001, 0, "ecx", 11, "xop"), (0x80000001, 0, "ecx", 16, "fma4"),
    (0x80000001, 0, "edx", 20, "nx"), (0x80000001, 0, "edx", 29, "lm"),
)  # fmt: skip
REGISTERS = ("eax", "ebx", "ecx", "edx")
Registers = dict[tuple[int, int], tuple[int, int, int, int]]  # (leaf, subleaf) -> eax, ebx, ecx, edx


@dataclass(frozen=True)
class CpuIdentity:
    vendor: str  # GenuineIntel, AuthenticAMD
    brand: str  # the brand string, /proc/cpuinfo's "model name"
    family: int
    model: int
    stepping: int
    flags: frozenset[str]

    def to_json(self) -> str:
        return json.dumps({**self.__dict__, "flags": sorted(self.flags)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> CpuIdentity:
        data = json.loads(text)
        return cls(str(data["vendor"]), str(data["brand"]), int(data["family"]), int(data["model"]),
                   int(data["stepping"]), frozenset(map(str, data["flags"])))  # fmt: skip


def _text(*words: int) -> str:
    return b"".join(struct.pack("<I", w) for w in words).rstrip(b"\0").decode("ascii", errors="replace").strip()


def decode(regs: Registers) -> CpuIdentity:
    """A CPU's identity from its CPUID answers (leaves not present read as zero)."""
    get = lambda leaf, sub=0: regs.get((leaf, sub), (0, 0, 0, 0))
    _, ebx, ecx, edx = get(0)
    vendor = _text(ebx, edx, ecx)
    brand = _text(*get(0x80000002), *get(0x80000003), *get(0x80000004))
    eax = get(1)[0]
    family, model = (eax >> 8) & 0xF, (eax >> 4) & 0xF
    if family == 0xF:
        family += (eax >> 20) & 0xFF
    if family in (0x6, 0xF) or family > 0xF:
        model += ((eax >> 16) & 0xF) << 4
    flags = {name for leaf, sub, reg, bit, name in CPUID_FLAGS if get(leaf, sub)[REGISTERS.index(reg)] >> bit & 1}
    return CpuIdentity(vendor, brand, family, model, eax & 0xF, frozenset(flags))


# push rbx; mov r8, rdx; mov eax, edi; mov ecx, esi; cpuid; mov [r8], eax; mov [r8+4], ebx;
# mov [r8+8], ecx; mov [r8+12], edx; pop rbx; ret   (System V: leaf, subleaf, uint32_t out[4])
_CPUID_CODE = bytes.fromhex("53 4989d0 89f8 89f1 0fa2 418900 41895804 41894808 4189500c 5b c3")


def read_registers() -> Registers:
    """Every leaf ``decode`` reads, from this process's CPU (on an x86_64 process only)."""
    import ctypes
    import mmap

    if platform.machine().lower() not in ("x86_64", "amd64"):
        raise ParityError(f"CPUID is an x86 instruction; this process runs on {platform.machine()}")
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(_CPUID_CODE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    call = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32))(address)
    out = (ctypes.c_uint32 * 4)()

    def cpuid(leaf: int, sub: int = 0) -> tuple[int, int, int, int]:
        call(leaf, sub, out)
        return out[0], out[1], out[2], out[3]

    regs: Registers = {(0, 0): cpuid(0)}
    top = regs[(0, 0)][0]
    for leaf, sub in ((1, 0), (7, 0), (7, 1)):
        if leaf <= top:
            regs[(leaf, sub)] = cpuid(leaf, sub)
    top_ext = cpuid(0x80000000)[0]
    for leaf in (0x80000001, 0x80000002, 0x80000003, 0x80000004):
        if leaf <= top_ext:
            regs[(leaf, 0)] = cpuid(leaf)
    return regs


def cpuinfo_as(host_text: str, cpu: CpuIdentity) -> str:
    """The host's /proc/cpuinfo with each processor's identity and flags replaced by ``cpu``'s:
    what an emulated process reads, its core count, APIC ids and caches still the host's."""
    replaced = {
        "vendor_id": cpu.vendor, "cpu family": str(cpu.family), "model": str(cpu.model),
        "model name": cpu.brand, "stepping": str(cpu.stepping), "flags": " ".join(sorted(cpu.flags)),
    }  # fmt: skip
    lines = []
    for line in host_text.splitlines():
        key = line.partition(":")[0].strip()
        lines.append(f"{key}\t: {replaced[key]}" if key in replaced else line)
    return "\n".join(lines) + "\n"


def main() -> int:
    print(decode(read_registers()).to_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
