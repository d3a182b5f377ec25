"""Mamba-2 (Hugging Face transformers, tiny configuration): the state-space duality scan in torch (cumulative
sums, segment sums, exponentials), a gated RMSNorm, softplus time steps."""

from common import causal_lm_loss, run
from transformers import Mamba2Config, Mamba2ForCausalLM

VOCAB = 64


def build() -> Mamba2ForCausalLM:
    config = Mamba2Config(
        vocab_size=VOCAB, hidden_size=32, state_size=8, num_hidden_layers=2, expand=2, head_dim=8, num_heads=8,
        n_groups=1, chunk_size=8, conv_kernel=4,
    )  # fmt: skip
    return Mamba2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
