"""DINOv2 (Hugging Face transformers, tiny configuration): a ViT with LayerScale, classifying from the
class token and the mean of the patch tokens."""

from common import image_classification_loss, run
from transformers import Dinov2Config, Dinov2ForImageClassification


def build() -> Dinov2ForImageClassification:
    config = Dinov2Config(
        image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2,
        num_labels=10,
    )  # fmt: skip
    return Dinov2ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
