"""RecurrentGemma (Hugging Face transformers, tiny configuration): Griffin's recurrent blocks (a
temporal 1-D convolution and the RG-LRU's gated linear recurrence, scanned in PyTorch) beside local
attention."""

from common import causal_lm_loss, run
from transformers import RecurrentGemmaConfig, RecurrentGemmaForCausalLM

VOCAB = 96


def build() -> RecurrentGemmaForCausalLM:
    config = RecurrentGemmaConfig(
        vocab_size=VOCAB, hidden_size=32, lru_width=32, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, head_dim=16, intermediate_size=64, attention_window_size=8, conv1d_width=4,
        block_types=["recurrent", "attention"], logits_soft_cap=30.0,
    )  # fmt: skip
    return RecurrentGemmaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
