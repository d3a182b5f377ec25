"""EfficientLoFTR (Hugging Face transformers, tiny configuration): detector-free matching of an image
pair. A RepVGG backbone (3 x 3 and 1 x 1 convolutions with batch norm, summed), aggregated attention
(queries by a strided depthwise convolution, keys and values by max pooling, 2-D rotary positions, the
output upsampled bilinearly), coarse matching by a dual softmax (``softmax`` over each image's axis of
the similarity, multiplied), its border masked and mutual maxima kept, then a fine-level refinement
(an FPN of bilinear upsampling, windows cut by ``unfold``, a second dual softmax and a spatial
expectation of a softmax over a 3 x 3 window). The library has no training loss: the loss here is of
the matching scores and the refined keypoints' coordinates against random targets."""

import numpy as np
import torch
from common import run
from transformers import EfficientLoFTRConfig, EfficientLoFTRForKeypointMatching

SIZE = 64


def build() -> EfficientLoFTRForKeypointMatching:
    config = EfficientLoFTRConfig(
        stage_num_blocks=[1, 1, 1, 1], out_features=[16, 16, 24, 32], stage_stride=[2, 1, 2, 2], hidden_size=32,
        num_attention_layers=2, num_attention_heads=2, q_aggregation_kernel_size=2, kv_aggregation_kernel_size=2,
        q_aggregation_stride=2, kv_aggregation_stride=2, coarse_matching_threshold=0.0,
        coarse_matching_border_removal=0, fine_matching_slice_dim=4, partial_rotary_factor=1.0,
    )  # fmt: skip
    return EfficientLoFTRForKeypointMatching(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Minus the mean matching score plus the L1 distance of the refined keypoints (normalised to the
    image) to random points, for 2 random pairs of 64 x 64 grey images."""
    pixels = torch.from_numpy(rng.random((2, 2, 1, SIZE, SIZE)).astype(np.float32))
    out = model(pixel_values=pixels)
    target = torch.from_numpy(rng.random(tuple(out.keypoints.shape)).astype(np.float32))
    return (out.keypoints - target).abs().mean() - out.matching_scores.mean()


if __name__ == "__main__":
    run(build, loss_of)
