"""`Problem`: what a dispatch's root op computes, read from IR through the IREE bindings: the record itself, and the
readers of contractions, convolutions and attention (`generic_ops` reads the other generics; `root_ops` picks the
reader of an op)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from iree.compiler import ir
from iree.compiler.dialects import iree_codegen, iree_gpu, linalg

from mltune.frontend.mlir import affine_map_text

SUPPORTED_ELEMENT_TYPES = ("f32", "f16", "bf16", "i8", "i32", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3FN", "f8E5M2")
ONLINE_ATTENTION = "iree_linalg_ext.online_attention"
SOURCE_ATTENTION = "iree_linalg_ext.attention"  # what a model holds; IREE's codegen converts it to ONLINE_ATTENTION
ELEMENT_BYTES = {
    "f32": 4,
    "i32": 4,
    "f16": 2,
    "bf16": 2,
    "i8": 1,
    "f64": 8,
    "i64": 8,
    "i16": 2,
    "i1": 1,
}  # the last four: elementwise ops only (indices, masks)


def element_bytes(element_type: str) -> int:
    """Bytes per element of a supported type (every f8 variant is one byte)."""
    return 1 if element_type.startswith("f8") else ELEMENT_BYTES[element_type]


@dataclass(frozen=True)
class Problem:
    """A contraction, matvec, convolution, attention or reduction root op: loop bounds grouped by role, operand element types
    and indexing maps.

    A matvec is a contraction that IREE itself lowers as a reduction (`reduction_configured`); its loops are a
    contraction's.

    Loops are named by their position in the op's iteration space; `batch`, `m`, `n`, `k`
    hold those positions, `bounds` the trip count of every loop.
    """

    op_kind: str
    op_name: str
    bounds: tuple[int, ...]
    batch: tuple[int, ...]
    m: tuple[int, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    lhs_type: str
    rhs_type: str
    out_type: str
    indexing_maps: tuple[str, ...]
    layout: str  # `nn`, `nt`, `tn`, `tt`: LHS `t` unless K is its last dim; RHS `t` if K is its last dim
    # convolutions only: `m` holds the output image loops, `n` the output channel (a depthwise conv's channel), `k`
    # the filter loops then the input channel (none when depthwise); these name the filter loops and the window's
    # steps. `layout`: nhwc_hwcf, nchw_fchw or nhwc_hwc (depthwise)
    filter_loops: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    dilations: tuple[int, ...] = ()
    # attention only: `m` holds the query sequence loops, `k` the head dim (K1), `n` the value head dim,
    # `k2` the key sequence loops; `operand_types` the element types of query, key, value, scale, output,
    # max and sum (IREE's attention matcher names all seven)
    k2: tuple[int, ...] = ()
    operand_types: tuple[str, ...] = ()
    # reductions: `m` holds the parallel loops, `k` the reduction loops, `operand_types` every operand's element type
    # (inputs, then inits), `layout` the loops' kinds and the number of inputs (`ppr_in2`)
    # masked attention only: the mask's element type (its indexing map follows the scale's in `indexing_maps`)
    mask_type: str = ""
    # multi-loop contractions with strided reads only: every operand's shape (a strided map does not give it)
    operand_shapes: tuple[tuple[int, ...], ...] = ()

    def sizes(self, loops: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(self.bounds[i] for i in loops)

    @property
    def key(self) -> str:
        """A short stable name: kind, B/M/N/K sizes, element types, and a transposition tag."""
        dims = "x".join(
            str(s)
            for s in self.sizes(self.batch)
            + self.sizes(self.m)
            + self.sizes(self.n)
            + self.sizes(self.k)
            + self.sizes(self.k2)
        )
        window = "".join(
            f"_{tag}{'x'.join(map(str, steps))}"
            for tag, steps in (("s", self.strides), ("d", self.dilations))
            if any(step != 1 for step in steps)
        )
        mask = f"_mask{self.mask_type}" if self.mask_type else ""
        return f"{self.op_kind}_{dims}_{self.lhs_type}{self.rhs_type}{self.out_type}_{self.layout}{window}{mask}"

    def to_record(self) -> dict[str, Any]:
        """The problem as stored; `mask_type` and `operand_shapes` only where set, so that other records stay as
        they were."""
        data = asdict(self)
        for optional in ("mask_type", "operand_shapes"):
            if not data[optional]:
                del data[optional]
        return data

    @staticmethod
    def from_record(data: dict[str, Any]) -> Problem:
        return Problem(**{name: _frozen(value) for name, value in data.items()})


def _frozen(value: Any) -> Any:
    """A record's lists as tuples, nested ones too (a frozen problem hashes)."""
    return tuple(_frozen(item) for item in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Untunable:
    """A root op mltune cannot tune yet, and why: reported to the user, never silently dropped."""

    op_name: str
    reason: str


def loop_bounds(op: ir.Operation, maps: list[ir.AffineMap]) -> list[int]:
    bounds: list[int | None] = [None] * maps[0].n_dims
    for amap, value in zip(maps, op.operands):
        if not amap.results:  # a scalar operand (attention's scale)
            continue
        shape = value.type.shape
        for position, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr) and bounds[expr.position] is None:
                bounds[expr.position] = shape[position]
    if any(b is None for b in bounds):
        raise ValueError("a loop bound is not the size of any operand dimension")
    return [int(b) for b in bounds]  # type: ignore[arg-type]


