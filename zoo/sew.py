"""SEW (Hugging Face transformers, tiny configuration): a wav2vec2-style encoder whose transformer runs
on a sequence squeezed by average pooling and upsampled back by repetition, CTC loss."""

from common import run
from transformers import SEWConfig, SEWForCTC
from wav2vec2 import VOCAB, loss_of


def build() -> SEWForCTC:
    config = SEWConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=4, squeeze_factor=2, mask_time_prob=0.0, ctc_loss_reduction="mean",
        pad_token_id=0,
    )  # fmt: skip
    return SEWForCTC(config)


if __name__ == "__main__":
    run(build, loss_of)
