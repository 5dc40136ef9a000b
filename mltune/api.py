"""mltune as a library: tune a model, list a model's problems and rank their candidates, train and evaluate models.

Each function checks its arguments as the `mltune` command does (bad input raises `UserError`, whose message is
one line) and maps its keyword arguments onto the internal request and functions; the command line
(`mltune.cli`) is a thin layer over these. A tuning run writes the same whichever started it: a run directory
(`mltune tune --resume RUN_DIR` continues an interrupted one), dataset records and the spec.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from mltune.errors import UserError
from mltune.input import checks as cli_args
from mltune.learn.learner_names import FOREST, LEARNER_NAMES
from mltune.rankers import NEAR_DEFAULT_SHARE, make_ranker
from mltune.rankers.base import Ranker, RankingInput
from mltune.search.settings import LoopSettings
from mltune.system.paths import data_home, user_datasets, user_models
from mltune.tuning.library_call import DispatchVerdict, TuneResult, run
from mltune.tuning.option_forms import checked, documented
from mltune.tuning.option_forms import command_line as options_command_line
from mltune.tuning.options import TuneOptions

if TYPE_CHECKING:
    from mltune.learn.samples import ProblemSamples
    from mltune.learn.scoring import Summary

PathLike = str | os.PathLike[str]
FAMILIES = ("cpu", "gpu")


def _path(value: PathLike | None) -> Path | None:
    return None if value is None else Path(value)


@documented
def tune(
    model: PathLike, *, show_paths: bool = False, command_line: Sequence[str] | None = None, **options: Any
) -> TuneResult:
    """Tune a model's dispatches (or one dumped dispatch benchmark), as `mltune tune` does.

    Example:
        >>> result = mltune.tune("examples/matmul_f32.mlir", budget=8, ranker="heuristic")
        >>> print(result.spec_path, [v.describe() for v in result.verdicts])

    Args:
        model: The source .mlir of a model, or a dumped dispatch benchmark .mlir.
        show_paths: Print where the run reads and writes before it starts (the command line does).
        command_line: The command recorded for `mltune tune --resume`; default: one equivalent to this call.
        options: Every option of `mltune tune` by its keyword (`budget=8`, `target="sm_90"`,
            `iree_flags=["--iree-opt-level=O3"]`, `shape="1x128xi64"`), declared once in
            `mltune.tuning.options.TuneOptions`: the reference lists each with its flag, default and meaning, and
            `help(mltune.tune)` shows them.

    Returns:
        The spec, the verdict per problem and the run's records.

    Raises:
        UserError: Bad input (the message is one line); a new run directory that holds nothing is removed.
        RunFailure: Every candidate failed.
        KeyboardInterrupt: Ctrl-C (or SIGTERM at the command line); the run is marked interrupted, its records kept.
    """
    arguments = TuneOptions.of(**options)
    argv = list(command_line) if command_line is not None else options_command_line(Path(model), arguments)
    return run(Path(model), arguments, argv, show_paths)


def tune_shapes(
    model: PathLike, shapes: Sequence[str], *, output: PathLike, run_dir: PathLike | None = None, **options: Any
) -> list[TuneResult]:
    """Tune a model with dynamic dimensions for several shapes (buckets, e.g. sequence 128 and 512), one run each.

    Each shape is a `tune(shape=...)` of its own, in its own run folder, writing `best_spec.SHAPE.mlir` beside
    `output`; the shapes' specs are then linked into `output` (each config matches the static sizes it was tuned
    for). On CUDA the results are each shape's annotated source, kept apart.

    Example:
        >>> results = mltune.tune_shapes("decoder_dynamic.mlir", ["1x128xi64", "1x512xi64"], output="spec.mlir")

    Args:
        model: The source .mlir, exported with dynamic dimensions.
        shapes: Per bucket, the arguments' types in IREE's syntax, comma-separated (`1x128xi64,1x128xi1`).
        output: Where the linked spec is written.
        run_dir: A folder for the runs, one subfolder per shape; default: new runs under the data home.
        options: Any other keyword argument of `tune`.

    Returns:
        Each shape's result, in the order given.
    """
    from mltune.tuning.shapes import bucket_output, link_bucket_specs

    if not shapes:
        raise UserError("tune_shapes: give at least one shape")
    if len(set(shapes)) != len(shapes):
        raise UserError(f"--shape: a shape is given twice ({', '.join(shapes)})")
    results = [
        tune(
            model,
            shape=shape,
            output=bucket_output(Path(output), shape),
            run_dir=None if run_dir is None else Path(run_dir) / shape.replace(",", "_"),
            **options,
        )
        for shape in shapes
    ]
    linked = link_bucket_specs([r.spec_path for r in results if r.spec_path is not None], Path(output))
    if linked is not None:
        print(f"Spec for every shape: {linked} (links {', '.join(str(r.spec_path) for r in results if r.spec_path)})")
    return results


def problems(
    model: PathLike, *, target: str = "host", function: str | None = None, iree_flags: Sequence[str] = (), seed: int = 0
) -> list[RankingInput]:
    """The problems `tune` would search in a model, each with its candidates, for `rank` or a ranker's `start`.

    The model is compiled once to dump its dispatches (into a temporary folder); nothing is benchmarked.

    Args:
        model: The source .mlir of a model, or a dumped dispatch benchmark .mlir.
        target: As for `tune`.
        function: The public function whose dispatches are read (default: main or the only one).
        iree_flags: iree-compile flags, as for `tune`.
        seed: Seed for the input data `tune` would generate.

    Returns:
        One per distinct tunable problem; empty when none is.
    """
    from mltune.frontend.mlir import new_context
    from mltune.frontend.problem import Problem, Untunable
    from mltune.input.tuning_input import prepare_input
    from mltune.targets import parse_target
    from mltune.input.dispatches import read_checked_dispatches
    from mltune.tuning.prepare import configurators, lowering_is_tunable

    for flag in iree_flags:
        checked(cli_args.iree_flag, flag, "iree_flag")
    path = cli_args.check_input_file(Path(model), "input file")
    parsed = parse_target(target)
    context = new_context()
    with tempfile.TemporaryDirectory(prefix="mltune-problems-") as work:
        tuning_input = prepare_input(path, parsed, Path(work), context, function, seed, tuple(iree_flags))
        dispatches = read_checked_dispatches(tuning_input, parsed, context)
        tunable = [d for d in dispatches if isinstance(d.problem, Problem)]
        data_tiling = lowering_is_tunable(tuning_input, dispatches)
        return [
            RankingInput(dispatch.problem, dispatch.facts, configurator.candidates())
            for dispatch, configurator in configurators(
                tunable, context, Path(work) / "spaces", data_tiling, tuning_input.source
            )
            if not isinstance(configurator, Untunable)
        ]


def rank(
    problem: RankingInput,
    ranker: str | Ranker = "heuristic",
    *,
    seed: int = 0,
    model_dir: PathLike | None = None,
    dataset_dir: PathLike | None = None,
) -> list[int]:
    """Every candidate of a problem in a ranker's order, best first, as the tuning loop asks for them before anything
    is measured (an adaptive ranker's order before it learns).

    Args:
        problem: A problem and its candidates (from `problems`, or built by hand).
        ranker: A ranker's name (`mltune.rankers.ranker_names()`), or a ranker object.
        seed: The seed a named ranker is made with.
        model_dir: For a learned ranker: its models' folder alone (default: the user's, then the shipped ones).
        dataset_dir: For a ranker that learns from records: the folder of per-arch record folders (default: the
            data home's `datasets/`).

    Returns:
        Candidate indices (into `problem.candidates`), each once.
    """
    if isinstance(ranker, str):
        ranker = make_ranker(
            ranker,
            seed,
            problem.target,
            _path(model_dir),
            _path(dataset_dir) if dataset_dir is not None else user_datasets(),
        )
    ranker.start(problem)
    order: list[int] = []
    seen: set[int] = set()
    while picked := ranker.ask(LoopSettings.batch_size):
        fresh = [i for i in dict.fromkeys(picked) if i not in seen]
        if not fresh:  # a ranker that only repeats itself has nothing left to give
            break
        order += fresh
        seen.update(fresh)
    return order


def train(
    arch: str | None = None,
    *,
    family: str | None = None,
    dataset_dir: PathLike | None = None,
    model_dir: PathLike | None = None,
    seed: int = 0,
    force: bool = False,
    learner: str | None = None,
) -> dict[str, Any]:
    """Train the random-forest models of one arch (or the pooled ones of a family), as `mltune train` does.

    Each op kind gets its model, cross-validated by problem; one that ranks worse than the heuristic (or the family's
    model) is not written unless `force`.

    Args:
        arch: The arch whose records to learn from (a folder under `dataset_dir`); or give `family`.
        family: "cpu" or "gpu": learn from every arch of the family, pooled.
        dataset_dir: The folder of per-arch record folders; default: the data home's `datasets/`.
        model_dir: Where `MODEL_DIR/ARCH/KIND/` is written; default: the data home's `models/`.
        seed: The forest's seed.
        force: Write a model even when cross-validation ranks it worse than the alternatives.
        learner: Fit every model with this learner ("random-forest", "boosted-trees" or "ranking-trees"); default:
            cross-validate each and keep, per op kind, the one that ranks held-out problems sooner.

    Returns:
        The training report: per op kind, the folder written (None if refused), the cross-validation and the verdict.
    """
    from mltune.learn.train import train as train_arch
    from mltune.learn.train import train_family

    models = cli_args.check_output_folder(_path(model_dir) or user_models(), "--model-dir")
    if (arch is None) == (family is None):
        raise UserError("train needs one of --arch ARCH or --family cpu|gpu")
    records = _path(dataset_dir) or user_datasets()
    checked(cli_args.seed, seed, "seed")
    if learner is not None and learner not in LEARNER_NAMES:
        raise UserError(f"learner {learner!r}: expected one of {', '.join(LEARNER_NAMES)}")
    learners = LEARNER_NAMES if learner is None else (learner,)
    if family is not None:
        if family not in FAMILIES:
            raise UserError(f"--family: expected one of {', '.join(FAMILIES)}, got {family!r}")
        return train_family(records, family, models, seed, force, learners)
    return train_arch(records, checked(cli_args.arch, arch, "arch"), models, seed, force, learners)


def evaluate(
    arch: str,
    *,
    dataset_dir: PathLike | None = None,
    out: PathLike | None = None,
    seed: int = 0,
    batch: int = LoopSettings.batch_size,
    kind: str | None = None,
    leave_arch_out: bool = False,
    learner: str = FOREST,
    near_default: float | None = None,
) -> dict[str, dict[str, Summary]]:
    """Replay an arch's records through every ranker (installed plugins included) and score the orders, as
    `mltune evaluate` does: learned rankers are scored on problems left out of their training.

    Prints the tables and writes `evaluation.json` and a plot under `out`.

    Args:
        arch: The arch whose records to replay (a folder under `dataset_dir`).
        dataset_dir: The folder of per-arch record folders; default: the data home's `datasets/`.
        out: The folder for `evaluation.json` and the plot; default: the data home's `evaluation/ARCH`.
        seed: Seed for the forests, fold ties and shuffling.
        batch: Candidates asked per step, as the tuning loop does.
        kind: Score only the problems of this op kind (e.g. "contraction").
        leave_arch_out: Also score forests trained on every other arch of the family, never on this one.
        learner: What fits the learned rankers' models: "random-forest", "boosted-trees" or "ranking-trees".
        near_default: Also score each ranker but the reference orders with this share of its picks near IREE's
            default config, as `tune` ranks a CPU dispatch (`NAME+near-default`; the default is read from each
            problem's one-op model built for the records' CPU); None: `tune`'s default share; 0: not scored.

    Returns:
        Per split ("per-problem", "honest" and, where the dataset has a `holdout.json`, "holdout"), per ranker,
        its summary over the problems (positions of the first near-optimal candidate, top-k).
    """
    from mltune.learn.replay import evaluate as replay
    from mltune.learn.replay_near import NearDefaultReplay

    arch = checked(cli_args.arch, arch, "arch")
    checked(cli_args.seed, seed, "seed")
    checked(cli_args.positive_int, batch, "batch")
    folder = cli_args.check_output_folder(_path(out) or data_home() / "evaluation" / arch, "--out")
    if learner not in LEARNER_NAMES:
        raise UserError(f"learner {learner!r}: expected one of {', '.join(LEARNER_NAMES)}")
    share = checked(cli_args.share, NEAR_DEFAULT_SHARE if near_default is None else near_default, "near_default")
    with tempfile.TemporaryDirectory(prefix="mltune-defaults-") as work:
        near = NearDefaultReplay(share, _one_op_default(Path(work)), seed) if share > 0 else None
        return replay(
            _path(dataset_dir) or user_datasets(), arch, folder, seed, batch, kind, leave_arch_out, learner, near
        )


def _one_op_default(work_dir: Path) -> Callable[[ProblemSamples], str]:
    """IREE's default config of a CPU problem of the records, from its one-op model built for the records' CPU."""
    from mltune.frontend.mlir import new_context
    from mltune.search.screen_module import one_op_default_config
    from mltune.targets.cpu import CpuTarget

    context = new_context()
    return lambda samples: one_op_default_config(
        samples.problem, CpuTarget(samples.target.arch), context, work_dir / samples.key
    )


__all__ = ["DispatchVerdict", "TuneResult", "evaluate", "problems", "rank", "train", "tune"]
