"""Every config mltune keeps computes what IREE's default build computes, on the tuning device and the same inputs.

Model input: the winner's own build (the model compiled with its config) against IREE's default
build, on the run's inputs; the default build's outputs are computed once, first, and a default
build that cannot run on its own model's arguments is bad input; a refused winner's place goes to the next
finalist that wins, checked the same way. Dispatch input: a dumped dispatch
benchmark reads never-written buffers and returns nothing, so the problem's one-op model
(`mltune.frontend.one_op_model`) is compiled with and without the config and both run on seeded inputs; a
problem with no one-op model (convolutions, attention, a transposed LHS) is reported as not checked,
and so is a config the one-op model's compile does not pick up (the builds come out identical). A refused winner is
dropped and recorded as `wrong_result`, so that no later run seeds or learns it as fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from iree.compiler import ir

from mltune.emit.apply import make_applier
from mltune.errors import UserError
from mltune.execution.build import Builder
from mltune.execution.measurement import Measurement
from mltune.frontend.mlir import parse_module_file
from mltune.frontend.one_op_model import ContractionShape, contraction_model
from mltune.frontend.problem import Problem
from mltune.input.tuning_input import Invocation, TuningInput, default_build, write_random_inputs
from mltune.records.dataset import Record
from mltune.search.results import DispatchResult, Trial
from mltune.system.progress import display
from mltune.targets import CpuTarget, Target, TargetFacts
from mltune.whole_model.host_reference import HostBuild, HostCheck, against_host
from mltune.whole_model.numerics import Comparison, Judge, compare, run_outputs


def one_op_shape(problem: Problem) -> ContractionShape | None:
    """The one-op model computing `problem`, if `mltune.frontend.one_op_model` can write it."""
    if (
        problem.op_kind not in ("contraction", "matvec")
        or len(problem.batch) > 1
        or problem.layout not in ("nn", "nt")
        or problem.lhs_type != problem.rhs_type
        or not len(problem.m) == len(problem.n) == len(problem.k) == 1
    ):
        return None
    (m,), (n,), (k,) = problem.sizes(problem.m), problem.sizes(problem.n), problem.sizes(problem.k)
    batch = problem.sizes(problem.batch)[0] if problem.batch else 0
    return ContractionShape(m, n, k, batch, problem.lhs_type, problem.out_type, problem.layout == "nt")


def _next_winner(result: DispatchResult, refused: Trial) -> tuple[Trial, Measurement] | None:
    """The fastest finalist after `refused` that also wins (`result.finals` is sorted fastest first)."""
    positions = [i for i, (trial, _) in enumerate(result.finals) if trial is refused]
    later = result.finals[positions[0] + 1 :] if positions else result.finals
    return next((pair for pair in later if pair[0] is not refused and pair[1].wins(result.min_speedup)), None)


def default_outputs(tuning_input: TuningInput, default_vmfb: Path, device: str, work_dir: Path) -> list[np.ndarray]:
    """IREE's default build's outputs on the model's own arguments; a build that cannot run them is bad input."""
    try:
        return run_outputs(default_vmfb, tuning_input.invocation, device, work_dir / "outputs_default.npz")
    except RuntimeError as err:
        raise UserError(
            f"IREE's default build of {tuning_input.source.name} cannot run on its own arguments ({err})"
        ) from None


