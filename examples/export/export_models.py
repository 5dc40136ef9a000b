"""Export BERT, GPT-2, ViT and ResNet-50 the way users do, with an input file and a benchmark flags file each.

The files under examples/models/exported/ came from the `tiny` preset:

    pip install 'mltune[export]'   # torch (use a CPU wheel), iree-turbine, transformers, onnx, jax
    HF_HUB_OFFLINE=1 python examples/export/export_models.py --preset tiny --out examples/models/exported

and the real-size models (hundreds of MB each, never committed) from the `full` preset:

    HF_HUB_OFFLINE=1 python examples/export/export_models.py --preset full --out ~/mltune-exports \\
        --external bert resnet50

and the half-precision exports tuned on GPUs with `--dtype float16` (the files' stems end in `_f16`).

Three ways of exporting, each an entry of EXPORTERS, named by the file stem's suffix:

* `MODEL.mlir`: `iree.turbine.aot.export(model, args=...)`, weights inlined (the exporter's default);
* `MODEL_params.mlir` + `MODEL_params.irpa`: the same after `externalize_module_parameters` (scope `model`),
  the weights saved by `save_module_parameters`;
* `MODEL_onnx.mlir`: `torch.onnx.export` (TorchScript exporter) then `iree-import-onnx`; entry `main_graph`.

Every export also gets `STEM.input0.npy` (token ids below the vocabulary size for the text models, an image
for the others) and `STEM.flags`: one IREE tool flag per line (`--function=`, `--input=@`, `--parameters=`),
the format of the SHARK tuner's benchmark flags files. Paths in a flags file are relative to the flags file's
folder, so from inside that folder the plain tools take it as is:
`iree-run-module --module=X.vmfb --device=local-task --flagfile=bert.flags`.
export_jax.py adds the JAX frontend (StableHLO) with the same file conventions.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # configurations only: nothing is ever fetched from a hub

import numpy as np
import torch
from iree.turbine import aot

from model_zoo import BUILDERS, DTYPES, PRESETS, BuiltModel, build

PARAMETER_SCOPE = "model"


@dataclass(frozen=True)
class Exported:
    """What one export wrote and how the IREE tools call it."""

    mlir: Path
    function: str
    parameters: Path | None = None


def _example_tensor(built: BuiltModel) -> torch.Tensor:
    return torch.from_numpy(built.example_input)


def export_inline(built: BuiltModel, out_dir: Path, stem: str) -> Exported:
    """iree-turbine with its defaults: the weights become `dense_resource` constants inside the MLIR."""
    mlir = out_dir / f"{stem}.mlir"
    aot.export(built.module, args=(_example_tensor(built),)).save_mlir(mlir)
    return Exported(mlir, "main")


def export_external(built: BuiltModel, out_dir: Path, stem: str) -> Exported:
    """iree-turbine with the weights in an IREE parameter archive, as large models are shipped."""
    mlir, irpa = out_dir / f"{stem}.mlir", out_dir / f"{stem}.irpa"
    aot.externalize_module_parameters(built.module, external_scope=PARAMETER_SCOPE)
    aot.export(built.module, args=(_example_tensor(built),)).save_mlir(mlir)
    aot.save_module_parameters(irpa, built.module)
    return Exported(mlir, "main", irpa)


def export_onnx(built: BuiltModel, out_dir: Path, stem: str) -> Exported:
    """The ONNX route: torch's TorchScript ONNX exporter, then IREE's ONNX importer (weights inlined)."""
    mlir = out_dir / f"{stem}.mlir"
    with tempfile.TemporaryDirectory() as tmp:
        onnx_file = Path(tmp) / f"{stem}.onnx"
        torch.onnx.export(
            built.module,
            (_example_tensor(built),),
            str(onnx_file),
            dynamo=False,
            opset_version=17,
            input_names=[built.input_name],
            output_names=[built.output_name],
        )
        subprocess.run(["iree-import-onnx", str(onnx_file), "-o", str(mlir)], check=True)
    return Exported(mlir, "main_graph")


EXPORTERS: dict[str, tuple[str, Callable[[BuiltModel, Path, str], Exported]]] = {
    "inline": ("", export_inline),
    "external": ("_params", export_external),
    "onnx": ("_onnx", export_onnx),
}


def write_run_files(exported: Exported, example_input: np.ndarray) -> Path:
    """The example input and the flags file beside the MLIR; flags-file paths are relative to its folder."""
    folder, stem = exported.mlir.parent, exported.mlir.stem
    input_file = folder / f"{stem}.input0.npy"
    np.save(input_file, example_input)
    flags = [f"--function={exported.function}", f"--input=@{input_file.name}"]
    if exported.parameters is not None:
        flags.append(f"--parameters={PARAMETER_SCOPE}={exported.parameters.name}")
    flags_file = folder / f"{stem}.flags"
    flags_file.write_text("\n".join(flags) + "\n")
    return flags_file


def export_one(model: str, how: str, preset: str, seed: int, out_dir: Path, dtype: str = "float32") -> list[Path]:
    """Builds a fresh seeded model (externalizing marks its tensors) and exports it one way."""
    suffix, exporter = EXPORTERS[how]
    built = build(model, preset, seed, dtype)
    exported = exporter(built, out_dir, model + ("_f16" if dtype == "float16" else "") + suffix)
    flags_file = write_run_files(exported, built.example_input)
    return [p for p in (exported.mlir, exported.parameters, flags_file) if p is not None]


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    models = list(BUILDERS)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=PRESETS, default="tiny", help="`full`: the real configurations")
    parser.add_argument("--out", type=Path, required=True, help="folder for the exported files")
    parser.add_argument("--seed", type=int, default=0, help="seeds the weights and the example inputs")
    parser.add_argument("--dtype", choices=DTYPES, default="float32", help="the weights' and float inputs' type")
    parser.add_argument(
        "--inline",
        nargs="*",
        choices=models,
        default=models,
        help="models exported with inlined weights (default: all)",
    )
    parser.add_argument(
        "--external",
        nargs="*",
        choices=models,
        default=["bert"],
        help="models exported with weights in a .irpa parameter archive (default: bert)",
    )
    parser.add_argument(
        "--onnx",
        nargs="*",
        choices=models,
        default=["bert"],
        help="models exported through torch.onnx.export + iree-import-onnx (default: bert)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for how in EXPORTERS:
        for model in getattr(args, how):
            for path in export_one(model, how, args.preset, args.seed, args.out, args.dtype):
                print(f"{path}  {path.stat().st_size / 1e6:.2f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
