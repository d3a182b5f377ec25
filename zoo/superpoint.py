"""SuperPoint (Hugging Face transformers, tiny configuration): a VGG-style encoder with max pooling, a
keypoint head whose 65-way softmax is unfolded to a full-resolution score map, non-maximum suppression
by max pooling, keypoints picked by threshold and topk, and descriptors sampled at the keypoints by
``grid_sample`` (bilinear, corners aligned) between two L2 normalisations."""

import numpy as np
import torch
from common import run
from transformers import SuperPointConfig, SuperPointForKeypointDetection


def build() -> SuperPointForKeypointDetection:
    config = SuperPointConfig(
        encoder_hidden_sizes=[8, 8, 16, 16], decoder_hidden_size=16, descriptor_decoder_dim=16, max_keypoints=24,
        nms_radius=2, border_removal_distance=4,
    )  # fmt: skip
    return SuperPointForKeypointDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The keypoints' scores and their descriptors against a random target (2 random grey 64 x 64 images)."""
    pixels = torch.from_numpy(rng.standard_normal((2, 1, 64, 64)).astype(np.float32)).expand(2, 3, 64, 64)
    out = model(pixel_values=pixels)
    target = torch.from_numpy(rng.standard_normal(out.descriptors.shape).astype(np.float32))
    mask = out.mask.unsqueeze(-1).float()
    return ((out.descriptors - target) ** 2 * mask).mean() - out.scores.sum() / out.mask.sum()


if __name__ == "__main__":
    run(build, loss_of)
