"""When ROCm honours `amdgpu-waves-per-eu` for a GPU contraction tiling.

The LLVM attribute asks for at least N waves resident per SIMD. LLVM cannot make a tiling fit more waves
than its shared memory (LDS) and registers allow: it then warns "failed to meet occupancy target given by
'amdgpu-waves-per-eu' ... final occupancy is F" and the attribute changes nothing the tuner wants, so such a
point is a duplicate of the one without it. The space offers a value only where the tiling can reach it:
- LDS: the workgroups that fit a CU's LDS (the target's workgroup maximum, all of a gfx942 CU's 64 KiB), each
  holding one K tile of both operands (prefetching stages it through registers, not a second LDS buffer),
  times its subgroups, spread over the CU's SIMDs;
- registers: a lane's accumulators within its share of the register file (`vgpr_space_bits` over N) less
  what the operands and addresses take (`RESERVED_REGISTERS`).
`benchmarks/gpu/rocm_waves_per_eu.py` compiles sampled tilings with each value and counts LLVM's warnings
against this rule (docs/rocm-space.md has the counts: the constants were read off one sample and checked on
another).
"""

from __future__ import annotations

from typing import Callable

import z3

from mltune.spaces.subgroup_tiling import Derived
from mltune.targets.gpu import GpuInfo

RESERVED_REGISTERS = 32  # 32-bit registers per lane besides the accumulators (operand fragments, addresses)
REGISTER_BITS = 32
ROW_PADDING_BYTES = 16  # IREE pads each shared-memory row by 128 bits against bank conflicts, unless told not to


def lds_bytes(in_bytes: int, var: Callable[[str], z3.ArithRef], k_tile: z3.ArithRef) -> z3.ArithRef:
    """Shared memory of one workgroup: a K tile of each operand, each row padded (rows along K or along M/N,
    by the operand's layout: both are counted)."""
    padding = z3.If(var("no_bank_fix") == 0, ROW_PADDING_BYTES, 0) * (var("wg_m") + var("wg_n") + k_tile)
    return in_bytes * (var("wg_m") + var("wg_n")) * k_tile + padding


def waves_per_eu_rules(
    gpu: GpuInfo, var: Callable[[str], z3.ArithRef], derived: Derived, in_bytes: int, k_tile: z3.ArithRef
) -> list[z3.BoolRef]:
    """`waves_per_eu` (0: unset) at most the waves per SIMD the tiling's LDS and registers allow: LLVM counts the
    resident workgroups' subgroups over the SIMDs rounding up, and a lane's registers per wave."""
    waves = var("waves_per_eu")
    resident = gpu.shared_memory_bytes / lds_bytes(in_bytes, var, k_tile)
    subgroups = derived.count_m * derived.count_n
    rules = [z3.Implies(waves > 0, resident * subgroups > (waves - 1) * gpu.simds_per_cu)]
    if gpu.vgpr_space_bits:
        registers = gpu.vgpr_space_bits // REGISTER_BITS
        accumulators = var("sg_m") * derived.mma_m * var("sg_n") * derived.mma_n / var("sg_size")
        rules.append(z3.Implies(waves > 0, (accumulators + RESERVED_REGISTERS) * waves <= registers))
    return rules
