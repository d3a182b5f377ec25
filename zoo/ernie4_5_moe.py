"""ERNIE 4.5 MoE (Hugging Face transformers, tiny configuration): a mixture-of-experts decoder routed in
float32 by a bias-free ``linear`` of the input and a ``softmax``, the experts picked by ``topk`` of the
probabilities plus a score-correction bias, the picked probabilities ``gather``ed and divided by their sum
``clamp``ed below at 1e-12; two shared experts beside the routed ones, a dense first layer, rotary
positions interleaved over pairs of dimensions, tied input and output embeddings."""

from common import causal_lm_loss, run
from transformers import Ernie4_5_MoeConfig, Ernie4_5_MoeForCausalLM

VOCAB = 96


def build() -> Ernie4_5_MoeForCausalLM:
    config = Ernie4_5_MoeConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=4,
        num_key_value_heads=2, moe_intermediate_size=32, moe_k=2, moe_num_experts=8, moe_num_shared_experts=2,
        moe_layer_start_index=1, max_position_embeddings=32,
    )  # fmt: skip
    return Ernie4_5_MoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
