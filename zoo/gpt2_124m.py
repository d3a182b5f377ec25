"""GPT-2 at its released size (Hugging Face transformers' default configuration, 124M parameters):
causal language modelling on batches of 4 x 128 tokens."""

from common import causal_lm_loss, run
from transformers import GPT2Config, GPT2LMHeadModel


def build() -> GPT2LMHeadModel:
    return GPT2LMHeadModel(GPT2Config())


if __name__ == "__main__":
    run(build, causal_lm_loss(GPT2Config().vocab_size, batch=4, length=128))
