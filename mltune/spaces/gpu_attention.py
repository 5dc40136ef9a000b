"""The GPU `VectorDistribute` space for attention (`iree_linalg_ext.online_attention`) on ROCm.

IREE decomposes attention into two matmuls, S = Q K^T (M x K2, reducing K1) and O = P V (M x N,
reducing K2), and configures them with two root-op attributes: a `compilation_info` (workgroup
tiles of M and N, the K2 tile, promoted Q/K/V, the workgroup size) and a `decomposition_config`
whose `qk_attrs`/`pv_attrs` give each matmul its MMA intrinsic and subgroup layout.

Knobs (IREE's emitted names in brackets): `qk_mma`, `pv_mma` [`qk_mma_idx`, `pv_mma_idx`]: the
intrinsic of each matmul, virtual ones (VMFMA) included; `m_tile`, `n_tile`, `red_k2`: tiles in
elements; `sg_m`, `sg_n` [`sg_m_cnt`, `sg_n_cnt`]: subgroups along M and N; `sg_size`;
`waves_per_eu`: the `amdgpu-waves-per-eu` LLVM attribute (0 leaves it unset).

The space is IREE's own emitted VectorDistribute attention constraints (they hold the layout rules
that pair the two intrinsics and a shared-memory budget), conjoined with mltune's bounds on the
knob domains and the shared memory IREE's lowering allocates (`shared_memory_expr`). Where the
compiler emits none (CUDA: `docs/gpu-compile-fraction.md` says why) the
rules are mltune's own (`cuda_attention.py`). Like IREE's own configuration, both intrinsics are made column-major when
the QK accumulator layout equals the PV right-hand-side layout (IREE's emitted constraints leave
that to the caller).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import z3
from iree.compiler import ir
from iree.compiler.dialects import iree_gpu

from mltune.emit.op_config import COMPILATION_INFO, attribute_dictionary
from mltune.frontend.problem import Problem, element_bytes
from mltune.spaces.candidate import CandidateSet
from mltune.spaces.gpu_contraction import lookup
from mltune.spaces.iree_constraints import EmittedConstraints, divides_size
from mltune.spaces.space import Knob, Space
from mltune.spaces.vector_distribute import PIPELINE
from mltune.targets.gpu import GpuInfo

MAX_TILE = 512  # IREE: "m_tile <= 512 (max VGPRs)", also n_tile and red_k2
SUBGROUP_COUNTS_M = (1, 2, 4, 8)
SUBGROUP_COUNTS_N = (1, 2)
WAVES_PER_EU = (0, 2)  # IREE's gfx942 default spec sets 2 for attention
LHS, RHS, ACC = 0, 1, 2  # `get_single_subgroup_layout` fragments
_DERIVED = "#iree_gpu.derived_thread_config"
_DENORMAL = '#iree_codegen.denormal_fp_math<"preserve-sign">'  # IREE's attention pipeline attribute


@dataclass(frozen=True)
class AttentionMma:
    """One intrinsic IREE offers an attention matmul: its name, whether it is virtual, its M/N/K."""

    name: str
    virtual: bool
    m: int
    n: int
    k: int

    def intrinsic(self) -> ir.Attribute:
        if self.virtual:
            return iree_gpu.VirtualMMAIntrinsicAttr.get(getattr(iree_gpu.VirtualMMAIntrinsic, self.name))
        return iree_gpu.MMAIntrinsicAttr.get(getattr(iree_gpu.MMAIntrinsic, self.name))

    def layout_attr(self, col_major: bool) -> ir.Attribute:
        kind = iree_gpu.VirtualMMAAttr if self.virtual else iree_gpu.MMAAttr
        enum = iree_gpu.VirtualMMAIntrinsic if self.virtual else iree_gpu.MMAIntrinsic
        return kind.get(getattr(enum, self.name), col_major)


def is_attention(emitted: EmittedConstraints) -> bool:
    """The emitted op for VectorDistribute attention (its knobs carry a `decomposition_config`)."""
    return emitted.pipeline == PIPELINE and "qk_mma_idx" in emitted.knobs_text


def emitted_mmas(emitted: EmittedConstraints, knob: str, context: ir.Context) -> tuple[AttentionMma, ...]:
    """The `one_of_knob` list of one matmul's intrinsics (`qk_mma_idx` or `pv_mma_idx`), in IREE's order."""
    found = re.search(rf'one_of_knob<"{knob}", \[(.*?)\]>', emitted.knobs_text)
    if found is None:
        raise ValueError(f"IREE's attention constraints have no {knob} list")
    mmas = []
    with context:
        for kind, name in re.findall(r"(virtual_mma_layout|mma_layout)<(\w+)", found.group(1)):
            virtual = kind.startswith("virtual")
            shape = AttentionMma(name, virtual, 0, 0, 0).layout_attr(False).mnk_shape
            mmas.append(AttentionMma(name, virtual, *shape))
    return tuple(mmas)


def _layout(mma: AttentionMma, fragment: int) -> tuple:
    layout = iree_gpu.get_single_subgroup_layout(mma.intrinsic(), fragment)
    return tuple(layout.element), tuple(layout.thread), tuple(layout.tstrides)


def _tiles(size: int, unit: int) -> tuple[int, ...]:
    """Multiples of `unit` that divide `size`, up to MAX_TILE."""
    return tuple(t for t in range(unit, min(size, MAX_TILE) + 1, unit) if size % t == 0)


def k2_tiles(k2: int, unit: int) -> tuple[int, ...]:
    """K2 tiles: multiples of `unit` that divide K2; where none can (K2 no multiple of `unit`, e.g. 77 text tokens in
    a cross-attention), every multiple of `unit` up to K2 rounded up to one: IREE masks the last, partial K2 tile
    (key and value loads zero-filled, its scores -inf before the softmax), so any of them is correct."""
    if k2 % unit == 0:
        return _tiles(k2, unit)
    return tuple(range(unit, min(-(-k2 // unit) * unit, MAX_TILE) + 1, unit))


def refuse_masked(problem: Problem) -> None:
    """Masked attention is tuned on llvm-cpu, whose spec matcher for it is checked there (`mltune.emit.spec`), and
    on CUDA, where the config is written onto the source's op (no matcher) and the mask adds no constraint IREE
    emits; on ROCm its spec's match is not checked yet."""
    if problem.mask_type:
        raise ValueError("masked attention is tuned on llvm-cpu and CUDA (ROCm: not yet)")


