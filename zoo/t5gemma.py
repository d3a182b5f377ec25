"""T5Gemma (Hugging Face transformers, tiny configuration): Gemma 2's decoder layers made an
encoder-decoder: bidirectional encoder, alternating sliding-window and global layers, attention scores
soft-capped by ``tanh`` (x / 50), pre- and post-norms of RMS with a (1 + weight) scale, GeGLU with the
tanh approximation, the logits soft-capped (x / 30), cross-attention from the decoder."""

from common import run, seq2seq_lm_loss
from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration, T5GemmaModuleConfig

VOCAB = 96


def build() -> T5GemmaForConditionalGeneration:
    module = {
        "vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "query_pre_attn_scalar": 8,
        "sliding_window": 4, "max_position_embeddings": 32,
    }  # fmt: skip
    config = T5GemmaConfig(
        encoder=T5GemmaModuleConfig(**module), decoder=T5GemmaModuleConfig(**module), vocab_size=VOCAB,
    )  # fmt: skip
    return T5GemmaForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