@dataclass
class WinnerCheck:
    """Checks each dispatch's winner after its search; `verdicts` says, per dispatch, what was found."""

    tuning_input: TuningInput
    default_vmfb: Path
    device: str
    target: Target
    context: ir.Context
    work_dir: Path
    jobs: int
    seed: int = 0
    verdicts: dict[str, str] = field(default_factory=dict)
    host: HostCheck | None = None  # IREE's default build against the host's (`mltune.whole_model.host_reference`)
    _reference: list[np.ndarray] | None = None

    @property
    def judge(self) -> Judge:
        """How a build's outputs are judged against IREE's default build's (`HostCheck.judge` once held against the
        host)."""
        return self.host.judge if self.host is not None else compare

    def start(self, host: HostBuild | None = None) -> None:
        """Run IREE's default build once before any tuning (model input): it must run, and its outputs are the
        reference; with `host`, they are held against the user's file built for the host CPU."""
        if not self.tuning_input.invocation.dispatch_level:
            self._reference = default_outputs(self.tuning_input, self.default_vmfb, self.device, self.work_dir)
            if host is not None:
                with display().phase("IREE's default build against the same file built for the host CPU"):
                    self.host = against_host(host, self._reference, self.work_dir / "host")
                display().say(self.host.line)  # now, not only in the report: it says how the configs are judged

    def verify(
        self,
        result: DispatchResult,
        facts: TargetFacts,
        pipeline_of: Callable[[dict[str, int]], str],
        ranker: str,
        record_fields: dict,
    ) -> list[Record]:
        """Check `result`'s winner; a wrong one is dropped from `result` and the next finalist that also wins is
        checked in its place (configs alike in speed can differ in what the compiler makes of them: ResNet-50's
        strided projections on sm_90). Each wrong one comes back as a `wrong_result` record."""
        refused: list[Record] = []
        while result.winner is not None:
            trial, measurement = result.winner
            folder = self.work_dir / "numerics" / result.name / f"candidate_{trial.index}"
            unchecked = ""
            try:
                if self._reference is not None and (trial.build.vmfb is None or not Path(trial.build.vmfb).is_file()):
                    unchecked = f"its build is not at hand ({trial.build.vmfb or 'measured by an earlier run'})"
                    verdict = Comparison(False, unchecked)
                else:
                    verdict = (
                        self._against_model(trial.build.vmfb, folder)
                        if self._reference is not None
                        else self._against_one_op_model(result, facts, folder)
                    )
            except RuntimeError as err:
                verdict = Comparison(False, str(err))
            except OSError as err:  # mltune's own failure, not the winner's: never a numerics verdict
                unchecked = f"{type(err).__name__}: {err}"
                verdict = Comparison(False, unchecked)
            if verdict is None:
                return refused
            if verdict.ok:
                after = f" (after {len(refused)} faster finalist(s) refused)" if refused else ""
                self.verdicts[result.name] = f"numerics checked: {verdict.detail}{after}"
                return refused
            if not unchecked:  # a wrong result is a measured fact, recorded; mltune's own failure is none
                refused.append(
                    Record(
                        problem=result.problem.to_record(),
                        pipeline=pipeline_of(trial.knobs),
                        knobs=trial.knobs,
                        status="wrong_result",
                        time_us=list(measurement.time_us),
                        baseline_us=list(measurement.baseline_us),
                        ranker=ranker,
                        position=trial.position,
                        detail=f"numerics: {verdict.detail}",
                        **record_fields,
                    )
                )
            result.winner = _next_winner(result, trial)
            why = (
                f"winner not emitted, its numerics could not be checked: {unchecked}"
                if unchecked
                else f"winner refused, it computes different results: {verdict.detail}"
            )
            self.verdicts[result.name] = why + (f" ({len(refused)} finalists refused)" if len(refused) > 1 else "")
        return refused

    def _against_model(self, vmfb: Path, folder: Path) -> Comparison:
        folder.mkdir(parents=True, exist_ok=True)
        assert self._reference is not None
        return self.judge(
            self._reference, run_outputs(vmfb, self.tuning_input.invocation, self.device, folder / "outputs")
        )

    def _against_one_op_model(self, result: DispatchResult, facts: TargetFacts, folder: Path) -> Comparison | None:
        shape = one_op_shape(result.problem)
        name = result.name
        if shape is None:
            self.verdicts[name] = f"numerics not checked: no one-op model for {result.problem.key}"
            return None
        folder.mkdir(parents=True, exist_ok=True)
        target = CpuTarget(cpu=facts.arch) if self.target.kind == "cpu" else self.target
        source_path = folder / f"{shape.name}.mlir"
        source_path.write_text(contraction_model(shape))
        module = parse_module_file(source_path, self.context)
        with self.context:
            main = next(op for op in module.body.operations if op.operation.name == "func.func")
            inputs = write_random_inputs(main, folder / "inputs", self.seed)
        source, flags = default_build(source_path, target, folder, self.context)
        builder = Builder(TuningInput(source, Invocation("main", inputs, False), (), tuple(flags)), folder, self.jobs)
        applied = make_applier(target.kind, source, self.context).apply(
            result.problem, result.winner[0].compilation_info
        )
        default, tuned = builder.compile(0, None, "default"), builder.compile(1, applied, "tuned")
        if default.status != "ok" or tuned.status != "ok":
            failed = default if default.status != "ok" else tuned
            self.verdicts[name] = f"numerics not checked: the one-op model does not compile ({failed.detail})"
            return None
        if default.sha256 == tuned.sha256:
            self.verdicts[name] = "numerics not checked: the config does not change the one-op model's code"
            return None
        invocation = builder.tuning_input.invocation
        return compare(
            run_outputs(default.vmfb, invocation, self.device, folder / "outputs_default"),
            run_outputs(tuned.vmfb, invocation, self.device, folder / "outputs_tuned"),
        )