class GpuAttention:
    """The `Configurator` for an online attention on ROCm with `VectorDistribute`."""

    padding_bits = 64  # IREE pads shared-memory rows where they fit (on sm_90 and gfx942: Q 256 x 128 f16 in 256 x 132)

    def __init__(self, problem: Problem, gpu: GpuInfo, context: ir.Context, emitted: Sequence[EmittedConstraints]):
        self.problem, self.gpu, self.context = problem, gpu, context
        refuse_masked(problem)
        emitted = next((c for c in emitted if is_attention(c)), None)
        if emitted is None:
            raise ValueError(f"IREE emits no VectorDistribute attention constraints for this attention on {gpu.arch}")
        self.qk_mmas = emitted_mmas(emitted, "qk_mma_idx", context)
        self.pv_mmas = emitted_mmas(emitted, "pv_mma_idx", context)
        if not self.qk_mmas or not self.pv_mmas:
            raise ValueError(f"{gpu.arch} has no MMA intrinsic for this attention's matmuls")
        self.space = self._space(emitted)

    def p_in_registers(self) -> list[tuple[int, int]]:
        """(qk, pv) intrinsic pairs whose QK accumulator is laid out as a PV operand: P stays in registers; for the
        others IREE promotes P to shared memory as well."""
        with self.context:
            return [
                (i, j)
                for i, qk in enumerate(self.qk_mmas)
                for j, pv in enumerate(self.pv_mmas)
                if _layout(qk, ACC) in (_layout(pv, LHS), _layout(pv, RHS))
            ]

    def shared_memory_expr(self, m_tile, n_tile, red_k2, p_promoted, padding_bits: int = 0):
        """The workgroup memory of the tiles IREE 3.13 promotes for attention (numpy columns or the space's z3
        variables alike): Q (M tile x K1), K (K2 tile x K1), V (K2 tile x N tile) and, where `p_promoted` (1 or
        0), P (M tile x K2 tile), each row padded by `padding_bits`. IREE pads rows against bank conflicts only
        where the padded tiles still fit (GPUReduceBankConflicts), so a candidate compiles when the unpadded tiles
        fit: that is the space's rule. IREE's emitted ROCm rule counts P V as (M tile + N tile) x K2 tile, halved
        where P stays in registers, which is less than V alone where N tile > M tile; on CUDA it emits none."""
        p = self.problem
        (k1,) = p.sizes(p.k)
        in_bytes = element_bytes(p.operand_types[0])
        pad = padding_bits // (8 * in_bytes)
        return in_bytes * (
            (m_tile + red_k2) * (k1 + pad) + red_k2 * (n_tile + pad) + p_promoted * m_tile * (red_k2 + pad)
        )

    def shared_memory_rule(self, space: Space) -> z3.BoolRef:
        """The unpadded tiles fit the target's shared memory."""
        v = space.var
        in_registers = z3.Or(
            [z3.And(v("qk_mma") == i, v("pv_mma") == j) for i, j in self.p_in_registers()] or [z3.BoolVal(False)]
        )
        tiles = self.shared_memory_expr(v("m_tile"), v("n_tile"), v("red_k2"), z3.If(in_registers, 0, 1))
        return tiles <= self.gpu.shared_memory_bytes

    def shared_memory_bytes(self, candidates: CandidateSet) -> np.ndarray:
        """What IREE allocates for each candidate: the padded tiles where they fit the target, else the unpadded
        ones (`benchmarks/gpu/cuda_attention_shared_memory.py --allocation` checks it against the compiler)."""
        pairs = candidates.column("qk_mma") * len(self.pv_mmas) + candidates.column("pv_mma")
        in_registers = np.isin(pairs, [i * len(self.pv_mmas) + j for i, j in self.p_in_registers()])
        tiles = (
            candidates.column("m_tile"),
            candidates.column("n_tile"),
            candidates.column("red_k2"),
            (~in_registers).astype(np.int64),
        )
        padded = self.shared_memory_expr(*tiles, self.padding_bits)
        return np.where(padded <= self.gpu.shared_memory_bytes, padded, self.shared_memory_expr(*tiles))

    def _knobs(self) -> list[Knob]:
        p, gpu = self.problem, self.gpu
        (m,), (n,), (k2,) = p.sizes(p.m), p.sizes(p.n), p.sizes(p.k2)
        return [
            Knob("qk_mma", tuple(range(len(self.qk_mmas)))),
            Knob("pv_mma", tuple(range(len(self.pv_mmas)))),
            Knob("m_tile", _tiles(m, min(x.m for x in self.pv_mmas))),
            Knob("n_tile", _tiles(n, min(x.n for x in self.pv_mmas))),
            Knob("red_k2", k2_tiles(k2, min(x.k for x in self.pv_mmas))),
            Knob("sg_m", SUBGROUP_COUNTS_M),
            Knob("sg_n", SUBGROUP_COUNTS_N),
            Knob("sg_size", gpu.subgroup_sizes),
            Knob("waves_per_eu", WAVES_PER_EU if gpu.api == "rocm" else (0,)),
        ]

    def _space(self, emitted: EmittedConstraints) -> Space:
        p, gpu = self.problem, self.gpu
        (k2,) = p.sizes(p.k2)
        if k2 % min(x.k for x in self.pv_mmas):  # IREE's "K2 divisible by the K2 tile" is stricter than its compiler
            emitted = emitted.without(divides_size(k2, p.k2[0], "red_k2"))
        space = Space(self._knobs(), [])
        v = space.var
        pv_m = lookup(v("pv_mma"), [x.m for x in self.pv_mmas])
        pv_n = lookup(v("pv_mma"), [x.n for x in self.pv_mmas])
        qk_n = lookup(v("qk_mma"), [x.n for x in self.qk_mmas])
        own = [
            v("m_tile") % (v("sg_m") * pv_m) == 0,
            v("n_tile") % (v("sg_n") * pv_n) == 0,
            # The K2 tile is the N of the QK matmul: IREE's constraints check it against the PV intrinsic's K
            # only, and a 32x32 QK intrinsic with a 16-wide K2 tile fails to compile ('linalg.pack' op tile
            # size analysis did not determine a valid tile size).
            v("red_k2") % qk_n == 0,
            self.workgroup_size_expr(space) <= gpu.max_threads,
            self.shared_memory_rule(space),
        ]
        names = {
            "qk_mma_idx": v("qk_mma"),
            "pv_mma_idx": v("pv_mma"),
            "m_tile": v("m_tile"),
            "n_tile": v("n_tile"),
            "red_k2": v("red_k2"),
            "sg_m_cnt": v("sg_m"),
            "sg_n_cnt": v("sg_n"),
            "sg_size": v("sg_size"),
            "wg_size_x": self.workgroup_size_expr(space),
        }
        space.constraints = tuple(own) + tuple(emitted.over(names, p.bounds))
        return space

    @staticmethod
    def workgroup_size_expr(space: Space) -> z3.ArithRef:
        return space.var("sg_m") * space.var("sg_n") * space.var("sg_size")

    def pipeline_of(self, knobs: dict[str, int]) -> str:
        return PIPELINE

    def candidates(self) -> CandidateSet:
        """The space's points, plus each matmul's intrinsic shape (`qk_mma_k`, `pv_mma_m/n/k`) for features and records."""
        values = self.space.enumerate()
        qk = np.array([[x.k] for x in self.qk_mmas], dtype=np.int64)[values[:, 0]]
        pv = np.array([[x.m, x.n, x.k] for x in self.pv_mmas], dtype=np.int64)[values[:, 1]]
        names = tuple(knob.name for knob in self.space.knobs) + ("qk_mma_k", "pv_mma_m", "pv_mma_n", "pv_mma_k")
        return CandidateSet(names, np.concatenate([values, qk, pv], axis=1))

    def col_major(self, knobs: dict[str, int]) -> bool:
        """IREE's rule: column-major intrinsics when the QK accumulator layout is the PV right-hand side's."""
        with self.context:
            return _layout(self.qk_mmas[knobs["qk_mma"]], ACC) == _layout(self.pv_mmas[knobs["pv_mma"]], RHS)

    def _lists(self, knobs: dict[str, int]) -> tuple[list[int], list[int], list[int]]:
        """IREE's `workgroup` and `reduction` lists and the subgroup basis counts, over the attention's loops."""
        p = self.problem
        workgroup, reduction, counts = [0] * len(p.bounds), [0] * len(p.bounds), [1] * len(p.bounds)
        for loop in p.batch:
            workgroup[loop] = 1
        workgroup[p.m[0]], workgroup[p.n[0]], reduction[p.k2[0]] = knobs["m_tile"], knobs["n_tile"], knobs["red_k2"]
        counts[p.m[0]], counts[p.n[0]] = knobs["sg_m"], knobs["sg_n"]
        return workgroup, reduction, counts

    def _matmul_config(
        self, mma: AttentionMma, col_major: bool, promoted: list[int], counts: list[int], projected: int
    ) -> str:
        mapping = [i for i in range(len(counts)) if i != projected]
        return (
            f"{{lowering_config = #iree_gpu.lowering_config<{{mma_kind = {mma.layout_attr(col_major)}, "
            f"promote_operands = {promoted}, promotion_types = [{', '.join([_DERIVED] * len(promoted))}], "
            f"subgroup_basis = [{counts}, {mapping}]}}>}}"
        )

    def compilation_info(self, knobs: dict[str, int]) -> str:
        """Both root-op attributes of one point (`op_config`): `compilation_info` and `decomposition_config`."""
        p = self.problem
        workgroup, reduction, counts = self._lists(knobs)
        col_major = self.col_major(knobs)
        function_attrs = f"iree_codegen.denormal_fp_math_f32 = {_DENORMAL}"
        if knobs["waves_per_eu"]:
            function_attrs += f', llvm_func_attrs = {{"amdgpu-waves-per-eu" = "{knobs["waves_per_eu"]}"}}'
        size = knobs["sg_m"] * knobs["sg_n"] * knobs["sg_size"]
        info = (
            f"#iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{"
            f"promote_operands = [0, 1, 2], promotion_types = [{_DERIVED}, {_DERIVED}, {_DERIVED}], "
            f"reduction = {reduction}, workgroup = {workgroup}}}>, translation_info = #iree_codegen.translation_info<"
            f"pipeline = #iree_gpu.pipeline<{PIPELINE}> workgroup_size = [{size}, 1, 1] "
            f"subgroup_size = {knobs['sg_size']}, {{{function_attrs}}}>>"
        )
        with self.context:
            decomposition = (
                f"{{pv_attrs = {self._matmul_config(self.pv_mmas[knobs['pv_mma']], col_major, [1], counts, p.k[0])}, "
                f"qk_attrs = {self._matmul_config(self.qk_mmas[knobs['qk_mma']], col_major, [0, 1], counts, p.n[0])}}}"
            )
        return attribute_dictionary({COMPILATION_INFO: info, "decomposition_config": decomposition}, self.context)
