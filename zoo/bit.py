"""BiT (Hugging Face transformers, tiny configuration): weight-standardised convolutions, group norm, a
pre-activation ResNet with "SAME" padding."""

from common import image_classification_loss, run
from transformers import BitConfig, BitForImageClassification


def build() -> BitForImageClassification:
    config = BitConfig(
        embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], num_groups=4, layer_type="preactivation",
        global_padding="SAME", num_labels=10,
    )  # fmt: skip
    return BitForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
