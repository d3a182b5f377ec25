"""GPT-J (Hugging Face transformers, tiny configuration): rotary positions on interleaved pairs of the
first channels of each head (the sin/cos tables gathered per position and repeated channel by channel),
attention and feed-forward in parallel on one layer norm."""

from common import causal_lm_loss, run
from transformers import GPTJConfig, GPTJForCausalLM

VOCAB = 96


def build() -> GPTJForCausalLM:
    config = GPTJConfig(
        vocab_size=VOCAB, n_positions=32, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, bos_token_id=0, eos_token_id=0
    )
    return GPTJForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
