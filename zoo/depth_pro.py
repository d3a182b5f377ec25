"""Depth Pro (Hugging Face transformers, tiny configuration): multi-scale patch encoding (the image
resized bilinearly to each ratio, the larger cut into overlapping patches by `unfold`, all patches
encoded as one batch by a ViT and merged back into a map with the overlaps trimmed), a DINOv2 over the
whole image resized to one patch, transposed-convolution upsampling of each level, a feature-fusion
decoder and a depth head ending in ReLU. The library has no training loss: the loss here is a
scale-invariant log error against random depths."""

from common import depth_estimation_loss, run
from transformers import DepthProConfig, DepthProForDepthEstimation

SIZE = 32


def build() -> DepthProForDepthEstimation:
    def vit(model_type: str, hidden: int, heads: int, patch: int) -> dict:
        return {
            "model_type": model_type, "num_hidden_layers": 2, "hidden_size": hidden, "num_attention_heads": heads,
            "intermediate_size": 2 * hidden, "patch_size": patch,
        }  # fmt: skip

    config = DepthProConfig(
        patch_size=16, fusion_hidden_size=16, intermediate_hook_ids=[1, 0], intermediate_feature_dims=[8, 8],
        scaled_images_ratios=[0.5, 1.0], scaled_images_overlap_ratios=[0.0, 0.25], scaled_images_feature_dims=[8, 8],
        image_model_config=vit("dinov2", 16, 2, 4), patch_model_config=vit("vit", 16, 2, 4),
        fov_model_config=vit("vit", 16, 2, 4), use_fov_model=False,
    )  # fmt: skip
    return DepthProForDepthEstimation(config)


loss_of = depth_estimation_loss(SIZE, 5.0)

if __name__ == "__main__":
    run(build, loss_of)
