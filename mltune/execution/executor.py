"""The seam between the tuning loop and where its work runs: compile jobs and benchmark jobs go in, results come
out as they complete.

The loop never calls a builder or a runner itself. It submits jobs, and `run` hands it each job with its result
(a `BuildResult` or a `Measurement`) as soon as it is known; the loop may submit more jobs from inside that
callback, and `run` returns once every job, those submitted meanwhile included, has given its result. Every job
names its group (the dispatch it tunes), so the searches of several dispatches can share one executor; a cluster's
executor can also build and time each group from a module of its own (a `Workload`: a screen's small module). An
executor says how many candidates the loop should keep in flight (`window`) and whether it may refill before
the last of them is done (`pipelined`): the local executor works in phases, a cluster overlaps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, Union

from mltune.emit.apply import Applied
from mltune.execution.build import Builder, BuildResult
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.input.tuning_input import Invocation

Result = Union[BuildResult, Measurement]


@dataclass(frozen=True)
class CompileJob:
    """Compile candidate `index` of `group` (a dispatch's name) with `applied` (None: IREE's default); its
    `BuildResult` comes back."""

    index: int
    applied: Applied | None
    group: str


@dataclass(frozen=True)
class BenchmarkJob:
    """Time candidate `index` of `group`, the module `vmfb` (a path on the driver), against the baseline with
    `plan`; its `Measurement` comes back."""

    index: int
    vmfb: Path
    plan: TimingPlan
    group: str


@dataclass(frozen=True)
class Workload:
    """What a group's candidates are compiled from and timed against: the module's builder, IREE's default build
    of it (the baseline), and how the module is called."""

    builder: Builder
    baseline: Path
    invocation: Invocation


Job = Union[CompileJob, BenchmarkJob]
OnJobResult = Callable[[Job, Result], None]


class Executor(Protocol):
    window: int  # candidates the loop keeps in flight
    pipelined: bool  # refill as results arrive (True) or only once every candidate in flight is done (False)
    tool_seconds: float  # driver time spent waiting on tools that the local runner's own count leaves out

    def submit_compile(self, job: CompileJob) -> None: ...

    def submit_benchmark(self, job: BenchmarkJob) -> None: ...

    def run(self, on_result: OnJobResult) -> None:
        """Until every submitted job has given its result, hand each job and its result to `on_result` as it
        completes (exactly once per job); `on_result` may submit more jobs."""
        ...

    def close(self) -> None:
        """Stop whatever still runs (Ctrl-C) and give back what the executor holds."""
        ...
