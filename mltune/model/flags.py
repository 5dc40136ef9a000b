"""Compile flags that change how dispatches are formed, measured on the whole model.

`--iree-opt-data-tiling` packs matmul operands and turns the matmuls into `linalg.mmt4d`
dispatches: on this project's CPUs it made a bf16 256x3072x768 matmul 3.5x faster at the
model level and f32 shapes slower, so it is measured per model, never assumed. The variant
is chosen first, on the untuned model, and the dispatches of the chosen variant are then
tuned: a config tuned for a plain matmul does not apply to the mmt4d that replaces it, so
tuning first and switching flags afterwards would throw the tuning away.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from mltune.emit.apply import Applied
from mltune.execution.build import Builder
from mltune.execution.devices import RunnerPool
from mltune.execution.run import Measurement, Runner, TimingPlan

# CPU flags: a GPU target keeps IREE's default flags (tune.py measures variants only for CPU targets)
FLAG_VARIANTS: dict[str, tuple[str, ...]] = {"data-tiling": ("--iree-opt-data-tiling",)}


@dataclass(frozen=True)
class FlagChoice:
    """The flags kept (empty: IREE's defaults) and what each variant measured against the defaults."""

    flags: tuple[str, ...]
    name: str
    measured: dict[str, Measurement]
    failed: dict[str, str] = field(default_factory=dict)  # variant -> why it did not compile


def with_flags(builder: Builder, flags: Sequence[str], work_dir: Path) -> Builder:
    """The same builder, compiling with `flags` added, into `work_dir`."""
    tuning_input = replace(builder.tuning_input, compile_flags=(*builder.tuning_input.compile_flags, *flags))
    return replace(builder, tuning_input=tuning_input, work_dir=work_dir)


def choose_flags(builder: Builder, runner: Runner | RunnerPool, baseline_vmfb: Path, plan: TimingPlan,
                 min_speedup: float, starter: Applied | None = None) -> FlagChoice:
    """Compile the model with each variant, time them all against the baseline build, keep the fastest winner.

    `starter` (the user's starter spec) is applied to every variant, as it will be in the end, and
    `baseline_vmfb` must be built with it too: a spec written for plain matmuls can fail to compile
    once data tiling has rewritten them, and such a variant is not eligible.
    """
    names = list(FLAG_VARIANTS)
    builds = [with_flags(builder, FLAG_VARIANTS[n], builder.work_dir / f"flags_{n}").compile(i, starter, "model")
              for i, n in enumerate(names)]
    failed = {names[b.index]: b.detail for b in builds if b.status != "ok"}
    ok = [(b.index, b.vmfb) for b in builds if b.status == "ok"]
    measured = {names[m.index]: m for m in runner.measure(baseline_vmfb, ok, plan)}
    winners = [n for n, m in measured.items() if m.wins(min_speedup)]
    if not winners:
        return FlagChoice((), "default", measured, failed)
    best = min(winners, key=lambda n: measured[n].ratio)
    return FlagChoice(FLAG_VARIANTS[best], best, measured, failed)


def compile_command(source: Path, compile_flags: Sequence[str], spec: Path | None, output: str = "model.vmfb") -> str:
    """The exact `iree-compile` command line a user runs to get the tuned model."""
    args = ["iree-compile", str(source), *compile_flags]
    if spec is not None:
        args.append(f"--iree-codegen-tuning-spec-path={spec}")
    return shlex.join([*args, "-o", output])
