"""SwiftFormer (Hugging Face transformers, tiny configuration): a convolutional stem with batch norm,
depthwise 3x3 convolutions (ConvEncoder and local representation blocks), and efficient additive
attention: queries and keys L2-normalised along the channels, a learnt global query pooled by
softmax-free weighting, then layer-scaled residuals; a distillation and a classification head."""

from common import image_classification_loss, run
from transformers import SwiftFormerConfig, SwiftFormerForImageClassification

LABELS = 5


def build() -> SwiftFormerForImageClassification:
    config = SwiftFormerConfig(
        image_size=32, depths=[1, 1, 1, 1], embed_dims=[8, 16, 24, 32], mlp_ratio=2, num_labels=LABELS,
    )  # fmt: skip
    return SwiftFormerForImageClassification(config)


loss_of = image_classification_loss(LABELS)

if __name__ == "__main__":
    run(build, loss_of)
