"""The dispatches of a dumped input: each dumped benchmark's root ops, read with the target facts its executable
carries and the configuration IREE chose for it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen

from mltune.errors import UserError
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.problem import Problem, Untunable
from mltune.frontend.root_ops import read_root_ops, root_op_configs
from mltune.input.tuning_input import TuningInput
from mltune.targets import Target, TargetFacts, facts_from_executable_target


@dataclass(frozen=True)
class Dispatch:
    """One root op of a dumped dispatch: its problem (or why it is not tunable), its target and its benchmark."""

    name: str
    problem: Problem | Untunable
    facts: TargetFacts
    bench: Path
    default_config: str = ""  # the root op's `lowering_config` IREE chose (its default), as text; "" if none


def _dispatch_name(bench: Path) -> str:
    return bench.stem.removeprefix("module_").removesuffix("_benchmark")


def read_dispatches(tuning_input: TuningInput, context: ir.Context) -> list[Dispatch]:
    """The root op of every dumped dispatch, with the target facts from its executable target."""
    dispatches = []
    for bench in tuning_input.dispatch_files:
        module = parse_module_file(bench, context)
        with context:
            variants = iree_codegen.get_executable_variant_ops(module)
            if not variants:
                continue
            facts = facts_from_executable_target(variants[0].attributes["target"])
            roots = read_root_ops(module)
            configs = root_op_configs(module)
        if not roots:
            dispatches.append(Dispatch(_dispatch_name(bench), Untunable("(none)", "no root op marked"), facts, bench))
        dispatches.extend(
            Dispatch(_dispatch_name(bench), root, facts, bench, config) for root, config in zip(roots, configs)
        )
    return dispatches


def read_checked_dispatches(tuning_input: TuningInput, target: Target, context: ir.Context) -> list[Dispatch]:
    """The dumped dispatches, each checked to be compiled for the kind of target `--target` names (a dumped
    dispatch carries its own target)."""
    dispatches = read_dispatches(tuning_input, context)
    for dispatch in dispatches:
        if dispatch.facts.kind != target.kind:
            raise UserError(
                f"{dispatch.name} was compiled for {dispatch.facts.kind} ({dispatch.facts.arch}), "
                f"not for --target {target.name} ({target.kind})"
            )
    return dispatches
