"""MobileNetV2 (Hugging Face transformers, tiny configuration): depthwise convolutions, batch norm, ReLU6."""

from common import image_classification_loss, run
from transformers import MobileNetV2Config, MobileNetV2ForImageClassification


def build() -> MobileNetV2ForImageClassification:
    config = MobileNetV2Config(num_channels=3, image_size=32, depth_multiplier=0.25, num_labels=10)
    return MobileNetV2ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
