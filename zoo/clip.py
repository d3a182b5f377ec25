"""CLIP (Hugging Face transformers, tiny configuration): a text and a vision transformer (quick GELU), a
contrastive loss."""

import numpy as np
import torch
from common import images, run, tokens
from transformers import CLIPConfig, CLIPModel

VOCAB = 96


def build() -> CLIPModel:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 32}  # fmt: skip
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "image_size": 32, "patch_size": 8}  # fmt: skip
    return CLIPModel(CLIPConfig(text_config=text, vision_config=vision, projection_dim=16))


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The contrastive loss of one batch of random tokens and images (each text paired with one image)."""
    return model(input_ids=tokens(rng, VOCAB), pixel_values=images(rng), return_loss=True).loss


if __name__ == "__main__":
    run(build, loss_of)
