"""EfficientNet (Hugging Face transformers, tiny configuration): a stem convolution with
``padding="valid"`` after its own zero padding, depthwise convolutions, squeeze-and-excitation, batch norm."""

from common import image_classification_loss, run
from transformers import EfficientNetConfig, EfficientNetForImageClassification


def build() -> EfficientNetForImageClassification:
    config = EfficientNetConfig(
        image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320, num_labels=10
    )
    return EfficientNetForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
