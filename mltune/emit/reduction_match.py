"""The spec matcher for a reduction (`Problem.op_kind == "reduction"`): IREE 3.13 has no `transform.iree.match`
op for one, so it is matched structurally, as the masked attention is.

A `linalg.generic` with the problem's number of inputs and inits, and every operand of the problem's tensor type
(which fixes every loop's size and every element type). The counts tell a softmax's sum of exponentials (two
inputs: the rows and their max) from the max reduction fused before it (one input) and from the normalising
elementwise op after it (three inputs, full-rank init); operand types alone would not. Two reductions of one shape
and operand count in one model (a layer norm's mean and its variance) are the same problem and get the same
configuration, as two equal contractions do.
"""

from __future__ import annotations

from mltune.emit.operand_types import operand_shapes, operand_type_checks, tensor_type
from mltune.problem import Problem

GENERIC = "linalg.generic"


def reduction_match(problem: Problem) -> str:
    inputs = int(problem.layout.rsplit("_in", 1)[1])
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
    types = [(index, tensor_type(shape, element))
             for index, (shape, element) in enumerate(zip(shapes, problem.operand_types))]
    return "\n".join([counts, *operand_type_checks(types)])
