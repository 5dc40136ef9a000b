"""Each config's gain measured inside the model, in one build, where the device times each dispatch in the model
(`mltune.whole_model.in_model`): the build with every config and the build with none are profiled in turn, and a config's
gain is its problem's dispatches' time in the second over the first, round by round.

Leave-one-out asks the same of the whole model, with one build per config: it took most of a screened run, and its
ratios sat in the whole model's own noise (a config is worth about as much of the model as the model's timing
spreads), so one slow reading of the build with all dropped configs that together made the model faster than the
few it kept (docs/whole-model-tuning.md). Inside the model each config is timed on its own dispatches, among all
the others, so the caches they leave it are the model's.

What a dispatch's own time cannot show is a config that slows the dispatches around it. Those are timed too: when
the dispatches no config touches run slower beyond the noise with all configs in, the configs are halved and each
half is built and profiled against none: a half whose others hold their speed decides by each config's own
dispatches, one that still slows them is kept or dropped whole, by all of the model's dispatches. Two builds, where
leave-one-out compiled and timed the whole model once per config. Halving on, down to single configs, took several
levels of builds and decided by noise: it dropped a config on one reading that the end-to-end timing then put back
(docs/whole-model-tuning.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from mltune.execution.build import Builder
from mltune.execution.verdict import SpeedupEstimate
from mltune.whole_model.in_model_timer import InModelTimer, ProblemTimes
from mltune.whole_model.verify import Config, ConfigCheck, Merge
from mltune.system.progress import display

IN_MODEL = "inside the model"
DEFAULT_OVER_ALL = "its dispatches' time inside the model without the configs / with all"
OTHERS_SLOWER = 0.98  # the other dispatches' speedup below which, beyond the noise, the configs are halved
HALVING_LEVELS = 1  # then a group is judged by the whole model's dispatches: deeper, the groups decided by noise


Profiles = tuple[list[ProblemTimes], list[ProblemTimes]]  # per round: a build with some configs, the build with none
TimeGroups = Callable[[Sequence[Sequence[Config]], int], Sequence[Profiles | None]]  # None: that build failed


@dataclass(frozen=True)
class InModelCheck:
    """`CheckConfigs` by the profiles of one build: `builder` compiles with the run's flags and `baseline_vmfb` is its
    build without a spec, so the configs are the only difference."""

    timer: InModelTimer
    builder: Builder
    baseline_vmfb: Path

    def __call__(self, configs: Sequence[Config], merge: Merge) -> ConfigCheck:
        if not configs:
            return ConfigCheck([])
        with display().phase(f"check {len(configs)} config(s) inside the model: the build with all against none"):
            (full,) = self.builder.compile_named([(0, merge(configs), "verify_all")])
            check = ConfigCheck(list(configs), full_build=full, method=IN_MODEL, ratio_of=DEFAULT_OVER_ALL)
            if full.status != "ok":
                return check
            without, by_build = self.timer.time(self.baseline_vmfb, [(0, full.vmfb)])
        levels = narrow_down(
            configs, (by_build[0], without), lambda groups, level: self._time_groups(groups, level, merge), check
        )
        if levels:
            check.note = "the dispatches no config touches ran slower with all configs in: each half was checked"
        return check

    def _time_groups(self, groups: Sequence[Sequence[Config]], level: int, merge: Merge) -> list[Profiles | None]:
        with display().phase(f"check {len(groups)} group(s) of those configs inside the model, each against none"):
            builds = self.builder.compile_named(
                [(index, merge(group), f"verify_part_{level}_{index}") for index, group in enumerate(groups)]
            )
            without, by_build = self.timer.time(
                self.baseline_vmfb,
                [(b.index, b.vmfb) for b in builds if b.status == "ok"],
                first_round=level * self.timer.rounds,
            )
        return [(by_build[b.index], without) if b.status == "ok" else None for b in builds]


def narrow_down(
    configs: Sequence[Config],
    with_all: Profiles,
    time_groups: TimeGroups,
    check: ConfigCheck,
    levels: int = HALVING_LEVELS,
) -> int:
    """Decide `configs` by the profiles of their build with all (`with_all`, `decide`); where that cannot, halve
    them and time each half against none (`time_groups`, by level), on until each group decides or `levels` are
    spent. A group still undecided then (a config left alone at any level) is judged by every dispatch of the model,
    its configs' gain against the others' loss; one whose build failed is dropped. Fills `check`'s ratios and
    decides it; returns the levels of halves it took."""
    level, judged = 0, [(list(configs), with_all)]
    while True:
        undecided = []
        for group, profiles in judged:
            if profiles is not None and decide(group, *profiles, check) is not None:
                continue
            if len(group) > 1 and level < levels:
                undecided.append(group)
                continue
            whole = 0.0 if profiles is None else gain(*profiles, lambda times: sum(times.values())).speedup
            check.ratios.update({config.problem.key: whole for config in group})
        if not undecided:
            check.decide(configs)
            return level
        level += 1
        groups = [half for group in undecided for half in (group[: len(group) // 2], group[len(group) // 2 :])]
        judged = list(zip(groups, time_groups(groups, level)))


def decide(
    configs: Sequence[Config], with_all: Sequence[ProblemTimes], without: Sequence[ProblemTimes], check: ConfigCheck
) -> ConfigCheck | None:
    """Each config's gain from the profiles of the build with all (`with_all`) and of the build with none
    (`without`), round by round; None where the dispatches no config touches ran slower beyond the noise."""
    configured = {config.problem.key for config in configs}
    others = gain(with_all, without, lambda times: sum(us for key, us in times.items() if key not in configured))
    if others.slower() and others.speedup < OTHERS_SLOWER:
        return None
    for config in configs:
        estimate = gain(with_all, without, lambda times: times.get(config.problem.key))
        if estimate.rounds:
            check.ratios[config.problem.key] = estimate.speedup
    return check.decide(configs)


def gain(
    with_all: Sequence[ProblemTimes], without: Sequence[ProblemTimes], part: Callable[[ProblemTimes], float | None]
) -> SpeedupEstimate:
    """How much faster a `part` of the model's dispatches ran with the configs than without, round by round (no
    estimate where the profiles did not time it)."""
    pairs = [(part(w), part(wo)) for w, wo in zip(with_all, without)]
    return SpeedupEstimate.from_ratios([w / wo for w, wo in pairs if w and wo])
