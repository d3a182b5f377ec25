"""ConvNeXt V2 (Hugging Face transformers, tiny configuration): depthwise 7x7 convolutions, channels-last
LayerNorm, global response normalisation."""

from common import image_classification_loss, run
from transformers import ConvNextV2Config, ConvNextV2ForImageClassification


def build() -> ConvNextV2ForImageClassification:
    config = ConvNextV2Config(image_size=32, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, num_labels=10)
    return ConvNextV2ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
