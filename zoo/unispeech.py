"""UniSpeech (Hugging Face transformers, tiny configuration): wav2vec 2.0's convolutional feature encoder
with group norm, a grouped convolutional position embedding with weight norm, mean-pooled sequence
classification."""

import torch
from common import run
from transformers import UniSpeechConfig, UniSpeechForSequenceClassification


def build() -> UniSpeechForSequenceClassification:
    config = UniSpeechConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16),
        conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8, num_conv_pos_embedding_groups=4,
        mask_time_prob=0.0, num_labels=3, classifier_proj_size=16,
    )  # fmt: skip
    return UniSpeechForSequenceClassification(config)


def loss_of(model, rng):
    audio = torch.from_numpy(rng.standard_normal((4, 400)).astype("float32"))
    labels = torch.from_numpy(rng.integers(0, 3, 4))
    return model(input_values=audio, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
