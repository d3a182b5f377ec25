"""Kosmos-2 (Hugging Face transformers, tiny configuration): grounded image-to-text. A CLIP-style vision
encoder (quick_gelu) whose whole last state goes through its post layer norm and is L2-normalised
(F.normalize), then a latent-query resampler: learned queries cross-attend over the projected features
concatenated with the queries themselves; the resampled image embeddings are written into the token
embeddings at the image positions by a boolean-mask index_put_, scaled by sqrt(d), with sinusoidal positions
built from the non-padding tokens' cumsum (padding at the end of the second sample); a MAGNETO-style text
decoder (an inner LayerNorm on the attention output before out_proj, a LayerNorm inside the FFN after gelu),
trained on the language-model cross entropy of the text positions."""

import numpy as np
import torch
from common import run
from transformers import Kosmos2Config, Kosmos2ForConditionalGeneration

VOCAB, LATENTS, TEXT, PAD = 96, 4, 10, 1


def build() -> Kosmos2ForConditionalGeneration:
    text = {
        "vocab_size": VOCAB, "embed_dim": 32, "layers": 2, "ffn_dim": 64, "attention_heads": 2,
        "max_position_embeddings": 64, "dropout": 0.0, "attention_dropout": 0.0, "pad_token_id": PAD,
    }  # fmt: skip
    vision = {
        "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
        "image_size": 16, "patch_size": 4,
    }  # fmt: skip
    return Kosmos2ForConditionalGeneration(
        Kosmos2Config(text_config=text, vision_config=vision, latent_query_num=LATENTS)
    )


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 16 x 16 images; bos, <image>, 4 image positions, </image>, 10 text tokens (the second
    sample's last 3 padding): the cross entropy of the text tokens."""
    pixels = torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32))
    length = 3 + LATENTS + TEXT
    ids = rng.integers(4, VOCAB, (2, length))
    ids[:, 0], ids[:, 1], ids[:, 2 + LATENTS] = 0, 3, 3
    ids[1, -3:] = PAD
    image_mask = np.zeros((2, length), np.int64)
    image_mask[:, 2 : 2 + LATENTS] = 1
    attention = (ids != PAD).astype(np.int64)
    labels = ids.copy()
    labels[:, : 3 + LATENTS] = -100
    labels[ids == PAD] = -100
    return model(
        pixel_values=pixels,
        input_ids=torch.from_numpy(ids),
        image_embeds_position_mask=torch.from_numpy(image_mask),
        attention_mask=torch.from_numpy(attention),
        labels=torch.from_numpy(labels),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
