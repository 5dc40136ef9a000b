"""The published configurations `mltune export decoder` builds: values only, so that the command line lists them
without importing torch."""

from __future__ import annotations

DECODERS: dict[str, dict[str, object]] = {
    "llama-3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                         num_key_value_heads=8, vocab_size=128256, rope_theta=500000.0, rms_norm_eps=1e-5,
                         tie_word_embeddings=True, max_position_embeddings=131072,
                         rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                       "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
    "smollm-135m": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                        num_key_value_heads=3, vocab_size=49152, rope_theta=10000.0, rms_norm_eps=1e-5,
                        tie_word_embeddings=True, max_position_embeddings=2048),
    # a two-layer miniature of the same family, for tests and a 2-core machine
    "tiny-llama": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=256, rope_theta=10000.0, rms_norm_eps=1e-5,
                       tie_word_embeddings=True, max_position_embeddings=4096),
}
DECODER_CONFIGS = tuple(DECODERS)
