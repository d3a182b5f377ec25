"""SEW-D (Hugging Face transformers, tiny configuration): SEW's squeezed wav2vec2-style encoder with
DeBERTa-v2's disentangled attention (content-to-position and position-to-content scores gathered from
log-bucketed relative positions), CTC loss."""

from common import run
from transformers import SEWDConfig, SEWDForCTC
from wav2vec2 import VOCAB, loss_of


def build() -> SEWDForCTC:
    config = SEWDConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=4, squeeze_factor=2, mask_time_prob=0.0, ctc_loss_reduction="mean",
        pad_token_id=0, max_position_embeddings=64, position_buckets=16,
    )  # fmt: skip
    return SEWDForCTC(config)


if __name__ == "__main__":
    run(build, loss_of)
