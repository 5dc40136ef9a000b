"""A timing worker's process, as the parent sees it: its deadline, its output line by line, and a worker kept from
call to call (`mltune.execution.timing_worker` is the child's side)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from mltune.system.tools import kill_group, spawn

STARTUP_SECONDS = 30.0
PACE_FACTOR = 3.0


class PacedPlan(Protocol):
    """What a deadline needs of a timing plan (`mltune.execution.runner.TimingPlan`)."""

    rounds: int
    round_seconds: float
    min_calls: int
    timeout_factor: float

    @property
    def most_rounds(self) -> int: ...


@dataclass
class Pace:
    """How long the timing worker may go without a word: long enough for its plan's rounds at the pace it reports.

    A round lasts `round_seconds` only while a call is short; it holds at least two pairs (`TimingPlan`), so a whole
    model's call of seconds makes three rounds outlast what a screening plan allows (ViT-B/16's did:
    `docs/results.md`). The worker reports its baseline's call time after the first call and again with its calls
    per round once measured (`timing_worker`), and each report moves the deadline: `PACE_FACTOR` times the rounds
    (with the few a disturbed round adds) at that pace, where that is longer than the plan's own allowance (a
    candidate far slower than the baseline stops after its first round)."""

    plan: PacedPlan
    call_s: float = 0.0
    calls: int = 0  # pairs per round, once the worker has said

    def heard(self, message: dict) -> None:
        self.call_s = float(message["call_s"])
        self.calls = int(message.get("calls", self.calls))

    @property
    def seconds(self) -> float:
        plan = self.plan
        rounds = plan.most_rounds + plan.rounds // 2 + 1  # the worker measures a disturbed round again
        paced = rounds * 2 * (self.calls or plan.min_calls) * self.call_s
        return STARTUP_SECONDS + max(plan.timeout_factor * plan.most_rounds * plan.round_seconds, PACE_FACTOR * paced)


@dataclass
class TimingProcess:
    """A running timing worker: its process, its pace, and its output read line by line as it comes (a buffered
    reader could hold a line back while `select` waits for the next)."""

    proc: subprocess.Popen
    pace: Pace
    request: Path
    stderr: Path
    selector: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    pending: bytes = b""
    heard: int = 0  # messages of the batch in hand

    @staticmethod
    def start(request: Path, pace: Pace, keep: bool) -> TimingProcess:
        stderr = request.with_suffix(".stderr")
        with open(stderr, "wb") as errors:  # a file: a worker kept for long could fill a pipe's buffer
            proc = spawn(
                [sys.executable, "-m", "mltune.execution.timing_worker", str(request)],
                death_signal=not keep,
                stdin=subprocess.PIPE if keep else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                bufsize=0,
            )
        worker = TimingProcess(proc, pace, request, stderr)
        worker.selector.register(proc.stdout, selectors.EVENT_READ)
        return worker

    def send(self, batch: dict) -> bool:
        """Hand a kept worker its next batch; False when it is gone."""
        try:
            self.proc.stdin.write((json.dumps(batch) + "\n").encode())
            self.heard = 0
            return True
        except (BrokenPipeError, OSError):
            return False

    def next_message(self, deadline: float) -> dict | None:
        """The worker's next line, None once its output ends; TimeoutError past `deadline`."""
        while b"\n" not in self.pending:
            if not self.selector.select(timeout=max(0.0, deadline - time.monotonic())):
                raise TimeoutError
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        self.heard += 1
        return json.loads(line)

    def error_tail(self) -> str:
        text = self.stderr.read_text(errors="replace") if self.stderr.exists() else ""
        return (text.strip().splitlines() or [f"exit code {self.proc.returncode}"])[-1][:300]

    def close(self) -> None:
        if self.proc.poll() is None:
            kill_group(self.proc)
        self.proc.wait()
        self.selector.close()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.request.unlink(missing_ok=True)
        self.stderr.unlink(missing_ok=True)


@dataclass
class KeptWorker:
    """One timing worker kept from call to call on one device, shared by that device's runners: it sets up the
    device context once and each workload (baseline, arguments, weights) once. A worker's start (a new process,
    IREE's runtime, a device context) costs more than timing a small candidate, and a Ray benchmark actor times many
    short calls for several workloads: each dispatch's screen against its own small module, then the finalists in
    the whole model (`docs/scaling.md`)."""

    worker: TimingProcess | None = None

    def take(self) -> TimingProcess | None:
        """The worker, if it is still running (the caller gives it back with `keep`)."""
        worker, self.worker = self.worker, None
        if worker is not None and worker.proc.poll() is not None:
            worker.close()
            return None
        return worker

    def keep(self, worker: TimingProcess) -> None:
        self.close()
        self.worker = worker

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None
