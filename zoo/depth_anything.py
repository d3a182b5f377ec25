"""Depth Anything (Hugging Face transformers, tiny configuration): a DINOv2 backbone (layer scale, its
position embeddings resized bicubically) feeding a DPT-style neck (reassemble by transposed and strided
convolutions, fusion blocks upsampled bilinearly with aligned corners) and a depth head upsampled
bilinearly to the image and ending in ReLU; the loss a scale-invariant log error against random depths."""

from common import depth_estimation_loss, run
from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config

SIZE = 28


def build() -> DepthAnythingForDepthEstimation:
    backbone = Dinov2Config(
        image_size=SIZE, patch_size=7, hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
        intermediate_size=64, out_features=["stage1", "stage2", "stage3", "stage4"], reshape_hidden_states=False,
    )  # fmt: skip
    config = DepthAnythingConfig(
        backbone_config=backbone, patch_size=7, reassemble_hidden_size=32, neck_hidden_sizes=[8, 16, 24, 32],
        fusion_hidden_size=16, head_hidden_size=8, depth_estimation_type="relative",
    )  # fmt: skip
    return DepthAnythingForDepthEstimation(config)


loss_of = depth_estimation_loss(SIZE, 2.0)

if __name__ == "__main__":
    run(build, loss_of)
