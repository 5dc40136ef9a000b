"""A tuning run's request: every setting the stages of `mltune.tuning.tune` read, in one place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mltune.input.call_inputs import CallInputs
from mltune.search.settings import LoopSettings
from mltune.search.defaults import DEFAULT_FINALISTS
from mltune.targets import Target


@dataclass(frozen=True, kw_only=True)
class TuneRequest:
    """One tuning run's whole request, built by keyword (`mltune.tuning.library_call` builds it from the checked
    arguments): what to tune, for which target, with which ranker and budget, and where everything goes."""

    input_path: Path
    target: Target
    ranker: str
    settings: LoopSettings
    output: Path
    run_dir: Path
    dataset_dir: Path
    function: str | None = None
    seed: int = 0
    jobs: int = 2
    devices: tuple[str, ...] = ("local-task",)
    top: int | None = None  # problems to tune in a model; None: those covering most of its time
    starter_spec: Path | None = None
    flag_search: bool = False  # flag variants are CPU flags: measured only for CPU targets
    compile_flags: tuple[str, ...] = ()  # the user's own iree-compile flags, for the default and every candidate
    timing: str = "auto"  # call | kernel | auto (kernel on GPUs): see `mltune.execution.kernel_timing`
    model_dir: Path | None = (
        None  # learned rankers' models: this folder alone, None for `mltune.system.paths`' search path
    )
    cluster: str | None = None  # a Ray cluster's address (joined already): compile and benchmark candidates there
    shared_fs: bool = False  # the run directory is at the same path on every node of the cluster
    call_inputs: CallInputs = CallInputs()  # the user's --input values, --parameters and --int-range
    screen: str = "auto"  # a model's candidates screened on a small module first: `mltune.search.screen`
    screen_finalists: int = DEFAULT_FINALISTS  # per dispatch, the screen's best timed in the whole model
    near_default: float | None = None  # picks near the incumbent (`mltune.rankers.near_incumbent`); None: the default
