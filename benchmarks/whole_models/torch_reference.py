"""The same decoder run by torch on the same GPU, as the ratio a user compares IREE against: eager and, where it
compiles, `torch.compile`, each timed with CUDA events (median of the calls after a warm-up, and their spread).

    python benchmarks/whole_models/torch_reference.py llama-3.2-1b --mode prefill --seq-len 2048 --dtype float16
    python benchmarks/whole_models/torch_reference.py smollm-135m --seq-len 128 --dtype float32 --device cpu
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from mltune.export.decoder import DecodeStep, Prefill, build, example_arguments


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--mode", choices=("prefill", "decode"), default="prefill")
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--cache-len", type=int, default=2048)
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--compile", action="store_true", help="also torch.compile (minutes)")
    parser.add_argument("--device", default="cuda", help="cuda, or cpu (torch's threads: all cores)")
    args = parser.parse_args()
    model = build(args.config, 0, args.dtype)
    wrapper = (Prefill if args.mode == "prefill" else DecodeStep)(model).to(args.device).eval()
    arrays = example_arguments(model, args.mode, args.seq_len, args.cache_len, 0)
    inputs = [torch.from_numpy(a).to(args.device) for a in arrays]
    variants = [("eager", wrapper)]
    if args.compile:
        variants.append(("torch.compile", torch.compile(wrapper)))
    where = torch.cuda.get_device_name() if args.device == "cuda" else f"the CPU ({torch.get_num_threads()} threads)"
    print(f"{args.config} {args.mode} {args.dtype} on {where}, torch {torch.__version__}")
    with torch.no_grad():
        for name, call in variants:
            started = time.perf_counter()
            try:
                timed_ms(call, inputs, 3)  # warm-up (and the compile)
            except Exception as err:  # a compile torch refuses: say so, keep eager's number
                print(f"{name}: failed: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
                continue
            times = timed_ms(call, inputs, args.calls)
            print(f"{name}: median {statistics.median(times):.3f} ms (spread {min(times):.3f}-{max(times):.3f}, "
                  f"{args.calls} calls; warm-up {time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
