"""Which reader describes a root op (`problem`, `generic_ops`), and every root op of a dumped dispatch."""

from __future__ import annotations

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, linalg

from mltune.frontend.generic_ops import (
    GENERIC,
    elementwise_problem,
    is_elementwise,
    is_multiply_accumulate,
    is_reduction,
    multi_loop_contraction_problem,
    reduction_problem,
)
from mltune.frontend.problem import (
    ONLINE_ATTENTION,
    SOURCE_ATTENTION,
    Problem,
    Untunable,
    attention_problem,
    contraction_problem,
    convolution_problem,
    has_one_m_n_k,
)


def problem_from_root_op(op: ir.Operation) -> Problem | Untunable:
    """Describe a root op as a `Problem`, or say why it cannot be tuned."""
    name = op.name
    if linalg.isa_contraction_op(op):
        if name == GENERIC and is_multiply_accumulate(op) and not has_one_m_n_k(op):
            return multi_loop_contraction_problem(op)
        return contraction_problem(op)
    if linalg.isa_convolution_op(op):
        return convolution_problem(op)
    if name in (ONLINE_ATTENTION, SOURCE_ATTENTION):
        return attention_problem(op)
    if is_reduction(op):  # a multiply-accumulate one is a contraction `linalg` does not take (strided maps)
        return multi_loop_contraction_problem(op) if is_multiply_accumulate(op) else reduction_problem(op)
    if is_elementwise(op):
        return elementwise_problem(op)
    if name.endswith("attention"):
        return Untunable(
            name, f"only {ONLINE_ATTENTION} is tuned (what IREE's dispatches hold after it converts attention)"
        )
    return Untunable(
        name,
        "root ops other than contractions, convolutions, attention, reductions and elementwise "
        "ops are not supported yet",
    )


def read_root_ops(module: ir.Module) -> list[Problem | Untunable]:
    """Every op marked `root_op` (needs `--iree-codegen-add-tuner-attributes` at dump time)."""
    return [problem_from_root_op(op) for op in iree_codegen.get_tuner_root_ops(module)]


def root_op_configs(module: ir.Module) -> list[str]:
    """The `lowering_config` IREE gave each root op of a dumped dispatch (its default config), as text, in
    `read_root_ops`' order; "" for a root op without one."""
    return [
        str(op.attributes["lowering_config"]) if "lowering_config" in op.attributes else ""
        for op in iree_codegen.get_tuner_root_ops(module)
    ]
