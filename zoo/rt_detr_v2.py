"""RT-DETR v2 (Hugging Face transformers, tiny configuration): a ResNet-D backbone (an average-pooled
shortcut) with frozen batch norm (running statistics as buffers, ``x * scale + bias`` written out), a
hybrid encoder (attention on the coarsest level, a top-down and bottom-up path of CSP-RepVGG blocks,
nearest upsampling), the top-k encoder proposals as queries, and multi-scale deformable attention by the
"discrete" method: sampling locations scaled, rounded by ``+ 0.5`` and ``to(int64)``, clamped and
gathered by advanced indexing (no ``grid_sample``; the backward an ``index_put_`` that accumulates).
The detection loss needs the Hungarian matcher (SciPy, not installed): the loss here is of the logits
and boxes."""

import numpy as np
import torch
from common import images, run
from transformers import RTDetrV2Config, RTDetrV2ForObjectDetection

QUERIES = 10


def build() -> RTDetrV2ForObjectDetection:
    backbone = {"model_type": "rt_detr_resnet", "embedding_size": 16, "hidden_sizes": [16, 32, 64, 128],
                "depths": [1, 1, 1, 1], "layer_type": "basic", "out_features": ["stage3", "stage4"]}  # fmt: skip
    config = RTDetrV2Config(
        backbone_config=backbone, encoder_in_channels=[64, 128], feat_strides=[16, 32], encode_proj_layers=[1],
        encoder_hidden_dim=32, encoder_ffn_dim=64, encoder_attention_heads=2, d_model=32, num_feature_levels=2,
        decoder_n_levels=2, decoder_in_channels=[32, 32], decoder_ffn_dim=64, decoder_layers=2,
        decoder_attention_heads=2, decoder_n_points=2, num_queries=QUERIES, num_labels=5, num_denoising=0,
        decoder_method="discrete", auxiliary_loss=False,
    )  # fmt: skip
    return RTDetrV2ForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Sigmoid focal-style loss of the logits against random one-hot classes plus L1 of the boxes against
    random boxes (2 random 64 x 64 images)."""
    out = model(pixel_values=images(rng, batch=2, size=64))
    classes = torch.from_numpy(np.eye(5, dtype=np.float32)[rng.integers(0, 5, (2, QUERIES))])
    boxes = torch.from_numpy(rng.random((2, QUERIES, 4)).astype(np.float32))
    logits = torch.nn.functional.binary_cross_entropy_with_logits(out.logits, classes)
    return logits + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
