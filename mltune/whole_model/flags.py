"""Compile-flag variants of a whole model, each tuned, then compared end to end.

`--iree-opt-data-tiling` packs matmul operands and turns every matmul of the model into a `linalg.mmt4d`, which a
tuning spec cannot configure (specs are applied before the encodings become mmt4d ops:
`mltune.spaces.cpu_data_tiling`). So the two variants are tuned apart, each in its own knobs:
- IREE's default flags: the model's dispatches, tuned config by config (the tuning loop and `finish_model`);
- data tiling: the flags IREE's mmt4d configuration reads (`--iree-llvmcpu-matmul-tile-bytes`,
  `--iree-llvmcpu-number-of-threads`) and the mmt4d microkernel, a grid screened on the whole model;
and the two tuned builds are then timed against IREE's default build in the same rounds. The faster one that
wins beyond the noise is what the user gets. Comparing a variant with the *untuned* model instead would let
data tiling beat a model that tuning alone makes faster still.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from mltune.emit.apply import Applied
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import RunnerPool
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner
from mltune.spaces import cpu_data_tiling

TUNED_DEFAULT = "default flags, tuned"
GRID_TILE_KIB = (64, 256, 1024)  # around IREE's default of 256 KiB


def data_tiling_variants(cores: int) -> dict[str, tuple[str, ...]]:
    """The data-tiled variant's flag sets, IREE's own defaults (256 KiB, 8 threads, no microkernel) first."""
    variants = {}
    for lowering in (cpu_data_tiling.DATA_TILED, cpu_data_tiling.DATA_TILED_UKERNEL):
        for threads in dict.fromkeys((cpu_data_tiling.IREE_DEFAULT_THREADS, cores)):
            for kib in sorted(GRID_TILE_KIB, key=lambda k: k != cpu_data_tiling.IREE_DEFAULT_TILE_KIB):
                knobs = {"lowering": lowering, "dt_tile_kib": kib, "dt_threads": threads}
                name = f"data-tiling tile={kib}KiB threads={threads}" + (" ukernel" if lowering == 2 else "")
                variants[name] = cpu_data_tiling.compile_flags(knobs)
    return variants


@dataclass(frozen=True)
class FlagChoice:
    """The flags kept (empty: IREE's defaults), the tuned variants as measured against IREE's default build, and
    the data-tiled variant's flag sets as screened (identical modules once)."""

    flags: tuple[str, ...]
    name: str
    measured: dict[str, Measurement]
    failed: dict[str, str] = field(default_factory=dict)  # variant -> why it did not compile
    screened: dict[str, Measurement] = field(default_factory=dict)


def with_flags(builder: Builder, flags: Sequence[str], work_dir: Path) -> Builder:
    """The same builder, compiling with `flags` added, into `work_dir`."""
    tuning_input = replace(builder.tuning_input, compile_flags=(*builder.tuning_input.compile_flags, *flags))
    return replace(builder, tuning_input=tuning_input, work_dir=work_dir)


def _distinct_builds(
    builder: Builder, variants: dict[str, tuple[str, ...]], starter: Applied | None
) -> tuple[dict[str, BuildResult], dict[str, str]]:
    """Each variant compiled (with the starter spec: it must still compile under the flags); a module identical to
    an earlier variant's is left out, so that it is not measured twice."""
    builds, failed, seen = {}, {}, set()
    for index, (name, flags) in enumerate(variants.items()):
        build = replace(
            with_flags(builder, flags, builder.work_dir / "flag_variants").compile(
                index, starter, f"variant_{index:02d}"
            ),
            index=index,
        )
        if build.status != "ok":
            failed[name] = build.detail
        elif build.sha256 not in seen:
            seen.add(build.sha256)
            builds[name] = build
    return builds, failed


def tune_data_tiling(
    builder: Builder,
    runner: Runner | RunnerPool,
    baseline_vmfb: Path,
    plan: TimingPlan,
    cores: int,
    starter: Applied | None,
) -> tuple[BuildResult | None, dict[str, Measurement], dict[str, str]]:
    """The data-tiled variant's fastest build on the whole model (None: none ran) and every flag set screened."""
    builds, failed = _distinct_builds(builder, data_tiling_variants(cores), starter)
    names = list(builds)
    measured = runner.measure(baseline_vmfb, [(i, builds[n].vmfb) for i, n in enumerate(names)], plan)
    screened = {names[m.index]: m for m in measured}
    ran = [n for n, m in screened.items() if m.status == "ok"]
    return (builds[min(ran, key=lambda n: screened[n].ratio)] if ran else None), screened, failed


def compare_tuned(
    builder: Builder,
    runner: Runner | RunnerPool,
    default_vmfb: Path,
    tuned_default: Path,
    screening: TimingPlan,
    final: TimingPlan,
    min_speedup: float,
    cores: int,
    starter: Applied | None,
) -> FlagChoice:
    """Tune the data-tiled variant, then time it and the tuned default-flag build against IREE's default build in
    the same rounds; keep the faster of those that win beyond the noise."""
    best, screened, failed = tune_data_tiling(builder, runner, default_vmfb, screening, cores, starter)
    variants = {TUNED_DEFAULT: ((), tuned_default)}
    if best is not None:
        name, flags = list(data_tiling_variants(cores).items())[best.index]
        variants[name] = (flags, best.vmfb)
    names = list(variants)
    measured = {
        names[m.index]: m
        for m in runner.measure(default_vmfb, [(i, variants[n][1]) for i, n in enumerate(names)], final)
    }
    winners = [n for n, m in measured.items() if m.wins(min_speedup)]
    if not winners:
        return FlagChoice((), "default", measured, failed, screened)
    chosen = min(winners, key=lambda n: measured[n].ratio)
    return FlagChoice(variants[chosen][0], chosen, measured, failed, screened)


def compile_command(source: Path, compile_flags: Sequence[str], spec: Path | None, output: str = "model.vmfb") -> str:
    """The exact `iree-compile` command line a user runs to get the tuned model."""
    args = ["iree-compile", str(source), *compile_flags]
    if spec is not None:
        args.append(f"--iree-codegen-tuning-spec-path={spec}")
    return shlex.join([*args, "-o", output])
