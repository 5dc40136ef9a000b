"""Dataset records: one self-describing JSON line per measured candidate, under `datasets/ARCH/`.

Each record is flushed and fsynced as it is written, so a crash or Ctrl-C loses nothing
already measured; a torn last line (a kill mid-write), like any malformed record, is skipped
with a warning on load.
"""

from __future__ import annotations

import fcntl
import json
import lzma
import os
import platform
import socket
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median
from typing import IO, Any, Iterable, Iterator

from iree.compiler import version as compiler_version

from mltune.execution.measurement import Measurement
from mltune.records.check import STATUSES, RecordChecker  # noqa: F401 (STATUSES: part of the record format)

SCHEMA_VERSION = 2  # 2 added `target`; 1 records are read too (their facts are rebuilt from `arch`)
READABLE_SCHEMAS = (1, 2)
RECORD_SUFFIXES = (".jsonl", ".jsonl.xz")
FINALS_SUFFIX = ".finals"  # a run's finalists re-measured: RUN.finals.jsonl beside the trials' RUN.jsonl
# Knobs added to a space after records were written, with the value older records implicitly had: GPU
# contraction records from before VectorDistribute was a knob are TileAndFuse; CPU contraction records from
# before the lowering was a knob are the plain (not data-tiled) lowering.
LATER_KNOBS = {"vector_distribute": 0, "lowering": 0, "dt_tile_kib": 0, "dt_threads": 0}


@dataclass(frozen=True)
class Record:
    """One measured (or failed) candidate, one JSON line of a dataset (`docs/learned-ranking.md` reads them; each
    dataset's README says how it was measured)."""

    arch: str
    device: str
    problem: dict[str, Any]
    pipeline: str
    knobs: dict[str, int]
    status: str
    time_us: list[float]
    baseline_us: list[float]
    ranker: str
    position: int
    run_id: str
    level: str  # model | dispatch: where the candidate was timed
    screen: str = ""  # "" timed in the input; else screened on a small module (`mltune.search.screen`) of a model
    detail: str = ""
    target: dict[str, Any] | None = None  # the target's facts (`mltune.targets.stored`); None in imported records
    busy_cores: list[float] = field(default_factory=list)  # per round: cores other processes kept busy
    worker_s: float = 0.0  # what measuring it cost the timing worker: module load, first call, rounds (`Measurement`)
    load_s: float = 0.0  # of which the module's load and first call
    retried_rounds: int = 0  # rounds measured again because other processes' load disturbed them
    compiler: str = compiler_version.VERSION
    timestamp: float = field(default_factory=time.time)
    schema: int = SCHEMA_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def _host_cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_id(runtime_device: str, cores: int) -> str:
    """Stable for one physical machine: host name, the host's CPU model, runtime device and cores used.

    It names the machine that ran the code; the record's `arch` names the CPU it was compiled for.
    """
    return f"{socket.gethostname()}/{_host_cpu_model()}/{runtime_device}/{cores}cores"


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


