"""Speech2Text (Hugging Face transformers, tiny configuration): a strided 1-D convolutional subsampler with GLU,
sinusoidal positions made by the model, an encoder-decoder."""

from common import run, speech_to_text_loss
from transformers import Speech2TextConfig, Speech2TextForConditionalGeneration

VOCAB = 96


def build() -> Speech2TextForConditionalGeneration:
    config = Speech2TextConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, input_feat_per_channel=8,
        input_channels=1, conv_channels=16, conv_kernel_sizes=[5, 5], num_conv_layers=2,
        max_source_positions=64, max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        decoder_start_token_id=1,
    )  # fmt: skip
    return Speech2TextForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, speech_to_text_loss(VOCAB, (4, 40, 8)))  # filter banks: 40 frames x 8
