"""GroupViT (Hugging Face transformers, tiny configuration): learnable group tokens that gather image tokens
by cross-attention assigned with the Gumbel-softmax trick (noise drawn with ``torch.rand`` in every
training forward, ``-log(-log(u))``), a hard one-hot assignment by ``max`` and ``scatter_`` made
differentiable by the straight-through estimator, two grouping stages, and CLIP's contrastive loss."""

import numpy as np
import torch
from common import images, run, tokens
from transformers import GroupViTConfig, GroupViTModel

VOCAB = 96


def build() -> GroupViTModel:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 32}  # fmt: skip
    vision = {"hidden_size": 32, "intermediate_size": 64, "depths": [1, 1, 1], "num_hidden_layers": 3,
              "num_group_tokens": [8, 4, 0], "num_output_groups": [8, 4, 4], "num_attention_heads": 2,
              "image_size": 32, "patch_size": 4}  # fmt: skip
    return GroupViTModel(GroupViTConfig(text_config=text, vision_config=vision, projection_dim=16,
                                        projection_intermediate_dim=32))  # fmt: skip


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The contrastive loss of one batch of random tokens and images (each text paired with one image)."""
    return model(input_ids=tokens(rng, VOCAB), pixel_values=images(rng), return_loss=True).loss


if __name__ == "__main__":
    run(build, loss_of)
