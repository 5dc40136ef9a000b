"""Tuning specs: transform-dialect modules that attach a `compilation_info` to matching root ops.

A spec matches a contraction by element types, indexing maps and sizes (not by the
`root_op` marker), so a spec tuned on one dispatch applies wherever the same op appears,
including the full model compile. Every spec is parsed by the compiler before it is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.errors import UserError
from mltune.problem import Problem
from mltune.tools import run_tool, tool_path

_APPLY = """  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }"""


def _dims(sizes: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _contraction_matcher(name: str, problem: Problem, compilation_info: str) -> str:
    maps = ", ".join(problem.indexing_maps)
    checks = "\n".join(
        f"    transform.iree.match.dims_equal %{role}, {_dims(problem.sizes(loops))} : !transform.param<i64>"
        for role, loops in (("batch", problem.batch), ("m", problem.m), ("n", problem.n), ("k", problem.k))
    )
    return f"""  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = {problem.lhs_type}, rhs_type = {problem.rhs_type}, output_type = {problem.out_type}, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>
{checks}
    %config = transform.param.constant {compilation_info} -> !transform.any_param
    transform.yield %op, %config : !transform.any_op, !transform.any_param
  }}"""


def _convolution_matcher(name: str, problem: Problem, compilation_info: str) -> str:
    maps = ", ".join(problem.indexing_maps)
    channel = tuple(loop for loop in problem.k if loop not in problem.filter_loops)
    handles = (("batch", _dims(problem.sizes(problem.batch))), ("out_img", _dims(problem.sizes(problem.m))),
               ("out_ch", _dims(problem.sizes(problem.n))), ("filt", _dims(problem.sizes(problem.filter_loops))),
               ("in_ch", _dims(problem.sizes(channel))), ("depth", "[]"), ("strides", _dims(problem.strides)),
               ("dilations", _dims(problem.dilations)))
    checks = "\n".join(f"    transform.iree.match.dims_equal %{role}, {dims} : !transform.param<i64>" for role, dims in handles)
    return f"""  transform.named_sequence @{name}(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    %batch, %out_img, %out_ch, %filt, %in_ch, %depth, %strides, %dilations = transform.iree.match.convolution %op, lhs_type = {problem.lhs_type}, rhs_type = {problem.rhs_type}, output_type = {problem.out_type}, indexing_maps = [{maps}] : !transform.any_op -> !transform.param<i64>
{checks}
    %config = transform.param.constant {compilation_info} -> !transform.any_param
    transform.yield %op, %config : !transform.any_op, !transform.any_param
  }}"""


_MATCHERS = {"contraction": _contraction_matcher, "convolution": _convolution_matcher}


def build_spec(problem: Problem, compilation_info: str, context: ir.Context) -> str:
    """A spec applying `compilation_info` to every op equal to `problem` (contraction or convolution:
    same sizes, element types and indexing maps); checked by parsing."""
    if problem.op_kind not in _MATCHERS:
        raise ValueError(f"no spec matcher for {problem.op_kind}")
    text = f"""module attributes {{transform.with_named_sequence, iree_codegen.tuning_spec_with_default_entrypoint}} {{
{_APPLY}
{_MATCHERS[problem.op_kind]("match_" + problem.key, problem, compilation_info)}
  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %res = transform.foreach_match in %variant_op @match_{problem.key} -> @apply_op_config : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }}
}}
"""
    with context:
        ir.Module.parse(text)
    return text


def link_specs(spec_texts: Sequence[str], context: ir.Context, work_dir: Path) -> str:
    """Merge several specs into one with `iree-opt --iree-codegen-link-tuning-specs`."""
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
