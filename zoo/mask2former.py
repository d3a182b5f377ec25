"""Mask2Former (Hugging Face transformers, tiny configuration) over a Swin backbone of the library: a
pixel decoder of multi-scale deformable attention (``grid_sample`` on three levels) with an FPN step
(nearest upsampling), and a transformer decoder of masked attention: each layer's attention mask is the
previous layer's mask prediction (an einsum of query and pixel embeddings), bilinearly resized to the
level's size, ``sigmoid() < 0.5``, rows with no key left unmasked. The library's segmentation head needs
SciPy (not installed) for its Hungarian matcher, so the model here is the library's ``Mask2FormerModel``
with the head's class predictor (a linear layer to ``num_labels + 1``) and the family's own point loss
without the matcher: query i is matched to target mask i, the final mask logits and the target masks
are point-sampled by ``grid_sample`` at points drawn by NumPy, and the sigmoid cross entropy and dice
losses of the points are added to the cross entropy of the class logits."""

import numpy as np
import torch
from common import images, run
from transformers import Mask2FormerConfig, Mask2FormerModel
from transformers.models.mask2former.modeling_mask2former import dice_loss, sample_point, sigmoid_cross_entropy_loss

QUERIES, LABELS, POINTS = 6, 4, 48


class Segmenter(torch.nn.Module):
    """The library's model and a class predictor of its last decoder state, as its segmentation head has."""

    def __init__(self, config: Mask2FormerConfig) -> None:
        super().__init__()
        self.model = Mask2FormerModel(config)
        self.class_predictor = torch.nn.Linear(config.hidden_dim, config.num_labels + 1)

    def forward(self, pixel_values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(class logits (batch, queries, labels + 1), mask logits (batch, queries, H/4, W/4))."""
        out = self.model(pixel_values=pixel_values, output_hidden_states=True)
        classes = self.class_predictor(out.transformer_decoder_intermediate_states[-1].transpose(0, 1))
        return classes, out.masks_queries_logits[-1]


def build() -> Segmenter:
    backbone = {
        "model_type": "swin", "image_size": 64, "embed_dim": 16, "depths": [1, 1, 1, 1], "num_heads": [1, 1, 2, 2],
        "window_size": 4, "out_features": ["stage1", "stage2", "stage3", "stage4"],
    }  # fmt: skip
    config = Mask2FormerConfig(
        backbone_config=backbone, feature_size=32, mask_feature_size=32, hidden_dim=32, encoder_feedforward_dim=64,
        encoder_layers=1, decoder_layers=4, num_attention_heads=2, dim_feedforward=64, dropout=0.0,
        num_queries=QUERIES, num_labels=LABELS, use_auxiliary_loss=False,
    )  # fmt: skip
    return Segmenter(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Cross entropy of the class logits (a random class or "no object" per query) plus the sigmoid cross
    entropy and dice losses of the mask logits against random binary masks at 48 random points per query
    (2 random 64 x 64 images)."""
    class_logits, mask_logits = model(images(rng, batch=2, size=64))
    masks = mask_logits.flatten(0, 1)[:, None]  # (batch * queries, 1, H/4, W/4)
    targets = torch.from_numpy((rng.random((masks.shape[0], 1, 64, 64)) < 0.5).astype(np.float32))
    points = torch.from_numpy(rng.random((masks.shape[0], POINTS, 2)).astype(np.float32))
    point_logits = sample_point(masks, points, align_corners=False).squeeze(1)
    point_labels = sample_point(targets, points, align_corners=False).squeeze(1)
    classes = torch.from_numpy(rng.integers(0, LABELS + 1, (2 * QUERIES,)))
    ce = torch.nn.functional.cross_entropy(class_logits.flatten(0, 1), classes)
    num_masks = masks.shape[0]
    return (
        ce
        + sigmoid_cross_entropy_loss(point_logits, point_labels, num_masks)
        + dice_loss(point_logits, point_labels, num_masks)
    )


if __name__ == "__main__":
    run(build, loss_of)
