"""Llama-family decoders built from a `transformers` configuration (random weights, nothing downloaded) and exported
by iree-turbine so that IREE 3.13 compiles them: prefill at a sequence length, or one decode step against a cache.

Exported with input ids alone, `transformers` builds its causal mask with `aten.diff` and a rank-0 boolean literal,
which IREE 3.13's torch lowering refuses (`failed to legalize operation 'torch.operator' ... torch.aten.diff`,
`torch.vtensor.literal`). The wrapper here hands the model a ready 4-D boolean mask computed from the input's length
instead, which `transformers` passes through untouched; the sequence length can stay dynamic (`dynamic=True`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import torch
import transformers

from mltune.errors import UserError
from mltune.export.configs import DECODERS
from mltune.export.saving import DTYPES, ExportedModel, save_export

Mode = Literal["prefill", "decode"]


def causal_mask(queries: int, keys: int, device: torch.device) -> torch.Tensor:
    """The 4-D boolean mask `transformers` takes as it is: query i sees keys up to `keys - queries + i`. Computed
    from the lengths (a `tril` of ones), never a constant, so that no rank-0 literal reaches IREE."""
    return torch.ones(queries, keys, dtype=torch.bool, device=device).tril(diagonal=keys - queries)[None, None]


class Prefill(torch.nn.Module):
    """`(input_ids) -> logits` with the causal mask given, no cache returned."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        n = input_ids.shape[-1]
        mask = causal_mask(n, n, input_ids.device)
        return self.model(input_ids=input_ids, attention_mask=mask, use_cache=False).logits


class DecodeStep(torch.nn.Module):
    """`(input_ids, k0, v0, k1, v1, ...) -> logits`: one token against a cache of keys and values held as plain
    tensors, one pair per layer (`[batch, kv_heads, cache_len, head_dim]`)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, *cache: torch.Tensor) -> torch.Tensor:
        pairs = [(cache[i], cache[i + 1]) for i in range(0, len(cache), 2)]
        past = transformers.DynamicCache(pairs, config=self.model.config)
        keys = cache[0].shape[2] + input_ids.shape[-1]
        mask = causal_mask(input_ids.shape[-1], keys, input_ids.device)
        return self.model(input_ids=input_ids, attention_mask=mask, past_key_values=past, use_cache=True).logits


def build(config: str, seed: int = 0, dtype: str = "float32", layers: int | None = None) -> torch.nn.Module:
    """The named configuration's causal LM with weights drawn from `seed`, in eval mode."""
    if config not in DECODERS:
        raise UserError(f"unknown decoder configuration {config!r} (known: {', '.join(DECODERS)})")
    values = dict(DECODERS[config])
    if layers is not None:
        values["num_hidden_layers"] = layers
    torch.manual_seed(seed)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**values)).eval()
    return model.to(DTYPES[dtype])


def example_arguments(model: torch.nn.Module, mode: Mode, seq_len: int, cache_len: int, seed: int) -> list[np.ndarray]:
    """Token ids (and for a decode step, a cache of random keys and values) to export and run with."""
    rng = np.random.default_rng(seed)
    config = model.config
    ids = rng.integers(0, config.vocab_size, size=(1, 1 if mode == "decode" else seq_len), dtype=np.int64)
    if mode == "prefill":
        return [ids]
    head_dim = config.hidden_size // config.num_attention_heads
    dtype = np.float16 if next(model.parameters()).dtype == torch.float16 else np.float32
    shape = (1, config.num_key_value_heads, cache_len, head_dim)
    return [ids] + [rng.standard_normal(shape).astype(dtype) for _ in range(2 * config.num_hidden_layers)]


def export_decoder(
    config: str,
    out_dir: Path,
    *,
    mode: Mode = "prefill",
    seq_len: int = 128,
    cache_len: int = 2048,
    dtype: str = "float32",
    dynamic: bool = False,
    external_weights: bool = False,
    seed: int = 0,
    layers: int | None = None,
    stem: str | None = None,
) -> ExportedModel:
    """Export a decoder as IREE 3.13 compiles it, with an example input per argument and a flags file.

    Example:
        >>> export_decoder("smollm-135m", Path("out"), seq_len=128)  # out/smollm-135m_prefill.mlir, .flags, .npy

    `dynamic`: the sequence length (prefill) stays a dynamic dimension, as serving exports have it; tune it with
    `mltune tune MODEL --shape 1x128xi64`. `external_weights`: the weights go to an `.irpa` (scope `model`).
    """
    if dynamic and mode != "prefill":
        raise UserError("--dynamic: a dynamic sequence length is exported for prefill only")
    model = build(config, seed, dtype, layers)
    wrapper = Prefill(model) if mode == "prefill" else DecodeStep(model)
    arrays = example_arguments(model, mode, seq_len, cache_len, seed)
    dynamic_shapes = None
    if dynamic:
        dynamic_shapes = {"input_ids": {1: torch.export.Dim("seq", min=2, max=model.config.max_position_embeddings)}}
    stem = stem or f"{config}_{mode}" + ("_dynamic" if dynamic else "")
    return save_export(wrapper, arrays, out_dir, stem, external_weights=external_weights, dynamic_shapes=dynamic_shapes)
