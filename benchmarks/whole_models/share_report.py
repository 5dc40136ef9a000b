"""The tables `model_tunable_share.py` prints: the model's share per root op kind (or reason it is not tunable) and
per dispatch, by time where timed and by FLOPs and bytes, then the tunable share."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from whole_models.dispatch_cost import DispatchCost

from mltune.frontend.problem import Problem
from mltune.whole_model.profile import DispatchProfile

CONVOLUTION_KINDS = ("convolution", "depthwise_convolution")
UNTUNABLE = ("not tunable", "no root op")
DISPATCH_ONLY = "as its dispatch only: "  # tunable from its dumped dispatch, not in the model (`model_tunable_share`)


@dataclass(frozen=True)
class Dispatch:
    """One dumped dispatch: its root op, its op kind or why it is not tunable, its work per call and its calls."""

    name: str
    bench: Path
    op: str
    kind: str
    problem: Problem | None
    cost: DispatchCost
    calls: int


def _shares(dispatches: Sequence[Dispatch], weight: Callable[[Dispatch], float]) -> dict[str, float]:
    """Each dispatch's share of the model's total `weight` (per call, times its calls)."""
    total = sum(weight(d) * d.calls for d in dispatches) or 1.0
    return {d.name: weight(d) * d.calls / total for d in dispatches}


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def print_report(dispatches: Sequence[Dispatch], profiles: Sequence[DispatchProfile]) -> None:
    """Per kind, per dispatch (largest first), then the tunable shares; the time columns only when timed."""
    timed = {p.name: p for p in profiles}
    columns = {
        "FLOPs": _shares(dispatches, lambda d: d.cost.flops),
        "bytes": _shares(dispatches, lambda d: d.cost.bytes),
    }
    if timed:
        columns = {"time": {name: p.share for name, p in timed.items()}, **columns}
    by_kind: dict[str, dict[str, float]] = {c: defaultdict(float) for c in columns}
    count: dict[str, int] = defaultdict(int)
    for d in dispatches:
        count[d.kind] += 1
        for column, shares in columns.items():
            by_kind[column][d.kind] += shares[d.name]
    first = next(iter(columns))
    print(
        f"{len(dispatches)} dispatches, {sum(d.calls for d in dispatches)} calls, per model call "
        f"{sum(d.cost.flops * d.calls for d in dispatches) / 1e9:.2f} GFLOP and "
        f"{sum(d.cost.bytes * d.calls for d in dispatches) / 1e6:.1f} MB read and written"
    )
    header = " | ".join(f"share of the model's {c}" for c in columns)
    print(f"| root op kind or reason | dispatches | {header} |\n|{' --- |' * (2 + len(columns))}")
    for kind in sorted(count, key=lambda k: -by_kind[first][k]):
        print(f"| {kind} | {count[kind]} | " + " | ".join(_percent(by_kind[c][kind]) for c in columns) + " |")
    time_header = "time us x calls | " if timed else ""
    print(
        f"| dispatch | root op | kind or reason | {time_header}GFLOP x calls | MB x calls | {header} |\n"
        f"|{' --- |' * (5 + len(columns) + bool(timed))}"
    )
    for d in sorted(dispatches, key=lambda d: -columns[first][d.name]):
        profile = timed.get(d.name)
        time = (
            f"untimed: {profile.untimed} | "
            if profile and not profile.timed
            else f"{profile.time_us:.1f} x {d.calls} | "
            if profile
            else ""
        )
        print(
            f"| {d.name} | {d.op} | {d.kind} | {time}{d.cost.flops / 1e9:.4f} x {d.calls} | "
            f"{d.cost.bytes / 1e6:.2f} x {d.calls} | "
            + " | ".join(_percent(columns[c][d.name]) for c in columns)
            + " |"
        )
    for column in columns:
        tunable = sum(v for k, v in by_kind[column].items() if not k.startswith(UNTUNABLE))
        convolutions = sum(v for k, v in by_kind[column].items() if k.removeprefix(DISPATCH_ONLY) in CONVOLUTION_KINDS)
        print(
            f"tunable by {column}: {_percent(tunable)} (without the convolution kinds: {_percent(tunable - convolutions)})"
        )
        alone = sum(v for k, v in by_kind[column].items() if k.startswith(DISPATCH_ONLY))
        if alone:
            in_model = _percent(tunable - alone)
            print(f"  of which as dispatches only: {_percent(alone)}; tunable in the model: {in_model}")
