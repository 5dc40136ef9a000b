"""A model's inlined weights moved out once per run, so that no candidate's compile parses or serializes them.

Models exported by iree-turbine carry their weights as constants: every compile parses them, most of the model's
MLIR even for a small BERT (`docs/whole-model-tuning.md`), and writes them into the module. Here the model is
compiled once up to the end of IREE's global optimization (so const-eval has already folded what it folds, exactly
as in every full compile), each large non-splat constant is moved into an immutable global (as
`--iree-flow-outline-constants` does later in the pipeline, but only for constants that big), and IREE's
`iree-io-export-parameters` pass writes those globals to an `.irpa` archive, leaving `#flow.parameter.named`
references behind. Every build then compiles that small module with `--compile-from=global-optimization` and runs
with the archive. Flags that act up to global optimization (the target, the user's own flags) are applied once, at
the split; the flags that vary between builds (tuning specs, data tiling, codegen flags, dispatch repeat counts) act
later and are passed to each build as before.

What the user gets back is unchanged: the spec and the compile command apply to the model file they gave.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from iree.compiler import ir, passmanager

from mltune.emit.apply import annotates_source
from mltune.input.files import ParameterArchive
from mltune.input.tuning_input import TuningInput, default_build, is_dispatch_benchmark
from mltune.system.tools import run_compiler, tool_path
from mltune.targets.base import Target

SCOPE = "mltune_weights"  # the archive's scope: apart from any scope of the user's own archives
RESUME_PHASE = "global-optimization"
MIN_WEIGHT_BYTES = 16 << 20  # below this much outlined weight, a split saves less than the compile it costs
MIN_CONSTANT_BYTES = 64 << 10  # far above what dispatch formation clones into a dispatch (IREE: 256 bytes)
SPLIT_TIMEOUT_S = 600


@dataclass(frozen=True)
class WeightSplit:
    """The model without its large constants, the archive holding them, and what the split took."""

    module: Path
    archive: ParameterArchive
    weight_bytes: int
    seconds: float


def _byte_size(tensor_type: ir.RankedTensorType) -> int:
    count = 1
    for size in tensor_type.shape:
        count *= size
    return count * tensor_type.element_type.width // 8


def _cast(kind, value: ir.Attribute):
    """`value` as an attribute of `kind`, or None (the bindings hand some attributes back as plain `Attribute`)."""
    try:
        return kind(value)
    except ValueError:
        return None


def _holds_data(value: ir.Attribute) -> bool:
    """A tensor's values written out, not a splat (IREE keeps splats fused; the archive stores their pattern)."""
    dense = _cast(ir.DenseElementsAttr, value)
    return (not dense.is_splat) if dense is not None else _cast(ir.DenseResourceElementsAttr, value) is not None


def _large_constants(module: ir.Module, min_bytes: int) -> list[ir.Operation]:
    """The `arith.constant` tensors of at least `min_bytes` that are not splats (those stay fused, as IREE keeps
    them), in every function and initializer."""
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "arith.constant" and isinstance(tensor_type := op.result.type, ir.RankedTensorType):
            if (
                tensor_type.has_static_shape
                and _byte_size(tensor_type) >= min_bytes
                and _holds_data(op.attributes["value"])
            ):
                found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _top_level(op: ir.Operation) -> ir.Operation:
    """The function or initializer that holds `op`, where its global goes (in front of it)."""
    while op.parent.name != "builtin.module":
        op = op.parent
    return op


