"""DAB-DETR (Hugging Face transformers, tiny configuration) over a ResNet backbone of the library (frozen
batch norm): PReLU activations in the encoder and decoder feed-forward layers (a learned slope),
dynamic anchor boxes as the decoder's queries: each layer's query position is the sine embedding of its
anchor (separate temperatures for height and width), modulated by the ratio of a predicted to the
anchor's width and height, and the anchors refined layer by layer through ``inverse_sigmoid`` (clamped
``log(x / (1 - x))``), a box MLP and ``sigmoid``. The detection loss needs the Hungarian matcher (SciPy,
not installed): the loss here is of the logits and boxes."""

import numpy as np
import torch
from common import images, run
from transformers import DabDetrConfig, DabDetrForObjectDetection, ResNetConfig

QUERIES, LABELS = 8, 3


def build() -> DabDetrForObjectDetection:
    backbone = ResNetConfig(
        embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1], layer_type="basic",
        out_features=["stage4"],
    )  # fmt: skip
    config = DabDetrConfig(
        backbone_config=backbone, num_queries=QUERIES, hidden_size=32, encoder_layers=1, decoder_layers=2,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, dropout=0.0,
        num_labels=LABELS, activation_function="prelu",
    )  # fmt: skip
    return DabDetrForObjectDetection(config)


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
