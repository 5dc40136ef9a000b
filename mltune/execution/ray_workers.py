"""What runs on a Ray cluster's nodes: compile tasks on CPU workers and one long-lived benchmark actor per device.

Without a shared filesystem, a node sees nothing of the driver's files: the source goes to compile tasks through
the object store and is written once per worker process; a compile task sends the module's bytes back; an actor
fetches a group's baseline and argument files from the object store the first time it times that group, and gets
each candidate's bytes with its job. Parameter archives (weights, often far larger than everything else) are put in
the object store once and written once per node. Compiles never read them: a module names its parameters, the
runtime loads them. With a shared filesystem, paths travel instead. An actor serves every group of a run, each
against its own baseline: the screens of several dispatches, each on its own small module, share the cluster's
actors. An actor runs the same timing worker as one machine does, in a child process with its own timeout, so a
hung or crashing kernel becomes a measurement, not a dead actor; it keeps that worker from call to call, for every
group (`KeptWorker`).
"""

from __future__ import annotations

import hashlib
import os
import queue
import shutil
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from mltune.emit.apply import Applied
from mltune.execution.build import Builder, BuildResult, candidate_name
from mltune.execution.executor import Workload
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner
from mltune.execution.timing_process import KeptWorker
from mltune.input.tuning_input import Invocation

Artefact = bytes | str  # a module's bytes, or its path on a shared filesystem


def _scratch(kind: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=f"mltune-{kind}-"))


def _local_source(text: str) -> Path:
    """The source written once per worker process and content (tasks of one run share it)."""
    path = (
        Path(tempfile.gettempdir())
        / f"mltune-source-{os.getpid()}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.mlir"
    )
    if not path.exists():
        partial = path.with_suffix(".partial")
        partial.write_text(text)
        partial.replace(path)
    return path


