"""GPT-2 (Hugging Face transformers, tiny configuration): causal language modelling."""

from common import run, tokens
from transformers import GPT2Config, GPT2LMHeadModel

VOCAB = 96


def build() -> GPT2LMHeadModel:
    return GPT2LMHeadModel(GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=64, n_layer=2, n_head=4))


def loss_of(model, rng):
    ids = tokens(rng, VOCAB)
    return model(input_ids=ids, labels=ids).loss


if __name__ == "__main__":
    run(build, loss_of)
