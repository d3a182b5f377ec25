"""NLLB-MoE (Hugging Face transformers, tiny configuration): an encoder-decoder whose every other layer is
a mixture of experts routed top-2 with capacity (the second choice by ``argmax`` over the logits with the
first masked to -inf, each expert's slots counted by ``cumsum`` of the one-hot routes, tokens past its
capacity dropped, the two gates renormalised), MoE token dropout, the router's z-loss and load-balancing
loss added to the cross entropy, sinusoidal positions."""

from common import run, seq2seq_lm_loss
from transformers import NllbMoeConfig, NllbMoeForConditionalGeneration

VOCAB = 96


def build() -> NllbMoeForConditionalGeneration:
    config = NllbMoeConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
        num_experts=4, expert_capacity=12, encoder_sparse_step=2, decoder_sparse_step=2,
        encoder_layerdrop=0.0, decoder_layerdrop=0.0, output_router_logits=True,
    )  # fmt: skip
    return NllbMoeForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
