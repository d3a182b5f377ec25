"""GPTBigCode (Hugging Face transformers, tiny configuration): multi-query attention (one key/value head)."""

from common import causal_lm_loss, run
from transformers import GPTBigCodeConfig, GPTBigCodeForCausalLM

VOCAB = 96


def build() -> GPTBigCodeForCausalLM:
    config = GPTBigCodeConfig(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=32, bos_token_id=1,
                              eos_token_id=2)  # fmt: skip
    return GPTBigCodeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
