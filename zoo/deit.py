"""DeiT (Hugging Face transformers, tiny configuration): a ViT with a distillation token beside the class
token, both read out by their own heads, the two logits averaged."""

from common import image_classification_loss, run
from transformers import DeiTConfig, DeiTForImageClassification


def build() -> DeiTForImageClassification:
    config = DeiTConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=32,
        patch_size=8, num_labels=10,
    )  # fmt: skip
    return DeiTForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
