"""How far builds' outputs are from a reference on the same inputs (torch eager's, as `torch_reference.py --save`
writes it): the largest absolute difference, the relative L2 error, and the reference's own scale.

    python benchmarks/whole_models/compare_outputs.py torch.npy iree_default.npy iree_tuned.npy
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", type=Path)
    parser.add_argument("outputs", type=Path, nargs="+")
    args = parser.parse_args()
    reference = np.load(args.reference).astype(np.float64)
    print(
        f"reference {args.reference.name}: shape {reference.shape}, max |x| {np.abs(reference).max():.4g}, "
        f"L2 {np.linalg.norm(reference):.4g}"
    )
    for path in args.outputs:
        output = np.load(path).astype(np.float64)
        if output.shape != reference.shape:
            print(f"{path.name}: shape {output.shape}, not the reference's")
            continue
        difference = output - reference
        print(
            f"{path.name}: max |diff| {np.abs(difference).max():.4g}, relative L2 error "
            f"{np.linalg.norm(difference) / np.linalg.norm(reference):.3g}, non-finite {(~np.isfinite(output)).sum()}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
