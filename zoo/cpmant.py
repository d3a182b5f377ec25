"""CPM-Ant (Hugging Face transformers, tiny configuration): a decoder that prepends 8 learned prompt
tokens to every sequence, adds segment embeddings, and biases attention by T5-style relative position
buckets computed in int32 (``log`` of the distance, ``min`` and ``where``) looked up per head; RMSNorm
without a mean, attention masked by ``masked_fill`` with a scalar tensor of -inf, a gated GELU MLP."""

from common import run, tokens
from transformers import CpmAntConfig, CpmAntForCausalLM

VOCAB = 96


def build() -> CpmAntForCausalLM:
    config = CpmAntConfig(
        vocab_size=VOCAB, hidden_size=64, num_attention_heads=4, dim_head=16, dim_ff=128, num_hidden_layers=2,
        position_bias_num_buckets=32, position_bias_max_distance=64, prompt_types=4, prompt_length=8,
        segment_types=4,
    )  # fmt: skip
    return CpmAntForCausalLM(config)


def loss_of(model, rng):
    ids = tokens(rng, VOCAB - 1) + 1  # id 0 marks padding
    return model(input_ids=ids, labels=ids).loss


if __name__ == "__main__":
    run(build, loss_of)
