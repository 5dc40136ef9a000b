"""Benchmark compiled candidates against the baseline, each in the same process as the baseline.

The timing itself happens in a child process (`timing_worker`), so a candidate that
crashes or hangs at run time becomes a `run_error` or `timeout` measurement, never a
crash of the tuner; the worker is restarted for the candidates that remain.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.timing_process import KeptWorker, Pace, TimingProcess
from mltune.input.files import scoped_paths
from mltune.input.tuning_input import Invocation

OnResult = Callable[[Measurement], None]


def pool(measurements: Sequence[Measurement]) -> Measurement:
    """One candidate's rounds from several timing processes, as one measurement (the first failure, if any)."""
    failed = next((m for m in measurements if m.status != "ok"), None)
    if failed is not None:
        return failed
    return replace(
        measurements[0],
        time_us=tuple(t for m in measurements for t in m.time_us),
        baseline_us=tuple(b for m in measurements for b in m.baseline_us),
        busy_cores=tuple(c for m in measurements for c in m.busy_cores),
        worker_s=sum(m.worker_s for m in measurements),
        load_s=sum(m.load_s for m in measurements),
        retried_rounds=sum(m.retried_rounds for m in measurements),
    )


class _Collected(list):
    """The measurements of one worker run, each handed to `on_result` as it is added."""

    def __init__(self, on_result: OnResult | None):
        super().__init__()
        self.on_result = on_result

    def append(self, measurement: Measurement) -> None:
        super().append(measurement)
        if self.on_result is not None:
            self.on_result(measurement)

    def extend(self, measurements) -> None:
        for measurement in measurements:
            self.append(measurement)


