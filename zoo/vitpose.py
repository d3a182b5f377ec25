"""ViTPose (Hugging Face transformers, tiny configuration): a ViT backbone on a non-square image whose patch
embedding pads by 2, the class token's position added to every patch's, a mixture of experts in each MLP (a
shared part and an expert part: every expert's linear layer run on every image, multiplied by the boolean
``dataset_index == i`` and summed), and the classic decoder: two transposed convolutions (kernel 4, stride 2,
padding 1) each with batch norm and ReLU, then a 1 x 1 convolution to keypoint heatmaps. The library has no
training loss: the loss here is the mean squared error of the heatmaps against random Gaussian-blob targets."""

import numpy as np
import torch
from common import images, run
from transformers import VitPoseBackboneConfig, VitPoseConfig, VitPoseForPoseEstimation

HEIGHT, WIDTH, PATCH, KEYPOINTS = 32, 24, 8, 5


def build() -> VitPoseForPoseEstimation:
    backbone = VitPoseBackboneConfig(
        image_size=[HEIGHT, WIDTH], patch_size=[PATCH, PATCH], hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, mlp_ratio=2, num_experts=2, part_features=8, out_indices=[2],
    )  # fmt: skip
    config = VitPoseConfig(backbone_config=backbone, use_simple_decoder=False, num_labels=KEYPOINTS)
    return VitPoseForPoseEstimation(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Heatmap mean squared error on 2 random images (32 x 24), each its dataset's expert, against a
    Gaussian blob at a random point per keypoint."""
    pixels = images(rng, batch=2, size=HEIGHT)[..., :WIDTH].contiguous()
    dataset = torch.from_numpy(rng.integers(0, 2, 2))
    heatmaps = model(pixel_values=pixels, dataset_index=dataset).heatmaps
    h, w = heatmaps.shape[-2:]
    centres = rng.random((2, KEYPOINTS, 2)) * [h, w]
    y, x = np.mgrid[0:h, 0:w]
    blobs = np.exp(-((y - centres[..., :1, None]) ** 2 + (x - centres[..., 1:, None]) ** 2) / 4.0)
    return ((heatmaps - torch.from_numpy(blobs.astype(np.float32))) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