def _is_innermost(amap: ir.AffineMap, loop: int) -> bool:
    last = amap.results[-1]
    return isinstance(last, ir.AffineDimExpr) and last.position == loop


def _operand_types(op: ir.Operation) -> list[str] | str:
    """The three operands' element types, or why they cannot be tuned."""
    types = [value.type for value in op.operands]
    if len(types) != 3 or not all(isinstance(t, ir.ShapedType) and t.has_static_shape for t in types):
        return "needs exactly three statically shaped operands"
    elements = [str(t.element_type) for t in types]
    unsupported = [e for e in elements if e not in SUPPORTED_ELEMENT_TYPES]
    return f"unsupported element type {unsupported[0]}" if unsupported else elements


REDUCTION = "reduction"
NORMALISED = "_norm"  # a reduction's layout tag: its result feeds only elementwise ops over its own loops
MULTI_LOOP_CONTRACTION = "multi_loop_contraction"
ELEMENTWISE = "elementwise"


def reduction_inputs(problem: Problem) -> int:
    """How many inputs a reduction reads (its layout's `_in<N>`)."""
    return int(problem.layout.split("_in")[1].removesuffix(NORMALISED))


# The 2-D convolution layouts IREE's CPU conv pipeline decomposes (its named-op patterns, matched on generics too):
# op kind, then the layout named by which loop is innermost in the input, the filter and the output.
CONVOLUTION = "convolution"
DEPTHWISE_CONVOLUTION = "depthwise_convolution"
_CONVOLUTION_LAYOUTS = {  # (depthwise, input's, filter's, output's innermost role) -> layout
    (False, "input_channel", "output_channel", "output_channel"): "nhwc_hwcf",
    (False, "width", "width", "width"): "nchw_fchw",
    (True, "depth", "depth", "depth"): "nhwc_hwc",
    (True, "width", "width", "width"): "nchw_chw",  # PyTorch's depthwise (groups = channels); tuned on GPUs only
}


def _innermost_role(amap: ir.AffineMap, roles: dict[int, str]) -> str:
    """The role of the loop an operand's last dimension walks ("width" for an output or filter width, or an input
    dimension that is an expression of it, e.g. `ow * 2 + kw`)."""
    last = amap.results[-1]
    if isinstance(last, ir.AffineDimExpr):
        return roles.get(last.position, "other")
    return "width"  # an input's sliding window: output width and filter width together


