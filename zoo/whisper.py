"""Whisper (Hugging Face transformers, tiny configuration): 1-D convolutions over a log-mel input, encoder-decoder."""

from common import run, speech_to_text_loss
from transformers import WhisperConfig, WhisperForConditionalGeneration

VOCAB = 96


def build() -> WhisperForConditionalGeneration:
    config = WhisperConfig(
        vocab_size=VOCAB, num_mel_bins=8, encoder_layers=1, decoder_layers=1, d_model=32, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
        max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1,
    )  # fmt: skip
    return WhisperForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, speech_to_text_loss(VOCAB, (4, 8, 32)))  # log-mel features: 8 bins x 32 frames
