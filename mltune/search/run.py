"""Benchmark compiled candidates against the baseline, each in the same process as the baseline.

The timing itself happens in a child process (`timing_worker`), so a candidate that
crashes or hangs at run time becomes a `run_error` or `timeout` measurement, never a
crash of the tuner; the worker is restarted for the candidates that remain.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Sequence

from mltune.inputs import Invocation
from mltune.tools import spawn

STARTUP_SECONDS = 30.0


@dataclass(frozen=True)
class Measurement:
    """One candidate's timing: per-round times (25th percentile of the round's calls) of the
    candidate and of the interleaved baseline."""

    index: int
    status: str  # ok | run_error | timeout
    time_us: tuple[float, ...] = ()
    baseline_us: tuple[float, ...] = ()
    detail: str = ""

    @property
    def ratio(self) -> float:
        """Median over rounds of candidate time / baseline time in the same round (< 1 is faster)."""
        if self.status != "ok" or not self.time_us:
            return float("inf")
        return median(c / b for c, b in zip(self.time_us, self.baseline_us))

    @property
    def rounds_won(self) -> float:
        """Fraction of rounds in which the candidate beat the baseline."""
        if self.status != "ok" or not self.time_us:
            return 0.0
        return sum(c < b for c, b in zip(self.time_us, self.baseline_us)) / len(self.time_us)

    def wins(self, min_speedup: float, min_rounds_won: float) -> bool:
        """Faster than the baseline beyond the noise: by `min_speedup` in the median and in most rounds."""
        return self.status == "ok" and self.ratio * min_speedup <= 1.0 and self.rounds_won >= min_rounds_won


@dataclass(frozen=True)
class TimingPlan:
    """How hard to measure: rounds per candidate and the length of one round."""

    rounds: int = 3
    round_seconds: float = 0.12
    min_calls: int = 5
    max_calls: int = 400
    slow_factor: float = 2.0  # stop after the first round when a candidate is this much slower
    timeout_factor: float = 10.0


@dataclass
class Runner:
    """Runs `timing_worker` children on one runtime device, one at a time (never while compiling)."""

    invocation: Invocation
    device: str
    work_dir: Path
    seconds_in_children: float = field(default=0.0)

    def measure(self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan) -> list[Measurement]:
        """Measure each (index, vmfb) against `baseline`; results come back in the order given."""
        results: dict[int, Measurement] = {}
        pending = list(items)
        while pending:
            measured = self._run_worker(baseline, pending, plan)
            if not measured:  # the worker gave nothing back: do not retry forever
                measured = [Measurement(i, "run_error", detail="timing worker returned no result") for i, _ in pending]
            results.update((m.index, m) for m in measured)
            pending = [(i, p) for i, p in pending if i not in results]
        return [results[i] for i, _ in items]

    def _request(self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan) -> Path:
        request = {
            "device": self.device, "function": self.invocation.function,
            "inputs": [(str(f.path), f.shape, f.element_type) for f in self.invocation.inputs], "dispatch_level": self.invocation.dispatch_level,
            "baseline": str(baseline), "candidates": [(i, str(p)) for i, p in items],
            "rounds": plan.rounds, "round_seconds": plan.round_seconds, "min_calls": plan.min_calls,
            "max_calls": plan.max_calls, "slow_factor": plan.slow_factor,
        }
        fd, name = tempfile.mkstemp(prefix="timing_", suffix=".json", dir=self.work_dir)
        with os.fdopen(fd, "w") as handle:
            json.dump(request, handle)
        return Path(name)

    def _run_worker(self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan) -> list[Measurement]:
        """Run one worker until it finishes, crashes or stalls; return what it measured."""
        request = self._request(baseline, items, plan)
        per_candidate = STARTUP_SECONDS + plan.timeout_factor * plan.rounds * plan.round_seconds
        started = time.perf_counter()
        proc = spawn([sys.executable, "-m", "mltune.search.timing_worker", str(request)],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        done: list[Measurement] = []
        running: int | None = None
        deadline = time.monotonic() + per_candidate
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        try:
            while True:
                if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                    os.killpg(proc.pid, signal.SIGKILL)
                    if running is not None:
                        done.append(Measurement(running, "timeout", detail=f"no result within {per_candidate:.0f} s"))
                    elif not done:  # the baseline itself hangs: nothing can be measured
                        done.extend(Measurement(i, "timeout", detail="baseline did not run") for i, _ in items)
                    break
                line = proc.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                if "start" in message:
                    running = message["start"]
                    deadline = time.monotonic() + per_candidate
                else:
                    done.append(Measurement(message["index"], "ok", tuple(message["time_us"]), tuple(message["baseline_us"])))
                    running = None
            proc.wait()
            stderr = proc.stderr.read()
            if proc.returncode not in (0, -signal.SIGKILL):
                failed = [running] if running is not None else [i for i, _ in items if i not in {m.index for m in done}]
                tail = (stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1][:300]
                done.extend(Measurement(i, "run_error", detail=tail) for i in failed)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            selector.close()
            proc.stdout.close()
            proc.stderr.close()
            request.unlink(missing_ok=True)
            self.seconds_in_children += time.perf_counter() - started
        return done
