"""Tune a model through mltune's library API alone and print the verdict.

python examples/tune_with_api.py [MODEL.mlir] [--budget N] [-o SPEC]
"""

import argparse
import sys
from pathlib import Path

import mltune

parser = argparse.ArgumentParser(description="Tune a model with mltune.tune and print what it found.")
parser.add_argument("model", nargs="?", type=Path, default=Path(__file__).with_name("matmul_f32.mlir"))
parser.add_argument("--budget", type=int, default=8, help="candidates to benchmark (default 8)")
parser.add_argument("-o", "--output", type=Path, default=Path("best_spec.mlir"), help="where the spec goes")
args = parser.parse_args()
try:
    result = mltune.tune(args.model, budget=args.budget, output=args.output, progress="quiet")
except mltune.UserError as err:
    sys.exit(f"error: {err}")
for verdict in result.verdicts:
    print(verdict.describe())
print(f"spec: {result.spec_path or 'none written (IREE default is the best found)'}; run: {result.run_dir}")
