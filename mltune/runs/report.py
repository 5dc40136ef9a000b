"""What a tuning run found: the dispatches it saw and, per dispatch, its trials and kept config.

`mltune tune` builds it; the result table and `summary.json` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mltune.execution.kernel_timing import KernelTiming
from mltune.input.dispatches import Dispatch
from mltune.input.files import ParameterArchive
from mltune.whole_model.budget import Allocation
from mltune.whole_model.fallback import Attempt
from mltune.whole_model.finish import ModelOutcome
from mltune.whole_model.flags import FlagChoice
from mltune.whole_model.host_reference import HostCheck
from mltune.whole_model.profile import DispatchProfile
from mltune.search.results import DispatchResult


@dataclass
class TuneReport:
    """What a run found, for the final table and `summary.json`."""

    input_level: str  # model | dispatch
    baseline_us: float
    dispatches: list[Dispatch]
    results: list[DispatchResult]
    spec_path: Path | None
    requested_output: Path
    wall_seconds: float
    tool_seconds: float
    records_path: Path
    output_kind: str = "spec"  # spec | source (CUDA: the input annotated with the winners' compilation_info)
    profiles: list[DispatchProfile] = field(default_factory=list)
    allocations: list[Allocation] = field(default_factory=list)
    flags: FlagChoice | None = None
    model: ModelOutcome | None = None
    command: str = ""
    kernel_timing: KernelTiming | None = None  # set when candidates were timed at kernel level
    numerics: dict[str, str] = field(default_factory=dict)  # per dispatch: its winner's numerics verdict
    attempts: list[Attempt] = field(default_factory=list)  # model level: each result tried, the last one `model`'s
    arguments: tuple[str, ...] = ()  # model level: each argument's type and where its values came from
    parameters: tuple[ParameterArchive, ...] = ()  # the parameter archives every build ran with
    host: HostCheck | None = None  # GPU model runs: IREE's default build's outputs against the host CPU's
    stage_seconds: dict[str, float] = field(default_factory=dict)  # the run's wall time, stage by stage
    time_budget: float | None = None  # the run's `--time-budget`, seconds

    @property
    def overhead_fraction(self) -> float:
        return max(0.0, self.wall_seconds - self.tool_seconds) / self.wall_seconds if self.wall_seconds else 0.0
