"""Datasets of a target family (cpu or gpu): every arch's problems pooled, so that one model learns from all of them.

An arch folder's family is read from its name (ROCm and CUDA names are GPUs, anything else an
LLVM CPU name), so no record is read to sort the folders. Pooled problems keep their arch in
their key (`znver3/contraction_...`); cross-validation groups them by the problem alone, so a
shape measured on two archs is held out on both at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from mltune.errors import UserError
from mltune.learn.samples import Dataset, ProblemSamples, load_dataset
from mltune.targets.gpu import gpu_target

FAMILIES = ("cpu", "gpu")


def arch_family(arch: str) -> str:
    """ "gpu" for a ROCm or CUDA name, "cpu" for anything else (an LLVM CPU name)."""
    try:
        return "gpu" if gpu_target(arch) is not None else "cpu"
    except UserError:  # a CUDA arch IREE cannot use is still a GPU
        return "gpu"


def family_archs(dataset_dir: Path, family: str, exclude: str | None = None) -> list[str]:
    """The arch folders under `dataset_dir` of `family` (sorted), leaving out `exclude`."""
    if family not in FAMILIES:
        raise UserError(f"unknown family {family!r}; choose one of: {', '.join(FAMILIES)}")
    if not dataset_dir.is_dir():
        raise UserError(f"no datasets: {dataset_dir} is not a directory")
    return sorted(
        sub.name
        for sub in dataset_dir.iterdir()
        if sub.is_dir() and not sub.name.startswith(".") and sub.name != exclude and arch_family(sub.name) == family
    )


@dataclass(frozen=True)
class PooledDataset:
    """The problems of several archs' datasets, keys prefixed with their arch."""

    family: str
    archs: tuple[str, ...]
    problems: list[ProblemSamples]
    datasets: tuple[Dataset, ...]

    @property
    def failed_records(self) -> int:
        return sum(d.failed_records for d in self.datasets)

    @property
    def data_sha256(self) -> dict[str, str]:
        return {d.arch: d.data_sha256 for d in self.datasets}

    @property
    def compilers(self) -> tuple[str, ...]:
        return tuple(sorted({c for d in self.datasets for c in d.compilers}))


def pooled_key(arch: str, key: str) -> str:
    return f"{arch}/{key}"


def load_pooled(dataset_dir: Path, family: str, archs: list[str]) -> PooledDataset:
    """The datasets of `archs` pooled; no arch at all is a one-line error naming the family."""
    if not archs:
        raise UserError(f"no {family} dataset under {dataset_dir} to learn from")
    datasets = tuple(load_dataset(dataset_dir, arch) for arch in archs)
    problems = [replace(p, key=pooled_key(d.arch, p.key)) for d in datasets for p in d.problems]
    return PooledDataset(family, tuple(archs), problems, datasets)
