"""Helpers for the GPU tests (compile only, no GPU): one-op models dumped for a GPU target as mltune dumps them, a
candidate compiled as mltune applies it, and the configurations IREE gave the dispatches read back."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen
from iree_helpers import applied_compile_args, run, strip_config

from mltune.emit.apply import make_applier
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.problem import ELEMENTWISE, Problem
from mltune.frontend.root_ops import read_root_ops
from mltune.spaces.configure import make_configurator
from mltune.system.tools import tool_path
from mltune.targets import GpuTarget, facts_from_executable_target, parse_target


def read_gpu_dump(directory: Path, context) -> tuple[Path, Path, ir.Module, Problem, object, ir.Operation]:
    """A GPU dump's one benchmark file under `directory/bench` with a root op other than an elementwise one (an
    elementwise producer's dispatch is left out, unless it is the only one), stripped beside it, and what mltune
    reads from it: (bench, stripped, module, problem, target facts, root op)."""
    dumped = []
    for candidate in sorted((directory / "bench").glob("*_benchmark.mlir")):
        module = parse_module_file(candidate, context)
        with context:
            dumped.append((candidate, module, read_root_ops(module)))
    tunable = [d for d in dumped if any(isinstance(root, Problem) and root.op_kind != ELEMENTWISE for root in d[2])]
    ((bench, module, (problem,)),) = tunable or dumped
    stripped = strip_config(bench, directory / "stripped.mlir")
    with context:
        facts = facts_from_executable_target(iree_codegen.get_executable_variant_ops(module)[0].attributes["target"])
        (root,) = iree_codegen.get_tuner_root_ops(module)
    return bench, stripped, module, problem, facts, root


def dump_gpu_model(text: str, target_name: str, directory: Path, context) -> tuple:
    """`text` written as `directory/model.mlir`, prepared for the GPU target and dumped as mltune dumps it:
    (target, prepared source, bench, stripped bench, problem, target facts)."""
    source = directory / "model.mlir"
    source.write_text(text)
    target = parse_target(target_name, probe=False)
    prepared = target.prepare_source(source, directory, context)
    dumped = run(
        [
            tool_path("iree-compile"),
            str(prepared),
            *target.compile_flags(),
            "--iree-codegen-add-tuner-attributes",
            f"--iree-hal-dump-executable-benchmarks-to={directory / 'bench'}",
            "-o",
            str(directory / "m.vmfb"),
        ]
    )
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    bench, stripped, _, problem, gpu, _ = read_gpu_dump(directory, context)
    return target, prepared, bench, stripped, problem, gpu


_ROOT_LOWERING = re.compile(r"lowering_config = (#iree_gpu.lowering_config<\{[^\n]*?\}>)")


@dataclass
class GpuOpDump:
    """A one-op model dumped for a GPU target as mltune dumps it, and what mltune reads from its dispatch."""

    target: GpuTarget
    source: Path  # the model as mltune compiles it
    stripped: Path  # the dumped dispatch without its configuration
    problem: Problem
    gpu: object
    lowering: str  # IREE's own lowering_config of the root op (the one with a workgroup tile)
    translation: str
    configurator: object


def dump_gpu_ops(
    root: Path, models: dict[str, str], targets: Sequence[str], context
) -> dict[tuple[str, str], GpuOpDump]:
    """Each of `models` (name to `@main` text) dumped for each target under `root`, with its configurator."""
    found = {}
    for target_name in targets:
        for name, text in models.items():
            directory = root / f"{target_name}_{name}"
            directory.mkdir()
            target, source, bench, stripped, problem, gpu = dump_gpu_model(text, target_name, directory, context)
            dumped = bench.read_text()
            lowering = next(config for config in _ROOT_LOWERING.findall(dumped) if "workgroup" in config)
            configurator = make_configurator(problem, gpu, context, stripped, directory / "work")
            found[target_name, name] = GpuOpDump(
                target, source, stripped, problem, gpu, lowering, dumped_translation(dumped), configurator
            )
    return found


def assert_default_rebuilt(dump: GpuOpDump, knobs: dict[str, int], fewest: int, most: int = 20000) -> None:
    """IREE's own config of a dump (`knobs`, read back) is a point of its space of `fewest` to `most` candidates, and
    that point's `compilation_info` is IREE's, attribute for attribute."""
    candidates = dump.configurator.candidates()
    assert fewest < len(candidates) < most and candidates.index_of(knobs) is not None, (knobs, dump.lowering)
    info = dump.configurator.compilation_info(knobs)
    translation = dump.translation.removeprefix("#iree_codegen.translation_info")
    assert f"lowering_config = {dump.lowering}, translation_info = {translation}>" == info.split("<", 1)[1]


def applied_configurations(
    target: GpuTarget,
    source: Path,
    problem: Problem,
    configurator,
    knobs: dict[str, int],
    out: Path,
    context,
    flags: Sequence[str] | None = None,
) -> list[str]:
    """One candidate applied to `source` as mltune applies it for `target` (ROCm: a spec beside it; CUDA: its op
    annotated) and compiled (with `flags`, by default the target's for a model): the executable configuration IREE
    gave each dispatch."""
    applied = make_applier(target.kind, source, context).apply(problem, configurator.compilation_info(knobs))
    out.mkdir()
    if flags is None:
        flags = [] if target.kind == "cuda" else target.compile_flags()  # a CUDA source names its target
    result = run(applied_compile_args(applied, source, out, flags))
    assert result.returncode == 0, result.stderr[-2000:]
    return [path.read_text() for path in sorted((out / "configs").glob("*.mlir"))]


def configured_candidate(dump: GpuOpDump, knobs: dict[str, int], out: Path, context) -> str:
    """One candidate of a dump's space compiled as mltune applies it (ROCm: a spec beside the model; CUDA: the
    dumped dispatch annotated), and the executable configuration IREE gave it."""
    source = dump.stripped if dump.target.kind == "cuda" else dump.source
    return "".join(applied_configurations(dump.target, source, dump.problem, dump.configurator, knobs, out, context))


_REDUCTION_LISTS = re.compile(
    r"\b(workgroup|partial_reduction|thread) = \[([\d, ]*)\]|\b(lane_basis|subgroup_basis) = \[\[([\d, ]*)\]"
)


def dumped_translation(text: str) -> str:
    """The function's `translation_info` in a dumped dispatch or configuration."""
    return re.search(r"translation_info = (#iree_codegen.translation_info<[^\n]*?>)\} \{", text).group(1)


