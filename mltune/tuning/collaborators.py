"""The collaborators a run's stages use, handed to them rather than built inside them, so that a test or a plugin
can swap one (TVM's meta_schedule hands `tune_tasks` its builder, runner, database and cost model the same way):
the builder that compiles a candidate, the runner that times a build, and the ranker that orders a space."""

from __future__ import annotations

from dataclasses import dataclass

from mltune.errors import UserError
from mltune.execution.build import Builder, BuildResult
from mltune.execution.devices import RunnerPool, make_runner
from mltune.execution.runner import Runner
from mltune.rankers import Ranker, make_ranker
from mltune.system.progress import display
from mltune.tuning.prepare import PreparedRun


@dataclass(frozen=True)
class Collaborators:
    """What builds, times and ranks candidates in one run."""

    builder: Builder  # compiles the input with a candidate's spec or annotation
    runner: Runner | RunnerPool  # times a build on the run's devices
    ranker: Ranker  # orders a problem's candidates; each problem gets its own copy


def default_collaborators(run: PreparedRun) -> Collaborators:
    """The builder and runner for the run's input and devices, and the ranker the request names (a ranker missing
    its model for this target stops here, before any build)."""
    request = run.request
    ranker = make_ranker(request.ranker, request.seed, run.facts, request.model_dir, request.dataset_dir)
    return Collaborators(
        Builder(run.builds, request.run_dir / "candidates", request.jobs),
        make_runner(run.builds.invocation, request.devices, request.run_dir),
        ranker,
    )


@dataclass(frozen=True)
class Baselines:
    """IREE's default build, which every candidate is measured against, and the starter spec's build (checked to
    compile; the default's own when no starter spec is given)."""

    default: BuildResult
    starter: BuildResult

    @property
    def seconds(self) -> float:
        return self.default.seconds + (self.starter.seconds if self.starter is not self.default else 0.0)


def build_baselines(run: PreparedRun, builder: Builder) -> Baselines:
    """Stage two: IREE's default build (and the starter spec's), or a one-line error if the input does not build."""
    with display().phase("baseline: compile IREE's default build"):
        default = builder.compile(-1, None, "baseline")
    if default.status != "ok":
        raise UserError(f"the input does not compile without a spec: {default.detail}")
    starter = run.starter
    if starter is None:
        return Baselines(default, default)
    with_starter = builder.compile(-1, starter.applied, "starter_baseline")
    if with_starter.status != "ok":
        raise UserError(f"the input does not compile with --starter-spec {starter.path}: {with_starter.detail}")
    return Baselines(default, with_starter)
