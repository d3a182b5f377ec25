"""OLMo 2 (Hugging Face transformers, tiny configuration): RMSNorm after each block rather than
before, RMSNorm over the whole query and key projections, SiLU, rotary positions."""

from common import causal_lm_loss, run
from transformers import Olmo2Config, Olmo2ForCausalLM

VOCAB = 96


def build() -> Olmo2ForCausalLM:
    config = Olmo2Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=32, bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )  # fmt: skip
    return Olmo2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
