"""GraniteMoE (Hugging Face transformers, tiny configuration): Granite's multipliers on the embeddings,
the residuals, the attention scores and the logits, and a mixture of 4 experts (the softmax of each
token's top 2 router logits) whose weights are 3-D tensors, the tokens sorted by expert and run through
``_grouped_mm``."""

from common import causal_lm_loss, run
from transformers import GraniteMoeConfig, GraniteMoeForCausalLM

VOCAB = 96


def build() -> GraniteMoeForCausalLM:
    config = GraniteMoeConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=32,
        embedding_multiplier=4.0, residual_multiplier=0.3, attention_multiplier=0.125, logits_scaling=2.0,
        pad_token_id=0,
    )  # fmt: skip
    return GraniteMoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
