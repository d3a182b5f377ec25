"""ZoeDepth (Hugging Face transformers, tiny configuration) over a BEiT backbone of the library (relative
position bias): a DPT-style neck and relative-depth head, then the metric head: seed bin centres from
softplus bin widths, attractor layers that move the bin centres by ``dx / (1 + alpha * dx ** gamma)``
(``pow`` of a difference, bilinear upsampling with aligned corners between levels), and the conditional
log-binomial: ``log(p)`` and ``log(1 - p)`` of clamped probabilities weighted by the bin index and added to
a Stirling ``log_binom`` of constants, divided by a learned temperature and softmaxed over the bins; the
depth is the probability-weighted sum of the bin centres. The library has no training loss: the loss here
is a scale-invariant log error against random depths."""

from common import depth_estimation_loss, run
from transformers import ZoeDepthConfig, ZoeDepthForDepthEstimation

SIZE = 32


def build() -> ZoeDepthForDepthEstimation:
    backbone = {
        "model_type": "beit", "image_size": SIZE, "patch_size": 8, "hidden_size": 32, "num_hidden_layers": 4,
        "num_attention_heads": 2, "intermediate_size": 64, "use_relative_position_bias": True,
        "reshape_hidden_states": False, "out_features": ["stage1", "stage2", "stage3", "stage4"],
    }  # fmt: skip
    config = ZoeDepthConfig(
        backbone_config=backbone, neck_hidden_sizes=[8, 16, 24, 32], fusion_hidden_size=16, bottleneck_features=16,
        num_relative_features=8, bin_embedding_dim=16, num_attractors=[4, 2, 2, 1],
        bin_configurations=[{"n_bins": 16, "min_depth": 0.001, "max_depth": 10.0}],
    )  # fmt: skip
    return ZoeDepthForDepthEstimation(config)


loss_of = depth_estimation_loss(SIZE, 5.0, eps=None)

if __name__ == "__main__":
    run(build, loss_of)
