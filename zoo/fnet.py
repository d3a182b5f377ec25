"""FNet (Hugging Face transformers, tiny configuration): token mixing by a two-dimensional Fourier
transform (torch.fft.fftn over sequence and hidden, its real part) in place of attention."""

from common import run, sequence_classification_loss
from transformers import FNetConfig, FNetForSequenceClassification

VOCAB = 96


def build() -> FNetForSequenceClassification:
    config = FNetConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, intermediate_size=128, max_position_embeddings=32,
        type_vocab_size=2, num_labels=3,
    )  # fmt: skip
    return FNetForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
