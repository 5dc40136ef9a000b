"""`summary.json`: what a run found, as plain data, for scripts and for comparing runs."""

from __future__ import annotations

from statistics import median

from mltune.execution.build import NOT_APPLIED
from mltune.execution.measurement import Measurement
from mltune.frontend.problem import Untunable
from mltune.runs.report import TuneReport
from mltune.search.results import DispatchResult
from mltune.whole_model.fallback import Attempt
from mltune.whole_model.finish import RECOMMENDED
from mltune.whole_model.verify import EndToEnd


def baseline_us(
    results: list[DispatchResult], timing: EndToEnd | None = None, as_built: Measurement | None = None
) -> float:
    """IREE's default time of the input in-process: the median of the default's samples in the end-to-end timing
    where a model was timed end to end, else in the timing as the user builds it, else in the trials of `results`
    (give only searches that timed the input itself: a model stage that times each dispatch inside the model, or
    every dispatch repeated, has other baselines, and their median would report a dispatch's time as the model's);
    nan without any."""
    samples = [b for m in timing.measurements for b in m.baseline_us] if timing is not None else []
    samples = samples or (list(as_built.baseline_us) if as_built is not None else [])
    samples = samples or [b for r in results for t in r.trials if t.measurement for b in t.measurement.baseline_us]
    return median(samples) if samples else float("nan")


def _estimate_summary(measurement: Measurement) -> dict:
    """A measurement's speedup over its baseline, its interval and how loaded the machine was, as plain data."""
    estimate = measurement.estimate
    known = estimate.rounds > 0
    return {
        "speedup": estimate.speedup if known else None,
        "low": estimate.low if known else None,
        "high": estimate.high if known else None,
        "confidence": estimate.confidence,
        "rounds": estimate.rounds,
        "interval": estimate.describe(),
        "busy_cores": measurement.load if measurement.load == measurement.load else None,
    }


def _attempt_summary(attempt: Attempt) -> dict:
    """One result the final checks tried: each dispatch's finalist in it (rank 1: the search's winner), the verdict
    and the end-to-end (and per-call) estimates it rests on."""
    outcome = attempt.outcome
    end_to_end = outcome.timing.measurement(RECOMMENDED) if outcome.timing is not None else None
    return {
        "finalists": [
            {"dispatch": p.result.name, "problem": p.result.problem.key, "rank": p.rank + 1, "knobs": p.knobs}
            for p in attempt.picks
        ],
        "kept": attempt.kept,
        "withdrawn": outcome.withdrawn,
        "refused": outcome.refused,
        "end_to_end": None if end_to_end is None else _estimate_summary(end_to_end),
        "as_built": None if outcome.as_built is None else _estimate_summary(outcome.as_built),
        "per_call": None if outcome.per_call is None else _estimate_summary(outcome.per_call),
    }


def _model_summary(report: TuneReport) -> dict:
    """The whole-model part of `summary.json`: time shares, flags, the configs' check, numerics, end to end."""
    model = report.model
    return {
        "profile": [
            {
                "dispatch": p.name,
                "op": p.op,
                "problem": p.problem_key,
                "time_us": p.time_us if p.time_us == p.time_us else None,
                "calls": p.calls,
                "share": round(p.share, 4),
                "timed_in": p.timed_in,
            }
            for p in report.profiles
        ],
        "allocations": [
            {
                "problem": a.problem.key,
                "dispatches": list(a.problem.dispatches),
                "share": round(a.problem.share, 4),
                "budget": a.budget,
            }
            for a in report.allocations
        ],
        "flags": None
        if report.flags is None
        else {
            "kept": list(report.flags.flags),
            "measured": {n: _estimate_summary(m) for n, m in report.flags.measured.items()},
            "failed": report.flags.failed,
            "screened": {n: _estimate_summary(m) for n, m in report.flags.screened.items()},
        },
        "config_check": None
        if model is None
        else {
            "method": model.check.method,
            "kept": [c.problem.key for c in model.check.kept],
            "dropped": model.check.dropped,
            "gain": model.check.ratios,
            "gain_is": model.check.ratio_of,
            "note": model.check.note,
            "overruled": model.overruled,
        },
        "numerics": None
        if model is None or model.numerics is None
        else {"ok": model.numerics.ok, "detail": model.numerics.detail},
        "default_vs_host": report.host.line if report.host else None,
        "end_to_end": None
        if model is None or model.timing is None
        else {
            label: {**_estimate_summary(m), "time_us": list(m.time_us), "default_us": list(m.baseline_us)}
            for label, m in zip(model.timing.labels, model.timing.measurements)
        },
        "as_built": None if model is None or model.as_built is None else _estimate_summary(model.as_built),
        "refused": model.refused if model else "",
        "withdrawn": model.withdrawn if model else "",
        "attempts": [_attempt_summary(a) for a in report.attempts],  # more than one: the first was withdrawn
        "compile_command": report.command,
        "kernel_timing": None
        if report.kernel_timing is None
        else {"repeat": report.kernel_timing.repeat, "overhead_per_kernel": report.kernel_timing.overhead_per_kernel},
        "per_call": None if model is None or model.per_call is None else _estimate_summary(model.per_call),
        "inputs": {
            "arguments": list(report.arguments),
            "generated": any(": generated" in a for a in report.arguments),
            "parameters": [p.flag for p in report.parameters],
        },
    }


def summary(report: TuneReport) -> dict:
    """The run's outcome as plain data (written to `summary.json`)."""
    return {
        "level": report.input_level,
        "baseline_us": report.baseline_us,
        "spec": str(report.spec_path) if report.spec_path else None,
        "wall_seconds": round(report.wall_seconds, 2),
        "stage_seconds": {name: round(seconds, 2) for name, seconds in report.stage_seconds.items()},
        "time_budget": report.time_budget,
        "tuner_overhead_fraction": round(report.overhead_fraction, 4),
        "untunable": [
            {"dispatch": d.name, "op": d.problem.op_name, "reason": d.problem.reason}
            for d in report.dispatches
            if isinstance(d.problem, Untunable)
        ],
        "dispatches": [
            {
                "dispatch": r.name,
                "problem": r.problem.key,
                "candidates": r.candidates,
                "compiled": sum(1 for t in r.trials if t.build.status in ("ok", NOT_APPLIED)),
                "tried": len(r.trials),
                "not_applied": sum(1 for t in r.trials if t.build.status == NOT_APPLIED),
                "benchmarked": r.benchmarked,
                "stop_reason": r.stop_reason,
                "finalists": [{"knobs": t.knobs, **_estimate_summary(m)} for t, m in r.finals],
                "winner": ({"knobs": r.winner[0].knobs, **_estimate_summary(r.winner[1])} if r.winner else None),
                "numerics": report.numerics.get(r.name),
            }
            for r in report.results
        ],
        **(_model_summary(report) if report.input_level == "model" else {}),
    }
