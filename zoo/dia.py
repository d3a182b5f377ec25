"""Dia (Hugging Face transformers, tiny configuration): text to dialogue audio tokens. A byte-level text
encoder (RMSNorm, rotary, padding masked) feeds a decoder over 4 codebook channels in a delay pattern (channel
c shifted right by its delay, bos before and pad after, built by NumPy as the processor builds it): the
channels are embedded by one table with per-channel offsets (codes + offsets, embedding, a view and a sum over
the channels), grouped-query self-attention with rotary positions, cross-attention to the encoder, a SiLU-gated
MLP; the logits of all channels come from one projection, viewed per channel and transposed to
(batch * channels, time, vocabulary), trained on the cross entropy of the delayed codes (delay and padding
positions ignored, each channel's eos learnt)."""

import numpy as np
import torch
from common import run
from transformers import DiaConfig, DiaForConditionalGeneration

VOCAB, TEXT_VOCAB, CHANNELS, FRAMES, TEXT = 32, 64, 4, 10, 12
EOS, PAD, BOS = VOCAB, VOCAB + 1, VOCAB + 2  # the decoder's vocabulary is the codes and these three
DELAYS = (0, 1, 2, 3)


def build() -> DiaForConditionalGeneration:
    encoder = {
        "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 2, "head_dim": 16, "vocab_size": TEXT_VOCAB, "max_position_embeddings": 64,
    }  # fmt: skip
    decoder = {
        "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "cross_num_attention_heads": 2, "cross_head_dim": 16,
        "cross_num_key_value_heads": 2, "cross_hidden_size": 32, "vocab_size": VOCAB + 3,
        "num_channels": CHANNELS, "max_position_embeddings": 64, "eos_token_id": EOS, "pad_token_id": PAD,
        "bos_token_id": BOS,
    }  # fmt: skip
    return DiaForConditionalGeneration(
        DiaConfig(encoder_config=encoder, decoder_config=decoder, delay_pattern=list(DELAYS))
    )


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random byte texts of 12 (the second padded by 4) and 2 random clips of 10 frames of 4 channels: the
    delayed codes after bos as decoder input, the cross entropy of the next delayed code."""
    text = rng.integers(1, TEXT_VOCAB, (2, TEXT))
    text_mask = np.ones((2, TEXT), np.int64)
    text_mask[1, -4:] = 0
    text[text_mask == 0] = 0
    codes = rng.integers(0, VOCAB, (2, FRAMES, CHANNELS))
    length = FRAMES + max(DELAYS) + 2
    delayed = np.full((2, length, CHANNELS), PAD)
    delayed[:, 0] = BOS
    for c, d in enumerate(DELAYS):
        delayed[:, 1 : 1 + d, c] = BOS
        delayed[:, 1 + d : 1 + d + FRAMES, c] = codes[:, :, c]
        delayed[:, 1 + d + FRAMES, c] = EOS
    labels = delayed[:, 1:].copy()
    labels[(labels == BOS) | (labels == PAD)] = -100
    labels = labels.transpose(0, 2, 1).reshape(2 * CHANNELS, length - 1)
    return model(
        input_ids=torch.from_numpy(text),
        attention_mask=torch.from_numpy(text_mask),
        decoder_input_ids=torch.from_numpy(delayed[:, :-1]),
        labels=torch.from_numpy(labels),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
