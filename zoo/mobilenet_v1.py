"""MobileNetV1 (Hugging Face transformers, tiny configuration): depthwise separable convolutions with
batch norm and ReLU6, TensorFlow-style "same" padding."""

from common import image_classification_loss, run
from transformers import MobileNetV1Config, MobileNetV1ForImageClassification


def build() -> MobileNetV1ForImageClassification:
    config = MobileNetV1Config(image_size=32, depth_multiplier=0.25, min_depth=4, num_labels=10)
    return MobileNetV1ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