def outline_large_constants(module: ir.Module, min_bytes: int) -> None:
    """Each large constant becomes an immutable private global loaded where the constant was, with the module's
    default affinity and IREE's never-inline policy (what `--iree-flow-outline-constants` makes of it)."""
    with module.context, ir.Location.unknown():
        affinity = (
            module.operation.attributes["stream.affinity.default"]
            if "stream.affinity.default" in module.operation.attributes
            else None
        )
        for index, constant in enumerate(_large_constants(module, min_bytes)):
            tensor_type = constant.result.type
            name = f"__mltune_weight_{index}"
            attributes = {
                "sym_name": ir.StringAttr.get(name),
                "sym_visibility": ir.StringAttr.get("private"),
                "type": ir.TypeAttr.get(tensor_type),
                "initial_value": constant.attributes["value"],
                "inlining_policy": ir.Attribute.parse("#util.inline.never"),
            }
            if affinity is not None:
                attributes["stream.affinity.default"] = affinity
            ir.Operation.create(
                "util.global", attributes=attributes, loc=constant.location, ip=ir.InsertionPoint(_top_level(constant))
            )
            load = ir.Operation.create(
                "util.global.load",
                results=[tensor_type],
                loc=constant.location,
                attributes={"global": ir.FlatSymbolRefAttr.get(name), "is_immutable": ir.UnitAttr.get()},
                ip=ir.InsertionPoint(constant),
            )
            constant.result.replace_all_uses_with(load.result)
            constant.erase()


def exported_bytes(module: ir.Module, min_bytes: int) -> int:
    """The bytes `export_parameters` will move: every global initialized with a tensor of at least `min_bytes`
    that is not a splat (a splat is stored as its pattern). Those made by const-eval count too."""
    total = 0
    for op in module.body.operations:
        if op.operation.name != "util.global" or "initial_value" not in op.attributes:
            continue
        value, tensor_type = op.attributes["initial_value"], op.attributes["type"].value
        if (
            isinstance(tensor_type, ir.RankedTensorType)
            and tensor_type.has_static_shape
            and _byte_size(tensor_type) >= min_bytes
            and _holds_data(value)
        ):
            total += _byte_size(tensor_type)
    return total


def export_parameters(module: ir.Module, archive: ParameterArchive, min_bytes: int) -> None:
    """IREE's own pass: globals of at least `min_bytes` go to the archive, referenced as `SCOPE::NAME`."""
    with module.context:
        passmanager.PassManager.parse(
            f"builtin.module(iree-io-export-parameters{{path={archive.scope}={archive.path} minimum-size={min_bytes}}})"
        ).run(module.operation)


def _stamp(source: Path, compile_flags: Sequence[str], min_constant_bytes: int) -> str:
    """What a split depends on: the source file as it is, the flags it was compiled with, the constants moved."""
    stat = source.stat()
    return json.dumps([str(source.resolve()), stat.st_size, stat.st_mtime_ns, list(compile_flags), min_constant_bytes])


def split(
    source: Path, compile_flags: Sequence[str], work_dir: Path, min_weight_bytes: int, min_constant_bytes: int
) -> WeightSplit | None:
    """The model at `source` split into a module and an archive in `work_dir`, or None where it does not pay (fewer
    weight bytes than `min_weight_bytes`) or cannot be made. A split made before with the same source and flags (a
    resumed run's, or one started beside the dump: `start_split`) is taken as made, or not made."""
    work_dir.mkdir(parents=True, exist_ok=True)
    # named after the model: messages that name the source (e.g. a default build that cannot run) stay readable
    module_path = work_dir / f"{source.stem}_without_weights.mlir"
    stamp_path = work_dir / "split.json"
    archive = ParameterArchive(SCOPE, (work_dir / "weights.irpa").resolve())
    stamp = _stamp(source, compile_flags, min_constant_bytes)
    saved = json.loads(stamp_path.read_text()) if stamp_path.is_file() else {}
    if saved.get("stamp") == stamp:
        done = saved["weight_bytes"] >= max(min_weight_bytes, 1) and module_path.is_file() and archive.path.is_file()
        return WeightSplit(module_path, archive, saved["weight_bytes"], 0.0) if done else None
    started = time.perf_counter()
    optimized = work_dir / "global_optimization.mlirbc"
    result = run_compiler(
        [
            tool_path("iree-compile"),
            str(source),
            *compile_flags,
            f"--compile-to={RESUME_PHASE}",
            "--emit-mlir-bytecode",
            "-o",
            str(optimized),
        ],
        timeout_s=SPLIT_TIMEOUT_S,
    )
    if not result.ok:
        print(f"note: every build compiles the weights: the split failed ({result.describe_failure()})")
        stamp_path.write_text(json.dumps({"stamp": stamp, "weight_bytes": 0}))  # not tried again for this source
        return None
    try:
        module = ir.Module.parse(optimized.read_bytes(), ir.Context())
    finally:
        optimized.unlink(missing_ok=True)
    outline_large_constants(module, min_constant_bytes)
    weight_bytes = exported_bytes(module, min_constant_bytes)
    min_weight_bytes = max(min_weight_bytes, 1)  # nothing to move: no archive
    if weight_bytes >= min_weight_bytes:
        archive.path.unlink(missing_ok=True)
        export_parameters(module, archive, min_constant_bytes)
        module_path.write_text(str(module))
    stamp_path.write_text(json.dumps({"stamp": stamp, "weight_bytes": weight_bytes}))
    if weight_bytes < min_weight_bytes:
        return None
    return WeightSplit(module_path, archive, weight_bytes, time.perf_counter() - started)


