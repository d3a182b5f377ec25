"""ConvNeXt (Hugging Face transformers, tiny configuration): a 4x4 patch convolution, depthwise 7x7
convolutions, channels-last LayerNorm, GELU, layer scale."""

from common import image_classification_loss, run
from transformers import ConvNextConfig, ConvNextForImageClassification


def build() -> ConvNextForImageClassification:
    config = ConvNextConfig(
        num_channels=3, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, num_labels=10, image_size=32
    )  # fmt: skip
    return ConvNextForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
