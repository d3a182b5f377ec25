"""VitMatte (Hugging Face transformers, tiny configuration) over a VitDet backbone: an image and its
trimap (4 channels) through a plain ViT with windowed attention, a convolution stream of stride-2
convolutions with batch norm, fusion blocks that upsample bilinearly by 2 (corners not aligned) and
concatenate the stream's details, and a sigmoid alpha matte."""

import numpy as np
import torch
from common import run
from transformers import VitDetConfig, VitMatteConfig, VitMatteForImageMatting


def build() -> VitMatteForImageMatting:
    backbone = VitDetConfig(
        num_channels=4, image_size=64, pretrain_image_size=64, patch_size=16, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, mlp_ratio=2, window_block_indices=[0], window_size=2,
        use_relative_position_embeddings=True, out_features=["stage2"],
    )  # fmt: skip
    config = VitMatteConfig(
        backbone_config=backbone, hidden_size=32, convstream_hidden_sizes=[8, 16, 16],
        fusion_hidden_sizes=[16, 16, 8, 8],
    )  # fmt: skip
    return VitMatteForImageMatting(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The L1 distance of the alpha matte to a random one (2 random 64 x 64 images with a trimap of
    0, 0.5 and 1)."""
    image = rng.standard_normal((2, 3, 64, 64)).astype(np.float32)
    trimap = (rng.integers(0, 3, (2, 1, 64, 64)) / 2).astype(np.float32)
    pixels = torch.from_numpy(np.concatenate([image, trimap], axis=1))
    alphas = model(pixel_values=pixels).alphas
    target = torch.from_numpy(rng.uniform(0, 1, tuple(alphas.shape)).astype(np.float32))
    return (alphas - target).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