def convolution_problem(op: ir.Operation) -> Problem | Untunable:
    """A 2-D convolution with one batch loop (of any size, 1 included) or none (GPU targets fold a unit batch away):
    channel-last (NHWC x HWCF), channel-first (NCHW x FCHW, as PyTorch exports it) or depthwise channel-last
    (NHWC x HWC), with its strides and dilations."""
    name = op.name
    elements = _operand_types(op)
    if isinstance(elements, str):
        return Untunable(name, elements)
    dims = linalg.infer_convolution_dimensions(op)
    maps = [attr.value for attr in linalg.get_indexing_maps(op)]  # named convs keep their maps implicit
    depthwise = len(dims.depth) == 1
    channels = (0, 0) if depthwise else (1, 1)
    counts = (
        len(dims.output_image),
        len(dims.filter_loop),
        len(dims.output_channel),
        len(dims.input_channel),
        len(dims.depth),
    )
    if len(dims.batch) > 1 or counts != (2, 2, *channels, int(depthwise)):
        return Untunable(
            name, "only 2-D convolutions with at most one batch and one channel (or depth) loop are supported"
        )
    roles = {dims.output_image[1]: "width", dims.filter_loop[1]: "width"}
    roles |= {loop: "input_channel" for loop in dims.input_channel} | {
        loop: "output_channel" for loop in dims.output_channel
    }
    roles |= {loop: "depth" for loop in dims.depth}
    layout = _CONVOLUTION_LAYOUTS.get((depthwise, *(_innermost_role(amap, roles) for amap in maps)))
    if layout is None:
        return Untunable(name, f"unsupported convolution layout; supported: {', '.join(_CONVOLUTION_LAYOUTS.values())}")
    channel = tuple(dims.depth) if depthwise else tuple(dims.output_channel)
    return Problem(
        op_kind=DEPTHWISE_CONVOLUTION if depthwise else CONVOLUTION,
        op_name=name,
        bounds=tuple(loop_bounds(op, maps)),
        batch=tuple(dims.batch),
        m=tuple(dims.output_image),
        n=channel,
        k=tuple(dims.filter_loop) + tuple(dims.input_channel),
        lhs_type=elements[0],
        rhs_type=elements[1],
        out_type=elements[2],
        indexing_maps=tuple(affine_map_text(m) for m in maps),
        layout=layout,
        filter_loops=tuple(dims.filter_loop),
        strides=tuple(dims.strides),
        dilations=tuple(dims.dilations),
    )


