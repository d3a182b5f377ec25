"""SAM (Hugging Face transformers, tiny configuration): a ViT image encoder with windowed and global
attention carrying decomposed relative positions, a convolutional neck with channel-wise LayerNorm2d,
a prompt encoder of random Fourier point features (sin and cos of a projection), and a two-way mask
decoder whose masks are upscaled by transposed convolutions (the second on a channels-last input, left
so by LayerNorm2d's permutes), then bilinearly to the image as the processor does (upsample_bilinear2d,
whose backward is a live root here, a first in the zoo); the loss a Dice-plus-BCE of the masks against
random targets, and the IoU head's squared error."""

from common import mask_segmentation_loss, run
from transformers import SamConfig, SamModel

IMAGE, PATCH = 64, 8

# the sub-configurations, shared with SAM-HQ (zoo/sam_hq.py)
VISION = {
    "hidden_size": 32, "output_channels": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 64,
    "image_size": IMAGE, "patch_size": PATCH, "window_size": 4, "global_attn_indexes": [1], "num_pos_feats": 8,
}  # fmt: skip
PROMPT = {"hidden_size": 16, "image_size": IMAGE, "patch_size": PATCH, "mask_input_channels": 4}
DECODER = {
    "hidden_size": 16, "mlp_dim": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "iou_head_hidden_dim": 16,
    "num_multimask_outputs": 3,
}  # fmt: skip


def build() -> SamModel:
    return SamModel(SamConfig(vision_config=VISION, prompt_encoder_config=PROMPT, mask_decoder_config=DECODER))


loss_of = mask_segmentation_loss(IMAGE)

if __name__ == "__main__":
    run(build, loss_of)
