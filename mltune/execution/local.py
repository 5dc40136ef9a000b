"""The executor of one machine: compiles in parallel processes, then benchmarks on this machine's devices.

Compiling and benchmarking alternate in phases, never both at once: a compile beside a benchmark slows it badly
(`docs/scaling.md`). All compiles queued are built together, then all benchmarks queued are measured together (one
timing worker per device, each candidate interleaved with the baseline on that device).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Hashable, TypeVar

from mltune.execution.build import Builder
from mltune.execution.devices import RunnerPool
from mltune.execution.executor import BenchmarkJob, CompileJob, OnJobResult
from mltune.execution.runner import Runner

Job = TypeVar("Job", CompileJob, BenchmarkJob)


@dataclass
class LocalExecutor:
    builder: Builder
    runner: Runner | RunnerPool
    baseline: Path
    window: int = 8
    pipelined: bool = False
    tool_seconds: float = 0.0  # compile phases (the runner counts its own benchmark time)
    _compiles: list[CompileJob] = field(default_factory=list)
    _benchmarks: list[BenchmarkJob] = field(default_factory=list)

    def submit_compile(self, job: CompileJob) -> None:
        self._compiles.append(job)

    def submit_benchmark(self, job: BenchmarkJob) -> None:
        self._benchmarks.append(job)

    def run(self, on_result: OnJobResult) -> None:
        while self._compiles or self._benchmarks:
            if self._compiles:
                self._compile_phase(on_result)
            else:
                self._benchmark_phase(on_result)

    def _compile_phase(self, on_result: OnJobResult) -> None:
        jobs, self._compiles = self._compiles, []
        for group, members in _grouped(jobs, lambda job: job.group).items():
            start = time.perf_counter()
            builds = self.builder.compile_many([(job.index, job.applied) for job in members], group=group)
            self.tool_seconds += time.perf_counter() - start
            for job, build in zip(members, builds):
                on_result(job, build)

    def _benchmark_phase(self, on_result: OnJobResult) -> None:
        """One timing run per plan and group (indices are a group's own)."""
        jobs, self._benchmarks = self._benchmarks, []
        for _, members in _grouped(jobs, lambda job: (job.plan, job.group)).items():
            by_index = {job.index: job for job in members}
            self.runner.measure(
                self.baseline,
                [(job.index, job.vmfb) for job in members],
                members[0].plan,
                lambda measurement: on_result(by_index[measurement.index], measurement),
            )

    def close(self) -> None:
        """The runner's kept timing worker ends here; the builder's children die with their phase."""
        self.runner.close()


def _grouped(jobs: list[Job], key: Callable[[Job], Hashable]) -> dict[Hashable, list[Job]]:
    """The jobs by `key`, each group in submission order (one compile or timing run serves a group)."""
    groups: dict[Hashable, list[Job]] = {}
    for job in jobs:
        groups.setdefault(key(job), []).append(job)
    return groups
