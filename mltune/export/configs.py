"""The published configurations `mltune export decoder` and `mltune export unet` build: values only, so that the
command line lists them without importing torch."""

from __future__ import annotations

DECODERS: dict[str, dict[str, object]] = {
    "llama-3.2-1b": dict(
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=8,
        vocab_size=128256,
        rope_theta=500000.0,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        max_position_embeddings=131072,
        rope_scaling={
            "rope_type": "llama3",
            "factor": 32.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    ),
    "smollm-135m": dict(
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        vocab_size=49152,
        rope_theta=10000.0,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        max_position_embeddings=2048,
    ),
    # a two-layer miniature of the same family, for tests and a 2-core machine
    "tiny-llama": dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
        rope_theta=10000.0,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        max_position_embeddings=4096,
    ),
}
DECODER_CONFIGS = tuple(DECODERS)

# `diffusers.UNet2DConditionModel` keywords; a UNet's inputs follow from them (latents of `sample_size`, 77 text tokens)
UNETS: dict[str, dict[str, object]] = {
    "sdxl-base": dict(
        sample_size=128,
        block_out_channels=[320, 640, 1280],
        layers_per_block=2,
        down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
        up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
        transformer_layers_per_block=[1, 2, 10],
        attention_head_dim=[5, 10, 20],
        cross_attention_dim=2048,
        use_linear_projection=True,
        addition_embed_type="text_time",
        addition_time_embed_dim=256,
        projection_class_embeddings_input_dim=2816,
        norm_num_groups=32,
    ),
    "sd-1.5": dict(
        sample_size=64,
        block_out_channels=[320, 640, 1280, 1280],
        layers_per_block=2,
        cross_attention_dim=768,
        attention_head_dim=8,
        norm_num_groups=32,
    ),
    # SDXL's structure (added text and time embeddings, linear projections) in miniature, for tests and the CPU
    "tiny-sdxl": dict(
        sample_size=16,
        block_out_channels=[32, 64],
        layers_per_block=1,
        down_block_types=["DownBlock2D", "CrossAttnDownBlock2D"],
        up_block_types=["CrossAttnUpBlock2D", "UpBlock2D"],
        transformer_layers_per_block=[1, 1],
        attention_head_dim=[2, 4],
        cross_attention_dim=64,
        use_linear_projection=True,
        addition_embed_type="text_time",
        addition_time_embed_dim=8,
        projection_class_embeddings_input_dim=16 + 6 * 8,
        norm_num_groups=32,
    ),
}
UNET_CONFIGS = tuple(UNETS)
