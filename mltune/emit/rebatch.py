"""The tuning-spec entrypoint for batch-1 convolutions on IREE 3.13, where a plain spec's configuration is lost.

IREE folds a convolution's unit batch loop away before it applies tuning specs
(`iree-dispatch-creation-fold-unit-extent-dims`), then, after the spec has run, puts the batch back
(`iree-codegen-insert-batch-dim-for-batchless-conv`) as a new `linalg.generic` without the spec's
`lowering_config`. A spec on the folded op therefore leaves the dispatch unconfigured and it fails to compile; a
spec on the batched op never matches. This entrypoint runs IREE's own batch-insertion pass first, from the spec
(`transform.apply_registered_pass`), so that the spec matches and configures the op as the dispatch keeps it (the
op `--iree-codegen-add-tuner-attributes` dumps, from which the problem was read); the pipeline's own run of
the pass then finds nothing left to do. docs/cpu-convolutions.md has the measurements.
"""

from __future__ import annotations

from typing import Sequence

from mltune.frontend.problem import CONVOLUTION, DEPTHWISE_CONVOLUTION, Problem

INSERT_BATCH_PASS = "iree-codegen-insert-batch-dim-for-batchless-conv"
_REBATCHED_KINDS = (CONVOLUTION, DEPTHWISE_CONVOLUTION)


def needs_rebatch(problem: Problem) -> bool:
    """A convolution whose one batch loop has size 1: IREE's dispatch holds it batchless when specs run."""
    return problem.op_kind in _REBATCHED_KINDS and problem.sizes(problem.batch) == (1,)


def rebatching_entrypoint(matchers: Sequence[str], action: str) -> str:
    """`@__kernel_config`: insert the unit batch loops in every function of the variant, then match and configure.
    Linking needs the variant's handle marked consumed, as every other spec's entrypoint has it, and the transform
    verifier warns once per dispatch where a consumed argument is not consumed: a first `foreach_match` restricted
    to the variant itself consumes it, matching nothing (a variant is no convolution). The pass invalidates the
    handle it returns, so the variant is found again from the functions."""
    first = matchers[0]
    return f"""  transform.named_sequence @__kernel_config(%variant_op: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %variant_in = transform.foreach_match restrict_root in %variant_op @{first} -> @{action} : (!transform.any_op) -> !transform.any_op
    %funcs = transform.structured.match ops{{["func.func"]}} in %variant_in : (!transform.any_op) -> !transform.any_op
    %batched = transform.apply_registered_pass "{INSERT_BATCH_PASS}" to %funcs : (!transform.any_op) -> !transform.any_op
    %matched = transform.foreach_match in %batched {", ".join(f"@{matcher} -> @{action}" for matcher in matchers)} : (!transform.any_op) -> !transform.any_op
    %variant = transform.get_parent_op %matched <{{op_name = "hal.executable.variant", deduplicate}}> : (!transform.any_op) -> !transform.any_op
    transform.yield %variant : !transform.any_op
  }}"""
