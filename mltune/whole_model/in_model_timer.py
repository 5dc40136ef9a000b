"""Builds of one model profiled in turn, round by round, each problem's dispatches timed inside the model.

Each round profiles the reference build first and then every other build (`mltune.whole_model.in_model`), so a problem's
time in a build is compared with its time in the reference build of the same round: the machine's drift between
rounds cancels in the ratio, as it does for interleaved whole-model timing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mltune.errors import RunFailure
from mltune.input.tuning_input import Invocation
from mltune.whole_model.in_model import NotProfiled, profile_in_model
from mltune.whole_model.profile import NamedDispatch, problem_times

ROUNDS = 5

ProblemTimes = dict[str | None, float]  # microseconds per model call of each problem's dispatches (None: the others)


@dataclass(frozen=True)
class InModelTimer:
    """Profiles builds of the model that `invocation` runs on `device`; `dispatches` as `rank_in_model` takes them."""

    invocation: Invocation
    device: str
    dispatches: Sequence[NamedDispatch]
    work_dir: Path
    rounds: int = ROUNDS

    def problem_times(self, vmfb: Path, name: str) -> ProblemTimes:
        try:
            return problem_times(
                self.dispatches, profile_in_model(vmfb, self.invocation, self.device, self.work_dir / "profiles" / name)
            )
        except NotProfiled as why:  # the reference build profiled before this: a run failure, never a traceback
            raise RunFailure(f"timing inside the model failed: {why}") from None

    def time(
        self, reference: Path, builds: Sequence[tuple[int, Path]], first_round: int = 0
    ) -> tuple[list[ProblemTimes], dict[int, list[ProblemTimes]]]:
        """Per round, the reference build and then each build (by its index): each problem's time per model call.
        `first_round` numbers the rounds of a later look on from the earlier ones."""
        times: tuple[list[ProblemTimes], dict[int, list[ProblemTimes]]] = ([], {index: [] for index, _ in builds})
        for round_ in range(first_round, first_round + self.rounds):
            times[0].append(self.problem_times(reference, f"{round_}_reference"))
            for index, vmfb in builds:
                times[1][index].append(self.problem_times(vmfb, f"{round_}_{index}"))
        return times
