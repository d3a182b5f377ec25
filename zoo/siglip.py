"""SigLIP (Hugging Face transformers, tiny configuration): a text and a vision transformer (tanh GELU),
the vision tower pooled by a multi-head attention probe, and the pairwise sigmoid loss (``logsigmoid`` of
every text-image logit, scaled by a learned temperature and shifted by a learned bias) instead of a
softmax contrastive loss."""

import numpy as np
import torch
from common import images, run, tokens
from transformers import SiglipConfig, SiglipModel

VOCAB = 96


def build() -> SiglipModel:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 16, "projection_size": 32}  # fmt: skip
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "image_size": 32, "patch_size": 8}  # fmt: skip
    return SiglipModel(SiglipConfig(text_config=text, vision_config=vision))


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The sigmoid loss of one batch of random tokens and images (each text paired with one image)."""
    return model(input_ids=tokens(rng, VOCAB), pixel_values=images(rng), return_loss=True).loss


if __name__ == "__main__":
    run(build, loss_of)
