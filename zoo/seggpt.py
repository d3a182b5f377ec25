"""SegGPT (Hugging Face transformers, tiny configuration): in-context segmentation: a prompt image and
its mask stacked above the input image and a mask to fill, the two pairs embedded by one patch
convolution plus a learned segment token each and mixed halfway by their mean, decomposed relative
positions as in ViTDet, position embeddings resized bicubically; a decoder of the concatenated
intermediate layers by a linear layer, a 3x3 convolution, layer norm over channels and a 1x1
convolution; the loss a smooth L1 (``smooth_l1_loss``, beta 0.01) over the masked patches only."""

import numpy as np
import torch
from common import images, run
from transformers import SegGptConfig, SegGptForImageSegmentation


def build() -> SegGptForImageSegmentation:
    config = SegGptConfig(
        hidden_size=32, num_hidden_layers=4, num_attention_heads=2, mlp_dim=64, image_size=[64, 32], patch_size=8,
        pretrain_image_size=32, decoder_hidden_size=16, merge_index=0, intermediate_hidden_state_indices=[1, 2, 3],
        drop_path_rate=0.0,
    )  # fmt: skip
    return SegGptForImageSegmentation(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 32 x 32 images, 2 random prompt images with random masks and random target masks; the
    model's smooth L1 loss over the lower half's patches (the target), which it masks."""
    pixels, prompts, prompt_masks, labels = (images(rng, batch=2) for _ in range(4))
    return model(pixel_values=pixels, prompt_pixel_values=prompts, prompt_masks=prompt_masks, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
