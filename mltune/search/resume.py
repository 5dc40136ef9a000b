"""Continuing an interrupted run: the trials its records already hold, so that none is measured again.

A record is a trial of this run when it names the same problem, the same compiler and the same
device: what an earlier run measured under another compiler or on another machine says nothing
about this one. Ratios stay valid across runs because each was measured against the baseline in
its own process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from mltune.execution.build import NOT_APPLIED, BuildResult
from mltune.execution.measurement import Measurement
from mltune.frontend.problem import Problem
from mltune.records.dataset import RecordWriter, knobs_over, read_records
from mltune.search.results import Trial
from mltune.spaces.candidate import CandidateSet, Configurator

BUILD_FAILURES = ("compile_error", "timeout", NOT_APPLIED)  # concluded at the build: never timed


def _trial(
    record: dict[str, Any],
    index: int,
    knobs: dict[str, int],
    configurator: Configurator,
    vmfb_of: Callable[[int], Path],
) -> Trial:
    status = record["status"]
    info = configurator.compilation_info(knobs)
    if status in BUILD_FAILURES and str(record.get("detail", "")).startswith("compile"):
        return Trial(
            index, int(record["position"]), knobs, BuildResult(index, status, None, detail=record["detail"]), None, info
        )
    measurement = Measurement(
        index,
        status,
        tuple(map(float, record.get("time_us") or ())),
        tuple(map(float, record.get("baseline_us") or ())),
        str(record.get("detail", "")),
        tuple(map(float, record.get("busy_cores") or ())),
    )
    vmfb = vmfb_of(index)
    return Trial(
        index,
        int(record["position"]),
        knobs,
        BuildResult(index, "ok", vmfb if vmfb.exists() else None),
        measurement,
        info,
    )


def earlier_trials(
    records: Iterable[dict[str, Any]],
    problem: Problem,
    candidates: CandidateSet,
    configurator: Configurator,
    compiler: str,
    device: str,
    vmfb_of: Callable[[int], Path],
    screen: str = "",
) -> list[Trial]:
    """The trials of `problem` among `records` (same compiler and device, timed on the same `screen`: "" for the
    input itself), in the order they were recorded, each candidate once; `vmfb_of(index)` is where the earlier run
    left the candidate's module."""
    trials: dict[int, Trial] = {}
    for record in records:
        if record.get("compiler") != compiler or record.get("device") != device or record.get("screen", "") != screen:
            continue
        try:
            if Problem.from_record(record["problem"]).key != problem.key:
                continue
            knobs = knobs_over(record["knobs"], candidates.names)
            index = candidates.index_of(knobs) if knobs is not None else None
            if index is not None and index not in trials:
                trials[index] = _trial(record, index, knobs, configurator, vmfb_of)
        except (KeyError, TypeError, ValueError):
            continue  # a record this version cannot read is measured again, not trusted
    return sorted(trials.values(), key=lambda t: t.position)


def _key(record: dict[str, Any]) -> str:
    return repr(
        (
            sorted(record.get("problem", {}).items()),
            sorted(record.get("knobs", {}).items()),
            record.get("position"),
            record.get("timestamp"),
        )
    )


def reconcile(files: Sequence[Path]) -> list[dict[str, Any]]:
    """The records of a run that are in any of its record files, each appended to the files that lack it: a kill
    between the appends of one record to both files leaves one file a record short, and that record was measured."""
    held = [{_key(r): r for r in read_records(path)} if path.is_file() else {} for path in files]
    union: dict[str, dict[str, Any]] = {}
    for records in held:
        union.update(records)
    for path, records in zip(files, held):
        missing = [r for key, r in union.items() if key not in records]
        if missing:
            writer = RecordWriter(path)
            for record in missing:
                writer.append_json(record)
            writer.close()
    return sorted(union.values(), key=lambda r: (r.get("timestamp", 0.0), r.get("position", 0)))
