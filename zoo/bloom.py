"""BLOOM (Hugging Face transformers, tiny configuration): ALiBi position biases added to the attention
scores (``baddbmm``), a tanh-approximated GELU, a LayerNorm on the embeddings."""

from common import causal_lm_loss, run
from transformers import BloomConfig, BloomForCausalLM

VOCAB = 96


def build() -> BloomForCausalLM:
    return BloomForCausalLM(BloomConfig(vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4))


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
