"""Writing an export as `mltune tune` and IREE's tools read it: the MLIR, its weights (an `.irpa`, or inlined), one
`.npy` per argument and a flags file that calls the function with them.

IREE 3.13's torch lowering knows `aten.cat` but not its alias `aten.concat` (`failed to legalize operation
'torch.operator' ... torch.aten.concat`), which `diffusers` calls for SDXL's added embeddings; every export here maps
the alias to `aten.cat` while it traces.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from iree.turbine import aot
from iree.turbine.aot.decompositions import extend_aot_decompositions

PARAMETER_SCOPE = "model"
DTYPES = {"float32": torch.float32, "float16": torch.float16}


@dataclass(frozen=True)
class ExportedModel:
    """What an export wrote: the MLIR, its weights (None: inlined), and the flags file that calls it."""

    mlir: Path
    parameters: Path | None
    flags: Path


def _concat_as_cat(tensors: list[torch.Tensor], dim: int = 0) -> torch.Tensor:
    return torch.ops.aten.cat.default(tensors, dim)


def save_export(
    module: torch.nn.Module,
    arrays: list[np.ndarray],
    out_dir: Path,
    stem: str,
    *,
    external_weights: bool = False,
    dynamic_shapes: dict | None = None,
) -> ExportedModel:
    """Export `module` called with `arrays` through iree-turbine and write it with its inputs into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    parameters = None
    if external_weights:
        aot.externalize_module_parameters(module, external_scope=PARAMETER_SCOPE)
        parameters = out_dir / f"{stem}.irpa"
    tensors = tuple(torch.from_numpy(array) for array in arrays)
    with torch.no_grad(), extend_aot_decompositions() as table:
        table[torch.ops.aten.concat.default] = _concat_as_cat
        exported = aot.export(module, args=tensors, dynamic_shapes=dynamic_shapes)
    mlir = out_dir / f"{stem}.mlir"
    exported.save_mlir(mlir)
    if parameters is not None:
        aot.save_module_parameters(parameters, module)
    flags = [f"--parameters={PARAMETER_SCOPE}={parameters.name}"] if parameters is not None else []
    for index, array in enumerate(arrays):
        np.save(out_dir / f"{stem}.input{index}.npy", array)
        flags.append(f"--input=@{stem}.input{index}.npy")
    flags_file = out_dir / f"{stem}.flags"
    flags_file.write_text("\n".join(flags) + "\n")
    return ExportedModel(mlir, parameters, flags_file)
