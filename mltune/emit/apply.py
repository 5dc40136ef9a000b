"""Applying a candidate's `compilation_info`: one interface, two mechanisms.

- `SpecApplier` (llvm-cpu, ROCm): a tuning spec passed with `--iree-codegen-tuning-spec-path`.
- `AnnotationApplier` (CUDA): IREE 3.13 ignores tuning specs on CUDA (docs/cuda-tuning-specs.md),
  so the `compilation_info` is set on the matching op of the source itself, which the compiler
  honours before running its own heuristics; a batch-1 convolution is first written as the op IREE
  dispatches (`unit_batch`). An attention's attributes go on the model's
  `attention`, whose discardable attributes and `decomposition_config` dispatch formation and
  `ConvertAttentionToOnlineAttention` copy unchanged onto the dispatch's `online_attention`, so they
  are written in the dispatch's loop order (its batch loops collapsed into one).
The builder and the loop only see `Applied`, never which mechanism made it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol, Sequence

from iree.compiler import ir
from iree.compiler.dialects import linalg

from mltune.emit.op_config import config_flags, op_attributes
from mltune.emit.reduction_match import gpu_fused_configs
from mltune.emit.spec import build_spec, link_specs
from mltune.emit.unit_batch import fold, folded_problems
from mltune.errors import UserError
from mltune.frontend.mlir import find_ops
from mltune.frontend.problem import ONLINE_ATTENTION, REDUCTION, SOURCE_ATTENTION, Problem
from mltune.frontend.root_ops import problem_from_root_op


@dataclass(frozen=True)
class Applied:
    """One candidate made compilable: a spec to pass to the compiler (empty: none), or a whole source to compile
    instead; and any compile flags the candidate adds."""

    kind: str  # spec | source
    text: str
    flags: tuple[str, ...] = ()


def _merged_flags(infos: Sequence[str], context: ir.Context) -> tuple[str, ...]:
    """Every configuration's compile flags, each once, in order."""
    return tuple(dict.fromkeys(flag for info in infos for flag in config_flags(info, context)))


class Applier(Protocol):
    def apply(self, problem: Problem, compilation_info: str) -> Applied: ...

    def combine(self, winners: Sequence[tuple[Problem, str]], work_dir: Path) -> Applied:
        """One result for every dispatch's winning `compilation_info`."""
        ...


@dataclass(frozen=True)
class SpecApplier:
    """Each candidate a spec of its own; a result, every winner's spec linked into one."""

    context: ir.Context

    def apply(self, problem: Problem, compilation_info: str) -> Applied:
        flags = config_flags(compilation_info, self.context)
        spec = (
            build_spec(problem, compilation_info, self.context) if op_attributes(compilation_info, self.context) else ""
        )
        return Applied("spec", spec, flags)

    def combine(self, winners: Sequence[tuple[Problem, str]], work_dir: Path) -> Applied:
        specs = [
            build_spec(problem, info, self.context) for problem, info in winners if op_attributes(info, self.context)
        ]
        flags = _merged_flags([info for _, info in winners], self.context)
        return Applied("spec", link_specs(specs, self.context, work_dir) if specs else "", flags)


def _tunable_ops(module: ir.Module) -> list[ir.Operation]:
    """The linalg contractions, convolutions and generics (reductions) and the online attentions of a module: the ops
    a `Problem` can describe."""
    return find_ops(
        module,
        lambda op: (
            op.name in (ONLINE_ATTENTION, SOURCE_ATTENTION, "linalg.generic")
            or (op.name.startswith("linalg.") and (linalg.isa_contraction_op(op) or linalg.isa_convolution_op(op)))
        ),
    )


