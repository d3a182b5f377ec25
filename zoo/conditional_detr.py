"""Conditional DETR (Hugging Face transformers, tiny configuration) over a ResNet backbone of the
library (frozen batch norm): each decoder layer's cross-attention query concatenates its content with
a spatial query (the sine embedding of a reference point, scaled by a learned transform of the content)
per head, sigmoid scores. The loss is computed from the outputs (no Hungarian matching: SciPy is not
installed)."""

import numpy as np
import torch
from common import images, run
from transformers import ConditionalDetrConfig, ConditionalDetrForObjectDetection, ResNetConfig

QUERIES, LABELS = 8, 3


def build() -> ConditionalDetrForObjectDetection:
    backbone = ResNetConfig(
        embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1], layer_type="basic",
        out_features=["stage4"],
    )  # fmt: skip
    config = ConditionalDetrConfig(
        backbone_config=backbone, use_timm_backbone=False, num_queries=QUERIES, d_model=32, encoder_layers=1,
        decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
        decoder_ffn_dim=32, dropout=0.0, num_labels=LABELS,
    )  # fmt: skip
    return ConditionalDetrForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Per query, sigmoid cross entropy of its logits against a random one-hot class and the L1 distance
    of its box to a random box (2 random 64 x 64 images)."""
    out = model(pixel_values=images(rng, batch=2, size=64))
    classes = torch.from_numpy(np.eye(LABELS, dtype=np.float32)[rng.integers(0, LABELS, (2, QUERIES))])
    boxes = torch.from_numpy(rng.uniform(0.1, 0.9, (2, QUERIES, 4)).astype(np.float32))
    ce = torch.nn.functional.binary_cross_entropy_with_logits(out.logits, classes)
    return ce + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
