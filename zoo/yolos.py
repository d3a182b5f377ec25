"""YOLOS (Hugging Face transformers, tiny configuration): a ViT whose sequence carries detection tokens,
its position embeddings (initial and one per layer, the mid position embeddings) resized to the image's
patch grid by bicubic interpolation in every forward pass (images larger than the configured size), a
class head and a box MLP on the detection tokens. The loss is computed from the outputs (no Hungarian
matching)."""

import numpy as np
import torch
from common import run
from transformers import YolosConfig, YolosForObjectDetection

TOKENS, LABELS = 4, 3


def build() -> YolosForObjectDetection:
    config = YolosConfig(
        image_size=[32, 32], patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, num_detection_tokens=TOKENS, use_mid_position_embeddings=True, num_labels=LABELS,
    )  # fmt: skip
    return YolosForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Per detection token, cross entropy of its logits (classes and "no object") against a random class
    and the L1 distance of its box to a random box (4 random 40 x 48 images: a 5 x 6 patch grid)."""
    pixels = torch.from_numpy(rng.standard_normal((4, 3, 40, 48)).astype(np.float32))
    out = model(pixel_values=pixels)
    classes = torch.from_numpy(rng.integers(0, LABELS + 1, (4, TOKENS)))
    boxes = torch.from_numpy(rng.uniform(0.1, 0.9, (4, TOKENS, 4)).astype(np.float32))
    ce = torch.nn.functional.cross_entropy(out.logits.flatten(0, 1), classes.flatten())
    return ce + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
