"""BioGPT (Hugging Face transformers, tiny configuration): learned positions offset by 2, token embeddings
scaled by sqrt(hidden size), pre-norm decoder with GELU."""

from common import causal_lm_loss, run
from transformers import BioGptConfig, BioGptForCausalLM

VOCAB = 96


def build() -> BioGptForCausalLM:
    config = BioGptConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )  # fmt: skip
    return BioGptForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
