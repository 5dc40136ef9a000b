"""Where a model spends its time: each dispatch's share, the basis of the budget split, measured once per run
directory (a resumed run splits its budget as the run it continues did)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from mltune.frontend.problem import Problem
from mltune.input.tuning_input import TuningInput
from mltune.whole_model.budget import Allocation, problem_shares, select, split_budget
from mltune.whole_model.profile_table import profile_lines
from mltune.system.progress import display
from mltune.tuning.request import TuneRequest
from mltune.whole_model.in_model import NotProfiled, profile_in_model, profiling_mode
from mltune.whole_model.profile import DispatchProfile, NamedDispatch, call_counts, profile_model, rank_in_model
from mltune.input.dispatches import Dispatch


def named_dispatches(tuning_input: TuningInput, dispatches: list[Dispatch]) -> list[NamedDispatch]:
    """Each dumped dispatch with a root op: its name, benchmark, root op and problem (a dispatch with several root
    ops is listed under its first tunable one)."""
    named = []
    for bench in tuning_input.dispatch_files:
        roots = [d for d in dispatches if d.bench == bench]
        if roots:
            root = next((d for d in roots if isinstance(d.problem, Problem)), roots[0])
            problem = root.problem if isinstance(root.problem, Problem) else None
            named.append((root.name, bench, root.problem.op_name, problem))
    return named


def _measured_shares(
    tuning_input: TuningInput,
    dispatches: list[Dispatch],
    devices: Sequence[str],
    run_dir: Path,
    jobs: int,
    default_vmfb: Path,
) -> list[DispatchProfile]:
    """Each dispatch's share of the model's time: in runs of IREE's default build where the first device profiles
    dispatches, else on the dumps, shared among the devices; a single dispatch needs no measurement."""
    named = named_dispatches(tuning_input, dispatches)
    if tuning_input.invocation.dispatch_level or len(named) <= 1:
        return [DispatchProfile(n, op, p.key if p else None, float("nan"), 1, 1.0) for n, _, op, p in named]
    if profiling_mode(devices[0]) is not None:
        try:
            return rank_in_model(
                named, profile_in_model(default_vmfb, tuning_input.invocation, devices[0], run_dir / "profile")
            )
        except NotProfiled as why:
            print(f"note: each dispatch is timed on its dump instead: {why}")
    counts = call_counts(tuning_input.source, tuning_input.compile_flags, run_dir)
    return profile_model(named, counts, devices, run_dir / "profile", jobs)


def cached_shares(
    tuning_input: TuningInput,
    dispatches: list[Dispatch],
    devices: Sequence[str],
    run_dir: Path,
    jobs: int,
    default_vmfb: Path,
) -> list[DispatchProfile]:
    """The model's time shares, read back from `run_dir` when an earlier run there measured them."""
    path = run_dir / "profile.json"
    if path.is_file():
        try:
            return [DispatchProfile(**row) for row in json.loads(path.read_text())]
        except (ValueError, TypeError):
            pass  # unreadable: measure it again
    profiles = _measured_shares(tuning_input, dispatches, devices, run_dir, jobs, default_vmfb)
    path.write_text(json.dumps([asdict(p) for p in profiles]))
    return profiles


def profile_and_allocate(
    tuning_input: TuningInput, dispatches: list[Dispatch], request: TuneRequest, default_vmfb: Path, whole_model: bool
) -> tuple[list[DispatchProfile], list[Allocation]]:
    """Stage three: each dispatch's share of the time (shown as a table) and the budget split by it."""
    with display().phase("profile: time each dispatch"):
        profiles = cached_shares(tuning_input, dispatches, request.devices, request.run_dir, request.jobs, default_vmfb)
    allocations = split_budget(select(problem_shares(profiles), request.top), request.settings.budget)
    display().table(profile_lines(profiles, allocations, whole_model))
    return profiles, allocations
