"""IREE's virtual MMA intrinsics as choices of the GPU contraction space.

A virtual intrinsic issues several hardware MMAs of the same M and N as one, stepping further along K:
ROCm's `VMFMA_F32_16x16x32_F16` is two `MFMA_F32_16x16x16_F16` reading one 32-wide K slice. IREE 3.13
accepts them in a contraction's `mma_kind` (as `#iree_gpu.virtual_mma_layout<...>`), but its emitted
constraints list only hardware intrinsics (`mma_idx`), so a virtual point is checked against them as the
hardware intrinsic it is made of (its *proxy*: same operand types, M and N, a K dividing its K) with the
same K tile in elements.

Which pipeline takes which virtual intrinsic was found by compiling for gfx942 with IREE 3.13
(`tests/test_virtual_mma.py` keeps it so): `VMFMA_F32_16x16x32_F16` compiles with TileAndFuse and
VectorDistribute; `VMFMA_F32_32x32x16_F16` only with VectorDistribute (TileAndFuse fails with
"'iree_codegen.inner_tiled' op failed to populate offsets for operand 2"). Intrinsics not listed here
(the f8 VMFMAs, the 8x16 `VDMFMA`s, whose M and N differ) are not offered.
"""

from __future__ import annotations

import z3

from mltune.spaces.vector_distribute import PIPELINE as VECTOR_DISTRIBUTE
from mltune.targets.gpu import GpuInfo, MmaShape

TILE_AND_FUSE = "TileAndFuse"
# virtual intrinsic -> the pipelines IREE 3.13 compiles it with
VIRTUAL_PIPELINES: dict[str, tuple[str, ...]] = {
    "VMFMA_F32_16x16x32_F16": (TILE_AND_FUSE, VECTOR_DISTRIBUTE),
    "VMFMA_F32_32x32x16_F16": (VECTOR_DISTRIBUTE,),
}
PIPELINE_KNOB = {TILE_AND_FUSE: 0, VECTOR_DISTRIBUTE: 1}  # the `vector_distribute` knob's value of each pipeline


def proxy(virtual: MmaShape, hardware: tuple[MmaShape, ...]) -> MmaShape | None:
    """The hardware intrinsic a virtual one is made of, among `hardware`; None if there is none."""
    return next(
        (
            x
            for x in hardware
            if (x.m, x.n, x.a_type, x.b_type, x.c_type)
            == (virtual.m, virtual.n, virtual.a_type, virtual.b_type, virtual.c_type)
            and virtual.k % x.k == 0
        ),
        None,
    )


def with_virtual(hardware: tuple[MmaShape, ...], gpu: GpuInfo) -> tuple[MmaShape, ...]:
    """The usable hardware intrinsics, then the target's known virtual ones whose proxy is among them."""
    return hardware + tuple(v for v in gpu.virtual_mma if v.name in VIRTUAL_PIPELINES and proxy(v, hardware))


def as_hardware(mmas: tuple[MmaShape, ...]) -> tuple[MmaShape, ...]:
    """Each intrinsic as the hardware one IREE's constraints know: itself, or a virtual one's proxy."""
    hardware = tuple(x for x in mmas if x.name not in VIRTUAL_PIPELINES)
    return tuple(x if x.name not in VIRTUAL_PIPELINES else proxy(x, hardware) for x in mmas)


def k_per_proxy_k(mmas: tuple[MmaShape, ...]) -> list[int]:
    """How many of its proxy's K steps one K step of each intrinsic is (1 for hardware intrinsics)."""
    return [x.k // h.k for x, h in zip(mmas, as_hardware(mmas))]


def pipeline_rules(mma: z3.ArithRef, vector_distribute: z3.ArithRef, mmas: tuple[MmaShape, ...]) -> list[z3.BoolRef]:
    """A virtual intrinsic only with the pipelines that compile it."""
    return [
        z3.Implies(mma == i, z3.Or(*[vector_distribute == PIPELINE_KNOB[p] for p in VIRTUAL_PIPELINES[x.name]]))
        for i, x in enumerate(mmas)
        if x.name in VIRTUAL_PIPELINES
    ]
