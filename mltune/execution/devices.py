"""Runtime devices: checking that they exist, and spreading benchmarks over several of them.

Each device runs one benchmark at a time (its own `Runner`); a candidate is always timed
against the baseline on the same device, so its ratio is normalised per device and ratios
from different devices can be compared.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from mltune.errors import UserError
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import OnResult, Runner
from mltune.execution.timing_process import KeptWorker
from mltune.input.tuning_input import Invocation
from mltune.targets import GpuTarget, Target


def parse_devices(text: str | None, target: Target) -> tuple[str, ...]:
    """The runtime devices a comma-separated `--devices` names; none given: the target's first device
    (`local-task` for a CPU, `hip://0` or `cuda://0` for a GPU)."""
    if text is None:
        return (f"{target.runtime_driver}://0",) if isinstance(target, GpuTarget) else ("local-task",)
    devices = tuple(d.strip() for d in text.split(",") if d.strip())
    if not devices:
        raise UserError("--devices: expected one or more devices such as hip://0,hip://1")
    return devices


def check_device(uri: str) -> None:
    """Fail in one line when IREE's runtime cannot open `uri` (e.g. `hip://0` on a machine without a GPU)."""
    import iree.runtime as rt

    try:
        rt.get_device(uri, cache=False)
    except (RuntimeError, ValueError) as err:
        reason = next(
            (line.strip() for line in str(err).splitlines() if "UNAVAILABLE" in line or "not" in line),
            str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__,
        )
        raise UserError(f"no runtime device {uri}: {reason[:300].rstrip(': ')}") from None


@dataclass
class RunnerPool:
    """Several devices: the candidates of a batch are dealt out round-robin, one worker per device."""

    runners: list[Runner]
    seconds_in_children: float = field(default=0.0)

    def measure(
        self, baseline: Path, items: Sequence[tuple[int, Path]], plan: TimingPlan, on_result: OnResult | None = None
    ) -> list[Measurement]:
        """As `Runner.measure`; `on_result` is called from one device's thread at a time."""
        shares = [list(items[i :: len(self.runners)]) for i in range(len(self.runners))]
        lock = threading.Lock()

        def report(measurement: Measurement) -> None:
            with lock:
                if on_result is not None:
                    on_result(measurement)

        started = time.perf_counter()
        with ThreadPoolExecutor(len(self.runners)) as pool:
            parts = list(
                pool.map(
                    lambda pair: pair[0].measure(baseline, pair[1], plan, report) if pair[1] else [],
                    zip(self.runners, shares),
                )
            )
        self.seconds_in_children += time.perf_counter() - started
        by_index = {m.index: m for part in parts for m in part}
        return [by_index[i] for i, _ in items]

    def close(self) -> None:
        for runner in self.runners:
            runner.close()


def make_runner(invocation: Invocation, devices: Sequence[str], work_dir: Path) -> Runner | RunnerPool:
    """One `Runner` for one device, a `RunnerPool` for several; each keeps its timing worker from one benchmark
    phase to the next (`KeptWorker`)."""
    runners = [Runner(invocation, device, work_dir, kept=KeptWorker()) for device in devices]
    return runners[0] if len(runners) == 1 else RunnerPool(runners)
