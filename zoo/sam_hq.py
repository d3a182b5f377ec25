"""SAM-HQ (Hugging Face transformers, tiny configuration): SAM's encoder, prompt encoder and two-way
decoder (``zoo/sam.py``) with the high-quality output token: an early ViT layer's features (the first
global-attention layer's output, channels-last, permuted) compressed by two transposed convolutions with
a LayerNorm2d and GELU between, added to the image embedding's own two-transposed-convolution encoding,
and to the upscaled mask features refined by two 3 x 3 convolutions; the HQ token's mask from these fused
features by its own MLP and ``matmul``, added to SAM's masks after the multimask outputs are sorted by
predicted IoU (``sort`` descending and ``gather``). The loss is SAM's: Dice plus BCE of the masks
against random targets and the IoU head's squared error."""

from common import mask_segmentation_loss, run
from sam import DECODER, IMAGE, PROMPT, VISION
from transformers import SamHQConfig, SamHQModel


def build() -> SamHQModel:
    """SAM's tiny configuration (zoo/sam.py), the decoder told the ViT's width for the HQ features."""
    decoder = {**DECODER, "vit_dim": VISION["hidden_size"]}
    return SamHQModel(SamHQConfig(vision_config=VISION, prompt_encoder_config=PROMPT, mask_decoder_config=decoder))


loss_of = mask_segmentation_loss(IMAGE)


if __name__ == "__main__":
    run(build, loss_of)
