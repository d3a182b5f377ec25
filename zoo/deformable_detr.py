"""Deformable DETR (Hugging Face transformers, tiny configuration) over a ResNet backbone of the library:
multi-scale deformable attention, whose values are sampled at learned offsets by ``grid_sample``
(bilinear, zero padding, corners not aligned) on two feature levels, sine position embeddings and
an encoder-decoder of object queries. The loss is computed from the outputs (no Hungarian matching)."""

import numpy as np
import torch
from common import images, run
from transformers import DeformableDetrConfig, DeformableDetrForObjectDetection, ResNetConfig

QUERIES, LABELS = 8, 3


def build() -> DeformableDetrForObjectDetection:
    backbone = ResNetConfig(
        embedding_size=8, hidden_sizes=[8, 16, 16, 16], depths=[1, 1, 1, 1], layer_type="basic",
        out_features=["stage3", "stage4"],
    )  # fmt: skip
    config = DeformableDetrConfig(
        backbone_config=backbone, num_queries=QUERIES, d_model=32, encoder_layers=1, decoder_layers=2,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
        num_feature_levels=2, encoder_n_points=2, decoder_n_points=2, num_labels=LABELS,
        disable_custom_kernels=True,
    )  # fmt: skip
    return DeformableDetrForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Per query, cross entropy of its logits against a random class and the L1 distance of its box to a
    random box (4 random 64 x 64 images)."""
    out = model(pixel_values=images(rng, size=64))
    classes = torch.from_numpy(rng.integers(0, LABELS, (4, QUERIES)))
    boxes = torch.from_numpy(rng.uniform(0.1, 0.9, (4, QUERIES, 4)).astype(np.float32))
    ce = torch.nn.functional.cross_entropy(out.logits.flatten(0, 1), classes.flatten())
    return ce + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
