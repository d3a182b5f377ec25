"""D-FINE (Hugging Face transformers, tiny configuration) over an HGNetV2 backbone: learnable affine
blocks (a scalar scale and bias after each activation), light conv blocks (a 1 x 1 then a depthwise
k x k convolution), the stem's padded 2 x 2 max pool, and fine-grained distribution refinement: each
decoder layer predicts, per box edge, a distribution over ``max_num_bins + 1`` bins (softmax), weighs a
non-uniform weighting function (built from powers of ``up`` and ``reg_scale``) by it, and adds the result
to the previous layer's box in distance form; a localization-quality head reads the top-k probabilities
of those distributions (topk, mean, concatenation, a small MLP) into the class logits. The detection loss
needs the Hungarian matcher (SciPy, not installed): the loss here is of the logits and boxes."""

import numpy as np
import torch
from common import images, run
from transformers import DFineConfig, DFineForObjectDetection

QUERIES, LABELS = 10, 5


def build() -> DFineForObjectDetection:
    backbone = {
        "model_type": "hgnet_v2", "embedding_size": 16, "depths": [1, 1, 1, 1], "hidden_sizes": [32, 64, 96, 128],
        "stem_channels": [3, 8, 16], "stage_in_channels": [16, 32, 64, 96], "stage_mid_channels": [8, 16, 24, 32],
        "stage_out_channels": [32, 64, 96, 128], "stage_num_blocks": [1, 1, 1, 1],
        "stage_downsample": [False, True, True, True], "stage_light_block": [False, False, True, True],
        "stage_kernel_size": [3, 3, 5, 5], "stage_numb_of_layers": [2, 2, 2, 2],
        "use_learnable_affine_block": True, "out_features": ["stage3", "stage4"],
    }  # fmt: skip
    config = DFineConfig(
        backbone_config=backbone, encoder_in_channels=[96, 128], feat_strides=[16, 32], encode_proj_layers=[1],
        encoder_hidden_dim=32, encoder_ffn_dim=64, encoder_attention_heads=2, d_model=32, num_feature_levels=2,
        decoder_in_channels=[32, 32], decoder_ffn_dim=64, decoder_layers=2, decoder_attention_heads=2,
        decoder_n_points=2, num_queries=QUERIES, num_labels=LABELS, num_denoising=0, max_num_bins=8,
        lqe_hidden_dim=16, hidden_expansion=0.5, auxiliary_loss=False,
    )  # fmt: skip
    return DFineForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Sigmoid cross entropy of the logits against random one-hot classes plus L1 of the boxes against
    random boxes (2 random 64 x 64 images)."""
    out = model(pixel_values=images(rng, batch=2, size=64))
    classes = torch.from_numpy(np.eye(LABELS, dtype=np.float32)[rng.integers(0, LABELS, (2, QUERIES))])
    boxes = torch.from_numpy(rng.random((2, QUERIES, 4)).astype(np.float32))
    logits = torch.nn.functional.binary_cross_entropy_with_logits(out.logits, classes)
    return logits + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
