"""Each config's gain measured inside the model, in one build, where the device times each dispatch in the model
(`mltune.model.in_model`): the build with every config and the build with none are profiled in turn, and a config's
gain is its problem's dispatches' time in the second over the first, round by round.

Leave-one-out asks the same of the whole model, with one build per config: on ResNet-50 it took 4 min 43 s for 11
configs, 62 % of a budget-100 run, and its ratios sat in the whole model's own noise (a config is worth 1-5 % of the
model, the model's timing spreads 1-3 %): one slow reading of the build with all dropped 9 of 11 configs, which
together ran 1.16x where the 2 it kept ran 1.05x (docs/whole-model-tuning.md). Inside the model each config is timed
on its own dispatches, among all the others, so the caches they leave it are the model's.

What a dispatch's own time cannot show is a config that slows the dispatches around it. Those are timed too: when
the dispatches no config touches run slower beyond the noise with the configs in, the check falls back to
leave-one-out on the whole model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from mltune.execution.build import Builder
from mltune.execution.verdict import SpeedupEstimate
from mltune.model.in_model_timer import InModelTimer, ProblemTimes
from mltune.model.verify import CheckConfigs, Config, ConfigCheck, Merge
from mltune.system.progress import display

IN_MODEL = "inside the model"
DEFAULT_OVER_ALL = "its dispatches' time inside the model without the configs / with all"
OTHERS_SLOWER = 0.98  # the other dispatches' speedup below which, beyond the noise, leave-one-out decides instead


@dataclass(frozen=True)
class InModelCheck:
    """`CheckConfigs` by the profiles of one build: `builder` compiles with the run's flags and `baseline_vmfb` is its
    build without a spec, so the configs are the only difference; `fallback` decides when the others slowed."""

    timer: InModelTimer
    builder: Builder
    baseline_vmfb: Path
    fallback: CheckConfigs

    def __call__(self, configs: Sequence[Config], merge: Merge) -> ConfigCheck:
        if not configs:
            return ConfigCheck([])
        with display().phase(f"check {len(configs)} config(s) inside the model: the build with all against none"):
            full, = self.builder.compile_named([(0, merge(configs), "verify_all")])
            check = ConfigCheck(list(configs), full_build=full, method=IN_MODEL, ratio_of=DEFAULT_OVER_ALL)
            if full.status != "ok":
                return check
            without, by_build = self.timer.time(self.baseline_vmfb, [(0, full.vmfb)])
        decided = decide(configs, by_build[0], without, check)
        if decided is None:
            check = self.fallback(configs, merge)
            check.note = "the dispatches no config touches ran slower with the configs in: leave-one-out decided"
            return check
        return decided


def decide(configs: Sequence[Config], with_all: Sequence[ProblemTimes], without: Sequence[ProblemTimes],
           check: ConfigCheck) -> ConfigCheck | None:
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


def gain(with_all: Sequence[ProblemTimes], without: Sequence[ProblemTimes],
         part: Callable[[ProblemTimes], float | None]) -> SpeedupEstimate:
    """How much faster a `part` of the model's dispatches ran with the configs than without, round by round (no
    estimate where the profiles did not time it)."""
    pairs = [(part(w), part(wo)) for w, wo in zip(with_all, without)]
    return SpeedupEstimate.from_ratios([w / wo for w, wo in pairs if w and wo])