def _annotate_fused(op: ir.Operation, problem: Problem, compilation_info: str) -> None:
    """A GPU reduction's fused ops get IREE's derived configs (`gpu_fused_configs`), as its spec gives them."""
    if problem.op_kind != REDUCTION or "#iree_gpu.lowering_config" not in compilation_info:
        return
    configs = gpu_fused_configs(problem, compilation_info)
    fused = {
        "producer": [op.operands[1].owner] if "producer" in configs else [],
        "consumers": [use.owner for use in op.results[0].uses],
    }
    for role, config in configs.items():
        for other in fused[role]:
            if isinstance(other, (ir.Operation, ir.OpView)) and other.operation.name == "linalg.generic":
                other.operation.attributes["lowering_config"] = ir.Attribute.parse(config)


def match_key(problem: Problem) -> str:
    """What a source op and the dispatch made of it share: the key, a matvec's as the contraction it is in the
    source (only IREE's configuration of the dispatch makes it a matvec); an attention's with its batch loops as one
    (dispatch formation collapses them), its output type left out (the dispatch's is the f32 accumulator) and its
    layout too: dispatch formation folds the transposes around it into its operands' maps (a diffusion UNet's value
    becomes `t`), and a config, written in loop order, lands on the dispatch's op unchanged
    (`tests/test_attention_in_models.py`)."""
    if problem.op_kind == "matvec":
        return replace(problem, op_kind="contraction").key
    if problem.op_kind != "attention":
        return problem.key
    batch = 1
    for size in problem.sizes(problem.batch):
        batch *= size
    roles = "x".join(str(s) for s in (batch,) + problem.sizes(problem.m + problem.n + problem.k + problem.k2))
    return f"attention_{roles}_{''.join(problem.operand_types[:3])}"


def annotatable_keys(source: Path, context: ir.Context) -> set[str]:
    """The match keys of the ops of `source` an `AnnotationApplier` can configure, a batch-1 convolution's as the
    op IREE dispatches (`unit_batch`)."""
    with context:
        module = ir.Module.parse(source.read_text())
        problems = [problem_from_root_op(op) for op in _tunable_ops(module)]
        problems += [problem for _, forms in folded_problems(module) for _, problem in forms]
    return {match_key(problem) for problem in problems if isinstance(problem, Problem)}


@dataclass(frozen=True)
class AnnotationApplier:
    """Sets the configuration's attributes on every op of `source` that is the same problem (sizes, types, maps)."""

    source: Path
    context: ir.Context

    def _annotate(self, infos: dict[str, str]) -> str:
        with self.context:
            module = ir.Module.parse(self.source.read_text())
            matched = set()
            for op in _tunable_ops(module):
                problem = problem_from_root_op(op)
                if isinstance(problem, Problem) and match_key(problem) in infos:
                    for name, text in op_attributes(infos[match_key(problem)], self.context).items():
                        op.attributes[name] = ir.Attribute.parse(text)
                    _annotate_fused(op, problem, infos[match_key(problem)])
                    matched.add(match_key(problem))
            for op, forms in folded_problems(module) if set(infos) - matched else ():
                wanted = [(form, match_key(problem)) for form, problem in forms if match_key(problem) in infos]
                if wanted:  # the generic IREE would make of it, with the config on it
                    (form, key), *_ = wanted
                    generic = fold(op, form)
                    for name, text in op_attributes(infos[key], self.context).items():
                        generic.attributes[name] = ir.Attribute.parse(text)
                    matched.add(key)
            missing = set(infos) - matched
            if missing:
                raise UserError(f"{self.source}: no op to annotate for {', '.join(sorted(missing))}")
            return str(module)

    def apply(self, problem: Problem, compilation_info: str) -> Applied:
        return Applied("source", self._annotate({match_key(problem): compilation_info}))

    def combine(self, winners: Sequence[tuple[Problem, str]], work_dir: Path) -> Applied:
        return Applied("source", self._annotate({match_key(problem): info for problem, info in winners}))


def annotates_source(target_kind: str) -> bool:
    """Whether a candidate is the model's source annotated (CUDA) rather than a spec beside it."""
    return target_kind == "cuda"


def make_applier(target_kind: str, source: Path, context: ir.Context) -> Applier:
    """A spec everywhere except CUDA, where the source is annotated."""
    return AnnotationApplier(source, context) if annotates_source(target_kind) else SpecApplier(context)
