"""SAM (Hugging Face transformers, tiny configuration): a ViT image encoder with windowed and global
attention carrying decomposed relative positions, a convolutional neck with channel-wise LayerNorm2d,
a prompt encoder of random Fourier point features (sin and cos of a projection), and a two-way mask
decoder whose masks are upscaled by transposed convolutions (the second on a channels-last input, left
so by LayerNorm2d's permutes), then bilinearly to the image as the processor does (upsample_bilinear2d,
whose backward is a live root here, a first in the zoo); the loss a Dice-plus-BCE of the masks against
random targets, and the IoU head's squared error."""

import numpy as np
import torch
from common import run
from transformers import SamConfig, SamModel

IMAGE, PATCH = 64, 8


def build() -> SamModel:
    config = SamConfig(
        vision_config={
            "hidden_size": 32, "output_channels": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
            "mlp_dim": 64, "image_size": IMAGE, "patch_size": PATCH, "window_size": 4, "global_attn_indexes": [1],
            "num_pos_feats": 8,
        },
        prompt_encoder_config={"hidden_size": 16, "image_size": IMAGE, "patch_size": PATCH, "mask_input_channels": 4},
        mask_decoder_config={
            "hidden_size": 16, "mlp_dim": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
            "iou_head_hidden_dim": 16, "num_multimask_outputs": 3,
        },
    )  # fmt: skip
    return SamModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Two random points a box each (batch 2): the masks' Dice and BCE against random targets, plus the IoU
    head's squared error against 0.5."""
    pixels = torch.from_numpy(rng.standard_normal((2, 3, IMAGE, IMAGE)).astype(np.float32))
    points = torch.from_numpy(rng.uniform(0, IMAGE, (2, 1, 2, 2)).astype(np.float32))
    labels = torch.from_numpy(rng.integers(0, 2, (2, 1, 2)))
    out = model(pixel_values=pixels, input_points=points, input_labels=labels, multimask_output=True)
    low = out.pred_masks  # (batch, prompts, 3, 4 * IMAGE / PATCH, same)
    # upscaled to the image as the processor's post-processing does: bilinear, corners not aligned
    masks = torch.nn.functional.interpolate(low.flatten(0, 1), (IMAGE, IMAGE), mode="bilinear", align_corners=False)
    target = torch.from_numpy((rng.random(tuple(masks.shape)) < 0.5).astype(np.float32))
    prob = torch.sigmoid(masks)
    dice = 1 - (2 * (prob * target).sum((-1, -2)) + 1) / (prob.sum((-1, -2)) + target.sum((-1, -2)) + 1)
    bce = torch.nn.functional.binary_cross_entropy_with_logits(masks, target)
    return dice.mean() + bce + ((out.iou_scores - 0.5) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
