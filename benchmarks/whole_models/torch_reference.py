"""The same model run by torch on the same device and the same inputs, as the ratio a user compares IREE against:
eager and, where it compiles, `torch.compile`, each timed with CUDA events (median of the calls after a warm-up, and
their spread). `--save` keeps eager's output, to say how far IREE's build is from torch.

    python benchmarks/whole_models/torch_reference.py decoder llama-3.2-1b --flags m/llama-3.2-1b_prefill.flags \
        --dtype float16 [--mode decode] [--compile] [--save torch.npy]
    python benchmarks/whole_models/torch_reference.py unet sdxl-base --flags m/sdxl-base_unet.flags --dtype float16
    python benchmarks/whole_models/torch_reference.py decoder smollm-135m --flags F --dtype float32 --device cpu
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch


def timed_ms(call, inputs, calls: int) -> list[float]:
    """Each call's time: CUDA events on a GPU, the wall clock on the CPU."""
    times = []
    if not inputs[0].is_cuda:
        for _ in range(calls):
            started = time.perf_counter()
            call(*inputs)
            times.append((time.perf_counter() - started) * 1e3)
        return times
    for _ in range(calls):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call(*inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times


def model(kind: str, config: str, mode: str, dtype: str) -> torch.nn.Module:
    """The export's own module, built from the same configuration and seed as `mltune export` builds it."""
    if kind == "unet":
        from mltune.export.unet import DenoisingStep, build

        return DenoisingStep(build(config, 0, dtype))
    from mltune.export.decoder import DecodeStep, Prefill, build

    return (Prefill if mode == "prefill" else DecodeStep)(build(config, 0, dtype))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("decoder", "unet"))
    parser.add_argument("config")
    parser.add_argument("--flags", type=Path, required=True, help="the export's flags file: its inputs are used")
    parser.add_argument("--mode", choices=("prefill", "decode"), default="prefill")
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--compile", action="store_true", help="also torch.compile (minutes)")
    parser.add_argument("--save", type=Path, default=None, help="eager's output, as .npy")
    parser.add_argument("--device", default="cuda", help="cuda, or cpu (torch's threads: all cores)")
    args = parser.parse_args()
    wrapper = model(args.kind, args.config, args.mode, args.dtype).to(args.device).eval()
    names = [line.split("@", 1)[1] for line in args.flags.read_text().split() if line.startswith("--input=@")]
    inputs = [torch.from_numpy(np.load(args.flags.parent / name)).to(args.device) for name in names]
    variants = [("eager", wrapper)]
    if args.compile:
        variants.append(("torch.compile", torch.compile(wrapper)))
    where = torch.cuda.get_device_name() if args.device == "cuda" else f"the CPU ({torch.get_num_threads()} threads)"
    print(
        f"{args.config} {args.kind} {args.mode if args.kind == 'decoder' else ''} {args.dtype} on {where}, "
        f"torch {torch.__version__}"
    )
    with torch.no_grad():
        if args.save is not None:
            np.save(args.save, wrapper(*inputs).float().cpu().numpy())
        for name, call in variants:
            started = time.perf_counter()
            try:
                timed_ms(call, inputs, 3)  # warm-up (and the compile)
            except Exception as err:  # a compile torch refuses: say so, keep eager's number
                print(f"{name}: failed: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
                continue
            times = timed_ms(call, inputs, args.calls)
            print(
                f"{name}: median {statistics.median(times):.3f} ms (spread {min(times):.3f}-{max(times):.3f}, "
                f"{args.calls} calls; warm-up {time.perf_counter() - started:.1f} s)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
