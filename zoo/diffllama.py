"""DiffLlama (Hugging Face transformers, tiny configuration): differential attention, two softmax maps per
head from the two halves of the queries and keys, the second subtracted from the first under a learned
scalar (`exp` of the dot products of two pairs of learned vectors, `sum` in float32, plus a constant that
grows with the layer's depth), the difference normalised by an RMS norm without weights over both values'
heads (`nn.RMSNorm`, `rms_norm`) and scaled by one minus that constant; rotary positions, grouped keys."""

from common import causal_lm_loss, run
from transformers import DiffLlamaConfig, DiffLlamaForCausalLM

VOCAB = 128


def build() -> DiffLlamaForCausalLM:
    config = DiffLlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=8,
    )  # fmt: skip
    return DiffLlamaForCausalLM(config)


loss_of = causal_lm_loss(VOCAB)


if __name__ == "__main__":
    run(build, loss_of)
