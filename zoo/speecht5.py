"""SpeechT5 for text to speech (Hugging Face transformers, tiny configuration): an encoder with relative
position biases looked up per pair of positions, a speech decoder pre-net whose dropout mask is drawn once with
`bernoulli` and shared across the batch (active in training and inference alike), speaker embeddings
normalised by `normalize` and concatenated in, mel frames predicted by a reduction factor, a post-net of 1-D
convolutions with batch norm and tanh, and a loss of two L1 terms (`l1_loss`), a stop-token term
(`binary_cross_entropy_with_logits` with a positive weight) and a guided attention term (a Gaussian penalty
of the cross-attention maps built from the masks in the forward pass)."""

import numpy as np
import torch
from common import run, tokens
from transformers import SpeechT5Config, SpeechT5ForTextToSpeech

VOCAB, MELS, FRAMES, SPEAKER = 40, 8, 12, 16


def build() -> SpeechT5ForTextToSpeech:
    config = SpeechT5Config(
        vocab_size=VOCAB, hidden_size=32, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=64,
        decoder_layers=2, decoder_attention_heads=2, decoder_ffn_dim=64, encoder_layerdrop=0.0,
        decoder_layerdrop=0.0, num_mel_bins=MELS, speech_decoder_prenet_units=16, speaker_embedding_dim=SPEAKER,
        speech_decoder_postnet_layers=3, speech_decoder_postnet_units=16, speech_decoder_postnet_kernel=5,
        reduction_factor=2, max_speech_positions=64, max_text_positions=64, encoder_max_relative_position=8,
    )  # fmt: skip
    return SpeechT5ForTextToSpeech(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The spectrogram loss of one batch: 4 random texts of 16 tokens, random mel frames (4 x 12 x 8) and
    random speaker embeddings."""
    ids = tokens(rng, VOCAB)
    mels = torch.from_numpy(rng.standard_normal((4, FRAMES, MELS)).astype(np.float32))
    speakers = torch.from_numpy(rng.standard_normal((4, SPEAKER)).astype(np.float32))
    mask = torch.ones_like(ids)
    return model(input_ids=ids, attention_mask=mask, labels=mels, speaker_embeddings=speakers).loss


if __name__ == "__main__":
    run(build, loss_of)
