"""CTRL (Hugging Face transformers, tiny configuration): a causal language model whose fixed sinusoidal
positions are computed by torch as the model is built (``pow`` of 10000 to a tensor of exponents, ``sin`` and
``cos`` of alternate columns, concatenated), added to embeddings scaled by the root of the model
width; pre-norm blocks and a ReLU feed-forward."""

from common import causal_lm_loss, run
from transformers import CTRLConfig, CTRLLMHeadModel

VOCAB = 96


def build() -> CTRLLMHeadModel:
    config = CTRLConfig(vocab_size=VOCAB, n_positions=32, n_embd=32, dff=64, n_layer=2, n_head=2)
    return CTRLLMHeadModel(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
