"""CSM (Hugging Face transformers, tiny configuration): conversational speech as a Llama backbone over text
and audio frames with a depth decoder over each frame's codebooks. Random audio is encoded by a Mimi codec
without gradients, one clip at a time cut at its cutoff, the codes padded to the longest clip; each frame's
codebooks embedded by one table with per-codebook offsets and summed, written into the text embeddings at the
audio-token positions by a boolean index_put_ (and the end-of-audio frame's embedding repeated at its
positions); the labels expanded to every codebook the same way. The backbone's loss is the first codebook's
next-frame cross entropy; the frames trained by the depth decoder are picked by a boolean mask over the
labels (any codebook not ignored) and nonzero, the backbone's hidden state of the frame before written into
the depth decoder's first position, projected to its width; its logits come from a per-codebook head
(weights indexed by codebook, one linear per position, stacked)."""

import numpy as np
import torch
from common import run
from transformers import CsmConfig, CsmForConditionalGeneration

CODEBOOKS, CODES = 2, 32
TEXT_VOCAB, PAD, BOS, AUDIO, AUDIO_EOS = 64, 60, 61, 62, 63
SAMPLES_PER_FRAME, TEXT = 16, 5
CLIPS = (128, 96)  # audio samples per batch row: 8 and 6 frames


def build() -> CsmForConditionalGeneration:
    codec = {
        "model_type": "mimi", "sampling_rate": 800, "frame_rate": 50, "audio_channels": 1, "hidden_size": 16,
        "num_filters": 4, "upsampling_ratios": [4, 2], "codebook_size": CODES, "codebook_dim": 8,
        "num_quantizers": CODEBOOKS, "vector_quantization_hidden_dimension": 8, "num_semantic_quantizers": 1,
        "upsample_groups": 16, "num_hidden_layers": 1, "intermediate_size": 32, "num_attention_heads": 2,
        "num_key_value_heads": 2, "head_dim": 8, "sliding_window": 16, "max_position_embeddings": 64,
    }  # fmt: skip
    depth = {
        "num_codebooks": CODEBOOKS, "backbone_hidden_size": 32, "vocab_size": CODES + 3, "hidden_size": 16,
        "intermediate_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
        "head_dim": 8, "max_position_embeddings": CODEBOOKS + 1,
    }  # fmt: skip
    config = CsmConfig(
        num_codebooks=CODEBOOKS, vocab_size=CODES + 3, text_vocab_size=TEXT_VOCAB, hidden_size=32,
        intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
        max_position_embeddings=64, pad_token_id=PAD, codebook_pad_token_id=CODES + 2, codebook_eos_token_id=0,
        bos_token_id=BOS, audio_token_id=AUDIO, audio_eos_token_id=AUDIO_EOS, depth_decoder_config=depth,
        codec_config=codec,
    )  # fmt: skip
    return CsmForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 rows of bos, 5 random text tokens, a random clip's frames as audio tokens and end-of-audio (the
    second clip shorter, the row padded): the backbone's and the depth decoder's cross entropies, the first
    frame of row 0 trained by the backbone only (-101)."""
    frames = [n // SAMPLES_PER_FRAME for n in CLIPS]
    length = 1 + TEXT + max(frames) + 1
    ids = np.full((2, length), PAD, np.int64)
    labels = np.full((2, length), -100, np.int64)
    for row, n in enumerate(frames):
        ids[row, 0] = BOS
        ids[row, 1 : 1 + TEXT] = rng.integers(0, PAD, TEXT)
        ids[row, 1 + TEXT : 1 + TEXT + n] = AUDIO
        ids[row, 1 + TEXT + n] = AUDIO_EOS
        labels[row, 1 + TEXT : 1 + TEXT + n] = AUDIO
    labels[0, 1 + TEXT] = -101
    mask = (ids != PAD).astype(np.int64)
    audio = np.zeros((2, 1, max(CLIPS)), np.float32)
    for row, n in enumerate(CLIPS):
        audio[row, 0, :n] = rng.standard_normal(n)
    return model(
        input_ids=torch.from_numpy(ids),
        input_values=torch.from_numpy(audio),
        input_values_cutoffs=torch.tensor([[CLIPS[0]], [CLIPS[1]]]),
        attention_mask=torch.from_numpy(mask),
        labels=torch.from_numpy(labels),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
