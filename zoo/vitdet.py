"""VitDet (Hugging Face transformers, tiny configuration): a plain ViT backbone for detection, its
absolute position embeddings pretrained on a larger grid and resized by bicubic interpolation,
windowed attention (windows cut with padding) alternating with global attention, decomposed relative
position biases (einsum of the queries with gathered height and width tables) and a residual
bottleneck block of convolutions with channel-wise layer norm."""

import numpy as np
import torch
from common import images, run
from transformers import VitDetConfig, VitDetModel


def build() -> VitDetModel:
    config = VitDetConfig(
        image_size=40, pretrain_image_size=48, patch_size=8, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, mlp_ratio=2, window_block_indices=[0], residual_block_indices=[1], window_size=3,
        use_relative_position_embeddings=True,
    )  # fmt: skip
    return VitDetModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The mean squared distance of the feature map to a random target (4 random 40 x 40 images)."""
    features = model(pixel_values=images(rng, size=40)).last_hidden_state
    target = torch.from_numpy(rng.standard_normal(tuple(features.shape)).astype(np.float32))
    return ((features - target) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
