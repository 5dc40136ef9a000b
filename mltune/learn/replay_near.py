"""Replayed rankers with picks near IREE's default config, as `mltune tune` ranks a CPU dispatch (`--near-default`).

`tune` gives a share of each CPU dispatch's picks to the untried candidates nearest the incumbent, IREE's default at
first (`mltune.rankers.near_incumbent`). `evaluate` scores every ranker that way too, beside its order alone, so that
the table says what the shipped default costs or gains. In a replay the pool is the measured candidates only, so
the default's neighbours are the nearest measured ones: on a sparse sample, farther than a live run's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from iree.compiler import ir

from mltune.learn.samples import ProblemSamples
from mltune.rankers.base import Ranker
from mltune.rankers.near_incumbent import near_default
from mltune.spaces.configure import make_configurator
from mltune.targets import CpuInfo

NEAR_SUFFIX = "+near-default"
RankerMaker = Callable[[int], Ranker]


@dataclass
class NearDefaultReplay:
    """Makes each replayed ranker's twin with a `share` of picks near IREE's default; `default_config` gives a
    problem's default config as text ("" where unknown: the twin then ranks as its inner ranker alone)."""

    share: float
    default_config: Callable[[ProblemSamples], str]
    seed: int = 0
    _placed: dict[str, tuple[object, str]] = field(default_factory=dict)  # per problem key: its space and default
    _context: ir.Context = field(default_factory=ir.Context)

    def _place(self, samples: ProblemSamples) -> tuple[object, str]:
        """The problem's configurator and IREE's default config; none for a GPU problem (its space needs the
        dispatch's dump, and GPU spaces have no coordinates) or one without a default."""
        if samples.key not in self._placed:
            config = self.default_config(samples) if isinstance(samples.target, CpuInfo) else ""
            space = (
                None
                if not config
                else make_configurator(samples.problem, samples.target, self._context, Path(), Path())
            )
            self._placed[samples.key] = (space, config)
        return self._placed[samples.key]

    def placed(self, problems: Sequence[ProblemSamples]) -> int:
        """How many of `problems` have IREE's default placed (the others are replayed by their inner ranker)."""
        return sum(bool(self._place(p)[1]) for p in problems)

    def makers(self, makers: dict[str, RankerMaker], problems: Sequence[ProblemSamples]) -> dict[str, RankerMaker]:
        """`makers`, each followed by its twin `NAME+near-default`; reference orders (shuffle) have none, and no
        ranker has one where no problem's default is placed (the twin would be its inner ranker)."""
        if not self.placed(problems):
            return makers
        with_twins: dict[str, RankerMaker] = {}
        for name, make in makers.items():
            with_twins[name] = make
            if not getattr(make(0), "reference", False):
                with_twins[name + NEAR_SUFFIX] = lambda i, make=make: self._twin(make(i), problems[i])
        return with_twins

    def _twin(self, inner: Ranker, samples: ProblemSamples) -> Ranker:
        space, config = self._place(samples)
        return near_default(inner, space, config, self.share, self.seed) if space is not None else inner
