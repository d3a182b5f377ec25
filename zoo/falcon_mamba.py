"""FalconMamba (Hugging Face transformers, tiny configuration): Mamba's selective scan with the time
steps and the state projections B and C each RMS-normalised without a weight before the scan."""

from common import causal_lm_loss, run
from transformers import FalconMambaConfig, FalconMambaForCausalLM

VOCAB = 96


def build() -> FalconMambaForCausalLM:
    config = FalconMambaConfig(
        vocab_size=VOCAB, hidden_size=32, state_size=8, num_hidden_layers=2, expand=2, conv_kernel=4,
    )  # fmt: skip
    return FalconMambaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
