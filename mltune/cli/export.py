"""`mltune export decoder|unet`: models from published configurations (random weights) exported the way IREE 3.13
compiles them (`mltune.export`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mltune.errors import UserError
from mltune.input.checks import positive_int

EXPORT_NEEDS = (
    "mltune export needs torch, iree-turbine, transformers and (for unet) diffusers: pip install 'mltune[export]'"
)


def add_export_command(commands) -> None:
    from mltune.export.configs import DECODER_CONFIGS, UNET_CONFIGS

    export = commands.add_parser("export", help="export a model the way IREE compiles it (needs mltune[export])")
    kinds = export.add_subparsers(dest="kind", required=True)
    decoder = kinds.add_parser(
        "decoder",
        help="a Llama-family decoder from a transformers configuration, random "
        "weights: prefill, or one decode step against a cache",
    )
    decoder.add_argument("config", choices=DECODER_CONFIGS, help="the published configuration to build")
    decoder.add_argument("--mode", choices=("prefill", "decode"), default="prefill")
    decoder.add_argument("--seq-len", type=positive_int, default=128, help="prefill tokens (default 128)")
    decoder.add_argument("--cache-len", type=positive_int, default=2048, help="decode: tokens in the cache")
    decoder.add_argument(
        "--dynamic", action="store_true", help="prefill: keep the sequence length dynamic (tune with --shape 1xNxi64)"
    )
    decoder.add_argument("--layers", type=positive_int, default=None, help="fewer layers than the configuration")
    unet = kinds.add_parser(
        "unet", help="a diffusion UNet from a diffusers configuration, random weights: one denoising step"
    )
    unet.add_argument("config", choices=UNET_CONFIGS, help="the published configuration to build")
    unet.add_argument("--batch", type=positive_int, default=2, help="2: classifier-free guidance (default)")
    for kind in (decoder, unet):
        kind.add_argument("--out", type=Path, required=True, help="folder for the .mlir, inputs, flags (and .irpa)")
        kind.add_argument("--dtype", choices=("float32", "float16"), default="float32")
        kind.add_argument("--external-weights", action="store_true", help="weights in an .irpa (scope model)")
        kind.add_argument("--seed", type=int, default=0)


def run_export(args: argparse.Namespace) -> int:
    try:
        if args.kind == "unet":
            from mltune.export.unet import export_unet as export

            options = dict(batch=args.batch)
        else:
            from mltune.export.decoder import export_decoder as export

            options = dict(
                mode=args.mode, seq_len=args.seq_len, cache_len=args.cache_len, dynamic=args.dynamic, layers=args.layers
            )
    except ImportError as err:
        raise UserError(f"{EXPORT_NEEDS} ({err})") from None
    exported = export(
        args.config, args.out, dtype=args.dtype, external_weights=args.external_weights, seed=args.seed, **options
    )
    print(f"exported {exported.mlir}" + (f" with weights {exported.parameters}" if exported.parameters else ""))
    dynamic = args.kind == "decoder" and args.dynamic
    how = " --shape 1x128xi64" if dynamic else f" --benchmark-flags-file {exported.flags}"
    print(f"tune it: mltune tune {exported.mlir}{how}")
    return 0
