"""Where a run's measurements go: every trial to the arch's dataset and to the run folder (so that a crash or a
kill loses none, and `--resume` finds them), finalists re-measured to a file of their own beside the dataset."""

from __future__ import annotations

import time
from pathlib import Path

from mltune.records.dataset import FINALS_SUFFIX, Record, RecordWriter
from mltune.runs.directory import RESULTS_FILE
from mltune.search.resume import reconcile


class RunRecords:
    """The run's record files, opened by their first record; `earlier` holds what an interrupted run of the same
    folder measured already."""

    def __init__(self, dataset_dir: Path, arch: str, run_dir: Path):
        run_id = run_dir.name
        self.run_dir = run_dir
        files = [dataset_dir / arch / f"{run_id}.jsonl", run_dir / RESULTS_FILE]
        self.earlier = reconcile(files)  # an interrupted run's trials, in both files
        self._trials = [RecordWriter(path) for path in files]
        self._finals = RecordWriter(dataset_dir / arch / f"{run_id}{FINALS_SUFFIX}.jsonl")

    def reused(self) -> str:
        """What the run takes from its folder's earlier records, said once: how many, when they were measured and
        how busy the machine was, so that no reused number passes for one measured now; "" when none."""
        if not self.earlier:
            return ""
        stamps = [r["timestamp"] for r in self.earlier if isinstance(r.get("timestamp"), (int, float))]
        when = (
            " to ".join(
                dict.fromkeys(time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) for t in (min(stamps), max(stamps)))
            )
            if stamps
            else "at an unknown time"
        )
        busy = [c for r in self.earlier for c in r.get("busy_cores") or []]
        if not (busy and all(r.get("busy_cores") for r in self.earlier)):
            load = "the machine's load then is not recorded"
        elif max(busy) < 0.05:
            load = "no other process kept a core busy while they were timed"
        else:
            load = f"other processes kept up to {max(busy):.1f} cores busy while they were timed"
        return (
            f"note: {len(self.earlier)} measurements recorded in {self.run_dir} from {when} are reused, not taken "
            f"again ({load}); name a new --run-dir to measure everything afresh"
        )

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