@dataclass(frozen=True)
class ShippedArchive:
    """A parameter archive sent without a shared filesystem: its bytes in the object store (one `ray.put`, however
    many actors), named by their digest so that a node writes each archive once for all its actors and runs."""

    digest: str
    suffix: str  # IREE reads the archive's format from it (.irpa, .gguf, .safetensors)
    data: Any  # ray.ObjectRef of the bytes: fetched only by a node that has no copy yet

    @staticmethod
    def put(path: Path) -> ShippedArchive:
        import ray

        with open(path, "rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()[:32]
        return ShippedArchive(digest, path.suffix, ray.put(path.read_bytes()))


def _local_archive(shipped: ShippedArchive) -> Path:
    """The node's copy of an archive, written on first use (atomically: actors of one node may race) and kept in
    its temp folder for later runs of the same weights."""
    import ray

    path = Path(tempfile.gettempdir()) / f"mltune-archive-{shipped.digest}{shipped.suffix}"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(ray.get(shipped.data))
        partial.replace(path)
    return path


def compile_candidate(
    builder: Builder, source_text: str | None, index: int, applied: Applied | None, group: str
) -> tuple[BuildResult, bytes | None]:
    """Compile one candidate on this node; `source_text` None: the builder's paths are shared with the driver."""
    if source_text is None:
        return builder.compile(index, applied, candidate_name(group, index)), None
    work_dir = _scratch("build")
    try:
        local = replace(
            builder, tuning_input=replace(builder.tuning_input, source=_local_source(source_text)), work_dir=work_dir
        )
        build = local.compile(index, applied, candidate_name(group, index))
        module = build.vmfb.read_bytes() if build.vmfb is not None else None
        return replace(build, vmfb=None), module
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


@dataclass(frozen=True)
class ShippedWorkload:
    """A group's module to time against and how to call it, as an actor gets it: without a shared filesystem the
    baseline's and the argument files' bytes sit in the object store, once, and an actor fetches them the first time
    it times that group (the references are nested, so Ray does not resolve them for every call); with one, paths."""

    invocation: Invocation
    baseline: Any  # ray.ObjectRef of the baseline's bytes, or its path on a shared filesystem
    inputs: list | None  # one ray.ObjectRef per argument file; None on a shared filesystem
    archives: tuple[ShippedArchive, ...] | None

    @staticmethod
    def put(workload: Workload, shared_fs: bool) -> ShippedWorkload:
        import ray

        if shared_fs:
            return ShippedWorkload(workload.invocation, str(workload.baseline), None, None)
        return ShippedWorkload(
            workload.invocation,
            ray.put(workload.baseline.read_bytes()),
            [ray.put(f.path.read_bytes()) for f in workload.invocation.inputs],
            tuple(ShippedArchive.put(a.path) for a in workload.invocation.parameters),
        )


class BenchmarkActor:
    """One device's benchmarker: measures candidates against its own copy of their group's baseline on its own
    device, so each ratio is normalised on the device that measured it. It keeps each group it timed (a restarted
    actor starts with none and gets them again with its next calls)."""

    def __init__(self, device: str):
        self.device, self.dir = device, _scratch("bench")
        self.loaded: dict[str, tuple[Runner, Path]] = {}
        self.kept = KeptWorker()  # one timing worker for every group's runner

    def _workload(self, key: str, shipped: ShippedWorkload) -> tuple[Runner, Path]:
        """The runner and baseline of group `key`, placed on this node the first time it is timed here."""
        import ray

        if key in self.loaded:
            return self.loaded[key]
        folder = self.dir / f"workload{len(self.loaded)}"
        folder.mkdir()
        invocation = shipped.invocation
        if shipped.inputs is not None:  # no shared filesystem: the argument files' bytes
            files = []
            for position, (spec, data) in enumerate(zip(invocation.inputs, ray.get(shipped.inputs))):
                path = folder / f"input{position}{spec.path.suffix}"
                path.write_bytes(data)
                files.append(replace(spec, path=path))
            invocation = replace(invocation, inputs=tuple(files))
        if shipped.archives is not None:  # no shared filesystem: each archive once per node, from the object store
            invocation = replace(
                invocation,
                parameters=tuple(
                    replace(spec, path=_local_archive(archive))
                    for spec, archive in zip(invocation.parameters, shipped.archives)
                ),
            )
        baseline = shipped.baseline if isinstance(shipped.baseline, str) else ray.get(shipped.baseline)
        self.loaded[key] = (
            Runner(invocation, self.device, folder, kept=self.kept),
            self._place(f"{folder.name}/baseline", baseline),
        )
        return self.loaded[key]

    def _place(self, name: str, artefact: Artefact) -> Path:
        if isinstance(artefact, str):
            return Path(artefact)
        path = self.dir / f"{name}.vmfb"
        path.write_bytes(artefact)
        return path

    def pid(self) -> int:
        """The actor's process (answers once the actor is up)."""
        return os.getpid()

    def prepare(self, key: str, shipped: ShippedWorkload) -> None:
        """Load group `key`'s workload into the timing worker (started if need be) before its candidates arrive."""
        runner, baseline = self._workload(key, shipped)
        runner.prepare(baseline)

    def measure(
        self, key: str, shipped: ShippedWorkload, jobs: Sequence[tuple[int, Artefact]], plan: TimingPlan
    ) -> Iterator[Measurement]:
        """Yield each candidate's measurement (candidates of group `key`) as soon as the timing worker gives it (a
        Ray streaming generator)."""
        runner, baseline = self._workload(key, shipped)
        items = [(index, self._place(f"candidate_{index}", artefact)) for index, artefact in jobs]
        results: queue.Queue = queue.Queue()
        failure: list[BaseException] = []

        def work() -> None:  # the thread that starts the timing worker waits for it (it dies with this thread)
            try:
                runner.measure(baseline, items, plan, results.put)
            except BaseException as err:  # noqa: BLE001 - handed to the generator, raised there
                failure.append(err)
            finally:
                results.put(None)

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        try:
            for measurement in iter(results.get, None):  # Ray drives the generator with send(): no yield from
                yield measurement
        finally:
            thread.join()
            for _, path in items:
                if path.parent == self.dir:
                    path.unlink(missing_ok=True)
        if failure:
            raise failure[0]

    def measure_all(
        self, key: str, shipped: ShippedWorkload, jobs: Sequence[tuple[int, Artefact]], plan: TimingPlan
    ) -> list[Measurement]:
        """`measure`'s measurements together, for drivers that cannot take a stream (Ray Client)."""
        return list(self.measure(key, shipped, jobs, plan))
