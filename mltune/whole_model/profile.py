"""Where a model spends its time: per-dispatch time x how often the model calls it.

Where the device's HAL profiles dispatches (`mltune.whole_model.in_model`: llvm-cpu), both come from runs of the
model itself, IREE's default build (`rank_in_model`). Elsewhere each dumped dispatch benchmark is compiled as dumped
(IREE's default configuration) and timed with `iree-benchmark-module`; the call counts come from the model's flow
IR, where every `flow.dispatch @executable::@entry` is one call. Dumped benchmarks read never-written memory and can
run far from their time in the model (docs/dispatch-benchmarks-vs-model.md), so the shares rank dispatches; they are
not a prediction of the model's time. Dispatches inside loops are counted once (flow IR is read statically).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import SimpleQueue
from typing import Sequence

from joblib import Parallel, delayed

from mltune.errors import UserError
from mltune.frontend.dump_constants import restore_dropped_constants
from mltune.frontend.mlir import ELIDE_WEIGHTS
from mltune.frontend.problem import Problem
from mltune.input.tuning_input import executable_flags, strip_configuration
from mltune.whole_model.in_model import FunctionTime, NotProfiled
from mltune.system.tools import run_compiler, run_tool, tool_path

NamedDispatch = tuple[str, Path, str, Problem | None]  # a dumped dispatch: name, benchmark, root op, its problem

_FLOW_DISPATCH = re.compile(r"flow\.dispatch @([\w$.-]+)::")
_EXECUTABLE = re.compile(r"^(.+?_dispatch_\d+)_")  # a dump's name: the executable, then the target's variant
# a global initializer's dispatch (e.g. a decoder's rotary tables computed from constants) runs when the module loads
INITIALIZER_PREFIX = "_initializer_"
ONCE_AT_LOAD = "a global initializer's: it runs once as the module loads, not in a call"
PROFILE_TIMEOUT_S = 120
REPETITION_SECONDS = 0.1  # per repetition of a dump's timing (`time_dispatch`): `profile_min_time.py` measured it


@dataclass(frozen=True)
class DispatchProfile:
    """One dispatch's part of the model: its time per call (dump, IREE default), calls, share of the total; a
    dispatch the profile could not time has NaN for its time, share 0 and `untimed` says why."""

    name: str
    op: str
    problem_key: str | None  # None when the root op is not tunable
    time_us: float
    calls: int
    share: float
    untimed: str = ""
    timed_in: str = "dump"  # "model": timed inside a run of the whole model (`mltune.whole_model.in_model`)

    @property
    def timed(self) -> bool:
        return not self.untimed and self.time_us == self.time_us

    @property
    def total_us(self) -> float:
        return self.time_us * self.calls


def call_counts(source: Path, compile_flags: Sequence[str], work_dir: Path) -> Counter[str]:
    """How often the model calls each executable, read from `iree-compile --compile-to=flow`."""
    flow = work_dir / "model.flow.mlir"
    result = run_compiler(
        [tool_path("iree-compile"), str(source), *compile_flags, "--compile-to=flow", *ELIDE_WEIGHTS, "-o", str(flow)],
        timeout_s=PROFILE_TIMEOUT_S,
    )
    if not result.ok:
        raise UserError(f"iree-compile cannot lower {source} to flow: {result.describe_failure()}")
    return Counter(_FLOW_DISPATCH.findall(flow.read_text()))


def executable_of(dispatch_name: str, executables: Sequence[str]) -> str | None:
    """The flow executable a dumped benchmark belongs to (`main_dispatch_1_embedded_elf_x86_64` ->
    `main_dispatch_1`): the longest executable name that is a `_`-terminated prefix."""
    matches = [e for e in executables if dispatch_name == e or dispatch_name.startswith(e + "_")]
    return max(matches, key=len) if matches else None


def _compile_bench(bench: Path, out: Path, flags: Sequence[str] = ()) -> tuple[Path, str]:
    """Compile a dumped benchmark as dumped (with the constants the dump dropped restored); if IREE cannot compile
    its own dumped configuration (seen on convolutions: the large-vector check fails), strip it and let IREE
    configure again; both built as a dump is (`executable_flags`: `flags`, the user's, from the dump's phase). The
    second item is why it does not compile ("" when it does)."""
    bench = restore_dropped_constants(bench, out.with_suffix(".constants.mlir"))
    flags = executable_flags(flags)
    result = run_compiler([tool_path("iree-compile"), str(bench), *flags, "-o", str(out)], timeout_s=PROFILE_TIMEOUT_S)
    if result.ok:
        return out, ""
    stripped = out.with_suffix(".stripped.mlir")
    try:
        strip_configuration(bench, stripped)
    except UserError:
        return out, result.describe_failure()
    retry = run_compiler(
        [tool_path("iree-compile"), str(stripped), *flags, "-o", str(out)], timeout_s=PROFILE_TIMEOUT_S
    )
    return out, "" if retry.ok else result.describe_failure()


def _message(failure: str) -> str:
    """A tool's failure without the file location that precedes its diagnostic (`exit code 1: x.mlir:3:5: error: M`
    -> `M`)."""
    return re.sub(r"^.*?: error: ", "", failure)


def time_dispatch(vmfb: Path, device: str, min_time_s: float | None = REPETITION_SECONDS) -> tuple[float, str]:
    """Microseconds per call of a compiled dispatch benchmark: the fastest of three repetitions of at least
    `min_time_s` each (None: the benchmark library's 0.5 s); or NaN and why it did not run (the dispatch is then
    listed untimed rather than stopping the run)."""
    least = [f"--benchmark_min_time={min_time_s}s"] if min_time_s is not None else []
    result = run_tool(
        [
            tool_path("iree-benchmark-module"),
            f"--module={vmfb}",
            f"--device={device}",
            "--batch_size=20",
            "--benchmark_repetitions=3",
            "--benchmark_format=json",
            *least,
        ],
        timeout_s=PROFILE_TIMEOUT_S,
    )
    if not result.ok:
        return float("nan"), f"iree-benchmark-module failed: {_message(result.describe_failure())}"
    try:
        rows = [
            b
            for b in json.loads(result.stdout)["benchmarks"]
            if b.get("run_type") == "iteration" and not b.get("error_occurred")
        ]
    except (ValueError, KeyError, TypeError):
        return float("nan"), "iree-benchmark-module printed no benchmark results"
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    times = [b["real_time"] * scale[b["time_unit"]] for b in rows if b.get("time_unit") in scale]
    if not times:
        return float("nan"), "iree-benchmark-module timed no call"
    return min(times), ""


def profile_model(
    dispatches: Sequence[tuple[str, Path, str, Problem | None]],
    counts: Counter[str],
    devices: Sequence[str],
    work_dir: Path,
    jobs: int,
) -> list[DispatchProfile]:
    """Time every (name, benchmark file, root op name, problem) and rank by share of the model.

    Benchmarks compile in parallel, then run one at a time per device (never beside a compile).
    """
    return rank_dispatches(dispatches, compile_dispatches(dispatches, work_dir, jobs), counts, devices)


def compile_dispatches(
    dispatches: Sequence[tuple[str, Path, str, Problem | None]], work_dir: Path, jobs: int, flags: Sequence[str] = ()
) -> list[tuple[Path, str]]:
    """Each dispatch benchmark compiled as dumped (with `flags` added: the user's `--iree-flag`), in parallel:
    (module, error or "")."""
    work_dir.mkdir(parents=True, exist_ok=True)
    return Parallel(n_jobs=jobs, prefer="threads")(
        delayed(_compile_bench)(bench, work_dir / f"{name}.vmfb", flags) for name, bench, _, _ in dispatches
    )


def rank_dispatches(
    dispatches: Sequence[tuple[str, Path, str, Problem | None]],
    built: Sequence[tuple[Path, str]],
    counts: Counter[str],
    devices: Sequence[str],
) -> list[DispatchProfile]:
    """Time each compiled dispatch (`compile_dispatches`) once and rank by share of the model. Each device times one
    dump at a time; several devices (a host's GPUs, alike) share the dumps: on one GPU a dump's process, CUDA context
    and PTX assembly take about a second (docs/scaling.md)."""
    executables = list(counts)
    distinct = list(dict.fromkeys(devices))
    free: SimpleQueue[str] = SimpleQueue()
    for device in distinct:
        free.put(device)

    def timed(vmfb: Path, error: str) -> tuple[float, str]:
        if error:
            return float("nan"), f"its dump does not compile: {_message(error)}"
        device = free.get()
        try:
            return time_dispatch(vmfb, device)
        finally:
            free.put(device)

    with ThreadPoolExecutor(max_workers=len(distinct)) as pool:
        times = list(pool.map(timed, *zip(*built))) if built else []
    rows = []
    for (name, _, op, problem), (time_us, untimed) in zip(dispatches, times):
        executable = executable_of(name, executables)
        calls = counts[executable] if executable else 1
        rows.append((name, op, problem.key if problem else None, time_us, calls, untimed))
    total = sum(t * c for _, _, _, t, c, why in rows if not why) or 1.0
    profiles = [DispatchProfile(n, op, key, t, c, 0.0 if why else t * c / total, why) for n, op, key, t, c, why in rows]
    return sorted(profiles, key=lambda p: (not p.timed, -p.share))  # not timed: share 0, listed last


def rank_in_model(dispatches: Sequence[NamedDispatch], times: Sequence[FunctionTime]) -> list[DispatchProfile]:
    """Each dumped dispatch's calls, time and share from its executable's exports in a profiled run of the model
    (`in_model.profile_in_model`), shares of all the model's dispatch time; NotProfiled when a dispatch is missing
    from the profile (the caller then times the dumps)."""
    total = sum(t.total_us for t in times) or 1.0
    profiles = []
    for name, _, op, problem in dispatches:
        executable = _EXECUTABLE.match(name)
        exports = [t for t in times if executable and t.function.startswith(executable.group(1) + "_")]
        if not exports and name.startswith(INITIALIZER_PREFIX):  # runs once, as the module loads: no part of a call
            profiles.append(
                DispatchProfile(
                    name, op, problem.key if problem else None, float("nan"), 0, 0.0, ONCE_AT_LOAD, timed_in="model"
                )
            )
            continue
        if not exports:
            raise NotProfiled(f"{name} is not in the model's profile")
        calls, total_us = sum(t.calls for t in exports), sum(t.total_us for t in exports)
        profiles.append(
            DispatchProfile(
                name, op, problem.key if problem else None, total_us / calls, calls, total_us / total, timed_in="model"
            )
        )
    return sorted(profiles, key=lambda p: (not p.timed, -p.share))


def problem_times(dispatches: Sequence[NamedDispatch], times: Sequence[FunctionTime]) -> dict[str | None, float]:
    """Microseconds per model call of each problem's dispatches in a profiled run of the model (key None: the
    dispatches no problem describes)."""
    totals: dict[str | None, float] = defaultdict(float)
    for profile in rank_in_model(dispatches, times):
        if profile.timed:
            totals[profile.problem_key] += profile.total_us
    return totals
