"""Diffusion UNets built from a `diffusers` configuration (random weights, nothing downloaded) and exported by
iree-turbine as one denoising step: `(sample, timestep, text states[, text embeds, time ids]) -> noise`.

The batch is 2 by default, as classifier-free guidance runs it (the conditioned and the unconditioned half); SDXL's
added conditioning (pooled text embeddings and six time ids) are plain arguments, so that every input is a tensor.
"""

from __future__ import annotations

from pathlib import Path

import diffusers
import numpy as np
import torch

from mltune.errors import UserError
from mltune.export.configs import UNETS
from mltune.export.saving import DTYPES, ExportedModel, save_export

TEXT_TOKENS = 77  # CLIP's context length
TIME_IDS = 6  # SDXL's original size, crop and target size


class DenoisingStep(torch.nn.Module):
    """One call of the UNet with every input a tensor; `added` marks SDXL's text-and-time conditioning."""

    def __init__(self, unet: torch.nn.Module) -> None:
        super().__init__()
        self.unet = unet
        self.added = unet.config.addition_embed_type == "text_time"

    def forward(
        self, sample: torch.Tensor, timestep: torch.Tensor, text_states: torch.Tensor, *added: torch.Tensor
    ) -> torch.Tensor:
        conditioning = {"text_embeds": added[0], "time_ids": added[1]} if self.added else None
        return self.unet(sample, timestep, text_states, added_cond_kwargs=conditioning, return_dict=False)[0]


def build(config: str, seed: int = 0, dtype: str = "float32") -> torch.nn.Module:
    """The named configuration's UNet with weights drawn from `seed`, in eval mode."""
    if config not in UNETS:
        raise UserError(f"unknown UNet configuration {config!r} (known: {', '.join(UNETS)})")
    torch.manual_seed(seed)
    return diffusers.UNet2DConditionModel(**UNETS[config]).eval().to(DTYPES[dtype])


def example_arguments(unet: torch.nn.Module, batch: int, seed: int) -> list[np.ndarray]:
    """Latents, a timestep per sample, text states (and SDXL's pooled text embeddings and time ids)."""
    rng = np.random.default_rng(seed)
    config = unet.config
    dtype = np.float16 if unet.dtype == torch.float16 else np.float32
    size = config.sample_size
    arrays = [
        rng.standard_normal((batch, config.in_channels, size, size)).astype(dtype),
        np.full((batch,), 999, dtype=np.int64),
        rng.standard_normal((batch, TEXT_TOKENS, config.cross_attention_dim)).astype(dtype),
    ]
    if config.addition_embed_type == "text_time":
        pooled = config.projection_class_embeddings_input_dim - TIME_IDS * config.addition_time_embed_dim
        image = 8 * size  # the VAE's scale: latents of 128 are a 1024-pixel image
        arrays += [
            rng.standard_normal((batch, pooled)).astype(dtype),
            np.array([[image, image, 0, 0, image, image]] * batch, dtype=dtype),
        ]
    return arrays


def export_unet(
    config: str,
    out_dir: Path,
    *,
    batch: int = 2,
    dtype: str = "float32",
    external_weights: bool = False,
    seed: int = 0,
    stem: str | None = None,
) -> ExportedModel:
    """Export one denoising step as IREE 3.13 compiles it, with an example input per argument and a flags file.

    Example:
        >>> export_unet("sdxl-base", Path("out"), dtype="float16", external_weights=True)  # out/sdxl-base_unet.*
    """
    unet = build(config, seed, dtype)
    arrays = example_arguments(unet, batch, seed)
    return save_export(
        DenoisingStep(unet), arrays, out_dir, stem or f"{config}_unet", external_weights=external_weights
    )
