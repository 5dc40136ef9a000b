"""Rankers are plugins: each one, mltune's own included, is an entry point of the group `mltune.rankers`
(`[project.entry-points."mltune.rankers"]` in a package's pyproject), so that an installed package adds a ranker
that `mltune tune --ranker NAME` and `mltune evaluate` use with no change to mltune.

The contract (`docs/ranker-plugins.md`): the entry point's object is called with `seed=` (an int) and returns a
`Ranker` (`mltune.rankers.base`). A factory whose signature names one of the optional keywords below is given it
as well; a ranker with a `check_for(target)` method is asked to refuse a target before any work. A plugin that is
missing, cannot be imported or returns something else is one line on stderr and exit code 2 (`UserError`).
"""

from __future__ import annotations

import inspect
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from mltune.errors import UserError

if TYPE_CHECKING:
    import pandas

    from mltune.rankers.base import Ranker
    from mltune.targets import TargetFacts

GROUP = "mltune.rankers"
# mltune's own rankers, registered in its pyproject like any plugin; in this order in listings
BUILT_IN = (
    "none",
    "shuffle",
    "shuffle-lowerings",
    "heuristic",
    "learned",
    "random-forest",
    "random-forest-refit",
    "tpe",
)
# what mltune gives a factory that names it: the `--model-dir` folder (when given), and measured candidates to learn
# from (a `mltune.records` frame: the target arch's records when tuning, only the training fold's in `evaluate`)
OPTIONAL_KEYWORDS = ("model_dir", "records")


@cache
def _registered() -> dict[str, tuple[EntryPoint, ...]]:
    """Every registered ranker by name (several entry points: a name that two packages claim); read once."""
    found: dict[str, tuple[EntryPoint, ...]] = {}
    for point in entry_points(group=GROUP):
        if point not in found.get(point.name, ()):
            found[point.name] = (*found.get(point.name, ()), point)
    return found


def ranker_names() -> list[str]:
    """The names `--ranker` accepts: mltune's own first, then the installed plugins' in alphabetical order."""
    registered = _registered()
    return [name for name in BUILT_IN if name in registered] + plugin_names()


def plugin_names() -> list[str]:
    """The rankers that installed packages other than mltune add."""
    return sorted(name for name in _registered() if name not in BUILT_IN)


def _entry_point(name: str) -> EntryPoint:
    registered = _registered()
    if name not in registered and not all(own in registered for own in BUILT_IN):
        raise UserError(
            f"no ranker {name!r}: mltune's own rankers are not registered as {GROUP!r} entry points (the "
            "installed metadata predates them); reinstall mltune, e.g. pip install -e PATH_TO_MLTUNE"
        )
    if name not in registered:
        raise UserError(f"unknown ranker {name!r}; choose one of: {', '.join(ranker_names())}")
    points = registered[name]
    if len(points) > 1:
        raise UserError(
            f"ranker {name!r} is registered by several packages ({', '.join(p.value for p in points)}); "
            "uninstall all but one"
        )
    return points[0]


def ranker_factory(name: str) -> Callable[..., Any]:
    """The object that ranker `name`'s entry point names (a class or a function), imported now."""
    point = _entry_point(name)
    try:
        factory = point.load()
    except Exception as err:  # a plugin's import error, of any kind, is the plugin's: say which
        raise UserError(f"ranker {name!r} ({point.value}) cannot be loaded: {type(err).__name__}: {err}") from None
    if not callable(factory):
        raise UserError(f"ranker {name!r} ({point.value}) is a {type(factory).__name__}, not a class or function")
    return factory


def takes(factory: Callable[..., Any], keyword: str) -> bool:
    """Whether `factory`'s signature names `keyword` (only named keywords are given: `records` costs a load)."""
    try:
        return keyword in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a callable without a signature (some C types): seed alone
        return False


def learns_from_records(name: str) -> bool:
    """Whether ranker `name` takes `records`: `evaluate` then trains it per fold, leaving each problem out."""
    return takes(ranker_factory(name), "records")


def _arch_records(dataset_dir: Path, arch: str) -> pandas.DataFrame:
    """The arch's records under `dataset_dir` as a frame; an empty frame when it has none (the ranker decides)."""
    import pandas as pd

    from mltune.records.frame import load

    if not (dataset_dir / arch).is_dir():
        return pd.DataFrame()
    try:
        return load(dataset_dir / arch)
    except UserError:  # no successful measurement yet: nothing to learn from
        return pd.DataFrame()


def make_ranker(
    name: str,
    seed: int = 0,
    target: TargetFacts | None = None,
    model_dir: Path | None = None,
    dataset_dir: Path | None = None,
    records: pandas.DataFrame | None = None,
) -> Ranker:
    """The ranker called `name`, made by its entry point.

    Args:
        name: One of `ranker_names()`.
        seed: Passed as `seed=`.
        target: The target's facts: a ranker with `check_for` checks them now, so that an arch with no model is
            reported before anything is compiled or recorded.
        model_dir: Passed as `model_dir=` to a factory that names it.
        dataset_dir: With a target, and no `records`: the target arch's records there are passed as `records=` to
            a factory that names it (an empty frame when there are none).
        records: Passed as `records=` to a factory that names it.

    Returns:
        The ranker; a plugin's comes wrapped in `PluginRanker`, whose failures are one line.

    Raises:
        UserError: An unknown name, or a plugin that cannot be loaded or made, or that returns no ranker.
    """
    from mltune.rankers.plugin import PluginRanker, missing_methods  # here: listing the names loads no ranker

    factory = ranker_factory(name)
    if records is None and target is not None and dataset_dir is not None and takes(factory, "records"):
        records = _arch_records(dataset_dir, target.arch)
    extras = {"model_dir": model_dir, "records": records}
    keywords = {key: value for key, value in extras.items() if value is not None and takes(factory, key)}
    if name in BUILT_IN:
        ranker = factory(seed=seed, **keywords)
    else:
        try:
            ranker = factory(seed=seed, **keywords)
        except UserError:
            raise
        except Exception as err:
            raise UserError(f"ranker {name!r} failed when made: {type(err).__name__}: {err}") from None
        missing = missing_methods(ranker)
        if missing:
            raise UserError(
                f"ranker {name!r} returned a {type(ranker).__name__} without {', '.join(missing)}: a "
                "ranker has name, start(ranking_input), ask(n) and tell(index, ratio)"
            )
        ranker = PluginRanker(name, ranker)
    if callable(getattr(ranker, "check_files", None)):
        ranker.check_files()  # a damaged model file is refused before any work
    if target is not None and callable(getattr(ranker, "check_for", None)):
        ranker.check_for(target)
    return ranker
