"""Tuning specs: transform-dialect modules that attach a configuration (`compilation_info`, and for
attention `decomposition_config`) to matching root ops.

A spec matches a contraction, convolution or attention by element types, indexing maps and sizes (not by the
`root_op` marker), so a spec tuned on one dispatch applies wherever the same op appears,
including the full model compile. Every spec is parsed by the compiler before it is used.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.emit.op_config import op_attributes
from mltune.emit.operand_types import operand_loops, operand_shapes, operand_type_checks, tensor_type
from mltune.emit.rebatch import needs_rebatch, rebatching_entrypoint
from mltune.emit.reduction_match import reduction_consumers, structural_match
from mltune.errors import UserError
from mltune.frontend.problem import ELEMENTWISE, MULTI_LOOP_CONTRACTION, ONLINE_ATTENTION, REDUCTION, Problem
from mltune.system.tools import run_tool, tool_path


def _apply_sequence(names: Sequence[str], more: str = "") -> str:
    """`@apply_op_config`: annotates the matched op with one param per attribute name (then runs `more`)."""
    params = "".join(f", %{name}: !transform.any_param {{transform.readonly}}" for name in names)
    annotations = "\n".join(
        f'    transform.annotate %op "{name}" = %{name} : !transform.any_op, !transform.any_param' for name in names
    )
    return f"""  transform.named_sequence @apply_op_config(%op: !transform.any_op {{transform.readonly}}{params}) {{
{annotations}{more}
    transform.yield
  }}"""


def _dims(sizes: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _checks(handles: Sequence[tuple[str, str]]) -> str:
    return "\n".join(
        f"    transform.iree.match.dims_equal %{role}, {dims} : !transform.param<i64>" for role, dims in handles
    )


def _contraction_match(problem: Problem) -> str:
    maps = ", ".join(problem.indexing_maps)
    handles = [
        (role, _dims(problem.sizes(loops)))
        for role, loops in (("batch", problem.batch), ("m", problem.m), ("n", problem.n), ("k", problem.k))
    ]
    return f"""    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = {problem.lhs_type}, rhs_type = {problem.rhs_type}, output_type = {problem.out_type}, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>
{_checks(handles)}"""


def _convolution_match(problem: Problem, depthwise: bool = False) -> str:
    """IREE's convolution matcher; a depthwise conv's channel is its `depth` (no input or output channel)."""
    maps = ", ".join(problem.indexing_maps)
    channel = tuple(loop for loop in problem.k if loop not in problem.filter_loops)
    output_channel, depth = ((), problem.n) if depthwise else (problem.n, ())
    handles = (
        ("batch", _dims(problem.sizes(problem.batch))),
        ("out_img", _dims(problem.sizes(problem.m))),
        ("out_ch", _dims(problem.sizes(output_channel))),
        ("filt", _dims(problem.sizes(problem.filter_loops))),
        ("in_ch", _dims(problem.sizes(channel))),
        ("depth", _dims(problem.sizes(depth))),
        ("strides", _dims(problem.strides)),
        ("dilations", _dims(problem.dilations)),
    )
    return f"""    %batch, %out_img, %out_ch, %filt, %in_ch, %depth, %strides, %dilations = transform.iree.match.convolution %op, lhs_type = {problem.lhs_type}, rhs_type = {problem.rhs_type}, output_type = {problem.out_type}, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>
{_checks(handles)}"""


def _typed_attention_match(problem: Problem) -> str:
    """IREE 3.13's `match.online_attention` does not match a masked attention (its mask's map given or not), and
    groups a grouped-query attention's loops otherwise than its problem (`grouped_query_loops`), so such an op is
    matched by name and by the type of every tensor operand: query, key, value, mask and the three outputs fix
    every loop's size and every element type (the indexing maps are not compared)."""
    shapes = operand_shapes(problem)
    q, k, v, _, out, max_, sum_ = problem.operand_types
    outputs = 5 if problem.mask_type else 4
    mask = [(4, problem.mask_type)] if problem.mask_type else []
    types = [(0, q), (1, k), (2, v), *mask, (outputs, out), (outputs + 1, max_), (outputs + 2, sum_)]
    lines = [f'    transform.match.operation_name %op ["{ONLINE_ATTENTION}"] : !transform.any_op']
    lines += operand_type_checks([(index, tensor_type(shapes[index], element)) for index, element in types])
    return "\n".join(lines)


