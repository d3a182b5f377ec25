"""Wav2Vec2-Conformer (Hugging Face transformers, tiny configuration): conformer blocks (half-step
feed-forwards, rotary self-attention, a convolution module of a pointwise convolution, GLU, a depthwise
1-D convolution, batch norm and SiLU) over a convolutional feature encoder, CTC loss."""

from common import run
from transformers import Wav2Vec2ConformerConfig, Wav2Vec2ConformerForCTC
from wav2vec2 import VOCAB, loss_of


def build() -> Wav2Vec2ConformerForCTC:
    config = Wav2Vec2ConformerConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=4, mask_time_prob=0.0, ctc_loss_reduction="mean", pad_token_id=0,
        position_embeddings_type="rotary", conv_depthwise_kernel_size=7,
    )  # fmt: skip
    return Wav2Vec2ConformerForCTC(config)


if __name__ == "__main__":
    run(build, loss_of)
