"""PP-OCRv5 mobile text detection (Hugging Face transformers, tiny configuration): a PP-LCNetV3 backbone of
depthwise-separable blocks whose convolutions are re-parameterisable layers (in training the sum of an identity
batch norm where stride 1 keeps the channels, two k x k convolutions and where k > 1 a 1 x 1, each with batch
norm; then a learnable one-element scale and bias, hard-swish and another one-element affine, the activation skipped at
stride 2), a neck of residual squeeze-and-excitation layers gated by a clamped ``0.2 x + 0.5``, the four
scales fused top-down by nearest 2x upsampling and concatenated after nearest upsampling by 2, 4 and 8, and a
head of two stride-2 transposed convolutions to a sigmoid probability map at the page's size. Trained as
differentiable binarisation's probability map is: ``binary_cross_entropy`` of the probabilities against a
random text mask plus a dice loss."""

import numpy as np
import torch
from common import images, run
from transformers import PPLCNetV3Config, PPOCRV5MobileDetConfig, PPOCRV5MobileDetForObjectDetection

SIZE = 64


def build() -> PPOCRV5MobileDetForObjectDetection:
    backbone = PPLCNetV3Config(
        scale=1.0, stem_channels=8, divisor=8, conv_symmetric_num=2,
        block_configs=[
            [[3, 8, 16, 1, False]], [[3, 16, 24, 2, False]], [[3, 24, 32, 2, False]],
            [[3, 32, 48, 2, False], [5, 48, 48, 1, False]], [[5, 48, 64, 2, True], [5, 64, 64, 1, False]],
        ],
        out_features=["stage2", "stage3", "stage4", "stage5"], out_indices=[2, 3, 4, 5],
    )  # fmt: skip
    config = PPOCRV5MobileDetConfig(
        backbone_config=backbone, neck_out_channels=32, layer_list_out_channels=[8, 8, 16, 32]
    )
    return PPOCRV5MobileDetForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 64 x 64 pages: the probability map's binary cross entropy against a random text mask and
    its dice loss (1 - 2 |P * M| / (|P| + |M|))."""
    prob = model(pixel_values=images(rng, batch=2, size=SIZE)).last_hidden_state
    mask = torch.from_numpy((rng.uniform(0, 1, tuple(prob.shape)) < 0.3).astype(np.float32))
    bce = torch.nn.functional.binary_cross_entropy(prob, mask)
    dice = 1 - 2 * (prob * mask).sum() / (prob.sum() + mask.sum() + 1e-6)
    return bce + dice


if __name__ == "__main__":
    run(build, loss_of)
