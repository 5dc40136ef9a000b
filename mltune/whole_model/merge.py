"""Merging mltune's configs with a starter spec the user already has, so that mltune's config wins.

`iree-opt --iree-codegen-link-tuning-specs` resolves two matchers for the same op in one of
two ways (checked with the real tools in tests/test_model_merge.py):
- when every input spec has the default entrypoint (`iree_codegen.tuning_spec_with_default_entrypoint`,
  one `foreach_match`), the matchers are merged into one `foreach_match` in input order, and for
  each op the FIRST matcher that matches wins: mltune's specs go first;
- otherwise the linked entrypoint includes each spec in turn, each annotating the op again, so
  the LAST one wins: mltune's specs go last.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from iree.compiler import ir

from mltune.emit.apply import Applied, Applier
from mltune.emit.spec import link_specs
from mltune.errors import UserError
from mltune.frontend.mlir import parse_module_file
from mltune.whole_model.verify import Config

DEFAULT_ENTRYPOINT = "iree_codegen.tuning_spec_with_default_entrypoint"


@dataclass(frozen=True)
class StarterSpec:
    """A user's tuning spec, read and checked before any tuning starts."""

    path: Path
    text: str
    default_entrypoint: bool

    @property
    def applied(self) -> Applied:
        """The starter spec as the builder takes it."""
        return Applied("spec", self.text)


def read_starter_spec(path: Path, context: ir.Context) -> StarterSpec:
    """Read and parse the user's spec; anything unusable is a one-line user error."""
    try:
        module = parse_module_file(path, context)
    except UserError as err:
        raise UserError(f"--starter-spec: {err}") from None
    attributes = module.operation.attributes
    if "transform.with_named_sequence" not in attributes:
        raise UserError(f"--starter-spec {path}: not a tuning spec (no transform.with_named_sequence attribute)")
    return StarterSpec(path, path.read_text(), DEFAULT_ENTRYPOINT in attributes)


def merge(configs: Sequence[str], starter: StarterSpec | None, context: ir.Context, work_dir: Path) -> str | None:
    """One spec: mltune's per-problem specs linked with the starter spec, mltune's taking precedence."""
    if starter is None:
        return link_specs(configs, context, work_dir) if configs else None
    if not configs:
        return starter.text
    ordered = [*configs, starter.text] if starter.default_entrypoint else [starter.text, *configs]
    return link_specs(ordered, context, work_dir)


def merge_configs(
    configs: Sequence[Config], starter: StarterSpec | None, applier: Applier, context: ir.Context, work_dir: Path
) -> Applied | None:
    """Every config applied at once, with the starter spec if any (None: nothing to apply).

    Without a starter spec this is the applier's own combination (a linked spec, or on CUDA the
    source annotated with every config); a starter spec is a tuning spec, so the configs are then
    specs too (the CLI refuses `--starter-spec` for CUDA, where IREE ignores tuning specs).
    """
    winners = [(c.problem, c.compilation_info) for c in configs]
    if starter is None:
        return applier.combine(winners, work_dir) if winners else None
    specs = [applier.apply(problem, info) for problem, info in winners]
    if any(s.kind != "spec" for s in specs):
        raise UserError("--starter-spec: this target is not tuned through a tuning spec")
    flags = tuple(dict.fromkeys(flag for s in specs for flag in s.flags))
    return Applied("spec", merge([s.text for s in specs if s.text], starter, context, work_dir) or "", flags)
