"""The executor of a Ray cluster: compile tasks on its CPUs, one benchmark actor per device, results streamed back.

Compiles are Ray tasks (`num_cpus=1`; Ray runs one again elsewhere when its worker dies). Each device gets one
long-lived actor (`num_gpus=1` on GPU nodes; on CPU-only nodes one unit of the custom resource `mltune_bench`,
which a node declares for each set of cores it keeps for benchmarking) that measures against its own baseline
copy; one actor serves every group of the run, groups with a module of their own (`groups`) included.
An actor streams each measurement back as soon as it is taken; when it dies mid-call, the jobs it had not
answered yet go back to the queue, so each job gives exactly one result, and the actor (restarted by Ray) is used
again once it answers. Compiles and benchmarks overlap: the loop refills as results arrive. Rankers stay here,
on the driver.
"""

from __future__ import annotations

import os
import socket
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from mltune.errors import RunFailure, UserError
from mltune.execution.build import Builder
from mltune.execution.executor import BenchmarkJob, CompileJob, OnJobResult, Workload
from mltune.execution.ray_workers import Artefact, BenchmarkActor, ShippedWorkload, compile_candidate
from mltune.input.tuning_input import Invocation

BENCH_RESOURCE = "mltune_bench"
ACTOR_RESTARTS = 3  # an actor that died this many times in a row is given up
COMPILE_RETRIES = 3
RESTART_PAUSE_S = 0.5
CONNECT_TIMEOUT_S = 5.0


def connect(address: str) -> None:
    """Join the Ray cluster at `address` (`auto`: the one `ray start` or RAY_ADDRESS names; `ray://HOST:PORT`)."""
    try:
        import ray
    except ImportError:
        raise UserError("--cluster needs Ray: pip install 'mltune[ray]'") from None
    if ray.is_initialized():
        return
    resolved = _auto_address() if address == "auto" else address
    _check_reachable(resolved, address)
    try:
        ray.init(address=resolved, log_to_driver=False, logging_level="ERROR")
    except Exception as err:  # noqa: BLE001 - Ray raises many kinds for an unreachable cluster
        line = (str(err).strip().splitlines() or [type(err).__name__])[0][:300]
        raise UserError(f"--cluster {address}: cannot join the Ray cluster: {line}") from None


def _auto_address() -> str:
    """The cluster RAY_ADDRESS names, or else the one `ray start` started last on this machine."""
    from ray._private.services import canonicalize_bootstrap_address_or_die

    try:
        return os.environ.get("RAY_ADDRESS") or canonicalize_bootstrap_address_or_die("auto")
    except Exception:  # noqa: BLE001 - Ray says "none found" in several ways
        raise UserError(
            "--cluster auto: no Ray cluster runs here (start one with `ray start --head`, or set RAY_ADDRESS)"
        ) from None


def _check_reachable(resolved: str, address: str) -> None:
    """Fail at once when nothing listens at HOST:PORT (Ray itself keeps trying for minutes)."""
    host, _, port = resolved.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except ValueError:
        raise UserError(f"--cluster {address}: expected auto, HOST:PORT or ray://HOST:PORT") from None
    except OSError as err:
        raise UserError(f"--cluster {address}: nothing answers there ({err.strerror or err})") from None


