"""The small module a model's candidate is screened on, in place of the whole model.

- `dispatch`: the dispatch's dumped benchmark, alone (the constants its dump dropped restored as zeros, IREE's
  configuration stripped), timed as `mltune tune DISPATCH.mlir` times it: its benchmark function, which reads
  never-written memory.
- `one-op`: the problem's one-op model (`mltune.frontend.one_op_model`: one `linalg.generic` with the problem's
  maps, sizes and element types; a multi-loop contraction with the neighbours that make IREE dispatch it as a
  model's), on seeded random inputs, as `mltune tune` times a one-op file. Only contractions have one; and only
  where IREE dispatches the one-op model as the same problem (its dump is read back to check: a unit loop IREE
  folds away would leave the spec nothing to match), else the dispatch is screened on its dump.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from iree.compiler import ir

from mltune.errors import UserError
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.one_op_model import (
    ContractionShape,
    contraction_model,
    dispatched_contraction_model,
    generic_contraction_model,
)
from mltune.frontend.problem import MULTI_LOOP_CONTRACTION, Problem
from mltune.frontend.root_ops import read_root_ops, root_op_configs
from mltune.input.tuning_input import TuningInput, prepare_input
from mltune.targets import Target

SCREEN_KINDS = ("dispatch", "one-op")


@dataclass(frozen=True)
class ScreenModule:
    """What a screen compiles for each candidate and how it runs it; `kind` is one of `SCREEN_KINDS`."""

    kind: str
    tuning_input: TuningInput


def dispatch_module(
    bench: Path, target: Target, context: ir.Context, work_dir: Path, compile_flags: Sequence[str]
) -> ScreenModule:
    """The dispatch's dumped benchmark as a tuning input of its own, built with the user's `compile_flags` as the
    model is."""
    work_dir.mkdir(parents=True, exist_ok=True)  # prepare_input restores the constants its dump dropped
    return ScreenModule("dispatch", prepare_input(bench, target, work_dir, context, extra_flags=compile_flags))


def _dumped_configs(tuning_input: TuningInput, context: ir.Context) -> dict[str, str]:
    """Each dumped root op's problem key, with the `lowering_config` IREE gave it ("" if none)."""
    configs = {}
    for bench in tuning_input.dispatch_files:
        with context:
            module = parse_module_file(bench, context)
            configs.update(
                (p.key, config)
                for p, config in zip(read_root_ops(module), root_op_configs(module))
                if isinstance(p, Problem)
            )
    return configs


# a named batch matmul's maps: (batch, M, N, K) loops, row-major operands
_BATCH_MATMUL_MAPS = (
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>",
    "affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>",
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>",
)


def _contraction_source(problem: Problem) -> str:
    """The op as a `linalg.generic` with its maps; a model's named batch matmul stays named, since IREE folds a
    generic's unit batch loop away (a BERT layer's 1x128x768x3072 became 128x768x3072) but keeps a named op's."""
    if (
        problem.op_name == "linalg.batch_matmul"
        and problem.indexing_maps == _BATCH_MATMUL_MAPS
        and problem.lhs_type == problem.rhs_type
    ):
        batch, m, n, k = problem.bounds
        return contraction_model(ContractionShape(m, n, k, batch, problem.lhs_type, problem.out_type))
    return generic_contraction_model(
        problem.bounds, problem.k, problem.indexing_maps, problem.lhs_type, problem.rhs_type, problem.out_type
    )


def _multi_loop_source(problem: Problem) -> str:
    """The op with a model's neighbours (`dispatched_contraction_model`): the left input, and any input read with a
    step, produced by a previous op; several M or N loops kept apart by a padded result where no step does."""
    strided = tuple(position for position in (0, 1) if "*" in problem.indexing_maps[position])
    padded = (
        () if problem.strides else tuple(loop for loops in (problem.m, problem.n) if len(loops) > 1 for loop in loops)
    )
    return dispatched_contraction_model(
        problem.bounds,
        problem.k,
        problem.indexing_maps,
        (problem.lhs_type, problem.rhs_type, problem.out_type),
        problem.operand_shapes,
        produced=tuple(sorted({0, *strided})),
        padded_loops=padded,
    )


# the one-op model of each op kind that has one, by `Problem.op_kind`
ONE_OP_SOURCES: dict[str, Callable[[Problem], str]] = {
    "contraction": _contraction_source,
    "matvec": _contraction_source,
    MULTI_LOOP_CONTRACTION: _multi_loop_source,
}


def _one_op_build(
    problem: Problem, target: Target, context: ir.Context, work_dir: Path, compile_flags: Sequence[str], seed: int
) -> tuple[TuningInput, str] | None:
    """The problem's one-op model built for `target`, with the `lowering_config` IREE gave its root op; None when
    it has none that IREE dispatches as the same problem."""
    source_of = ONE_OP_SOURCES.get(problem.op_kind)
    if source_of is None:
        return None
    work_dir.mkdir(parents=True, exist_ok=True)
    source = work_dir / "one_op.mlir"
    source.write_text(source_of(problem))
    try:
        tuning_input = prepare_input(source, target, work_dir, context, "main", seed, compile_flags)
    except UserError:
        return None
    configs = _dumped_configs(tuning_input, context)
    return (tuning_input, configs[problem.key]) if problem.key in configs else None


def one_op_module(
    problem: Problem, target: Target, context: ir.Context, work_dir: Path, compile_flags: Sequence[str], seed: int
) -> ScreenModule | None:
    """The problem's one-op model as a tuning input (target flags and the user's `compile_flags`), or None when
    there is none that IREE dispatches as the same problem."""
    built = _one_op_build(problem, target, context, work_dir, compile_flags, seed)
    return None if built is None else ScreenModule("one-op", built[0])


def one_op_default_config(problem: Problem, target: Target, context: ir.Context, work_dir: Path) -> str:
    """IREE's own config of `problem` on `target` (its root op's `lowering_config`, as text), read from the dump of
    its one-op model built for `target`, as a dataset's records were measured; "" where it has no one-op model."""
    built = _one_op_build(problem, target, context, work_dir, (), seed=0)
    return "" if built is None else built[1]


def screen_module(
    kind: str,
    problem: Problem,
    bench: Path,
    target: Target,
    context: ir.Context,
    work_dir: Path,
    compile_flags: Sequence[str],
    seed: int,
) -> ScreenModule:
    """The screen `kind` asks for; a problem without a one-op model falls back to its dump."""
    if kind == "one-op":
        module = one_op_module(problem, target, context, work_dir / "one_op", compile_flags, seed)
        if module is not None:
            return module
    return dispatch_module(bench, target, context, work_dir / "dispatch", compile_flags)