@dataclass
class Runner:
    """Runs `timing_worker` children on one runtime device, one at a time (never while compiling); with `kept`, a
    worker kept between calls (`KeptWorker`)."""

    invocation: Invocation
    device: str
    work_dir: Path
    seconds_in_children: float = field(default=0.0)
    kept: KeptWorker | None = field(default=None, compare=False)

    def measure(
        self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan, on_result: OnResult | None = None
    ) -> list[Measurement]:
        """Measure each (index, vmfb) against `baseline`; results come back in the order given, and each is
        passed to `on_result` as soon as it is known (so that a kill loses at most the one being measured; with
        several processes, a result is known once the last of them has measured it)."""
        if plan.processes <= 1:
            return self._measure_in_one_process(baseline, items, plan, on_result, self.kept is not None)
        parts: dict[int, list[Measurement]] = {index: [] for index, _ in items}
        unsettled, processes = list(items), 0
        while unsettled:  # each share in a new process: never a kept worker
            for measurement in self._measure_in_one_process(baseline, unsettled, plan.share(), None, False):
                parts[measurement.index].append(measurement)
            processes += 1
            unsettled = [(i, path) for i, path in unsettled if not plan.settled(pool(parts[i]), processes)]
        pooled = [replace(pool(parts[index]), looks=len(plan.looks.schedule)) for index, _ in items]
        for measurement in pooled:
            if on_result is not None:
                on_result(measurement)
        return pooled

    def prepare(self, baseline: Path) -> None:
        """Have the kept worker load `baseline`'s workload (a batch of no candidates), starting it if need be, so
        that the next call finds it ready."""
        if self.kept is not None:
            self._run_worker(baseline, [], TimingPlan(), None, True)

    def close(self) -> None:
        """End the kept worker, if any."""
        if self.kept is not None:
            self.kept.close()

    def _measure_in_one_process(
        self,
        baseline: Path,
        items: Sequence[tuple[int, Path]],
        plan: TimingPlan,
        on_result: OnResult | None,
        keep: bool,
    ) -> list[Measurement]:
        results: dict[int, Measurement] = {}
        pending = list(items)
        while pending:
            measured = self._run_worker(baseline, pending, plan, on_result, keep)
            if not measured:  # the worker gave nothing back: do not retry forever
                measured = [Measurement(i, "run_error", detail="timing worker returned no result") for i, _ in pending]
                for m in measured:
                    if on_result is not None:
                        on_result(m)
            results.update((m.index, m) for m in measured)
            pending = [(i, p) for i, p in pending if i not in results]
        return [results[i] for i, _ in items]

    def _batch(self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan) -> dict:
        """What a worker needs to time one batch: the workload, the candidates and the plan."""
        return {
            "function": self.invocation.function,
            "inputs": [(str(f.path), f.shape, f.element_type) for f in self.invocation.inputs],
            "dispatch_level": self.invocation.dispatch_level,
            "parameters": scoped_paths(self.invocation.parameters),
            "baseline": str(baseline),
            "candidates": [(i, str(p)) for i, p in items],
            "rounds": plan.rounds,
            "round_seconds": plan.round_seconds,
            "min_calls": plan.min_calls,
            "long_call_pairs": plan.long_call_pairs,
            "long_round_seconds": plan.long_round_seconds,
            "max_calls": plan.max_calls,
            "slow_factor": plan.slow_factor,
            "max_rounds": plan.most_rounds,
            "looks": list(plan.looks.schedule),
        }

    def _request(self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan, keep: bool) -> Path:
        request = {"device": self.device, "serve": keep, "parent": os.getpid(), **self._batch(baseline, items, plan)}
        self.work_dir.mkdir(parents=True, exist_ok=True)  # a later attempt's folder may not exist yet
        fd, name = tempfile.mkstemp(prefix="timing_", suffix=".json", dir=self.work_dir)
        with os.fdopen(fd, "w") as handle:
            json.dump(request, handle)
        return Path(name)

    def _kept_worker(
        self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan, keep: bool
    ) -> TimingProcess | None:
        """The kept worker, given this batch, when there is one and it is alive (a batch that is not to be kept
        ends it)."""
        worker = self.kept.take() if self.kept is not None else None
        if worker is not None:
            if keep and worker.send(self._batch(baseline, items, plan)):
                worker.pace = Pace(plan)
                return worker
            worker.close()
        return None

    def _run_worker(
        self,
        baseline: Path,
        items: Sequence[tuple[int, Path]],
        plan: TimingPlan,
        on_result: OnResult | None,
        keep: bool,
    ) -> list[Measurement]:
        """Run one batch on a worker until it is done, crashes or stalls; return what it measured. A kept worker
        that died since its last batch (it answers nothing) is replaced by a new one for this batch."""
        started = time.perf_counter()
        worker = self._kept_worker(baseline, items, plan, keep)
        done = _Collected(on_result)
        served = False
        try:
            if worker is not None:
                served = self._read_batch(worker, items, plan, done)
                if not served and not worker.heard:
                    worker.close()
                    worker = None
            if worker is None:
                worker = TimingProcess.start(self._request(baseline, items, plan, keep), Pace(plan), keep)
                served = self._read_batch(worker, items, plan, done)
        finally:
            if served and self.kept is not None:
                self.kept.keep(worker)
            elif worker is not None:
                worker.close()
            self.seconds_in_children += time.perf_counter() - started
        return list(done)

    @staticmethod
    def _read_batch(
        worker: TimingProcess, items: Sequence[tuple[int, Path]], plan: TimingPlan, done: _Collected
    ) -> bool:
        """Collect the worker's measurements of one batch; True when it finished the batch and waits for the next."""
        pace, running = worker.pace, None
        deadline = time.monotonic() + pace.seconds
        while True:
            try:
                message = worker.next_message(deadline)
            except TimeoutError:
                if running is not None:  # the worker is killed on return
                    done.append(Measurement(running, "timeout", detail=f"no result within {pace.seconds:.0f} s"))
                elif not done:  # the baseline itself hangs: nothing can be measured
                    done.extend(Measurement(i, "timeout", detail="baseline did not run") for i, _ in items)
                return False
            if message is None:
                break
            if "batch_done" in message:
                return True
            if "call_s" in message:
                pace.heard(message)
                deadline = time.monotonic() + pace.seconds
            elif "start" in message:
                running = message["start"]
                deadline = time.monotonic() + pace.seconds
            else:
                done.append(
                    Measurement(
                        message["index"],
                        "ok",
                        tuple(message["time_us"]),
                        tuple(message["baseline_us"]),
                        busy_cores=tuple(message.get("busy_cores", ())),
                        looks=len(plan.looks.schedule),
                        worker_s=message.get("worker_s", 0.0),
                        load_s=message.get("load_s", 0.0),
                        retried_rounds=message.get("retried_rounds", 0),
                    )
                )
                running = None
        worker.proc.wait()
        if worker.proc.returncode not in (0, -signal.SIGKILL):
            failed = [running] if running is not None else [i for i, _ in items if i not in {m.index for m in done}]
            done.extend(Measurement(i, "run_error", detail=worker.error_tail()) for i in failed)
        return False
