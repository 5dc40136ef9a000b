"""The whole-model profile as text: where the model spends its time and what each tuned problem gets of the
budget, shown before tuning starts."""

from __future__ import annotations

from typing import Sequence

from mltune.whole_model.budget import Allocation
from mltune.whole_model.profile import DispatchProfile


def _row(p: DispatchProfile) -> str:
    """One dispatch's line; one the profile could not time says why instead of a time and a share."""
    head, problem = f"  {p.name[:40]:<40} {p.op[:22]:<22}", p.problem_key or "not tunable"
    if not p.timed:
        return f"{head} {'-':>9} {p.calls:5d} {'-':>6}  {problem} (not timed: {p.untimed or 'no time'})"
    return f"{head} {p.time_us:9.1f} {p.calls:5d} {100 * p.share:5.1f}%  {problem}"


def profile_lines(
    profiles: Sequence[DispatchProfile], allocations: Sequence[Allocation], whole_model: bool
) -> list[str]:
    """The table of a model's dispatches (dumped benchmarks x calls per model run) and the budget split; nothing
    for one dispatch."""
    if not whole_model or len(profiles) <= 1:
        return []
    source = (
        "timed in runs of the model" if all(p.timed_in == "model" for p in profiles) else "dumped dispatch benchmarks"
    )
    lines = [
        "",
        f"Where the model spends its time ({source}, IREE default, x calls per model run):",
        f"  {'dispatch':<40} {'op':<22} {'us/call':>9} {'calls':>5} {'share':>6}  problem",
    ]
    lines += [_row(p) for p in profiles]
    lines += [
        f"  tune {a.problem.key} ({100 * a.problem.share:.1f} % of the time, {len(a.problem.dispatches)} "
        f"dispatch(es)): {a.budget} candidates"
        for a in allocations
    ]
    return [*lines, ""]
