"""Five well-known models built from `transformers` configurations with seeded random weights.

Users tune models that real frontends exported, so the examples are the architectures people deploy
(BERT-base, GPT-2 small, ViT-B/16, ResNet-50, MobileNet-V2) built the way they build them. Weights are random (a
configuration, never a hub download): tuning depends on shapes and operators, not on weight values.
Each model is wrapped to take one tensor and return one tensor, so every export has one argument and
one result that the IREE tools feed and print without a pytree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np
import torch
import transformers

from mltune.export.decoder import causal_mask as decoder_mask

Preset = Literal["tiny", "full"]
PRESETS: tuple[Preset, ...] = ("tiny", "full")


@dataclass(frozen=True)
class BuiltModel:
    """A model in eval mode and the one example input it is exported and run with."""

    module: torch.nn.Module
    example_input: np.ndarray
    input_name: str
    output_name: str


class _SingleOutput(torch.nn.Module):
    """Calls a `transformers` model with one keyword input and returns one field of its output.

    `transformers` models return dataclass outputs (and, for GPT-2, a key-value cache); exporting the
    one tensor a user consumes keeps the entry point `(tensor) -> tensor`.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        input_name: str,
        output_name: str,
        causal_mask: bool = False,
        **call_kwargs: object,
    ) -> None:
        super().__init__()
        self.model = model
        self.input_name = input_name
        self.output_name = output_name
        self.causal_mask = causal_mask
        self.call_kwargs = call_kwargs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inputs = {self.input_name: x}
        if self.causal_mask:  # the mask IREE 3.13 takes (mltune.export.decoder says why)
            n = x.shape[-1]
            inputs["attention_mask"] = decoder_mask(n, n, x.device)
        return getattr(self.model(**inputs, **self.call_kwargs), self.output_name)


def _token_ids(rng: np.random.Generator, vocab_size: int, seq_len: int) -> np.ndarray:
    """Valid token ids (int64, as the tokenizers produce) for a batch of one."""
    return rng.integers(0, vocab_size, size=(1, seq_len), dtype=np.int64)


def _image(rng: np.random.Generator, size: int) -> np.ndarray:
    """A normalized-looking NCHW float32 image for a batch of one."""
    return rng.standard_normal((1, 3, size, size), dtype=np.float32)


def _bert(preset: Preset, rng: np.random.Generator) -> BuiltModel:
    """BERT-base encoder (12 layers, hidden 768, sequence 128) or a 2-layer, hidden-64 miniature."""
    if preset == "full":
        config, seq_len = transformers.BertConfig(), 128
    else:
        config = transformers.BertConfig(
            vocab_size=512,
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=128,
            max_position_embeddings=64,
        )
        seq_len = 32
    model = transformers.BertModel(config, add_pooling_layer=False)
    return BuiltModel(
        _SingleOutput(model, "input_ids", "last_hidden_state"),
        _token_ids(rng, config.vocab_size, seq_len),
        "input_ids",
        "last_hidden_state",
    )


def _gpt2(preset: Preset, rng: np.random.Generator) -> BuiltModel:
    """GPT-2 small with its language-model head (prefill of 128 tokens, no cache) or a 2-layer miniature."""
    if preset == "full":
        config, seq_len = transformers.GPT2Config(), 128
    else:
        config = transformers.GPT2Config(
            vocab_size=512, n_embd=64, n_layer=2, n_head=2, n_positions=64, bos_token_id=511, eos_token_id=511
        )
        seq_len = 32
    model = transformers.GPT2LMHeadModel(config)
    return BuiltModel(
        _SingleOutput(model, "input_ids", "logits", causal_mask=True, use_cache=False),
        _token_ids(rng, config.vocab_size, seq_len),
        "input_ids",
        "logits",
    )


def _vit(preset: Preset, rng: np.random.Generator) -> BuiltModel:
    """ViT-B/16 classifier at 224x224 (1000 classes) or a 2-layer, hidden-64 one on 32x32 images."""
    if preset == "full":
        config = transformers.ViTConfig(num_labels=1000)
    else:
        config = transformers.ViTConfig(
            image_size=32,
            patch_size=8,
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=128,
            num_labels=10,
        )
    model = transformers.ViTForImageClassification(config)
    return BuiltModel(
        _SingleOutput(model, "pixel_values", "logits"), _image(rng, config.image_size), "pixel_values", "logits"
    )


def _resnet50(preset: Preset, rng: np.random.Generator) -> BuiltModel:
    """ResNet-50 classifier at 224x224 or a two-stage bottleneck ResNet with narrow channels on 64x64 images."""
    if preset == "full":
        config, image_size = transformers.ResNetConfig(num_labels=1000), 224
    else:
        config = transformers.ResNetConfig(
            embedding_size=16, hidden_sizes=[64, 128], depths=[1, 1], layer_type="bottleneck", num_labels=10
        )
        image_size = 64
    model = transformers.ResNetForImageClassification(config)
    return BuiltModel(_SingleOutput(model, "pixel_values", "logits"), _image(rng, image_size), "pixel_values", "logits")


WIDE_INIT = 0.3  # MobileNet-V2's weights' standard deviation


def _mobilenet_v2(preset: Preset, rng: np.random.Generator) -> BuiltModel:
    """MobileNet-V2 classifier at 224x224 (its depthwise 3x3 convolutions, strided and not) or a narrow one (depth
    multiplier 0.25, the last layer narrowed too) on 64x64 images. Weights are drawn wider than the configuration's
    default (standard deviation 0.3, not 0.02): with the default, the activations of 50-odd random layers shrink until
    the logits are about 1e-26, and a numerics check has nothing to compare."""
    if preset == "full":
        config = transformers.MobileNetV2Config(num_labels=1000, initializer_range=WIDE_INIT)
        image_size = 224
    else:
        config = transformers.MobileNetV2Config(
            depth_multiplier=0.25, finegrained_output=False, image_size=64, num_labels=10, initializer_range=WIDE_INIT
        )
        image_size = 64
    model = transformers.MobileNetV2ForImageClassification(config)
    return BuiltModel(_SingleOutput(model, "pixel_values", "logits"), _image(rng, image_size), "pixel_values", "logits")


BUILDERS: dict[str, Callable[[Preset, np.random.Generator], BuiltModel]] = {
    "bert": _bert,
    "gpt2": _gpt2,
    "vit": _vit,
    "resnet50": _resnet50,
    "mobilenet_v2": _mobilenet_v2,
}


DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "float16": torch.float16}


def build(name: str, preset: Preset, seed: int, dtype: str = "float32") -> BuiltModel:
    """The named model with weights and example input drawn from `seed`, in eval mode. With `dtype` float16 the
    weights and a float input are cast after drawing (token ids stay int64), as GPU users deploy these models."""
    torch.manual_seed(seed)
    built = BUILDERS[name](preset, np.random.default_rng(seed))
    built.module.eval()
    if dtype == "float32":
        return built
    example = built.example_input
    if np.issubdtype(example.dtype, np.floating):
        example = example.astype(np.dtype(dtype))
    return BuiltModel(built.module.to(DTYPES[dtype]), example, built.input_name, built.output_name)
