"""GPT-2 (Hugging Face transformers, tiny configuration): causal language modelling."""

from common import causal_lm_loss, run
from transformers import GPT2Config, GPT2LMHeadModel

VOCAB = 96


def build() -> GPT2LMHeadModel:
    return GPT2LMHeadModel(
        GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=64, n_layer=2, n_head=4, bos_token_id=0, eos_token_id=0)
    )


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
