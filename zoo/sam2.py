"""SAM 2 (Hugging Face transformers, tiny configuration): a Hiera image encoder (a 7 x 7 stride-4 patch
convolution, window attention with query pooling by 2 x 2 max pooling between stages, global attention in
one block, a window position embedding tiled over a background embedding resized by bicubic
interpolation), a feature pyramid neck adding nearest-upsampled coarser levels to 1 x 1 lateral
convolutions with sine position encodings, the image embedding plus a learned no-memory embedding, a
prompt encoder of random Fourier point features, and a two-way mask decoder whose upscaling adds the two
high-resolution pyramid levels (through 1 x 1 convolutions) between its transposed convolutions, with
object-score and IoU heads; the loss a Dice-plus-BCE of the masks against random targets, and the IoU
head's squared error."""

from common import mask_segmentation_loss, run
from transformers import Sam2Config, Sam2Model

IMAGE = 64

BACKBONE = {
    "model_type": "sam2_hiera_det_model", "hidden_size": 8, "num_attention_heads": 1, "image_size": [IMAGE, IMAGE],
    "blocks_per_stage": [1, 1, 2, 1],
    "embed_dim_per_stage": [8, 16, 32, 64], "num_attention_heads_per_stage": [1, 1, 2, 2],
    "window_size_per_stage": [4, 4, 2, 2], "global_attention_blocks": [3],
    "window_positional_embedding_background_size": [3, 3],
}  # fmt: skip
VISION = {
    "backbone_config": BACKBONE, "backbone_channel_list": [64, 32, 16, 8],
    "backbone_feature_sizes": [[16, 16], [8, 8], [4, 4]], "fpn_hidden_size": 16,
}  # fmt: skip
PROMPT = {"hidden_size": 16, "image_size": IMAGE, "patch_size": 16, "mask_input_channels": 4}
DECODER = {
    "hidden_size": 16, "mlp_dim": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "iou_head_hidden_dim": 16,
    "num_multimask_outputs": 3,
}  # fmt: skip


def build() -> Sam2Model:
    return Sam2Model(Sam2Config(vision_config=VISION, prompt_encoder_config=PROMPT, mask_decoder_config=DECODER))


loss_of = mask_segmentation_loss(IMAGE)

if __name__ == "__main__":
    run(build, loss_of)
