"""MaskFormer (Hugging Face transformers, tiny configuration) over a Swin backbone of the library: a
pixel decoder that is a feature pyramid (3 x 3 convolutions with group norm and ReLU, each coarser level
nearest-upsampled to the finer one's size and added to a 1 x 1 lateral convolution with group norm), a
DETR transformer decoder over the coarsest level with sine position embeddings and learned queries (the
decoder's layers post-normed), a class head and an MLP mask-embedding head, and per-query masks as an
einsum of the mask embeddings with the per-pixel embeddings. The library's segmentation head needs SciPy
(not installed) for its Hungarian matcher, so the model here is the library's ``MaskFormerModel`` with the
head's class predictor and mask-embedding MLP, and the loss matches query i to target mask i: the cross
entropy of the class logits (a random class or "no object" per query) plus the sigmoid cross entropy and
dice losses of the mask logits against random binary masks."""

import numpy as np
import torch
from common import images, run
from transformers import MaskFormerConfig, MaskFormerModel
from transformers.models.maskformer.modeling_maskformer import MaskformerMLPPredictionHead

QUERIES, LABELS = 6, 4


class Segmenter(torch.nn.Module):
    """The library's model, a class predictor and a mask-embedding MLP of its decoder's last state, as its
    segmentation head has; the masks as the head makes them."""

    def __init__(self, config: MaskFormerConfig) -> None:
        super().__init__()
        self.model = MaskFormerModel(config)
        hidden = config.decoder_config.hidden_size
        self.class_predictor = torch.nn.Linear(hidden, config.num_labels + 1)
        self.mask_embedder = MaskformerMLPPredictionHead(hidden, hidden, config.mask_feature_size)

    def forward(self, pixel_values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(class logits (batch, queries, labels + 1), mask logits (batch, queries, H/4, W/4))."""
        out = self.model(pixel_values=pixel_values)
        queries = out.transformer_decoder_last_hidden_state
        masks = torch.einsum("bqc, bchw -> bqhw", self.mask_embedder(queries), out.pixel_decoder_last_hidden_state)
        return self.class_predictor(queries), masks


def build() -> Segmenter:
    backbone = {
        "model_type": "swin", "image_size": 64, "embed_dim": 16, "depths": [1, 1, 1, 1], "num_heads": [1, 1, 2, 2],
        "window_size": 4, "out_features": ["stage1", "stage2", "stage3", "stage4"],
    }  # fmt: skip
    decoder = {
        "model_type": "detr", "d_model": 32, "decoder_layers": 2, "decoder_attention_heads": 2,
        "decoder_ffn_dim": 64, "encoder_layers": 1, "encoder_attention_heads": 2, "num_queries": QUERIES,
        "dropout": 0.0,
    }  # fmt: skip
    config = MaskFormerConfig(
        backbone_config=backbone, decoder_config=decoder, fpn_feature_size=32, mask_feature_size=32,
        num_labels=LABELS,
    )  # fmt: skip
    return Segmenter(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 64 x 64 images: the class logits' cross entropy, the mask logits' sigmoid cross entropy and
    dice loss against random binary masks, query i matched to target i."""
    class_logits, masks = model(images(rng, batch=2, size=64))
    targets = torch.from_numpy((rng.random(tuple(masks.shape)) < 0.5).astype(np.float32))
    classes = torch.from_numpy(rng.integers(0, LABELS + 1, (2 * QUERIES,)))
    ce = torch.nn.functional.cross_entropy(class_logits.flatten(0, 1), classes)
    bce = torch.nn.functional.binary_cross_entropy_with_logits(masks, targets)
    prob = masks.sigmoid().flatten(2)
    flat = targets.flatten(2)
    dice = 1 - (2 * (prob * flat).sum(-1) + 1) / (prob.sum(-1) + flat.sum(-1) + 1)
    return ce + bce + dice.mean()


if __name__ == "__main__":
    run(build, loss_of)
