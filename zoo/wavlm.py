"""WavLM (Hugging Face transformers, tiny configuration): gated relative position bias (log-spaced relative
buckets, a sigmoid gate from the queries), a wav2vec2-style convolutional encoder; the x-vector head's
dilated TDNN layers, statistics pooling (mean and std) and additive-margin softmax loss."""

from common import run
from hubert import loss_of
from transformers import WavLMConfig, WavLMForXVector


def build() -> WavLMForXVector:
    config = WavLMConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16),
        conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
        num_buckets=16, max_bucket_distance=32, mask_time_prob=0.0, tdnn_dim=(16, 16, 24), tdnn_kernel=(3, 3, 1),
        tdnn_dilation=(1, 2, 1), xvector_output_dim=8, num_labels=3, layerdrop=0.0,
    )  # fmt: skip
    return WavLMForXVector(config)


if __name__ == "__main__":
    run(build, loss_of)
