"""Is a trained model worth shipping? Its held-out ranking against the heuristic's, and an arch's model against its
family's pooled model, on the same problems.

A model ranks worse when its mean iterations to within 5 % of the best (held out by neighbourhood, the honest split
of `mltune.learn.neighbourhood`, and ranking as it will once shipped: interleaved with the heuristic) is higher, or
equal with a higher median. The mean comes first because it holds the misses a user waits longest for: a median
judges a ranker by its typical problem and let through a CPU attention forest whose mean was worse than the
heuristic's, while refusing a GPU convolution forest whose mean was half the heuristic's (the heuristic far behind
on one problem: `docs/evaluation/honest-split.md`). A model that ranks worse is not written (`mltune train --force`
writes it anyway, marked so), and `tune --ranker random-forest` keeps using the better alternative.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean, median
from typing import Any

from mltune.learn.model_files import SIDECAR_FILE, family_name, model_folder, trained_kinds
from mltune.learn.pooled import pooled_key


def _pair(median_iterations: float, mean_iterations: float) -> tuple[float, float]:
    """What the verdict compares, in its order: the mean, then the median."""
    return float(mean_iterations), float(median_iterations)


def _text(pair: tuple[float, float]) -> str:
    return f"{pair[1]:.1f} / {pair[0]:.2f}"


def judge(cv: dict[str, Any], family: dict[str, float] | None) -> dict[str, Any]:
    """The verdict on a cross-validated model: ok, the better alternative if not, and one sentence."""
    model = _pair(cv["median_iterations"], cv["mean_iterations"])
    heuristic = _pair(cv["heuristic_median_iterations"], cv["heuristic_mean_iterations"])
    scores = {"model": model, "heuristic": heuristic, "family": None}
    if model > heuristic:
        return {
            **scores,
            "ok": False,
            "better": "heuristic",
            "verdict": f"ranks worse than the heuristic on held-out problems (median / mean iterations to within "
            f"5 %: {_text(model)} vs {_text(heuristic)})",
        }
    if family is not None:
        pooled = _pair(family["median_iterations"], family["mean_iterations"])
        scores["family"] = pooled
        if model > pooled:
            return {
                **scores,
                "ok": False,
                "better": "family",
                "verdict": f"ranks worse than the family model on the same held-out problems (median / mean "
                f"iterations to within 5 %: {_text(model)} vs {_text(pooled)})",
            }
    beaten = "the heuristic" + (" and the family model" if family is not None else "")
    return {
        **scores,
        "ok": True,
        "better": "model",
        "verdict": f"ranks at least as well as {beaten} on held-out problems ({_text(model)} vs "
        f"{_text(heuristic)} for the heuristic)",
    }


def family_scores(model_dir: Path, arch: str, family: str) -> dict[str, dict[str, int]]:
    """Per op kind, the family model's held-out iterations on each problem of this arch (by its key in the arch's
    dataset), from its sidecar's cross-validation."""
    scores = {}
    name = family_name(family)
    prefix = pooled_key(arch, "")
    for kind in trained_kinds(model_dir, name):
        try:
            cv = json.loads((model_folder(model_dir, name, kind) / SIDECAR_FILE).read_text(encoding="utf-8"))["cv"]
            scores[kind] = {
                key.removeprefix(prefix): int(row["iterations"])
                for key, row in cv["problems"].items()
                if key.startswith(prefix)
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # an unreadable family sidecar says nothing; loading that model will say why
    return scores


def family_on(keys: list[str], rows: dict[str, int] | None) -> dict[str, float] | None:
    """The family model's median and mean over exactly these problems, None unless it held out every one."""
    if not rows or any(key not in rows for key in keys):
        return None
    iterations = [rows[key] for key in keys]
    return {"median_iterations": float(median(iterations)), "mean_iterations": mean(iterations)}
