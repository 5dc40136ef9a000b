"""Where a run's measurements go: every trial to the arch's dataset and to the run folder (so that a crash or a
kill loses none, and `--resume` finds them), finalists re-measured to a file of their own beside the dataset."""

from __future__ import annotations

from pathlib import Path

from mltune.records.dataset import FINALS_SUFFIX, Record, RecordWriter
from mltune.runs.directory import RESULTS_FILE
from mltune.search.resume import reconcile


class RunRecords:
    """The run's record files, opened by their first record; `earlier` holds what an interrupted run of the same
    folder measured already."""

    def __init__(self, dataset_dir: Path, arch: str, run_dir: Path):
        run_id = run_dir.name
        files = [dataset_dir / arch / f"{run_id}.jsonl", run_dir / RESULTS_FILE]
        self.earlier = reconcile(files)  # an interrupted run's trials, in both files
        self._trials = [RecordWriter(path) for path in files]
        self._finals = RecordWriter(dataset_dir / arch / f"{run_id}{FINALS_SUFFIX}.jsonl")

    @property
    def path(self) -> Path:
        """The dataset file the run's trials go to."""
        return self._trials[0].path

    def write(self, record: Record) -> None:
        for writer in self._trials:
            writer.append(record)

    def write_finalist(self, record: Record) -> None:
        self._finals.append(record)

    def close(self) -> None:
        for writer in (*self._trials, self._finals):
            writer.close()
