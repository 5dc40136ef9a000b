"""Per-core facts of CPUs by LLVM CPU name: what the compiler does not report but features need.

IREE's executable target gives a CPU's name and native vector width; cache sizes, the vector register
file and the FMA units decide which tile configurations fit and keep the core busy, and they are what
lets one model learn from several CPUs (features are expressed relative to them). The numbers are per
core (L3: the slice one core's cluster shares; a VM sees part of it).

Sources: Intel 64 and IA-32 Architectures Optimization Reference Manual (2024), chapters on Skylake
Server, Ice Lake, Sapphire Rapids (L1D 32/48 KiB, L2 1/1.25/2 MiB, two 512-bit FMA ports on Xeon Gold 6xxx
and Platinum, FMA latency 4); Intel Xeon 5th Gen (Emerald Rapids) product brief (2 MiB L2 per core,
up to 320 MB L3 for 64 cores); AMD Software Optimization Guides for family 17h (Zen 2), 19h (Zen 3,
Zen 4) and 1Ah (Zen 5) (L1D 32/48 KiB, L2 512 KiB / 1 MiB, 16/32 MiB L3 per CCX/CCD, two 256-bit FMA
pipes; Zen 1 has two 128-bit FMA pipes, 1 x 256-bit; Zen 4 runs AVX-512 on
two 256-bit pipes as 1 x 512-bit; Zen 5 has full 512-bit pipes; FMA latency 5 on Zen 2,
4 from Zen 3); Agner Fog's instruction tables (FMA latencies of Haswell 5, Skylake and later 4). x86 has
16 vector registers without AVX-512 and 32 with it.
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class CpuCoreFacts:
    """One core's vector, cache and FMA resources."""

    native_vector_bytes: int
    l1d_bytes: int
    l2_bytes: int
    l3_bytes: int
    vector_registers: int
    fma_units: int  # FMA instructions of native width issued per cycle
    fma_latency: int  # cycles: accumulators needed to keep the units busy = units x latency


_SKYLAKE_SERVER = CpuCoreFacts(64, 32 * KIB, 1 * MIB, 1408 * KIB, 32, 2, 4)
_ICELAKE_SERVER = CpuCoreFacts(64, 48 * KIB, 1280 * KIB, 1536 * KIB, 32, 2, 4)
_SAPPHIRE_RAPIDS = CpuCoreFacts(64, 48 * KIB, 2 * MIB, 1920 * KIB, 32, 2, 4)
_CLIENT_AVX2 = CpuCoreFacts(32, 32 * KIB, 256 * KIB, 2 * MIB, 16, 2, 4)

CPU_FACTS: dict[str, CpuCoreFacts] = {
    "haswell": CpuCoreFacts(32, 32 * KIB, 256 * KIB, 2 * MIB, 16, 2, 5),
    "broadwell": CpuCoreFacts(32, 32 * KIB, 256 * KIB, 2 * MIB, 16, 2, 5),
    "skylake": _CLIENT_AVX2,
    "meteorlake": CpuCoreFacts(32, 48 * KIB, 2 * MIB, 3 * MIB, 16, 2, 4),
    "alderlake": CpuCoreFacts(32, 48 * KIB, 1280 * KIB, 3 * MIB, 16, 2, 4),
    "raptorlake": CpuCoreFacts(32, 48 * KIB, 2 * MIB, 3 * MIB, 16, 2, 4),
    "skylake-avx512": _SKYLAKE_SERVER,
    "cascadelake": _SKYLAKE_SERVER,
    "cooperlake": _SKYLAKE_SERVER,
    "icelake-server": _ICELAKE_SERVER,
    "cannonlake": CpuCoreFacts(64, 32 * KIB, 256 * KIB, 2 * MIB, 32, 1, 4),
    "rocketlake": CpuCoreFacts(64, 48 * KIB, 512 * KIB, 2 * MIB, 32, 1, 4),
    "icelake-client": CpuCoreFacts(64, 48 * KIB, 512 * KIB, 2 * MIB, 32, 1, 4),
    "tigerlake": CpuCoreFacts(64, 48 * KIB, 1280 * KIB, 3 * MIB, 32, 1, 4),
    "sapphirerapids": _SAPPHIRE_RAPIDS,
    "emeraldrapids": CpuCoreFacts(64, 48 * KIB, 2 * MIB, 5 * MIB, 32, 2, 4),
    "graniterapids": CpuCoreFacts(64, 48 * KIB, 2 * MIB, 4 * MIB, 32, 2, 4),
    "znver1": CpuCoreFacts(32, 32 * KIB, 512 * KIB, 8 * MIB, 16, 1, 5),
    "znver2": CpuCoreFacts(32, 32 * KIB, 512 * KIB, 16 * MIB, 16, 2, 5),
    "znver3": CpuCoreFacts(32, 32 * KIB, 512 * KIB, 32 * MIB, 16, 2, 4),
    "znver4": CpuCoreFacts(64, 32 * KIB, 1 * MIB, 32 * MIB, 32, 1, 4),
    "znver5": CpuCoreFacts(64, 48 * KIB, 1 * MIB, 32 * MIB, 32, 2, 4),
}

# For a name the table lacks: a typical core of its vector width (AVX-512 server, AVX2, 128-bit SIMD).
_BY_VECTOR_BYTES = {64: _ICELAKE_SERVER, 32: _CLIENT_AVX2, 16: CpuCoreFacts(16, 32 * KIB, 256 * KIB, 2 * MIB, 16, 2, 4)}


def cpu_core_facts(name: str, native_vector_bytes: int | None = None) -> tuple[CpuCoreFacts, bool]:
    """The table's facts of an LLVM CPU name, else a typical core of `native_vector_bytes` (32 when that is unknown
    too) with that vector width; the flag says whether the name was in the table."""
    if name in CPU_FACTS:
        return CPU_FACTS[name], True
    width = native_vector_bytes or 32
    typical = _BY_VECTOR_BYTES[min(_BY_VECTOR_BYTES, key=lambda known: abs(known - width))]
    return CpuCoreFacts(
        width,
        typical.l1d_bytes,
        typical.l2_bytes,
        typical.l3_bytes,
        typical.vector_registers,
        typical.fma_units,
        typical.fma_latency,
    ), False
