"""OLMoE (Hugging Face transformers, tiny configuration): 8 experts, 2 per token, the router's
probabilities not renormalised, queries and keys RMS-normalised over the whole projection, and the
load-balancing auxiliary loss added to the language-model loss."""

from common import causal_lm_loss, run
from transformers import OlmoeConfig, OlmoeForCausalLM

VOCAB = 96


def build() -> OlmoeForCausalLM:
    config = OlmoeConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=32, num_experts=8, num_experts_per_tok=2,
        output_router_logits=True, router_aux_loss_coef=0.01,
    )  # fmt: skip
    return OlmoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
