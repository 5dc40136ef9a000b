"""The spec matcher for a reduction (`Problem.op_kind == "reduction"`), a multi-loop contraction (a 1x1 convolution
with its batch folded, strided or not) and an elementwise op: IREE 3.13 has no `transform.iree.match` op for any of
them (its `match.contraction` wants one M, N and K), so they are matched structurally, as the masked attention is.

A `linalg.generic` with the problem's number of inputs and inits, and every operand of the problem's tensor type
(which fixes every loop's size and every element type). The counts tell a softmax's sum of exponentials (two
inputs: the rows and their max) from the max reduction fused before it (one input) and from the normalising
elementwise op after it (three inputs, full-rank init); operand types alone would not. Two reductions of one shape
and operand count in one model (a layer norm's mean and its variance) are the same problem and get the same
configuration, as two equal contractions do.

IREE derives the configuration of the ops fused around the root from the root's own; a spec's `compilation_info`
on the root skips that step, which leaves the normalising elementwise op after it unconfigured, vectorised over whole
rows (a vector of 8 x 768 f32 for a BERT-base layer norm with IREE's default tiles; 16 x 768 failed IREE's
large-vector check). So the spec configures the root's consumers of its rank too, as IREE would: the root's
`vector_common_parallel` tiles, and a `vector_inner_parallel` tile of the reduction's step along each reduced
loop. With IREE's default tiles this gives an executable about the size of IREE's own build (without it, several
times larger). Consumers of another rank (a pool's division over the collapsed channels) are left alone:
whether the consumers share the root's loops is read with the problem (`NORMALISED`), since a matcher inside the
spec's action could not be made to select them (`transform.alternatives` needs an isolated scope).
"""

from __future__ import annotations

import re

from mltune.emit.op_config import config_levels
from mltune.emit.operand_types import operand_shapes, operand_type_checks, tensor_type
from mltune.frontend.problem import NORMALISED, Problem, reduction_inputs

GENERIC = "linalg.generic"


def structural_match(problem: Problem) -> str:
    inputs = reduction_inputs(problem)
    inits = len(problem.operand_types) - inputs
    shapes = operand_shapes(problem)
    counts = f"""    transform.match.operation_name %op ["{GENERIC}"] : !transform.any_op
    %structured = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {{
    ^bb0(%generic: !transform.any_op):
      %inputs = transform.match.structured.num_inputs %generic : (!transform.any_op) -> !transform.param<i64>
      %inits = transform.match.structured.num_inits %generic : (!transform.any_op) -> !transform.param<i64>
      %want_inputs = transform.param.constant {inputs} : i64 -> !transform.param<i64>
      %want_inits = transform.param.constant {inits} : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %inputs, %want_inputs : !transform.param<i64>
      transform.match.param.cmpi eq %inits, %want_inits : !transform.param<i64>
      transform.match.structured.yield %generic : !transform.any_op
    }}"""
    types = [
        (index, tensor_type(shape, element))
        for index, (shape, element) in enumerate(zip(shapes, problem.operand_types))
    ]
    return "\n".join([counts, *operand_type_checks(types)])


def _annotate(handle: str, config: str) -> str:
    return f"""
    %{handle}_config = transform.param.constant {config} -> !transform.any_param
    transform.annotate %{handle} "lowering_config" = %{handle}_config : !transform.any_op, !transform.any_param"""


def gpu_fused_configs(problem: Problem, compilation_info: str) -> dict[str, str]:
    """IREE's `VectorDistribute` reduction config of the ops fused around the root, by role: the root's lists less
    `workgroup` for the reduction fused before it (`producer`: softmax's max, which makes the root's second input),
    with `serial` for `partial_reduction` for the normalising `consumers`. IREE 3.13 fails to compile the dispatch
    when they are left unconfigured."""
    lowering = re.search(r"#iree_gpu\.lowering_config<\{.*?\}>", compilation_info).group(0)
    fused = re.sub(r",? ?workgroup = \[[\d, ]*\]", "", lowering)
    configs = {}
    if reduction_inputs(problem) == 2:
        configs["producer"] = fused
    if problem.layout.endswith(NORMALISED):
        configs["consumers"] = fused.replace("partial_reduction", "serial")
    return configs


_FUSED_HANDLES = {
    "producer": "transform.get_producer_of_operand %op[1]",
    "consumers": "transform.get_consumers_of_result %op[0]",
}


def _fused_lines(role: str, config: str) -> str:
    """The ops fused around the root in `role` (`_FUSED_HANDLES`), annotated with `config`."""
    return f"""
    %{role} = {_FUSED_HANDLES[role]} : (!transform.any_op) -> !transform.any_op""" + _annotate(role, config)


def reduction_consumers(problem: Problem, attributes: dict[str, str]) -> tuple[str, str]:
    """(lines for `@apply_op_config` after the root is annotated, named sequences they call): on llvm-cpu, a normalised
    reduction's consumers (`NORMALISED`: generics over the root's loops, checked when the problem was read) get the
    root's parallel vector tiles and its reduction step as their inner tile; on GPUs the fused ops get IREE's
    own derived lists (`gpu_fused_configs`)."""
    if "#iree_gpu.lowering_config" in attributes["compilation_info"]:
        configs = gpu_fused_configs(problem, attributes["compilation_info"])
        return "".join(_fused_lines(role, config) for role, config in configs.items()), ""
    if not problem.layout.endswith(NORMALISED):
        return "", ""
    levels = config_levels(attributes["compilation_info"])
    parallel = [0 if loop in problem.k else tile for loop, tile in enumerate(levels["vector_common_parallel"])]
    config = (
        f"#iree_cpu.lowering_config<vector_common_parallel = {parallel}, "
        f"vector_inner_parallel = {levels['vector_reduction']}>"
    )
    return _fused_lines("consumers", config), ""
