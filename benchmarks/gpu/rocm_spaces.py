"""The GPU spaces of named dispatches, for the ROCm benchmarks (compile only: no AMD GPU is needed or used).

Each dispatch of `gpu_compile_fraction.DISPATCHES` (or a model file, `*.mlir`) is written out, dumped for the target by mltune, and its
configurator built and enumerated (timed); both builders come with it: the whole model's and the dumped
executable's (`mltune.tuning.compile_only.dispatch_builder`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: its helpers and groups
from gpu.gpu_compile_fraction import DISPATCHES  # noqa: E402

from mltune.emit.apply import Applier, make_applier  # noqa: E402
from mltune.execution.build import Builder  # noqa: E402
from mltune.frontend.mlir import new_context  # noqa: E402
from mltune.frontend.problem import Problem, Untunable  # noqa: E402
from mltune.input.tuning_input import prepare_input  # noqa: E402
from mltune.input.dispatches import Dispatch  # noqa: E402
from mltune.spaces.candidate import CandidateSet, Configurator  # noqa: E402
from mltune.targets import parse_target  # noqa: E402
from mltune.tuning.compile_only import dispatch_builder  # noqa: E402
from mltune.input.dispatches import read_dispatches  # noqa: E402
from mltune.tuning.prepare import configurators  # noqa: E402


@dataclass
class DispatchSpace:
    name: str
    dispatch: Dispatch
    configurator: Configurator
    candidates: CandidateSet
    generation_s: float
    applier: Applier
    model_builder: Builder  # compiles the whole model
    dispatch_builder: Builder  # compiles the dumped executable (the model's builder where that does not apply)


def dispatch_spaces(names: list[str], target_name: str, work: Path, jobs: int = 1) -> Iterator[DispatchSpace]:
    """Each named dispatch's tunable problems with their spaces, for `target_name` (e.g. mi300x)."""
    context = new_context()
    target = parse_target(target_name, probe=False)
    for name in names:
        text = (
            Path(name).read_text() if name.endswith(".mlir") else DISPATCHES[name]
        )  # a model file, or a dispatch's name
        name = Path(name).stem
        folder = work / target_name / name
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / f"{name}.mlir"
        source.write_text(text)
        tuning_input = prepare_input(source, target, folder, context)
        tunable = [d for d in read_dispatches(tuning_input, context) if isinstance(d.problem, Problem)]
        model_builder = Builder(tuning_input, folder / "candidates", jobs)
        for dispatch, configurator in configurators(tunable, context, folder / "spaces"):
            if isinstance(configurator, Untunable):
                continue
            started = time.perf_counter()
            candidates = configurator.candidates()
            generation = time.perf_counter() - started
            fast = dispatch_builder(model_builder, dispatch, target.kind, (), folder / "stripped")
            yield DispatchSpace(
                name,
                dispatch,
                configurator,
                candidates,
                generation,
                make_applier(target.kind, tuning_input.source, context),
                model_builder,
                fast,
            )
