"""MPT (Hugging Face transformers, tiny configuration): ALiBi biases built in the forward pass, layer
norms without bias, no biases in its linear layers, GELU feed-forward."""

from common import causal_lm_loss, run
from transformers import MptConfig, MptForCausalLM

VOCAB = 96


def build() -> MptForCausalLM:
    config = MptConfig(d_model=64, n_heads=4, n_layers=2, expansion_ratio=2, max_seq_len=32, vocab_size=VOCAB)
    return MptForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
