"""The GPU `VectorDistribute` space for attention on CUDA, where IREE 3.13 emits no constraints for it.

IREE's constraint generator keeps only intrinsics whose M equals their N for attention (one
`intrinsic_mn` for both matmuls), and every NVIDIA `NV_MMA_SYNC` intrinsic is 16x8, so it emits
nothing on CUDA. This space restates IREE's emitted attention rules (the ROCm ones) with each
intrinsic's own M, N and K: the two matmuls share M and the accumulator layout, tiles divide the
problem (K2 tiles: `k2_tiles`) and are multiples of subgroups x intrinsic, the K1 and K2 tiles are distributable across the
workgroup's threads with 128-bit loads, and the promoted Q, K and V tiles fit in shared memory
(`GpuAttention.shared_memory_rule`). Anything IREE does emit is conjoined. The knobs,
attributes and features are the
ROCm space's (`GpuAttention`), so the loop, rankers and records see one kind of attention space.
"""

from __future__ import annotations

from typing import Sequence

import z3
from iree.compiler import ir

from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.gpu_attention import (
    ACC,
    MAX_TILE,
    AttentionMma,
    GpuAttention,
    _layout,
    is_attention,
)
from mltune.spaces.gpu_contraction import lookup
from mltune.spaces.iree_constraints import EmittedConstraints
from mltune.spaces.space import Space
from mltune.targets.gpu import GpuInfo

LOAD_BITS = 128  # IREE's "inner dim distributable across wg_threads": one 128-bit load per thread


def nvidia_mmas(problem: Problem, gpu: GpuInfo) -> tuple[AttentionMma, ...]:
    """The target's `NV_MMA_SYNC` intrinsics taking the query/key type with an f32 accumulator, as IREE picks them."""
    q_type, k_type = problem.operand_types[0], problem.operand_types[1]
    return tuple(
        AttentionMma(m.name, False, m.m, m.n, m.k)
        for m in gpu.mma
        if m.name.startswith("NV_MMA_SYNC") and m.a_type == q_type and m.b_type == k_type and m.c_type == "f32"
    )


class CudaAttention(GpuAttention):
    """The `Configurator` for an online attention on CUDA with `VectorDistribute`."""

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints] = ()):
        self.problem, self.gpu, self.context = problem, gpu, context
        self.qk_mmas = self.pv_mmas = nvidia_mmas(problem, gpu)
        if not self.qk_mmas:
            raise ValueError(f"{gpu.arch} has no NV_MMA_SYNC intrinsic for {problem.operand_types[0]} attention")
        self.space = self._cuda_space(next((c for c in emitted if is_attention(c)), None))

    def _pairs(self, same: tuple[int, int]) -> list[tuple[int, int]]:
        """(qk, pv) index pairs whose QK fragment `same[0]` has the layout of the PV fragment `same[1]`."""
        with self.context:
            return [
                (i, j)
                for i, qk in enumerate(self.qk_mmas)
                for j, pv in enumerate(self.pv_mmas)
                if _layout(qk, same[0]) == _layout(pv, same[1])
            ]

    def _cuda_space(self, emitted: EmittedConstraints | None) -> Space:
        p, gpu = self.problem, self.gpu
        (k1,) = p.sizes(p.k)
        space = Space(self._knobs(), [])
        v = space.var
        qk, pv = v("qk_mma"), v("pv_mma")
        qk_m, qk_n, qk_k = (lookup(qk, [getattr(x, d) for x in self.qk_mmas]) for d in "mnk")
        pv_m, pv_n, pv_k = (lookup(pv, [getattr(x, d) for x in self.pv_mmas]) for d in "mnk")
        threads = self.workgroup_size_expr(space)
        in_bytes = element_bytes(p.operand_types[0])
        per_load = LOAD_BITS // (8 * in_bytes)

        def distributable(elements: z3.ArithRef) -> z3.BoolRef:
            loads = elements / per_load
            return z3.Or(loads % threads == 0, threads % loads == 0)

        rules = [
            z3.Or([z3.And(qk == i, pv == j) for i, j in self._pairs((ACC, ACC))]),  # one accumulator layout
            qk_m == pv_m,
            v("m_tile") % (v("sg_m") * pv_m) == 0,
            v("n_tile") % (v("sg_n") * pv_n) == 0,
            v("red_k2") % pv_k == 0,
            v("red_k2") % qk_n == 0,
            z3.IntVal(k1) % qk_k == 0,
            v("m_tile") <= MAX_TILE,
            v("n_tile") <= MAX_TILE,
            v("red_k2") <= MAX_TILE,
            threads <= gpu.max_threads,
            distributable(z3.IntVal(k1)),
            distributable(v("red_k2")),
            self.shared_memory_rule(space),
        ]
        if emitted is not None:
            names = {
                "qk_mma_idx": qk,
                "pv_mma_idx": pv,
                "m_tile": v("m_tile"),
                "n_tile": v("n_tile"),
                "red_k2": v("red_k2"),
                "sg_m_cnt": v("sg_m"),
                "sg_n_cnt": v("sg_n"),
                "sg_size": v("sg_size"),
                "wg_size_x": threads,
            }
            rules += emitted.over(names, p.bounds)
        space.constraints = tuple(rules)
        return space
