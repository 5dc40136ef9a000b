"""GPU targets (ROCm and CUDA): compile flags, the runtime driver, and the facts IREE resolved.

The facts (subgroup sizes, SIMDs per CU, CU/SM count, shared memory, MMA intrinsics) are
read from the dumped dispatch's executable target through `iree_gpu.TargetInfo`, never from
tables typed here. The one exception is sm_90: IREE 3.13 has no known-target entry for it,
so its target attribute is written into the input (research notes, section 5.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iree.compiler import ir
from iree.compiler.dialects import iree_gpu

from mltune.errors import UserError
from mltune.frontend.mlir import parse_module_file

# Hopper (H100 SXM) limits with the sm_89 intrinsic list: IREE 3.13 knows no sm_90 target.
SM90_TARGET = (
    '#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", '
    'features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, '
    "subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, "
    "<NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, "
    "<NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], "
    "subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, "
    "max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, "
    'chip = <wgp_count = 132, sku = "h100">>}>'
)
HAND_WRITTEN_CUDA_TARGETS = {"sm_90": SM90_TARGET}
NVIDIA_REGISTERS_PER_THREAD = 255
NVIDIA_REGISTERS_PER_SM = 65536
AMD_VGPR_SPACE_BITS = 16384  # CDNA3's, when the target does not say
NVIDIA_SUBPARTITIONS_PER_SM = 4  # TargetInfo reports 0 SIMDs for CUDA; every SM since Volta has 4 warp schedulers
_BLOCK_INTRINSIC = re.compile(r"x\d+B_")  # multi-block MFMAs (4x4x4x16B ...): not used for GEMM tiles
_UNUSABLE_INTRINSICS = ("NV_WMMA_",)
# an intrinsic's enum -> the attribute that spells it (`mma_layout` or `virtual_mma_layout`)
MMA_ATTRIBUTES = {
    iree_gpu.MMAIntrinsic: iree_gpu.MMAAttr,
    iree_gpu.VirtualMMAIntrinsic: iree_gpu.VirtualMMAAttr,
}  # WMMA with TileAndFuse fails in IREE 3.13 (research notes 5.2)


@dataclass(frozen=True)
class GpuTarget:
    """A ROCm (`api="rocm"`) or CUDA (`api="cuda"`) target, by the name given to `--target`."""

    api: str
    name: str

    @property
    def kind(self) -> str:
        return self.api

    @property
    def runtime_driver(self) -> str:
        return "hip" if self.api == "rocm" else "cuda"

    def compile_flags(self) -> list[str]:
        if self.name in HAND_WRITTEN_CUDA_TARGETS:
            return []  # the target lives in the input module (`prepare_source`)
        if self.api == "rocm":
            return ["--iree-hal-target-device=hip", f"--iree-rocm-target={self.name}"]
        return ["--iree-hal-target-device=cuda", f"--iree-cuda-target={self.name}"]

    def prepare_source(self, source: Path, work_dir: Path, context: ir.Context) -> Path:
        """The model to compile: itself, or a copy carrying a hand-written device target (sm_90)."""
        if self.name not in HAND_WRITTEN_CUDA_TARGETS:
            return source
        module = parse_module_file(source, context)
        with context:
            targets = f'[#hal.device.target<"cuda", [{HAND_WRITTEN_CUDA_TARGETS[self.name]}]> : !hal.device]'
            module.operation.attributes["hal.device.targets"] = ir.Attribute.parse(targets)
            out = work_dir / f"{source.stem}.{self.name}.mlir"
            out.write_text(str(module))
        return out


@dataclass(frozen=True)
class MmaShape:
    """One MMA intrinsic: its name (the `MMAIntrinsic` enum), tile shape and operand types."""

    name: str
    m: int
    n: int
    k: int
    a_type: str
    b_type: str
    c_type: str


def mma_attribute(name: str) -> ir.Attribute:
    """The `mma_kind` attribute of an intrinsic named by `MMAIntrinsic` or `VirtualMMAIntrinsic` (in a context)."""
    enum, attribute = next((e, a) for e, a in MMA_ATTRIBUTES.items() if hasattr(e, name))
    return attribute.get(getattr(enum, name))


@dataclass(frozen=True)
class GpuInfo:
    """What IREE resolved for one GPU executable target (its `iree_gpu.TargetInfo`)."""

    api: str
    arch: str
    sku: str
    subgroup_sizes: tuple[int, ...]
    simds_per_cu: int
    cu_count: int  # 0 when the target names no chip (plain gfx942, sm_80)
    max_threads: int
    max_workgroup_sizes: tuple[int, ...]
    shared_memory_bytes: int
    mma: tuple[MmaShape, ...]
    vgpr_space_bits: int  # 0 when the target does not say (CUDA)
    # IREE's virtual intrinsics (several hardware MMAs as one, e.g. ROCm's VMFMA): named by `VirtualMMAIntrinsic`
    virtual_mma: tuple[MmaShape, ...] = ()

    @property
    def kind(self) -> str:
        return self.api

    @property
    def registers_per_thread(self) -> int:
        """32-bit registers one thread may hold: 255 on every NVIDIA GPU since Kepler; on AMD the VGPR space
        (CDNA3: 512, architected and accumulation VGPRs together)."""
        if self.api == "cuda":
            return NVIDIA_REGISTERS_PER_THREAD
        return (self.vgpr_space_bits or AMD_VGPR_SPACE_BITS) // 32

    @property
    def registers_per_cu(self) -> int:
        """32-bit registers of one SM (64 Ki on NVIDIA since Kepler) or CU (every SIMD's VGPR space, per lane)."""
        if self.api == "cuda":
            return NVIDIA_REGISTERS_PER_SM
        return self.simds_per_cu * self.registers_per_thread * max(self.subgroup_sizes)

    @property
    def cores(self) -> int:
        """Compute units (CUs or SMs) for wave quantization; a typical count when the target names no chip."""
        return self.cu_count or (304 if self.api == "rocm" else 108)

    def describe(self) -> str:
        return (
            f"{self.cores} {'CUs' if self.api == 'rocm' else 'SMs'} of {self.simds_per_cu} SIMDs, "
            f"{self.shared_memory_bytes // 1024} KiB shared memory, subgroups of "
            f"{'/'.join(map(str, self.subgroup_sizes))}, {len(self.mma)} MMA intrinsics"
        )

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "GpuInfo":
        """The facts from their stored form (`dataclasses.asdict`: lists for tuples, dicts for `MmaShape`s)."""
        return GpuInfo(
            **{
                **data,
                "subgroup_sizes": tuple(data["subgroup_sizes"]),
                "max_workgroup_sizes": tuple(data["max_workgroup_sizes"]),
                "mma": tuple(MmaShape(**shape) for shape in data["mma"]),
                "virtual_mma": tuple(MmaShape(**shape) for shape in data.get("virtual_mma", ())),
            }
        )

    @staticmethod
    def from_executable_target(target_attr: ir.Attribute) -> "GpuInfo":
        info = iree_gpu.TargetInfo.get_gpu_target_info(target_attr)
        text = str(target_attr)
        api = "rocm" if text.startswith('#hal.executable.target<"rocm"') else "cuda"
        shapes: dict[type, list[MmaShape]] = {kind: [] for kind in MMA_ATTRIBUTES}
        for intrinsic in info.mma_intrinsics:
            name = str(intrinsic)
            if (
                type(intrinsic) not in MMA_ATTRIBUTES
                or _BLOCK_INTRINSIC.search(name)
                or name.startswith(_UNUSABLE_INTRINSICS)
            ):
                continue
            attr = MMA_ATTRIBUTES[type(intrinsic)].get(intrinsic)
            a, b, c = (str(t) for t in attr.abc_element_types)
            shapes[type(intrinsic)].append(MmaShape(name, *attr.mnk_shape, a, b, c))
        mma, virtual = shapes[iree_gpu.MMAIntrinsic], shapes[iree_gpu.VirtualMMAIntrinsic]
        sku = re.search(r'sku = "([^"]+)"', text)
        vgpr = re.search(r"vgpr_space_bits = (\d+)", text)
        simds = info.simds_per_workgroup or (NVIDIA_SUBPARTITIONS_PER_SM if api == "cuda" else 4)
        return GpuInfo(
            api,
            info.arch,
            sku.group(1) if sku else "",
            tuple(info.subgroup_size_choices),
            simds,
            info.workgroup_count,
            info.max_thread_count_per_workgroup,
            tuple(info.max_workgroup_sizes),
            info.max_workgroup_memory_bytes,
            tuple(mma),
            int(vgpr.group(1)) if vgpr else 0,
            tuple(virtual),
        )


_ROCM_NAME = re.compile(r"(gfx[0-9a-f]{3,4}[a-z0-9]*|mi[0-9]{3}[a-z]*|rx[0-9]{4}[a-z]*|w[0-9]{4}[a-z]*|v[0-9]{3})")
_CUDA_NAME = re.compile(r"sm_([0-9]{2,3})a?")
MIN_CUDA_SM = 80  # IREE 3.13 emits sm_80 mma.sync instructions; sm_70/75 crash in LLVM


def gpu_target(name: str) -> GpuTarget | None:
    """The GPU target for a ROCm or CUDA name, None for other names; refuses CUDA archs IREE cannot use."""
    lowered = name.lower()
    if _ROCM_NAME.fullmatch(lowered):
        return GpuTarget("rocm", lowered)
    cuda = _CUDA_NAME.fullmatch(lowered)
    if cuda:
        if int(cuda.group(1)) < MIN_CUDA_SM:
            raise UserError(f"--target {name}: IREE 3.13 emits sm_80 MMA instructions; use sm_80 or newer")
        return GpuTarget("cuda", lowered.removesuffix("a") if lowered == "sm_90a" else lowered)
    return None