class RecordWriter:
    """Appends records to one JSON Lines file, durably, one line at a time; the file is opened by the first record,
    so a writer that records nothing leaves no empty file."""

    def __init__(self, path: Path):
        self.path = path
        self._handle: IO[str] | None = None

    def append(self, record: Record) -> None:
        self.append_json(asdict(record))

    def append_json(self, record: dict[str, Any]) -> None:
        """One record as a JSON line, flushed to disk before returning."""
        handle = self._handle or self._open()
        handle.write(json.dumps(record, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())

    def _open(self) -> IO[str]:
        """Open for appending under a shared lock, which `compact` respects: a file compacted (and removed) while
        this waited for the lock is opened anew, so that no record goes to a removed file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            handle = open(self.path, "a", encoding="utf-8")
            fcntl.flock(handle, fcntl.LOCK_SH)
            if self.path.exists() and os.stat(self.path).st_ino == os.fstat(handle.fileno()).st_ino:
                break
            handle.close()
        self._handle = handle
        if self._handle.tell() > 0 and not _ends_with_newline(self.path):
            self._handle.write("\n")  # end a line torn by a kill, so the next record stands alone
        return self._handle

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()


def record_rounds(record: dict[str, Any]) -> list[float]:
    """`Measurement.round_ratios` of a stored record: candidate time / baseline time of each round; none without
    both times, one baseline per round and all of them positive, or for a record that did not run."""
    times, baselines = record.get("time_us") or [], record.get("baseline_us") or []
    if len(times) != len(baselines) or min(baselines, default=1.0) <= 0:
        return []
    return Measurement(-1, record.get("status"), tuple(times), tuple(baselines)).round_ratios


def pooled_ratio(records: Iterable[dict[str, Any]]) -> float:
    """One candidate's ratio over all its records: the median of every usable round's time / baseline, so that a
    finalist's re-measure (9 to 30 rounds) outweighs its 3-round screening; inf when no record has a usable round."""
    rounds = [ratio for record in records for ratio in record_rounds(record)]
    return float(median(rounds)) if rounds else float("inf")


def record_ratio(record: dict[str, Any]) -> float:
    """`Measurement.ratio` of a stored record: the median over its rounds of candidate time / baseline time; inf
    where it has no usable round (`record_rounds`)."""
    return pooled_ratio([record])


def knobs_over(knobs: dict[str, int], names: Iterable[str]) -> dict[str, int] | None:
    """A record's knobs over a space's knob `names`: a knob the space gained after the record was written takes
    its `LATER_KNOBS` value; None when the names differ otherwise (another space's record)."""
    names = set(names)
    filled = {**{name: LATER_KNOBS[name] for name in names - set(knobs) if name in LATER_KNOBS}, **knobs}
    return filled if set(filled) == names else None


def record_files(folder: Path) -> list[Path]:
    """The record files under `folder`: runs append to `*.jsonl`; finished datasets are kept as `*.jsonl.xz`."""
    return sorted(f for suffix in RECORD_SUFFIXES for f in folder.rglob(f"*{suffix}"))


def _open_records(file: Path):
    """Binary: a record file's bytes decide what is JSON, not the locale's text decoding."""
    return lzma.open(file, "rb") if file.name.endswith(".xz") else open(file, "rb")


def compact(folder: Path) -> tuple[list[Path], list[str]]:
    """Compress each record file `*.jsonl` under `folder` to `*.jsonl.xz` (about 20x smaller), checked by reading it
    back before the original is removed; returns the files written and, one line each, the `*.jsonl` files left
    as they were (hidden, not a plain file, or not every line a record)."""
    written, left = [], []
    check = RecordChecker()
    for file in sorted(folder.rglob("*.jsonl")):
        if file.is_symlink() or not file.is_file():
            left.append(f"{file}: not a plain file")
            continue
        with open(file, "rb") as held:
            try:  # a run appending to it holds a shared lock (`RecordWriter`): leave it to that run
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                left.append(f"{file}: a live run is appending to it (compact it once the run has ended)")
                continue
            refusal = _not_a_record_file(file, folder, check)
            if refusal is not None:
                left.append(f"{file}: {refusal}")
                continue
            written.append(_compress(file))
    return written, left


def _compress(file: Path) -> Path:
    """`file` as `file.xz` (after the records of an earlier compaction of the same file, which a resumed run
    follows), written beside it and read back before it replaces the `.xz` and the original goes; the caller
    holds the file's exclusive lock."""
    packed = file.with_name(file.name + ".xz")
    earlier = ""
    if packed.exists():
        with _open_records(packed) as handle:
            earlier = handle.read().decode("utf-8")
    text = earlier + file.read_text(encoding="utf-8")
    staged = packed.with_name(packed.name + ".partial")
    with lzma.open(staged, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as handle:
        handle.write(text)
    with lzma.open(staged, "rb") as handle:
        if handle.read().decode("utf-8") != text:
            raise OSError(f"{staged} does not read back as {file}")
    os.replace(staged, packed)
    file.unlink()
    return packed


def _not_a_record_file(file: Path, folder: Path, check: RecordChecker) -> str | None:
    """Why `file` is no record file to compact (None: every line a record of a known schema, each usable)."""
    if any(part.startswith(".") for part in file.relative_to(folder).parts):
        return "a hidden file"
    if file.is_symlink() or not file.is_file():
        return "not a plain file"
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        return f"cannot be read as text ({getattr(err, 'strerror', None) or err})"
    if not any(line.strip() for line in lines):
        return "holds no record"
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return f"line {number} is not a complete JSON record"
        if not isinstance(record, dict) or record.get("schema") not in READABLE_SCHEMAS:
            return f"line {number} is not a record of schema {' or '.join(map(str, READABLE_SCHEMAS))}"
        reason = check(record)
        if reason is not None:
            return f"line {number}: {reason}"
    return None


def _config_key(record: dict[str, Any]) -> str:
    """One config of one problem, whatever run measured it."""
    return json.dumps([record["problem"], record["knobs"]], sort_keys=True)


def _file_records(file: Path, record_error: RecordChecker) -> list[dict[str, Any]]:
    """The usable records of one file; the rest are counted in one warning (other schemas are skipped silently)."""
    try:
        with _open_records(file) as handle:
            lines = handle.read().splitlines()
    except (OSError, EOFError, lzma.LZMAError) as err:  # a folder named *.jsonl, no permission, a torn .xz, ...
        print(f"warning: {file}: skipped, cannot be read ({getattr(err, 'strerror', None) or err})", file=sys.stderr)
        return []
    records: list[dict[str, Any]] = []
    skipped, first = 0, ""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # torn by a kill mid-write, binary, not JSON
            reason = "not a complete JSON record"
        else:
            if isinstance(record, dict) and record.get("schema") not in READABLE_SCHEMAS:
                continue
            reason = record_error(record)
            if reason is None:
                records.append(record)
                continue
        skipped += 1
        first = first or f"{file}:{number}: {reason}"
    if skipped:
        print(
            f"warning: skipped {skipped} unusable record{'s' if skipped > 1 else ''} of {file} (first: {first})",
            file=sys.stderr,
        )
    return records


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every usable record of one file or of every record file under a folder (`mltune.records.check` says which
    are usable; the others are skipped with one counted warning per file).

    A config that any record read marks `wrong_result` (it computed something else) is read as
    `wrong_result` in every record: the times measured before it was refused never make it look fast."""
    files = record_files(path) if path.is_dir() else [path]
    check = RecordChecker()
    records = [record for file in files for record in _file_records(file, check)]
    refused = {_config_key(record) for record in records if record["status"] == "wrong_result"}
    for record in records:
        if record["status"] != "wrong_result" and refused and _config_key(record) in refused:
            record = {**record, "status": "wrong_result"}
        yield record
