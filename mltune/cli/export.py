"""`mltune export decoder`: a Llama-family decoder exported the way IREE 3.13 compiles it (`mltune.export.decoder`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mltune.errors import UserError
from mltune.input.checks import positive_int

EXPORT_NEEDS = "mltune export needs torch, iree-turbine and transformers: pip install 'mltune[export]'"


def add_export_command(commands) -> None:
    from mltune.export.configs import DECODER_CONFIGS

    export = commands.add_parser("export", help="export a model the way IREE compiles it (needs mltune[export])")
    kinds = export.add_subparsers(dest="kind", required=True)
    decoder = kinds.add_parser("decoder", help="a Llama-family decoder from a transformers configuration, random "
                                               "weights: prefill, or one decode step against a cache")
    decoder.add_argument("config", choices=DECODER_CONFIGS, help="the published configuration to build")
    decoder.add_argument("--out", type=Path, required=True, help="folder for the .mlir, inputs, flags (and .irpa)")
    decoder.add_argument("--mode", choices=("prefill", "decode"), default="prefill")
    decoder.add_argument("--seq-len", type=positive_int, default=128, help="prefill tokens (default 128)")
    decoder.add_argument("--cache-len", type=positive_int, default=2048, help="decode: tokens in the cache")
    decoder.add_argument("--dtype", choices=("float32", "float16"), default="float32")
    decoder.add_argument("--dynamic", action="store_true",
                         help="prefill: keep the sequence length dynamic (tune with --shape 1xNxi64)")
    decoder.add_argument("--external-weights", action="store_true", help="weights in an .irpa (scope model)")
    decoder.add_argument("--layers", type=positive_int, default=None, help="fewer layers than the configuration")
    decoder.add_argument("--seed", type=int, default=0)


def run_export(args: argparse.Namespace) -> int:
    try:
        from mltune.export.decoder import export_decoder
    except ImportError as err:
        raise UserError(f"{EXPORT_NEEDS} ({err})") from None
    exported = export_decoder(args.config, args.out, mode=args.mode, seq_len=args.seq_len, cache_len=args.cache_len,
                              dtype=args.dtype, dynamic=args.dynamic, external_weights=args.external_weights,
                              seed=args.seed, layers=args.layers)
    print(f"exported {exported.mlir}" + (f" with weights {exported.parameters}" if exported.parameters else ""))
    how = " --shape 1x128xi64" if args.dynamic else f" --benchmark-flags-file {exported.flags}"
    print(f"tune it: mltune tune {exported.mlir}{how}")
    return 0