def _grouped(problem: Problem) -> bool:
    """Whether a batch loop of the problem is missing from the key: a grouped-query attention's query-head loop."""
    key_loops = operand_loops(problem)[1]
    return any(loop not in key_loops for loop in problem.batch)


def _attention_match(problem: Problem) -> str:
    if problem.mask_type or _grouped(problem):
        return _typed_attention_match(problem)
    maps = ", ".join(problem.indexing_maps)
    types = ", ".join(
        f"{role}_type = {element}"
        for role, element in zip(("query", "key", "value", "scale", "output", "max", "sum"), problem.operand_types)
    )
    handles = [
        (role, _dims(problem.sizes(loops)))
        for role, loops in (
            ("batch", problem.batch),
            ("m", problem.m),
            ("n", problem.n),
            ("k1", problem.k),
            ("k2", problem.k2),
        )
    ]
    return f"""    %batch, %m, %n, %k1, %k2 = transform.iree.match.online_attention %op, {types}, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>
{_checks(handles)}"""


_MATCHERS = {
    "contraction": _contraction_match,
    "matvec": _contraction_match,
    "convolution": _convolution_match,
    "depthwise_convolution": partial(_convolution_match, depthwise=True),
    "attention": _attention_match,
    REDUCTION: structural_match,
    MULTI_LOOP_CONTRACTION: structural_match,
    ELEMENTWISE: structural_match,
}


def _matcher(name: str, problem: Problem, attributes: dict[str, str]) -> str:
    """`@name`: matches ops equal to `problem` and yields them with one param per attribute."""
    params = "".join(
        f"\n    %{attr} = transform.param.constant {text} -> !transform.any_param" for attr, text in attributes.items()
    )
    results = ", ".join(["!transform.any_op"] + ["!transform.any_param"] * len(attributes))
    values = ", ".join(["%op"] + [f"%{attr}" for attr in attributes])
    return f"""  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> ({results}) {{
{_MATCHERS[problem.op_kind](problem)}{params}
    transform.yield {values} : {results}
  }}"""


def _default_entrypoint(matchers: Sequence[str], action: str) -> str:
    """`@__kernel_config` as IREE's spec linker merges it: one `foreach_match`, each matcher to `action`."""
    pairs = ", ".join(f"@{matcher} -> @{action}" for matcher in matchers)
    return f"""  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %res = transform.foreach_match in %variant_op {pairs} : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }}"""


def build_spec(problem: Problem, config: str, context: ir.Context) -> str:
    """A spec setting a configuration (`op_config`: a `compilation_info`, or a dictionary of root-op
    attributes) on every op equal to `problem` (same sizes, element types and indexing maps); checked by parsing.
    A batch-1 convolution's spec inserts the unit batch loop first (`rebatch`)."""
    if problem.op_kind not in _MATCHERS:
        raise ValueError(f"no spec matcher for {problem.op_kind}")
    attributes = op_attributes(config, context)
    rebatched = needs_rebatch(problem)
    entrypoint = rebatching_entrypoint if rebatched else _default_entrypoint
    default = "" if rebatched else ", iree_codegen.tuning_spec_with_default_entrypoint"
    consumers, helpers = reduction_consumers(problem, attributes) if problem.op_kind == REDUCTION else ("", "")
    matcher = "match_" + problem.key
    text = f"""module attributes {{transform.with_named_sequence{default}}} {{
{_apply_sequence(list(attributes), consumers)}{helpers}
{_matcher(matcher, problem, attributes)}
{entrypoint([matcher], "apply_op_config")}
}}
"""
    with context:
        ir.Module.parse(text)
    return text


def link_specs(spec_texts: Sequence[str], context: ir.Context, work_dir: Path) -> str:
    """Merge several specs into one with `iree-opt --iree-codegen-link-tuning-specs` (none: the empty spec)."""
    spec_texts = [text for text in spec_texts if text]
    if not spec_texts:
        return ""
    if len(spec_texts) == 1:
        return spec_texts[0]
    with context, ir.Location.unknown():
        container = ir.Module.create()
        container.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        for index, text in enumerate(spec_texts):
            spec = ir.Module.parse(text)
            spec.operation.attributes["sym_name"] = ir.StringAttr.get(f"spec_{index}")
            container.body.append(spec.operation.clone())
        combined = work_dir / "specs_to_link.mlir"
        combined.write_text(str(container))
    result = run_tool([tool_path("iree-opt"), "--iree-codegen-link-tuning-specs", str(combined)], timeout_s=120)
    if not result.ok:
        raise UserError(f"linking tuning specs failed: {result.describe_failure()}")
    return result.stdout
