"""ImageGPT (Hugging Face transformers, tiny configuration): GPT-2 over colour-cluster tokens with its own
layer norm (no mean subtracted, no bias: x / sqrt(mean(x^2) + eps) * weight) and quick GELU."""

from common import causal_lm_loss, run
from transformers import ImageGPTConfig, ImageGPTForCausalImageModeling

VOCAB = 97  # 96 colour clusters and the start token


def build() -> ImageGPTForCausalImageModeling:
    config = ImageGPTConfig(vocab_size=VOCAB, n_positions=32, n_embd=64, n_layer=2, n_head=4)
    return ImageGPTForCausalImageModeling(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB - 1))
