"""XLNet (Hugging Face transformers, tiny configuration): two-stream relative positional attention by
einsum, sinusoidal relative positions made in the forward pass, segment biases."""

from common import run, sequence_classification_loss
from transformers import XLNetConfig, XLNetForSequenceClassification

VOCAB = 96


def build() -> XLNetForSequenceClassification:
    config = XLNetConfig(vocab_size=VOCAB, d_model=32, n_layer=1, n_head=2, d_inner=64, num_labels=3)
    return XLNetForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
