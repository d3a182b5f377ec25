"""CANINE (Hugging Face transformers, tiny configuration): characters hashed into embeddings, a local
transformer, a strided convolution downsampling them, and upsampling by repetition and a convolution."""

from common import run, sequence_classification_loss
from transformers import CanineConfig, CanineForSequenceClassification

VOCAB = 96


def build() -> CanineForSequenceClassification:
    config = CanineConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
        downsampling_rate=4, upsampling_kernel_size=4, num_hash_functions=2, num_hash_buckets=64,
        local_transformer_stride=8, num_labels=3,
    )  # fmt: skip
    return CanineForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
