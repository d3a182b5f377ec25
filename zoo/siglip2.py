"""SigLIP 2 (Hugging Face transformers, tiny configuration): SigLIP's text and vision towers and pairwise
sigmoid loss, the vision tower taking images of any aspect ratio (NaFlex): each image as a variable number
of patches, padded to a fixed count and masked, its learned 4 x 4 grid of position embeddings resized to
the image's own patch grid by antialiased bilinear interpolation (down in one direction, up in the other)
and padded with the first row."""

import numpy as np
import torch
from common import run, tokens
from transformers import Siglip2Config, Siglip2Model

VOCAB, PATCH, MAX_PATCHES = 96, 8, 16
# each image's patch grid (rows, columns): at most MAX_PATCHES, the position grid 4 x 4
SHAPES = ((2, 7), (4, 4), (3, 5), (5, 2))


def build() -> Siglip2Model:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 16, "projection_size": 32,
            "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}  # fmt: skip
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "patch_size": PATCH, "num_patches": MAX_PATCHES}  # fmt: skip
    return Siglip2Model(Siglip2Config(text_config=text, vision_config=vision))


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The sigmoid loss of 4 random captions and 4 random images of the patch grids SHAPES (flattened
    patches, the rest padding masked out)."""
    pixels = rng.standard_normal((len(SHAPES), MAX_PATCHES, 3 * PATCH * PATCH)).astype(np.float32)
    mask = np.zeros((len(SHAPES), MAX_PATCHES), np.int64)
    for i, (h, w) in enumerate(SHAPES):
        mask[i, : h * w] = 1
        pixels[i, h * w :] = 0
    return model(
        input_ids=tokens(rng, VOCAB), pixel_values=torch.from_numpy(pixels),
        pixel_attention_mask=torch.from_numpy(mask), spatial_shapes=torch.tensor(SHAPES), return_loss=True,
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
