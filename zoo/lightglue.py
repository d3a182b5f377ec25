"""LightGlue (Hugging Face transformers, tiny configuration): keypoints and descriptors given from NumPy (the
SuperPoint detector is not run), keypoints normalised and encoded as rotary positions (a linear projection,
``cos`` and ``sin`` of it, pairs rotated), alternating self- and cross-attention between the two images, then
a match assignment: a scaled similarity and a matchability per keypoint, combined by a double ``log_softmax``
and ``logsigmoid`` (the dustbins the ``logsigmoid`` of minus the matchability); mutual nearest matches by
``max`` and ``gather``, their scores' ``exp``. Early stopping and keypoint pruning are on, as in the library's
defaults: each layer's token confidences (a ``sigmoid``) are measured against their thresholds, but with these
random keypoints no pair stops before the last layer and no keypoint is pruned (every one runs all 3 layers;
the selections made are empty)."""

import numpy as np
import torch
from common import run
from transformers import LightGlueConfig, LightGlueForKeypointMatching

DIM, KEYPOINTS, SIZE = 16, 24, 64


def build() -> LightGlueForKeypointMatching:
    detector = {"model_type": "superpoint", "encoder_hidden_sizes": [8, 8, 8, 8], "decoder_hidden_size": 8,
                "descriptor_decoder_dim": DIM}  # fmt: skip
    config = LightGlueConfig(
        keypoint_detector_config=detector, descriptor_dim=DIM, num_hidden_layers=3, num_attention_heads=2,
        filter_threshold=0.0,
    )  # fmt: skip
    return LightGlueForKeypointMatching(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Minus the mean matched score of 2 pairs of images' random keypoints (24 each) and descriptors."""
    keypoints = torch.from_numpy((rng.random((2, 2, KEYPOINTS, 2)) * SIZE).astype(np.float32))
    descriptors = torch.from_numpy(rng.standard_normal((2, 2, KEYPOINTS, DIM)).astype(np.float32))
    mask = torch.ones(2, 2, KEYPOINTS, dtype=torch.int64)
    _, matching_scores, _, _, _ = model._match_image_pair(keypoints, descriptors, SIZE, SIZE, mask=mask)
    return -matching_scores.mean()


if __name__ == "__main__":
    run(build, loss_of)
