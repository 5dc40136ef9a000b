"""A GPU config as IREE reads it: the `compilation_info` attribute (lowering config and translation info) of an
MMA pipeline's candidate, built through IREE's Python bindings so that the compiler's own printer writes it."""

from __future__ import annotations

from typing import Sequence

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, iree_gpu

from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE
from mltune.targets.gpu import mma_attribute

PIPELINE = "TileAndFuse"  # IREE's default MMA pipeline


def i64_array(values: Sequence[int | Sequence[int]]) -> ir.ArrayAttr:
    """An array of i64 integers, or of such arrays (IREE's `subgroup_basis`)."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get(
        [ir.IntegerAttr.get(i64, value) if isinstance(value, int) else i64_array(value) for value in values]
    )


def build_compilation_info(
    context: ir.Context,
    mma_name: str,
    levels: dict[str, list],
    padding: list[int] | None,
    knobs: dict[str, int],
    workgroup_size: int,
    igemm: bool = False,
    pipeline: str = PIPELINE,
    thread_promotion: bool = True,
) -> str:
    """A `compilation_info`: lowering config (MMA, tiles, promoted operands, padding) and translation info
    (pipeline, workgroup and subgroup sizes, pipeline options, ROCm waves per EU). VectorDistribute promotes
    a contraction's operands with `derived_thread_config`, as IREE's own VectorDistribute configuration does;
    its convolution configuration promotes them without (`thread_promotion` False)."""
    with context:
        entries = {
            "mma_kind": mma_attribute(mma_name),
            "promote_operands": i64_array([0, 1]),
            **{name: i64_array(values) for name, values in levels.items()},
        }
        if pipeline == VECTOR_DISTRIBUTE and thread_promotion:
            entries["promotion_types"] = ir.ArrayAttr.get([ir.Attribute.parse("#iree_gpu.derived_thread_config")] * 2)
        if padding is not None:
            entries["padding"] = i64_array(padding)
        lowering = iree_gpu.LoweringConfigAttr.get(ir.DictAttr.get(entries))
        options = iree_gpu.PipelineOptionsAttr.get(
            prefetch_num_stages=knobs["prefetch"],
            no_reduce_shared_memory_bank_conflicts=bool(knobs["no_bank_fix"]),
            use_igemm_convolution=igemm,
        )
        config = {"gpu_pipeline_options": options}
        if knobs.get("waves_per_eu"):
            config["llvm_func_attrs"] = ir.DictAttr.get(
                {"amdgpu-waves-per-eu": ir.StringAttr.get(str(knobs["waves_per_eu"]))}
            )
        translation = iree_codegen.TranslationInfoAttr.get(
            iree_gpu.PipelineAttr.get(getattr(iree_gpu.LoweringPipeline, pipeline)),
            None,
            [workgroup_size, 1, 1],
            knobs["sg_size"],
            ir.DictAttr.get(config),
        )
        return str(iree_codegen.CompilationInfoAttr.get(lowering, translation))
