"""JetMoE (Hugging Face transformers, tiny configuration): a mixture of attention heads (each token's
query and output projections taken from 2 of 4 experts, keys and values shared) beside a mixture of
GLU experts, both routed by `topk` over the router's logits and a softmax over the chosen 2, the
tokens sorted by expert, each expert's rows through its own weight and scattered back by
`index_add`; a load-balancing loss over both routers' logits (softmax over all 4, `topk`, `histc`)
added to the language-model loss."""

from common import causal_lm_loss, run
from transformers import JetMoeConfig, JetMoeForCausalLM

VOCAB = 96


def build() -> JetMoeForCausalLM:
    config = JetMoeConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_key_value_heads=2, kv_channels=16,
        intermediate_size=32, max_position_embeddings=32, num_local_experts=4, num_experts_per_tok=2,
        output_router_logits=True, aux_loss_coef=0.01,
    )  # fmt: skip
    return JetMoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
