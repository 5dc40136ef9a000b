"""`mltune tune`'s options, each declared once: its keyword, flag, default, check and help.

The command line's flags, the library's keyword arguments and their documentation (`mltune.api.tune`), the checks a
library call repeats and the command line recorded for `mltune tune --resume` are all generated from `TuneOptions`'
fields (`mltune.tuning.option_forms`); adding an option is one field here plus its use.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from mltune.errors import UserError
from mltune.input.checks import iree_flag, positive_float, positive_int, seed, share, speedup
from mltune.input.int_range import DEFAULT_INT_RANGE, int_range
from mltune.search.defaults import BATCH_SIZE, DEFAULT_FINALISTS, SCREENS
from mltune.tuning.option_fields import option

TIMINGS = ("auto", "call", "kernel")


@dataclass(frozen=True, kw_only=True)
class TuneOptions:
    """A `tune` call's options as given, before any check (paths as `Path`, repeated values as tuples)."""

    target: str = option(
        "host",
        "host, an LLVM CPU name (llvm-cpu), a ROCm arch or product (gfx942, mi300x, gfx950, gfx1100, ...) "
        "or a CUDA arch (sm_80, sm_86, sm_89, sm_90)",
        "--target",
    )
    ranker: str = option(
        "learned",
        "the candidate order: {rankers} (installed plugins add theirs); learned: the "
        "learned models where one has learned from the target's arch, else the heuristic, op kind by op kind",
        "--ranker",
    )
    budget: int = option(
        50,
        "candidates to benchmark per dispatch; for a model, the total, split over the problems tuned (each gets "
        "8, or an equal part of a smaller budget; the rest goes by share of time)",
        "--budget",
        check=positive_int,
    )
    time_budget: float | None = option(
        None,
        "the whole run's seconds: no candidate is started past 60 % of them on a model (85 % on a dispatch "
        "benchmark), the rest left to the checks in the model, which shorten once it is spent (5 rounds, not "
        "extended, no fallback); each stage's time is reported",
        "--time-budget",
        check=positive_float,
        metavar="SECONDS",
    )
    output: Path | None = option(
        None,
        "where the tuning spec is written besides the run folder (the only file written outside the data "
        "home); the library writes to the run folder alone (RUN/best_spec.mlir) unless given one, so that it "
        "overwrites nothing unasked",
        "-o",
        "--output",
        check=Path,
        cli_default=Path("best_spec.mlir"),
    )
    run_dir: Path | None = option(
        None, "the run directory (default: a new {runs}/<time>-<input>)", "--run-dir", check=Path
    )
    dataset_dir: Path | None = option(
        None, "where records are written, one folder per arch (default: {datasets})", "--dataset-dir", check=Path
    )
    model_dir: Path | None = option(
        None,
        "the learned rankers' models: this folder alone (default: {models}, then the shipped {shipped})",
        "--model-dir",
        check=Path,
    )
    function: str | None = option(
        None, "the public function to benchmark (default: main or the only one)", "--function"
    )
    seed: int = option(0, "seed for shuffling, rankers and input data", "--seed", check=seed)
    jobs: int | None = option(None, "parallel compiles (default: every usable CPU)", "--jobs", check=positive_int)
    devices: str | None = option(
        None,
        "runtime devices to benchmark on, comma-separated (or a list), one benchmark per device at a time "
        "(default: local-task for CPUs, hip://0 or cuda://0 for GPUs)",
        "--devices",
        joined=True,
    )
    batch: int = option(
        BATCH_SIZE,
        "candidates compiled together and timed by one runtime process; larger batches use more cores and "
        "start fewer processes, adaptive rankers learn between batches",
        "--batch",
        check=positive_int,
    )
    min_speedup: float = option(
        1.03, "a config is kept only if it beats IREE's default by this factor", "--min-speedup", check=speedup
    )
    near_default: float | None = option(
        None,
        "the share of each dispatch's picks taken from the untried candidates nearest the fastest config so "
        "far, IREE's default at first (CPU spaces; 0: the ranker's order alone; default 0.25, and 0 for the "
        "reference orders none, shuffle and shuffle-lowerings)",
        "--near-default",
        check=share,
        metavar="SHARE",
    )
    top: int | None = option(
        None,
        "tune the K problems that take most of a model's time (default: the fewest covering 80 %)",
        "--top",
        check=positive_int,
        metavar="K",
    )
    starter_spec: Path | None = option(
        None,
        "a tuning spec to merge with the result; mltune's configs win where both match",
        "--starter-spec",
        check=Path,
        metavar="FILE",
    )
    flag_search: bool = option(
        False,
        "first measure compile-flag variants (--iree-opt-data-tiling, CPU only) on the untuned model and tune "
        "under the winner",
        "--flag-search",
        switch=True,
    )
    screen: str = option(
        "auto",
        "a model's candidates: timed first on the dispatch's dumped benchmark (dispatch) or the problem's "
        "one-op model (one-op), only the best --screen-finalists in the whole model; none: every one in the whole "
        "model; auto: dispatch for models of several dispatches",
        "--screen",
        choices=SCREENS,
    )
    screen_finalists: int = option(
        DEFAULT_FINALISTS,
        "with a screen: the K screened best of each dispatch timed in the whole model",
        "--screen-finalists",
        check=positive_int,
        metavar="K",
    )
    timing: str = option(
        "auto",
        "compare candidates per call, or per kernel (each dispatch repeated in a call, so the call's fixed "
        "cost does not hide the kernels; the count is calibrated); auto: kernel on GPUs, call on CPUs. What is "
        "emitted is also timed per call",
        "--timing",
        choices=TIMINGS,
    )
    iree_flags: tuple[str, ...] = option(
        (),
        "an iree-compile flag for IREE's default and every candidate alike, e.g. --iree-flag=--iree-opt-level=O3 "
        "(repeatable)",
        "--iree-flag",
        check=iree_flag,
        metavar="FLAG",
        repeat=True,
    )
    inputs: tuple[str, ...] = option(
        (),
        "one argument of the model, in the syntax of IREE's tools (iree-run-module --input): @file.npy, "
        "1x128xi64=@file.bin (raw), 1x128xi64=1 (one value fills the tensor), 2xf32=1,2 (values); once per "
        "argument, in order, each checked against the compiled model's argument types (default: seeded random "
        "values, see --int-range)",
        "--input",
        metavar="VALUE",
        repeat=True,
    )
    shape: str | None = option(
        None,
        "for a model exported with dynamic dimensions: the arguments' types to tune for, in IREE's syntax, "
        "comma-separated (e.g. 1x128xi64); the model is specialised to them and their values generated. On the "
        "command line, repeat it for several shapes: one run each, and one spec linking every shape's configs (-o); "
        "the library's `tune_shapes` does the same",
        "--shape",
        metavar="TYPES",
        cli_dest="shapes",
        cli_default=[],
        run_each=True,
    )
    parameters: tuple[str, ...] = option(
        (),
        "a parameter archive (.irpa, .gguf, .safetensors) the model's weights are read from, as IREE's "
        "--parameters=, e.g. model=weights.irpa (repeatable)",
        "--parameters",
        metavar="[SCOPE=]FILE",
        repeat=True,
    )
    int_range: str | None = option(
        None,
        "generated integer arguments are drawn uniformly from LOW to HIGH-1 (default 0:2, i.e. 0 or 1: valid "
        "token ids, positions, attention masks and segment ids for any model; give e.g. 0:30522 for BERT's whole "
        "vocabulary). Booleans are true or false, floats drawn from [-1, 1)",
        "--int-range",
        check=int_range,
        metavar="LOW:HIGH",
        cli_default=DEFAULT_INT_RANGE,
    )
    compile_flags_file: Path | None = option(
        None,
        "iree-compile flags, one per line, for IREE's default and every candidate alike (as the SHARK tuner's "
        "--compile-flags-file; blank lines and # comments skipped)",
        "--compile-flags-file",
        check=Path,
        metavar="FILE",
    )
    benchmark_flags_file: Path | None = option(
        None,
        "how to call the model, one flag per line as IREE's tools take them: --input=..., "
        "--parameters=SCOPE=FILE.irpa, --function=NAME (as the SHARK tuner's --model-benchmark-flags-file; other "
        "flags are refused). Relative paths in both files resolve against the current directory, as in IREE's "
        "tools",
        "--benchmark-flags-file",
        check=Path,
        metavar="FILE",
    )
    cluster: str | None = option(
        None,
        "compile and benchmark candidates on a Ray cluster (pip install 'mltune[ray]'): compiles on its CPUs, "
        "one benchmark actor per GPU (or per unit of the 'mltune_bench' resource on CPU nodes); auto: the cluster "
        "`ray start` or RAY_ADDRESS names",
        "--cluster",
        metavar="auto|ray://HOST:PORT",
    )
    shared_fs: bool = option(
        False,
        "with a cluster: the run directory is at the same path on every node (modules travel as paths, not bytes)",
        "--shared-fs",
        switch=True,
    )
    compile_only: bool = option(
        False,
        "compile the first budget candidates of each dispatch in ranker order and report the fraction that "
        "compiled, without benchmarking (for targets with no device here)",
        "--compile-only",
        switch=True,
    )
    progress: str = option(
        "bar",
        "bar (a progress bar per phase), quiet (no progress, only the final report) or verbose (a line for "
        "every benchmark)",
        choices=("bar", "quiet", "verbose"),
        values=(
            ("-q", "--quiet", "quiet", "no progress, only the final report"),
            ("-v", "--verbose", "verbose", "a line for every benchmark, not only a bar"),
        ),
    )

    @staticmethod
    def of(**given: Any) -> TuneOptions:
        """The options from a library call's keywords: an unknown keyword is bad input; a repeated option's
        sequence becomes a tuple, a path's text a `Path`, a list of devices their comma-separated names."""
        known = {spec.name: spec for spec in fields(TuneOptions)}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise UserError(f"tune: unknown option {unknown[0]!r} (the options: {', '.join(known)})")
        values = {}
        for name, value in given.items():
            flag = known[name].metadata["flag"]
            if value is not None and flag.repeat:
                value = flag.each(value)
            elif value is not None and flag.check is Path:
                value = Path(value)
            elif flag.joined and value is not None and not isinstance(value, str):
                value = ",".join(value)
            values[name] = value
        return TuneOptions(**values)
