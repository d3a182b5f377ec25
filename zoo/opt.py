"""OPT (Hugging Face transformers, tiny configuration): learned positions offset by 2, ReLU, a
projection of the word embeddings down to a narrower model and back up."""

from common import causal_lm_loss, run
from transformers import OPTConfig, OPTForCausalLM

VOCAB = 96


def build() -> OPTForCausalLM:
    config = OPTConfig(
        vocab_size=VOCAB, hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=32, word_embed_proj_dim=32,
    )  # fmt: skip
    return OPTForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
