"""SuperGlue (Hugging Face transformers, tiny configuration): keypoints and descriptors given from NumPy (the
SuperPoint detector is not run), a keypoint encoder of 1-d convolutions with batch norm, alternating self-
and cross-attention between the two images' keypoints, a dustbin row and column, log-space Sinkhorn
iterations (``logsumexp`` over rows and over columns, 10 rounds), mutual nearest matches by ``max`` and
``gather``, and the matched scores' ``exp``."""

import numpy as np
import torch
from common import run
from transformers import SuperGlueConfig, SuperGlueForKeypointMatching

DIM, KEYPOINTS, SIZE = 16, 24, 64


def build() -> SuperGlueForKeypointMatching:
    detector = {"model_type": "superpoint", "encoder_hidden_sizes": [8, 8, 8, 8], "decoder_hidden_size": 8,
                "descriptor_decoder_dim": DIM}  # fmt: skip
    config = SuperGlueConfig(
        keypoint_detector_config=detector, hidden_size=DIM, keypoint_encoder_sizes=[8, 16],
        gnn_layers_types=["self", "cross"], num_attention_heads=2, sinkhorn_iterations=10, matching_threshold=0.0,
    )  # fmt: skip
    return SuperGlueForKeypointMatching(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Minus the mean matched score of 2 pairs of images' random keypoints (24 each), descriptors and scores."""
    keypoints = torch.from_numpy((rng.random((2, 2, KEYPOINTS, 2)) * SIZE).astype(np.float32))
    descriptors = torch.from_numpy(rng.standard_normal((2, 2, KEYPOINTS, DIM)).astype(np.float32))
    scores = torch.from_numpy(rng.random((2, 2, KEYPOINTS)).astype(np.float32))
    _, matching_scores, _, _ = model._match_image_pair(keypoints, descriptors, scores, SIZE, SIZE)
    return -matching_scores.mean()


if __name__ == "__main__":
    run(build, loss_of)
