"""Pix2Struct (Hugging Face transformers, tiny configuration): an image-to-text encoder-decoder over
variable-resolution input: each image cut into as many 4 x 4 patches as its aspect ratio gives (4 x 8 and
6 x 4 patches), flattened with its 1-based row and column numbers as two leading float columns and padded
with zero patches to 32; the encoder casts those columns to int64 (``.long()``) for learned row and column
embeddings, then T5-style pre-norm layers (RMS norm without a mean, gated ``gelu_new`` feed-forward, no
position bias) under the patch mask; the decoder is T5's with relative position buckets and
cross-attention. Trained on the language-model cross entropy of random target tokens."""

import numpy as np
import torch
from common import run, tokens
from transformers import Pix2StructConfig, Pix2StructForConditionalGeneration

PATCH, MAX_PATCHES, VOCAB = 4, 32, 96
GRIDS = ((4, 8), (6, 4))  # (rows, columns) of patches per image


def build() -> Pix2StructForConditionalGeneration:
    text = {
        "vocab_size": VOCAB, "hidden_size": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_heads": 4,
        "relative_attention_num_buckets": 8, "relative_attention_max_distance": 16, "dropout_rate": 0.0,
    }  # fmt: skip
    vision = {
        "hidden_size": 32, "patch_embed_hidden_size": 3 * PATCH * PATCH, "d_kv": 8, "d_ff": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "seq_len": 16,
    }  # fmt: skip
    return Pix2StructForConditionalGeneration(Pix2StructConfig(text_config=text, vision_config=vision))


def flattened_patches(rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(flattened patches (images, MAX_PATCHES, 2 + 3 * PATCH * PATCH), patch mask (images, MAX_PATCHES))."""
    out = np.zeros((len(GRIDS), MAX_PATCHES, 2 + 3 * PATCH * PATCH), np.float32)
    mask = np.zeros((len(GRIDS), MAX_PATCHES), np.int64)
    for i, (rows, cols) in enumerate(GRIDS):
        image = rng.standard_normal((rows * PATCH, cols * PATCH, 3)).astype(np.float32)
        patches = image.reshape(rows, PATCH, cols, PATCH, 3).transpose(0, 2, 1, 3, 4).reshape(rows * cols, -1)
        r, c = np.meshgrid(np.arange(1, rows + 1), np.arange(1, cols + 1), indexing="ij")
        out[i, : rows * cols] = np.concatenate([r.reshape(-1, 1), c.reshape(-1, 1), patches], axis=1)
        mask[i, : rows * cols] = 1
    return torch.from_numpy(out), torch.from_numpy(mask)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The language-model loss of random 12-token targets for the 2 images."""
    patches, mask = flattened_patches(rng)
    labels = tokens(rng, VOCAB, batch=len(GRIDS), length=12)
    return model(flattened_patches=patches, attention_mask=mask, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
