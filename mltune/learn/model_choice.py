"""Which stored model ranks a problem: the arch's own, else its family's pooled one, else the heuristic.

Models are looked up in a search path (`mltune.system.paths`: the user's, then the shipped ones). An
arch's own model is used when it exists and training found it ranks better than the
alternatives (its sidecar's `quality`); otherwise the family's model (trained on every arch of
the family, features relative to each target) ranks it; with neither, the heuristic does. The
choice is said in one line, so a user knows what ordered the candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mltune.errors import UserError
from mltune.features import target_family
from mltune.learn.forest import LoadedModel, load_model
from mltune.learn.model_files import SIDECAR_FILE, family_name, model_folder, trained_kinds
from mltune.system.paths import describe_search_path


@dataclass(frozen=True)
class ModelChoice:
    """The model that ranks one (arch, op kind), or None for the heuristic, and the line that says so. A model that
    never saw the arch is blended with the heuristic (`blend`): measured on other CPUs, it knows which configs are
    bad in general, while the heuristic reads this CPU's own registers and vectors (`mltune.rankers.blend`)."""

    loaded: LoadedModel | None
    description: str
    blend: bool = False
    share: float = 1.0  # the forest's share of the picks beside the heuristic's (`mltune.learn.share`)


def _exists(model_dir: Path, name: str, op_kind: str) -> bool:
    sidecar = model_folder(model_dir, name, op_kind) / SIDECAR_FILE
    return sidecar.exists() or sidecar.is_symlink()


def _trained_on(loaded: LoadedModel) -> list[str]:
    return sorted(
        {
            target["facts"]["arch"]
            for target in loaded.sidecar.get("targets", [])
            if isinstance(target, dict) and isinstance(target.get("facts"), dict)
        }
    )


def choose_model(
    model_dirs: Sequence[Path], target, op_kind: str, ranker: str = "random-forest", seen_only: bool = False
) -> ModelChoice:
    """The arch's trusted model, the family's model or the heuristic, for `op_kind` on `target` (its facts), each
    looked up in `model_dirs` in order (`mltune.system.paths.model_search_path`), said as `ranker`'s choice. With
    `seen_only`, a family model that never saw the arch gives way to the heuristic instead of blending with it. A model
    that exists but fails to load (tampered, wrong format) stops with its one-line error."""
    arch, family = target.arch, target_family(target)
    why_not_own = f"no {op_kind} model for {arch}"
    for model_dir in (d for d in model_dirs if _exists(d, arch, op_kind)):
        own = load_model(model_dir, arch, op_kind)
        if own.trusted:
            share = own.share
            beside = f", taking {share:.0%} of the picks beside the heuristic's" if share < 1 else ""
            return ModelChoice(
                own,
                f"{ranker}: {op_kind} on {arch} ranked by {own.folder} (this arch's model, {own.learner}){beside}",
                share=share,
            )
        why_not_own = f"the {arch} model in {own.folder} ranked worse in cross-validation"
    pooled = family_name(family)
    for model_dir in (d for d in model_dirs if _exists(d, pooled, op_kind)):
        shared = load_model(model_dir, pooled, op_kind)
        archs = _trained_on(shared)
        blend = arch not in archs
        trained_on = ", ".join(archs) or "unknown archs"
        if blend and seen_only:
            return ModelChoice(
                None,
                f"{ranker}: {op_kind} on {arch} ranked by the heuristic (the {family} family's "
                f"model in {shared.folder} learned from {trained_on}, never from {arch}; "
                f"{why_not_own})",
            )
        how = " blended with the heuristic, as it never saw this arch" if blend else ""
        return ModelChoice(
            shared,
            f"{ranker}: {op_kind} on {arch} ranked by {shared.folder}{how} (the {family} "
            f"family's {shared.learner} model, trained on {trained_on}; {why_not_own})",
            blend,
            1.0 if blend else shared.share,
        )
    return ModelChoice(
        None,
        f"{ranker}: {op_kind} on {arch} ranked by the heuristic ({why_not_own} and no "
        f"{family} family model in {describe_search_path(tuple(model_dirs))})",
    )


def check_models_exist(model_dirs: Sequence[Path], target) -> None:
    """Refuse a target with no model of any kind, neither its arch's nor its family's, before any work."""
    pooled = family_name(target_family(target))
    if not any(trained_kinds(d, target.arch) or trained_kinds(d, pooled) for d in model_dirs):
        raise UserError(
            f"no random-forest model for arch {target.arch!r} nor for its family ({pooled}) in "
            f"{describe_search_path(tuple(model_dirs))}; train one with `mltune train --arch "
            f"{target.arch}` or `mltune train --family {target_family(target)}`"
        )
