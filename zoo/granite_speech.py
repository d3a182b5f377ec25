"""Granite Speech (Hugging Face transformers, tiny configuration): speech recognition by a conformer encoder,
a windowed Q-Former projector and a Granite language model. The conformer's attention works in blocks of 8
frames (the last block right-padded): Shaw's relative positions as an embedding of clamped distances,
einsum'd with the queries into a float bias whose padded block is masked_fill_'d through a strided slice,
then SDPA's math kernel with that bias; a GLU, a depthwise convolution of even width (asymmetric padding),
BatchNorm1d in training, half-step feed-forwards; the middle layer's CTC head softmaxed and projected back
into the residual. The projector pads the frames to windows of 4, each window read by 2 learned queries
through a BLIP-2 Q-Former's cross-attention; the audio features, the second clip's last two masked out by a
boolean index, are masked_scatter'd into the text embeddings at the audio tokens; the loss is the
cross entropy of the logits and labels picked by the shifted attention mask."""

import numpy as np
import torch
from common import run
from transformers import GraniteSpeechConfig, GraniteSpeechForConditionalGeneration

VOCAB, AUDIO, FEATURES, FRAMES, TEXT = 64, 63, 16, 20, 6
AUDIO_TOKENS = (10, 8)  # 20 frames give 5 windows of 2 queries; the second clip keeps 8 of its 10


def build() -> GraniteSpeechForConditionalGeneration:
    encoder = {
        "input_dim": FEATURES, "num_layers": 2, "hidden_dim": 32, "feedforward_mult": 2, "num_heads": 2,
        "dim_head": 16, "output_dim": 8, "context_size": 8, "max_pos_emb": 8, "dropout": 0.0,
        "conv_kernel_size": 4, "conv_expansion_factor": 2,
    }  # fmt: skip
    projector = {
        "model_type": "blip_2_qformer", "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
        "intermediate_size": 64, "encoder_hidden_size": 32, "cross_attention_frequency": 1,
    }  # fmt: skip
    text = {
        "model_type": "granite", "vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64,
    }  # fmt: skip
    config = GraniteSpeechConfig(
        text_config=text, encoder_config=encoder, projector_config=projector, audio_token_index=AUDIO,
        has_lora_adapter=False, downsample_rate=2, window_size=4,
    )  # fmt: skip
    return GraniteSpeechForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 clips of 20 random feature frames; per row the audio tokens then 6 random text tokens (the second row
    left-padded by 2), the text its own labels, audio positions ignored."""
    features = torch.from_numpy(rng.standard_normal((2, FRAMES, FEATURES)).astype(np.float32))
    features_mask = np.zeros((2, max(AUDIO_TOKENS)), bool)
    length = max(AUDIO_TOKENS) + TEXT
    ids = np.zeros((2, length), np.int64)
    mask = np.zeros((2, length), np.int64)
    for row, n in enumerate(AUDIO_TOKENS):
        features_mask[row, :n] = True
        start = length - n - TEXT
        ids[row, start : start + n] = AUDIO
        ids[row, start + n :] = rng.integers(1, AUDIO, TEXT)
        mask[row, start:] = 1
    labels = np.where(ids == AUDIO, -100, ids)
    return model(
        input_ids=torch.from_numpy(ids),
        input_features=features,
        input_features_mask=torch.from_numpy(features_mask),
        attention_mask=torch.from_numpy(mask),
        labels=torch.from_numpy(labels),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