def reduction_config_knobs(lowering: str, translation: str, rows_loop: int, k_loop: int) -> dict[str, int]:
    """A VectorDistribute reduction config (`mltune.spaces.reduction_config`) read back in mltune's knobs (basis
    counts only: the mapping is the identity)."""
    lists = {a or c: [int(x) for x in (b or d).split(", ")] for a, b, c, d in _REDUCTION_LISTS.findall(lowering)}
    sg_size = int(re.search(r"subgroup_size = (\d+)", translation).group(1))
    assert lists["lane_basis"][rows_loop] * lists["lane_basis"][k_loop] == sg_size
    return {
        "rows": lists["workgroup"][rows_loop],
        "k_tile": lists["partial_reduction"][k_loop],
        "vector": lists["thread"][k_loop],
        "lanes_k": lists["lane_basis"][k_loop],
        "sg_k": lists["subgroup_basis"][k_loop],
        "sg_r": lists["subgroup_basis"][rows_loop],
        "sg_size": sg_size,
    }


_SIMT_LISTS = re.compile(r"\b(workgroup|thread|reduction|promote_operands) = \[([\d, ]*)\]")
_WORKGROUP_SIZE = re.compile(r"workgroup_size = \[(\d+), (\d+), (\d+)\]")


def simt_config(text: str) -> tuple[dict[str, list[int]], int]:
    """The root op's TileAndFuse lists (and `promote_operands` where set) and the flat workgroup size of a configured
    dispatch without MMA."""
    lowering = re.search(r"lowering_config = #iree_gpu.lowering_config<\{([^\n]*?)\}>", text).group(1)
    sizes = [int(x) for x in _WORKGROUP_SIZE.search(text).groups()]
    return (
        {name: [int(v) for v in values.split(",") if v.strip()] for name, values in _SIMT_LISTS.findall(lowering)},
        sizes[0] * sizes[1] * sizes[2],
    )


def model_configuration(source: Path, directory: Path) -> str:
    """The executable configuration IREE gives a model's one dispatch with a reduction loop (its contraction or
    convolution; an elementwise producer's has none), the model prepared for its GPU target."""
    result = run(
        [
            tool_path("iree-compile"),
            str(source),
            "--compile-to=executable-configurations",
            f"--iree-hal-dump-executable-configurations-to={directory}",
            "-o",
            os.devnull,
        ]
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (configured,) = [
        text
        for text in (path.read_text() for path in sorted(directory.glob("*.mlir")))
        if "reduction = [" in text or "partial_reduction = [" in text
    ]
    return configured
