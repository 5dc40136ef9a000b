"""When the final checks find a model's result no faster than IREE's default, try the next finalists instead of
keeping nothing.

Each dispatch's winner is the best of its finalists, each re-measured against IREE's default. The whole model
timed end to end (or per call, as it will run) can still find the merged result no faster than IREE's default,
while the finalist behind the winner, which might hold, is never tried (`docs/cpu-blas.md`, decode shapes). The
configs' check (`mltune.whole_model.verify`) can say the same earlier: for a one-op model leave-one-out times the
model with the winner against IREE's default, where a data-tiled winner that led the finalists can run slower,
which drops it and leaves no result. So a withdrawn result, or one whose every config the check dropped, is
followed by another: each dispatch that was in it takes its next finalist that also passed the keep rule, in
finals order (a dispatch with none left drops out, the others still fall back), until the final checks keep one.

Each try costs a check of its configs, a numerics check and an end-to-end timing of the whole model, which is why at
most `MAX_FALLBACKS` follow the first result: the finalists further down measured slower still, and a run that
withdrew three results has little reason to trust a fourth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from mltune.whole_model.finish import ModelOutcome
from mltune.whole_model.verify import Config
from mltune.search.results import DispatchResult

MAX_FALLBACKS = 2

Check = Callable[[Sequence[Config], int], ModelOutcome]  # the final checks of one try: its configs, its number


@dataclass(frozen=True)
class Pick:
    """One dispatch's finalist in a result: `rank` indexes the dispatch's finals (0: the search's winner).

    Its config is a spec's `compilation_info` or, for a data-tiled finalist, the compile flags it carries: the
    applier makes either into the result, so a fallback may cross from one kind to the other."""

    result: DispatchResult
    rank: int

    @property
    def config(self) -> Config:
        return Config(self.result.problem, self.result.finals[self.rank][0].compilation_info)

    @property
    def knobs(self) -> dict[str, int]:
        return self.result.finals[self.rank][0].knobs

    def next(self) -> Pick | None:
        """The next finalist that passed the keep rule, None when there is none."""
        finals = self.result.finals
        rank = next((r for r in range(self.rank + 1, len(finals)) if finals[r][1].wins(self.result.min_speedup)), None)
        return Pick(self.result, rank) if rank is not None else None


@dataclass(frozen=True)
class Attempt:
    """One result tried: each dispatch's finalist in it, and what the final checks made of it."""

    picks: tuple[Pick, ...]
    outcome: ModelOutcome

    @property
    def kept(self) -> bool:
        """The final checks kept a result (neither withdrawn nor refused, nor emptied by the configs' check)."""
        return self.outcome.recommends and self.outcome.result is not None

    @property
    def all_dropped(self) -> bool:
        """Leave-one-out dropped every config: the model ran faster without each, so there was no result to time."""
        check = self.outcome.check
        return bool(self.picks) and not check.kept and bool(check.dropped) and not self.outcome.refused

    @property
    def lost(self) -> bool:
        """The result was measured no faster than IREE's default: withdrawn, or every config dropped."""
        return bool(self.outcome.withdrawn) or self.all_dropped


def winners(results: Sequence[DispatchResult]) -> tuple[Pick, ...]:
    """The first result's finalists: each dispatch's winner (a dispatch without one has no config)."""
    return tuple(Pick(r, 0) for r in results if r.winner is not None)


def fallbacks(attempt: Attempt) -> tuple[Pick, ...]:
    """The next result's finalists after `attempt` lost: each dispatch in its result (all of them where
    leave-one-out dropped every config), one finalist on."""
    kept = {c.problem.key for c in attempt.outcome.check.kept}
    following = (p.next() for p in attempt.picks if attempt.all_dropped or p.result.problem.key in kept)
    return tuple(p for p in following if p is not None)


def finish_with_fallbacks(
    picks: Sequence[Pick], check: Check, most: int = MAX_FALLBACKS, out_of_time: Callable[[], bool] = lambda: False
) -> list[Attempt]:
    """Every result tried, in order: the first, then up to `most` fallbacks while the last lost, a dispatch in it
    has a finalist left and the run's time is not `out_of_time`. The last attempt is the run's outcome."""
    attempts = [Attempt(tuple(picks), check([p.config for p in picks], 0))]
    while attempts[-1].lost and len(attempts) <= most:
        following = fallbacks(attempts[-1])
        if not following:
            break
        if out_of_time():
            print(
                f"note: no fallback tried: the --time-budget is spent ({len(following)} dispatch(es) had a "
                "finalist left)"
            )
            break
        attempts.append(Attempt(following, check([p.config for p in following], len(attempts))))
    return attempts
