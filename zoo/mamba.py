"""Mamba (Hugging Face transformers, tiny configuration): a selective state-space model, its depthwise
causal 1-D convolution cut to the sequence (a strided view into SiLU), the scan in PyTorch ops."""

from common import causal_lm_loss, run
from transformers import MambaConfig, MambaForCausalLM

VOCAB = 96


def build() -> MambaForCausalLM:
    config = MambaConfig(vocab_size=VOCAB, hidden_size=32, state_size=8, num_hidden_layers=2, expand=2, conv_kernel=4)
    return MambaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
