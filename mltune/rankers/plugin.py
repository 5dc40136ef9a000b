"""A plugin's ranker, checked at its boundary: what it asks for must be candidates of the problem, and whatever
it raises becomes one line naming the plugin (exit code 2), never a traceback from inside the tuning loop."""

from __future__ import annotations

import copy
import operator
from typing import Any

from mltune.errors import UserError
from mltune.rankers.base import RankingInput

REQUIRED = ("name", "start", "ask", "tell")


def missing_methods(ranker: Any) -> list[str]:
    """What `ranker` lacks of the `Ranker` protocol (a `name`, and `start`, `ask`, `tell` that can be called)."""
    return [
        attribute
        for attribute in REQUIRED
        if not hasattr(ranker, attribute) or (attribute != "name" and not callable(getattr(ranker, attribute)))
    ]


class PluginRanker:
    """Wraps a plugin's ranker (`inner`), made from the entry point called `entry`."""

    def __init__(self, entry: str, inner: Any):
        self.entry = entry
        self.inner = inner
        self._size = 0  # candidates of the problem started last

    @property
    def name(self) -> str:
        """The plugin's own name for itself: records carry it."""
        return str(self.inner.name)

    @property
    def reference(self) -> bool:
        """Whether the plugin's order is measured as it is, with no picks near IREE's default
        (`mltune.rankers.near_incumbent.near_default_share`)."""
        return bool(getattr(self.inner, "reference", False))

    def check_for(self, target: Any) -> None:
        if callable(getattr(self.inner, "check_for", None)):
            self._call("check_for", target)

    def start(self, ranking_input: RankingInput) -> None:
        self._size = len(ranking_input.candidates)
        self._call("start", ranking_input)

    def ask(self, n: int) -> list[int]:
        picked = self._call("ask", n)
        try:
            indices = [operator.index(i) for i in picked]
        except TypeError:
            raise UserError(
                f"ranker {self.entry!r}: ask({n}) returned {str(picked)[:60]!r}, not a list of candidate indices"
            ) from None
        wrong = [i for i in indices if not 0 <= i < self._size]
        if wrong:
            raise UserError(
                f"ranker {self.entry!r}: ask({n}) returned candidate {wrong[0]}; this problem's "
                f"candidates are 0 to {self._size - 1}"
            )
        if len(indices) > n:
            raise UserError(f"ranker {self.entry!r}: ask({n}) returned {len(indices)} candidates")
        return indices

    def tell(self, index: int, ratio: float) -> None:
        self._call("tell", index, ratio)

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.inner, method)(*args)
        except UserError:
            raise
        except Exception as err:  # the plugin's own failure, whatever it is: one line that names it
            raise UserError(f"ranker {self.entry!r} failed in {method}: {type(err).__name__}: {err}") from None

    def __copy__(self) -> PluginRanker:
        """One copy per problem (`for_one_problem`) copies the plugin's ranker too, as it would a built-in one."""
        return PluginRanker(self.entry, copy.copy(self.inner))