def grouped_query_loops(
    query_map: ir.AffineMap, bounds: Sequence[int], batch: list[int], m: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The batch and M loops of an attention with one M loop: in a grouped-query attention (Llama's, SmolLM's)
    the query heads that share a key-value head are a loop of the query and the output only, which IREE counts as
    a second M loop (unless it can fold it into the sequence) and tiles by 1, as a batch loop. So the longest of
    the M loops stays M (the sequence in a prefill, the query heads in a one-token decode), the others join the
    batch loops (ties: the one the query walks innermost stays)."""
    if len(m) <= 1:
        return tuple(batch), tuple(m)
    order = [r.position for r in query_map.results if isinstance(r, ir.AffineDimExpr)]
    kept = max(m, key=lambda loop: (bounds[loop], order.index(loop)))
    return tuple(batch + [loop for loop in m if loop != kept]), (kept,)


# A one-token decode step's attention: its unit query loop folded away, IREE configures it as a reduction over the
# key sequence (`partial_reduction`, as a matvec), not as the MMA tiles of the query sequence the spaces are made of.
ONE_QUERY = "a one-query attention (a decode step's), which IREE configures as a reduction: not tuned yet"


def attention_problem(op: ir.Operation) -> Problem | Untunable:
    """An `online_attention` (query, key, value, scale, optional mask, output, max, sum), as IREE's dispatches hold
    it, or the model's `attention` it comes from (query, key, value, scale, optional mask, output)."""
    name = op.name
    maps = [attr.value for attr in op.attributes["indexing_maps"]]
    outputs = 3 if name == ONLINE_ATTENTION else 1
    masked = len(op.operands) == 5 + outputs
    if len(op.operands) not in (4 + outputs, 5 + outputs):
        return Untunable(name, f"an attention with {len(op.operands)} operands")
    types = [value.type for value in op.operands]
    if not all(t.has_static_shape for t in types if isinstance(t, ir.ShapedType)):
        return Untunable(name, "needs statically shaped operands")
    elements = [str(t.element_type if isinstance(t, ir.ShapedType) else t) for t in types]
    mask_type = elements.pop(4) if masked else ""
    unsupported = [e for e in elements if e not in SUPPORTED_ELEMENT_TYPES]
    if unsupported:
        return Untunable(name, f"unsupported element type {unsupported[0]}")
    output_map = maps[5 if masked else 4]
    detail = iree_codegen.get_attention_op_detail(maps[0], maps[1], maps[2], output_map)
    if any(len(dims) != 1 for dims in (detail.k1_dims, detail.k2_dims, detail.n_dims)):
        return Untunable(name, "only one head, key-sequence and value-head dimension are supported")
    (k1,), (k2,), (n,) = detail.k1_dims, detail.k2_dims, detail.n_dims
    bounds = tuple(loop_bounds(op, maps))
    batch, m = grouped_query_loops(maps[0], bounds, list(detail.batch_dims), list(detail.m_dims))
    if not m:
        return Untunable(name, ONE_QUERY)
    if name == SOURCE_ATTENTION:  # the output is the dispatch's f32 accumulator; max and sum are f32 too
        elements = elements[:4] + ["f32", "f32", "f32"]
    layout = "".join(
        "n" if _is_innermost(amap, loop) else "t" for amap, loop in ((maps[0], k1), (maps[1], k1), (maps[2], n))
    )
    return Problem(
        op_kind="attention",
        op_name=name,
        bounds=bounds,
        batch=batch,
        m=m,
        n=(n,),
        k=(k1,),
        k2=(k2,),
        lhs_type=elements[0],
        rhs_type=elements[1],
        out_type=elements[4],
        indexing_maps=tuple(affine_map_text(m) for m in maps),
        layout=layout,
        operand_types=tuple(elements),
        mask_type=mask_type,
    )


def gpu_configured(op: ir.Operation) -> bool:
    """IREE configured the op for a GPU (a dumped GPU dispatch): its own choice of pipeline can be read."""
    return "lowering_config" in op.attributes and iree_gpu.LoweringConfigAttr.isinstance(
        op.attributes["lowering_config"]
    )


def reduction_configured(op: ir.Operation) -> bool:
    """IREE configured the op with its VectorDistribute reduction config (`partial_reduction`, `lane_basis`).

    That is how IREE treats a matvec: its choice depends on the shape and on the target (a unit or 2-4 wide M or
    N against the preferred subgroup size, K against the subgroup sizes, and its other pipelines declining first,
    `KernelConfig.cpp`), so mltune reads the verdict from the dispatch IREE configured rather than restating it.
    """
    return (
        gpu_configured(op)
        and "partial_reduction" in iree_gpu.LoweringConfigAttr(op.attributes["lowering_config"]).attributes
    )


def has_one_m_n_k(op: ir.Operation) -> bool:
    """Whether a contraction has one M, one N and one K loop (and any batch loops)."""
    dims = linalg.infer_contraction_dimensions(op)
    return len(dims.m) == len(dims.n) == len(dims.k) == 1


def contraction_problem(op: ir.Operation) -> Problem | Untunable:
    """A contraction with one M, one N and one K loop (any batch loops), a matvec where IREE configured it as one;
    `Untunable` names what else it is."""
    name = op.name
    if "indexing_maps" not in op.attributes:
        return Untunable(name, "contraction without indexing maps (e.g. linalg.mmt4d from data tiling)")
    maps = [attr.value for attr in op.attributes["indexing_maps"]]
    elements = _operand_types(op)
    if isinstance(elements, str):
        return Untunable(name, elements)
    if not has_one_m_n_k(op):
        return Untunable(name, "only one M, one N and one K dimension are supported")
    dims = linalg.infer_contraction_dimensions(op)
    return Problem(
        op_kind="matvec" if reduction_configured(op) else "contraction",
        op_name=name,
        bounds=tuple(loop_bounds(op, maps)),
        batch=tuple(dims.batch),
        m=tuple(dims.m),
        n=tuple(dims.n),
        k=tuple(dims.k),
        lhs_type=elements[0],
        rhs_type=elements[1],
        out_type=elements[2],
        indexing_maps=tuple(affine_map_text(m) for m in maps),
        layout=("n" if _is_innermost(maps[0], dims.k[0]) else "t")
        + ("t" if _is_innermost(maps[1], dims.k[0]) else "n"),
    )