def call_share(queued: int, unanswered: int, actors: int) -> int:
    """How many queued benchmarks an idle actor takes in one call: its fair part of all the work not yet answered
    (queued, and in the calls of busy actors). Dividing the queue among the idle actors alone let the first actor
    to free up take the whole queue while the others, a moment from done, were left with nothing, so several GPUs
    timed one dispatch at about one GPU's rate. The part is rounded down: with two jobs queued and the other actor
    busy with a third, rounding up took both, and that actor, free a moment later, found none, so the model stage of
    a screened run ended one whole-model measurement late (`docs/scaling.md`)."""
    return max(1, min(queued, (queued + unanswered) // max(actors, 1)))


@dataclass(frozen=True)
class _Shipped:
    """A workload as the cluster gets it: the builder and source for compile tasks, the rest for the actors."""

    workload: Workload
    builder: Any  # ray.ObjectRef of the Builder
    source: Any  # ray.ObjectRef of the source's text; None on a shared filesystem
    benchmark: ShippedWorkload


@dataclass
class _Call:
    """One actor's measure call in flight: its jobs, and the positions of those already answered."""

    actor: int
    jobs: list[BenchmarkJob]
    answered: set[int] = field(default_factory=set)


@dataclass
class RayExecutor:
    """Runs the loop's jobs on the Ray cluster this process joined (`connect`)."""

    builder: Builder  # with `baseline` and `invocation`: the workload of every group not in `groups`
    baseline: Path
    invocation: Invocation
    device: str  # each actor's runtime device: Ray shows an actor only its own GPU, so `cuda://0` on GPU nodes
    gpu: bool
    shared_fs: bool = False  # the driver's paths are the same files on every node: send paths, not bytes
    window: int = 8  # the loop's batch: grown below to keep every CPU and actor busy
    pipelined: bool = True
    tool_seconds: float = 0.0  # the driver's time waiting on the cluster
    groups: Mapping[str, Workload] = field(default_factory=dict)  # groups with a module of their own (screens)
    _shipped: dict[str, _Shipped] = field(default_factory=dict)  # by workload key, once first used
    _compiling: dict[Any, CompileJob] = field(default_factory=dict)
    _compiles: deque[CompileJob] = field(default_factory=deque)
    _benchmarks: deque[BenchmarkJob] = field(default_factory=deque)
    _measuring: dict[Any, _Call] = field(default_factory=dict)
    _recovering: dict[Any, int] = field(default_factory=dict)
    _preparing: dict[Any, int] = field(default_factory=dict)  # actors starting a group's timing worker early
    _streams: bool = field(init=False, default=True)  # measurements streamed back one by one

    def __post_init__(self) -> None:
        import ray

        resources = ray.cluster_resources()
        count = int(resources.get("GPU" if self.gpu else BENCH_RESOURCE, 0))
        if count == 0:
            wanted = (
                "no GPU"
                if self.gpu
                else f"no '{BENCH_RESOURCE}' resource (ray start --resources "
                f"'{{\"{BENCH_RESOURCE}\": 1}}' on each benchmarking node)"
            )
            raise UserError(f"--cluster: the Ray cluster has {wanted}")
        placement = {"num_gpus": 1} if self.gpu else {"num_cpus": 0, "resources": {BENCH_RESOURCE: 1}}
        actor = ray.remote(BenchmarkActor).options(max_restarts=ACTOR_RESTARTS, max_task_retries=0, **placement)
        self.actors = [actor.remote(self.device) for _ in range(count)]
        self._idle = list(range(count))
        self._prepared: list[set[str]] = [set() for _ in range(count)]  # groups each actor was given
        self._failures = [0] * count
        # Ray Client has no streaming generators: through it each call's measurements come back together
        from ray.util.client import ray as ray_client

        self._streams = not ray_client.is_connected()
        self._compile = ray.remote(compile_candidate).options(num_cpus=1, max_retries=COMPILE_RETRIES)
        self.window = max(self.window, 2 * count + int(resources.get("CPU", 0)))

    def _key(self, group: str) -> str:
        """The workload a group's jobs use: its own, or the executor's (key "")."""
        return group if group in self.groups else ""

    def _shipping(self, key: str) -> _Shipped:
        """The workload of `key` in the object store, put there the first time one of its jobs is launched."""
        import ray

        if key not in self._shipped:
            workload = self.groups[key] if key else Workload(self.builder, self.baseline, self.invocation)
            source = None if self.shared_fs else ray.put(workload.builder.tuning_input.source.read_text())
            self._shipped[key] = _Shipped(
                workload, ray.put(workload.builder), source, ShippedWorkload.put(workload, self.shared_fs)
            )
        return self._shipped[key]

    def actor_pids(self) -> list[int]:
        """Each benchmark actor's process id, once all are up (call it while they are idle)."""
        import ray

        return ray.get([a.pid.remote() for a in self.actors])

    def submit_compile(self, job: CompileJob) -> None:
        self._compiles.append(job)

    def submit_benchmark(self, job: BenchmarkJob) -> None:
        self._benchmarks.append(job)

    def run(self, on_result: OnJobResult) -> None:
        import ray

        started = time.perf_counter()
        try:
            while self._compiles or self._compiling or self._benchmarks or self._measuring or self._preparing:
                self._launch()
                waiting = [*self._compiling, *self._measuring, *self._recovering, *self._preparing]
                if not waiting:
                    raise RunFailure("every benchmark actor of the Ray cluster died")
                (ready,), _ = ray.wait(waiting, num_returns=1)
                if ready in self._compiling:
                    self._compiled(ready, on_result)
                elif ready in self._measuring:
                    self._measured(ready, on_result)
                elif ready in self._preparing:
                    self._ready(ready)
                else:
                    self._recovered(ready)
        finally:
            self.tool_seconds += time.perf_counter() - started

    def _launch(self) -> None:
        """Every queued compile becomes a task (Ray runs as many as there are CPUs); each idle actor gets its share
        of the queued benchmarks (`call_share`) at once: its timing worker is kept from call to call, so a call of
        one candidate costs no worker's start."""
        while self._compiles:
            job = self._compiles.popleft()
            shipped = self._shipping(self._key(job.group))
            self._compiling[
                self._compile.remote(shipped.builder, shipped.source, job.index, job.applied, job.group)
            ] = job
        while self._benchmarks and self._idle:
            unanswered = sum(len(call.jobs) - len(call.answered) for call in self._measuring.values())
            live = len(self._idle) + len(self._measuring) + len(self._recovering) + len(self._preparing)
            share = call_share(len(self._benchmarks), unanswered, live)
            actor = self._idle.pop(0)
            jobs = self._alike(share)
            key = self._key(jobs[0].group)
            items = [(position, self._artefact(job.vmfb)) for position, job in enumerate(jobs)]  # jobs of
            # several groups may share an index: the actor answers by position in its call
            measure = self.actors[actor].measure if self._streams else self.actors[actor].measure_all
            self._measuring[measure.remote(key, self._shipping(key).benchmark, items, jobs[0].plan)] = _Call(
                actor, jobs
            )
            self._prepared[actor].add(key)
        self._prepare_idle()

    def _prepare_idle(self) -> None:
        """An actor left idle while compiles run loads the workload of the group being compiled into its timing
        worker (starting the worker, a device context: about a second on a GPU, if it has none yet), so that the
        group's first call to it does not wait for that: a whole model's finalists, compiled once its screen is over,
        found every actor idle and each paid that before its first measurement."""
        compiling = list(dict.fromkeys(self._key(job.group) for job in self._compiling.values()))
        for actor in list(self._idle):
            key = next((k for k in compiling if k not in self._prepared[actor]), None)
            if key is not None:
                self._idle.remove(actor)
                self._prepared[actor].add(key)
                self._preparing[self.actors[actor].prepare.remote(key, self._shipping(key).benchmark)] = actor

    def _alike(self, share: int) -> list[BenchmarkJob]:
        """Up to `share` queued jobs for one call, taken in queue order: those of the first job's plan and workload
        (one call times against one baseline with one plan)."""
        first = self._benchmarks[0]
        key, kept, jobs = self._key(first.group), deque(), []
        while self._benchmarks:
            job = self._benchmarks.popleft()
            alike = len(jobs) < share and job.plan == first.plan and self._key(job.group) == key
            (jobs if alike else kept).append(job)
        self._benchmarks = kept
        return jobs

    def _artefact(self, vmfb: Path) -> Artefact:
        return str(vmfb) if self.shared_fs else vmfb.read_bytes()

    def _compiled(self, ref, on_result: OnJobResult) -> None:
        import ray

        job = self._compiling.pop(ref)
        try:
            build, module = ray.get(ref)
        except ray.exceptions.RayError as err:
            raise RunFailure(
                f"a compile task failed {COMPILE_RETRIES + 1} times on the Ray cluster: "
                f"{str(err).strip().splitlines()[0][:300]}"
            ) from None
        if module is not None:  # no shared filesystem: the module came back as bytes, kept where the builder puts it
            path = self._shipping(self._key(job.group)).workload.builder.candidate_vmfb(job.group, job.index)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(module)
            build = replace(build, vmfb=path)
        on_result(job, build)

    def _measured(self, ref, on_result: OnJobResult) -> None:
        """The next measurement of a stream, or (through Ray Client) the call's whole list."""
        import ray

        call = self._measuring[ref]
        try:
            answers = [ray.get(next(ref))] if self._streams else ray.get(ref)
        except StopIteration:
            self._call_done(ref, call)
            return
        except ray.exceptions.RayActorError:
            del self._measuring[ref]
            self._benchmarks.extendleft(
                reversed([job for position, job in enumerate(call.jobs) if position not in call.answered])
            )
            self._lost(call.actor)
            return
        for measurement in answers:
            call.answered.add(measurement.index)
            job = call.jobs[measurement.index]
            on_result(job, replace(measurement, index=job.index))
        if not self._streams:
            self._call_done(ref, call)

    def _ready(self, ref) -> None:
        """An actor that started a group's timing worker early is idle again (or, if it died meanwhile, restarting)."""
        import ray

        actor = self._preparing.pop(ref)
        try:
            ray.get(ref)
        except ray.exceptions.RayActorError:
            self._lost(actor)
            return
        self._idle.append(actor)

    def _lost(self, actor: int) -> None:
        """An actor died: it is used again once Ray has restarted it, unless it died too often in a row."""
        self._failures[actor] += 1
        self._prepared[actor].clear()
        if self._failures[actor] <= ACTOR_RESTARTS:
            self._recovering[self.actors[actor].pid.remote()] = actor

    def _call_done(self, ref, call: _Call) -> None:
        del self._measuring[ref]
        self._failures[call.actor] = 0
        self._idle.append(call.actor)

    def _recovered(self, ref) -> None:
        """An actor that died answers again (Ray restarted it), is still restarting, or is gone for good."""
        import ray

        actor = self._recovering.pop(ref)
        try:
            ray.get(ref)
        except ray.exceptions.ActorUnavailableError:
            time.sleep(RESTART_PAUSE_S)
            self._recovering[self.actors[actor].pid.remote()] = actor
        except ray.exceptions.RayActorError:
            return  # restarts used up: its jobs went to the others
        else:
            self._idle.append(actor)

    def close(self) -> None:
        """Stop the actors (their timing workers die with them) and forget the compiles in flight.

        Compiles are not cancelled: `ray.cancel` on a task whose result is arriving races its completion inside
        Ray's core worker (a failed internal check, "Tried to complete task that was not pending", that ends the
        driver with exit 1; see ray-project/ray#54846). A driver that exits has its tasks ended by Ray with the job; one
        that goes on lets them finish, each within the compile timeout, and drops their results."""
        import ray

        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self._compiling.clear()
        self._measuring.clear()
        self._preparing.clear()
