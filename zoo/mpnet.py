"""MPNet (Hugging Face transformers, tiny configuration): a relative position bias shared by every layer,
its 32 buckets computed in the forward pass from the log of the distance (T5's scheme, bidirectional)
and added to each head's scores; a masked language model head tied to the word embeddings."""

from common import causal_lm_loss, run
from transformers import MPNetConfig, MPNetForMaskedLM

VOCAB = 96


def build() -> MPNetForMaskedLM:
    config = MPNetConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64,
    )  # fmt: skip
    return MPNetForMaskedLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
