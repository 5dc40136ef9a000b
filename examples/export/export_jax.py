"""Lower a small JAX transformer block to StableHLO MLIR, the third frontend IREE takes.

JAX users hand IREE the StableHLO text that `jax.jit(f).lower(x).as_text()` prints; IREE detects the
input dialect itself. The block (self-attention then a GELU MLP, each with a residual and layer norm)
closes over seeded random weights, so they are inlined as constants, as the torch exports inline theirs.

    pip install jax   # CPU
    python examples/export/export_jax.py --out examples/models/exported

writes `jax_block.mlir` (entry `main`), `jax_block.input0.npy` and `jax_block.flags` (paths relative to
the flags file's folder, as examples/export/export_models.py writes them).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # lower for the host whatever accelerator jaxlib supports

import jax
import jax.numpy as jnp
import numpy as np

STEM = "jax_block"
SEQ_LEN, HIDDEN, HEADS, MLP_HIDDEN = 32, 64, 2, 128


def _layer_norm(x: jax.Array) -> jax.Array:
    mean = x.mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)


def make_block(seed: int):
    """A transformer encoder block `(1, SEQ_LEN, HIDDEN) -> (1, SEQ_LEN, HIDDEN)` with fixed random weights."""
    keys = jax.random.split(jax.random.PRNGKey(seed), 4)
    scale = 0.02
    w_qkv = scale * jax.random.normal(keys[0], (HIDDEN, 3 * HIDDEN))
    w_out = scale * jax.random.normal(keys[1], (HIDDEN, HIDDEN))
    w_up = scale * jax.random.normal(keys[2], (HIDDEN, MLP_HIDDEN))
    w_down = scale * jax.random.normal(keys[3], (MLP_HIDDEN, HIDDEN))

    def heads(t: jax.Array) -> jax.Array:
        return t.reshape(1, SEQ_LEN, HEADS, HIDDEN // HEADS).transpose(0, 2, 1, 3)

    def block(x: jax.Array) -> jax.Array:
        q, k, v = jnp.split(x @ w_qkv, 3, axis=-1)
        scores = heads(q) @ heads(k).transpose(0, 1, 3, 2) / np.sqrt(HIDDEN // HEADS)
        attended = (jax.nn.softmax(scores, axis=-1) @ heads(v)).transpose(0, 2, 1, 3).reshape(x.shape)
        x = _layer_norm(x + attended @ w_out)
        return _layer_norm(x + jax.nn.gelu(x @ w_up) @ w_down)

    return block


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the exported files")
    parser.add_argument("--seed", type=int, default=0, help="seeds the weights and the example input")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    example = np.random.default_rng(args.seed).standard_normal((1, SEQ_LEN, HIDDEN), dtype=np.float32)
    (args.out / f"{STEM}.mlir").write_text(jax.jit(make_block(args.seed)).lower(example).as_text())
    np.save(args.out / f"{STEM}.input0.npy", example)
    (args.out / f"{STEM}.flags").write_text(f"--function=main\n--input=@{STEM}.input0.npy\n")


if __name__ == "__main__":
    main()
