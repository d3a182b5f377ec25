"""GLPN (Hugging Face transformers, tiny configuration): a hierarchical Mix Transformer encoder
(overlapping patch embeddings, spatial-reduction attention, depthwise convolutions in the MLP), a
decoder of bilinear upsampling by 2 and selective feature fusion (a sigmoid-gated two-way attention map
blending skip and upsampled features), a sigmoid depth head and the scale-invariant log loss (log of
predicted and target depth, a square root of their variance)."""

import numpy as np
import torch
from common import images, run
from transformers import GLPNConfig, GLPNForDepthEstimation


def build() -> GLPNForDepthEstimation:
    config = GLPNConfig(
        num_encoder_blocks=4, depths=[1, 1, 1, 1], sr_ratios=[4, 2, 1, 1], hidden_sizes=[8, 16, 16, 32],
        num_attention_heads=[1, 2, 2, 2], mlp_ratios=[2, 2, 2, 2], decoder_hidden_size=16, drop_path_rate=0.0,
    )  # fmt: skip
    return GLPNForDepthEstimation(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The scale-invariant log loss of the predicted depth against a random positive depth map
    (2 random 64 x 64 images)."""
    depth = torch.from_numpy(rng.uniform(0.5, 9.5, (2, 64, 64)).astype(np.float32))
    return model(pixel_values=images(rng, batch=2, size=64), labels=depth).loss


if __name__ == "__main__":
    run(build, loss_of)
