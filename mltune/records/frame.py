"""Records as data (public): the measured candidates of an arch as a data frame (pandas).

One row per distinct measured candidate of each problem: the problem, the candidate's knobs and features (the
columns `mltune.features.candidate_frame` gives the candidates of a problem being tuned) and its measured ratio
(time / IREE's default time, < 1 is faster). It reads what `mltune train` and `mltune evaluate` read
(`mltune.learn.samples`): records that failed are left out, a candidate measured by several records gets the
median of their ratios, and features are recomputed from each record's problem and knobs, so that a new feature
needs no new measurement. The JSON Lines files themselves are `mltune.records.dataset`'s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from mltune.features.table import candidate_frame
from mltune.learn.samples import ProblemSamples, load_dataset
from mltune.system.paths import user_datasets

if TYPE_CHECKING:
    import pandas

# the columns before the knobs and features: the problem's key and op kind, the target's arch and kind ("cpu",
# "rocm", "cuda"), the candidate's index among the problem's measured candidates, and its measured ratio
RECORD_COLUMNS = ("problem", "op_kind", "arch", "target_kind", "candidate", "ratio")


def samples_frame(problems: Sequence[ProblemSamples]) -> pandas.DataFrame:
    """The measured candidates of `problems` as one frame (columns of problems of other op kinds are NaN)."""
    import pandas as pd

    frames = []
    for samples in problems:
        frame = candidate_frame(samples.ranking_input())
        described = {
            "problem": samples.key,
            "op_kind": samples.problem.op_kind,
            "arch": samples.target.arch,
            "target_kind": samples.target.kind,
            "candidate": range(len(samples.ratios)),
            "ratio": samples.ratios,
        }
        frames.append(pd.concat([pd.DataFrame(described, index=frame.index), frame], axis=1))
    if not frames:
        return pd.DataFrame(columns=list(RECORD_COLUMNS))
    return pd.concat(frames, ignore_index=True)


def load(arch_or_folder: str | os.PathLike[str], dataset_dir: str | os.PathLike[str] | None = None) -> pandas.DataFrame:
    """The measured candidates of one arch as a data frame.

    Args:
        arch_or_folder: An arch's name (e.g. "emeraldrapids"), read under `dataset_dir`; or a folder of record
            files (a `Path`, or a string with a path separator), e.g. `Path("datasets/emeraldrapids")`.
        dataset_dir: The folder of per-arch record folders (`mltune tune --dataset-dir`); default: the user's
            (`$MLTUNE_HOME/datasets`).

    Returns:
        One row per measured candidate: the `RECORD_COLUMNS` (problem, op_kind, arch, target_kind, candidate,
        ratio), then `knob.NAME` and `feature.NAME` columns (`mltune.features.knob_columns`, `feature_columns`).

    Raises:
        UserError: No such folder, no successful measurement in it, or records that cannot be read.
    """
    if isinstance(arch_or_folder, str) and os.sep not in arch_or_folder:
        root, arch = Path(dataset_dir) if dataset_dir is not None else user_datasets(), arch_or_folder
    else:
        folder = Path(arch_or_folder)
        root, arch = folder.parent, folder.name
    return samples_frame(load_dataset(root, arch).problems)
