"""Compile candidates in parallel subprocesses, each with its own spec or annotated source, output and timeout."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from joblib import Parallel, delayed

from mltune.emit.apply import Applied
from mltune.input.tuning_input import TuningInput
from mltune.system.tools import HANG_IDLE_S, run_compiler, tool_path

COMPILE_TIMEOUT_S = 120.0
NOT_APPLIED = "not_applied"  # a candidate built to IREE's default module: its configuration did not take effect


@dataclass(frozen=True)
class BuildResult:
    """One compile: `ok` with a vmfb and its hash, or `compile_error` / `timeout` with the reason; `not_applied`
    when the vmfb is IREE's default build byte for byte (`unapplied`)."""

    index: int
    status: str
    vmfb: Path | None
    sha256: str = ""
    detail: str = ""
    seconds: float = 0.0


def unapplied(build: BuildResult, default_sha256: str) -> BuildResult:
    """`build` marked `not_applied` when it is byte-identical to IREE's default build (hash `default_sha256`; ""
    checks nothing): its spec matched no op, or set IREE's own choice, so timing it would time the default."""
    if build.status != "ok" or not default_sha256 or build.sha256 != default_sha256:
        return build
    return replace(
        build,
        status=NOT_APPLIED,
        detail="the build is identical to IREE's default build: the configuration did not take effect",
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Builder:
    """Compiles the tuning input, with or without a spec, into `work_dir`."""

    tuning_input: TuningInput
    work_dir: Path
    jobs: int
    timeout_s: float = COMPILE_TIMEOUT_S
    idle_s: float | None = HANG_IDLE_S

    def compile(self, index: int, applied: Applied | None, name: str) -> BuildResult:
        """Compile the input as it is (`applied` None: IREE's default) or with one candidate applied."""
        out_dir = self.work_dir / name
        out_dir.mkdir(parents=True, exist_ok=True)
        vmfb = out_dir / "module.vmfb"
        source = self.tuning_input.source
        extra = []
        if applied is not None and applied.kind == "spec":
            if applied.text:  # empty: the candidate is compile flags only
                spec = out_dir / "spec.mlir"
                spec.write_text(applied.text)
                extra.append(f"--iree-codegen-tuning-spec-path={spec}")
        elif applied is not None:
            source = out_dir / "annotated.mlir"
            source.write_text(applied.text)
        flags = applied.flags if applied is not None else ()
        args = [
            tool_path("iree-compile"),
            str(source),
            *self.tuning_input.compile_flags,
            *flags,
            *extra,
            "-o",
            str(vmfb),
        ]
        result = run_compiler(args, timeout_s=self.timeout_s, idle_s=self.idle_s)
        if result.timed_out:
            return BuildResult(index, "timeout", None, detail=result.describe_failure(), seconds=result.seconds)
        if not result.ok:
            (out_dir / "compile_stderr.txt").write_text(result.stderr_tail)
            return BuildResult(index, "compile_error", None, detail=result.describe_failure(), seconds=result.seconds)
        return BuildResult(index, "ok", vmfb, _sha256(vmfb), seconds=result.seconds)

    def compile_many(self, jobs: Sequence[tuple[int, Applied]], group: str = "") -> list[BuildResult]:
        """Compile (index, applied candidate) pairs with `self.jobs` processes at a time. Each goes to
        `work_dir/group/candidate_INDEX/` (indices restart with every dispatch)."""
        return self.compile_named([(index, applied, candidate_name(group, index)) for index, applied in jobs])

    def compile_named(self, jobs: Sequence[tuple[int, Applied | None, str]]) -> list[BuildResult]:
        """Compile (index, applied, folder name) triples with `self.jobs` processes at a time (one `iree-compile`
        keeps about one core busy); threads only wait on them."""
        return Parallel(n_jobs=self.jobs, prefer="threads")(
            delayed(self.compile)(index, applied, name) for index, applied, name in jobs
        )

    def candidate_vmfb(self, group: str, index: int) -> Path:
        """Where `compile_many` puts candidate `index` of `group`."""
        return self.work_dir / candidate_name(group, index) / "module.vmfb"


def candidate_name(group: str, index: int) -> str:
    """The folder of candidate `index` of `group`, relative to a builder's work directory."""
    return str(Path(group) / f"candidate_{index:06d}")