def compiled_from(tuning_input: TuningInput, weights: WeightSplit) -> TuningInput:
    """The tuning input whose every build compiles the module without its weights and runs with their archive
    (beside any archive of the user's own)."""
    invocation = replace(tuning_input.invocation, parameters=(*tuning_input.invocation.parameters, weights.archive))
    return replace(
        tuning_input,
        source=weights.module,
        invocation=invocation,
        compile_flags=(*tuning_input.compile_flags, f"--compile-from={RESUME_PHASE}"),
    )


def without_weights(tuning_input: TuningInput, target_kind: str, work_dir: Path) -> TuningInput:
    """The tuning input to build candidates from: split when its weights are worth it (a model file smaller than
    `MIN_WEIGHT_BYTES` cannot hold that many), else as it is. A target whose candidates are the source annotated
    keeps the source: the user gets that source back and builds it themselves."""
    if tuning_input.invocation.dispatch_level or not _may_split(tuning_input.source, target_kind):
        return tuning_input
    weights = split(tuning_input.source, tuning_input.compile_flags, work_dir, MIN_WEIGHT_BYTES, MIN_CONSTANT_BYTES)
    return compiled_from(tuning_input, weights) if weights is not None else tuning_input


def _may_split(source: Path, target_kind: str) -> bool:
    """Whether a model at `source` may be split for a target of `target_kind`: one whose candidates do not annotate
    the source, in a file large enough to hold `MIN_WEIGHT_BYTES` of weights."""
    return not annotates_source(target_kind) and source.stat().st_size >= MIN_WEIGHT_BYTES


def start_split(
    path: Path, target: Target, extra_flags: Sequence[str], context: ir.Context, work_dir: Path, pool: Executor
) -> Future[WeightSplit | None] | None:
    """The split of the model at `path` as IREE's default build of it for `target` compiles it (`default_build`),
    started on `pool` where `without_weights` will want one, so that its compile runs beside the dump's: both
    compile the whole model from the same file, and `without_weights` then finds the split made. None where no
    split will be wanted."""
    if not path.is_file() or not _may_split(path, target.kind):
        return None
    source, compile_flags = default_build(path, target, work_dir, context, extra_flags)
    return pool.submit(_split_model, source, compile_flags, work_dir)


def _split_model(source: Path, compile_flags: Sequence[str], work_dir: Path) -> WeightSplit | None:
    """`split`, but not of a dispatch benchmark (no weights to move: `without_weights` takes it as it is)."""
    if is_dispatch_benchmark(source):
        return None
    return split(source, compile_flags, work_dir, MIN_WEIGHT_BYTES, MIN_CONSTANT_BYTES)
