"""CLVP (Hugging Face transformers, tiny configuration): Tortoise's contrastive speech-text model run the way
its forward runs. A conditioning encoder turns a log-mel spectrogram into one vector (a 1 x 1 Conv1d, then
attention blocks each after a GroupNorm of 16 groups over the channels, the first frame kept) ahead of the
text tokens (bos by F.pad, eos at the first pad by gather and masked_fill, positions from the mask's cumsum);
a GPT-2-style speech decoder reads them and its logits' argmax are the speech tokens, fixed after the first
stop token (masked_fill, argmax of the stop mask clamped, torch.where); a speech and a text encoder (rotary
positions on the first 32 of each head's 64 dimensions of queries, keys and values alike, RMSNorm, a
gelu-gated linear unit, the mean over all positions as summary, a bias-free projection) give embeddings whose
cosine similarities scaled by exp(logit scale) are trained on the symmetric contrastive cross entropy."""

import numpy as np
import torch
from common import run
from transformers import ClvpConfig, ClvpModelForConditionalGeneration

TEXT_VOCAB, SPEECH_VOCAB, MELS, FRAMES, TEXT = 48, 40, 16, 12, 8


def build() -> ClvpModelForConditionalGeneration:
    encoder = {
        "hidden_size": 128, "intermediate_size": 128, "projection_dim": 16, "num_hidden_layers": 2,
        "num_attention_heads": 2, "dropout": 0.0, "attention_dropout": 0.0,
    }  # fmt: skip
    text = {**encoder, "vocab_size": TEXT_VOCAB, "bos_token_id": TEXT_VOCAB - 1, "eos_token_id": 0}
    speech = {**encoder, "vocab_size": SPEECH_VOCAB, "bos_token_id": SPEECH_VOCAB - 2, "eos_token_id": SPEECH_VOCAB - 1}
    decoder = {
        "vocab_size": SPEECH_VOCAB, "max_position_embeddings": 32, "max_text_tokens": 16, "hidden_size": 32,
        "num_hidden_layers": 2, "num_attention_heads": 2, "num_mel_attn_blocks": 2, "feature_size": MELS,
        "bos_token_id": SPEECH_VOCAB - 2, "eos_token_id": SPEECH_VOCAB - 1, "decoder_fixing_codes": [3, 4, 4, 5],
        "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attention_dropout": 0.0, "summary_first_dropout": 0.0,
    }  # fmt: skip
    config = ClvpConfig(text_config=text, speech_config=speech, decoder_config=decoder, projection_dim=16)
    return ClvpModelForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """4 random texts of 8 tokens (the last two padded by 2 and 3) and 4 random 16-band log-mel spectrograms
    of 12 frames: the contrastive loss of their embeddings."""
    ids = rng.integers(1, TEXT_VOCAB - 1, (4, TEXT))
    mask = np.ones((4, TEXT), np.int64)
    mask[2, -2:] = mask[3, -3:] = 0
    ids[mask == 0] = 0
    return model(
        input_ids=torch.from_numpy(ids),
        input_features=torch.from_numpy(rng.standard_normal((4, MELS, FRAMES)).astype(np.float32)),
        attention_mask=torch.from_numpy(mask),
        return_loss=True,
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
